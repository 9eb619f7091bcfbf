// Command osu is goshmem's benchmark suite, through the Go API, following bench/FORMAT.md
// exactly (operations, batches, sizes, the sample loop, medians, JSON lines), so that its
// numbers stand beside the C peer's on Open MPI's OSHMEM (bench/peer).
//
//	go run ./cmd/shmemrun -n 2 --bind-to core ./bench/osu [-m MIN:MAX] [-i N] [-x N] [-f] [-touch] [--json] [-o OPS]
//
// -touch departs from FORMAT.md's loop (the C peer has no such mode): each collective call's
// source is written just before it and its result read just after, as a program that
// computes with them does. The loop's fixed buffers otherwise favour algorithms that read
// the peers' sources in place and write into the peers' results, because then no cache line
// moves between the PEs' cores at all, where eager messages move theirs every call.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/goshmem/shmem"
	"golang.org/x/sys/unix"
)

const (
	impl       = "goshmem"
	kib        = 1024
	mib        = kib * kib
	smallLimit = 64 * kib // batch and default-iteration threshold, in bytes
	window     = 64       // messages per window of put_bw, get_bw, put_nbi_rate
	maxIvars   = 1024     // largest test_some / wait_until_some set
	a2asStride = 2        // dst and sst of alltoalls64
)

type family int

const (
	famRMA family = iota
	famBW
	famRate
	famAtomic
	famSync
	famColl
	famProgress
)

// The progress operation: PE 1 computes this long, PE 0 starts its put this long after the
// sample's barrier, so that the put lands in the middle of the computation.
const (
	progressCompute = 300 * time.Millisecond
	progressDelay   = 30 * time.Millisecond
)

type active int

const (
	activePE0 active = iota
	activePair
	activeAll
)

type metric int

const (
	metricNone metric = iota
	metricMBps
	metricMops
)

type op struct {
	name      string
	fam       family
	unit      string // "B" or "elems"
	min, max  int    // default size range
	fixed     bool   // one size only
	elemBytes int
	active    active
	metric    metric
	nmsg      int // messages per operation for the rates
	title     string
	run       func(size, batch int)
}

// The state the operations share.
var (
	me, npes    int
	bufA, bufB  []byte // symmetric: source and destination
	pWrk        [2][]byte
	pSync       [2][]int64
	amoTarget   []int64
	ping, pong  []int64
	ivars       []int64
	indices     []int
	medians     []float64
	collCalls   int
	pingpongSeq int64
	roundTrip   int64
	expect      int64
	selfTimed   time.Duration // the time progress measured itself (its sample is not the whole run)
	srcPattern  []byte        // -touch: bufA's contents, written back before each call
	touchSink   []byte        // -touch: where each call's result is read to
	computeSink uint64
	world       = shmem.ActiveSet{Start: 0, LogStride: 0, Size: 0}
)

func view[T any](b []byte) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(*new(T))))
}

// nextSync hands out the pSync (and pWrk) of the next collective call.
func nextSync() ([]int64, []byte) {
	k := collCalls & 1
	collCalls++
	return pSync[k], pWrk[k]
}

func onPE0(f func(size, batch int)) func(size, batch int) {
	return func(size, batch int) {
		if me == 0 {
			f(size, batch)
		}
	}
}

func reduction[T shmem.Arithmetic](f func(dst, src []T, set shmem.ActiveSet, pWrk []T, pSync []int64)) func(size, batch int) {
	return func(size, batch int) {
		for range batch {
			ps, wrk := nextSync()
			f(view[T](bufB)[:size], view[T](bufA)[:size], world, view[T](wrk), ps)
		}
	}
}

// bitwise is reduction for the bitwise and ordered-only operations.
func ordered[T shmem.Ordered](f func(dst, src []T, set shmem.ActiveSet, pWrk []T, pSync []int64)) func(size, batch int) {
	return func(size, batch int) {
		for range batch {
			ps, wrk := nextSync()
			f(view[T](bufB)[:size], view[T](bufA)[:size], world, view[T](wrk), ps)
		}
	}
}

func roundTripSome(poll bool) func(size, batch int) {
	wait := func(set []int64) {
		for {
			var n int
			if poll {
				n = shmem.TestSome(set, indices, nil, shmem.CmpNE, 0)
			} else {
				n = shmem.WaitUntilSome(set, indices, nil, shmem.CmpNE, 0)
			}
			for _, i := range indices[:n] {
				set[i] = 0
			}
			if n > 0 {
				return
			}
		}
	}
	return func(size, batch int) {
		if me > 1 {
			return
		}
		set := ivars[:size]
		for range batch {
			k := int(roundTrip % int64(size))
			roundTrip++
			if me == 0 {
				shmem.P(&set[k], 1, 1)
				shmem.Quiet()
				wait(set)
			} else {
				wait(set)
				shmem.P(&set[k], 1, 0)
				shmem.Quiet()
			}
		}
	}
}

var ops = []op{
	{"put", famRMA, "B", 8, 16 * mib, false, 1, activePE0, metricNone, 1, "shmem.Put + shmem.Quiet, PE 0 -> PE 1", onPE0(func(n, batch int) {
		for range batch {
			shmem.Put(bufB[:n], bufA[:n], 1)
			shmem.Quiet()
		}
	})},
	{"get", famRMA, "B", 8, 16 * mib, false, 1, activePE0, metricNone, 1, "shmem.Get, PE 0 <- PE 1", onPE0(func(n, batch int) {
		for range batch {
			shmem.Get(bufB[:n], bufA[:n], 1)
		}
	})},
	{"put_bw", famBW, "B", 8, 16 * mib, false, 1, activePE0, metricMBps, window, "64 x shmem.PutNBI + shmem.Quiet, PE 0 -> PE 1", onPE0(func(n, batch int) {
		for range batch {
			for range window {
				shmem.PutNBI(bufB[:n], bufA[:n], 1)
			}
			shmem.Quiet()
		}
	})},
	{"get_bw", famBW, "B", 8, 16 * mib, false, 1, activePE0, metricMBps, window, "64 x shmem.GetNBI + shmem.Quiet, PE 0 <- PE 1", onPE0(func(n, batch int) {
		for range batch {
			for range window {
				shmem.GetNBI(bufB[:n], bufA[:n], 1)
			}
			shmem.Quiet()
		}
	})},
	{"put_nbi_rate", famRate, "B", 8, 8, true, 1, activePE0, metricMops, window, "64 x 8-byte shmem.PutNBI + shmem.Quiet, PE 0 -> PE 1", onPE0(func(_, batch int) {
		for range batch {
			for w := range window { // distinct 8-byte slots, so no implementation can merge them
				shmem.PutNBI(bufB[8*w:8*w+8], bufA[:8], 1)
			}
			shmem.Quiet()
		}
	})},
	{"atomic_fetch_add", famAtomic, "B", 8, 8, true, 1, activePE0, metricMops, 1, "shmem.AtomicFetchAdd on PE 1", onPE0(func(_, batch int) {
		for range batch {
			_ = shmem.AtomicFetchAdd(&amoTarget[0], 1, 1)
		}
	})},
	{"atomic_add", famAtomic, "B", 8, 8, true, 1, activePE0, metricMops, 1, "shmem.AtomicAdd on PE 1 (one shmem.Quiet per batch)", onPE0(func(_, batch int) {
		for range batch {
			shmem.AtomicAdd(&amoTarget[0], 1, 1)
		}
		shmem.Quiet()
	})},
	{"atomic_compare_swap", famAtomic, "B", 8, 8, true, 1, activePE0, metricMops, 1, "shmem.AtomicCompareSwap on PE 1 (succeeding)", onPE0(func(_, batch int) {
		for range batch {
			got := shmem.AtomicCompareSwap(&amoTarget[0], expect, expect+1, 1)
			if got == expect {
				expect++
			} else {
				expect = got
			}
		}
	})},
	{"atomic_swap", famAtomic, "B", 8, 8, true, 1, activePE0, metricMops, 1, "shmem.AtomicSwap on PE 1", onPE0(func(_, batch int) {
		for b := range batch {
			_ = shmem.AtomicSwap(&amoTarget[0], int64(b), 1)
		}
	})},
	{"atomic_set", famAtomic, "B", 8, 8, true, 1, activePE0, metricMops, 1, "shmem.AtomicSet on PE 1 (one shmem.Quiet per batch)", onPE0(func(_, batch int) {
		for b := range batch {
			shmem.AtomicSet(&amoTarget[0], int64(b), 1)
		}
		shmem.Quiet()
	})},
	{"atomic_fetch", famAtomic, "B", 8, 8, true, 1, activePE0, metricMops, 1, "shmem.AtomicFetch on PE 1", onPE0(func(_, batch int) {
		for range batch {
			_ = shmem.AtomicFetch(&amoTarget[0], 1)
		}
	})},
	{"barrier", famSync, "B", 0, 0, true, 1, activeAll, metricNone, 1, "shmem.BarrierAll", func(_, batch int) {
		for range batch {
			shmem.BarrierAll()
		}
	}},
	{"pingpong", famSync, "B", 8, 8, true, 1, activePair, metricNone, 1, "shmem.P + shmem.Quiet / shmem.WaitUntil round trip, PE 0 <-> PE 1", func(_, batch int) {
		if me > 1 {
			return
		}
		for range batch {
			pingpongSeq++
			v := pingpongSeq
			if me == 0 {
				shmem.P(&ping[0], v, 1)
				shmem.Quiet()
				shmem.WaitUntil(&pong[0], shmem.CmpGE, v)
			} else {
				shmem.WaitUntil(&ping[0], shmem.CmpGE, v)
				shmem.P(&pong[0], v, 0)
				shmem.Quiet()
			}
		}
	}},
	{"test_some", famSync, "elems", 1, maxIvars, false, 8, activePair, metricNone, 1, "shmem.TestSome round trip, PE 0 <-> PE 1", roundTripSome(true)},
	{"wait_until_some", famSync, "elems", 1, maxIvars, false, 8, activePair, metricNone, 1, "shmem.WaitUntilSome round trip, PE 0 <-> PE 1", roundTripSome(false)},
	{"progress", famProgress, "B", 8, 8, true, 1, activePE0, metricNone, 1, "shmem.Put + shmem.Quiet, PE 0 -> PE 1 while PE 1 computes for 300 ms", runProgress},
	{"broadcast64", famColl, "elems", 1, mib / 8, false, 8, activeAll, metricNone, 1, "shmem.Broadcast64 from PE 0, all PEs", func(n, batch int) {
		for range batch {
			ps, _ := nextSync()
			shmem.Broadcast64(view[int64](bufB), view[int64](bufA), n, 0, world, ps)
		}
	}},
	{"collect64", famColl, "elems", 1, mib / 8, false, 8, activeAll, metricNone, 1, "shmem.Collect64, all PEs", func(n, batch int) {
		for range batch {
			ps, _ := nextSync()
			shmem.Collect64(view[int64](bufB)[:n*npes], view[int64](bufA)[:n], world, ps)
		}
	}},
	{"fcollect64", famColl, "elems", 1, mib / 8, false, 8, activeAll, metricNone, 1, "shmem.FCollect64, all PEs", func(n, batch int) {
		for range batch {
			ps, _ := nextSync()
			shmem.FCollect64(view[int64](bufB)[:n*npes], view[int64](bufA)[:n], world, ps)
		}
	}},
	{"reduce_int_sum", famColl, "elems", 1, mib, false, 4, activeAll, metricNone, 1, "shmem.SumToAll on int32, all PEs", reduction(shmem.SumToAll[int32])},
	{"reduce_long_sum", famColl, "elems", 1, mib, false, 8, activeAll, metricNone, 1, "shmem.SumToAll on int64, all PEs", reduction(shmem.SumToAll[int64])},
	{"reduce_double_sum", famColl, "elems", 1, mib, false, 8, activeAll, metricNone, 1, "shmem.SumToAll on float64, all PEs", reduction(shmem.SumToAll[float64])},
	{"reduce_long_or", famColl, "elems", 1, mib, false, 8, activeAll, metricNone, 1, "shmem.OrToAll on int64, all PEs", ordered(shmem.OrToAll[int64])},
	{"reduce_int_min", famColl, "elems", 1, mib, false, 4, activeAll, metricNone, 1, "shmem.MinToAll on int32, all PEs", ordered(shmem.MinToAll[int32])},
	{"inscan_long_sum", famColl, "elems", 1, mib, false, 8, activeAll, metricNone, 1, "shmem.SumInScan on int64 over the world team, all PEs", func(n, batch int) {
		for range batch {
			if err := shmem.SumInScan(shmem.TeamWorld(), view[int64](bufB)[:n], view[int64](bufA)[:n]); err != nil {
				panic(err)
			}
		}
	}},
	{"alltoall64", famColl, "elems", 1, 64 * kib, false, 8, activeAll, metricNone, 1, "shmem.AllToAll64, all PEs", func(n, batch int) {
		for range batch {
			ps, _ := nextSync()
			shmem.AllToAll64(view[int64](bufB), view[int64](bufA), n, world, ps)
		}
	}},
	{"alltoalls64", famColl, "elems", 1, 64 * kib, false, 8, activeAll, metricNone, 1, "shmem.AllToAllS64, dst = sst = 2, all PEs", func(n, batch int) {
		for range batch {
			ps, _ := nextSync()
			shmem.AllToAllS64(view[int64](bufB), view[int64](bufA), a2asStride, a2asStride, n, world, ps)
		}
	}},
}

// runProgress is one sample of progress: PE 1 computes for progressCompute without calling
// the library; PE 0 waits progressDelay, then times an 8-byte put and quiet to PE 1, which
// completes only if PE 1's side of the transport makes progress without PE 1's help.
func runProgress(_, batch int) {
	for range batch {
		switch me {
		case 0:
			time.Sleep(progressDelay)
			t0 := time.Now()
			shmem.Put(bufB[:8], bufA[:8], 1)
			shmem.Quiet()
			selfTimed += time.Since(t0)
		case 1:
			compute(progressCompute)
		}
	}
}

// compute keeps the CPU busy for d with arithmetic and no library call.
func compute(d time.Duration) {
	x := computeSink | 1
	for t0 := time.Now(); time.Since(t0) < d; {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	computeSink = x
}

// batchOf is an operation's batch at a size (FORMAT.md, "Operations").
func (o *op) batchOf(size int) int {
	bytes := size * o.elemBytes
	switch o.fam {
	case famRMA:
		if bytes <= smallLimit {
			return 100
		}
		return 1
	case famBW:
		if bytes <= smallLimit {
			return 10
		}
		return 1
	case famRate:
		return 10
	case famProgress:
		return 1
	case famAtomic, famSync:
		return 100
	}
	return 1
}

// defaultIters is an operation's (samples, warm-up samples) at a size (FORMAT.md, "Defaults").
func (o *op) defaultIters(size int) (int, int) {
	large := size*o.elemBytes > smallLimit
	switch {
	case o.fam == famProgress: // each sample takes progressCompute
		return 10, 1
	case o.fam == famBW && large:
		return 20, 2
	case o.fam == famBW:
		return 200, 20
	case o.fam == famColl && large:
		return 50, 5
	case o.fam == famColl:
		return 500, 50
	case large:
		return 100, 10
	}
	return 500, 50
}

// bufferBytes is what bufA and bufB must hold for an operation at a size.
func (o *op) bufferBytes(size int) int {
	if o.name == "put_nbi_rate" {
		return 8 * window
	}
	src, dst := o.extent(size)
	return max(src, dst)
}

// extent is how much of the source (bufA) and the destination (bufB) one operation at size
// uses on each PE: what the buffers must hold, and what -touch writes before a collective
// call and reads after it.
func (o *op) extent(size int) (src, dst int) {
	n := size * o.elemBytes
	switch o.name {
	case "collect64", "fcollect64":
		return n, n * npes
	case "alltoall64":
		return n * npes, n * npes
	case "alltoalls64":
		return n * npes * a2asStride, n * npes * a2asStride
	}
	return n, n
}

// touched runs o as -touch asks: one call at a time, its source written before (the same
// bytes as at the start, so results do not change) and its result read after.
func (o *op) touched(size, batch int) {
	src, dst := o.extent(size)
	for range batch {
		copy(bufA[:src], srcPattern[:src])
		o.run(size, 1)
		copy(touchSink[:dst], bufB[:dst])
	}
}

func (o *op) isActive(pe int) bool {
	switch o.active {
	case activePE0:
		return pe == 0
	case activePair:
		return pe <= 1
	}
	return true
}

func (o *op) sizes(opt *options) []int {
	if o.fixed {
		return []int{o.min}
	}
	lo, hi := o.min, o.max
	if opt.haveRange {
		if opt.min > 0 {
			lo = opt.min
		}
		if opt.max >= 0 {
			hi = min(opt.max, o.max)
		}
	}
	var out []int
	for s := max(lo, 1); s <= hi; s *= 2 {
		out = append(out, s)
	}
	return out
}

type options struct {
	haveRange     bool
	min, max      int // max < 0: the operation's own
	iters, warmup int // < 0: the operation's default
	full, json    bool
	touch         bool
	selected      map[string]bool
}

// parseCount reads a size with an optional K, M or G suffix (powers of 1024).
func parseCount(s string) (int, error) {
	mult := 1
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult, s = kib, s[:n-1]
		case 'm', 'M':
			mult, s = mib, s[:n-1]
		case 'g', 'G':
			mult, s = kib*mib, s[:n-1]
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, errors.New("bad count")
	}
	return v * mult, nil
}

func parseOptions(args []string) (*options, error) {
	opt := &options{max: -1, iters: -1, warmup: -1}
	fs := flag.NewFlagSet("osu", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	rng := fs.String("m", "", "sizes MIN:MAX (bytes for RMA, elements per PE for collectives), doubling from MIN")
	fs.IntVar(&opt.iters, "i", -1, "timed samples per size (default: per operation family)")
	fs.IntVar(&opt.warmup, "x", -1, "warm-up samples per size (default: per operation family)")
	fs.BoolVar(&opt.full, "f", false, "also report min/max/avg over PEs of each PE's median")
	fs.BoolVar(&opt.json, "json", false, "JSON lines on stdout (bench/FORMAT.md) instead of the table")
	fs.BoolVar(&opt.touch, "touch", false, "collectives: write each call's source before it and read its result after (times include both; not FORMAT.md's loop)")
	sel := fs.String("o", "", "comma-separated operations (default all)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("osu: unexpected argument %s", fs.Arg(0))
	}
	if opt.iters == 0 || opt.iters < -1 {
		return nil, fmt.Errorf("osu: -i: bad iteration count %d", opt.iters)
	}
	if opt.warmup < -1 {
		return nil, fmt.Errorf("osu: -x: bad warm-up count %d", opt.warmup)
	}
	if *rng != "" {
		opt.haveRange = true
		lo, hi, found := strings.Cut(*rng, ":")
		if !found {
			lo, hi = "", lo
		}
		var err error
		if lo != "" {
			if opt.min, err = parseCount(lo); err != nil {
				return nil, fmt.Errorf("osu: -m: bad size range %q", *rng)
			}
		}
		if hi != "" {
			if opt.max, err = parseCount(hi); err != nil || opt.max < opt.min {
				return nil, fmt.Errorf("osu: -m: bad size range %q", *rng)
			}
		}
	}
	opt.selected = map[string]bool{}
	if *sel != "" {
		for _, name := range strings.Split(*sel, ",") {
			if !slices.ContainsFunc(ops, func(o op) bool { return o.name == name }) {
				return nil, fmt.Errorf("osu: -o: unknown operation %s", name)
			}
			opt.selected[name] = true
		}
	} else {
		for _, o := range ops {
			opt.selected[o.name] = true
		}
	}
	return opt, nil
}

type result struct {
	us, usMin, usMax, usAvg float64
	iters, batch            int
}

func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// measure runs the sample loop of FORMAT.md and gathers the PEs' medians on PE 0, whose us
// is their mean over the active PEs (OSU's average latency).
func measure(o *op, size, iters, warmup int, touch bool) result {
	batch := o.batchOf(size)
	run := o.run
	if touch && o.fam == famColl {
		run = o.touched
	}
	samples := make([]float64, iters)
	for s := range warmup + iters {
		shmem.BarrierAll()
		selfTimed = 0
		t0 := time.Now()
		run(size, batch)
		d := time.Since(t0)
		if o.fam == famProgress {
			d = selfTimed // the put's time, not the wait before it
		}
		if s >= warmup {
			samples[s-warmup] = float64(d.Nanoseconds()) / 1e3 / float64(batch)
		}
	}
	med := median(samples)
	shmem.P(&medians[me], med, 0)
	shmem.BarrierAll()
	r := result{us: med, usMin: med, usMax: med, iters: iters, batch: batch}
	if me == 0 {
		var sum float64
		n := 0
		for pe := range npes {
			if !o.isActive(pe) {
				continue
			}
			m := medians[pe]
			r.usMin, r.usMax = min(r.usMin, m), max(r.usMax, m)
			sum += m
			n++
		}
		r.usAvg = sum / float64(n)
		r.us = r.usAvg
	}
	shmem.BarrierAll() // PE 0 has read medians before the next measurement writes them
	return r
}

func (o *op) rate(size int, us float64) float64 {
	if o.metric == metricMBps {
		return float64(size*o.nmsg) / us // bytes/µs = MB/s
	}
	return float64(o.nmsg) / us // messages/µs = Mops/s
}

func g6(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func printHeader(o *op, opt *options) {
	fmt.Printf("# %s: %s, %d PEs\n", o.name, o.title, npes)
	if opt.touch && o.fam == famColl {
		fmt.Println("# -touch: each call's source written before it and its result read after, inside the timing")
	}
	first := "Size"
	if o.unit != "B" {
		first = "Elements"
	}
	fmt.Printf("# %-12s %16s", first, "Latency (us)")
	switch o.metric {
	case metricMBps:
		fmt.Printf(" %18s", "Bandwidth (MB/s)")
	case metricMops:
		fmt.Printf(" %18s", "Rate (Mops/s)")
	}
	if opt.full {
		fmt.Printf(" %12s %12s %12s %12s", "Min (us)", "Max (us)", "Avg (us)", "Iterations")
	}
	fmt.Println()
}

func printRow(o *op, size int, r result, opt *options) {
	if opt.json {
		var b strings.Builder
		fmt.Fprintf(&b, `{"impl":"%s","op":"%s","size":%d,"unit":"%s","npes":%d,"iters":%d,"batch":%d,"us":%s`,
			impl, o.name, size, o.unit, npes, r.iters, r.batch, g6(r.us))
		if opt.full {
			fmt.Fprintf(&b, `,"us_min":%s,"us_max":%s,"us_avg":%s`, g6(r.usMin), g6(r.usMax), g6(r.usAvg))
		}
		if opt.touch && o.fam == famColl {
			b.WriteString(`,"touch":true`)
		}
		switch o.metric {
		case metricMBps:
			fmt.Fprintf(&b, `,"mbps":%s`, g6(o.rate(size, r.us)))
		case metricMops:
			fmt.Fprintf(&b, `,"mops":%s`, g6(o.rate(size, r.us)))
		}
		b.WriteString("}\n")
		os.Stdout.WriteString(b.String())
		return
	}
	fmt.Printf("  %-12d %16.3f", size, r.us)
	if o.metric != metricNone {
		fmt.Printf(" %18.2f", o.rate(size, r.us))
	}
	if opt.full {
		fmt.Printf(" %12.3f %12.3f %12.3f %12d", r.usMin, r.usMax, r.usAvg, r.iters)
	}
	fmt.Println()
}

// progress rewrites one stderr line per size on a terminal, else a line per operation.
func progress(o *op, size int, first bool, done, total int) {
	if me != 0 {
		return
	}
	if _, err := unix.IoctlGetTermios(2, unix.TCGETS); err == nil {
		fmt.Fprintf(os.Stderr, "\r[%s] %3d/%d %-20s %10d %s\033[K", impl, done+1, total, o.name, size, o.unit)
	} else if first {
		fmt.Fprintf(os.Stderr, "[%s] %d/%d %s\n", impl, done+1, total, o.name)
	}
}

func alloc[T any](n int, what string) []T {
	s, err := shmem.Calloc[T](max(n, 1))
	if err != nil {
		if me == 0 {
			fmt.Fprintf(os.Stderr, "osu: allocating %s: %v\n", what, err)
		}
		shmem.GlobalExit(1)
	}
	return s
}

func main() {
	if err := shmem.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	me, npes = shmem.MyPE(), shmem.NPEs()
	world.Size = npes
	opt, err := parseOptions(os.Args[1:])
	if err != nil {
		if me == 0 && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		shmem.Finalize()
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if npes < 2 {
		if me == 0 {
			fmt.Fprintf(os.Stderr, "osu: needs at least 2 PEs, have %d\n", npes)
		}
		shmem.Finalize()
		os.Exit(2)
	}
	need, wrk, total := 8*window, shmem.ReduceMinWrkDataSize, 0
	for i := range ops {
		o := &ops[i]
		if !opt.selected[o.name] {
			continue
		}
		for _, s := range o.sizes(opt) {
			total++
			need = max(need, o.bufferBytes(s))
			if strings.HasPrefix(o.name, "reduce_") {
				wrk = max(wrk, s/2+1)
			}
		}
	}
	bufA, bufB = alloc[byte](need, "the source buffer"), alloc[byte](need, "the destination buffer")
	for i := range bufA {
		bufA[i] = byte(i*7 + me)
	}
	if opt.touch {
		srcPattern, touchSink = slices.Clone(bufA), make([]byte, len(bufB))
	}
	for k := range 2 {
		pWrk[k] = alloc[byte](wrk*8, "pWrk")
		pSync[k] = alloc[int64](shmem.SyncSize, "pSync")
	}
	amoTarget = alloc[int64](1, "the atomics' target")
	ping, pong = alloc[int64](1, "the ping flag"), alloc[int64](1, "the pong flag")
	ivars = alloc[int64](maxIvars, "the ivar set")
	indices = make([]int, maxIvars)
	medians = alloc[float64](npes, "the medians")
	shmem.BarrierAll()
	if me == 0 && !opt.json {
		maj, mnr := shmem.InfoGetVersion()
		fmt.Printf("# goshmem benchmark suite: %s (OpenSHMEM %d.%d), %d PEs\n", shmem.InfoGetName(), maj, mnr, npes)
	}
	done := 0
	for i := range ops {
		o := &ops[i]
		if !opt.selected[o.name] {
			continue
		}
		if me == 0 && !opt.json {
			printHeader(o, opt)
		}
		for k, s := range o.sizes(opt) {
			iters, warmup := o.defaultIters(s)
			if opt.iters > 0 {
				iters = opt.iters
			}
			if opt.warmup >= 0 {
				warmup = opt.warmup
			}
			progress(o, s, k == 0, done, total)
			r := measure(o, s, iters, warmup, opt.touch)
			if me == 0 {
				printRow(o, s, r, opt)
			}
			done++
		}
		if me == 0 && !opt.json {
			fmt.Println()
		}
	}
	if _, err := unix.IoctlGetTermios(2, unix.TCGETS); err == nil && me == 0 {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
	shmem.Finalize()
}
