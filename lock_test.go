package shmem_test

import (
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/goshmem/shmem"
)

// Every PE increments a counter on the last PE under the lock, by a non-atomic get and put:
// the count is exact only under mutual exclusion. More PEs than CPUs: waiters must yield and
// sleep for the holder to run. Two locks at once (homes on different PEs), TestLock mixed in.
func TestLockCounts(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const each = 600
		locks := mustAlloc[int64](t, 2)
		ctr := mustAlloc[int64](t, 2)
		order := mustAlloc[int64](t, 1)
		holder := n - 1
		for i := range each {
			l := i % 2
			if i%5 == 0 {
				for !shmem.TestLock(&locks[l]) {
				}
			} else {
				shmem.SetLock(&locks[l])
			}
			v := shmem.G(&ctr[l], holder)
			if i%3 == 0 { // widen the window: another PE on this CPU runs now
				syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
			}
			shmem.P(&ctr[l], v+1, holder)
			shmem.AtomicInc(&order[0], 0)
			shmem.ClearLock(&locks[l])
		}
		shmem.BarrierAll()
		if me == holder && (ctr[0] != int64(n*each/2) || ctr[1] != int64(n*each/2)) {
			t.Fatalf("counters %d %d, want %d each: mutual exclusion failed", ctr[0], ctr[1], n*each/2)
		}
		if locks[0] != 0 || locks[1] != 0 {
			t.Fatalf("locks left %#x %#x, want 0 (free)", locks[0], locks[1])
		}
		shmem.BarrierAll()
	}, 1, 2, 4, 8, 16)
}

// The lock is fair: while PE 0 holds it, PEs 1, 2, ... queue one after the other (each
// passes a token on once the queue's tail, the low half of the lock word on its home PE,
// names it); they then get the lock in that order.
func TestLockFIFO(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		lock := mustAlloc[int64](t, 1)
		turn := mustAlloc[int64](t, 1)
		log := mustAlloc[int64](t, n)
		pos := mustAlloc[int64](t, 1)
		if me == 0 {
			shmem.SetLock(&lock[0])
		}
		shmem.BarrierAll()
		acquired := make(chan struct{})
		if me > 0 {
			shmem.WaitUntil(&turn[0], shmem.CmpEQ, int64(me))
			go func() { shmem.SetLock(&lock[0]); close(acquired) }()
			for !queued(&lock[0], me, n) {
				runtime.Gosched()
			}
		} else {
			close(acquired)
		}
		if me+1 < n {
			shmem.P(&turn[0], int64(me+1), me+1)
		}
		if me == 0 && n > 1 {
			for !queued(&lock[0], n-1, n) { // everybody is in the queue
				runtime.Gosched()
			}
		}
		<-acquired
		at := shmem.AtomicFetchInc(&pos[0], 0)
		shmem.P(&log[at], int64(me), 0)
		shmem.ClearLock(&lock[0])
		shmem.BarrierAll()
		if me == 0 {
			for i, v := range log {
				if v != int64(i) {
					t.Fatalf("PEs got the lock in the order %v, want 0, 1, 2, ...", log)
				}
			}
		}
		shmem.BarrierAll()
	}, 2, 5, 8)
}

// queued reports whether PE pe is the lock's queue tail (the low half of the word on the
// lock's home PE, which is the only PE whose low half is non-zero).
func queued(lock *int64, pe, n int) bool {
	for p := range n {
		if uint32(shmem.G(lock, p)) == uint32(pe+1) {
			return true
		}
	}
	return false
}

// A lock excludes the PE's other goroutines too (a C program's threads): four goroutines of
// every PE increment one counter under one lock, by a non-atomic get and put, and TestLock
// fails while another goroutine of the same PE holds the lock. With one queue node per PE
// and no exclusion between its goroutines, they overwrote each other's request and hung,
// or released the lock twice (SOS's mt_locking).
func TestLockGoroutines(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const goroutines, each = 4, 150
		lock := mustAlloc[int64](t, 1)
		ctr := mustAlloc[int64](t, 1)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for i := range each {
					if (g+i)%4 == 0 {
						for !shmem.TestLock(&lock[0]) {
						}
					} else {
						shmem.SetLock(&lock[0])
					}
					v := shmem.G(&ctr[0], 0)
					runtime.Gosched() // let the PE's other goroutines try the lock now
					shmem.P(&ctr[0], v+1, 0)
					shmem.ClearLock(&lock[0])
				}
			})
		}
		wg.Wait()
		shmem.SetLock(&lock[0])
		held := make(chan bool)
		go func() { held <- shmem.TestLock(&lock[0]) }()
		if <-held {
			t.Error("TestLock took a lock another goroutine of this PE holds")
		}
		shmem.ClearLock(&lock[0])
		shmem.BarrierAll()
		if me == 0 && ctr[0] != int64(n*goroutines*each) {
			t.Fatalf("counter %d, want %d: mutual exclusion between goroutines failed", ctr[0], n*goroutines*each)
		}
		shmem.BarrierAll()
	}, 1, 2, 4)
}

// Bad locks are errors naming the routine.
func TestLockErrors(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		var stack int64
		wantPanic(t, "shmem.SetLock: lock", func() { shmem.SetLock(&stack) })
		wantPanic(t, "shmem.SetLock: lock is a null pointer", func() { shmem.SetLock(nil) })
		l := mustAlloc[int64](t, 1)
		wantPanic(t, "shmem.ClearLock: the lock is not held", func() { shmem.ClearLock(&l[0]) })
		shmem.BarrierAll()
	}, 1)
}
