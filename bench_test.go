package shmem_test

import (
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmembench"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// Two PEs bound one per core, spinning in waits: shmemrun's default for 2 PEs here.
var pinned = shmemtest.Options{Bind: true, Spin: true}

func BenchmarkBarrierAll(b *testing.B) {
	shmembench.Run(b, 2, pinned, func() func(int) {
		return func(iters int) {
			for range iters {
				shmem.BarrierAll()
			}
		}
	})
}

// Eight PEs on two cores: waits yield and sleep.
func BenchmarkBarrierAll8Oversubscribed(b *testing.B) {
	shmembench.Run(b, 8, shmemtest.Options{}, func() func(int) {
		return func(iters int) {
			for range iters {
				shmem.BarrierAll()
			}
		}
	})
}

func BenchmarkPut8Quiet(b *testing.B) {
	shmembench.Run(b, 2, pinned, func() func(int) {
		dst := mustAllocB[int64](1)
		src := []int64{42}
		return func(iters int) {
			if shmem.MyPE() != 0 {
				return
			}
			for range iters {
				shmem.Put(dst, src, 1)
				shmem.Quiet()
			}
		}
	})
}

func BenchmarkGet8(b *testing.B) {
	shmembench.Run(b, 2, pinned, func() func(int) {
		src := mustAllocB[int64](1)
		dst := make([]int64, 1)
		return func(iters int) {
			if shmem.MyPE() != 0 {
				return
			}
			for range iters {
				shmem.Get(dst, src, 1)
			}
		}
	})
}

func BenchmarkAtomicFetchAdd(b *testing.B) {
	shmembench.Run(b, 2, pinned, func() func(int) {
		ctr := mustAllocB[int64](1)
		return func(iters int) {
			if shmem.MyPE() != 0 {
				return
			}
			for range iters {
				shmem.AtomicFetchAdd(&ctr[0], 1, 1)
			}
		}
	})
}

// One round trip: PE 0 puts a flag to PE 1 and waits for PE 1's answer in its own memory.
func BenchmarkPingPong(b *testing.B) {
	shmembench.Run(b, 2, pinned, func() func(int) {
		flag := mustAllocB[int64](1)
		seq := int64(0)
		return func(iters int) {
			me := shmem.MyPE()
			for range iters {
				seq++
				if me == 0 {
					shmem.P(&flag[0], seq, 1)
					shmem.WaitUntil(&flag[0], shmem.CmpEQ, seq)
				} else {
					shmem.WaitUntil(&flag[0], shmem.CmpEQ, seq)
					shmem.P(&flag[0], seq, 0)
				}
			}
		}
	})
}

func mustAllocB[T any](n int) []T {
	s, err := shmem.Calloc[T](n)
	if err != nil {
		panic(err)
	}
	return s
}

// TestSome over 1024 ivars, none set: the cost of one scan.
func BenchmarkTestSome1024(b *testing.B) {
	shmembench.Run(b, 1, shmemtest.Options{Spin: true}, func() func(int) {
		ivars := mustAllocB[int64](1024)
		idx := make([]int, 1024)
		return func(iters int) {
			for range iters {
				shmem.TestSome(ivars, idx, nil, shmem.CmpNE, 0)
			}
		}
	})
}
