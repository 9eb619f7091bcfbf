// Package launch starts a job: it creates the shared object, starts one process per PE
// (pinned, handed the object), relays their output line by line, watches them, and ends
// the job when one fails, when one calls GlobalExit, on a signal or on a timeout. shmemrun
// and the multi-PE test helper both use it, so tests exercise the launcher users run.
package launch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem/topology"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/settings"
	"github.com/goshmem/shmem/runtime/shm"
)

// Config describes a job.
type Config struct {
	NPEs int
	Prog string
	Args []string
	Env  []string // the PEs' environment; nil means os.Environ()

	Stdin          *os.File  // PE 0's standard input; nil means /dev/null
	Stdout, Stderr io.Writer // where the PEs' lines go; nil means os.Stdout, os.Stderr
	Log            io.Writer // the launcher's own messages; nil means Stderr, between the PEs' lines
	TagOutput      bool      // prefix every line with "[PE n] "

	// Bindings, from topology.Place, say where each PE runs: a bound PE starts pinned to
	// its CPUs, and its segment goes on its NUMA node (Topology is the machine they were
	// computed on). nil: every PE unbound, inheriting the launcher's affinity.
	Bindings []topology.Binding
	Topology *topology.Topology
	// SharedCPUs: PEs share CPUs, so waits must yield and sleep. It is implied when the
	// bindings oversubscribe their CPUs, or, unbound, when PEs outnumber the CPUs.
	SharedCPUs bool

	Timeout time.Duration // 0: none
	Grace   time.Duration // from SIGTERM to SIGKILL when ending PEs; 0 means 1s
	Signals bool          // relay SIGINT, SIGTERM and SIGHUP to the PEs
}

// Exit statuses of the launcher itself, as timeout(1), env(1) and nohup(1) use them, so
// that none is taken for a PE's status (a Go PE that panics exits with 2).
const (
	StatusTimeout   = 124 // --timeout expired
	StatusUsage     = 125 // bad command line or configuration, or the job could not start
	StatusCannotRun = 126 // the program exists but cannot be executed
	StatusNotFound  = 127 // the program does not exist
)

// Run runs the job and returns the status the launcher should exit with. An error means
// the job could not start (nothing is left running).
func Run(cfg Config) (int, error) {
	j, err := newJob(cfg)
	if err != nil {
		return StatusUsage, err
	}
	defer j.obj.Close()
	if err := j.start(); err != nil {
		j.kill(syscall.SIGKILL)
		j.reap()
		close(j.over)
		return startStatus(err), err
	}
	return j.watch(), nil
}

type pe struct {
	n         int
	cmd       *exec.Cmd
	pid       int
	exited    bool
	status    int           // once exited: its exit status (128+signal when killed)
	finalized bool          // once exited: it had called Finalize
	outDone   chan struct{} // stdout and stderr relayed (see drain)
	relays    [2]*relay     // stdout, stderr
	firstErr  atomic.Pointer[string]
}

type job struct {
	cfg   Config
	obj   *shm.Object
	pes   []*pe
	out   *lineWriter
	errw  *lineWriter
	log   io.Writer
	exits chan exitEvent
	over  chan struct{} // closed when every PE has exited
}

type exitEvent struct {
	pe    int
	state *os.ProcessState
}

func newJob(cfg Config) (*job, error) {
	if cfg.NPEs < 1 {
		return nil, fmt.Errorf("-n %d: need at least 1 PE", cfg.NPEs)
	}
	if cfg.NPEs > shm.MaxPEs {
		return nil, fmt.Errorf("-n %d: at most %d PEs run on one node", cfg.NPEs, shm.MaxPEs)
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Grace == 0 {
		cfg.Grace = time.Second
	}
	if cfg.Bindings != nil && len(cfg.Bindings) != cfg.NPEs {
		return nil, fmt.Errorf("internal: %d PEs but %d bindings", cfg.NPEs, len(cfg.Bindings))
	}
	if cfg.Bindings != nil && topology.Oversubscribed(cfg.Bindings) || cfg.Bindings == nil && cfg.NPEs > runtime.NumCPU() {
		cfg.SharedCPUs = true
	}
	vals, err := settings.Parse(envLookup(cfg.Env))
	if err != nil {
		return nil, err
	}
	heap, err := shm.HeapWithStatic(vals.Size("SHMEM_SYMMETRIC_SIZE"), StaticData(cfg.Prog))
	if err != nil {
		return nil, err
	}
	l, err := shm.NewLayout(cfg.NPEs, heap)
	if err != nil {
		return nil, fmt.Errorf("SHMEM_SYMMETRIC_SIZE: %w", err)
	}
	var flags uint32
	if cfg.SharedCPUs || vals.String("GOSHMEM_WAIT") == "sleep" {
		flags |= shm.FlagSharedCPUs
	}
	if vals.Bool("SHMEM_DEBUG") {
		flags |= shm.FlagDebug
	}
	o, err := shm.Create(l, flags, 0) // the launcher is no PE: any mapping serves it
	if err != nil {
		return nil, err
	}
	for i := range cfg.NPEs {
		p := unplaced
		if cfg.Bindings != nil {
			p = topology.PlaceOf(cfg.Bindings[i])
		}
		o.Slot(i).Place = placeRecord(p)
	}
	if cfg.Bindings != nil && cfg.Topology != nil {
		if err := applyNUMA(o, cfg.Topology, cfg.Bindings); err != nil {
			o.Close()
			return nil, err
		}
	}
	j := &job{cfg: cfg, obj: o, log: cfg.Log, exits: make(chan exitEvent, cfg.NPEs), over: make(chan struct{})}
	j.out = &lineWriter{w: cfg.Stdout, tag: cfg.TagOutput}
	j.errw = &lineWriter{w: cfg.Stderr, tag: cfg.TagOutput}
	if j.log == nil {
		// shmemrun's messages go between the PEs' lines, never into one.
		j.log = &Output{j.errw}
	}
	return j, nil
}

func envLookup(env []string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v, true
			}
		}
		return "", false
	}
}

// peEnv is the environment of PE n: the job's, without any inherited goshmem bootstrap
// variables, plus this job's.
func (j *job) peEnv(n int) []string {
	env := make([]string, 0, len(j.cfg.Env)+2)
	for _, kv := range j.cfg.Env {
		if !strings.HasPrefix(kv, rt.EnvFD+"=") && !strings.HasPrefix(kv, rt.EnvPE+"=") {
			env = append(env, kv)
		}
	}
	return append(env, rt.EnvFD+"=3", rt.EnvPE+"="+strconv.Itoa(n))
}

// start starts every PE from one locked OS thread: setting that thread's affinity before
// each fork makes the child, and every thread it creates, start on its CPUs. The thread is
// never handed back to the scheduler with a changed mask, and it stays alive for the whole
// job because the PEs' parent-death signal is tied to the thread that forked them.
func (j *job) start() error {
	// A duplicate the *os.File owns and closes, so its finalizer never closes the object's
	// own descriptor.
	dup, err := unix.FcntlInt(uintptr(j.obj.Fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("dup of the object's descriptor: %w", err)
	}
	memfd := os.NewFile(uintptr(dup), "goshmem-object")
	defer memfd.Close()
	started := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		started <- j.startAll(memfd)
		<-j.over
	}()
	return <-started
}

func (j *job) startAll(memfd *os.File) error {
	inherited, err := topology.Affinity() // this thread's mask, for unbound PEs
	if err != nil {
		return fmt.Errorf("reading the launcher's CPU affinity: %w", err)
	}
	for n := range j.cfg.NPEs {
		p := &pe{n: n, outDone: make(chan struct{})}
		j.pes = append(j.pes, p)
		cmd := exec.Command(j.cfg.Prog, j.cfg.Args...)
		cmd.Env = j.peEnv(n)
		cmd.ExtraFiles = []*os.File{memfd}
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if n == 0 && j.cfg.Stdin != nil {
			cmd.Stdin = j.cfg.Stdin
		}
		mask := inherited
		if j.cfg.Bindings != nil && j.cfg.Bindings[n].Bound {
			mask = j.cfg.Bindings[n].CPUs
		}
		if err := topology.SetAffinity(mask); err != nil {
			return fmt.Errorf("pinning PE %d to CPUs %v: %w", n, mask, err)
		}
		outR, errR, err := StartPiped(cmd)
		if err != nil {
			return fmt.Errorf("starting PE %d: %w", n, err)
		}
		p.cmd, p.pid = cmd, cmd.Process.Pid
		p.relays = [2]*relay{j.out.newRelay(n, outR, nil), j.errw.newRelay(n, errR, &p.firstErr)}
		for _, r := range p.relays {
			go r.run()
		}
		go func() {
			for _, r := range p.relays {
				<-r.done
			}
			close(p.outDone)
		}()
		go func() {
			cmd.Wait()
			j.exits <- exitEvent{n, cmd.ProcessState}
		}()
	}
	return nil
}

// startStatus is the status of a job whose program could not be started: 127 when it does
// not exist, 126 when it cannot be executed, else 125.
func startStatus(err error) int {
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		return StatusNotFound
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC):
		return StatusCannotRun
	}
	return StatusUsage
}

// kill sends sig to every PE still running.
func (j *job) kill(sig syscall.Signal) {
	for _, p := range j.pes {
		if p.cmd != nil && !p.exited {
			syscall.Kill(p.pid, sig)
		}
	}
}

// reap waits for every started PE after a failed start.
func (j *job) reap() {
	for _, p := range j.pes {
		if p.cmd != nil {
			<-j.exits
		}
	}
}
