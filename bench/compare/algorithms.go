package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// --algorithms: goshmem's collectives with auto against each algorithm forced by its
// SHMEM_*_ALGORITHM, per size, in one table; the algorithm auto chose (from shmemrun
// --dry-run's table of the same job) is marked, and auto/best says how far auto is from the
// fastest forced one. Each (operation, variant) is one run of the suite, an operation's
// variants back to back, repetitions alternating their order; the table shows medians.

// collAlgs is what --algorithms forces for one operation of bench/osu.
type collAlgs struct {
	coll  string   // the collective's name in shmemrun --dry-run's table
	env   string   // the variable that forces an algorithm
	algs  []string // its values
	bytes int64    // bytes per element (the dry-run table is in bytes per PE); 0: no size
}

// algorithmOps are the operations --algorithms runs, in bench/FORMAT.md's order. collect64
// has one algorithm only (linear) and is left out.
var algorithmOps = []struct {
	op string
	collAlgs
}{
	{"barrier", collAlgs{"barrier", "SHMEM_BARRIER_ALGORITHM", []string{"linear", "tree", "dissem"}, 0}},
	{"broadcast64", collAlgs{"bcast", "SHMEM_BCAST_ALGORITHM", []string{"linear", "tree"}, 8}},
	{"fcollect64", collAlgs{"fcollect", "SHMEM_FCOLLECT_ALGORITHM", []string{"linear", "ring"}, 8}},
	{"reduce_int_sum", collAlgs{"reduce", "SHMEM_REDUCE_ALGORITHM", []string{"linear", "tree", "direct", "ring"}, 4}},
	{"reduce_long_sum", collAlgs{"reduce", "SHMEM_REDUCE_ALGORITHM", []string{"linear", "tree", "direct", "ring"}, 8}},
	{"reduce_double_sum", collAlgs{"reduce", "SHMEM_REDUCE_ALGORITHM", []string{"linear", "tree", "direct", "ring"}, 8}},
	{"reduce_long_or", collAlgs{"reduce", "SHMEM_REDUCE_ALGORITHM", []string{"linear", "tree", "direct", "ring"}, 8}},
	{"reduce_int_min", collAlgs{"reduce", "SHMEM_REDUCE_ALGORITHM", []string{"linear", "tree", "direct", "ring"}, 4}},
	{"alltoall64", collAlgs{"alltoall", "SHMEM_ALLTOALL_ALGORITHM", []string{"direct", "pairwise"}, 8}},
	{"alltoalls64", collAlgs{"alltoall", "SHMEM_ALLTOALL_ALGORITHM", []string{"direct", "pairwise"}, 8}},
}

const defaultDryRunCmd = "go run ./cmd/shmemrun -n {npes} --bind-to core --dry-run ./bench/osu"

// algorithmsOf is the forced algorithms of op, or false when --algorithms does not run it.
func algorithmsOf(op string) (collAlgs, bool) {
	for _, o := range algorithmOps {
		if o.op == op {
			return o.collAlgs, true
		}
	}
	return collAlgs{}, false
}

// span is one range of a dry-run choice line: alg from lo to hi bytes (hi < 0: no end),
// chosen by src ("table", "model"; empty when the job has no tuning table).
type span struct {
	alg    string
	lo, hi int64
	src    string
}

// ParseChoices reads the table shmemrun --dry-run prints under "collective algorithms over
// all N PEs": one line per collective, "reduce    linear 8 B-64 KiB, direct 128 KiB-", or
// "barrier   dissem" without sizes. With a tuning table each span ends in its source,
// "pairwise 1 KiB (table), direct 2 KiB-1 MiB (table), pairwise 2 MiB- (model)", and a
// span of one size class has no '-'.
func ParseChoices(text string) (map[string][]span, error) {
	out := map[string][]span{}
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "collective algorithms over ") {
			in = true
			continue
		}
		if !in {
			continue
		}
		coll, rest, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || coll == "" || strings.HasPrefix(line, " ") {
			break // the table ends at the first line that is not a collective's
		}
		for _, part := range strings.Split(strings.TrimSpace(rest), ", ") {
			s, err := parseSpan(part)
			if err != nil {
				return nil, fmt.Errorf("dry-run table: %q: %v", line, err)
			}
			out[coll] = append(out[coll], s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dry-run output has no table of collective algorithms")
	}
	return out, nil
}

// ChoiceSources is where the dry run says auto's choices come from: its "tuning table:"
// and "cost model:" lines, for the table's notes.
func ChoiceSources(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "tuning table: ") || strings.HasPrefix(line, "cost model: ") {
			out = append(out, "auto's "+line)
		}
	}
	return out
}

// parseSpan reads one span: "alg", "alg 8 B-", "alg 8 B-64 KiB" or "alg 1 KiB", each
// optionally followed by " (source)".
func parseSpan(part string) (span, error) {
	s := span{lo: 0, hi: -1}
	if i := strings.LastIndex(part, " ("); i >= 0 && strings.HasSuffix(part, ")") {
		part, s.src = part[:i], part[i+2:len(part)-1]
	}
	alg, rng, hasRange := strings.Cut(part, " ")
	s.alg = alg
	if !hasRange {
		return s, nil
	}
	loText, hiText, isRange := strings.Cut(rng, "-")
	var err error
	if s.lo, err = parseBytes(loText); err != nil {
		return s, err
	}
	switch {
	case !isRange:
		s.hi = s.lo
	case hiText != "":
		if s.hi, err = parseBytes(hiText); err != nil {
			return s, err
		}
	}
	return s, nil
}

// parseBytes reads "8 B", "64 KiB", "1 MiB", "2 GiB".
func parseBytes(s string) (int64, error) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	mult := map[string]int64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || mult == 0 || err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// Chosen is the algorithm the spans give at nbytes; the table is by power-of-two sizes and
// the runtime prices a size at the power of two at or above it, so nbytes is rounded up.
func Chosen(spans []span, nbytes int64) string {
	class := int64(1)
	for class < nbytes {
		class *= 2
	}
	for _, s := range spans {
		if s.lo <= class && (s.hi < 0 || class <= s.hi) {
			return s.alg
		}
	}
	if len(spans) > 0 && class < spans[0].lo {
		return spans[0].alg // below the table's first size
	}
	return ""
}

// runAlgorithms gathers the records of every variant: auto and each forced algorithm of
// the operations asked for (-o, else all of algorithmOps). Records keep impl "goshmem"
// from the suite and carry the variant in Impl after the run ("auto", "linear", ...).
func runAlgorithms(cfg config, dir string, stderr io.Writer) ([]Record, map[string][]span, []string, error) {
	ops := algorithmOpsAsked(cfg.benchArgs)
	if len(ops) == 0 {
		return nil, nil, nil, fmt.Errorf("--algorithms: -o names no collective it forces (%s)", strings.Join(opNames(), ", "))
	}
	dry := strings.ReplaceAll(cfg.dryRunCmd, "{npes}", strconv.Itoa(cfg.npes))
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", dry)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, nil, fmt.Errorf("--algorithms: %s: %v", dry, err)
	}
	choices, err := ParseChoices(out.String())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--algorithms: %s: %v", dry, err)
	}
	// One run per operation and variant (auto, then each forced algorithm), the variants of
	// an operation back to back: this VM moves between two speeds every few minutes (a
	// cache-line round trip near 0.1 or 0.35 µs), and runs minutes apart were compared
	// across them (a forced ring reduction "faster" than linear by 2x).
	base := strings.ReplaceAll(cfg.goshmemCmd, "{npes}", strconv.Itoa(cfg.npes))
	type variant struct {
		name, env string
	}
	failed := map[string]bool{}
	var recs []Record
	notes, loads := ChoiceSources(out.String()), []string(nil)
	if slices.Contains(cfg.benchArgs, "-touch") {
		notes = append(notes, "-touch: each call's source written before it and its result read after, inside the timing (not FORMAT.md's loop)")
	}
	for rep := 1; rep <= cfg.reps; rep++ {
		if l, ok := loadAverage(); ok {
			loads = append(loads, l)
		}
		for _, op := range ops {
			ca, _ := algorithmsOf(op)
			vs := []variant{{"auto", ""}}
			for _, alg := range ca.algs {
				vs = append(vs, variant{alg, ca.env + "=" + alg})
			}
			if rep%2 == 0 {
				slices.Reverse(vs)
			}
			for _, v := range vs {
				label := op + " " + v.name
				if failed[label] {
					continue
				}
				args := append([]string{"--json"}, withoutOps(cfg.benchArgs)...)
				r := &runner{impl: implGoshmem, cmd: base, args: append(args, "-o", op)}
				if v.env != "" {
					r.env = []string{v.env}
				}
				fmt.Fprintf(stderr, "compare: repetition %d/%d: %s %s %s\n", rep, cfg.reps, v.env, r.cmd, strings.Join(r.args, " "))
				got, note := r.run(dir, rep, stderr)
				for i := range got {
					got[i].Impl = v.name
				}
				recs = append(recs, got...)
				if note != "" {
					notes = append(notes, label+": "+note)
				}
				failed[label] = r.failed
			}
		}
	}
	if len(loads) > 0 {
		notes = append(notes, "load average (1 min) at the start of each repetition: "+strings.Join(loads, ", "))
	}
	return recs, choices, notes, nil
}

func opNames() []string {
	var names []string
	for _, o := range algorithmOps {
		names = append(names, o.op)
	}
	return names
}

// algorithmOpsAsked is the operations of -o that --algorithms runs, or all of them.
func algorithmOpsAsked(benchArgs []string) []string {
	for i := 0; i+1 < len(benchArgs); i++ {
		if benchArgs[i] == "-o" {
			var ops []string
			for _, op := range strings.Split(benchArgs[i+1], ",") {
				if _, ok := algorithmsOf(op); ok {
					ops = append(ops, op)
				}
			}
			return ops
		}
	}
	return opNames()
}

func withoutOps(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-o" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// AlgRow is one line of the --algorithms table.
type AlgRow struct {
	Op     string
	Size   int64
	Unit   string
	Auto   float64            // 0: missing
	Forced map[string]float64 // algorithm -> µs
	Algs   []string           // the columns, in order
	Chosen string
}

// Best is the fastest forced algorithm and its time.
func (r AlgRow) Best() (string, float64) {
	best, t := "", 0.0
	for _, a := range r.Algs {
		if v, ok := r.Forced[a]; ok && (best == "" || v < t) {
			best, t = a, v
		}
	}
	return best, t
}

// Off reports whether auto's choice misses the fastest forced algorithm by more than the
// issue's bound, 1.15× and 0.05 µs both: the forced run of the chosen algorithm against
// the fastest forced run. The choice is shmemrun --dry-run's before the first job: with an
// empty cache the default model's, where auto's jobs after the first use the model the
// first one calibrated; AutoOff judges those.
func (r AlgRow) Off() bool {
	_, t := r.Best()
	c, ok := r.Forced[r.Chosen]
	return ok && offBy(c, t)
}

// AutoOff reports whether auto's own run misses the fastest forced algorithm by more than
// the same bound: the criterion, which also catches run-to-run modes of its code.
func (r AlgRow) AutoOff() bool {
	_, t := r.Best()
	return r.Auto > 0 && offBy(r.Auto, t)
}

func offBy(us, best float64) bool { return best > 0 && us > 1.15*best && us-best > 0.05 }

// Ratio is auto's µs over the fastest forced µs.
func (r AlgRow) Ratio() (float64, bool) {
	_, t := r.Best()
	return r.Auto / t, r.Auto > 0 && t > 0
}

// ChosenRatio is the chosen algorithm's forced µs over the fastest forced µs.
func (r AlgRow) ChosenRatio() (float64, bool) {
	_, t := r.Best()
	c, ok := r.Forced[r.Chosen]
	return c / t, ok && t > 0
}

// BuildAlgRows turns the variants' medians into rows, operation by operation.
func BuildAlgRows(recs []Record, choices map[string][]span) []AlgRow {
	sums := Summarize(recs)
	var rows []AlgRow
	for _, o := range algorithmOps {
		var sizes []int64
		unit := ""
		for k, s := range sums {
			if k.Op == o.op && k.Impl == "auto" {
				sizes = append(sizes, k.Size)
				unit = s.Unit
			}
		}
		slices.Sort(sizes)
		for _, size := range sizes {
			r := AlgRow{Op: o.op, Size: size, Unit: unit, Forced: map[string]float64{}, Algs: o.algs}
			if s := sums[Key{"auto", o.op, size}]; s.N > 0 {
				r.Auto = s.US
			}
			for _, a := range o.algs {
				if s, ok := sums[Key{a, o.op, size}]; ok && s.N > 0 {
					r.Forced[a] = s.US
				}
			}
			r.Chosen = Chosen(choices[o.coll], size*o.bytes)
			rows = append(rows, r)
		}
	}
	return rows
}

// WriteAlgTable prints the rows: per collective a header naming its algorithms, then per
// size auto's µs, each forced algorithm's (auto's choice marked *), and auto/best.
func WriteAlgTable(w io.Writer, rows []AlgRow, npes, reps int, notes []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# goshmem's collectives: auto against each algorithm forced (SHMEM_*_ALGORITHM), %d PEs, medians of %d alternating repetitions\n", npes, reps)
	b.WriteString("# * = auto's choice (shmemrun --dry-run); auto/best = auto µs / the fastest forced µs; choice/best = the chosen algorithm's\n")
	b.WriteString("#   forced µs / the fastest forced µs; ! when more than 1.15x and 0.05 µs (auto runs its choice's code, but with an empty cache\n")
	b.WriteString("#   its jobs after the first use the model the first one calibrated, and auto/best also shows run-to-run modes)\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	last := ""
	off, autoOff := 0, 0
	for _, r := range rows {
		if r.Op != last {
			last = r.Op
			fmt.Fprintf(&b, "%-18s %9s %-5s %10s", r.Op, "size", "unit", "auto µs")
			for _, a := range r.Algs {
				fmt.Fprintf(&b, " %10s", a)
			}
			fmt.Fprintf(&b, " %11s %11s\n", "auto/best", "choice/best")
		}
		fmt.Fprintf(&b, "%-18s %9d %-5s %10s", "", r.Size, r.Unit, usOrDash(r.Auto))
		for _, a := range r.Algs {
			cell := "-"
			if v, ok := r.Forced[a]; ok {
				cell = formatUS(v)
			}
			if a == r.Chosen {
				cell += "*"
			} else {
				cell += " "
			}
			fmt.Fprintf(&b, " %10s", cell)
		}
		ratio, chosen := "-", "-"
		if v, ok := r.Ratio(); ok {
			ratio = fmt.Sprintf("%.2f", v)
			if r.AutoOff() {
				ratio += " !"
				autoOff++
			}
		}
		if v, ok := r.ChosenRatio(); ok {
			chosen = fmt.Sprintf("%.2f", v)
			if r.Off() {
				chosen += " !"
				off++
			}
		}
		fmt.Fprintf(&b, " %11s %11s\n", ratio, chosen)
	}
	fmt.Fprintf(&b, "# rows whose choice is off by more than 1.15x and 0.05 µs: %d of %d; whose auto run is: %d\n", off, len(rows), autoOff)
	_, err := io.WriteString(w, b.String())
	return err
}

func usOrDash(us float64) string {
	if us <= 0 {
		return "-"
	}
	return formatUS(us)
}

// runAlgorithmsMode is run for --algorithms.
func runAlgorithmsMode(cfg config, stdout, stderr io.Writer) error {
	dir := cfg.dir
	if dir == "" {
		dir = moduleRoot()
	}
	recs, choices, notes, err := runAlgorithms(cfg, dir, stderr)
	if err != nil {
		return err
	}
	if cfg.save != "" {
		if err := saveRecords(cfg.save, recs); err != nil {
			return err
		}
	}
	if len(recs) == 0 {
		fmt.Fprintln(os.Stderr, "compare: --algorithms: no records")
	}
	return WriteAlgTable(stdout, BuildAlgRows(recs, choices), cfg.npes, cfg.reps, notes)
}
