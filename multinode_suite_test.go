//go:build goshmem_ucx && cgo && linux

package shmem_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// TestMultinodeSuite runs this package's multi-PE tests again with every job across two
// fake nodes of two slots, PEs numbered round-robin over the nodes (--map-by node: a node's
// PEs are not contiguous): jobs of 2 PEs are 2 nodes × 1 PE, of 3 PEs 2 + 1, of 4 PEs 2
// nodes × 2 PEs. The tests of what only a job across nodes has (TestAcrossNodes...) run
// there too; tests of shmemrun's own reports skip.
func TestMultinodeSuite(t *testing.T) {
	if shmemtest.MultiNode() {
		t.Skip("already across nodes")
	}
	c := fakenodes.Require(t, 2)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	// The second run sends every network phase's data by put, fence and signal (an eager
	// limit of 0), the path larger transfers take, for the collectives' tests. The first two
	// run with waits that sleep, so the progress goroutine sleeps on the engine's wake-up
	// descriptor; the third and fourth, for the tests of operations that need their
	// target's CPU and of a job's end (a PE lost, GlobalExit), spin: the goroutine then
	// polls the engine (GOSHMEM_NET_PROGRESS=auto), or there is none and only the PEs' own
	// calls serve the network (calls).
	const progressTests = "^Test(AcrossNodes(Progress|WaitSharesWorker|FinalizeEndsProgress|CtxWorkers|NBI)|FetchAddTotal|CompareSwapLock|AMOSemantics|AMOGoroutines|CtxRMA|CtxAMO|PutGet|PutNBIQuietAndScalars|Strided|PutSignal|LockCounts|AnyFairness|SyncForms|Alltoall|Broadcast|Reductions|Teams|FailingPE|GlobalExit|GlobalExitStatusClamped)$"
	for _, v := range []struct {
		perNode int
		name    string
		pattern string
		env     []string
	}{
		{2, "", suitePattern, nil},
		{2, "-no-eager", "^Test(Alltoall|Broadcast|BroadcastRunAhead|Collect|Reductions|Scans|Teams|BackToBackAlternating|ConcurrentActiveSets)$", []string{"GOSHMEM_NET_EAGER=0"}},
		{1, "-poll", progressTests, []string{"GOSHMEM_WAIT=spin"}},
		{1, "-calls", progressTests, []string{"GOSHMEM_NET_PROGRESS=calls", "GOSHMEM_WAIT=spin"}},
	} {
		perNode := v.perNode
		t.Run(strconv.Itoa(len(c.Nodes))+"x"+strconv.Itoa(perNode)+v.name, func(t *testing.T) {
			hosts := make([]string, len(c.Nodes))
			for i, n := range c.Nodes {
				hosts[i] = n + ":" + strconv.Itoa(perNode)
			}
			launcher := strings.Join([]string{c.Scripts + "/onnode", c.Nodes[0], "mpirun", "--host", strings.Join(hosts, ","),
				"--map-by", "node", "--bind-to", "none", "--oversubscribe"}, " ")
			pattern := v.pattern
			if p := os.Getenv("GOSHMEM_MULTINODE_RUN"); p != "" {
				pattern = p // a part of the suite, while working on it
			}
			run := []string{"-test.run=" + pattern, "-test.short", "-test.count=1", "-test.timeout=20m"}
			if testing.Verbose() {
				run = append(run, "-test.v")
			}
			cmd := exec.Command(self, run...)
			cmd.Env = append(append(os.Environ(), c.LauncherEnv()...),
				shmemtest.EnvLauncher+"="+launcher,
				"GOSHMEM_TEST_MAXPES="+strconv.Itoa(len(c.Nodes)*perNode),
				"GOSHMEM_CACHE="+cache) // the node leaders' calibration at exit goes there, not into the user's
			cmd.Env = append(cmd.Env, v.env...)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			t.Logf("the suite across %d nodes × %d PE: %v", len(c.Nodes), perNode, time.Since(start).Round(time.Second))
			if err != nil {
				t.Fatalf("the suite across nodes failed (%v):\n%s", err, failures(string(out)))
			}
		})
	}
}

// TestMultinodeNetAlgorithms runs the reductions, broadcasts and collects across four fake
// nodes of two PEs, with each network algorithm forced and with auto: jobs of 3 PEs have
// three leaders (no recursive doubling), of 5 and 8 PEs four (auto: recursive doubling by
// mail for small vectors, through the scratch beyond a message, ring from 256 KiB;
// broadcasts by tree; collects by Bruck up to a message, direct beyond; vectors and
// messages up to 800 and 400 KB; teams split by the collects' network phase).
func TestMultinodeNetAlgorithms(t *testing.T) {
	if shmemtest.MultiNode() {
		t.Skip("already across nodes")
	}
	c := fakenodes.Require(t, 4)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		hosts[i] = n + ":2"
	}
	launcher := strings.Join([]string{c.Scripts + "/onnode", c.Nodes[0], "mpirun", "--host", strings.Join(hosts, ","),
		"--map-by", "node", "--bind-to", "none", "--oversubscribe"}, " ")
	cache := t.TempDir()
	const reductions, broadcasts, collects = "^TestReductions$/^auto$", "^Test(Broadcast|BroadcastRunAhead)$/^(tree|[0-9]PE)$", "^TestCollect$/^ring$"
	for _, v := range []struct{ setting, pattern string }{
		{"GOSHMEM_NET_REDUCE_ALGORITHM=auto", reductions},
		{"GOSHMEM_NET_REDUCE_ALGORITHM=tree", reductions},
		{"GOSHMEM_NET_REDUCE_ALGORITHM=rd", reductions},
		{"GOSHMEM_NET_REDUCE_ALGORITHM=ring", reductions},
		{"GOSHMEM_NET_BCAST_ALGORITHM=tree", broadcasts},
		{"GOSHMEM_NET_BCAST_ALGORITHM=ring", broadcasts},
		{"GOSHMEM_NET_COLLECT_ALGORITHM=auto", collects},
		{"GOSHMEM_NET_COLLECT_ALGORITHM=direct", collects},
		{"GOSHMEM_NET_COLLECT_ALGORITHM=bruck", collects},
	} {
		t.Run(v.setting, func(t *testing.T) {
			cmd := exec.Command(self, "-test.run="+v.pattern, "-test.short", "-test.count=1", "-test.timeout=10m")
			cmd.Env = append(append(os.Environ(), c.LauncherEnv()...),
				shmemtest.EnvLauncher+"="+launcher, "GOSHMEM_TEST_MAXPES=8", v.setting, "GOSHMEM_CACHE="+cache)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("across 4 nodes x 2 PEs, %s: %v\n%s", v.setting, err, failures(string(out)))
			}
		})
	}
}

// suitePattern picks the multi-PE tests (everything but the single-process ones and this);
// GOSHMEM_MULTINODE_RUN replaces it.
const suitePattern = "^Test([^M]|M[^u])"

// failures is the part of a test run's output worth reading: the failing tests' output.
func failures(out string) string {
	lines := strings.Split(out, "\n")
	if len(lines) > 400 {
		lines = lines[len(lines)-400:]
	}
	return strings.Join(lines, "\n")
}
