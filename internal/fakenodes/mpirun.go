package fakenodes

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Job is one launch across the fake nodes, from node 1, as on a cluster's login node.
type Job struct {
	Nodes   int      // how many of the cluster's nodes to use; 0: all
	PerNode int      // PEs (slots) per node; -np is Nodes*PerNode
	MapBy   string   // mpirun --map-by (e.g. "node"); "": mpirun's default, by slot
	Prog    string   // the program (an absolute path: every node sees this file system)
	Args    []string // its arguments
	// Env is exported to every PE (KEY=VALUE, each also passed as -x KEY).
	Env []string
	// Launcher is the command; "" is mpirun ("oshrun" for Open MPI's OSHMEM).
	Launcher string
	// LauncherArgs go after the harness's own flags, before Prog (e.g. --mca spml ucx).
	LauncherArgs []string
	Timeout      time.Duration // 0: 2 minutes; then the job is killed (SIGTERM, then SIGKILL)
	// CleanRemoteEnv starts the launcher's daemons on the other nodes with a login-like
	// environment, as real ssh does, instead of the test's: what the launcher does not
	// forward (-x) then reaches only node 1's PEs, as on a cluster.
	CleanRemoteEnv bool
	// PinRanks binds PE r to CPU r of the machine (taskset), as a launcher's --bind-to
	// core binds each PE on a real node. The launcher cannot do it here: the fake nodes
	// share the machine's CPUs, and each would bind its first PE to CPU 0. Unpinned, a
	// PE's threads float over every CPU and meet the other nodes' PEs on theirs. Only for
	// jobs of at most as many PEs as CPUs, started by Open MPI (OMPI_COMM_WORLD_RANK).
	PinRanks bool
}

// Result is what a Job did.
type Result struct {
	Cmd            []string // the command line as run (from onnode on)
	Stdout, Stderr string
	ExitCode       int // the launcher's status; -1 when it was killed (TimedOut, or a signal)
	TimedOut       bool
	Elapsed        time.Duration
}

// String is the result for a failure message: the command, the status and the output.
func (r *Result) String() string {
	st := strconv.Itoa(r.ExitCode)
	if r.TimedOut {
		st = "killed after the timeout"
	}
	return fmt.Sprintf("%s\nstatus %s after %v\n--- stdout\n%s--- stderr\n%s", strings.Join(r.Cmd, " "), st,
		r.Elapsed.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// Lines is the standard output, line by line.
func (r *Result) Lines() []string {
	return strings.FieldsFunc(r.Stdout, func(c rune) bool { return c == '\n' })
}

// LauncherEnv is the environment the harness gives mpirun (and through it the orteds and
// the PEs) on top of the test's: root allowed (CI runs as root); the rsh stand-in; Open
// MPI's own traffic (MPI programs, the OSHMEM comparison) on TCP over the fake network
// only, never looking for InfiniBand (btl openib) or RDMA one-sided (osc rdma, which
// crashes in compare-and-swap here).
func (c *Cluster) LauncherEnv() []string {
	return []string{
		"OMPI_ALLOW_RUN_AS_ROOT=1",
		"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_plm_rsh_agent=" + c.Rsh(),
		"OMPI_MCA_osc=^rdma",
		"OMPI_MCA_btl=self,vader,tcp",
		"OMPI_MCA_btl_tcp_if_include=198.18.0.0/24",
		"OMPI_MCA_oob_tcp_if_include=198.18.0.0/24",
		// Each fake node's daemon would otherwise bind its first PE to CPU 0.
		"OMPI_MCA_hwloc_base_binding_policy=none",
	}
}

// Command is the job's command, not started: onnode gsn1 mpirun --host gsn1:K,gsn2:K
// -np N*K --bind-to none ... prog args, with LauncherEnv and Env in its environment.
// For callers that are not tests (bench/compare) or want their own I/O.
func (c *Cluster) Command(j Job) (*exec.Cmd, error) {
	nodes := j.Nodes
	if nodes == 0 {
		nodes = len(c.Nodes)
	}
	if nodes < 1 || nodes > len(c.Nodes) {
		return nil, fmt.Errorf("fakenodes.Command: Nodes = %d, the cluster has %d", j.Nodes, len(c.Nodes))
	}
	if j.PerNode < 1 || j.PerNode > 1024 {
		return nil, fmt.Errorf("fakenodes.Command: PerNode = %d out of range [1,1024]", j.PerNode)
	}
	if j.Prog == "" {
		return nil, fmt.Errorf("fakenodes.Command: no Prog")
	}
	hosts := make([]string, nodes)
	for i := range hosts {
		hosts[i] = c.Nodes[i] + ":" + strconv.Itoa(j.PerNode)
	}
	launcher := j.Launcher
	if launcher == "" {
		launcher = "mpirun"
	}
	args := []string{c.Nodes[0], launcher, "--host", strings.Join(hosts, ","), "-np", strconv.Itoa(nodes * j.PerNode), "--bind-to", "none"}
	if j.MapBy != "" {
		args = append(args, "--map-by", j.MapBy)
	}
	for _, kv := range j.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("fakenodes.Command: Env entry %q is not KEY=VALUE", kv)
		}
		args = append(args, "-x", k)
	}
	args = append(args, j.LauncherArgs...)
	if j.PinRanks {
		if np, cpus := nodes*j.PerNode, runtime.NumCPU(); np > cpus {
			return nil, fmt.Errorf("fakenodes.Command: PinRanks with %d PEs on %d CPUs", np, cpus)
		}
		args = append(args, "sh", "-c", pinRank)
	}
	args = append(args, j.Prog)
	args = append(args, j.Args...)
	cmd := exec.Command(filepath.Join(c.Scripts, "onnode"), args...)
	cmd.Env = append(append(os.Environ(), c.LauncherEnv()...), j.Env...)
	cmd.Env = append(cmd.Env, envInside+"=1")
	if j.CleanRemoteEnv {
		cmd.Env = append(cmd.Env, "GS_NSRSH_ENV=clean") // read by nsrsh
	}
	return cmd, nil
}

// pinRank runs "$0" "$@" (the program and its arguments) bound to the CPU numbered as its
// rank in the job.
const pinRank = `exec taskset -c "$OMPI_COMM_WORLD_RANK" "$0" "$@"`

// envInside marks the processes of a job: a PE that runs a test calling Require must not
// make or remove nodes from inside one.
const envInside = "GOSHMEM_FAKENODES_INSIDE"

// SelfArgs are the arguments making this test binary run only t (and its subtests'
// parents' path to it), once, verbosely, with this run's -short and a timeout: the Args of
// a Job whose Prog is os.Executable(), for tests whose PEs are the test binary itself:
//
//	if os.Getenv("MY_PE") == t.Name() { ...the PE's side...; return }
//	c := fakenodes.Require(t, 2)
//	self, _ := os.Executable()
//	r := c.Mpirun(t, fakenodes.Job{PerNode: 2, Prog: self, Args: fakenodes.SelfArgs(t, time.Minute),
//		Env: []string{"MY_PE=" + t.Name()}})
func SelfArgs(t testing.TB, timeout time.Duration) []string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return []string{"-test.run=" + strings.Join(parts, "/"), "-test.count=1", "-test.v",
		"-test.short=" + strconv.FormatBool(testing.Short()), "-test.timeout=" + timeout.String()}
}

// Mpirun runs the job and returns what it did; it fails t only when the job cannot be
// started. The job is killed at its timeout, with everything it started on any node.
func (c *Cluster) Mpirun(t testing.TB, j Job) *Result {
	t.Helper()
	cmd, err := c.Command(j)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.run(cmd, j.Timeout)
	if err != nil {
		t.Fatalf("fakenodes.Mpirun: %v", err)
	}
	return r
}

// Run runs cmd (from Command or OnNode) like Mpirun does, for callers without a testing.TB.
func (c *Cluster) Run(cmd *exec.Cmd, timeout time.Duration) (*Result, error) {
	return c.run(cmd, timeout)
}

func (c *Cluster) run(cmd *exec.Cmd, timeout time.Duration) (*Result, error) {
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	var stdout, stderr bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &stdout
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	// Its own process group: a terminal's ^C reaches the test, which then ends the job.
	// SIGTERM if the test process dies (killed, or go test's -timeout): mpirun then ends
	// the job on every node instead of running on as an orphan.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	r := &Result{Cmd: cmd.Args}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(timeout):
		r.TimedOut = true
		werr = kill(cmd.Process.Pid, done)
	}
	r.Elapsed = time.Since(start)
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	r.ExitCode = cmd.ProcessState.ExitCode()
	if werr != nil {
		if _, ok := werr.(*exec.ExitError); !ok {
			return r, werr
		}
	}
	return r, nil
}

// kill ends the launcher pid and everything it started: SIGTERM to the launcher first (mpirun
// then ends its job on every node), SIGKILL to the whole tree after 5 s. The tree is read
// before the launcher dies, while its processes are still its descendants.
func kill(pid int, done chan error) error {
	tree := Descendants(pid)
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case err := <-done:
		for _, p := range tree {
			syscall.Kill(p, syscall.SIGKILL)
		}
		return err
	case <-time.After(5 * time.Second):
	}
	tree = append(tree, Descendants(pid)...)
	syscall.Kill(pid, syscall.SIGKILL)
	for _, p := range tree {
		syscall.Kill(p, syscall.SIGKILL)
	}
	return <-done
}

// Descendants lists the processes below pid (children, their children, ...), from /proc.
func Descendants(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		kids[pp] = append(kids[pp], p)
	}
	var out []int
	for q := []int{pid}; len(q) > 0; q = q[1:] {
		for _, k := range kids[q[0]] {
			out = append(out, k)
			q = append(q, k)
		}
	}
	return out
}

// Procs lists the processes running on node (in its network namespace), except its
// keeper: after a job, what it left behind there. Other tests sharing the nodes at the
// same time show up too.
func (c *Cluster) Procs(node string) ([]string, error) {
	want, err := nsIno("/run/netns/" + node)
	if err != nil {
		return nil, fmt.Errorf("fakenodes.Procs: %s: %w", node, err)
	}
	keeper, _ := os.ReadFile(filepath.Join(stateDir, node+".pid"))
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == strings.TrimSpace(string(keeper)) {
			continue
		}
		if ino, err := nsIno("/proc/" + e.Name() + "/ns/net"); err == nil && ino == want {
			cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			out = append(out, e.Name()+" "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	return out, nil
}

func nsIno(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}
