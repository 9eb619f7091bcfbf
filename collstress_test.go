package shmem_test

import (
	"testing"

	"github.com/goshmem/shmem"
)

// The seeds' Example 2: back-to-back reductions with no synchronization between them,
// alternating two pSync/pWrk pairs, 1,000 calls, every algorithm's small-message path and
// the other collectives likewise.
func TestBackToBackAlternating(t *testing.T) {
	for _, algs := range []struct{ reduce, bcast, fcollect string }{
		{"linear", "linear", "linear"}, {"tree", "tree", "linear"}, {"ring", "linear", "ring"},
	} {
		t.Run(algs.reduce, func(t *testing.T) {
			env := []string{"SHMEM_REDUCE_ALGORITHM=" + algs.reduce, "SHMEM_BCAST_ALGORITHM=" + algs.bcast,
				"SHMEM_FCOLLECT_ALGORITHM=" + algs.fcollect, "SHMEM_COLL_RADIX=2"}
			collJob(t, env, 1, []func(*testing.T, *collCase){backToBack}, 2, 3, 5, 8)
		})
	}
}

func backToBack(t *testing.T, c *collCase) {
	const calls = 1000
	me, n := c.me, c.n
	set := shmem.ActiveSet{Start: 0, Size: n}
	src := mustAlloc[int32](t, calls)
	dst := mustAlloc[int32](t, calls)
	var pWrk [2][]int32
	for i := range pWrk {
		pWrk[i] = mustAlloc[int32](t, shmem.ReduceMinWrkDataSize+1)
	}
	for i := range src {
		src[i] = int32(me*calls + i)
	}
	shmem.BarrierAll()
	// Call k reduces element k with pair k%2.
	for k := range calls {
		shmem.SumToAll(dst[k:k+1], src[k:k+1], set, pWrk[k%2], c.pSync[k%2])
	}
	for k := range calls {
		if want := int32(n*k + calls*n*(n-1)/2); dst[k] != want {
			t.Fatalf("call %d: sum %d, want %d", k, dst[k], want)
		}
	}
	// Broadcasts from a moving root, alltoalls and fcollects, each alternating its pair.
	// Every call has its own dst and src (the precondition that dst be ready holds without
	// synchronization only for memory no earlier call still uses).
	w := 2 * n
	all := mustAlloc[int64](t, calls*w)
	allSrc := mustAlloc[int64](t, calls*w)
	for k := range calls {
		for i := range w {
			allSrc[k*w+i] = int64(k*1000 + me*10 + i)
		}
	}
	shmem.BarrierAll()
	for k := range calls {
		root := k % n
		b, bs := all[k*w:(k+1)*w], allSrc[k*w:(k+1)*w]
		switch k % 3 {
		case 0:
			shmem.Broadcast64(b, bs, 2, root, set, c.pSync[k%2])
			if me != root && (b[0] != int64(k*1000+root*10) || b[1] != int64(k*1000+root*10+1)) {
				t.Fatalf("broadcast %d: %v", k, b[:2])
			}
		case 1:
			shmem.AllToAll64(b, bs, 2, set, c.pSync[k%2])
			for j := range n {
				if b[2*j] != int64(k*1000+j*10+2*me) {
					t.Fatalf("alltoall %d: block %d = %d", k, j, b[2*j])
				}
			}
		case 2:
			shmem.FCollect64(b, bs[:2], set, c.pSync[k%2])
			for j := range n {
				if b[2*j+1] != int64(k*1000+j*10+1) {
					t.Fatalf("fcollect %d: block %d = %d", k, j, b[2*j+1])
				}
			}
		}
	}
	shmem.BarrierAll()
	for i := range 2 {
		if c.pSync[i][0] != shmem.SyncValue {
			t.Fatal("pSync not restored")
		}
	}
}

// Collectives on disjoint active sets at the same time: even and odd PEs.
func TestDisjointSetsAtOnce(t *testing.T) {
	collJob(t, nil, 1, []func(*testing.T, *collCase){func(t *testing.T, c *collCase) {
		me, n := c.me, c.n
		set := shmem.ActiveSet{Start: me % 2, LogStride: 1, Size: (n - me%2 + 1) / 2}
		src := mustAlloc[float64](t, 5000)
		dst := mustAlloc[float64](t, 5000)
		pWrk := mustAlloc[float64](t, 2501)
		for round := range 50 {
			for i := range src {
				src[i] = float64(me + round + i)
			}
			shmem.MaxToAll(dst, src, set, pWrk, c.pSync[round%2])
			top := set.Start + (set.Size-1)*2
			for i, v := range dst {
				if v != float64(top+round+i) {
					t.Fatalf("round %d set %+v: max[%d] = %v, want %v", round, set, i, v, float64(top+round+i))
				}
			}
			shmem.Barrier(set, c.pSync[(round+1)%2])
		}
	}}, 2, 4, 5, 8)
}
