package main

import "github.com/goshmem/shmem/gen/tables"

// The type tables of the OpenSHMEM 1.5 specification: which TYPENAMEs each typed family of
// routines has. The C type and Go type of each TYPENAME come from gen/tables (types.go).
const (
	// Standard RMA types (Table 5): put, get, p, g, iput, iget, put_signal, and the team
	// broadcast, collect, fcollect, alltoall and alltoalls.
	rmaTypes = "float double longdouble char schar short int long longlong uchar ushort uint ulong ulonglong " +
		"int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff"
	// Standard AMO types (Table 6): fetch_inc, inc, fetch_add, add, compare_swap.
	amoStdTypes = "int long longlong uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff"
	// Extended AMO types (Table 7): fetch, set, swap.
	amoExtTypes = "float double " + amoStdTypes
	// Bitwise AMO types (Table 8): and, or, xor and their fetch forms.
	amoBitTypes = "uint ulong ulonglong int32 int64 uint32 uint64"
	// Point-to-point synchronization types (Table 9): wait_until and test, all their forms.
	syncTypes = "short int long longlong ushort uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff"

	// Team reductions (Table 10), by the operation's kinds: bitwise, ordered, arithmetic.
	reduceBitTypes   = "uchar ushort uint ulong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size"
	reduceOrdTypes   = "char schar short int long longlong ptrdiff uchar ushort uint ulong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size float double longdouble"
	reduceArithTypes = reduceOrdTypes + " complexd complexf"

	// Scans (OpenSHMEM 1.6): the types of the sum reduction.
	scanTypes = reduceArithTypes

	// Active-set reductions (shmem_TYPENAME_OP_to_all), likewise.
	toAllBitTypes   = "short int long longlong"
	toAllOrdTypes   = "short int long longlong float double longdouble"
	toAllArithTypes = toAllOrdTypes + " complexd complexf"

	// Deprecated forms of 1.3 still declared by 1.5 implementations.
	deprecatedSyncTypes   = "short int long longlong"
	deprecatedAMOTypes    = "int long longlong"
	deprecatedAMOExtTypes = "int long longlong float double"
)

// reduceTypes is the team (or, with toAll, active-set) reduction family of op, from the
// kinds gen/tables.Ops gives it.
func reduceTypes(op tables.Op, toAll bool) string {
	has := func(k tables.Kind) bool {
		for _, x := range op.Kinds {
			if x == k {
				return true
			}
		}
		return false
	}
	switch {
	case has(tables.Complex) && toAll:
		return toAllArithTypes
	case has(tables.Complex):
		return reduceArithTypes
	case has(tables.Float) && toAll:
		return toAllOrdTypes
	case has(tables.Float):
		return reduceOrdTypes
	case toAll:
		return toAllBitTypes
	}
	return reduceBitTypes
}
