//go:build linux && cgo

package main

// #include <stdlib.h>
// #include "cabi.h"
import "C"

import (
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// The C fast path (fastpath.h) does the one-sided routines' common case in C, without a
// cgo transition, from the job's geometry published here: at shmem_init, after the engine's
// Init and the static data's move, and zeroed at shmem_finalize before the engine leaves
// the job (a zero view sends every call to Go, which reports the error).

// publishFastPath copies rt.CABI's view of the job and the static data's place into
// goshmem_fp.
func publishFastPath() {
	v, ok := rt.CABI()
	if !ok {
		clearFastPath()
		return
	}
	C.goshmem_fp = C.struct_goshmem_fastpath{
		heap_lo:         C.uintptr_t(v.HeapLo),
		heap_size:       C.uintptr_t(v.HeapSize),
		static_lo:       C.uintptr_t(static.lo),
		static_size:     C.uintptr_t(static.size),
		static_twin:     C.uintptr_t(uintptr(static.twin)),
		seg_size:        C.intptr_t(v.SegSize),
		sleepers:        C.uintptr_t(uintptr(v.Sleepers)),
		me:              C.int(v.Me),
		npes:            C.int(v.NPEs),
		direct:          C.int(b2i(v.Direct)),
		local:           localMask(v),
		ring:            C.int(b2i(v.MayWake)),
		spin:            C.int(b2i(!v.SleepWait)),
		pair_sync:       (*C.uint64_t)(v.PairSync),
		pair_line:       (*C.uint64_t)(v.PairLine),
		pair_other:      C.int(v.PairOther),
		pair_poll_first: C.int(b2i(v.PairPollFirst)),
	}
}

// goshmem_pair_wait is the fast path's barrier wait past its first polls (fastpath.h's
// goshmem_fast_pair_sync): Go's, with its job checks, hang reports and sleeping.
//
//export goshmem_pair_wait
func goshmem_pair_wait(r int32, flag unsafe.Pointer, e uint64) {
	defer catch(r)
	rt.AwaitPair(flag, e)
}

func clearFastPath() { C.goshmem_fp = C.struct_goshmem_fastpath{} }

// localMask is a byte per PE in C memory, 1 for the PEs of my node, in a multi-node job (the
// fast path serves them); nil otherwise. Allocated once: the job's geometry does not change.
func localMask(v rt.CABIView) *C.uchar {
	if !v.MultiNode {
		return nil
	}
	if cLocal == nil {
		cLocal = (*C.uchar)(C.calloc(C.size_t(v.NPEs), 1))
		mask := unsafe.Slice(cLocal, v.NPEs)
		for pe := range mask {
			if rt.Local(pe) {
				mask[pe] = 1
			}
		}
	}
	return cLocal
}

var cLocal *C.uchar

// goshmem_ring rings PE pe's doorbell for the fast path, which found a sleeper there after
// its write (rt.NotifyAtomic loads the count again).
//
//export goshmem_ring
func goshmem_ring(r, pe int32) {
	defer catch(r)
	rt.NotifyAtomic(int(pe))
}
