// Package shmemtest runs a test as a multi-PE job inside `go test`: the test process
// re-executes its own binary as N PEs through package launch, the code shmemrun uses, and
// each PE runs only the calling test.
//
//	func TestPut(t *testing.T) {
//		if !shmemtest.Run(t, 4) {
//			return // the launcher side: the job ran, and failed t if it failed
//		}
//		// a PE: shmem.Init(), the test's body, shmem.Finalize()
//	}
package shmemtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
)

// envTest names, in a PE, the test it runs.
const envTest = "GOSHMEM_TEST"

// Options change how a job runs.
type Options struct {
	Env     []string      // extra environment, KEY=VALUE
	Timeout time.Duration // default 120s
	// Spin makes the PEs spin in waits instead of yielding and sleeping (their default in
	// tests, which share the machine's CPUs with each other and with other packages).
	Spin bool
	// Bind places the PEs as shmemrun does by default (one per core while there are
	// enough cores) and applies their NUMA policies.
	Bind bool
}

// Result is how a job ended.
type Result struct {
	Status         int
	Stdout, Stderr string
}

// InPE reports whether this process is a PE of a job running t.
func InPE(t testing.TB) bool { return os.Getenv(envTest) == t.Name() }

// Run runs t as n PEs. In the test process it returns false after the job, failing t with
// the job's output if the job's status is not 0. In a PE it returns true.
func Run(t testing.TB, n int, opts ...Options) bool {
	t.Helper()
	if InPE(t) {
		return true
	}
	r := Launch(t, n, opts...)
	if r.Status != 0 {
		t.Fatalf("%d PEs: job exited with status %d\n--- stdout\n%s--- stderr\n%s", n, r.Status, r.Stdout, r.Stderr)
	}
	return false
}

// Launch runs t as n PEs from the test process and returns how the job ended.
func Launch(t testing.TB, n int, opts ...Options) Result {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Timeout == 0 {
		o.Timeout = 120 * time.Second
	}
	env := append(os.Environ(), envTest+"="+t.Name())
	if o.Spin {
		env = append(env, "GOSHMEM_WAIT=spin")
	}
	env = append(env, o.Env...)
	var topo *topology.Topology
	var bindings []topology.Binding
	if o.Bind {
		var err error
		if topo, err = topology.Read(""); err != nil {
			t.Fatal(err)
		}
		if bindings, err = topology.Place(topo, n, topology.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"-test.run=" + runPattern(t.Name()), "-test.count=1", "-test.v=true", "-test.timeout=" + o.Timeout.String(),
		"-test.short=" + strconv.FormatBool(testing.Short())}
	if _, ok := t.(*testing.B); ok {
		args = []string{"-test.run=^$", "-test.bench=" + runPattern(t.Name()), "-test.benchtime=1x", "-test.count=1", "-test.timeout=" + o.Timeout.String()}
	}
	var stdout, stderr bytes.Buffer
	if l := os.Getenv(EnvLauncher); l != "" {
		return launchPMIx(t, l, n, os.Args[0], env, args, o.Timeout+30*time.Second)
	}
	status, err := launch.Run(launch.Config{
		Bindings:   bindings,
		Topology:   topo,
		NPEs:       n,
		Prog:       os.Args[0],
		Args:       args,
		Env:        env,
		Stdout:     &stdout,
		Stderr:     &stderr,
		Timeout:    o.Timeout + 10*time.Second,
		SharedCPUs: !o.Spin || n > runtime.NumCPU(),
	})
	if err != nil {
		t.Fatalf("launching %d PEs: %v", n, err)
	}
	return Result{status, stdout.String(), stderr.String()}
}

// EnvLauncher, when set, makes Launch start jobs with a PMIx launcher across nodes instead
// of the in-process launcher: its value is the launcher's command line without the PE count
// and the program (for example the fake nodes' `onnode gsn1 mpirun --host gsn1:4,gsn2:4
// --map-by node ...`); the test binary must then be built with -tags goshmem_ucx.
const EnvLauncher = "GOSHMEM_TEST_LAUNCHER"

// MultiNode reports whether jobs run across nodes (EnvLauncher is set): tests of what only a
// one-node job has (shmemrun's own exit codes and reports, direct pointers to every PE)
// skip there.
func MultiNode() bool { return os.Getenv(EnvLauncher) != "" }

// Iters scales a test's loop count to the job: across nodes every operation is a network
// round trip (about a thousand times a shared-memory one), so loops run a fiftieth as long.
func Iters(n int) int {
	if MultiNode() {
		return max(n/50, 1)
	}
	return n
}

// acrossNodes is the sizes a test runs at across nodes: above one PE, at most maxPEs.
func acrossNodes(sizes []int, maxPEs string) []int {
	limit, err := strconv.Atoi(maxPEs)
	if err != nil || limit < 2 {
		limit = 1 << 30
	}
	var out []int
	smallest := 0
	for _, n := range sizes {
		if n >= 2 && (smallest == 0 || n < smallest) {
			smallest = n
		}
		if n >= 2 && n <= limit {
			out = append(out, n)
		}
	}
	if len(out) == 0 && smallest > 0 {
		out = []int{smallest}
	}
	return out
}

// launchPMIx runs the job with the PMIx launcher named by cmd: the job's own variables and
// SHMEM_*, GOSHMEM_* and UCX_* (as shmemrun --hosts forwards them) go with -x, and PEs
// share the node's CPUs, so their waits sleep unless the whole run sets GOSHMEM_WAIT (the
// multinode suite's run without a progress goroutine spins).
func launchPMIx(t testing.TB, cmd string, n int, prog string, env, args []string, timeout time.Duration) Result {
	t.Helper()
	argv := strings.Fields(cmd)
	argv = append(argv, "-np", strconv.Itoa(n))
	own := map[string]bool{}
	for _, kv := range os.Environ() {
		own[kv] = true
	}
	if os.Getenv("GOSHMEM_WAIT") == "" {
		env = append(env, "GOSHMEM_WAIT=sleep")
	}
	for _, kv := range env {
		if !own[kv] || strings.HasPrefix(kv, "SHMEM_") || strings.HasPrefix(kv, "GOSHMEM_") || strings.HasPrefix(kv, "UCX_") {
			argv = append(argv, "-x", kv)
		}
	}
	argv = append(argv, prog)
	argv = append(argv, args...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr, c.Env = &stdout, &stderr, env
	err := c.Run()
	status := c.ProcessState.ExitCode()
	if err != nil && status <= 0 {
		if ctx.Err() != nil {
			t.Fatalf("%d PEs across nodes: no end after %v\n--- stdout\n%s--- stderr\n%s", n, timeout, stdout.String(), stderr.String())
		}
		t.Fatalf("launching %d PEs across nodes (%s): %v", n, cmd, err)
	}
	return Result{status, stdout.String(), stderr.String()}
}

// LaunchProg runs prog with args as n PEs (across nodes when EnvLauncher is set) and
// returns how the job ended.
func LaunchProg(t testing.TB, n int, prog string, args ...string) Result {
	t.Helper()
	const timeout = 60 * time.Second
	if l := os.Getenv(EnvLauncher); l != "" {
		return launchPMIx(t, l, n, prog, os.Environ(), args, timeout)
	}
	var stdout, stderr bytes.Buffer
	status, err := launch.Run(launch.Config{NPEs: n, Prog: prog, Args: args, Env: os.Environ(),
		Stdout: &stdout, Stderr: &stderr, Timeout: timeout, SharedCPUs: true})
	if err != nil {
		t.Fatalf("launching %d PEs of %s: %v", n, prog, err)
	}
	return Result{status, stdout.String(), stderr.String()}
}

// runPattern is the -test.run pattern that selects exactly the test named name
// ("TestX/sub/case" -> "^TestX$/^sub$/^case$").
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Sizes are the PE counts the suites run at on any machine: more PEs than cores included.
var Sizes = []int{1, 2, 3, 4, 8}

// ForSizes runs f as a subtest per PE count in Sizes (or the given counts).
//
// Across nodes (MultiNode) a one-PE job proves nothing and jobs larger than
// GOSHMEM_TEST_MAXPES (when set: the nodes times PEs per node) only cost time: they are left
// out, and a test left with no size runs at its smallest one above one PE.
func ForSizes(t *testing.T, f func(t *testing.T, n int), sizes ...int) {
	if len(sizes) == 0 {
		sizes = Sizes
	}
	if MultiNode() {
		sizes = acrossNodes(sizes, os.Getenv("GOSHMEM_TEST_MAXPES"))
	}
	for _, n := range sizes {
		t.Run(fmt.Sprintf("%dPE", n), func(t *testing.T) { f(t, n) })
	}
}
