package launch

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/shm"
)

// watch waits for the PEs and decides how the job ends (verdict judges each exit):
//   - every PE exits after Finalize, or every PE exits 0 without calling Init (shmemrun
//     runs any program): the highest exit status;
//   - a PE calls GlobalExit(s): the others are ended at once, status s;
//   - a PE fails (killed, non-zero status while others run, status 0 without Finalize
//     while others run, or no Init while another PE called it): it is reported, the others
//     get SIGTERM and, after the grace period, SIGKILL; status 128+signal or the PE's status;
//   - a signal to the launcher: relayed to every PE, then as above; a second SIGINT kills;
//   - the timeout: where each PE waits is reported, then as above; status 124.
func (j *job) watch() int {
	defer close(j.over)
	hdr := j.obj.Header()
	exitReq := make(chan struct{})
	stop, stopped := make(chan struct{}), make(chan struct{})
	go watchExitRequest(hdr, exitReq, stop, stopped)
	defer func() {
		// The watcher reads the header: stop it before the object is unmapped.
		close(stop)
		atomic.AddUint32(&hdr.JobBell, 1)
		shm.FutexWake(&hdr.JobBell, 1)
		<-stopped
	}()

	var sigs chan os.Signal
	if j.cfg.Signals {
		sigs = make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(sigs)
	}
	var timeout <-chan time.Time
	if j.cfg.Timeout > 0 {
		t := time.NewTimer(j.cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var grace <-chan time.Time
	running := len(j.pes)
	status, maxStatus := -1, 0 // status >= 0 once the job's outcome is decided
	endJob := func(s int, sig syscall.Signal) {
		if status >= 0 {
			return
		}
		status = s
		atomic.StoreUint32(&hdr.Abort, 1)
		j.ringAll()
		j.kill(sig)
		grace = time.After(j.cfg.Grace)
	}
	interrupts := 0
	var noInit []*pe              // PEs that exited without calling Init
	var initPoll <-chan time.Time // ticks while there are such PEs
	for running > 0 {
		select {
		case ev := <-j.exits:
			running--
			p := j.pes[ev.pe]
			p.exited = true
			ws := ev.state.Sys().(syscall.WaitStatus)
			code := ws.ExitStatus()
			if ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
			state := atomic.LoadUint32(&j.obj.Slot(ev.pe).State)
			p.status, p.finalized = code, state == shm.StateFinalized
			maxStatus = max(maxStatus, code)
			if status >= 0 || atomic.LoadUint32(&hdr.ExitRequested) == 1 {
				continue // the job is already ending: this exit is a consequence
			}
			if how, s := verdict(exitFacts{ws, state, running > 0, j.initialized()}); how != "" {
				j.report(p, how)
				endJob(s, syscall.SIGTERM)
			} else if state == shm.StateNone && running > 0 {
				// Fine unless another PE calls Init later: watched below.
				noInit = append(noInit, p)
				if initPoll == nil {
					initPoll = time.Tick(100 * time.Millisecond)
				}
			}
		case <-initPoll:
			if pe := j.initialized(); pe >= 0 && status < 0 {
				j.report(noInit[0], notInitialized(pe))
				endJob(1, syscall.SIGTERM)
			}
		case <-exitReq:
			if status < 0 {
				// The PEs' engines exit on this signal after flushing their output; the
				// grace period's SIGKILL ends any that cannot.
				endJob(clampStatus(int(atomic.LoadInt32(&hdr.ExitStatus))), shm.ExitSignal)
			}
		case sig := <-sigs:
			interrupts++
			s := sig.(syscall.Signal)
			if status >= 0 && (s == syscall.SIGINT && interrupts > 1) {
				j.kill(syscall.SIGKILL)
				continue
			}
			fmt.Fprintf(j.log, "shmemrun: %s: ending the job\n", signame(s))
			endJob(128+int(s), s)
		case <-timeout:
			fmt.Fprintf(j.log, "shmemrun: --timeout %v expired\n", j.cfg.Timeout)
			j.reportWaits()
			endJob(StatusTimeout, syscall.SIGTERM)
		case <-grace:
			j.kill(syscall.SIGKILL)
		}
	}
	// Deliver everything the PEs wrote, however long the destination takes; children of
	// PEs that still hold the pipes do not hold the job (see drain).
	for _, p := range j.pes {
		for _, r := range p.relays {
			r.drain()
		}
	}
	for _, p := range j.pes {
		<-p.outDone
	}
	if status >= 0 {
		return status
	}
	if atomic.LoadUint32(&hdr.ExitRequested) == 1 {
		return clampStatus(int(atomic.LoadInt32(&hdr.ExitStatus)))
	}
	return maxStatus
}

// initialized returns a PE that has called Init (and not exited), or -1.
func (j *job) initialized() int {
	for _, p := range j.pes {
		if !p.exited && atomic.LoadUint32(&j.obj.Slot(p.n).State) != shm.StateNone {
			return p.n
		}
	}
	return -1
}

// clampStatus makes a GlobalExit status an exit status (the engine already clamps it; a
// control block written by anything else is not trusted).
func clampStatus(s int) int {
	if s < 0 || s > 255 {
		return 255
	}
	return s
}

// watchExitRequest sleeps on the job bell and reports a GlobalExit.
func watchExitRequest(hdr *shm.Header, req chan<- struct{}, stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	for {
		b := atomic.LoadUint32(&hdr.JobBell)
		if atomic.LoadUint32(&hdr.ExitRequested) == 1 {
			close(req)
			return
		}
		select {
		case <-stop:
			return
		default:
		}
		shm.FutexWait(&hdr.JobBell, b, 100*time.Millisecond)
	}
}

// ringAll wakes every sleeping waiter so it sees the job ending.
func (j *job) ringAll() {
	for n := range j.pes {
		seg := j.obj.SegHeader(n)
		atomic.AddUint32(&seg.Bell, 1)
		shm.FutexWake(&seg.Bell, 1<<30)
	}
}

// report says which PE failed and how, with its panic's first line when there was one.
func (j *job) report(p *pe, how string) {
	select {
	case <-p.outDone:
	case <-time.After(time.Second):
	}
	msg := fmt.Sprintf("shmemrun: PE %d (pid %d) %s", p.n, p.pid, how)
	if l := p.firstErr.Load(); l != nil {
		msg += ": " + *l
	}
	fmt.Fprintln(j.log, msg)
}

// reportWaits prints what every PE is doing: where each running PE waits (with
// SHMEM_DEBUG=1, in which collective and which members have not arrived), and how each
// exited PE ended.
func (j *job) reportWaits() {
	now := time.Now()
	exited := func(pe int) bool { return j.pes[pe].exited }
	for _, p := range j.pes {
		if p.exited {
			how := fmt.Sprintf("exited with status %d", p.status)
			if p.finalized {
				how = fmt.Sprintf("exited after shmem.Finalize with status %d", p.status)
			}
			fmt.Fprintf(j.log, "shmemrun: PE %d (pid %d): %s\n", p.n, p.pid, how)
			continue
		}
		what := rt.PEActivity(j.obj, p.n, now)
		s := j.obj.Slot(p.n)
		if j.obj.Header().Flags&shm.FlagDebug != 0 && atomic.LoadInt32(&s.Coll.Active) == 1 {
			r := s.Coll
			if missing := rt.NotArrived(j.obj, &r, exited); len(missing) > 0 {
				what += "; not arrived: PE " + joinInts(missing)
			}
		}
		fmt.Fprintf(j.log, "shmemrun: PE %d (pid %d): %s\n", p.n, p.pid, what)
	}
	if in := waitRoutines(j.obj, len(j.pes), exited); len(in) > 1 {
		fmt.Fprintf(j.log, "shmemrun: the PEs wait in different collectives (%s): every PE must call the same collectives in the same order, and a pSync must hold SHMEM_SYNC_VALUE on every PE, with a barrier after it was set, before any PE enters a call on it (SHMEM_DEBUG=1 checks the calls)\n", strings.Join(in, ", "))
	}
}

// waitRoutines are the distinct barriers and collectives the running PEs of the job wait
// in, in PE order.
func waitRoutines(o *shm.Object, npes int, exited func(int) bool) []string {
	var in []string
	for pe := range npes {
		if r := rt.WaitingInCollective(o, pe); r != "" && !exited(pe) && !slices.Contains(in, r) {
			in = append(in, r)
		}
	}
	return in
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func signame(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}
