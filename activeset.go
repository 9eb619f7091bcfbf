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

// Sizes of the work arrays of the active-set collectives (in elements), and the value
// their pSync elements must hold before first use (and hold again after every call). See
// "Collectives" in the package documentation for the rules. They are the engine's values,
// written out (and checked against the engine's when the package builds) so that the
// documentation shows them.
const (
	SyncValue            = 0   // every pSync element, before a pSync's first use
	BarrierSyncSize      = 256 // pSync of Barrier
	BcastSyncSize        = 256 // pSync of Broadcast32 and Broadcast64
	CollectSyncSize      = 256 // pSync of Collect* and FCollect*
	ReduceSyncSize       = 256 // pSync of the *ToAll reductions
	AllToAllSyncSize     = 256 // pSync of AllToAll32 and AllToAll64
	AllToAllSSyncSize    = 256 // pSync of AllToAllS32 and AllToAllS64
	SyncSize             = 256 // a pSync any of them may use
	ReduceMinWrkDataSize = 1   // the least pWrk of a reduction: max(len(src)/2+1, this)
)

// The engine's values: a constant index other than 0 fails the build.
var _ = [1]int{}[SyncValue-shm.SyncValue] + [1]int{}[SyncSize-shm.SyncWords] +
	[1]int{}[BarrierSyncSize-shm.SyncWords] + [1]int{}[BcastSyncSize-shm.SyncWords] +
	[1]int{}[CollectSyncSize-shm.SyncWords] + [1]int{}[ReduceSyncSize-shm.SyncWords] +
	[1]int{}[AllToAllSyncSize-shm.SyncWords] + [1]int{}[AllToAllSSyncSize-shm.SyncWords]

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
// it with the same set and pSync: symmetric, BarrierSyncSize elements holding SyncValue,
// not in use by another collective (they hold SyncValue again when Barrier returns, so
// consecutive barriers may reuse one pSync; another collective may not use it until every
// PE has returned). Bad arguments panic naming the argument; there is no error result.
func Barrier(set ActiveSet, pSync []int64) {
	const who = "shmem.Barrier"
	rt.Check(who)
	g, i := set.group(who)
	p := checkPSync(who, pSync, BarrierSyncSize)
	rt.Barrier(who, g, i, p)
}
