package shmem_test

import (
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// The hot paths allocate nothing per call: RMA, AMOs, waits, barriers, and small and large
// collectives (the C ABI's entry points are these same calls).
func TestNoAllocationsPerCall(t *testing.T) {
	if !shmemtest.Run(t, 2) {
		return
	}
	me, n := initPE(t)
	buf := mustAlloc[int64](t, 4096)
	dst := mustAlloc[int64](t, 4096)
	pWrk := mustAlloc[int64](t, 4096)
	pSync := [2][]int64{mustAlloc[int64](t, shmem.SyncSize), mustAlloc[int64](t, shmem.SyncSize)}
	flags := mustAlloc[int32](t, 8)
	idx := make([]int, 8)
	local := make([]int64, 8)
	set := shmem.ActiveSet{Start: 0, Size: n}
	k := 0
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Put", func() { shmem.Put(buf[:8], local, 1-me) }},
		{"Get", func() { shmem.Get(local, buf[:8], 1-me) }},
		{"P", func() { shmem.P(&buf[0], 1, 1-me) }},
		{"AtomicFetchAdd", func() { shmem.AtomicFetchAdd(&buf[1], 1, 1-me) }},
		{"AtomicCompareSwap", func() { shmem.AtomicCompareSwap(&buf[2], 0, 0, 1-me) }},
		{"Quiet", shmem.Quiet},
		{"TestSome", func() { shmem.TestSome(flags, idx, nil, shmem.CmpNE, 0) }},
		{"WaitUntil", func() { shmem.WaitUntil(&flags[0], shmem.CmpEQ, 0) }},
		{"BarrierAll", shmem.BarrierAll},
		{"SumToAll-1", func() { k++; shmem.SumToAll(dst[:1], buf[:1], set, pWrk, pSync[k%2]) }},
		{"SumToAll-4096", func() { k++; shmem.SumToAll(dst, buf, set, pWrk, pSync[k%2]) }},
		{"SumReduce-16", func() { shmem.SumReduce(shmem.TeamWorld(), dst[:16], buf[:16]) }},
		{"AllToAll64", func() { k++; shmem.AllToAll64(dst, buf, 8, set, pSync[k%2]) }},
		{"Broadcast64", func() { k++; shmem.Broadcast64(dst, buf, 8, 0, set, pSync[k%2]) }},
		{"FCollect64", func() { k++; shmem.FCollect64(dst, buf[:8], set, pSync[k%2]) }},
	} {
		// Both PEs run the same calls the same number of times (collectives included).
		if a := testing.AllocsPerRun(50, c.f); a != 0 {
			t.Errorf("%s: %.1f allocations per call", c.name, a)
		}
		shmem.BarrierAll()
	}
}
