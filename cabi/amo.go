//go:build linux && cgo

package main

// #include "cabi.h"
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Atomic memory operations by size: every C AMO type is 4 or 8 bytes (the spec's tables have
// no 1- or 2-byte AMO types), and add, and, or, xor, swap, compare-and-swap, fetch and set
// are the same machine operation for signed, unsigned and (fetch, set, swap) float types of
// one size, so zshmem.c passes the value's bits and an operation code (GOSHMEM_AMO_*, cabi.h):
// add, inc and fetch_inc are amoFetchAdd, the non-fetching bitwise forms their fetch forms.
// Each is one sync/atomic operation on the peer's word, atomic against every other AMO.

// The operation codes, cabi.h's.
const (
	amoFetch       = C.GOSHMEM_AMO_FETCH
	amoSet         = C.GOSHMEM_AMO_SET
	amoSwap        = C.GOSHMEM_AMO_SWAP
	amoCompareSwap = C.GOSHMEM_AMO_COMPARE_SWAP
	amoFetchAdd    = C.GOSHMEM_AMO_FETCH_ADD
	amoFetchAnd    = C.GOSHMEM_AMO_FETCH_AND
	amoFetchOr     = C.GOSHMEM_AMO_FETCH_OR
	amoFetchXor    = C.GOSHMEM_AMO_FETCH_XOR
)

//export goshmem_amo32
func goshmem_amo32(r int32, ctx unsafe.Pointer, op int32, dest unsafe.Pointer, value, cond uint32, pe int32) uint32 {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return 0
	}
	w := c.PE(who, int(pe))
	p := (*uint32)(rt.AMOTarget(who, symCheck(who, "dest", dest, 4), 4, w))
	var old uint32
	switch op {
	case amoFetch:
		return atomic.LoadUint32(p)
	case amoSet:
		atomic.StoreUint32(p, value)
	case amoSwap:
		old = atomic.SwapUint32(p, value)
	case amoCompareSwap:
		for {
			old = atomic.LoadUint32(p)
			if old != cond {
				return old // nothing changed: nobody to wake
			}
			if atomic.CompareAndSwapUint32(p, old, value) {
				break
			}
		}
	case amoFetchAdd:
		old = atomic.AddUint32(p, value) - value
	case amoFetchAnd:
		old = atomic.AndUint32(p, value)
	case amoFetchOr:
		old = atomic.OrUint32(p, value)
	case amoFetchXor:
		for old = atomic.LoadUint32(p); !atomic.CompareAndSwapUint32(p, old, old^value); old = atomic.LoadUint32(p) {
		}
	default:
		badAMO(who, op)
	}
	rt.NotifyAtomic(w)
	return old
}

//export goshmem_amo64
func goshmem_amo64(r int32, ctx unsafe.Pointer, op int32, dest unsafe.Pointer, value, cond uint64, pe int32) uint64 {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return 0
	}
	w := c.PE(who, int(pe))
	p := (*uint64)(rt.AMOTarget(who, symCheck(who, "dest", dest, 8), 8, w))
	var old uint64
	switch op {
	case amoFetch:
		return atomic.LoadUint64(p)
	case amoSet:
		atomic.StoreUint64(p, value)
	case amoSwap:
		old = atomic.SwapUint64(p, value)
	case amoCompareSwap:
		for {
			old = atomic.LoadUint64(p)
			if old != cond {
				return old
			}
			if atomic.CompareAndSwapUint64(p, old, value) {
				break
			}
		}
	case amoFetchAdd:
		old = atomic.AddUint64(p, value) - value
	case amoFetchAnd:
		old = atomic.AndUint64(p, value)
	case amoFetchOr:
		old = atomic.OrUint64(p, value)
	case amoFetchXor:
		for old = atomic.LoadUint64(p); !atomic.CompareAndSwapUint64(p, old, old^value); old = atomic.LoadUint64(p) {
		}
	default:
		badAMO(who, op)
	}
	rt.NotifyAtomic(w)
	return old
}

func badAMO(who string, op int32) {
	panic(fmt.Sprintf("%s: unknown atomic operation %d", who, op))
}
