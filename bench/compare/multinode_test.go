package main

import (
	"bytes"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
)

func TestParseFlagsNodes(t *testing.T) {
	cfg, err := parseFlags([]string{"--nodes", "2", "--per-node", "2", "-o", "put"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.nodes != 2 || cfg.perNode != 2 || cfg.npes != 4 || cfg.timeout != 30*time.Minute {
		t.Errorf("nodes %d per-node %d npes %d timeout %v; want 2, 2, 4 (= 2 × 2), 30m", cfg.nodes, cfg.perNode, cfg.npes, cfg.timeout)
	}
	if cfg, err := parseFlags([]string{"--nodes", "3", "-n", "3"}, io.Discard); err != nil || cfg.npes != 3 {
		t.Errorf("-n agreeing with --nodes × --per-node: npes %d, %v", cfg.npes, err)
	}
	if cfg, err := parseFlags([]string{"-n", "4"}, io.Discard); err != nil || cfg.nodes != 0 || cfg.npes != 4 {
		t.Errorf("one machine: nodes %d npes %d, %v", cfg.nodes, cfg.npes, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nodes", "1"}, "--nodes: want 2 to 254"},
		{[]string{"--nodes", "-2"}, "--nodes: want 2 to 254"},
		{[]string{"--nodes", "2", "--per-node", "0"}, "--per-node: want 1 to 1024"},
		{[]string{"--nodes", "2", "-n", "3"}, "-n 3 disagrees with --nodes 2 × --per-node 1"},
		{[]string{"--nodes", "2", "--timeout", "0s"}, "--timeout"},
	} {
		if _, err := parseFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q): error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

func TestBuildSteps(t *testing.T) {
	steps := buildSteps("/tmp/x", []string{"-I/u/ucx", "-lucp", "-lpmix"})
	var impls []string
	for _, s := range steps {
		impls = append(impls, s.impl)
	}
	if !slices.Equal(impls, []string{implGoshmem, implOSHMEM, implLimit}) {
		t.Fatalf("steps for %q", impls)
	}
	if g := steps[0]; !slices.Equal(g.argv, []string{"go", "build", "-tags", "goshmem_ucx", "-o", "/tmp/x/osu", "./bench/osu"}) || g.out != "/tmp/x/osu" {
		t.Errorf("goshmem: %q -> %s; want the suite built with the engine's tag", g.argv, g.out)
	}
	if p := steps[1]; p.argv[1] != "bench/peer/run.sh" || !slices.Contains(p.env, "PEER_BUILD_ONLY=1") ||
		!slices.Contains(p.env, "PEER_BUILD_DIR=/tmp/x") || p.out != "/tmp/x/osu_peer" {
		t.Errorf("peer: %q env %q -> %s; want run.sh building only, into /tmp/x", p.argv, p.env, p.out)
	}
	if l := steps[2]; l.argv[0] != "cc" || !slices.Contains(l.argv, "bench/ucxlimit/ucx_limit.c") ||
		!slices.Equal(l.argv[len(l.argv)-3:], []string{"-I/u/ucx", "-lucp", "-lpmix"}) || l.out != "/tmp/x/ucx_limit" {
		t.Errorf("limit: %q -> %s; want cc of ucx_limit.c with the pkg-config flags last", l.argv, l.out)
	}
}

// goshmem's settings go to its job across the nodes; the fake nodes' own do not.
func TestGoshmemEnv(t *testing.T) {
	got := goshmemEnv([]string{"PATH=/bin", "GOSHMEM_NET_PROGRESS=calls", "SHMEM_INFO=1", "GOSHMEM_FAKENODES=require", "GOSHMEM_FAKENODES_SCRIPTS=/s", "MY_SHMEM_X=1"})
	if want := []string{"GOSHMEM_NET_PROGRESS=calls", "SHMEM_INFO=1"}; !slices.Equal(got, want) {
		t.Errorf("goshmemEnv: %q, want %q", got, want)
	}
}

func TestMultinodeJobs(t *testing.T) {
	bins := binaries{goshmem: "/b/osu", oshmem: "/b/osu_peer", limit: "/b/ucx_limit"}
	jobs := multinodeJobs(3, 2, bins, time.Minute, 8, []string{"GOSHMEM_NET_PROGRESS=calls"})
	g, o, l := jobs[implGoshmem], jobs[implOSHMEM], jobs[implLimit]
	if g.Nodes != 3 || g.PerNode != 2 || g.MapBy != "node" || g.Prog != "/b/osu" || g.Launcher != "" || g.Timeout != time.Minute {
		t.Errorf("goshmem job %+v: want mpirun, 3 nodes × 2, round-robin", g)
	}
	want := []string{"--mca", "spml", "ucx", "--mca", "pml", "ucx", "--mca", "opal_common_ucx_tls", "any", "--mca", "opal_common_ucx_devices", "any"}
	if o.Launcher != "oshrun" || !slices.Equal(o.LauncherArgs, want) || o.Nodes != 3 || o.PerNode != 2 || o.MapBy != "node" || o.Prog != "/b/osu_peer" {
		t.Errorf("OSHMEM job %+v: want oshrun %q, 3 nodes × 2, round-robin", o, want)
	}
	if !slices.Equal(g.Env, []string{"GOSHMEM_NET_PROGRESS=calls"}) || o.Env != nil || l.Env != nil {
		t.Errorf("settings: goshmem %q, OSHMEM %q, limit %q; want goshmem's alone", g.Env, o.Env, l.Env)
	}
	if l.Nodes != 2 || l.PerNode != 1 || l.Prog != "/b/ucx_limit" || l.Launcher != "" {
		t.Errorf("limit job %+v: want 2 processes, one on each of two nodes", l)
	}
	// A CPU for each process: every job binds them (6 PEs on 8 CPUs); on 4 CPUs only the
	// limit's 2 processes are bound.
	if !g.PinRanks || !o.PinRanks || !l.PinRanks {
		t.Errorf("6 PEs on 8 CPUs: PinRanks goshmem %v, OSHMEM %v, limit %v; want all bound", g.PinRanks, o.PinRanks, l.PinRanks)
	}
	few := multinodeJobs(3, 2, bins, time.Minute, 4, nil)
	if few[implGoshmem].PinRanks || few[implOSHMEM].PinRanks || !few[implLimit].PinRanks {
		t.Errorf("6 PEs on 4 CPUs: PinRanks goshmem %v, OSHMEM %v, limit %v; want only the limit's bound",
			few[implGoshmem].PinRanks, few[implOSHMEM].PinRanks, few[implLimit].PinRanks)
	}
	if n := bindingNote(3, 2, 4); !strings.Contains(n, "none (6 PEs on 4 CPUs") {
		t.Errorf("binding note at 6 PEs on 4 CPUs: %q", n)
	}
	if jobs := multinodeJobs(2, 1, binaries{goshmem: "/b/osu"}, time.Minute, 2, nil); len(jobs) != 1 {
		t.Errorf("with only goshmem built: jobs %v, want goshmem's alone", jobs)
	}
	// The jobs become the command lines the harness documents.
	c := &fakenodes.Cluster{Nodes: []string{"gsn1", "gsn2", "gsn3"}, Scripts: "/s"}
	cmd, err := c.Command(few[implOSHMEM])
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(cmd.Args, " ")
	if !strings.HasPrefix(line, "/s/onnode gsn1 oshrun --host gsn1:2,gsn2:2,gsn3:2 -np 6 --bind-to none --map-by node --mca spml ucx") ||
		!strings.HasSuffix(line, "opal_common_ucx_devices any /b/osu_peer") {
		t.Errorf("OSHMEM's command: %s", line)
	}
	// Bound: the program runs under taskset at its rank (1 PE: a CPU on every machine).
	cmd, err = c.Command(multinodeJobs(1, 1, bins, time.Minute, 1, nil)[implGoshmem])
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.Join(cmd.Args, " "); !strings.HasSuffix(line, `-np 1 --bind-to none --map-by node sh -c exec taskset -c "$OMPI_COMM_WORLD_RANK" "$0" "$@" /b/osu`) {
		t.Errorf("goshmem's command, bound: %s", line)
	}
	if _, err := c.Command(fakenodes.Job{Nodes: 3, PerNode: 1024, Prog: "/b/osu", PinRanks: true}); err == nil || !strings.Contains(err.Error(), "PinRanks with 3072 PEs") {
		t.Errorf("PinRanks with more PEs than CPUs: %v", err)
	}
}

func TestLimitArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{"--json"}},
		{[]string{"-m", "8:8", "-o", "put"}, []string{"--json"}},
		{[]string{"-m", "8:8", "-i", "20", "-x", "2"}, []string{"--json", "-i", "20"}},
	} {
		if got := limitArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("limitArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNetLimitFor(t *testing.T) {
	us := func(v float64) *float64 { return &v }
	rec := func(op string, size int64, v float64) Record {
		return Record{Impl: implLimit, Op: op, Size: size, Unit: "B", NPEs: 2, US: us(v)}
	}
	sums := Summarize([]Record{
		rec("ucx_put", 8, 20), rec("ucx_get", 8, 11), rec("ucx_fetch_add", 8, 10), rec("ucx_compare_swap", 8, 12),
		rec("ucx_put_bw", 1<<20, 80000), rec("copy", 8, 0.01), rec("flag_pingpong", 8, 0.3),
		rec("ucx_pingpong", 8, 40), rec("ucx_barrier", 0, 16), rec("ucx_bcast", 64, 7),
		rec("ucx_get_sleep", 8, 30), rec("ucx_fetch_add_sleep", 8, 9), rec("ucx_compare_swap_sleep", 8, 9),
		rec("ucx_compare_swap_sleep", 8, 7), rec("ucx_compare_swap_sleep", 8, 100), // median 9
		{Impl: implLimit, Op: "ucx_get", Size: 16, Unit: "B", NPEs: 2, NA: "not measured"},
	})
	for _, tc := range []struct {
		op   string
		size int64
		want Limit
	}{
		{"put", 8, Limit{20, "ucx put"}},
		{"get", 8, Limit{11, "ucx get"}},                 // polling faster
		{"atomic_fetch_add", 8, Limit{9, "ucx fadd ev"}}, // sleeping faster
		{"atomic_compare_swap", 8, Limit{9, "ucx cswap ev"}},
		{"put_bw", 1 << 20, Limit{80000, "ucx put_bw"}},
		{"put", 16, Limit{}},                       // no UCX record at that size
		{"get", 16, Limit{}},                       // reported unavailable
		{"put_bw", 8, Limit{}},                     // measured at 1 MiB only
		{"atomic_swap", 8, Limit{}},                // no UCX counterpart measured
		{"pingpong", 8, Limit{40, "ucx pingpong"}}, // not flag_pingpong: a cache line bounds nothing across nodes
		{"barrier", 0, Limit{16, "ucx msg each way"}},
		{"pingpong", 16, Limit{}},
		{"broadcast64", 8, Limit{7, "ucx one message"}}, // 8 elements: the record's 64 bytes
		{"broadcast64", 64, Limit{}},
	} {
		if got := netLimitFor(sums, tc.op, tc.size); got != tc.want {
			t.Errorf("netLimitFor(%s, %d) = %+v, want %+v", tc.op, tc.size, got, tc.want)
		}
	}
}

// Across nodes the rows take the UCX limits and never the machine's (and the other way
// round), and the header says where the run was.
func TestTableAcrossNodes(t *testing.T) {
	us := func(v float64) *float64 { return &v }
	recs := []Record{
		{Impl: implGoshmem, Op: "put", Size: 8, Unit: "B", NPEs: 2, US: us(25)},
		{Impl: implOSHMEM, Op: "put", Size: 8, Unit: "B", NPEs: 2, US: us(50)},
		{Impl: implGoshmem, Op: "progress", Size: 8, Unit: "B", NPEs: 2, US: us(2000)},
		{Impl: implOSHMEM, Op: "progress", Size: 8, Unit: "B", NPEs: 2, US: us(240000)},
		{Impl: implLimit, Op: "ucx_put", Size: 8, Unit: "B", NPEs: 2, US: us(20)},
		{Impl: implLimit, Op: "copy", Size: 8, Unit: "B", NPEs: 1, US: us(0.01)},
	}
	sums := Summarize(recs)
	across := BuildRows(sums, 2)
	if across[0].Op != "put" || across[0].Limit != (Limit{20, "ucx put"}) {
		t.Errorf("across nodes, put 8: limit %+v, want raw UCX's 20", across[0].Limit)
	}
	if across[1].Op != "progress" || across[1].Limit.US != 0 {
		t.Errorf("across nodes, row 2 %s has limit %+v, want progress without one", across[1].Op, across[1].Limit)
	}
	if local := BuildRows(sums, 0); local[0].Limit.What != "copy" {
		t.Errorf("one machine, put 8: limit %+v, want the copy", local[0].Limit)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, across, TableInfo{NPEs: 2, Nodes: 2, PerNode: 1, Reps: 3}); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{"2 PEs across 2 fake nodes (1 per node, --map-by node", "limit = raw UCX between two of the nodes", `asleep on its wake-up fd ("ev")`} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if got, want := tableRow(t, table, "put "), []string{"put", "8", "B", "25.000", "50.000", "2.00", "20.000", "ucx", "put", "80%", "40%"}; !slices.Equal(got, want) {
		t.Errorf("put row %q, want %q", got, want)
	}
	if got := tableRow(t, table, "progress"); got[5] != "120.00" {
		t.Errorf("progress row %q: ratio %q, want 120.00", got, got[5])
	}
}

// TestMultinodeCompare runs compare --nodes 2 for real, tiny: both suites and the UCX
// limit across two fake nodes, and checks every side produced its row.
func TestMultinodeCompare(t *testing.T) {
	if !builtWithUCXTag {
		t.Skip("multi-node compare: run with -tags goshmem_ucx on a machine that can have fake nodes (root, netns); .ci/multinode does")
	}
	fakenodes.Require(t, 2) // held until the test ends; run holds the nodes again itself
	for _, tool := range []string{"oshcc", "oshrun", "cc", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			fakenodes.Skip(t, "no %s in PATH (openmpi-bin, libopenmpi-dev, gcc, pkg-config)", tool)
		}
	}
	if err := exec.Command("pkg-config", "--exists", "ucx", "pmix").Run(); err != nil {
		fakenodes.Skip(t, "pkg-config ucx pmix: %v (libucx-dev, libpmix-dev)", err)
	}
	cfg, err := parseFlags([]string{"--nodes", "2", "--reps", "1", "-o", "put,atomic_fetch_add,barrier,progress",
		"-m", "8:8", "-i", "2", "-x", "0", "--timeout", "5m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.dir = moduleRoot()
	var out, stderr bytes.Buffer
	if err := run(cfg, &out, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	table := out.String()
	if strings.Contains(table, "failed") || strings.Contains(table, "no records") {
		t.Fatalf("a side failed:\n%s\n--- stderr\n%s", table, stderr.String())
	}
	if want := "# " + bindingNote(2, 1, runtime.NumCPU()) + "\n"; !strings.Contains(table, want) {
		t.Errorf("no binding line %q in the table:\n%s", want, table)
	}
	put := tableRow(t, table, "put ")
	if len(put) < 9 || put[3] == "-" || put[4] == "-" || put[6] == "-" || put[7] != "ucx" {
		t.Errorf("put row %q: want goshmem, OSHMEM and the UCX limit measured\n%s", put, table)
	}
	for _, op := range []string{"atomic_fetch_add", "barrier", "progress"} {
		if row := tableRow(t, table, op); row[3] == "-" || row[4] == "-" {
			t.Errorf("%s row %q: want both sides measured", op, row)
		}
	}
}
