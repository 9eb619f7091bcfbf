package shmem_test

import (
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// The bad-input sweep over the collectives, teams and allocation: each call panics with
// the routine and the argument before any PE's memory changes.
func TestBadInputCollectives(t *testing.T) {
	if !shmemtest.Run(t, 2) {
		return
	}
	me, _ := initPE(t)
	set := shmem.ActiveSet{Start: 0, Size: 2}
	a := mustAlloc[int64](t, 64)
	b := mustAlloc[int64](t, 64)
	pSync := mustAlloc[int64](t, shmem.SyncSize)
	pWrk := mustAlloc[int64](t, 64)
	local := make([]int64, 64)
	guard := append([]int64(nil), a...)

	wantPanic(t, "shmem.SumToAll: pWrk has 3 elements, needs max(nreduce/2+1, ReduceMinWrkDataSize) = 11", func() { shmem.SumToAll(b[:20], a[:20], set, pWrk[:3], pSync) })
	wantPanic(t, "shmem.SumToAll: pSync has 10 elements, needs 256", func() { shmem.SumToAll(b[:4], a[:4], set, pWrk, pSync[:10]) })
	wantPanic(t, "shmem.ProdToAll: dst has 3 elements, src 4", func() { shmem.ProdToAll(b[:3], a[:4], set, pWrk, pSync) })
	wantPanic(t, "shmem.MinToAll: dst [", func() { shmem.MinToAll(a[1:5], a[:4], set, pWrk, pSync) })
	wantPanic(t, "overlap without being the same array", func() { shmem.MaxToAll(a[1:5], a[:4], set, pWrk, pSync) })
	wantPanic(t, "shmem.OrToAll: src is not symmetric memory", func() { shmem.OrToAll(b[:4], local[:4], set, pWrk, pSync) })
	wantPanic(t, "shmem.XorToAll: pWrk is not symmetric memory", func() { shmem.XorToAll(b[:4], a[:4], set, local, pSync) })
	wantPanic(t, "shmem.AndToAll: active set log stride -1 out of range", func() { shmem.AndToAll(b[:4], a[:4], shmem.ActiveSet{Start: 0, LogStride: -1, Size: 2}, pWrk, pSync) })
	wantPanic(t, "shmem.AllToAll64: negative element count -2", func() { shmem.AllToAll64(b, a, -2, set, pSync) })
	wantPanic(t, "shmem.AllToAll64: dst has 64 elements, 2 PEs × 40 at stride 1 need 80", func() { shmem.AllToAll64(b, a, 40, set, pSync) })
	wantPanic(t, "shmem.AllToAllS64: dst stride 0 must be at least 1", func() { shmem.AllToAllS64(b, a, 0, 1, 4, set, pSync) })
	wantPanic(t, "shmem.AllToAllS32: src stride -1 must be at least 1", func() {
		u := unsafe.Slice((*uint32)(unsafe.Pointer(&a[0])), 128)
		v := unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), 128)
		shmem.AllToAllS32(v, u, 1, -1, 4, set, pSync)
	})
	wantPanic(t, "shmem.AllToAll64: dst and src overlap", func() { shmem.AllToAll64(a[4:], a, 4, set, pSync) })
	wantPanic(t, "shmem.Broadcast64: root 2 out of range [0,2)", func() { shmem.Broadcast64(b, a, 4, 2, set, pSync) })
	wantPanic(t, "shmem.Broadcast64: negative element count -1", func() { shmem.Broadcast64(b, a, -1, 0, set, pSync) })
	wantPanic(t, "shmem.Broadcast64: src has 4 elements, 8 broadcast", func() { shmem.Broadcast64(b, a[:4], 8, 0, set, pSync) })
	wantPanic(t, "shmem.FCollect64: dst has 10 elements, 2 PEs × 8 need 16", func() { shmem.FCollect64(b[:10], a[:8], set, pSync) })
	wantPanic(t, "shmem.Collect64: dst and src overlap", func() { shmem.Collect64(a, a[:8], set, pSync) })
	wantPanic(t, "shmem.SumReduce: invalid team", func() { shmem.SumReduce(shmem.TeamInvalid, b[:4], a[:4]) })
	wantPanic(t, "shmem.AllToAllS: invalid team", func() { shmem.AllToAll(shmem.TeamInvalid, b, a, 4) })
	wantPanic(t, "shmem.Broadcast: root -1 out of range [0,2)", func() { shmem.Broadcast(shmem.TeamWorld(), b[:4], a[:4], -1) })
	wantPanic(t, "shmem.FCollect: *int holds a Go pointer", func() {
		shmem.FCollect(shmem.TeamWorld(), make([]*int, 2), make([]*int, 1))
	})
	team, err := shmem.TeamWorld().SplitStrided(0, 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	team.Destroy()
	wantPanic(t, "shmem.MaxReduce: team was destroyed", func() { shmem.MaxReduce(team, b[:4], a[:4]) })
	wantPanic(t, "shmem.Align: alignment 48 is not a power of two", func() { shmem.Align[byte](48, 8) })
	wantPanic(t, "shmem.Realloc: ", func() { shmem.Realloc(a[1:], 100) })
	wantPanic(t, "shmem.Ptr: p is not symmetric memory", func() { shmem.Ptr(&local[0], 0) })
	wantPanic(t, "shmem.P: nil pointer", func() { shmem.P[int64](nil, 1, 0) })
	wantPanic(t, "shmem.G: PE 7 out of range", func() { shmem.G(&a[0], 7) })
	wantPanic(t, "shmem.AtomicCompareSwap: target", func() {
		shmem.AtomicCompareSwap((*int32)(unsafe.Add(unsafe.Pointer(&a[0]), 2)), 0, 1, 0)
	})
	wantPanic(t, "shmem.SignalFetch: sig is not symmetric memory", func() { shmem.SignalFetch(new(uint64)) })
	wantPanic(t, "shmem.PutSignal: dst is not symmetric memory", func() {
		shmem.PutSignal(make([]int64, 4), local[:4], (*uint64)(unsafe.Pointer(&b[0])), 1, shmem.SignalSet, 1-me)
	})
	// The signal word is named sig, not dst.
	wantPanic(t, "shmem.PutSignal: sig is not symmetric memory", func() {
		shmem.PutSignal(b[:4], local[:4], new(uint64), 1, shmem.SignalSet, 1-me)
	})
	wantPanic(t, "shmem.PutSignalNBI: sig 0x", func() {
		shmem.PutSignalNBI(b[:4], local[:4], (*uint64)(unsafe.Add(unsafe.Pointer(&b[0]), 4)), 1, shmem.SignalAdd, 1-me)
	})
	shmem.BarrierAll()
	for i := range a {
		if a[i] != guard[i] {
			t.Fatalf("a[%d] changed by a call that panicked", i)
		}
	}
}
