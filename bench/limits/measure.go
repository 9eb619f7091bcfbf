package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// record is one result line of bench/FORMAT.md.
type record struct {
	Impl  string   `json:"impl"`
	Op    string   `json:"op"`
	Size  int      `json:"size"`
	Unit  string   `json:"unit"`
	NPEs  int      `json:"npes"`
	Iters int      `json:"iters"`
	Batch int      `json:"batch"`
	US    float64  `json:"us"`
	MBps  *float64 `json:"mbps,omitempty"`
}

const (
	smallLimit    = 64 << 10 // above this many bytes a copy uses the large-size defaults
	copyBatchWork = 1 << 20  // bytes a small-size copy sample moves, so it outlasts the clock's cost
	copyBatchMax  = 10000
	pingBatch     = 1000 // round trips per ping-pong sample
)

func run(o options, stdout, stderr io.Writer) error {
	cpuA, cpuB, err := chooseCPUs(o.cpuA, o.cpuB)
	if err != nil && (o.pingpong || o.flagPingpong || cpuA < 0) {
		return err
	}
	out := &writer{json: o.json, w: stdout}
	prog := &progress{w: stderr, tty: isTerminal(stderr)}
	if o.copy {
		maxSize := slices.Max(append([]int{0}, o.sizes...))
		src, dst := make([]byte, maxSize), make([]byte, maxSize)
		for i := range src {
			src[i] = byte(i * 7)
		}
		copy(dst, src) // fault the pages in before timing
		out.header("copy", fmt.Sprintf("Go copy() within CPU %d (from 1 MiB the faster of one copy() and 512 KiB pieces)", cpuA), true)
		for k, n := range o.sizes {
			prog.show("copy", n, k == 0)
			iters, warmup := defaultIters(n, 200, 20, 50, 5)
			iters, warmup = override(o, iters, warmup)
			r, err := measureCopy(src[:n], dst[:n], cpuA, iters, warmup)
			if err != nil {
				return err
			}
			if err := out.write(r); err != nil {
				return err
			}
		}
	}
	for _, pp := range []struct {
		on      bool
		op      string
		title   string
		measure func(a, b, iters, warmup int) (record, error)
	}{
		{o.pingpong, "cacheline_pingpong", "an atomic counter bounced", measureCounterPingPong},
		{o.flagPingpong, "flag_pingpong", "two one-writer flags (release store, PAUSE polling)", measureFlagPingPong},
	} {
		if !pp.on {
			continue
		}
		prog.show(pp.op, 8, true)
		iters, warmup := override(o, 200, 20)
		out.header(pp.op, fmt.Sprintf("%s between CPU %d and CPU %d, round trip", pp.title, cpuA, cpuB), false)
		r, err := pp.measure(cpuA, cpuB, iters, warmup)
		if err != nil {
			return err
		}
		if err := out.write(r); err != nil {
			return err
		}
	}
	prog.done()
	return nil
}

// chooseCPUs returns the requested pair, or the first two CPUs the process may run on.
func chooseCPUs(a, b int) (int, int, error) {
	if a >= 0 {
		return a, b, nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return -1, -1, fmt.Errorf("sched_getaffinity: %v", err)
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	switch len(cpus) {
	case 0:
		return -1, -1, fmt.Errorf("sched_getaffinity: no CPU allowed")
	case 1:
		return cpus[0], -1, fmt.Errorf("cacheline_pingpong needs two CPUs; this process may use only CPU %d", cpus[0])
	}
	return cpus[0], cpus[1], nil
}

func defaultIters(bytes, smallIters, smallWarmup, largeIters, largeWarmup int) (int, int) {
	if bytes > smallLimit {
		return largeIters, largeWarmup
	}
	return smallIters, smallWarmup
}

func override(o options, iters, warmup int) (int, int) {
	if o.iters > 0 {
		iters = o.iters
	}
	if o.warmup >= 0 {
		warmup = o.warmup
	}
	return iters, warmup
}

// pin locks the calling goroutine to its thread and that thread to cpu. The goroutine must
// end without unlocking, so that the pinned thread ends with it.
func pin(cpu int) error {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity(CPU %d): %v", cpu, err)
	}
	return nil
}

// onCPU runs f on a goroutine pinned to cpu and returns its result.
func onCPU[T any](cpu int, f func() T) (T, error) {
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1)
	go func() {
		if err := pin(cpu); err != nil {
			c <- result{err: err}
			return
		}
		c <- result{v: f()}
	}()
	r := <-c
	return r.v, r.err
}

func measureCopy(src, dst []byte, cpu, iters, warmup int) (record, error) {
	n := len(src)
	batch := max(1, min(copyBatchMax, copyBatchWork/max(n, 1)))
	if n > smallLimit {
		batch = 1
	}
	time1 := func(cp func(dst, src []byte)) (float64, error) {
		return onCPU(cpu, func() float64 {
			samples := make([]float64, 0, iters)
			for s := 0; s < warmup+iters; s++ {
				t0 := time.Now()
				for b := 0; b < batch; b++ {
					cp(dst, src)
				}
				el := time.Since(t0)
				if s >= warmup {
					samples = append(samples, float64(el.Nanoseconds())/1e3/float64(batch))
				}
			}
			return median(samples)
		})
	}
	us, err := time1(func(dst, src []byte) { copy(dst, src) })
	if err != nil {
		return record{}, err
	}
	if n >= 1<<20 {
		// From 1 MiB Go's memmove stores non-temporally (amd64), which some CPUs do at
		// half the rate of cached stores the destination still fits: the same bytes copied
		// in 512 KiB pieces count too, whichever is faster.
		pieces, err := time1(func(dst, src []byte) {
			for off := 0; off < len(src); off += 512 << 10 {
				end := min(off+512<<10, len(src))
				copy(dst[off:end], src[off:end])
			}
		})
		if err != nil {
			return record{}, err
		}
		us = min(us, pieces)
	}
	mbps := sig6(float64(n) / us) // bytes per microsecond are MB/s
	return record{Impl: "limit", Op: "copy", Size: n, Unit: "B", NPEs: 1, Iters: iters, Batch: batch,
		US: sig6(us), MBps: &mbps}, nil
}

// line is an int64 alone in its cache line, so that only the ping-pong moves that line.
type line struct {
	_ [64]byte
	v int64
	_ [56]byte
}

// measureCounterPingPong bounces one counter between two CPUs with sync/atomic: the
// initiator on a stores an odd value and spins until it reads the next even one, which the
// responder on b stores when it reads the odd one.
func measureCounterPingPong(a, b, iters, warmup int) (record, error) {
	c := new(line)
	us, err := roundTrips(a, b, iters, warmup,
		func(i int64) {
			atomic.StoreInt64(&c.v, 2*i-1)
			for atomic.LoadInt64(&c.v) != 2*i {
			}
		},
		func(i int64) {
			for atomic.LoadInt64(&c.v) != 2*i-1 {
			}
			atomic.StoreInt64(&c.v, 2*i)
		})
	return pingRecord("cacheline_pingpong", us, iters), err
}

// measureFlagPingPong is the round trip a well-made flag protocol achieves: two lines,
// each written by one side only (a release store, no locked instruction), polled with the
// spin-wait hint. It is how a put of a flag and a wait on the reply work at best.
func measureFlagPingPong(a, b, iters, warmup int) (record, error) {
	ping, pong := new(line), new(line)
	us, err := roundTrips(a, b, iters, warmup,
		func(i int64) {
			storeRelease(&ping.v, i)
			for atomic.LoadInt64(&pong.v) != i {
				pause()
			}
		},
		func(i int64) {
			for atomic.LoadInt64(&ping.v) != i {
				pause()
			}
			storeRelease(&pong.v, i)
		})
	return pingRecord("flag_pingpong", us, iters), err
}

func pingRecord(op string, us float64, iters int) record {
	return record{Impl: "limit", Op: op, Size: 8, Unit: "B", NPEs: 2, Iters: iters, Batch: pingBatch, US: sig6(us)}
}

// roundTrips runs respond(i) for i = 1, 2, ... on CPU b and times initiate(i) on CPU a,
// pingBatch round trips a sample; it returns the median µs per round trip.
func roundTrips(a, b, iters, warmup int, initiate, respond func(i int64)) (float64, error) {
	rounds := int64(warmup+iters) * pingBatch
	ready := make(chan error, 1)
	go func() {
		err := pin(b)
		ready <- err
		if err != nil {
			return
		}
		for i := int64(1); i <= rounds; i++ {
			respond(i)
		}
	}()
	if err := <-ready; err != nil {
		return 0, err
	}
	return onCPU(a, func() float64 {
		samples := make([]float64, 0, iters)
		i := int64(1)
		for s := 0; s < warmup+iters; s++ {
			t0 := time.Now()
			for k := 0; k < pingBatch; k++ {
				initiate(i)
				i++
			}
			el := time.Since(t0)
			if s >= warmup {
				samples = append(samples, float64(el.Nanoseconds())/1e3/pingBatch)
			}
		}
		return median(samples)
	})
}

// median sorts v and returns its middle value, or the mean of the two middle values.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// sig6 rounds to six significant digits, as the C peer prints them.
func sig6(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return f
}

// writer prints records as JSON lines or as OSU-style tables.
type writer struct {
	json bool
	w    io.Writer
}

func (w *writer) header(op, title string, bandwidth bool) {
	if w.json {
		return
	}
	fmt.Fprintf(w.w, "# %s: %s\n", op, title)
	if bandwidth {
		fmt.Fprintf(w.w, "# %-12s %16s %18s\n", "Size", "Latency (us)", "Bandwidth (MB/s)")
	} else {
		fmt.Fprintf(w.w, "# %-12s %16s\n", "Size", "Latency (us)")
	}
}

func (w *writer) write(r record) error {
	if w.json {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w.w, "%s\n", b)
		return err
	}
	var err error
	if r.MBps != nil {
		_, err = fmt.Fprintf(w.w, "  %-12d %16.3f %18.2f\n", r.Size, r.US, *r.MBps)
	} else {
		_, err = fmt.Fprintf(w.w, "  %-12d %16.3f\n", r.Size, r.US)
	}
	return err
}

// progress is the stderr line of bench/FORMAT.md: rewritten per size on a terminal,
// one line per measurement elsewhere.
type progress struct {
	w   io.Writer
	tty bool
}

func (p *progress) show(op string, size int, first bool) {
	switch {
	case p.tty:
		fmt.Fprintf(p.w, "\r[limit] %-20s %10d B\033[K", op, size)
	case first:
		fmt.Fprintf(p.w, "[limit] %s\n", op)
	}
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
