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
