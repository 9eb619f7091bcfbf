package fakenodes

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// The command line a job gets, without any node: flags, -np, -x, the order of the parts.
func TestCommand(t *testing.T) {
	c := &Cluster{Nodes: []string{"gsn1", "gsn2", "gsn3"}, Scripts: "/s"}
	cases := []struct {
		j    Job
		want string
		err  string
	}{
		{Job{PerNode: 1, Prog: "/bin/hostname"}, "/s/onnode gsn1 mpirun --host gsn1:1,gsn2:1,gsn3:1 -np 3 --bind-to none /bin/hostname", ""},
		{Job{Nodes: 2, PerNode: 2, MapBy: "node", Prog: "/p", Args: []string{"-a", "b c"}, Env: []string{"SHMEM_DEBUG=1"}},
			"/s/onnode gsn1 mpirun --host gsn1:2,gsn2:2 -np 4 --bind-to none --map-by node -x SHMEM_DEBUG /p -a b c", ""},
		{Job{Nodes: 2, PerNode: 1, Launcher: "oshrun", LauncherArgs: []string{"--mca", "spml", "ucx"}, Prog: "/p"},
			"/s/onnode gsn1 oshrun --host gsn1:1,gsn2:1 -np 2 --bind-to none --mca spml ucx /p", ""},
		{Job{Nodes: 4, PerNode: 1, Prog: "/p"}, "", "Nodes = 4, the cluster has 3"},
		{Job{PerNode: 0, Prog: "/p"}, "", "PerNode = 0 out of range"},
		{Job{PerNode: 1}, "", "no Prog"},
		{Job{PerNode: 1, Prog: "/p", Env: []string{"NOEQUALS"}}, "", `Env entry "NOEQUALS"`},
	}
	for i, tc := range cases {
		cmd, err := c.Command(tc.j)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "fakenodes.Command") {
				t.Errorf("case %d: error %v, want one naming fakenodes.Command and %q", i, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got := strings.Join(cmd.Args, " "); got != tc.want {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, tc.want)
		}
		env := strings.Join(cmd.Env, "\n")
		for _, kv := range append(c.LauncherEnv(), tc.j.Env...) {
			if !strings.Contains(env, kv) {
				t.Errorf("case %d: environment lacks %s", i, kv)
			}
		}
	}
}

// count tallies field key's values in lines of "key value" pairs.
func count(lines []string, key string) map[string]int {
	n := map[string]int{}
	for _, l := range lines {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i += 2 {
			if f[i] == key {
				n[f[i+1]]++
			}
		}
	}
	return n
}

// mpirun across 2 nodes × 1 and 2 × 2: every node runs its share, under its own name.
func TestMultinodeHostname(t *testing.T) {
	c := Require(t, 2)
	for _, per := range []int{1, 2} {
		t.Run(fmt.Sprintf("2x%d", per), func(t *testing.T) {
			r := c.Mpirun(t, Job{PerNode: per, Prog: "/bin/hostname", Timeout: time.Minute})
			if r.ExitCode != 0 {
				t.Fatal(r)
			}
			got := map[string]int{}
			for _, l := range r.Lines() {
				got[strings.TrimSpace(l)]++
			}
			if len(got) != 2 || got["gsn1"] != per || got["gsn2"] != per {
				t.Fatalf("hostnames %v, want gsn1 and gsn2 %d times each\n%v", got, per, r)
			}
			t.Logf("mpirun of hostname on 2x%d: %v", per, r.Elapsed.Round(time.Millisecond))
		})
	}
}

// What a PMIx program sees across the nodes, by slot and by node: its rank once, the job
// size, its node's name, and its node's PEs as local peers (what goshmem's node heap needs).
func TestMultinodePMIx(t *testing.T) {
	c := Require(t, 2)
	prog := PMIxInfo(t)
	for _, tc := range []struct {
		per   int
		mapBy string
	}{{1, ""}, {2, ""}, {2, "node"}} {
		t.Run(fmt.Sprintf("2x%d-by-%s", tc.per, map[string]string{"": "slot"}[tc.mapBy]+tc.mapBy), func(t *testing.T) {
			r := c.Mpirun(t, Job{PerNode: tc.per, MapBy: tc.mapBy, Prog: prog, Timeout: time.Minute})
			if r.ExitCode != 0 {
				t.Fatal(r)
			}
			n := 2 * tc.per
			lines := r.Lines()
			if len(lines) != n {
				t.Fatalf("%d lines, want %d\n%v", len(lines), n, r)
			}
			hostOf := map[int]string{}
			peersOf := map[string]string{}
			for _, l := range lines {
				var rank, size, lrank, lsize int
				var host, peers string
				if _, err := fmt.Sscanf(l, "rank %d size %d host %s localrank %d localsize %d peers %s", &rank, &size, &host, &lrank, &lsize, &peers); err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				if size != n || lsize != tc.per || lrank < 0 || lrank >= tc.per {
					t.Errorf("%q: want size %d localsize %d", l, n, tc.per)
				}
				if _, dup := hostOf[rank]; dup || rank < 0 || rank >= n {
					t.Errorf("%q: rank repeated or out of range", l)
				}
				hostOf[rank] = host
				if p, ok := peersOf[host]; ok && p != peers {
					t.Errorf("%s: local peers %s and %s", host, p, peers)
				}
				peersOf[host] = peers
			}
			if h := count(lines, "host"); len(h) != 2 || h["gsn1"] != tc.per || h["gsn2"] != tc.per {
				t.Fatalf("hosts %v\n%v", h, r)
			}
			// The peers a node reports are exactly the ranks that ran there, and the mapping
			// is the one asked for.
			for host, peers := range peersOf {
				var want []string
				for rank := range n {
					if hostOf[rank] == host {
						want = append(want, strconv.Itoa(rank))
					}
				}
				sort.Strings(want)
				if peers != strings.Join(want, ",") {
					t.Errorf("%s: local peers %s, ranks there %v", host, peers, want)
				}
			}
			for rank := range n {
				node := rank / tc.per
				if tc.mapBy == "node" {
					node = rank % 2
				}
				if want := c.Nodes[node]; hostOf[rank] != want {
					t.Errorf("rank %d on %s, want %s (map-by %q)", rank, hostOf[rank], want, tc.mapBy)
				}
			}
		})
	}
}

// A node's /dev/shm is shared by everything on that node, and seen by no other node.
func TestMultinodeIsolation(t *testing.T) {
	c := Require(t, 2)
	name := fmt.Sprintf("/dev/shm/fakenodes-test-%d", os.Getpid())
	if b, err := c.OnNode("gsn1", "touch", name).CombinedOutput(); err != nil {
		t.Fatalf("touch on gsn1: %v %s", err, b)
	}
	defer c.OnNode("gsn1", "rm", "-f", name).Run()
	if err := c.OnNode("gsn1", "test", "-e", name).Run(); err != nil {
		t.Errorf("a second entry into gsn1 does not see gsn1's %s: %v", name, err)
	}
	if err := c.OnNode("gsn2", "test", "-e", name).Run(); err == nil {
		t.Errorf("gsn2 sees gsn1's %s", name)
	}
	if _, err := os.Stat(name); err == nil {
		t.Errorf("the machine sees gsn1's %s", name)
	}
	for _, node := range c.Nodes {
		b, err := c.OnNode(node, "hostname").Output()
		if err != nil || strings.TrimSpace(string(b)) != node {
			t.Errorf("hostname on %s: %q %v", node, b, err)
		}
	}
}

// While the nodes exist the scheduler's autogroups are off (mknodes): with them, PEs of two
// nodes pinned to one CPU starved each other for seconds.
func TestMultinodeAutogroupOff(t *testing.T) {
	Require(t, 2)
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if os.IsNotExist(err) {
		t.Skip("this kernel has no autogroups")
	}
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(b)); v != "0" {
		t.Errorf("kernel.sched_autogroup_enabled is %s while fake nodes exist, want 0", v)
	}
}

// A job that outlives its timeout is killed with everything it started on every node.
func TestMultinodeTimeout(t *testing.T) {
	c := Require(t, 2)
	// A distinctive argument finds this job's processes among other tests'.
	arg := strconv.Itoa(100000 + os.Getpid()%100000)
	r := c.Mpirun(t, Job{PerNode: 1, Prog: "/bin/sleep", Args: []string{arg}, Timeout: 3 * time.Second})
	if !r.TimedOut || r.ExitCode == 0 {
		t.Fatalf("not killed at the timeout:\n%v", r)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for _, node := range c.Nodes {
			ps, err := c.Procs(node)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if strings.Contains(p, arg) {
					left = append(left, node+": "+p)
				}
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind 10 s after the kill:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The cost of a launch across fake nodes: mpirun of /bin/true from node 1, on node 1 only
// (2 PEs: no remote daemon) and on 2 nodes × 1 and × 2 (a daemon started through nsrsh).
func BenchmarkMultinodeLaunch(b *testing.B) {
	c := Require(b, 2)
	for _, s := range []struct {
		name       string
		nodes, per int
	}{{"1x2", 1, 2}, {"2x1", 2, 1}, {"2x2", 2, 2}} {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				r := c.Mpirun(b, Job{Nodes: s.nodes, PerNode: s.per, Prog: "/bin/true", Timeout: time.Minute})
				if r.ExitCode != 0 {
					b.Fatal(r)
				}
			}
		})
	}
}

// UCX sees the fake nodes as separate machines: its shared-memory transports reach a PE on
// the same node and not one on the other (where only TCP does). Without the per-node IPC
// namespace and /dev/shm it would silently use shared memory between "nodes".
func TestMultinodeUCXIsolation(t *testing.T) {
	c := Require(t, 2)
	if _, err := exec.LookPath("ucx_perftest"); err != nil {
		Skip(t, "no ucx_perftest (apt-get install ucx-utils)")
	}
	// Below Linux's ephemeral ports (32768 up): the PEs of other packages' tests on these
	// nodes listen on ephemeral ports, and a server port among them failed with
	// EADDRINUSE once in CI.
	port := 20000 + os.Getpid()%10000
	for _, tc := range []struct {
		server, tls string
		reach       bool
	}{{"gsn1", "sm,self", true}, {"gsn2", "sm,self", false}, {"gsn2", "tcp,self", true}} {
		port++
		t.Run(tc.server+"-"+tc.tls, func(t *testing.T) {
			env := append(os.Environ(), "UCX_TLS="+tc.tls)
			srv := c.OnNode(tc.server, "ucx_perftest", "-p", strconv.Itoa(port))
			srv.Env = env
			var srvOut strings.Builder
			srv.Stdout, srv.Stderr = &srvOut, &srvOut
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { srv.Process.Kill(); srv.Wait() }()
			var out []byte
			// The server needs a moment to listen: retry while the connection is refused.
			for try := 0; ; try++ {
				cl := c.OnNode("gsn1", "timeout", "30", "ucx_perftest", tc.server, "-p", strconv.Itoa(port), "-t", "ucp_put_lat", "-s", "8", "-n", "100")
				cl.Env = env
				out, _ = cl.CombinedOutput()
				if !strings.Contains(string(out), "refused") || try == 50 {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			done := strings.Contains(string(out), "Final:")
			unreachable := strings.Contains(string(out), "Destination is unreachable")
			if tc.reach && !done || !tc.reach && (done || !unreachable) {
				t.Fatalf("gsn1 to %s over UCX_TLS=%s: want reachable=%v; client:\n%s\nserver:\n%s", tc.server, tc.tls, tc.reach, out, srvOut.String())
			}
		})
	}
}

// The test binary itself as the PEs, across the nodes: each PE runs only this test (its
// PE side), which sees its node's hostname and the launcher's PMIx environment, and a PE
// calling Require is refused.
func TestMultinodeSelf(t *testing.T) {
	const envPE = "FAKENODES_SELF_PE"
	if os.Getenv(envPE) == t.Name() {
		host, _ := os.Hostname()
		_, err := Ensure(1)
		fmt.Printf("pe host %s rank %s refused %v\n", host, os.Getenv("PMIX_RANK"), err != nil && strings.Contains(err.Error(), "inside a job"))
		return
	}
	c := Require(t, 2)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := c.Mpirun(t, Job{PerNode: 2, Prog: self, Args: SelfArgs(t, time.Minute), Env: []string{envPE + "=" + t.Name()}, Timeout: time.Minute})
	if r.ExitCode != 0 {
		t.Fatal(r)
	}
	var pes []string
	for _, l := range r.Lines() {
		if strings.HasPrefix(l, "pe ") {
			pes = append(pes, strings.TrimPrefix(l, "pe "))
		}
	}
	if h := count(pes, "host"); len(pes) != 4 || h["gsn1"] != 2 || h["gsn2"] != 2 {
		t.Fatalf("PEs %v, want 2 on each node\n%v", h, r)
	}
	if rk := count(pes, "rank"); len(rk) != 4 {
		t.Errorf("PMIX_RANK values %v, want 0-3\n%v", rk, r)
	}
	if ref := count(pes, "refused"); ref["true"] != 4 {
		t.Errorf("Require inside a PE not refused everywhere: %v", pes)
	}
}

// What reaches the PEs on the other node: by default the test's whole environment (nsrsh
// passes it on); with CleanRemoteEnv only what the launcher forwards, as over real ssh.
func TestMultinodeRemoteEnv(t *testing.T) {
	c := Require(t, 2)
	t.Setenv("FAKENODES_LOCAL_ONLY", "yes")
	for _, clean := range []bool{false, true} {
		t.Run(fmt.Sprintf("clean=%v", clean), func(t *testing.T) {
			r := c.Mpirun(t, Job{PerNode: 1, Prog: "/bin/sh", Env: []string{"FAKENODES_FWD=yes"}, CleanRemoteEnv: clean, Timeout: time.Minute,
				Args: []string{"-c", `echo host $(hostname) local ${FAKENODES_LOCAL_ONLY:-no} fwd ${FAKENODES_FWD:-no}`}})
			if r.ExitCode != 0 {
				t.Fatal(r)
			}
			got := map[string]string{}
			for _, l := range r.Lines() {
				f := strings.Fields(l)
				if len(f) == 6 {
					got[f[1]] = strings.Join(f[2:], " ")
				}
			}
			remote := "local yes fwd yes"
			if clean {
				remote = "local no fwd yes"
			}
			if got["gsn1"] != "local yes fwd yes" || got["gsn2"] != remote {
				t.Fatalf("gsn1 %q, gsn2 %q; want gsn2 %q\n%v", got["gsn1"], got["gsn2"], remote, r)
			}
		})
	}
}
