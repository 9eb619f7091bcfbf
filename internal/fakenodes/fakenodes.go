// Package fakenodes gives tests a cluster on one machine: fake nodes gsn1..gsnN made by
// scripts/fakenodes (a network namespace each, with its own hostname, System V IPC and
// /dev/shm, TCP between them through a bridge on 198.18.0.0/24), and mpirun reaching them
// through an rsh stand-in. It is pure Go: it runs the scripts and the launcher.
//
// A multi-node test names itself TestMultinode... (CI runs `go test -tags goshmem_ucx
// -run Multinode ./...` from .ci/multinode) and starts with Require:
//
//	func TestMultinodePut(t *testing.T) {
//		c := fakenodes.Require(t, 2) // or t.Skip, naming why (not root, no netns, no mpirun)
//		r := c.Mpirun(t, fakenodes.Job{PerNode: 2, Prog: bin, Args: []string{"-x"}})
//		if r.ExitCode != 0 { t.Fatal(r) }
//	}
//
// Several test processes (go test ./... runs packages in parallel) share the nodes: each
// holds a shared lock while it uses them, and the last one to finish removes the nodes if
// the harness made them. Nodes made by hand (scripts/fakenodes/mknodes N) are left alone.
//
// RequireSlurm adds a Slurm cluster on the nodes, for jobs started by srun --mpi=pmix.
//
// GOSHMEM_FAKENODES=require turns every skip into a failure (CI, once it has checked the
// machine can do it); GOSHMEM_FAKENODES=skip skips every multi-node test.
package fakenodes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// EnvMode is the environment variable steering skips: "require" fails instead, "skip"
// skips every multi-node test.
const EnvMode = "GOSHMEM_FAKENODES"

// EnvScripts overrides where the scripts are (default: scripts/fakenodes of this module).
const EnvScripts = "GOSHMEM_FAKENODES_SCRIPTS"

// stateDir is where the scripts keep the keepers' pids, the locks and the "auto" marker
// (GS_FAKENODES_STATE in lib.sh).
const stateDir = "/run/gsfakenodes"

// Unsupported says why this machine cannot have fake nodes; tests skip on it.
type Unsupported struct{ Reason string }

func (u *Unsupported) Error() string { return "fake nodes unavailable: " + u.Reason }

// Cluster is a set of fake nodes this process holds (Release gives them back).
type Cluster struct {
	Nodes   []string // gsn1..gsnN, in order
	Scripts string   // the scripts' directory (onnode, nsrsh, mknodes, rmnodes)
	once    sync.Once
}

// The process-wide hold on the nodes: a shared flock on use.lock while any Cluster is
// held (or Main runs), counted here.
type holder struct {
	sync.Mutex
	refs int      // Clusters not yet released
	main bool     // Main is running the tests
	lock *os.File // use.lock, flocked shared while refs > 0 or main
}

var hold holder

// Check reports why fake nodes cannot be made here (nil when they might: root, the tools,
// a launcher). Namespace support itself is only known once mknodes tries.
func Check() error {
	if m := os.Getenv(EnvMode); m == "skip" {
		return &Unsupported{EnvMode + "=skip"}
	}
	if runtime.GOOS != "linux" {
		return &Unsupported{"network namespaces are Linux only"}
	}
	if os.Geteuid() != 0 {
		return &Unsupported{"not root (network namespaces and mounts need it)"}
	}
	for _, tool := range []string{"ip", "unshare", "nsenter", "setsid", "flock", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return &Unsupported{fmt.Sprintf("no %q in PATH (iproute2, util-linux)", tool)}
		}
	}
	if _, err := exec.LookPath("mpirun"); err != nil {
		return &Unsupported{`no "mpirun" in PATH (apt-get install openmpi-bin)`}
	}
	if _, err := ScriptsDir(); err != nil {
		return &Unsupported{err.Error()}
	}
	return nil
}

// ScriptsDir finds scripts/fakenodes: $GOSHMEM_FAKENODES_SCRIPTS, else beside this source
// file, else above the working directory.
func ScriptsDir() (string, error) {
	ok := func(d string) bool {
		st, err := os.Stat(filepath.Join(d, "onnode"))
		return err == nil && st.Mode()&0o111 != 0
	}
	if d := os.Getenv(EnvScripts); d != "" {
		if ok(d) {
			return filepath.Abs(d)
		}
		return "", fmt.Errorf("%s=%s: no executable onnode there", EnvScripts, d)
	}
	if _, file, _, found := runtime.Caller(0); found && filepath.IsAbs(file) {
		if d := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "fakenodes"); ok(d) {
			return filepath.Abs(d)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if ok(filepath.Join(d, "scripts", "fakenodes")) {
			return filepath.Join(d, "scripts", "fakenodes"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("scripts/fakenodes not found (set " + EnvScripts + ")")
		}
	}
}

// Ensure makes sure fake nodes gsn1..gsnN exist and work (repairing leftovers of a killed
// run) and holds them until Release. An *Unsupported error means this machine cannot.
func Ensure(n int) (*Cluster, error) {
	if n < 1 || n > 254 {
		return nil, fmt.Errorf("fakenodes.Ensure: n = %d out of range [1,254]", n)
	}
	if os.Getenv(envInside) != "" {
		return nil, fmt.Errorf("fakenodes.Ensure: called inside a job on the fake nodes (%s is set): a PE must not make or remove nodes", envInside)
	}
	if err := Check(); err != nil {
		return nil, err
	}
	dir, _ := ScriptsDir()
	hold.Lock()
	defer hold.Unlock()
	if hold.lock == nil {
		if err := os.MkdirAll(stateDir, 0o755); err != nil {
			return nil, &Unsupported{err.Error()}
		}
		f, err := os.OpenFile(filepath.Join(stateDir, "use.lock"), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("fakenodes.Ensure: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return nil, fmt.Errorf("fakenodes.Ensure: lock %s: %w", f.Name(), err)
		}
		hold.lock = f
	}
	cmd := exec.Command(filepath.Join(dir, "mknodes"), "--auto", strconv.Itoa(n))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		hold.releaseIfUnused(dir)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			return nil, &Unsupported{strings.TrimSpace(out.String())}
		}
		return nil, fmt.Errorf("fakenodes.Ensure: mknodes %d: %v\n%s", n, err, out.String())
	}
	hold.refs++
	c := &Cluster{Scripts: dir}
	for i := 1; i <= n; i++ {
		c.Nodes = append(c.Nodes, "gsn"+strconv.Itoa(i))
	}
	return c, nil
}

// Release gives the nodes back; when nothing in any process holds them any more and the
// harness made them, they are removed. Calling it twice is harmless.
func (c *Cluster) Release() {
	c.once.Do(func() {
		hold.Lock()
		defer hold.Unlock()
		hold.refs--
		hold.releaseIfUnused(c.Scripts)
	})
}

// releaseIfUnused drops this process's lock when nothing in it holds the nodes, first
// removing them if this is the last process using them and the harness made them (and
// stopping a Slurm cluster the harness started).
// Called with hold locked.
func (h *holder) releaseIfUnused(dir string) {
	if h.refs > 0 || h.main || h.lock == nil {
		return
	}
	// Converting to exclusive succeeds only when no other process holds the nodes.
	if syscall.Flock(int(h.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		// A Slurm cluster RequireSlurm started (not one started by hand) goes first: its
		// daemons would outlive nodes made by hand.
		if _, err := os.Stat(filepath.Join(stateDir, "slurm", "auto")); err == nil {
			exec.Command(filepath.Join(dir, "slurm"), "stop").Run()
		}
		if _, err := os.Stat(filepath.Join(stateDir, "auto")); err == nil {
			exec.Command(filepath.Join(dir, "rmnodes"), "--force").Run()
		}
	}
	h.lock.Close()
	h.lock = nil
}

// Main runs a test binary's tests holding the nodes throughout, so that tests calling
// Require one after another share one set instead of making and removing it each time:
//
//	func TestMain(m *testing.M) { os.Exit(fakenodes.Main(m)) }
func Main(m *testing.M) int {
	hold.Lock()
	hold.main = true
	hold.Unlock()
	code := m.Run()
	hold.Lock()
	hold.main = false
	if dir, err := ScriptsDir(); err == nil {
		hold.releaseIfUnused(dir)
	}
	hold.Unlock()
	return code
}

// Require returns n fake nodes held until the test ends, or skips the test naming why
// (fails instead under GOSHMEM_FAKENODES=require).
func Require(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := Ensure(n)
	var u *Unsupported
	if errors.As(err, &u) {
		Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Release)
	return c
}

// Skip skips t with the message, or fails it under GOSHMEM_FAKENODES=require: for tests
// that find something else missing (a C compiler, libpmix-dev) which CI must have.
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(EnvMode) == "require" {
		t.Fatalf("%s (and %s=require)", msg, EnvMode)
	}
	t.Skip(msg)
}

// OnNode is a command running name args on node (its namespaces, this directory and
// environment).
func (c *Cluster) OnNode(node, name string, args ...string) *exec.Cmd {
	return exec.Command(filepath.Join(c.Scripts, "onnode"), append([]string{node, name}, args...)...)
}

// Rsh is the ssh stand-in for launchers: mpirun's --mca plm_rsh_agent, Hydra's
// -launcher-exec.
func (c *Cluster) Rsh() string { return filepath.Join(c.Scripts, "nsrsh") }
