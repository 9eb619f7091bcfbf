// Package shmembench turns a multi-PE loop into a Go benchmark. The test process launches
// the job once; inside it PE 0 calibrates an iteration count that every PE then runs (a
// collective body needs the same count everywhere), times several batches of it after a
// barrier each, and prints the median; the benchmark reports that as ns/op.
package shmembench

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

const (
	batchTarget = 100 * time.Millisecond // calibrated batch length
	batches     = 9                      // timed batches; the median is reported
	marker      = "SHMEMBENCH"
)

// results keeps each benchmark's measurement: the framework calls a benchmark again with a
// larger b.N when a run took less than -benchtime, and those runs re-report it. Each round
// (-count) starts with b.N = 1 and measures anew.
var results = map[string][3]float64{}

// Run measures body(iters) on n PEs. setup runs once in every PE after Init and returns
// the body (so it can allocate symmetric memory). It reports the median of the batches,
// in ns per iteration, as ns/op, and the spread as min-ns/op and max-ns/op.
func Run(b *testing.B, n int, o shmemtest.Options, setup func() func(iters int)) {
	if shmemtest.InPE(b) {
		pe(b, setup)
		return
	}
	if r, ok := results[b.Name()]; ok && b.N > 1 {
		report(b, r) // a rerun of this round with a larger b.N: the job measured it already
		return
	}
	o.Timeout = 5 * time.Minute
	r := shmemtest.Launch(b, n, o)
	if r.Status != 0 {
		b.Fatalf("benchmark job status %d\n%s%s", r.Status, r.Stdout, r.Stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 4 && f[0] == marker {
			var r [3]float64
			for i := range r {
				r[i], _ = strconv.ParseFloat(f[1+i], 64)
			}
			results[b.Name()] = r
			report(b, r)
			return
		}
	}
	b.Fatalf("no result from the job:\n%s%s", r.Stdout, r.Stderr)
}

func report(b *testing.B, r [3]float64) {
	b.ReportMetric(r[0], "ns/op")
	b.ReportMetric(r[1], "min-ns/op")
	b.ReportMetric(r[2], "max-ns/op")
}

func pe(b *testing.B, setup func() func(iters int)) {
	if err := shmem.Init(); err != nil {
		b.Fatal(err)
	}
	body := setup()
	ctl, err := shmem.Calloc[int64](1)
	if err != nil {
		b.Fatal(err)
	}
	me, n := shmem.MyPE(), shmem.NPEs()
	// share makes PE 0's value everyone's.
	share := func(v int64) int64 {
		if me == 0 {
			for p := range n {
				shmem.P(&ctl[0], v, p)
			}
		}
		shmem.BarrierAll()
		v = ctl[0]
		shmem.BarrierAll()
		return v
	}
	timed := func(iters int) time.Duration {
		shmem.BarrierAll()
		t0 := time.Now()
		body(iters)
		return time.Since(t0)
	}
	body(100) // warm up
	iters := int64(1)
	for {
		d := timed(int(iters))
		next := iters
		if me == 0 && d < batchTarget {
			next = max(iters*2, int64(float64(iters)*float64(batchTarget)/float64(max(d, time.Microsecond))))
		}
		if v := share(next); v == iters {
			break
		} else {
			iters = v
		}
	}
	var ns []float64
	for range batches {
		ns = append(ns, float64(timed(int(iters)).Nanoseconds())/float64(iters))
	}
	slices.Sort(ns)
	shmem.BarrierAll()
	if me == 0 {
		fmt.Printf("%s %.2f %.2f %.2f\n", marker, ns[len(ns)/2], ns[0], ns[len(ns)-1])
	}
	shmem.Finalize()
}
