package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
	"github.com/goshmem/shmem/runtime/launch"
	"golang.org/x/sys/unix"
)

func TestParseHosts(t *testing.T) {
	good := []struct {
		in   string
		want []host
	}{
		{"a:32,b:32", []host{{"a", 32}, {"b", 32}}},
		{"n1", []host{{"n1", 1}}},
		{"x.example.org:4,10.0.0.2", []host{{"x.example.org", 4}, {"10.0.0.2", 1}}},
	}
	for _, c := range good {
		got, err := parseHosts(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseHosts(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", `bad host name ""`},
		{"a,,b", `bad host name ""`},
		{":4", `bad host name ""`},
		{"a:0", `slots "0" not in`},
		{"a:-1", `slots "-1" not in`},
		{"a:x", `slots "x" not in`},
		{"a:99999999999999999999", "not in"},
		{"a:2000000", "not in"},
		{"a:1,a:2", "a listed twice"},
		{"a b:2", "bad host name"},
		{"a;rm:2", "bad host name"},
	}
	for _, c := range bad {
		_, err := parseHosts(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "--hosts ") {
			t.Errorf("parseHosts(%q): error %v, want one naming --hosts and %q", c.in, err, c.msg)
		}
	}
}

func TestParseHostfile(t *testing.T) {
	got, err := parseHostfile("f", "# cluster\nn1 slots=4 max_slots=8\n\n  n2   # one slot\nn1 slots=2\nn3 max-slots=2 slots=3\n")
	want := []host{{"n1", 6}, {"n2", 1}, {"n3", 3}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseHostfile = %v, %v; want %v", got, err, want)
	}
	for _, c := range []struct{ text, msg string }{
		{"", "--hostfile f: no hosts"},
		{"# only\n\n", "no hosts"},
		{"n1 slots=0", "--hostfile f:1: n1: slots \"0\""},
		{"n1\nn2 slots=x", "--hostfile f:2: n2: slots \"x\""},
		{"n1 cpus=4", `unknown field "cpus=4"`},
		{"n1:4", `bad host name "n1:4"`},
		{"n1 slots=1000000\nn1 slots=1000000", "more than"},
	} {
		if _, err := parseHostfile("f", c.text); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("parseHostfile(%q): %v, want an error with %q", c.text, err, c.msg)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "hosts")
	os.WriteFile(file, []byte("a slots=2\nb slots=2\n"), 0o644)
	var out, errb bytes.Buffer
	if st := run([]string{"--hostfile", file, "--launcher", "mpirun", "--dry-run", "/bin/true"}, &out, &errb); st != 0 ||
		!strings.Contains(out.String(), "--host a:2,b:2 -np 4 ") {
		t.Errorf("--hostfile: status %d\n%s%s", st, out.String(), errb.String())
	}
	for _, args := range [][]string{{"--hostfile", file, "--hosts", "a", "/bin/true"}, {"--hostfile", filepath.Join(dir, "none"), "/bin/true"}} {
		errb.Reset()
		if st := run(args, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "--hostfile") {
			t.Errorf("%v: status %d, %q", args, st, errb.String())
		}
	}
}

// hostsOf writes a placement as host names, "a a b".
func hostsOf(hs []host, pl []int) string {
	names := make([]string, len(pl))
	for i, h := range pl {
		names[i] = hs[h].name
	}
	return strings.Join(names, " ")
}

// placementCases are the placements Open MPI 4.1's mpirun made on fake nodes (checked
// again by TestMultinodeShmemrunPlacement where it can run).
var placementCases = []struct {
	hosts  string
	n      int
	byNode bool
	over   bool
	want   string
}{
	{"a:2,b:2", 4, false, false, "a a b b"},
	{"a:2,b:2", 3, false, false, "a a b"},
	{"a:2,b:2", 4, true, false, "a b a b"},
	{"a:1,b:3", 4, true, false, "a b b b"},
	{"a:3,b:1", 3, true, false, "a b a"},
	{"a:3,b:1,c:2", 5, true, false, "a b c a a"},
	{"a:3,b:1,c:2", 2, true, false, "a b"},
	{"a:3,b:1", 4, true, false, "a b a a"},
	{"a:1,b:1", 5, false, true, "a a a b b"},
	{"a:1,b:1", 5, true, true, "a b a b a"},
	{"a:2,b:2", 7, false, true, "a a a a b b b"},
	{"a:1,b:2,c:2", 8, false, true, "a a b b b c c c"},
}

func TestPlaceOnHosts(t *testing.T) {
	for _, c := range placementCases {
		hs, err := parseHosts(c.hosts)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := placeOnHosts(hs, c.n, c.byNode, c.over)
		if err != nil {
			t.Errorf("%s -n %d: %v", c.hosts, c.n, err)
			continue
		}
		if got := hostsOf(hs, pl); got != c.want {
			t.Errorf("%s -n %d byNode=%v: %s, want %s", c.hosts, c.n, c.byNode, got, c.want)
		}
	}
	// Every PE placed once, no host beyond its slots, whatever the shape.
	for _, byNode := range []bool{false, true} {
		for slots := 1; slots <= 5; slots++ {
			hs := []host{{"a", slots}, {"b", 1}, {"c", 6 - slots}, {"d", 3}}
			for n := 1; n <= 10; n++ {
				pl, err := placeOnHosts(hs, n, byNode, false)
				if err != nil {
					t.Fatalf("%v -n %d: %v", hs, n, err)
				}
				used := make([]int, len(hs))
				for _, h := range pl {
					used[h]++
				}
				for i, h := range hs {
					if used[i] > h.slots {
						t.Errorf("%v -n %d byNode=%v: %s gets %d PEs", hs, n, byNode, h.name, used[i])
					}
				}
				if len(pl) != n {
					t.Errorf("%v -n %d: %d PEs placed", hs, n, len(pl))
				}
			}
		}
	}
	hs := []host{{"a", 2}, {"b", 2}}
	if _, err := placeOnHosts(hs, 5, false, false); err == nil || !strings.Contains(err.Error(), "-n 5: more PEs than the 4 slots of --hosts") {
		t.Errorf("oversubscribed without the flag: %v", err)
	}
	if _, err := placeOnHosts(hs, 0, false, false); err == nil || !strings.Contains(err.Error(), "-n 0") {
		t.Errorf("-n 0: %v", err)
	}
	if _, err := placeOnHosts(hs, maxSlots+1, false, true); err == nil {
		t.Errorf("-n %d accepted", maxSlots+1)
	}
}

func TestChooseLauncher(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	slurm := env(map[string]string{"SLURM_JOB_ID": "42"})
	none := env(nil)
	for _, c := range []struct {
		flag string
		env  func(string) string
		want string
	}{{"", none, "mpirun"}, {"", slurm, "srun"}, {"mpirun", slurm, "mpirun"}, {"srun", none, "srun"}} {
		if got, err := chooseLauncher(c.flag, c.env); err != nil || got != c.want {
			t.Errorf("chooseLauncher(%q): %s %v, want %s", c.flag, got, err, c.want)
		}
	}
	if _, err := chooseLauncher("ssh", none); err == nil || !strings.Contains(err.Error(), "--launcher ssh") {
		t.Errorf("--launcher ssh: %v", err)
	}
}

func TestForwardedEnv(t *testing.T) {
	got := forwardedEnv([]string{"PATH=/bin", "SHMEM_DEBUG=1", "GOSHMEM_FD=3", "GOSHMEM_PE=2", "UCX_TLS=tcp",
		"GOSHMEM_WAIT=sleep", "GOSHMEM_BIND_TO=core", "MY_SHMEM_X=1", "OMPI_MCA_x=y", "SHMEM_INFO=1",
		"GOSHMEM_CACHE=/c", "GOSHMEM_COLL_MODEL=x", "GOSHMEM_COLL_TABLE=y"})
	// The cache directory goes along (each node reads its own machine's files there), the
	// model and table of this machine do not.
	want := []string{"GOSHMEM_CACHE=/c", "GOSHMEM_WAIT=sleep", "SHMEM_DEBUG=1", "SHMEM_INFO=1", "UCX_TLS=tcp"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("forwardedEnv = %v, want %v", got, want)
	}
}

// The launcher's command line for each mode, from the flags: the whole line, as --dry-run
// prints it.
func TestClusterCommand(t *testing.T) {
	environ := []string{"SHMEM_SYMMETRIC_SIZE=1G", "PATH=/bin", "GOSHMEM_PE=3"}
	cases := []struct {
		name  string
		flags clusterFlags
		o     options
		env   map[string]string
		root  bool
		want  string
		err   string
	}{
		{"mpirun", clusterFlags{hosts: "a:32,b:32"}, options{n: 64}, nil, false,
			"mpirun --host a:32,b:32 -np 64 --map-by slot --bind-to none -x SHMEM_SYMMETRIC_SIZE -x GOSHMEM_BIND_TO=auto ./prog -v", ""},
		{"mpirun-root-n-from-slots", clusterFlags{hosts: "a:2,b"}, options{}, nil, true,
			"OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --host a:2,b:1 -np 3 --map-by slot --bind-to none -x SHMEM_SYMMETRIC_SIZE -x GOSHMEM_BIND_TO=auto ./prog -v", ""},
		{"mpirun-binds", clusterFlags{hosts: "a:4,b:4"}, options{n: 8, mapBy: "core:PE=2", bindTo: "core", reportBindings: true, tagOutput: true}, nil, false,
			"mpirun --host a:4,b:4 -np 8 --map-by core:PE=2 --bind-to core --report-bindings --tag-output -x SHMEM_SYMMETRIC_SIZE ./prog -v", ""},
		{"mpirun-by-node", clusterFlags{hosts: "a:4,b:4"}, options{n: 6, mapBy: "node", bindTo: "l3cache"}, nil, false,
			"mpirun --host a:4,b:4 -np 6 --map-by node --bind-to l3cache -x SHMEM_SYMMETRIC_SIZE ./prog -v", ""},
		{"mpirun-goshmem-places", clusterFlags{hosts: "a:4,b:4"}, options{n: 8, mapBy: "numa", cpuList: "0-3", bindTo: "core", oversubscribe: true, reportBindings: true}, nil, false,
			"mpirun --host a:4,b:4 -np 8 --map-by slot --bind-to none --oversubscribe -x SHMEM_SYMMETRIC_SIZE -x GOSHMEM_BIND_TO=core -x GOSHMEM_MAP_BY=numa -x GOSHMEM_CPU_LIST=0-3 -x GOSHMEM_REPORT_BINDINGS=1 ./prog -v", ""},
		{"mpirun-timeout", clusterFlags{hosts: "a:2,b:2"}, options{n: 4, bindTo: "core", timeout: time.Minute}, nil, false,
			"mpirun --host a:2,b:2 -np 4 --map-by slot --bind-to core -x SHMEM_SYMMETRIC_SIZE -x GOSHMEM_TIMEOUT_REPORT=1 ./prog -v", ""},
		{"srun-timeout", clusterFlags{launcher: "srun"}, options{n: 4, timeout: time.Minute}, nil, false,
			"GOSHMEM_BIND_TO=auto GOSHMEM_TIMEOUT_REPORT=1 srun --mpi=pmix --kill-on-bad-exit=1 -n 4 --cpu-bind=none --export=ALL ./prog -v", ""},
		{"mpirun-no-hosts", clusterFlags{launcher: "mpirun"}, options{n: 2}, nil, false,
			"mpirun -np 2 --map-by slot --bind-to none -x SHMEM_SYMMETRIC_SIZE -x GOSHMEM_BIND_TO=auto ./prog -v", ""},
		{"srun-in-allocation", clusterFlags{hosts: "a:2,b:2"}, options{bindTo: "core", tagOutput: true}, map[string]string{"SLURM_JOB_ID": "7"}, true,
			"SLURM_HOSTFILE=HOSTFILE srun --mpi=pmix --kill-on-bad-exit=1 -n 4 --distribution=arbitrary --cpu-bind=cores --label --export=ALL ./prog -v", ""},
		{"srun-l3cache-by-goshmem", clusterFlags{launcher: "srun"}, options{n: 4, mapBy: "node", bindTo: "l3cache"}, nil, false,
			"GOSHMEM_BIND_TO=l3cache srun --mpi=pmix --kill-on-bad-exit=1 -n 4 --distribution=cyclic --cpu-bind=none --export=ALL ./prog -v", ""},
		{"srun-allocation-size", clusterFlags{launcher: "srun"}, options{bindTo: "numa", reportBindings: true}, nil, false,
			"srun --mpi=pmix --kill-on-bad-exit=1 --cpu-bind=verbose,ldoms --export=ALL ./prog -v", ""},
		{"bad-launcher", clusterFlags{launcher: "pdsh"}, options{n: 2}, nil, false, "", "--launcher pdsh"},
		{"bad-map-by", clusterFlags{hosts: "a"}, options{mapBy: "rack"}, nil, false, "", "--map-by rack"},
		{"bad-bind-to", clusterFlags{hosts: "a"}, options{bindTo: "board"}, nil, false, "", "--bind-to board"},
		{"bad-cpu-list", clusterFlags{hosts: "a"}, options{cpuList: "3-1"}, nil, false, "", "--cpu-list 3-1"},
		{"topology", clusterFlags{hosts: "a"}, options{topoDir: "x"}, nil, false, "", "--topology"},
		{"mpirun-needs-n", clusterFlags{launcher: "mpirun"}, options{}, nil, false, "", "-n 0"},
		{"too-many", clusterFlags{hosts: "a:2"}, options{n: 3}, nil, false, "", "--oversubscribe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string { return c.env[k] }
			p, _, err := planCluster(&c.flags, c.o, "./prog", []string{"-v"}, getenv, environ, c.root)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.hostfile != "" {
				p.hostfile = "HOSTFILE"
			}
			env, argv := p.command()
			if got := commandLine(env, argv); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestClusterDryRun(t *testing.T) {
	var out, errb bytes.Buffer
	os.Setenv("SHMEM_DEBUG", "1")
	defer os.Unsetenv("SHMEM_DEBUG")
	st := run([]string{"--hosts", "n1:3,n2:1,n3:2", "-n", "5", "--map-by", "node", "--dry-run", "--", "/bin/echo", "a b"}, &out, &errb)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	root := ""
	if os.Geteuid() == 0 {
		root = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
	}
	cache := os.Getenv("GOSHMEM_CACHE") // TestMain's, forwarded: each node reads its own files there
	want := `launcher: mpirun
command: ` + root + `mpirun --host n1:3,n2:1,n3:2 -np 5 --map-by node --bind-to none -x GOSHMEM_CACHE -x SHMEM_DEBUG -x GOSHMEM_BIND_TO=auto /bin/echo 'a b'
placement of 5 PEs on 3 hosts (by node):
  n1 (3 slots): 3 PEs: 0,3-4
  n2 (1 slot): 1 PEs: 1
  n3 (2 slots): 1 PEs: 2
binding: none by mpirun; goshmem places each node's PEs (GOSHMEM_BIND_TO=auto)
cost model and tuning table: each node's leader reads its machine's model and the table of the job's layout from ` + cache +
		` (shmemrun --calibrate on a node of each kind, shmemrun --tune --hosts with these flags)
`
	if os.Getenv("SLURM_JOB_ID") == "" && out.String() != want {
		t.Errorf("--dry-run printed\n%s\nwant\n%s", out.String(), want)
	}
	for _, c := range []struct{ cache, tuning, want string }{
		{"none", "", "the default model, no table (GOSHMEM_CACHE=none)"},
		{"/c", "/t.txt", "reads its machine's model from its cache; the table /t.txt (SHMEM_COLL_TUNING)"},
	} {
		env := map[string]string{"GOSHMEM_CACHE": c.cache, "SHMEM_COLL_TUNING": c.tuning}
		if got := clusterModelLine(func(k string) string { return env[k] }); !strings.Contains(got, c.want) {
			t.Errorf("GOSHMEM_CACHE=%s SHMEM_COLL_TUNING=%s: %q, want %q", c.cache, c.tuning, got, c.want)
		}
	}
	// A package is built with the engine's tag; the dry run says so and builds nothing.
	out.Reset()
	if st := run([]string{"--hosts", "a:2", "--launcher", "mpirun", "--dry-run", "../../examples/testsome"}, &out, &errb); st != 0 ||
		!strings.Contains(out.String(), "build: go build -tags goshmem_ucx -o .shmemrun-build-*/testsome ../../examples/testsome") {
		t.Errorf("status %d:\n%s%s", st, out.String(), errb.String())
	}
	if m, _ := filepath.Glob(".shmemrun-build-*"); len(m) > 0 {
		t.Errorf("--dry-run left %v", m)
	}
	// Usage errors: launch.StatusUsage, the flag named.
	for _, args := range [][]string{
		{"--hosts", "a:0", "true"},
		{"--hosts", "a:1", "-n", "2", "true"},
		{"--hosts", "a:1"},
		{"--launcher", "rsh", "-n", "1", "true"},
	} {
		errb.Reset()
		if st := run(args, &out, &errb); st != launch.StatusUsage || !strings.HasPrefix(errb.String(), "shmemrun: ") {
			t.Errorf("%v: status %d, %q", args, st, errb.String())
		}
	}
}

// A goshmem Go program built without the engine is refused before any launch; other
// programs are not judged.
func TestCheckUCXBuild(t *testing.T) {
	if err := checkUCXBuild("/bin/sh"); err != nil {
		t.Errorf("/bin/sh: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	err = checkUCXBuild(self) // this test binary: goshmem's module, tagged or not
	if builtWithUCX && err != nil || !builtWithUCX && (err == nil || !strings.Contains(err.Error(), "-tags goshmem_ucx")) {
		t.Errorf("this test binary (goshmem_ucx: %v): %v", builtWithUCX, err)
	}
}

// shmemrun --hosts across fake nodes: the PEs run where --dry-run says, for the shapes of
// placementCases (on gsn1..gsn3).
func TestMultinodeShmemrunPlacement(t *testing.T) {
	c := fakenodes.Require(t, 3)
	prog := fakenodes.PMIxInfo(t)
	shmemrun := filepath.Join(t.TempDir(), "shmemrun")
	if b, err := exec.Command("go", "build", "-o", shmemrun, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	rename := strings.NewReplacer("a", "gsn1", "b", "gsn2", "c", "gsn3")
	type shape struct {
		hosts string
		n     int
		flags []string
		want  string
		bound bool // the launcher pins each PE to one CPU; else goshmem is told to place
	}
	var shapes []shape
	for _, pc := range placementCases {
		s := shape{hosts: pc.hosts, n: pc.n, want: pc.want}
		if pc.byNode {
			s.flags = append(s.flags, "--map-by", "node")
		}
		if pc.over {
			s.flags = append(s.flags, "--oversubscribe")
		}
		shapes = append(shapes, s)
	}
	// The launcher binding: the same placement across the hosts.
	shapes = append(shapes,
		shape{"a:2,b:2", 3, []string{"--bind-to", "core"}, "a a b", true},
		shape{"a:2,b:2", 4, []string{"--map-by", "node", "--bind-to", "core"}, "a b a b", true},
		shape{"a:1,b:1", 3, []string{"--map-by", "core", "--bind-to", "core", "--oversubscribe"}, "a a b", true},
		shape{"a:1,b:2", 3, []string{"--map-by", "hwthread", "--bind-to", "hwthread"}, "a b b", true})
	for _, pc := range shapes {
		hostsFlag := rename.Replace(pc.hosts)
		args := append([]string{"--hosts", hostsFlag, "-n", strconv.Itoa(pc.n)}, pc.flags...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := c.OnNode(c.Nodes[0], shmemrun, append(args, "--timeout", "60s", prog)...)
			cmd.Env = append(os.Environ(), c.LauncherEnv()...)
			r, err := c.Run(cmd, 90*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if r.ExitCode != 0 {
				t.Fatal(r)
			}
			got := make([]string, pc.n)
			for _, l := range r.Lines() {
				var rank, size, lrank, lsize int
				var host, peers, cpus, bind string
				if _, err := fmt.Sscanf(l, "rank %d size %d host %s localrank %d localsize %d peers %s cpus %s bind %s",
					&rank, &size, &host, &lrank, &lsize, &peers, &cpus, &bind); err != nil || rank < 0 || rank >= pc.n {
					t.Fatalf("line %q: %v", l, err)
				}
				got[rank] = host
				// Bound by the launcher: one CPU each, and goshmem not asked to place. Else
				// unbound, and told to (GOSHMEM_BIND_TO forwarded to every node).
				single := !strings.ContainsAny(cpus, ",-")
				if pc.bound && (!single || bind != "-") || !pc.bound && bind != "auto" {
					t.Errorf("rank %d on %s: cpus %s, GOSHMEM_BIND_TO %s (launcher binds: %v)", rank, host, cpus, bind, pc.bound)
				}
			}
			if want := rename.Replace(pc.want); strings.Join(got, " ") != want {
				t.Errorf("PEs ran on %v, placement says %s", got, want)
			}
		})
	}
}

// Through mpirun every byte of every PE reaches a reader that takes its first bytes 8 s
// late, after the PEs ended (the PEs are awk, 4 on 2 nodes, 20 000 lines each). Lines
// are not checked whole: mpirun relays output in pieces that may cut them (README,
// "Reliability", Output), so the bytes are counted.
func TestMultinodeShmemrunSlowReader(t *testing.T) {
	c := fakenodes.Require(t, 2)
	shmemrun, _ := binaries(t)
	const lines = 20000
	lineLen := len(fmt.Sprintf("rank 0 line 00000 %s\n", strings.Repeat("x", 90)))
	script := fmt.Sprintf(`BEGIN { for (i = 0; i < %d; i++) printf "rank %%s line %%05d %%s\n", ENVIRON["OMPI_COMM_WORLD_RANK"], i, "%s" }`,
		lines, strings.Repeat("x", 90))
	cmd := c.OnNode(c.Nodes[0], shmemrun, "--hosts", c.Nodes[0]+":2,"+c.Nodes[1]+":2", "-n", "4", "--map-by", "node", "--timeout", "120s", "awk", script)
	cmd.Env = append(os.Environ(), c.LauncherEnv()...)
	b := slowRead(t, cmd, 8*time.Second) // the job takes 2-3 s
	if want := 4 * lines * lineLen; len(b) != want {
		t.Errorf("%d bytes reached the slow reader, want %d", len(b), want)
	}
	if n := bytes.Count(b, []byte("\n")); n != 4*lines {
		t.Errorf("%d newlines, want %d", n, 4*lines)
	}
}

// shmemrun --hosts --timeout: when the timeout expires each node reports what its PEs are
// doing (waiting where and how long, running outside the library, stopped by a signal, in
// shmem_init's start-up exchange), and the job's ending is not reported as PEs that failed.
func TestMultinodeShmemrunTimeoutReport(t *testing.T) {
	c := fakenodes.Require(t, 2)
	shmemrun, _ := binaries(t)
	prog := slurmTestprog(t)
	for _, k := range []struct {
		name, mode string
		stop       bool
		want       [4]string // per PE: what follows "goshmem: PE i on host (pid p): "; "" none
	}{
		// The last PE sleeps outside the barrier the others wait in.
		{"sleeping PE", "barrier", false, [4]string{"waiting in ", "waiting in ", "waiting in ", "running outside the library's waits\n"}},
		{"stopped PE", "barrier", true, [4]string{"waiting in ", "waiting in ", "waiting in ", "stopped by a signal\n"}},
		// The last PE never calls shmem_init: it says nothing, the others wait in it.
		{"PE before Init", "late", false, [4]string{"in shmem_init for ", "in shmem_init for ", "in shmem_init for ", ""}},
	} {
		t.Run(k.name, func(t *testing.T) {
			pids := t.TempDir()
			cmd := c.OnNode(c.Nodes[0], shmemrun, "--hosts", c.Nodes[0]+":2,"+c.Nodes[1]+":2", "-n", "4", "--timeout", "8s", prog, "-pids", pids, k.mode)
			cmd.Env = append(os.Environ(), append(c.LauncherEnv(), "GOSHMEM_TEST_NPES=4")...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var p []int // the PEs' pids (written after shmem_init)
			if k.mode == "barrier" {
				p = waitPIDs(t, pids, 4)
			}
			if k.stop {
				syscall.Kill(p[3], syscall.SIGSTOP)
			}
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				if k.stop {
					syscall.Kill(p[3], syscall.SIGKILL)
				}
				t.Fatalf("the job did not end:\n%s", out.String())
			}
			if s := cmd.ProcessState.ExitCode(); s != launch.StatusTimeout {
				t.Errorf("status %d, want %d", s, launch.StatusTimeout)
			}
			got := out.String()
			for pe, w := range k.want {
				pid := `\d+`
				if p != nil {
					pid = strconv.Itoa(p[pe])
				}
				re := regexp.MustCompile(fmt.Sprintf(`goshmem: PE %d on %s \(pid %s\): %s`, pe, c.Nodes[pe/2], pid, regexp.QuoteMeta(w)))
				if found := re.MatchString(got); found != (w != "") {
					t.Errorf("PE %d: a line %q: %v, want %v, in\n%s", pe, re, found, w != "", got)
				}
			}
			if strings.Contains(got, "ended before shmem_finalize") {
				t.Errorf("the job's ending was reported as a failed PE:\n%s", got)
			}
			// mpirun returns once its daemons have ended their PEs; an ended PE may still be
			// exiting then (CI, under the other packages' load: one was, once), so each gets
			// the grace the one-node reliability tests give, and must be gone after it.
			deadline := time.Now().Add(5 * time.Second)
			for _, pid := range p {
				for !gone(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if !gone(pid) {
					t.Errorf("pid %d is left behind (still there 5 s after the job ended)", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// shmemrun --hosts whose reader goes away (`| head -2`): the job ends as a one-node
// shmemrun's does (status 141, as killed by SIGPIPE), quietly, with no PE left behind;
// mpirun never meets the broken pipe (Open MPI 4.1's aborts, then crashes in
// PMIx_Finalize with a backtrace).
func TestMultinodeShmemrunBrokenPipe(t *testing.T) {
	c := fakenodes.Require(t, 2)
	shmemrun, _ := binaries(t)
	pids := t.TempDir()
	cmd := c.OnNode(c.Nodes[0], shmemrun, "--hosts", c.Nodes[0]+":2,"+c.Nodes[1]+":2", "-n", "4", "--timeout", "60s", slurmTestprog(t), "-pids", pids, "lines")
	cmd.Env = append(os.Environ(), c.LauncherEnv()...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line := make([]byte, 1)
	for n := 0; n < 2; { // two lines, as head -2 reads them
		if _, err := r.Read(line); err != nil {
			t.Fatalf("reading the first lines: %v\n%s", err, stderr.String())
		}
		if line[0] == '\n' {
			n++
		}
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the job did not end after its reader went away\n%s", stderr.String())
	}
	if s := cmd.ProcessState.ExitCode(); s != 128+int(syscall.SIGPIPE) {
		t.Errorf("status %d, want %d\n%s", s, 128+int(syscall.SIGPIPE), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("want nothing on stderr, got\n%s", stderr.String())
	}
	ents, _ := os.ReadDir(pids)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(pids, e.Name()))
		if pid, err := strconv.Atoi(string(b)); err == nil && pid > 0 && !gone(pid) {
			t.Errorf("%s (pid %d) still runs after the job ended", e.Name(), pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// shmemrun --hosts signalled: SIGINT and SIGTERM it relays to the launcher, saying so, and
// exits with 128+signal, as on one node; killed (SIGKILL, no chance to relay), the launcher
// gets SIGTERM as its parent dies. Either way the job ends on every node and no PE runs on.
func TestMultinodeShmemrunSignalled(t *testing.T) {
	c := fakenodes.Require(t, 2)
	shmemrun, _ := binaries(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			pids := t.TempDir()
			// onnode execs shmemrun: the command's process is shmemrun's.
			cmd := c.OnNode(c.Nodes[0], shmemrun, "--hosts", c.Nodes[0]+":2,"+c.Nodes[1]+":2", "-n", "4", "--timeout", "120s", slurmTestprog(t), "-pids", pids, "loop")
			cmd.Env = append(os.Environ(), c.LauncherEnv()...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			p := waitPIDs(t, pids, 4)
			cmd.Process.Signal(sig)
			waited := make(chan struct{})
			go func() { cmd.Wait(); close(waited) }()
			select {
			case <-waited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("shmemrun did not end after %v\n%s", sig, out.String())
			}
			if sig != syscall.SIGKILL {
				if s := cmd.ProcessState.ExitCode(); s != 128+int(sig) {
					t.Errorf("status %d, want %d\n%s", s, 128+int(sig), out.String())
				}
				if want := "shmemrun: " + unix.SignalName(sig) + ": ending the job\n"; !strings.Contains(out.String(), want) {
					t.Errorf("no %q in\n%s", want, out.String())
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for _, pid := range p {
				for !gone(pid) && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				if !gone(pid) {
					t.Errorf("PE pid %d still runs 20 s after shmemrun got %v", pid, sig)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}
