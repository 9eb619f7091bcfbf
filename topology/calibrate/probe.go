// Package calibrate measures the inputs of the collective cost model (topology.CostModel)
// on the machine it runs on: the hand-off latency of a flag and the bandwidth of reading
// data another core just wrote, between two CPUs of each level the machine has (one L3
// domain, two L3 domains of a socket, two sockets), and the rate of the combine kernel.
// shmemrun runs it once per machine and caches the result (topology.ModelFile); the
// probes are bench/limits' and topology's cost-model benchmarks, made callable.
package calibrate

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// onCPU runs f on a goroutine locked to an OS thread pinned to cpu, and returns when f
// does. The goroutine never unlocks, so its pinned thread ends with it instead of going
// back to the scheduler with a one-CPU mask.
func onCPU(cpu int, f func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := topology.SetAffinity(topology.NewCPUSet(cpu)); err != nil {
			errc <- fmt.Errorf("pinning to CPU %d: %w", cpu, err)
			return
		}
		f()
		errc <- nil
	}()
	return <-errc
}

// onPair runs sideA on a goroutine pinned to CPU a and sideB on one pinned to CPU b, at
// once, and returns when both have. A side that cannot be pinned never runs, so the other
// would wait for it forever: then stop is called, which must make every wait of both sides
// end (each probe's words hold -1 for it).
func onPair(a, b int, sideA, sideB func(), stop func()) error {
	errB := make(chan error, 1)
	go func() {
		err := onCPU(b, sideB)
		if err != nil {
			stop()
		}
		errB <- err
	}()
	err := onCPU(a, sideA)
	if err != nil {
		stop()
	}
	if e := <-errB; err == nil {
		err = e
	}
	return err
}

// line is an int64 alone in its cache line.
type line struct {
	_ [64]byte
	v atomic.Int64
	_ [56]byte
}

// FlagRoundTrip bounces a flag between CPU a and CPU b as the runtime's flags move: two
// lines, each written by one side (an atomic store), polled with the spin-wait hint. It
// returns samples times, each the mean round trip over batch round trips. Half a round
// trip is the model's hand-off latency.
func FlagRoundTrip(a, b, samples, batch int) ([]time.Duration, error) {
	if a == b || samples < 1 || batch < 1 {
		return nil, fmt.Errorf("calibrate.FlagRoundTrip: want two CPUs and positive counts, have CPUs %d,%d, %d samples of %d", a, b, samples, batch)
	}
	ping, pong := new(line), new(line)
	rounds := int64(samples * batch)
	out := make([]time.Duration, 0, samples)
	initiate := func() {
		i := int64(1)
		for range samples {
			t0 := time.Now()
			for range batch {
				ping.v.Store(i)
				for v := pong.v.Load(); v != i; v = pong.v.Load() {
					if v < 0 {
						return
					}
					shm.Pause()
				}
				i++
			}
			out = append(out, time.Since(t0)/time.Duration(batch))
		}
	}
	echo := func() {
		for i := int64(1); i <= rounds; i++ {
			for v := ping.v.Load(); v != i; v = ping.v.Load() {
				if v < 0 {
					return
				}
				shm.Pause()
			}
			pong.v.Store(i)
		}
	}
	err := onPair(a, b, initiate, echo, func() { ping.v.Store(-1); pong.v.Store(-1) })
	return out, err
}

// PairBarrier runs the runtime's 2-PE barrier protocol (barrierPair) between CPU a and
// CPU b: one cache line, each side storing the barrier's number into its word and waiting
// for the other's. pauseFirst pauses once between the store and the first poll, as waits
// do by default; else the first poll loads at once. It returns samples times, each the
// mean barrier over batch barriers, as side a saw them.
func PairBarrier(a, b, samples, batch int, pauseFirst bool) ([]time.Duration, error) {
	if a == b || samples < 1 || batch < 1 {
		return nil, fmt.Errorf("calibrate.PairBarrier: want two CPUs and positive counts, have CPUs %d,%d, %d samples of %d", a, b, samples, batch)
	}
	// The two words: the first two of a line, alone in it (buf holds a whole line from a
	// line boundary on, and a line on each side of it).
	buf := new([24]atomic.Int64)
	k := 8
	for uintptr(unsafe.Pointer(&buf[k]))%64 != 0 {
		k++
	}
	w := buf[k : k+2]
	rounds := int64(samples * batch)
	side := func(i int, tick func(e int64)) {
		mine, other := &w[i], &w[1-i]
		for e := int64(1); e <= rounds; e++ {
			mine.Store(e)
			if pauseFirst {
				shm.Pause()
			}
			for v := other.Load(); v < e; v = other.Load() {
				if v < 0 {
					return
				}
				shm.Pause()
			}
			tick(e)
		}
	}
	out := make([]time.Duration, 0, samples)
	t0 := time.Now()
	timed := func() {
		side(0, func(e int64) {
			if e%int64(batch) == 0 {
				t := time.Now()
				out = append(out, t.Sub(t0)/time.Duration(batch))
				t0 = t
			}
		})
	}
	err := onPair(a, b, timed, func() { side(1, func(int64) {}) }, func() { w[0].Store(-1); w[1].Store(-1) })
	return out, err
}

// PeerRead times copying size bytes on CPU a right after CPU b wrote them (so the lines
// are modified in b's cache, or evicted past its size): samples copies, each returned as
// MB/s.
func PeerRead(a, b, size, samples int) ([]float64, error) {
	if a == b || size < 64 || samples < 1 {
		return nil, fmt.Errorf("calibrate.PeerRead: want two CPUs, at least 64 bytes and a sample, have CPUs %d,%d, %d bytes, %d samples", a, b, size, samples)
	}
	src, dst := make([]byte, size), make([]byte, size)
	var turn line // 1: the writer's turn, 2: the reader's, -1: stop
	stop := func() { turn.v.Store(-1) }
	write := func() {
		for gen := byte(1); ; gen++ {
			for v := turn.v.Load(); v != 1; v = turn.v.Load() {
				if v < 0 {
					return
				}
				shm.Pause()
			}
			for i := 0; i < len(src); i += 64 {
				src[i] = gen
			}
			turn.v.Store(2)
		}
	}
	out := make([]float64, 0, samples)
	read := func() {
		defer stop() // the writer waits for its next turn
		for prev := int64(0); len(out) < samples; prev = 2 {
			if !turn.v.CompareAndSwap(prev, 1) { // not over a stop
				return
			}
			for v := turn.v.Load(); v != 2; v = turn.v.Load() {
				if v < 0 {
					return
				}
				shm.Pause()
			}
			t0 := time.Now()
			kernels.Copy(dst, src)
			el := time.Since(t0)
			out = append(out, float64(size)/max(el.Seconds(), 1e-9)/1e6)
		}
	}
	err := onPair(a, b, read, write, stop)
	return out, err
}

// CombineRate times the sum kernel over int64 operands of 32 KiB in the cache of CPU a
// (what a reduction's combine step costs): samples runs, each as MB/s of one operand.
func CombineRate(a, samples int) ([]float64, error) {
	const n = 4096
	dst, src := make([]int64, n), make([]int64, n)
	for i := range src {
		src[i] = int64(i)
	}
	out := make([]float64, 0, samples)
	err := onCPU(a, func() {
		kernels.Combine(kernels.Sum, dst, src) // warm the cache
		for range samples {
			const reps = 16
			t0 := time.Now()
			for range reps {
				kernels.Combine(kernels.Sum, dst, src)
			}
			el := time.Since(t0)
			out = append(out, float64(reps*n*8)/max(el.Seconds(), 1e-9)/1e6)
		}
	})
	return out, err
}

// median of v (sorted in place).
func median[T int64 | float64 | time.Duration](v []T) T {
	slices.Sort(v)
	return v[len(v)/2]
}
