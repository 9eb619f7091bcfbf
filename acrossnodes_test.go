package shmem_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
	rt "github.com/goshmem/shmem/runtime"
)

// Tests of what a job spanning nodes adds; they run when shmemtest launches across nodes
// (GOSHMEM_TEST_LAUNCHER, see .ci/multinode) and skip otherwise.

// progressCalls reports whether this job runs with GOSHMEM_NET_PROGRESS=calls (no progress
// goroutine: the multinode suite's -calls run).
func progressCalls() bool { return wantNetProgress() == "calls" }

// wantNetProgress is the GOSHMEM_NET_PROGRESS mode this job's PEs must run: the one set, or
// auto's choice, wakeup where waits sleep (shmemtest makes them sleep across nodes unless a
// run sets GOSHMEM_WAIT) and poll where they spin.
func wantNetProgress() string {
	switch p := os.Getenv("GOSHMEM_NET_PROGRESS"); p {
	case "wakeup", "poll", "calls":
		return p
	}
	if os.Getenv("GOSHMEM_WAIT") == "spin" {
		return "poll"
	}
	return "wakeup"
}

func acrossNodesOnly(t *testing.T) {
	t.Helper()
	if !shmemtest.MultiNode() {
		t.Skip("one-node job: set " + shmemtest.EnvLauncher + " (see .ci/multinode) to run across nodes")
	}
}

// The shared team is my node's PEs; pointers reach exactly them; every PE is accessible.
func TestAcrossNodesLayout(t *testing.T) {
	acrossNodesOnly(t)
	forSizes(t, func(t *testing.T, me, n int) {
		host, _ := os.Hostname()
		names := mustAlloc[[64]byte](t, n)
		var mine [64]byte
		copy(mine[:], host)
		for pe := range n {
			shmem.Put(names[me:me+1], [][64]byte{mine}, pe)
		}
		shmem.BarrierAll()
		shared := shmem.TeamShared()
		local := 0
		for pe := range n {
			other := strings.TrimRight(string(names[pe][:]), "\x00")
			same := other == host
			if same {
				local++
			}
			if in := shmem.TeamWorld().TranslatePE(pe, shared) >= 0; in != same {
				t.Errorf("PE %d on %s in my shared team: %v, want %v (I am on %s)", pe, other, in, same, host)
			}
			if got := shmem.Ptr(&names[0], pe) != nil; got != same {
				t.Errorf("Ptr(PE %d on %s) non-nil = %v, want %v (I am on %s)", pe, other, got, same, host)
			}
			if !shmem.PEAccessible(pe) {
				t.Errorf("PE %d not accessible", pe)
			}
		}
		if shared.NPEs() != local {
			t.Errorf("shared team has %d PEs, %d are on my host %s", shared.NPEs(), local, host)
		}
	}, 2, 4)
}

// The node's memfd also reaches its PEs through the leader's socket (where /proc/<pid>/fd
// is closed to them): the job then works as with /proc.
func TestAcrossNodesMemfdSocket(t *testing.T) {
	acrossNodesOnly(t)
	if !shmemtest.InPE(t) {
		r := shmemtest.Launch(t, 4, shmemtest.Options{Env: []string{"GOSHMEM_TEST_MEMFD_SOCKET=1"}})
		if r.Status != 0 {
			t.Fatalf("status %d\n%s%s", r.Status, r.Stdout, r.Stderr)
		}
		return
	}
	me, n := initPE(t)
	xs := mustAlloc[int64](t, n)
	for pe := range n {
		if p := shmem.Ptr(&xs[me], pe); p != nil {
			*p = int64(me + 1)
		} else {
			shmem.P(&xs[me], int64(me+1), pe)
		}
	}
	shmem.BarrierAll()
	for pe := range n {
		if xs[pe] != int64(pe+1) {
			t.Fatalf("xs[%d] = %d", pe, xs[pe])
		}
	}
}

// A PE computing without calling the library still serves puts: a put+quiet to it ends
// long before its computation does (the progress goroutine), not when it next calls in.
func TestAcrossNodesProgress(t *testing.T) {
	acrossNodesOnly(t)
	if progressCalls() {
		t.Skip("GOSHMEM_NET_PROGRESS=calls: a computing PE serves nobody until it calls in")
	}
	forSizes(t, func(t *testing.T, me, n int) {
		took := mustAlloc[int64](t, 1)
		data := mustAlloc[int64](t, 1)
		const compute = 2 * time.Second
		shmem.BarrierAll()
		if me == 1 {
			end := time.Now().Add(compute)
			x := 0
			for time.Now().Before(end) { // no library call in here
				x++
			}
			_ = x
		} else if me == 0 {
			time.Sleep(100 * time.Millisecond) // PE 1 is computing
			start := time.Now()
			shmem.P(&data[0], 42, 1)
			shmem.Quiet()
			shmem.P(&took[0], int64(time.Since(start)), 1)
		}
		shmem.BarrierAll()
		if me == 1 {
			d := time.Duration(took[0])
			t.Logf("put+quiet to a computing PE: %v", d)
			if data[0] != 42 || d <= 0 || d >= compute/2 {
				t.Fatalf("put+quiet to a PE computing for %v took %v (data %d): served only when it called in", compute, d, data[0])
			}
		}
	}, 2)
}

// Another goroutine's operations to other nodes go on while a goroutine of the same PE
// waits in a barrier, polling the engine with the worker held (engine.c "Polled waits"):
// PE 1 enters the barrier only once PE 0's second goroutine has done its gets from PE 1
// and told it so. A wait that kept the worker would leave the gets, and the job, hanging.
func TestAcrossNodesWaitSharesWorker(t *testing.T) {
	acrossNodesOnly(t)
	forSizes(t, func(t *testing.T, me, n int) {
		src := mustAlloc[int64](t, 1)
		done := mustAlloc[int64](t, 1)
		src[0] = int64(100 + me)
		shmem.BarrierAll()
		switch me {
		case 0:
			var wrong atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				var got [1]int64
				for range 200 {
					shmem.Get(got[:], src, 1)
					if got[0] != 101 {
						wrong.Store(got[0])
					}
				}
				shmem.P(&done[0], 1, 1)
				shmem.Quiet()
			}()
			shmem.BarrierAll() // PE 1 arrives once the gets are done
			wg.Wait()
			if v := wrong.Load(); v != 0 {
				t.Fatalf("a get from PE 1 during PE 0's barrier read %d, want 101", v)
			}
		case 1:
			shmem.WaitUntil(&done[0], shmem.CmpEQ, 1)
			shmem.BarrierAll()
		default:
			shmem.BarrierAll()
		}
	}, 2)
}

// A root broadcasting in a loop runs at most 64 broadcasts (the mail window) ahead of a PE
// on another node that is not taking them, so the messages queued at the receiver stay
// bounded. PE 1 starts late and tells PE 0 first; PE 0 counts the broadcasts it finished
// before it heard (without the window: all of them).
func TestAcrossNodesBroadcastWindow(t *testing.T) {
	acrossNodesOnly(t)
	forSizes(t, func(t *testing.T, me, n int) {
		const calls, window = 1000, 64
		started := mustAlloc[int64](t, 1)
		src, dst := mustAlloc[int64](t, 1), mustAlloc[int64](t, 1)
		world := shmem.TeamWorld()
		shmem.BarrierAll()
		if me == 1 {
			time.Sleep(500 * time.Millisecond) // PE 0 runs ahead meanwhile, as far as it may
			shmem.P(&started[0], 1, 0)
			shmem.Quiet()
		}
		ahead := calls
		for call := range calls {
			src[0] = int64(call)
			if err := shmem.Broadcast(world, dst, src, 0); err != nil {
				t.Fatal(err)
			}
			if me == 0 && ahead == calls && atomic.LoadInt64(&started[0]) != 0 {
				ahead = call // calls 0 .. call-1 were finished before PE 1 started
			}
			if me != 0 && dst[0] != int64(call) {
				t.Fatalf("PE %d call %d: dst %d", me, call, dst[0])
			}
		}
		if me == 0 {
			t.Logf("PE 0 finished %d broadcasts before PE 1 started taking them", ahead)
			if ahead > window {
				t.Fatalf("PE 0 finished %d broadcasts before PE 1 started taking them: the window is %d", ahead, window)
			}
		}
	}, 2)
}

// The progress goroutine ends in Finalize: a C program's exit runs UCX's library destructors
// right after shmem_finalize, and a progress meanwhile aborted the process inside UCX. PE 1
// puts to PE 0 right before Finalize, so PE 0's worker has had events to serve. With
// GOSHMEM_NET_PROGRESS=calls there is none from the start; otherwise it serves as the
// setting and the wait policy choose.
func TestAcrossNodesFinalizeEndsProgress(t *testing.T) {
	acrossNodesOnly(t)
	forSizes(t, func(t *testing.T, me, n int) {
		if rt.EngineServing() == progressCalls() {
			t.Fatalf("progress goroutine running: %v, with GOSHMEM_NET_PROGRESS=%q", rt.EngineServing(), os.Getenv("GOSHMEM_NET_PROGRESS"))
		}
		if got, want := rt.NetProgress(), wantNetProgress(); got != want {
			t.Fatalf("network progress %q, want %q (GOSHMEM_NET_PROGRESS=%q, GOSHMEM_WAIT=%q)", got, want, os.Getenv("GOSHMEM_NET_PROGRESS"), os.Getenv("GOSHMEM_WAIT"))
		}
		word := mustAlloc[int64](t, 1)
		shmem.BarrierAll()
		if me == 1 {
			for range 1000 {
				shmem.P(&word[0], 1, 0)
			}
		}
		shmem.Finalize()
		deadline := time.Now().Add(5 * time.Second)
		for rt.EngineServing() {
			if time.Now().After(deadline) {
				t.Fatal("the progress goroutine still runs 5 s after shmem.Finalize: it may call into UCX while the process exits")
			}
			time.Sleep(time.Millisecond)
		}
	}, 2)
}

// Each communication context has a UCX worker of its own, released when it is destroyed;
// the contexts' operations to other nodes complete at their own Quiet.
func TestAcrossNodesCtxWorkers(t *testing.T) {
	acrossNodesOnly(t)
	forSizes(t, func(t *testing.T, me, n int) {
		const k = 3
		dst := mustAlloc[int64](t, k)
		base := rt.EngineWorkers()
		if base < 1 {
			t.Fatalf("%d engine workers before any context: want the default one", base)
		}
		ctxs := make([]shmem.Ctx, k)
		for i := range ctxs {
			c, err := shmem.CtxCreate(shmem.CtxPrivate)
			if err != nil {
				t.Fatal(err)
			}
			ctxs[i] = c
		}
		if w := rt.EngineWorkers(); w != base+k {
			t.Fatalf("%d engine workers with %d contexts, want %d", w, k, base+k)
		}
		peer := (me + 1) % n // another node: PEs are placed round-robin over the nodes
		for i, c := range ctxs {
			shmem.CtxP(c, &dst[i], int64(me*10+i), peer)
			c.Quiet()
		}
		shmem.BarrierAll()
		from := (me + n - 1) % n
		for i := range k {
			if want := int64(from*10 + i); dst[i] != want {
				t.Fatalf("dst[%d] = %d after context %d's put and quiet, want %d", i, dst[i], i, want)
			}
		}
		for i, c := range ctxs {
			if g := shmem.CtxG(c, &dst[i], peer); g != int64(me*10+i) {
				t.Fatalf("context %d read %d, want %d", i, g, me*10+i)
			}
			c.Destroy()
		}
		if w := rt.EngineWorkers(); w != base {
			t.Fatalf("%d engine workers after destroying the contexts, want %d", w, base)
		}
		shmem.BarrierAll()
	}, 2, 4)
}

// Non-blocking puts and gets to another node only start: many are in flight at once, from
// and into Go memory (pinned until Quiet, while the collector runs), and Quiet completes
// them all.
func TestAcrossNodesNBI(t *testing.T) {
	acrossNodesOnly(t)
	forSizes(t, func(t *testing.T, me, n int) {
		const chunks, k = 64, 512
		src := mustAlloc[int64](t, chunks*k)
		dst := mustAlloc[int64](t, chunks*k)
		for i := range src {
			src[i] = int64(me)<<32 | int64(i)
		}
		shmem.BarrierAll()
		peer := (me + 1) % n // on another node
		got := make([][]int64, chunks)
		for c := range got {
			got[c] = make([]int64, k)
			shmem.GetNBI(got[c], src[c*k:(c+1)*k], peer)
		}
		out := make([]int64, chunks*k)
		for i := range out {
			out[i] = -int64(i)
		}
		for c := 0; c < chunks; c++ {
			shmem.PutNBI(dst[c*k:(c+1)*k], out[c*k:(c+1)*k], peer)
		}
		runtime.GC() // the buffers are pinned, not moved or freed
		shmem.Quiet()
		for c := range got {
			for i, v := range got[c] {
				if want := int64(peer)<<32 | int64(c*k+i); v != want {
					t.Fatalf("GetNBI chunk %d element %d = %#x after Quiet, want %#x", c, i, v, want)
				}
			}
		}
		shmem.BarrierAll()
		for i, v := range dst {
			if v != -int64(i) {
				t.Fatalf("PutNBI element %d = %d after Quiet and a barrier, want %d", i, v, -i)
			}
		}
		shmem.BarrierAll()
	}, 2, 4)
}

// A binary built without -tags goshmem_ucx and started by a PMIx launcher stops with a clear
// message instead of running as N one-PE jobs.
func TestAcrossNodesNeedsEngine(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	jobFails(t, buildTestprog(t, false), "barrier", "rebuild it with -tags goshmem_ucx")
}

// GOSHMEM_BIND_TO=core: goshmem pins each node's PEs, one per core, as shmemrun would.
func TestAcrossNodesBinding(t *testing.T) {
	acrossNodesOnly(t)
	if !shmemtest.InPE(t) {
		r := shmemtest.Launch(t, 4, shmemtest.Options{Env: []string{"GOSHMEM_BIND_TO=core", "GOSHMEM_REPORT_BINDINGS=1"}})
		if r.Status != 0 {
			t.Fatalf("status %d\n%s%s", r.Status, r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "PE 3:") {
			t.Fatalf("no binding report for PE 3:\n%s", r.Stderr)
		}
		return
	}
	me, n := initPE(t)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	cpu := -1
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			cpu = c
			break
		}
	}
	host, _ := os.Hostname()
	cpus := mustAlloc[int64](t, n)
	for pe := range n {
		shmem.P(&cpus[me], int64(cpu), pe)
	}
	shmem.BarrierAll()
	if set.Count() != 1 && runtime.NumCPU() > 1 {
		t.Fatalf("PE %d on %s may run on %d CPUs, want 1 (GOSHMEM_BIND_TO=core)", me, host, set.Count())
	}
	shared := shmem.TeamShared()
	for i := range shared.NPEs() {
		pe := shared.TranslatePE(i, shmem.TeamWorld())
		if pe != me && cpus[pe] == int64(cpu) && shared.NPEs() <= runtime.NumCPU() {
			t.Fatalf("PEs %d and %d on %s both on CPU %d", me, pe, host, cpu)
		}
	}
}

// GOSHMEM_NET_EAGER must be the same on every PE (both ends of a network phase split data
// into messages by it): PE 1 with another value stops the job at Init, naming both.
func TestAcrossNodesEagerMismatch(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	bin := buildTestprog(t, true)
	wrap := filepath.Join(filepath.Dir(bin), "wrap")
	script := "#!/bin/sh\nif [ \"$PMIX_RANK\" = 1 ]; then export GOSHMEM_NET_EAGER=1K; fi\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	jobFails(t, wrap, "finalize", "GOSHMEM_NET_EAGER is", "set it the same for every PE")
}

// A collect whose dst on one PE is shorter than the members' contributions stops the job
// with a message naming the routine and both sizes (the counts come with the blocks
// across nodes, and are checked before any block is placed).
func TestAcrossNodesCollectShortDst(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	jobFails(t, buildTestprog(t, true), "collectshort", "shmem.Collect: dst holds 56 bytes, the members contribute 64")
}

// A broadcast whose PEs pass different sizes stops the job with a message naming both
// (across nodes the root's data comes as one message of its size, and is checked).
func TestAcrossNodesBroadcastSizes(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	jobFails(t, buildTestprog(t, true), "bcastsizes", "shmem.Broadcast: PE 0", "sent 16 bytes where PE 1 expects 8")
}

// SHMEM_DEBUG compares a collective's arguments across nodes too: the last PE (on another
// node than PE 0) reduces fewer elements, and the job stops with both counts.
func TestAcrossNodesDebugCounts(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	t.Setenv("SHMEM_DEBUG", "1")
	jobFails(t, buildTestprog(t, true), "reducecounts", "SHMEM_DEBUG: PEs passed different element counts: PE 0 passed 4, PE 1 passed 3")
}

// A SHMEM_DEBUG hang report across nodes says only what its node sees: its own PEs' waits
// and which of them have not arrived, and the other nodes by name (each node's first PE
// that waits as long reports its own; the PEs are numbered round-robin over the nodes).
func TestAcrossNodesDebugHang(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	n := 4
	if m, err := strconv.Atoi(os.Getenv("GOSHMEM_TEST_MAXPES")); err == nil && m < 4 {
		n = 2
	}
	t.Setenv("SHMEM_DEBUG", "1")
	t.Setenv("SHMEM_DEBUG_TIMEOUT", "3")
	r := shmemtest.LaunchProg(t, n, buildTestprog(t, true), "barrier") // the last PE sleeps
	out := r.Stdout + r.Stderr
	// The first node's report (by PE 0 or 2) names the second node's PEs.
	want := []string{"every member on this node has arrived", "PE 1 on ", "another node; a PE of it that waits as long reports it"}
	if n == 4 { // PEs 1 and 3 share the second node: PE 1 reports PE 3
		want = append(want, "PEs 1, 3 on ", "SHMEM_DEBUG: PE 1 on ", "not arrived on this node: PE 3", "running outside the library's waits", "PEs 0, 2 on ")
	}
	for _, w := range want {
		if r.Status != 1 || !strings.Contains(out, w) {
			t.Fatalf("status %d, want 1 and %q\n%s", r.Status, w, out)
		}
	}
	if strings.Contains(out, "not started") {
		t.Errorf("a PE of another node reported as not started:\n%s", out)
	}
}

// The network phases of reductions, broadcasts and collects are chosen by PE 0's network model or
// forced by GOSHMEM_NET_*_ALGORITHM, and SHMEM_INFO says which runs at each size (the forced
// runs themselves: TestMultinodeNetAlgorithms).
func TestAcrossNodesNetInfo(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	bin := buildTestprog(t, true)
	t.Setenv("SHMEM_INFO", "1")
	for _, c := range []struct{ setting, value, want string }{
		// Small sizes cost a hop each way: rd's one exchange; where ring takes over depends on
		// this machine's calibrated combine bandwidth.
		{"GOSHMEM_NET_REDUCE_ALGORITHM", "auto", "reduce    rd 8 B-"},
		{"GOSHMEM_NET_REDUCE_ALGORITHM", "ring", "reduce    ring 8 B-\n"},
		{"GOSHMEM_NET_REDUCE_ALGORITHM", "tree", "reduce    tree 8 B-\n"},
		{"GOSHMEM_NET_BCAST_ALGORITHM", "auto", "bcast     tree 8 B-\n"}, // two leaders: the ring's root sends it all too
		{"GOSHMEM_NET_BCAST_ALGORITHM", "ring", "bcast     ring 8 B-\n"},
		{"GOSHMEM_NET_COLLECT_ALGORITHM", "auto", "collect   direct 8 B-\n"}, // two leaders: one message either way
		{"GOSHMEM_NET_COLLECT_ALGORITHM", "bruck", "collect   bruck 8 B-64 KiB, direct 128 KiB-\n"},
	} {
		t.Setenv(c.setting, c.value)
		r := shmemtest.LaunchProg(t, 2, bin, "lines") // lines, then a normal end
		out := r.Stderr
		if r.Status != 0 || !strings.Contains(out, "network phase among the 2 node leaders") || !strings.Contains(out, c.want) {
			t.Errorf("%s=%s: status %d, want 0 and %q\n%s", c.setting, c.value, r.Status, c.want, out)
		}
		t.Setenv(c.setting, "auto")
	}
}

// The engine's UCX settings (runtime/ucx/engine.c, ucx_defaults) are in effect where the
// user made none, and SHMEM_INFO names them; a user's setting wins.
func TestAcrossNodesUCXSettings(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	bin := buildTestprog(t, true)
	t.Setenv("SHMEM_INFO", "1")
	const line = "goshmem: UCX settings (goshmem's where unset): "
	for _, c := range []struct{ user, want string }{
		{"", "UCX_ATOMIC_MODE=cpu UCX_FLUSH_WORKER_EPS=n UCX_TCP_TX_SEG_SIZE=64K UCX_TCP_RX_SEG_SIZE=256K\n"},
		{"UCX_TCP_TX_SEG_SIZE=16K", "UCX_ATOMIC_MODE=cpu UCX_FLUSH_WORKER_EPS=n UCX_TCP_TX_SEG_SIZE=16K UCX_TCP_RX_SEG_SIZE=256K\n"},
	} {
		if k, v, ok := strings.Cut(c.user, "="); ok {
			t.Setenv(k, v)
		}
		r := shmemtest.LaunchProg(t, 2, bin, "lines")
		if r.Status != 0 || !strings.Contains(r.Stderr, line+c.want) {
			t.Errorf("with %q: status %d, want 0 and %q\n%s", c.user, r.Status, line+c.want, r.Stderr)
		}
	}
}

// The first job on a node with no model of its machine in the cache runs on the default
// model and its node leader measures one when the job ends, PE 0 the network level to a PE
// of another node; the next job uses both.
func TestAcrossNodesCalibrateAtExit(t *testing.T) {
	acrossNodesOnly(t)
	if shmemtest.InPE(t) {
		return
	}
	bin := buildTestprog(t, true)
	cache := t.TempDir()
	t.Setenv("GOSHMEM_CACHE", cache)
	t.Setenv("SHMEM_INFO", "1")
	r := shmemtest.LaunchProg(t, 2, bin, "lines")
	if r.Status != 0 || !strings.Contains(r.Stderr, "this node's leader measures one when the job ends") {
		t.Fatalf("first job: status %d, want 0 and the default model\n%s", r.Status, r.Stderr)
	}
	models, _ := filepath.Glob(filepath.Join(cache, "model-*.txt"))
	if len(models) != 1 { // the fake nodes share a file system and are one machine kind
		t.Fatalf("after the first job the cache holds models %v, want one", models)
	}
	// PE 0 measured the network level to a PE of the other node too, into the same file.
	b, err := os.ReadFile(models[0])
	if err != nil {
		t.Fatal(err)
	}
	const netMeasured = "measured across nodes when a job ended (PE 0 on "
	for _, f := range []string{"LatNet", "BWNet"} {
		if !regexp.MustCompile(`(?m)^` + f + ` +\S+ +` + regexp.QuoteMeta(netMeasured)).Match(b) {
			t.Fatalf("after the first job %s has no measured %s:\n%s", models[0], f, b)
		}
	}
	r = shmemtest.LaunchProg(t, 2, bin, "lines")
	if r.Status != 0 || !strings.Contains(r.Stderr, "cost model: calibrated "+models[0]) || !strings.Contains(r.Stderr, netMeasured) {
		t.Fatalf("second job: status %d, want 0 and the model %s with its network level\n%s", r.Status, models[0], r.Stderr)
	}
	// A model of the node whose network level is the default's (a node calibrated before
	// any job across nodes ran): the next job measures it.
	reset := regexp.MustCompile(`(?m)^((?:LatNet|BWNet) +\S+ +)measured across nodes.*$`).ReplaceAll(b, []byte("${1}default"))
	if strings.Contains(string(reset), netMeasured) {
		t.Fatalf("resetting the network level left it:\n%s", reset)
	}
	if err := os.WriteFile(models[0], reset, 0o644); err != nil {
		t.Fatal(err)
	}
	r = shmemtest.LaunchProg(t, 2, bin, "lines")
	if b, err = os.ReadFile(models[0]); err != nil || r.Status != 0 || !strings.Contains(string(b), netMeasured) {
		t.Fatalf("third job: status %d (%v), want 0 and the network level measured again into %s:\n%s", r.Status, err, models[0], b)
	}
}

// buildTestprog builds internal/testprog into a directory of the test's, with the
// many-node engine or without.
func buildTestprog(t *testing.T, engine bool) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testprog")
	args := []string{"build", "-o", bin}
	if engine {
		args = append(args, "-tags", "goshmem_ucx")
	}
	if out, err := exec.Command("go", append(args, "./internal/testprog")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// jobFails runs bin's mode on 2 PEs and wants a non-zero status and output holding each of want.
func jobFails(t *testing.T, bin, mode string, want ...string) {
	t.Helper()
	r := shmemtest.LaunchProg(t, 2, bin, mode)
	out := r.Stdout + r.Stderr
	for _, w := range want {
		if r.Status == 0 || !strings.Contains(out, w) {
			t.Fatalf("status %d, want non-zero and %q\n%s", r.Status, w, out)
		}
	}
}

// Every connection to another node starts primed (engine.c "Priming"): the kernel's
// estimate of the peer's segment size is past its initial 536 bytes before the program
// sends anything that large, so a barrier's flag and a mid-size message behind it are not
// acknowledged on their own. ss reads the estimate (rcvmss) of this process's connections.
func TestAcrossNodesPrimedConnections(t *testing.T) {
	acrossNodesOnly(t)
	if _, err := exec.LookPath("ss"); err != nil {
		t.Skip("no ss to read the connections' state (apt-get install iproute2)")
	}
	forSizes(t, func(t *testing.T, me, n int) {
		for range 10 { // every PE's priming went out before its flags
			shmem.BarrierAll()
		}
		out, err := exec.Command("ss", "-tniHp", "state", "established").Output()
		if err != nil {
			t.Fatalf("ss: %v", err)
		}
		mine := fmt.Sprintf("pid=%d,", os.Getpid())
		rcvMSS := regexp.MustCompile(`\brcvmss:(\d+)`)
		checked := 0
		lines := strings.Split(string(out), "\n")
		for i := 0; i+1 < len(lines); i++ {
			f := strings.Fields(lines[i])
			if len(f) < 5 || !strings.Contains(lines[i], mine) || strings.HasPrefix(lines[i], "\t") {
				continue
			}
			if peer := f[3]; strings.HasPrefix(peer, "127.") || strings.HasPrefix(peer, "[::1]") {
				continue // the launcher's PMIx server on this node
			}
			m := rcvMSS.FindStringSubmatch(lines[i+1])
			if m == nil {
				t.Fatalf("no rcvmss for %s -> %s in ss's output:\n%s", f[2], f[3], out)
			}
			if v, _ := strconv.Atoi(m[1]); v <= 536 {
				t.Errorf("connection %s -> %s: rcvmss %d, not grown past the kernel's initial 536", f[2], f[3], v)
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("no connection of PE %d (pid %d) to another node in ss's output:\n%s", me, os.Getpid(), out)
		}
	}, 2, 4)
}
