package shmem

// The type sets of the API, one constraint each. They are exact types (no ~): each maps onto
// a C type of the specification's tables, which the C ABI generates its names from.

// Sync is the point-to-point synchronization types (wait_until, test and their forms).
// The 14 C types of the spec's table map onto them: short int16, int int32, long and long
// long int64, the unsigned ones likewise, size_t uintptr, ptrdiff_t int.
type Sync interface {
	int16 | int32 | int64 | uint16 | uint32 | uint64 | int | uint | uintptr
}

// AMO is the standard atomic types: fetch_add, add, fetch_inc, inc, compare_swap.
type AMO interface {
	int32 | int64 | uint32 | uint64 | int | uint | uintptr
}

// ExtAMO is the extended atomic types: fetch, set, swap.
type ExtAMO interface {
	AMO | float32 | float64
}

// Integer is every integer type.
type Integer interface {
	int8 | int16 | int32 | int64 | int | uint8 | uint16 | uint32 | uint64 | uint | uintptr
}

// Bitwise is the types of the bitwise atomics and reductions (and, or, xor): all integers.
type Bitwise interface{ Integer }

// Ordered is the types of min and max reductions: integers and floats.
type Ordered interface {
	Integer | float32 | float64
}

// Arithmetic is the types of sum and prod reductions: Ordered and the complex types.
type Arithmetic interface {
	Ordered | complex64 | complex128
}

// Word32 is the 32-bit element types of alltoall32, broadcast32, collect32 and fcollect32.
type Word32 interface{ int32 | uint32 | float32 }

// Word64 is the 64-bit element types of alltoall64, broadcast64, collect64 and fcollect64.
type Word64 interface {
	int64 | uint64 | float64 | int | uint | complex64
}
