// Command compare runs goshmem's benchmark suite and the Open MPI OSHMEM peer side by side,
// with the same method and flags, alternating, a few repetitions each, together with the
// machine's limits (bench/limits); it prints one table of medians (goshmem µs, OSHMEM µs,
// their ratio and each one's distance to the limit) and can draw them as an SVG.
//
//	go run ./bench/compare [--reps 3] [-n 2] [-m MIN:MAX] [-i N] [-x N] [-f] [-o OPS]
//	                       [--plot FILE.svg] [--save FILE.json] [--json-in A.json,B.json]
//	go run ./bench/compare --nodes 2 [--per-node 1] [...]    (across fake nodes, root)
//	go run ./bench/compare --algorithms [--reps 3] [-o OPS] [-m MIN:MAX] (auto against each forced algorithm)
//
// With --nodes, both sides and the limit (raw UCX, bench/ucxlimit) run across the fake
// nodes of scripts/fakenodes (multinode.go).
//
// bench/FORMAT.md defines the method, the operations and the JSON lines read here.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	defaultGoshmemCmd = "go run ./cmd/shmemrun -n {npes} --bind-to core ./bench/osu"
	defaultPeerCmd    = "bench/peer/run.sh"
	defaultLimitsCmd  = "go run ./bench/limits"
	modulePath        = "github.com/goshmem/shmem"
)

// config is the parsed command line.
type config struct {
	reps       int
	npes       int
	goshmemCmd string
	peerCmd    string
	limitsCmd  string
	benchArgs  []string // the suites' flags, passed to both, after --json
	plot       string
	save       string
	jsonIn     []string
	dir        string
	nodes      int // 0: one machine; from 2: across that many fake nodes
	perNode    int // PEs per node with nodes
	timeout    time.Duration
	algorithms bool   // auto against each forced algorithm (algorithms.go)
	dryRunCmd  string // with algorithms: the job's shmemrun --dry-run, for auto's choices
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.IntVar(&c.reps, "reps", 3, "repetitions of each side, alternating which runs first")
	fs.IntVar(&c.npes, "n", 2, "PEs of each run; {npes} in --goshmem-cmd and NPES for --peer-cmd")
	fs.StringVar(&c.goshmemCmd, "goshmem-cmd", defaultGoshmemCmd, "shell command running goshmem's suite; --json and the suite flags are appended; empty: skip")
	fs.StringVar(&c.peerCmd, "peer-cmd", defaultPeerCmd, "shell command running the OSHMEM peer; --json and the suite flags are appended; empty: skip")
	fs.StringVar(&c.limitsCmd, "limits-cmd", defaultLimitsCmd, "shell command measuring the limits; --json is appended; empty: skip")
	sizes := fs.String("m", "", "sizes `MIN:MAX`, passed to both suites")
	iters := fs.String("i", "", "timed samples per size, passed to both suites")
	warmup := fs.String("x", "", "warm-up samples per size, passed to both suites")
	full := fs.Bool("f", false, "ask both suites for min/max/avg over PEs (kept in --save; the table shows their mean, us)")
	ops := fs.String("o", "", "comma-separated operations, passed to both suites")
	fs.StringVar(&c.plot, "plot", "", "write latency against size as an SVG to `FILE.svg`")
	fs.StringVar(&c.save, "save", "", "write every record gathered, with its repetition, as JSON lines to `FILE`")
	jsonIn := fs.String("json-in", "", "re-render from saved JSON lines `A.json,B.json` instead of running anything")
	fs.IntVar(&c.nodes, "nodes", 0, "run both sides and the UCX limit across `N` fake nodes (scripts/fakenodes; root); -n is then N × --per-node")
	fs.IntVar(&c.perNode, "per-node", 1, "PEs per node with --nodes (placed round-robin: PE 0 and PE 1 on different nodes)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Minute, "with --nodes, kill a run (on every node) after this long")
	fs.BoolVar(&c.algorithms, "algorithms", false, "goshmem only: auto against each algorithm forced by SHMEM_*_ALGORITHM, per collective and size, auto's choice marked")
	touch := fs.Bool("touch", false, "with --algorithms: the suite's -touch (each collective call's source written before it, its result read after)")
	fs.StringVar(&c.dryRunCmd, "dry-run-cmd", defaultDryRunCmd, "with --algorithms: shell command printing the job's shmemrun --dry-run (auto's choices)")
	fs.StringVar(&c.dir, "dir", "", "directory the commands run in (default: the goshmem module's root above the current directory)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.algorithms && (c.nodes != 0 || fs.Lookup("json-in").Value.String() != "") {
		return c, fmt.Errorf("--algorithms runs goshmem on one machine: not with --nodes or --json-in")
	}
	if *touch && !c.algorithms {
		return c, fmt.Errorf("--touch: only with --algorithms (the OSHMEM peer runs FORMAT.md's loop, which has no such mode)")
	}
	if c.reps < 1 {
		return c, fmt.Errorf("--reps: want at least 1, have %d", c.reps)
	}
	if c.npes < 1 {
		return c, fmt.Errorf("-n: want at least 1 PE, have %d", c.npes)
	}
	if c.nodes != 0 {
		if c.nodes < 2 || c.nodes > 254 {
			return c, fmt.Errorf("--nodes: want 2 to 254 fake nodes, have %d", c.nodes)
		}
		if c.perNode < 1 || c.perNode > 1024 {
			return c, fmt.Errorf("--per-node: want 1 to 1024 PEs per node, have %d", c.perNode)
		}
		nSet := false
		fs.Visit(func(f *flag.Flag) { nSet = nSet || f.Name == "n" })
		if nSet && c.npes != c.nodes*c.perNode {
			return c, fmt.Errorf("-n %d disagrees with --nodes %d × --per-node %d (leave -n out)", c.npes, c.nodes, c.perNode)
		}
		c.npes = c.nodes * c.perNode
		if c.timeout <= 0 {
			return c, fmt.Errorf("--timeout: want a positive duration, have %v", c.timeout)
		}
	}
	for _, f := range []struct {
		name, v string
		least   int
	}{{"-i", *iters, 1}, {"-x", *warmup, 0}} {
		if f.v == "" {
			continue
		}
		if n, err := strconv.Atoi(f.v); err != nil || n < f.least {
			return c, fmt.Errorf("%s: want a count of at least %d, have %q", f.name, f.least, f.v)
		}
	}
	for _, f := range []struct{ name, v string }{{"-m", *sizes}, {"-i", *iters}, {"-x", *warmup}, {"-o", *ops}} {
		if f.v != "" {
			c.benchArgs = append(c.benchArgs, f.name, f.v)
		}
	}
	if *full {
		c.benchArgs = append(c.benchArgs, "-f")
	}
	if *touch {
		c.benchArgs = append(c.benchArgs, "-touch")
	}
	if *jsonIn != "" {
		c.jsonIn = strings.Split(*jsonIn, ",")
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: %v\n", err)
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "compare: %v\n", err)
		os.Exit(1)
	}
}

func run(cfg config, stdout, stderr io.Writer) error {
	if cfg.algorithms {
		return runAlgorithmsMode(cfg, stdout, stderr)
	}
	var recs []Record
	var notes []string
	reps := cfg.reps
	if len(cfg.jsonIn) > 0 {
		var err error
		if recs, err = readFiles(cfg.jsonIn); err != nil {
			return err
		}
		reps = 0
	} else {
		dir := cfg.dir
		if dir == "" {
			dir = moduleRoot()
		}
		var err error
		if recs, notes, err = runAll(cfg, dir, stderr); err != nil {
			return err
		}
	}
	notes = append(notes, missingNotes(recs)...)
	if cfg.save != "" {
		if err := saveRecords(cfg.save, recs); err != nil {
			return err
		}
	}
	sums := Summarize(recs)
	rows := BuildRows(sums, cfg.nodes)
	info := TableInfo{NPEs: npesOf(recs, cfg.npes), Nodes: cfg.nodes, PerNode: cfg.perNode, Reps: reps, Notes: notes}
	if err := WriteTable(stdout, rows, info); err != nil {
		return err
	}
	if cfg.plot != "" {
		title := fmt.Sprintf("goshmem vs Open MPI OSHMEM, %d PEs: latency (µs) against size", info.NPEs)
		if cfg.nodes > 0 {
			title = fmt.Sprintf("goshmem vs Open MPI OSHMEM, %d PEs on %d nodes: latency (µs) against size", info.NPEs, cfg.nodes)
		}
		if err := os.WriteFile(cfg.plot, RenderSVG(sums, title), 0o644); err != nil {
			return fmt.Errorf("--plot: %v", err)
		}
	}
	return nil
}

func readFiles(paths []string) ([]Record, error) {
	var all []Record
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("--json-in: %v", err)
		}
		recs, _, err := ParseRecords(f, p)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--json-in: %v", err)
		}
		all = append(all, recs...)
	}
	return all, nil
}

func saveRecords(path string, recs []Record) error {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("--save: %v", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--save: %v", err)
	}
	return nil
}

// missingNotes says which side has no records at all, so an empty column is explained.
func missingNotes(recs []Record) []string {
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Impl] = true
	}
	var notes []string
	for _, impl := range []string{implGoshmem, implOSHMEM, implLimit} {
		if !seen[impl] {
			notes = append(notes, fmt.Sprintf("%s: no records; its column is empty", impl))
		}
	}
	return notes
}

func npesOf(recs []Record, fallback int) int {
	n := 0
	for _, r := range recs {
		if r.Impl != implLimit {
			n = max(n, r.NPEs)
		}
	}
	if n == 0 {
		return fallback
	}
	return n
}

// moduleRoot is the nearest directory above the current one whose go.mod is goshmem's, or
// the current directory.
func moduleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.Contains(b, []byte("module "+modulePath+"\n")) {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

// runner is one command compare runs each repetition.
type runner struct {
	impl   string // the impl its records must carry
	cmd    string // a shell command, or (with start) what start runs, for the notes
	args   []string
	env    []string
	failed bool // it failed once; later repetitions skip it
	// start, when set, runs the side instead of `sh -c cmd` (a job across fake nodes).
	start func(args []string, dir string, stdout, stderr io.Writer) error
}

// runAll runs every side reps times, goshmem and the peer alternating which goes first,
// and returns all records and the notes explaining any failure.
func runAll(cfg config, dir string, stderr io.Writer) ([]Record, []string, error) {
	benchArgs := append([]string{"--json"}, cfg.benchArgs...)
	var gosh, peer, lim *runner
	var recs []Record
	var notes []string
	if cfg.nodes > 0 {
		runners, setupNotes, release, err := setUpMultinode(cfg, dir, stderr)
		if err != nil {
			return nil, nil, err
		}
		defer release()
		lim, gosh, peer = runners[0], runners[1], runners[2]
		notes = append(notes, setupNotes...)
	} else if cfg.goshmemCmd != "" {
		gosh = &runner{impl: implGoshmem, cmd: strings.ReplaceAll(cfg.goshmemCmd, "{npes}", strconv.Itoa(cfg.npes)), args: benchArgs}
	}
	if cfg.peerCmd != "" && cfg.nodes == 0 {
		peer = &runner{impl: implOSHMEM, cmd: cfg.peerCmd, args: benchArgs, env: []string{"NPES=" + strconv.Itoa(cfg.npes)}}
	}
	if cfg.limitsCmd != "" && cfg.nodes == 0 {
		lim = &runner{impl: implLimit, cmd: cfg.limitsCmd, args: []string{"--json"}}
	}
	var loads []string
	for rep := 1; rep <= cfg.reps; rep++ {
		if l, ok := loadAverage(); ok {
			loads = append(loads, l)
		}
		order := []*runner{lim, gosh, peer}
		if rep%2 == 0 {
			order = []*runner{lim, peer, gosh}
		}
		for _, r := range order {
			if r == nil || r.failed {
				continue
			}
			fmt.Fprintf(stderr, "compare: repetition %d/%d: %s: %s %s\n", rep, cfg.reps, r.impl, r.cmd, strings.Join(r.args, " "))
			got, note := r.run(dir, rep, stderr)
			recs = append(recs, got...)
			if note != "" {
				fmt.Fprintf(stderr, "compare: %s\n", note)
				notes = append(notes, note)
			}
		}
	}
	if len(loads) > 0 {
		// Other work on the cores spoils every number; the reader should see how busy they were.
		notes = append(notes, "load average (1 min) at the start of each repetition: "+strings.Join(loads, ", "))
	}
	return recs, notes, nil
}

// loadAverage is the first field of /proc/loadavg.
func loadAverage() (string, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "", false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "", false
	}
	return f[0], true
}

// run runs the command once: stdout is parsed as records, stderr goes to compare's stderr
// (the suites' progress lines) and its last lines into the note when the command fails.
func (r *runner) run(dir string, rep int, stderr io.Writer) ([]Record, string) {
	var out bytes.Buffer
	log := &stderrLog{max: 4096}
	var runErr error
	if r.start != nil {
		runErr = r.start(r.args, dir, &out, io.MultiWriter(stderr, log))
	} else {
		cmd := exec.Command("sh", "-c", r.cmd+` "$@"`, "sh")
		cmd.Args = append(cmd.Args, r.args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), r.env...)
		cmd.Stdout = &out
		cmd.Stderr = io.MultiWriter(stderr, log)
		runErr = cmd.Run()
	}
	recs, _, parseErr := ParseRecords(&out, r.impl+" output")
	var kept []Record
	var wrongImpl int
	for _, rec := range recs {
		if rec.Impl != r.impl {
			wrongImpl++
			continue
		}
		rec.Rep = rep
		kept = append(kept, rec)
	}
	var problems []string
	if runErr != nil {
		problems = append(problems, fmt.Sprintf("failed (%v)", runErr))
	}
	if parseErr != nil {
		problems = append(problems, fmt.Sprintf("bad output (%v)", parseErr))
	}
	if wrongImpl > 0 {
		problems = append(problems, fmt.Sprintf("%d records not marked impl %q were dropped", wrongImpl, r.impl))
	}
	if runErr == nil && parseErr == nil && len(kept) == 0 {
		problems = append(problems, "produced no records")
	}
	if len(problems) == 0 {
		return kept, ""
	}
	r.failed = runErr != nil || parseErr != nil || len(kept) == 0
	note := fmt.Sprintf("%s: `%s` in repetition %d: %s", r.impl, r.cmd, rep, strings.Join(problems, "; "))
	if r.failed {
		note += "; not run again"
		if said := log.summary(2); said != "" {
			note += "; its stderr: " + said
		}
	}
	return kept, note
}

// stderrLog keeps the first and the last max bytes written to it: a failing command's
// first lines usually say what went wrong, its last ones where it stopped.
type stderrLog struct {
	max        int
	head, tail []byte
}

func (t *stderrLog) Write(p []byte) (int, error) {
	if room := t.max - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > t.max {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-t.max:]...)
	}
	return len(p), nil
}

// summary joins the first n and the last n non-empty lines (each once) with " | ".
func (t *stderrLog) summary(n int) string {
	first := nonEmptyLines(t.head)
	last := nonEmptyLines(t.tail)
	if len(first) > n {
		first = first[:n]
	}
	if len(last) > n {
		last = last[len(last)-n:]
	}
	out := first
	for _, l := range last {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, " | ")
}

func nonEmptyLines(b []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
