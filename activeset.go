package shmem

import (
	"fmt"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/shm"
)

// ActiveSet is the specification's (PE_start, logPE_stride, PE_size) triplet: PEs Start,
// Start + 2^LogStride, ..., Size of them.
type ActiveSet struct{ Start, LogStride, Size int }

// Sizes of the work arrays of the active-set collectives, and the value their pSync
// elements must hold before first use (and hold again after every call).
//
// The rules for pSync and pWrk, as the specification states them:
//   - Length: pSync has at least the routine's *SyncSize elements (SyncSize covers all);
//     a reduction's pWrk has at least max(nreduce/2+1, ReduceMinWrkDataSize) elements of
//     the reduced type.
//   - Symmetric: both come from Malloc/Calloc (the same call on every PE), never from Go
//     memory; every PE of the active set passes the same arrays.
//   - Initialized: every pSync element holds SyncValue before the first call that uses it,
//     on every PE, and no PE uses it until all have initialized it (a BarrierAll after
//     the initialization); Calloc's zeroed memory holds SyncValue.
//   - Reuse: a pSync may serve the next collective only after every PE of the active set
//     has left the previous call that used it: put a barrier (or any synchronization of
//     the set) between the two calls, or alternate two pSync arrays between back-to-back
//     calls. A barrier is such a synchronization itself, so the call after a Barrier may
//     reuse its pSync. Two collectives running at once need distinct pSync arrays.
//
// With SHMEM_DEBUG=1 the library checks these rules it can see: a pSync element not holding
// SyncValue on entry, a pSync reused with no synchronization since the previous call, and
// arguments (counts, roots, arrays, active sets) that differ between the PEs.
const (
	SyncValue            = shm.SyncValue
	BarrierSyncSize      = shm.SyncWords
	BcastSyncSize        = shm.SyncWords
	CollectSyncSize      = shm.SyncWords
	ReduceSyncSize       = shm.SyncWords
	AllToAllSyncSize     = shm.SyncWords
	AllToAllSSyncSize    = shm.SyncWords
	SyncSize             = shm.SyncWords
	ReduceMinWrkDataSize = 1
)

// group checks set against the job and the calling PE.
func (s ActiveSet) group(who string) (rt.Group, int) {
	return rt.ActiveSet(who, s.Start, s.LogStride, s.Size)
}

// checkPSync panics unless pSync is symmetric and long enough.
func checkPSync(who string, pSync []int64, need int) unsafe.Pointer {
	if len(pSync) < need {
		panic(fmt.Sprintf("%s: pSync has %d elements, needs %d", who, len(pSync), need))
	}
	p := sliceAddr(pSync)
	rt.CheckSym(who, "pSync", p, uintptr(need)*8)
	return p
}

// Barrier completes this PE's puts and waits until every PE of the active set has called
// it with the same set and pSync (BarrierSyncSize words holding SyncValue; they hold it
// again when Barrier returns, so consecutive barriers may reuse one pSync).
func Barrier(set ActiveSet, pSync []int64) {
	const who = "shmem.Barrier"
	rt.Check(who)
	g, i := set.group(who)
	p := checkPSync(who, pSync, BarrierSyncSize)
	rt.Barrier(who, g, i, p)
}
