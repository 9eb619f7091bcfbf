package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
)

var (
	testsomeOnce sync.Once
	testsomeBin  string
	testsomeErr  error
)

// testsome is examples/testsome built into the test binaries' directory: a real program
// whose PE 0 prints SHMEM_INFO.
func testsome(t *testing.T) (shmemrun, prog string) {
	t.Helper()
	shmemrun, _ = binaries(t)
	testsomeOnce.Do(func() {
		testsomeBin = filepath.Join(buildDir, "testsome")
		if out, err := exec.Command("go", "build", "-o", testsomeBin, "../../examples/testsome").CombinedOutput(); err != nil {
			testsomeErr = err
			t.Log(string(out))
		}
	})
	if testsomeErr != nil {
		t.Fatal(testsomeErr)
	}
	return shmemrun, testsomeBin
}

// shmemrunIn runs the shmemrun binary with GOSHMEM_CACHE=cache and extra environment.
func shmemrunIn(t *testing.T, bin, cache string, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOSHMEM_CACHE="+cache)
	cmd.Env = append(cmd.Env, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	status = cmd.ProcessState.ExitCode()
	if err != nil && status < 0 {
		t.Fatalf("shmemrun %v: %v", args, err)
	}
	return o.String(), e.String(), status
}

func onlyFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) != 1 {
		t.Fatalf("%s in %s: %v", pattern, dir, m)
	}
	return m[0]
}

// --calibrate writes this machine's model into GOSHMEM_CACHE, and a job's SHMEM_INFO names
// the file; a first job on a machine without one measures and caches it itself.
func TestCalibrateThenJobUsesIt(t *testing.T) {
	bin, prog := testsome(t)
	cache := t.TempDir()
	out, errOut, st := shmemrunIn(t, bin, cache, nil, "--calibrate")
	if st != 0 {
		t.Fatalf("--calibrate: status %d\n%s", st, errOut)
	}
	path := onlyFile(t, cache, "model-*.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := topology.ParseModel(path, b)
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := topology.Read("")
	if f.Machine != topology.MachineKey(topo) || !strings.Contains(out, path) {
		t.Errorf("model of %q, this machine is %q; output:\n%s", f.Machine, topology.MachineKey(topo), out)
	}
	_, errOut, st = shmemrunIn(t, bin, cache, []string{"SHMEM_INFO=1"}, "-n", "2", prog)
	if st != 0 || !strings.Contains(errOut, "cost model: calibrated "+path) {
		t.Errorf("job: status %d, SHMEM_INFO does not name %s:\n%s", st, path, errOut)
	}

	fresh := t.TempDir()
	_, errOut, st = shmemrunIn(t, bin, fresh, []string{"SHMEM_INFO=1"}, "-n", "2", prog)
	path = onlyFile(t, fresh, "model-*.txt")
	if st != 0 || !strings.Contains(errOut, "cost model: calibrated "+path) {
		t.Errorf("first job: status %d, SHMEM_INFO does not name %s:\n%s", st, path, errOut)
	}
	out, _, _ = shmemrunIn(t, bin, fresh, nil, "--dry-run", "-n", "2")
	if !strings.Contains(out, "cost model: calibrated "+path) || !strings.Contains(out, "tuning table: none") {
		t.Errorf("--dry-run does not name the model:\n%s", out)
	}

	_, errOut, _ = shmemrunIn(t, bin, "none", []string{"SHMEM_INFO=1"}, "-n", "2", prog)
	if !strings.Contains(errOut, "cost model: default") {
		t.Errorf("GOSHMEM_CACHE=none: SHMEM_INFO:\n%s", errOut)
	}
}

// --tune -n 2 writes a table for this layout, which the next 2-PE job consults; a table
// of another layout named by SHMEM_COLL_TUNING is not used, and says why.
func TestTuneThenJobUsesTable(t *testing.T) {
	bin, prog := testsome(t)
	cache := t.TempDir()
	out, errOut, st := shmemrunIn(t, bin, cache, nil, "--tune", "-n", "2", "--tune-sizes", "8:16", "--tune-samples", "1")
	if st != 0 {
		t.Fatalf("--tune: status %d\n%s%s", st, out, errOut)
	}
	path := onlyFile(t, cache, "tune-*.txt")
	b, _ := os.ReadFile(path)
	tb, err := topology.ParseTable(path, b)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Layout.PEsPerNode != 2 || tb.Layout.Nodes != 1 {
		t.Errorf("layout %v", tb.Layout)
	}
	for _, c := range tuned {
		if _, ok := tb.Lookup(c, 16); !ok {
			t.Errorf("no rule for %s at 16 B:\n%s", c, b)
		}
	}
	if _, ok := tb.Lookup(topology.Bcast, 32); ok {
		t.Errorf("a rule beyond the sizes timed:\n%s", b)
	}
	_, errOut, st = shmemrunIn(t, bin, cache, []string{"SHMEM_INFO=1"}, "-n", "2", prog)
	if st != 0 || !strings.Contains(errOut, "tuning table: "+path) || !strings.Contains(errOut, "(table)") {
		t.Errorf("job: status %d, SHMEM_INFO does not use %s:\n%s", st, path, errOut)
	}
	// The same table for a 1-PE job (another layout) is not used, and says why.
	_, errOut, st = shmemrunIn(t, bin, t.TempDir(), []string{"SHMEM_INFO=1", "SHMEM_COLL_TUNING=" + path}, "-n", "1", prog)
	if st != 0 || !strings.Contains(errOut, "tuning table "+path+" not used: it was tuned for nodes=1 pes-per-node=2") {
		t.Errorf("1-PE job with a 2-PE table: status %d:\n%s", st, errOut)
	}
}

// A malformed table named by SHMEM_COLL_TUNING stops the job before it starts, naming the
// file and the line.
func TestMalformedTable(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("machine M\nlayout nodes=1 pes-per-node=2 placement=s0l0c0,s0l0c1\nbcast 8-64K linear\nbcast 8-1M hypercube\n"), 0o644)
	t.Setenv("SHMEM_COLL_TUNING", bad)
	var out, errb bytes.Buffer
	st := run([]string{"-n", "2", "true"}, &out, &errb)
	want := "shmemrun: SHMEM_COLL_TUNING: " + bad + ":4: bcast 8-1M: bcast algorithm \"hypercube\": want linear, tree"
	if st != launch.StatusUsage || !strings.Contains(errb.String(), want) {
		t.Errorf("status %d, stderr %q, want %q", st, errb.String(), want)
	}
	errb.Reset()
	t.Setenv("SHMEM_COLL_TUNING", bad+".missing")
	if st := run([]string{"-n", "2", "true"}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "SHMEM_COLL_TUNING: open "+bad+".missing") {
		t.Errorf("missing table: status %d, %q", st, errb.String())
	}
	errb.Reset()
	if st := run([]string{"--dry-run", "-n", "2"}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "SHMEM_COLL_TUNING") {
		t.Errorf("--dry-run with a missing table: status %d, %q", st, errb.String())
	}
}

func TestTuneUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--tune", "-n", "2", "true"},
		{"--tune", "--dry-run"},
		{"--tune", "-n", "2", "--tune-sizes", "4:8"},
		{"--tune", "-n", "2", "--tune-sizes", "8"},
		{"--tune", "-n", "2", "--tune-samples", "0"},
		{"--calibrate", "true"},
	} {
		var out, errb bytes.Buffer
		if st := run(args, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "shmemrun: --") {
			t.Errorf("%v: status %d, %q", args, st, errb.String())
		}
	}
}

// PE 0's report of a timing job: timings, and across nodes the table's key and the network.
func TestParseTuneOutput(t *testing.T) {
	r, err := parseTuneOutput([]byte("tunejob machine AMD EPYC | 1 socket | linux 6.1\ntunejob layout nodes=2 pes-per-node=2 placement=s0l0c0,s0l0c1\n" +
		"tunenet 30.25 950\ntune bcast 8 linear 12.5\ntune bcast 16 linear 13\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.machine != "AMD EPYC | 1 socket | linux 6.1" || r.layout != (topology.Layout{Nodes: 2, PEsPerNode: 2, Placement: "s0l0c0,s0l0c1"}) ||
		r.net != (topology.NetLevel{Lat: 30250 * time.Nanosecond, BW: 950}) || len(r.timings) != 2 || r.timings[1].US != 13 {
		t.Errorf("parseTuneOutput = %+v", r)
	}
	for _, bad := range []string{"", "tunenet 30\ntune bcast 8 linear 1\n", "tunenet -1 5\ntune bcast 8 linear 1\n", "tunejob layout nodes=0\ntune bcast 8 linear 1\n",
		"tune gather 8 linear 1\n", "tune bcast 8 linear\n", "hello\n"} {
		if _, err := parseTuneOutput([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// shmemrun --tune --hosts across fake nodes writes a table keyed by 2 nodes x 2 PEs with
// the network level it measured; a job of that layout started by shmemrun --hosts (each
// node's leader reads the cache) uses it, LatNet and BWNet included.
func TestMultinodeTuneAcrossNodes(t *testing.T) {
	c := fakenodes.Require(t, 2)
	dir := t.TempDir()
	shmemrun := filepath.Join(dir, "shmemrun")
	prog := filepath.Join(dir, "testsome")
	for _, b := range [][]string{{"-o", shmemrun, "."}, {"-o", prog, "../../examples/testsome"}} {
		if out, err := exec.Command("go", append([]string{"build", "-tags", "goshmem_ucx"}, b...)...).CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", b, err, out)
		}
	}
	cache := filepath.Join(dir, "cache")
	hosts := c.Nodes[0] + ":2," + c.Nodes[1] + ":2"
	run := func(env []string, args ...string) *fakenodes.Result {
		t.Helper()
		cmd := c.OnNode(c.Nodes[0], shmemrun, args...)
		cmd.Env = append(append(os.Environ(), c.LauncherEnv()...), append([]string{"GOSHMEM_CACHE=" + cache}, env...)...)
		r, err := c.Run(cmd, 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode != 0 {
			t.Fatal(r)
		}
		return r
	}
	// Unbound, as the suite runs: fake nodes share the CPUs, so each node's placement
	// would pin its PEs onto the same ones.
	run(nil, "--tune", "--hosts", hosts, "-n", "4", "--map-by", "node", "--bind-to", "none", "--tune-sizes", "8:16", "--tune-samples", "1", "--timeout", "60s")
	path := onlyFile(t, cache, "tune-*.txt")
	b, _ := os.ReadFile(path)
	tb, err := topology.ParseTable(path, b)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Layout.Nodes != 2 || tb.Layout.PEsPerNode != 2 || tb.Net.Lat <= 0 || tb.Net.BW <= 0 {
		t.Fatalf("layout %v, network %+v:\n%s", tb.Layout, tb.Net, b)
	}
	for _, coll := range tuned {
		if _, ok := tb.Lookup(coll, 16); !ok {
			t.Errorf("no rule for %s at 16 B:\n%s", coll, b)
		}
	}
	r := run([]string{"SHMEM_INFO=1"}, "--hosts", hosts, "-n", "4", "--map-by", "node", "--bind-to", "none", "--timeout", "60s", prog)
	info := r.Stdout + r.Stderr
	if !strings.Contains(info, "tuning table: "+path+" (nodes=2 pes-per-node=2") || !strings.Contains(info, "measured across nodes by shmemrun --tune") {
		t.Errorf("the job does not use %s:\n%s", path, info)
	}
}
