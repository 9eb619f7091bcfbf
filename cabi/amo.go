//go:build linux && cgo

package main

// #include "cabi.h"
import "C"

import (
	"fmt"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Atomic memory operations by size: every C AMO type is 4 or 8 bytes (the spec's tables have
// no 1- or 2-byte AMO types), and add, and, or, xor, swap, compare-and-swap, fetch and set
// are the same machine operation for signed, unsigned and (fetch, set, swap) float types of
// one size, so zshmem.c passes the value's bits and an operation code (GOSHMEM_AMO_*, cabi.h):
// add, inc and fetch_inc are amoFetchAdd, the non-fetching bitwise forms their fetch forms.
// Each is the runtime's AMO: a sync/atomic operation on a node-local peer's word, the
// multi-node engine's atomic for a PE on another node.

// The operation codes are cabi.h's, in the runtime's order (a test keeps them in step).
const (
	amoFetch       = C.GOSHMEM_AMO_FETCH
	amoSet         = C.GOSHMEM_AMO_SET
	amoSwap        = C.GOSHMEM_AMO_SWAP
	amoCompareSwap = C.GOSHMEM_AMO_COMPARE_SWAP
	amoFetchAdd    = C.GOSHMEM_AMO_FETCH_ADD
	amoFetchAnd    = C.GOSHMEM_AMO_FETCH_AND
	amoFetchOr     = C.GOSHMEM_AMO_FETCH_OR
	amoFetchXor    = C.GOSHMEM_AMO_FETCH_XOR
	amoPost        = C.GOSHMEM_AMO_POST // or'ed into the others
)

// Each index is 0 exactly when the C code equals the runtime's.
var (
	_ = [1]int{}[amoFetch-int(rt.AMOFetch)]
	_ = [1]int{}[amoSet-int(rt.AMOSet)]
	_ = [1]int{}[amoSwap-int(rt.AMOSwap)]
	_ = [1]int{}[amoCompareSwap-int(rt.AMOCompareSwap)]
	_ = [1]int{}[amoFetchAdd-int(rt.AMOFetchAdd)]
	_ = [1]int{}[amoFetchAnd-int(rt.AMOFetchAnd)]
	_ = [1]int{}[amoFetchOr-int(rt.AMOFetchOr)]
	_ = [1]int{}[amoFetchXor-int(rt.AMOFetchXor)]
	_ = [1]int{}[amoFetchXor/amoPost] // the post bit is above every code
)

// amoOp is the runtime's operation for a C code, with rt.AMOPost where the routine returns
// nothing (GOSHMEM_AMO_POST).
func amoOp(who string, op int32) rt.AMOOp {
	post := op&amoPost != 0
	if op &^= amoPost; op < amoFetch || op > amoFetchXor {
		panic(fmt.Sprintf("%s: unknown atomic operation %d", who, op))
	}
	if post {
		return rt.AMOOp(op) | rt.AMOPost
	}
	return rt.AMOOp(op)
}

//export goshmem_amo32
func goshmem_amo32(r int32, ctx unsafe.Pointer, op int32, dest unsafe.Pointer, value, cond uint32, pe int32) uint32 {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return 0
	}
	return uint32(c.AMO(who, amoOp(who, op), 4, symCheck(who, "dest", dest, 4), uint64(value), uint64(cond), int(pe)))
}

//export goshmem_amo64
func goshmem_amo64(r int32, ctx unsafe.Pointer, op int32, dest unsafe.Pointer, value, cond uint64, pe int32) uint64 {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return 0
	}
	return c.AMO(who, amoOp(who, op), 8, symCheck(who, "dest", dest, 8), value, cond, int(pe))
}
