package shmem_test

import (
	"math"
	"syscall"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// N PEs × 100,000 fetch-adds on one counter: the exact total, and every returned old value
// distinct (the sum of the olds is that of 0..total-1).
func TestFetchAddTotal(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		each := shmemtest.Iters(100_000)
		ctr := mustAlloc[int64](t, 1)
		olds := mustAlloc[int64](t, 1)
		var sum int64
		for range each {
			sum += shmem.AtomicFetchAdd(&ctr[0], 1, 0)
		}
		shmem.AtomicAdd(&olds[0], sum, 0)
		shmem.BarrierAll()
		total := int64(n * each)
		if me == 0 {
			if ctr[0] != total {
				t.Fatalf("counter %d, want %d", ctr[0], total)
			}
			if olds[0] != total*(total-1)/2 {
				t.Fatalf("sum of fetched values %d, want %d: some were returned twice", olds[0], total*(total-1)/2)
			}
		}
	}, 2, 3, 8)
}

// A CompareSwap spin lock on PE 0 guarding a non-atomic read-modify-write of a counter on
// the last PE: the count is exact only under mutual exclusion.
func TestCompareSwapLock(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const each = 300
		lock := mustAlloc[int32](t, 1)
		ctr := mustAlloc[int64](t, 1)
		holder := n - 1
		for range each {
			for shmem.AtomicCompareSwap(&lock[0], 0, int32(me+1), 0) != 0 {
				syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) // the holder may need this CPU
			}
			v := shmem.G(&ctr[0], holder)
			shmem.P(&ctr[0], v+1, holder)
			shmem.Quiet()
			if old := shmem.AtomicSwap(&lock[0], 0, 0); old != int32(me+1) {
				t.Fatalf("lock held by %d while PE %d released it", old-1, me)
			}
		}
		shmem.BarrierAll()
		if me == holder && ctr[0] != int64(n*each) {
			t.Fatalf("counter %d, want %d: mutual exclusion failed", ctr[0], n*each)
		}
	}, 2, 4, 8)
}

// Each AMO against a serial model, for every type of its set, on a peer's word.
func TestAMOSemantics(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		peer := (me + 1) % n
		amoInts[int32](t, peer)
		amoInts[int64](t, peer)
		amoInts[uint32](t, peer)
		amoInts[uint64](t, peer)
		amoInts[int](t, peer)
		amoInts[uint](t, peer)
		amoInts[uintptr](t, peer)
		amoExt[float32](t, peer, 1.5, -2.25)
		amoExt[float64](t, peer, math.Pi, math.Inf(-1))
		amoExt[int32](t, peer, -7, 1<<30)
		bitwiseAll(t, peer)
		shmem.BarrierAll()
	}, 1, 2)
}

func amoInts[T shmem.AMO](t *testing.T, peer int) {
	t.Helper()
	x := mustAlloc[T](t, 1)
	p := &x[0]
	// Every PE works on its successor's word, which no other PE touches.
	shmem.BarrierAll()
	shmem.AtomicSet(p, 5, peer)
	if v := shmem.AtomicFetchAdd(p, 3, peer); v != 5 {
		t.Fatalf("%T FetchAdd old %v", v, v)
	}
	shmem.AtomicAdd(p, 2, peer)
	if v := shmem.AtomicFetchInc(p, peer); v != 10 {
		t.Fatalf("%T FetchInc old %v", v, v)
	}
	shmem.AtomicInc(p, peer)
	if v := shmem.AtomicFetch(p, peer); v != 12 {
		t.Fatalf("%T Fetch %v, want 12", v, v)
	}
	if v := shmem.AtomicCompareSwap(p, 11, 99, peer); v != 12 {
		t.Fatalf("%T CompareSwap (fail) old %v", v, v)
	}
	if v := shmem.AtomicCompareSwap(p, 12, 99, peer); v != 12 || shmem.AtomicFetch(p, peer) != 99 {
		t.Fatalf("%T CompareSwap (success) old %v", v, v)
	}
	if v := shmem.AtomicSwap(p, 1, peer); v != 99 {
		t.Fatalf("%T Swap old %v", v, v)
	}
	// Wrap-around as Go's arithmetic gives it.
	var big T = ^T(0) // all ones: -1 for signed types, the maximum for unsigned ones
	shmem.AtomicSet(p, big, peer)
	if shmem.AtomicFetchAdd(p, 2, peer); shmem.AtomicFetch(p, peer) != big+2 {
		t.Fatalf("%T wrap: got %v, want %v", big, shmem.AtomicFetch(p, peer), big+2)
	}
	shmem.BarrierAll()
}

func amoExt[T shmem.ExtAMO](t *testing.T, peer int, a, b T) {
	t.Helper()
	x := mustAlloc[T](t, 1)
	shmem.BarrierAll()
	shmem.AtomicSet(&x[0], a, peer)
	if v := shmem.AtomicSwap(&x[0], b, peer); v != a {
		t.Fatalf("%T Swap old %v, want %v", v, v, a)
	}
	if v := shmem.AtomicFetch(&x[0], peer); v != b {
		t.Fatalf("%T Fetch %v, want %v", v, v, b)
	}
	shmem.BarrierAll()
}

// Bitwise AMOs over every integer type, including 8- and 16-bit fields, whose neighbours in
// the same 32-bit word must stay untouched.
func bitwiseAll(t *testing.T, peer int) {
	bitwise[int8](t, peer)
	bitwise[uint8](t, peer)
	bitwise[int16](t, peer)
	bitwise[uint16](t, peer)
	bitwise[int32](t, peer)
	bitwise[uint32](t, peer)
	bitwise[int64](t, peer)
	bitwise[uint64](t, peer)
	bitwise[int](t, peer)
	bitwise[uint](t, peer)
	bitwise[uintptr](t, peer)
}

func bitwise[T shmem.Bitwise](t *testing.T, peer int) {
	t.Helper()
	x := mustAlloc[T](t, 8)
	shmem.BarrierAll()
	guard := T(0x5a)
	for i := range x {
		shmem.P(&x[i], guard, peer)
	}
	shmem.Quiet()
	for i := 1; i < 7; i++ {
		p := &x[i]
		shmem.P(p, 0x0f, peer)
		shmem.Quiet()
		if v := shmem.AtomicFetchOr(p, 0x30, peer); v != 0x0f {
			t.Fatalf("%T FetchOr old %v", v, v)
		}
		if v := shmem.AtomicFetchAnd(p, 0x3c, peer); v != 0x3f {
			t.Fatalf("%T FetchAnd old %v", v, v)
		}
		if v := shmem.AtomicFetchXor(p, 0x66, peer); v != 0x3c {
			t.Fatalf("%T FetchXor old %v", v, v)
		}
		shmem.AtomicOr(p, 0x01, peer)
		shmem.AtomicAnd(p, 0x7b, peer)
		shmem.AtomicXor(p, 0x10, peer)
		if v, want := shmem.G(p, peer), T(((0x3c^0x66)|0x01)&0x7b^0x10); v != want {
			t.Fatalf("%T after Or/And/Xor: %v, want %v", v, v, want)
		}
		if shmem.G(&x[i-1], peer) != guard || shmem.G(&x[i+1], peer) != guard {
			t.Fatalf("%T: a bitwise AMO on element %d changed a neighbour", guard, i)
		}
		shmem.P(p, guard, peer)
		shmem.Quiet()
	}
	shmem.BarrierAll()
}

// AMOs from many goroutines of every PE on one word stay atomic.
func TestAMOGoroutines(t *testing.T) {
	if !shmemtest.Run(t, 3) {
		return
	}
	initPE(t)
	ctr := mustAlloc[uint64](t, 1)
	done := make(chan struct{})
	g, each := 4, shmemtest.Iters(20_000)
	for range g {
		go func() {
			for range each {
				shmem.AtomicInc(&ctr[0], 0)
			}
			done <- struct{}{}
		}()
	}
	for range g {
		<-done
	}
	shmem.BarrierAll()
	if shmem.MyPE() == 0 && ctr[0] != uint64(3*g*each) {
		t.Fatalf("counter %d, want %d", ctr[0], 3*g*each)
	}
}
