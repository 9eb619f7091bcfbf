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
	"unsafe"

	shmem "github.com/goshmem/shmem"
	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
)

// shmemrun --tune starts jobs of its own executable with envTunePE set: each PE runs
// tunePE, which times one collective at each size with the algorithm its
// SHMEM_<COLL>_ALGORITHM forces; PE 0 prints one line per size. One job per algorithm,
// because algorithms of a collective share the sync area's words with different protocols
// (counts consumed, epochs published): switching algorithms inside a job would let one
// read the other's leftovers. Machines drift (a VM's CPUs move between L3 domains), so the
// jobs run in rounds, every algorithm once a round, and each size takes the median over
// the rounds; the launcher turns the result into a table (topology.TableFromTimings).

const envTunePE = "GOSHMEM_TUNE_PE" // "COLL MIN:MAX SAMPLES"

// tuneRounds is how many timing jobs each algorithm gets. A job tends to run in one of a
// VM's placement modes from start to end; with 5 rounds a median still landed in the slow
// mode now and then (a 2-PE reduction's linear algorithm at 8 B to 1 KiB: 0.26 to 0.68 us
// from size to size of one table).
const tuneRounds = 9

// algVar is the setting that forces c's algorithm.
var algVar = map[topology.Collective]string{topology.Barrier: "SHMEM_BARRIER_ALGORITHM",
	topology.Bcast: "SHMEM_BCAST_ALGORITHM", topology.Reduce: "SHMEM_REDUCE_ALGORITHM",
	topology.FCollect: "SHMEM_FCOLLECT_ALGORITHM", topology.AllToAll: "SHMEM_ALLTOALL_ALGORITHM"}

// tuned are the collectives --tune times. collect (variable blocks) has one algorithm in
// the runtime, so there is nothing to choose.
var tuned = []topology.Collective{topology.Barrier, topology.Bcast, topology.Reduce, topology.FCollect, topology.AllToAll}

func runTune(o options, t *topology.Topology, bs []topology.Binding, stdout, stderr io.Writer) int {
	lo, hi, exe, status := tuneSetup(o, stderr)
	if status >= 0 {
		return status
	}
	machine := topology.MachineKey(t)
	layout := topology.LayoutOf(topology.PlaceMap(bs), 1)
	base := collEnv(os.Environ(), modelChoice{}, tableChoice{})
	rounds := min(tuneRounds, o.tuneSamples)
	got := map[topology.Timing][]float64{} // keyed with US 0
	t0 := time.Now()
	for range rounds {
		for _, c := range tuned {
			for _, a := range topology.Algorithms(c) {
				env := append(slices.Clip(base), algVar[c]+"="+string(a), fmt.Sprintf("%s=%s %d:%d %d", envTunePE, c, lo, hi, o.tuneSamples))
				var out bytes.Buffer
				status, err := launch.Run(launch.Config{NPEs: o.n, Prog: exe, Env: env, Stdout: &out, Stderr: stderr,
					Timeout: o.timeout, Signals: true, Bindings: bs, Topology: t})
				if err != nil || status != 0 {
					fmt.Fprintf(stderr, "shmemrun: --tune: the timing job of %s %s failed (status %d): %v\n", c, a, status, err)
					return max(status, 1)
				}
				r, err := parseTuneOutput(out.Bytes())
				if err != nil {
					fmt.Fprintf(stderr, "shmemrun: --tune: %v\n", err)
					return 1
				}
				for _, x := range r.timings {
					us := x.US
					x.US = 0
					got[x] = append(got[x], us)
				}
			}
		}
	}
	// Ties go to the model of the jobs this table will steer: the cached (or just
	// calibrated) one, over these PEs' places.
	model := topology.DefaultCostModel()
	if m := jobModel(t, stderr); m.text != nil {
		model = m.file.Model
	}
	places := topology.PlaceMap(bs)
	prefer := func(c topology.Collective, size int64) topology.Algorithm {
		a, _ := topology.ChooseTuned(c, places, int(size), model, nil)
		return a
	}
	tbl := topology.TableFromTimings(machine, layout, medianTimings(got), prefer)
	return writeTable(tbl, fmt.Sprintf("%d PEs", o.n), t0, stdout, stderr)
}

// tuneSetup checks --tune's sizes and samples and finds shmemrun's executable (the timing
// jobs' program); status is -1 when all is well, else the status to exit with.
func tuneSetup(o options, stderr io.Writer) (lo, hi int64, exe string, status int) {
	lo, hi, err := parseSizeRange(o.tuneSizes)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: --tune-sizes %s: %v\n", o.tuneSizes, err)
		return 0, 0, "", launch.StatusUsage
	}
	if o.tuneSamples < 1 || o.tuneSamples > 1000 {
		fmt.Fprintf(stderr, "shmemrun: --tune-samples %d: want 1 to 1000\n", o.tuneSamples)
		return 0, 0, "", launch.StatusUsage
	}
	if exe, err = os.Executable(); err != nil {
		fmt.Fprintf(stderr, "shmemrun: --tune: finding shmemrun's executable: %v\n", err)
		return 0, 0, "", 1
	}
	return lo, hi, exe, -1
}

// runTuneCluster is --tune with --hosts (or --launcher): the timing jobs run across the
// nodes through the PMIx launcher, as the jobs they tune will, with shmemrun itself as the
// program (built with the many-node engine). PE 0 reports its node's machine and the job's
// layout as the runtime sees them (the table's key), and the network level it measured
// to a PE of another node; the table goes into this machine's cache directory (on a
// cluster, usually the shared home the nodes read theirs from).
func runTuneCluster(c *clusterFlags, o options, stdout, stderr io.Writer) int {
	lo, hi, exe, status := tuneSetup(o, stderr)
	if status >= 0 {
		return status
	}
	if !rt.NetEngineBuilt() {
		fmt.Fprintf(stderr, "shmemrun: --tune --hosts: this shmemrun (%s) has no many-node engine, and its timing jobs run across the nodes: "+
			"go install -tags goshmem_ucx github.com/goshmem/shmem/cmd/shmemrun (needs cgo, libucx-dev and libpmix-dev)\n", exe)
		return launch.StatusUsage
	}
	rounds := min(tuneRounds, o.tuneSamples)
	got := map[topology.Timing][]float64{}
	var machine string
	var layout topology.Layout
	var lats, bws []float64
	t0 := time.Now()
	for range rounds {
		for _, coll := range tuned {
			for _, a := range topology.Algorithms(coll) {
				extra := []string{algVar[coll] + "=" + string(a), fmt.Sprintf("%s=%s %d:%d %d", envTunePE, coll, lo, hi, o.tuneSamples)}
				environ := append(collEnv(os.Environ(), modelChoice{}, tableChoice{}), extra...)
				p, _, err := planCluster(c, o, exe, nil, func(k string) string { return envValue(environ, k) }, environ, os.Geteuid() == 0)
				if err != nil {
					fmt.Fprintf(stderr, "shmemrun: %v\n", err)
					return launch.StatusUsage
				}
				env, argv := p.command()
				var out bytes.Buffer
				if status := runLauncher(append(env, extra...), argv, o.timeout, false, &out, stderr); status != 0 {
					fmt.Fprintf(stderr, "shmemrun: --tune: the timing job of %s %s failed (status %d)\n", coll, a, status)
					return max(status, 1)
				}
				r, err := parseTuneOutput(out.Bytes())
				if err != nil {
					fmt.Fprintf(stderr, "shmemrun: --tune: %v\n", err)
					return 1
				}
				if r.machine == "" || r.layout.Nodes == 0 {
					fmt.Fprintf(stderr, "shmemrun: --tune: the timing job did not say its machine and layout\n")
					return 1
				}
				machine, layout = r.machine, r.layout
				if r.net.BW > 0 {
					lats, bws = append(lats, float64(r.net.Lat)), append(bws, float64(r.net.BW))
				}
				for _, x := range r.timings {
					us := x.US
					x.US = 0
					got[x] = append(got[x], us)
				}
			}
		}
	}
	// No model breaks ties here: the table steers each node's phase, over places on the
	// nodes that this launcher does not see; the simpler algorithm keeps a tie.
	tbl := topology.TableFromTimings(machine, layout, medianTimings(got), nil)
	if len(lats) > 0 {
		tbl.Net = topology.NetLevel{Lat: time.Duration(median(lats)), BW: int64(median(bws))}
	}
	return writeTable(tbl, fmt.Sprintf("%d PEs on %d nodes", layout.Nodes*layout.PEsPerNode, layout.Nodes), t0, stdout, stderr)
}

// envValue is key's value in environ (the last one wins, as in exec).
func envValue(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, x, ok := strings.Cut(kv, "="); ok && k == key {
			v = x
		}
	}
	return v
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// medianTimings is each timing's median over the rounds.
func medianTimings(got map[topology.Timing][]float64) []topology.Timing {
	var ts []topology.Timing
	for k, v := range got {
		k.US = median(v)
		ts = append(ts, k)
	}
	return ts
}

// writeTable writes tbl into the cache and prints where and the table.
func writeTable(tbl *topology.Table, what string, t0 time.Time, stdout, stderr io.Writer) int {
	text := topology.FormatTable(tbl)
	dir, err := cacheDir()
	where := "not written: " + fmt.Sprint(err)
	if err == nil {
		path := filepath.Join(dir, topology.TableFileName(tbl.Machine, tbl.Layout))
		if err := topology.WriteCacheFile(path, text); err != nil {
			fmt.Fprintf(stderr, "shmemrun: --tune: %v\n", err)
			return 1
		}
		where = path
	}
	fmt.Fprintf(stdout, "tuned %s in %v: %s\n", what, time.Since(t0).Round(time.Millisecond), where)
	stdout.Write(text)
	return 0
}

// tuneOutput is what a timing job's PE 0 printed.
type tuneOutput struct {
	timings []topology.Timing
	machine string          // "tunejob machine KEY" (jobs across nodes)
	layout  topology.Layout // "tunejob layout nodes=..."
	net     topology.NetLevel
}

// parseTuneOutput reads PE 0's lines: "tune COLL SIZE ALG US", and across nodes
// "tunejob machine KEY", "tunejob layout LAYOUT", "tunenet LATENCY_US BANDWIDTH_MBS".
func parseTuneOutput(b []byte) (tuneOutput, error) {
	var r tuneOutput
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		f := strings.Fields(line)
		bad := fmt.Errorf("timing job output line %d: %q", n, line)
		switch {
		case len(f) > 2 && f[0] == "tunejob" && f[1] == "machine":
			r.machine = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "tunejob machine"))
			continue
		case len(f) > 2 && f[0] == "tunejob" && f[1] == "layout":
			t, err := topology.ParseTable("timing job", []byte("machine m\nlayout "+strings.Join(f[2:], " ")+"\n"))
			if err != nil {
				return r, bad
			}
			r.layout = t.Layout
			continue
		case len(f) == 3 && f[0] == "tunenet":
			lat, err1 := strconv.ParseFloat(f[1], 64)
			bw, err2 := strconv.ParseFloat(f[2], 64)
			if err1 != nil || err2 != nil || !(lat > 0) || !(bw >= 1) {
				return r, bad
			}
			r.net = topology.NetLevel{Lat: time.Duration(lat * float64(time.Microsecond)), BW: int64(bw)}
			continue
		}
		if len(f) != 5 || f[0] != "tune" {
			return r, bad
		}
		var x topology.Timing
		c := slices.IndexFunc(topology.Collectives, func(c topology.Collective) bool { return c.String() == f[1] })
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		us, err2 := strconv.ParseFloat(f[4], 64)
		if c < 0 || err1 != nil || err2 != nil {
			return r, bad
		}
		x.Coll, x.Size, x.Alg, x.US = topology.Collectives[c], size, topology.Algorithm(f[3]), us
		r.timings = append(r.timings, x)
	}
	if len(r.timings) == 0 {
		return r, fmt.Errorf("the timing job measured nothing")
	}
	return r, nil
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

// tunePE is one PE of a timing job: spec names the collective, the sizes and the samples;
// the algorithm is the one the environment forces.
func tunePE(spec string, stdout, stderr io.Writer) int {
	var lo, hi int64
	var samples int
	var name string
	if _, err := fmt.Sscanf(spec, "%s %d:%d %d", &name, &lo, &hi, &samples); err != nil || lo < 8 || hi < lo || samples < 1 {
		fmt.Fprintf(stderr, "shmemrun: %s=%q: malformed\n", envTunePE, spec)
		return launch.StatusUsage
	}
	ci := slices.IndexFunc(tuned, func(c topology.Collective) bool { return c.String() == name })
	if ci < 0 {
		fmt.Fprintf(stderr, "shmemrun: %s=%q: no collective %q\n", envTunePE, spec, name)
		return launch.StatusUsage
	}
	c := tuned[ci]
	alg := strings.ToLower(os.Getenv(algVar[c]))
	if err := shmem.Init(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer shmem.Finalize()
	npes := shmem.NPEs()
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	far := -1 // a PE on another node than PE 0
	for pe := range npes {
		if !rt.Local(pe) {
			far = pe
			break
		}
	}
	if far >= 0 && shmem.MyPE() == 0 { // across nodes: the table's key, as the runtime sees it
		t, err := topology.Read("")
		if err != nil {
			fmt.Fprintf(stderr, "shmemrun --tune: %v\n", err)
			return 1
		}
		fmt.Fprintf(w, "tunejob machine %s\n", topology.MachineKey(t))
		fmt.Fprintf(w, "tunejob layout %s\n", rt.JobLayout())
	}
	if far >= 0 && c == topology.Barrier {
		if err := measureNet(w, far, min(samples, 7)); err != nil { // 4 MiB a sample: a few suffice
			fmt.Fprintf(stderr, "shmemrun --tune: %v\n", err)
			return 1
		}
	}
	team := shmem.TeamWorld()
	sum, err := shmem.Malloc[float64](2) // meanOverPEs's source and result
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun --tune: %v\n", err)
		return 1
	}
	defer shmem.Free(sum)
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
		op, free, err := collOp(c, team, int(size), npes)
		if err != nil {
			fmt.Fprintf(stderr, "shmemrun --tune: %v\n", err)
			return 1
		}
		batch := 1
		if c == topology.Barrier {
			batch = barrierBatch
		}
		n := samples
		if size > tuneSmall {
			n = max(1, samples/10) // as bench/osu times collectives above 64 KiB
		}
		us := meanOverPEs(timeCalls(op, n, batch), sum)
		free()
		if shmem.MyPE() == 0 {
			fmt.Fprintf(w, "tune %s %d %s %.4g\n", c, size, alg, us)
		}
	}
	return 0
}

// tuneWarmup is how many untimed samples precede a size's; barrierBatch is how many
// barriers one sample times, back to back, as bench/osu does (a barrier after a barrier
// prices the PEs' skew leaving the first one as much as the second).
const (
	tuneWarmup   = 3
	barrierBatch = 100
)

// tuneSmall is the largest message (bytes per PE) timed with all of --tune-samples; larger
// ones take a tenth, as bench/osu's 500 and 50. Fewer samples mislead at small sizes: with
// 31 a Zen 5 VM's 2-PE reductions of 128 B-1 KiB came out direct 0.51 against linear
// 0.64-0.69 µs in two tunes, where bench/osu's 500 then timed direct at 0.81-0.87 and linear
// at 0.51-0.74; --tune with 500 timed linear faster there too (0.41-0.63) and wrote linear
// up to 32 KiB, as the model chooses.
const tuneSmall = 64 << 10

// timeCalls is this PE's median time of one call of op, in µs, over samples of batch calls,
// each sample right after a barrier: the way bench/osu (and OSU) time a collective (batch
// 1), and what a program calling it between phases of work sees. Back-to-back calls would
// price a pipelined stream instead, where an eager broadcast's root waits for its slots to
// empty and its members' copies overlap the next message: there a 2-PE tree broadcast of
// 128 B came out ahead of linear (0.72 against 0.90 us), while after a barrier the linear
// one's root returns in 0.08 us and the tree's in 0.61 (Zen 5 VM, cores apart).
func timeCalls(op func(), samples, batch int) float64 {
	times := make([]float64, 0, samples)
	for s := -tuneWarmup; s < samples; s++ {
		shmem.BarrierAll()
		t0 := time.Now()
		for range batch {
			op()
		}
		if s >= 0 {
			times = append(times, float64(time.Since(t0).Nanoseconds())/1e3/float64(batch))
		}
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// meanOverPEs is the mean of every PE's us, on every PE: the figure bench/osu reports (OSU's
// average latency) and auto is judged by. PE 0's median alone falls into one of two modes
// per job on 2-vCPU VMs (one PE about 0.1 us slower, which one changing from job to job),
// where the mean stays put; the slowest PE's ranks some algorithms the other way round
// (2-PE reductions of 128 B-1 KiB: linear's root returns in 0.20 us, direct's in 0.35, but
// linear's other PE takes 0.64 against direct's 0.52).
func meanOverPEs(us float64, sum []float64) float64 {
	sum[0] = us
	must(shmem.SumReduce(shmem.TeamWorld(), sum[1:2], sum[:1]))
	return sum[1] / float64(shmem.NPEs())
}

// measureNet has PE 0 measure the network level of the cost model to PE far (on another
// node; rt.MeasureNet) and print "tunenet LATENCY_US BANDWIDTH_MBS". The other PEs wait in
// a barrier (which progresses far's engine).
func measureNet(w io.Writer, far, samples int) error {
	buf, err := shmem.Malloc[byte](2 * rt.MeasureNetBytes)
	if err != nil {
		return err
	}
	defer shmem.Free(buf)
	if shmem.MyPE() == 0 {
		dst, src := unsafe.Pointer(&buf[0]), unsafe.Pointer(&buf[rt.MeasureNetBytes])
		n := rt.MeasureNet(far, samples, dst, src)
		fmt.Fprintf(w, "tunenet %.2f %d\n", float64(n.Lat.Nanoseconds())/1e3, n.BW)
	}
	shmem.BarrierAll()
	return nil
}

// collOp is one call of c over team at size bytes per PE, on buffers allocated now, and
// the function that frees them (collectively).
func collOp(c topology.Collective, team shmem.Team, size, npes int) (op func(), free func(), err error) {
	n := max(size/8, 1)
	var bufs [][]int64
	free = func() {
		for _, b := range bufs {
			shmem.Free(b)
		}
	}
	alloc := func(k int) []int64 {
		if err != nil {
			return nil
		}
		var b []int64
		if b, err = shmem.Malloc[int64](k); err == nil {
			bufs = append(bufs, b)
		}
		return b
	}
	switch c {
	case topology.Barrier:
		op = shmem.BarrierAll
	case topology.Bcast:
		dst, src := alloc(n), alloc(n)
		op = func() { must(shmem.Broadcast(team, dst, src, 0)) }
	case topology.Reduce:
		dst, src := alloc(n), alloc(n)
		op = func() { must(shmem.SumReduce(team, dst, src)) }
	case topology.FCollect:
		dst, src := alloc(n*npes), alloc(n)
		op = func() { must(shmem.FCollect(team, dst, src)) }
	case topology.AllToAll:
		dst, src := alloc(n*npes), alloc(n*npes)
		op = func() { must(shmem.AllToAll(team, dst, src, n)) }
	default:
		return nil, nil, fmt.Errorf("no timing for %s", c)
	}
	return op, free, err
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
