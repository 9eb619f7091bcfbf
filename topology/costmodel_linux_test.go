package topology

import (
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// The benchmarks behind DefaultCostModel. Each pins two goroutines' OS threads to
// two allowed CPUs (the first two) and measures what the model charges:
//
//	go test ./topology -run '^$' -bench 'LineHandoff|PeerRead|LocalCopy|Combine' -count 5
//
// BenchmarkLineHandoff: one-way latency of a cache line written on one CPU and
// seen by a poller on the other (half a ping-pong round trip).
// BenchmarkPeerRead (MB/s metric; ns/op includes the writer's turn): copying a buffer that the other CPU just wrote (its lines
// are modified in that CPU's cache, or evicted to L3/memory past its size).
// BenchmarkLocalCopy: the same copy from the reader's own cache, for the ratio.
// BenchmarkCombine: dst[i] += src[i] over float64 in the reader's cache (pure Go;
// the AVX kernels are faster, so the model is conservative for reductions).

// pinnedPair returns two allowed CPUs, or skips.
func pinnedPair(b *testing.B) (int, int) {
	aff, err := Affinity()
	if err != nil {
		b.Skip(err)
	}
	cpus := aff.CPUs()
	if len(cpus) < 2 {
		b.Skipf("needs two allowed CPUs, have %s", aff)
	}
	return cpus[0], cpus[1]
}

// onCPU runs f in a new goroutine locked to its OS thread, pinned to cpu, and
// returns a channel closed when f returns. The goroutine never unlocks, so its
// one-CPU thread dies with it instead of going back to the scheduler.
func onCPU(b *testing.B, cpu int, f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if err := SetAffinity(NewCPUSet(cpu)); err != nil {
			b.Error(err)
			return
		}
		f()
	}()
	return done
}

type paddedWord struct {
	_ [64]byte
	v atomic.Int64
	_ [64]byte
}

func BenchmarkLineHandoff(b *testing.B) {
	a, c := pinnedPair(b)
	var w paddedWord
	echo := onCPU(b, c, func() {
		for i := int64(0); ; i += 2 {
			for v := w.v.Load(); v != i+1; v = w.v.Load() {
				if v < 0 {
					return
				}
			}
			w.v.Store(i + 2)
		}
	})
	// Batches of round trips, so the report can separate the machine's cost from
	// the time other processes take the CPUs away (the fastest batches).
	const batch = 64
	var batches []time.Duration
	<-onCPU(b, a, func() {
		b.ResetTimer()
		t0 := time.Now()
		for i := int64(0); i < int64(b.N); i++ {
			w.v.Store(2*i + 1)
			for w.v.Load() != 2*i+2 {
			}
			if i%batch == batch-1 {
				now := time.Now()
				batches = append(batches, now.Sub(t0))
				t0 = now
			}
		}
		b.StopTimer()
	})
	w.v.Store(-1)
	<-echo
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/handoff")
	if len(batches) > 0 {
		slices.Sort(batches)
		b.ReportMetric(float64(batches[len(batches)/10].Nanoseconds())/(2*batch), "p10-ns/handoff")
		b.ReportMetric(float64(batches[len(batches)/2].Nanoseconds())/(2*batch), "p50-ns/handoff")
	}
}

var peerSizes = []int{32 << 10, 256 << 10, 768 << 10, 8 << 20}

func BenchmarkPeerRead(b *testing.B) {
	for _, size := range peerSizes {
		b.Run(sizeName(size), func(b *testing.B) { peerRead(b, size, true) })
	}
}

func BenchmarkLocalCopy(b *testing.B) {
	for _, size := range peerSizes {
		b.Run(sizeName(size), func(b *testing.B) { peerRead(b, size, false) })
	}
}

// peerRead times copy(dst, src) on CPU a after src was written on CPU c (peer) or
// on a itself.
func peerRead(b *testing.B, size int, peer bool) {
	a, c := pinnedPair(b)
	src, dst := make([]byte, size), make([]byte, size)
	var turn paddedWord // 1: writer's turn, 2: reader's turn, -1: stop
	writer := onCPU(b, c, func() {
		for gen := byte(1); ; gen++ {
			for v := turn.v.Load(); v != 1; v = turn.v.Load() {
				if v < 0 {
					return
				}
			}
			if peer {
				for i := 0; i < len(src); i += 64 {
					src[i] = gen
				}
			}
			turn.v.Store(2)
		}
	})
	copies := make([]time.Duration, 0, b.N) // StopTimer per iteration would stop the world each time
	<-onCPU(b, a, func() {
		for i := 0; i < b.N; i++ {
			turn.v.Store(1)
			for turn.v.Load() != 2 {
			}
			if !peer {
				for j := 0; j < len(src); j += 64 {
					src[j] = byte(i)
				}
			}
			t0 := time.Now()
			copy(dst, src)
			copies = append(copies, time.Since(t0))
		}
	})
	var total time.Duration
	for _, d := range copies {
		total += d
	}
	slices.Sort(copies)
	mbps := func(d time.Duration) float64 { return float64(size) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(total/time.Duration(b.N)), "MB/s")
	b.ReportMetric(mbps(copies[len(copies)/2]), "p50-MB/s")
	b.ReportMetric(mbps(copies[len(copies)*9/10]), "p10-MB/s") // the 10% slowest copies are slower than this
	turn.v.Store(-1)
	<-writer
}

func BenchmarkCombine(b *testing.B) {
	const n = 4096 // 32 KiB per operand: in L1/L2
	dst, src := make([]float64, n), make([]float64, n)
	for i := range src {
		src[i] = float64(i)
	}
	b.SetBytes(n * int64(unsafe.Sizeof(src[0])))
	for i := 0; i < b.N; i++ {
		for j := range dst {
			dst[j] += src[j]
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}
