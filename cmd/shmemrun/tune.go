package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	shmem "github.com/goshmem/shmem"
	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
)

// shmemrun --tune starts a job of its own executable with envTunePE set: each PE runs
// tunePE, which times every algorithm of every collective at each size (all PEs force
// the same algorithm with rt.ForceAlgorithm, so one job times them all, interleaved, and
// their ratios are measured under the same conditions); PE 0 prints one line per
// measurement, and the launcher turns the lines into a table (topology.TableFromTimings).

const envTunePE = "GOSHMEM_TUNE_PE" // "MIN:MAX SAMPLES"

// tuned are the collectives --tune times. collect (variable blocks) has one algorithm in
// the runtime, so there is nothing to choose.
var tuned = []topology.Collective{topology.Barrier, topology.Bcast, topology.Reduce, topology.FCollect, topology.AllToAll}

func runTune(o options, t *topology.Topology, bs []topology.Binding, stdout, stderr io.Writer) int {
	lo, hi, err := parseSizeRange(o.tuneSizes)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: --tune-sizes %s: %v\n", o.tuneSizes, err)
		return launch.StatusUsage
	}
	if o.tuneSamples < 1 || o.tuneSamples > 1000 {
		fmt.Fprintf(stderr, "shmemrun: --tune-samples %d: want 1 to 1000\n", o.tuneSamples)
		return launch.StatusUsage
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: --tune: finding shmemrun's executable: %v\n", err)
		return 1
	}
	machine := topology.MachineKey(t)
	layout := topology.LayoutOf(topology.PlaceMap(bs), 1)
	var out bytes.Buffer
	env := collEnv(os.Environ(), modelChoice{}, tableChoice{})
	env = append(env, fmt.Sprintf("%s=%d:%d %d", envTunePE, lo, hi, o.tuneSamples))
	t0 := time.Now()
	status, err := launch.Run(launch.Config{NPEs: o.n, Prog: exe, Env: env, Stdout: &out, Stderr: stderr,
		Timeout: o.timeout, Signals: true, Bindings: bs, Topology: t})
	if err != nil || status != 0 {
		fmt.Fprintf(stderr, "shmemrun: --tune: the timing job failed (status %d): %v\n", status, err)
		if status == 0 {
			status = 1
		}
		return status
	}
	ts, err := parseTimings(out.Bytes())
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: --tune: %v\n", err)
		return 1
	}
	tbl := topology.TableFromTimings(machine, layout, ts)
	text := topology.FormatTable(tbl)
	dir, err := cacheDir()
	where := "not written: " + fmt.Sprint(err)
	if err == nil {
		path := filepath.Join(dir, topology.TableFileName(machine, layout))
		if err := writeAtomic(path, text); err != nil {
			fmt.Fprintf(stderr, "shmemrun: --tune: %v\n", err)
			return 1
		}
		where = path
	}
	fmt.Fprintf(stdout, "tuned %d PEs in %v: %s\n", o.n, time.Since(t0).Round(time.Millisecond), where)
	stdout.Write(text)
	return 0
}

// parseTimings reads PE 0's lines: "tune COLL SIZE ALG US".
func parseTimings(b []byte) ([]topology.Timing, error) {
	var ts []topology.Timing
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || f[0] != "tune" {
			return nil, fmt.Errorf("timing job output line %d: %q", n, sc.Text())
		}
		var x topology.Timing
		c := slices.IndexFunc(topology.Collectives, func(c topology.Collective) bool { return c.String() == f[1] })
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		us, err2 := strconv.ParseFloat(f[4], 64)
		if c < 0 || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("timing job output line %d: %q", n, sc.Text())
		}
		x.Coll, x.Size, x.Alg, x.US = topology.Collectives[c], size, topology.Algorithm(f[3]), us
		ts = append(ts, x)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("the timing job measured nothing")
	}
	return ts, nil
}

// parseSizeRange reads MIN:MAX with K and M suffixes.
func parseSizeRange(s string) (int64, int64, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("want MIN:MAX, e.g. 8:1M")
	}
	lo, err := topology.ParseTableSize(a)
	if err != nil {
		return 0, 0, err
	}
	hi, err := topology.ParseTableSize(b)
	if err != nil {
		return 0, 0, err
	}
	if lo < 8 || hi < lo || hi > 64<<20 {
		return 0, 0, fmt.Errorf("want 8 <= MIN <= MAX <= 64M")
	}
	return lo, hi, nil
}

// tunePE is one PE of the timing job.
func tunePE(spec string, stdout, stderr io.Writer) int {
	var lo, hi int64
	var samples int
	if _, err := fmt.Sscanf(spec, "%d:%d %d", &lo, &hi, &samples); err != nil || lo < 8 || hi < lo || samples < 1 {
		fmt.Fprintf(stderr, "shmemrun: %s=%q: malformed\n", envTunePE, spec)
		return launch.StatusUsage
	}
	if err := shmem.Init(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer shmem.Finalize()
	npes := shmem.NPEs()
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	team := shmem.TeamWorld()
	for _, c := range tuned {
		sizes := []int64{8}
		if c != topology.Barrier {
			sizes = sizes[:0]
			for s := lo; s <= hi; s *= 2 {
				// alltoall's buffers hold a block per PE, twice: keep them in the default heap
				if c == topology.AllToAll && s*int64(npes) > 32<<20 {
					break
				}
				sizes = append(sizes, s)
			}
		}
		for _, size := range sizes {
			op, err := collOp(c, team, int(size), npes)
			if err != nil {
				fmt.Fprintf(stderr, "shmemrun --tune: %v\n", err)
				return 1
			}
			algs := topology.Algorithms(c)
			times := make([][]float64, len(algs))
			// Calls per sample: enough that a sample outlasts the clock and the closing
			// barrier, few at large sizes. Every PE computes the same counts.
			calls := int(max(2, min(200, (256<<10)/size)))
			for s := 0; s <= samples; s++ { // sample 0 warms up
				for i, a := range algs {
					if err := rt.ForceAlgorithm(c, string(a)); err != nil {
						fmt.Fprintln(stderr, err)
						return 1
					}
					shmem.BarrierAll()
					t0 := time.Now()
					for range calls {
						op()
					}
					shmem.BarrierAll()
					el := time.Since(t0)
					if s > 0 {
						times[i] = append(times[i], float64(el.Nanoseconds())/1e3/float64(calls))
					}
				}
			}
			if err := rt.ForceAlgorithm(c, "auto"); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			if shmem.MyPE() == 0 {
				for i, a := range algs {
					slices.Sort(times[i])
					fmt.Fprintf(w, "tune %s %d %s %.4g\n", c, size, a, times[i][len(times[i])/2])
				}
			}
			op = nil
		}
	}
	return 0
}

// collOp is one call of c over team at size bytes per PE, on buffers allocated now.
func collOp(c topology.Collective, team shmem.Team, size, npes int) (func(), error) {
	n := max(size/8, 1)
	switch c {
	case topology.Barrier:
		return shmem.BarrierAll, nil
	case topology.Bcast:
		dst, err := shmem.Malloc[int64](n)
		if err != nil {
			return nil, err
		}
		src, err := shmem.Malloc[int64](n)
		if err != nil {
			return nil, err
		}
		return func() { must(shmem.Broadcast(team, dst, src, 0)) }, nil
	case topology.Reduce:
		dst, err := shmem.Malloc[int64](n)
		if err != nil {
			return nil, err
		}
		src, err := shmem.Malloc[int64](n)
		if err != nil {
			return nil, err
		}
		return func() { must(shmem.SumReduce(team, dst, src)) }, nil
	case topology.FCollect:
		dst, err := shmem.Malloc[int64](n * npes)
		if err != nil {
			return nil, err
		}
		src, err := shmem.Malloc[int64](n)
		if err != nil {
			return nil, err
		}
		return func() { must(shmem.FCollect(team, dst, src)) }, nil
	case topology.AllToAll:
		dst, err := shmem.Malloc[int64](n * npes)
		if err != nil {
			return nil, err
		}
		src, err := shmem.Malloc[int64](n * npes)
		if err != nil {
			return nil, err
		}
		return func() { must(shmem.AllToAll(team, dst, src, n)) }, nil
	}
	return nil, fmt.Errorf("no timing for %s", c)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
