package shmem_test

import (
	"math/rand/v2"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// A barrier is correct when nobody leaves before everybody arrived: each PE adds to a
// counter on PE 0 before the barrier and reads it after; it must hold n × round. Every
// algorithm, forced in turn.
func TestBarrierAlgorithms(t *testing.T) {
	for _, alg := range []string{"linear", "tree", "dissem", "auto"} {
		t.Run(alg, func(t *testing.T) {
			shmemtest.ForSizes(t, func(t *testing.T, n int) {
				if !shmemtest.Run(t, n, shmemtest.Options{Env: []string{"SHMEM_BARRIER_ALGORITHM=" + alg, "SHMEM_COLL_RADIX=2"}}) {
					return
				}
				me, _ := initPE(t)
				ctr := mustAlloc[int64](t, 1)
				for round := int64(1); round <= 300; round++ {
					shmem.AtomicAdd(&ctr[0], 1, 0)
					if round%2 == 0 {
						shmem.BarrierAll()
					} else {
						// sync_all does not complete the add (across nodes it may still
						// be on its way): a quiet does.
						shmem.Quiet()
						shmem.SyncAll()
					}
					if got := shmem.AtomicFetch(&ctr[0], 0); got < int64(n)*round {
						t.Fatalf("PE %d round %d: left the barrier with %d arrivals of %d", me, round, got, int64(n)*round)
					}
					shmem.TeamWorld().Sync()
				}
			})
		})
	}
}

// Active-set barriers over random sets, with one pSync reused back to back.
func TestActiveSetBarrier(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		pSync := mustAlloc[int64](t, shmem.BarrierSyncSize)
		ctr := mustAlloc[int64](t, 1)
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		for trial := range 60 {
			logStride := rng.IntN(3)
			maxSize := (n-1)>>logStride + 1
			size := 1 + rng.IntN(maxSize)
			start := rng.IntN(n - (size-1)<<logStride)
			set := shmem.ActiveSet{Start: start, LogStride: logStride, Size: size}
			inSet := me >= start && (me-start)%(1<<logStride) == 0 && (me-start)>>logStride < size
			if inSet {
				for round := int64(1); round <= 5; round++ {
					shmem.AtomicAdd(&ctr[0], 1, start)
					shmem.Barrier(set, pSync)
					if got := shmem.AtomicFetch(&ctr[0], start); got < int64(size)*round {
						t.Fatalf("trial %d set %+v round %d: %d arrivals", trial, set, round, got)
					}
					shmem.Barrier(set, pSync)
				}
				for i, v := range pSync {
					if v != shmem.SyncValue {
						t.Fatalf("pSync[%d] = %d after the barrier", i, v)
					}
				}
			}
			shmem.BarrierAll()
			ctr[0] = 0
			shmem.BarrierAll()
		}
	})
}

// Disjoint active sets synchronize at the same time on one pSync (each PE's own copy).
func TestConcurrentActiveSets(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		pSync := mustAlloc[int64](t, shmem.BarrierSyncSize)
		ctr := mustAlloc[int64](t, 1)
		set := shmem.ActiveSet{Start: me % 2, LogStride: 1, Size: (n - me%2 + 1) / 2}
		for round := int64(1); round <= 200; round++ {
			shmem.AtomicAdd(&ctr[0], 1, set.Start)
			shmem.Barrier(set, pSync)
			if got := shmem.AtomicFetch(&ctr[0], set.Start); got < int64(set.Size)*round {
				t.Fatalf("set %+v round %d: %d arrivals", set, round, got)
			}
			shmem.Barrier(set, pSync)
		}
	}, 2, 4, 5)
}

// Both ways the 2-PE barrier's wait may start (GOSHMEM_FIRST_POLL: pause, then load; load
// at once), between wait_until and signal waits in a ping-pong whose every step checks the
// value the other PE sent.
func TestFirstPollPaths(t *testing.T) {
	for _, mode := range []string{"pause", "load"} {
		t.Run(mode, func(t *testing.T) {
			if !shmemtest.Run(t, 2, shmemtest.Options{Env: []string{"GOSHMEM_FIRST_POLL=" + mode}}) {
				return
			}
			me, _ := initPE(t)
			ctr := mustAlloc[int64](t, 1)
			ivar := mustAlloc[int64](t, 1)
			data, sig := mustAlloc[int64](t, 1), mustAlloc[uint64](t, 1)
			other := 1 - me
			for round := int64(1); round <= 2000; round++ {
				shmem.AtomicAdd(&ctr[0], 1, 0)
				shmem.BarrierAll()
				if got := shmem.AtomicFetch(&ctr[0], 0); got < 2*round {
					t.Fatalf("round %d: left the barrier with %d arrivals of %d", round, got, 2*round)
				}
				if me == int(round%2) { // the two PEs take turns to start
					shmem.P(&ivar[0], round, other)
					shmem.WaitUntil(&ivar[0], shmem.CmpEQ, -round)
					shmem.PutSignal(data, []int64{round * 3}, &sig[0], uint64(round), shmem.SignalSet, other)
				} else {
					shmem.WaitUntil(&ivar[0], shmem.CmpEQ, round)
					shmem.P(&ivar[0], -round, other)
					if got := shmem.SignalWaitUntil(&sig[0], shmem.CmpEQ, uint64(round)); got != uint64(round) || data[0] != round*3 {
						t.Fatalf("round %d: signal %d, data %d", round, got, data[0])
					}
				}
			}
			shmem.BarrierAll()
		})
	}
}
