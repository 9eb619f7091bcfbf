package rt

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// A job that spans nodes: PMIx (mpirun, prterun, srun --mpi=pmix) starts the PEs, the PEs of
// each node share one memfd as under shmemrun, and PEs on other nodes are reached through a
// distributed engine (UCX UCP, package ucx, built with the tag goshmem_ucx) behind the
// Transport seam. The engine's half of this file is net_ucx.go; without the tag,
// net_none.go refuses a PMIx launch instead of starting N one-PE jobs.

// envPMIx is set by every PMIx launcher in the environment of the processes it starts.
const envPMIx = "PMIX_NAMESPACE"

// errNoEngine: a PMIx launcher started a binary built without the multi-node engine.
var errNoEngine = errors.New("started by a PMIx launcher (mpirun, prterun, srun --mpi=pmix), but this binary has no multi-node engine: rebuild it with -tags goshmem_ucx (needs cgo, libucx-dev and libpmix-dev; shmemcc does this for C programs when pkg-config finds ucx and pmix), or start it with shmemrun")

// Node membership, set at Init and read without locks afterwards.
var (
	multiNode bool    // some PE is on another node
	nodeOf    []int32 // nodeOf[pe]: the node's index (nodes numbered by their lowest PE)
	nodePEs   []int   // the PEs on my node, ascending
	hostOf    []string
	netT      Transport // reaches PEs on other nodes; nil in a one-node job
)

// local reports whether PE pe is on my node (its segment is in my mapping).
func local(pe int) bool { return !multiNode || nodeOf[pe] == nodeOf[me] }

// Local reports whether PE pe shares my node's memory (shmem_ptr can reach it).
func Local(pe int) bool { return local(pe) }

// OrderBefore orders my puts to PE pe before my next operation to it (put-with-signal's
// data before its signal): shared memory's stores are ordered already.
func OrderBefore(pe int) {
	if !local(pe) {
		transports[pe].Fence()
	}
}

// Host is the name of PE pe's node ("" in a one-node job).
func Host(pe int) string {
	if uint(pe) >= uint(len(hostOf)) {
		return ""
	}
	return hostOf[pe]
}

// setNodes records which PEs share a node: leader[pe] is the lowest PE of pe's node.
func setNodes(leader []int, hosts []string) {
	nodeOf = make([]int32, len(leader))
	index := map[int]int32{}
	for pe, l := range leader {
		if _, ok := index[l]; !ok {
			index[l] = int32(len(index))
		}
		nodeOf[pe] = index[l]
	}
	nodePEs = nodePEs[:0]
	for pe := range leader {
		if nodeOf[pe] == nodeOf[me] {
			nodePEs = append(nodePEs, pe)
		}
	}
	hostOf = hosts
	multiNode = len(index) > 1
}

// netEngine is what a multi-node engine gives the runtime besides its Transport.
type netEngine interface {
	// Progress serves requests aimed at this PE (over TCP, RMA and AMOs to a PE are applied
	// only while its engine runs); it reports whether there were any.
	Progress() bool
	// Abort ends the whole job, on every node, with status.
	Abort(status int, msg string)
	// NoticeExit tells the PEs on other nodes, before Abort, that this PE ends the job with
	// status (GlobalExit); ExitNotice is such a notice another PE sent (status -1: none).
	NoticeExit(status int)
	ExitNotice() (status, from int)
	// Finalize leaves the job (after the last barrier).
	Finalize()
	// Check ends the job when a PE on another node is lost, or a PE of my node ended
	// before Finalize (a PMIx launcher may not notice a PE that exits with status 0).
	Check()
	// NewContext makes the remote part of a communication context: its own worker, so its
	// Quiet waits for its own operations only.
	NewContext() (Transport, error)
	// TakeMail unlinks the oldest message PE from mailed this PE under key (a mailer's
	// Mail), its bytes valid until FreeMail; ok is false when none has come. Called with
	// the worker locked (lockNet): the engine's handlers keep the messages.
	TakeMail(from int, key uintptr) (p unsafe.Pointer, n uintptr, ok bool)
	// MailCount counts the messages kept so far (read atomically, without the lock).
	MailCount() *uint64
	FreeMail(p unsafe.Pointer)
	// Polled waits (engine.c "Polled waits"), each up to polls progress calls, with the
	// worker locked: PollGE until my word w holds at least e (true: it does),
	// SignalPollGE after adding v to (add) or storing v into word sig on PE pe as a
	// collective's signal does, PollMail until TakeMail takes a message, after freeing done
	// (a message taken before, or nil) and sending out (when out.to >= 0).
	PollGE(w *uint64, e uint64, polls int) bool
	SignalPollGE(pe int, sig unsafe.Pointer, add bool, v uint64, w *uint64, e uint64, polls int) bool
	PollMail(done unsafe.Pointer, out mailOut, from int, key uintptr, polls int) (p unsafe.Pointer, n uintptr, ok bool)
}

// mailOut is a message a mail poll sends first: n bytes from src to PE to (none: -1),
// under key.
type mailOut struct {
	to  int
	key uintptr
	src unsafe.Pointer
	n   uintptr
}

var engine netEngine

// The engine's worker is used by one goroutine at a time: the PE's calls and the progress
// goroutine take netMu. inLib counts the PE's goroutines inside the library (an operation
// or a wait, which progress the engine themselves): the progress goroutine rests
// meanwhile (two threads taking turns on one worker halve its bandwidth). libCalls counts
// entries, so the progress goroutine tells a PE calling the library in a loop from one
// that left it.
var (
	netMu      sync.Mutex
	inLib      atomic.Int32
	libCalls   atomic.Uint32
	serveAwait atomic.Bool // the progress goroutine waits for libIdle's broadcast
	waitAsleep atomic.Bool // a wait of the PE sleeps, counting on the progress goroutine
	libIdle    = sync.NewCond(&sync.Mutex{})
)

// netServe is who serves other nodes' requests to this PE while it computes outside the
// library (over TCP a get, an AMO or a strided put needs its target's CPU).
type netServe uint8

const (
	// serveWakeup: a goroutine asleep on the worker's wake-up descriptor. It answers at
	// once, but the descriptor costs every message the kernel's report through a second
	// epoll set (UCP_FEATURE_WAKEUP): 0.2-0.3 µs a round trip across fake nodes.
	serveWakeup netServe = iota
	// servePoll: a goroutine that progresses the worker every servePollEvery, without the
	// descriptor (as OSSS-UCX's progress thread polls): requests to a computing PE wait
	// up to a tick; a wait of the PE's polls the worker itself.
	servePoll
	// serveCalls: only the PE's own library calls, as Open MPI's OSHMEM over TCP.
	serveCalls
)

// servePollEvery is the polling goroutine's tick. A request to a computing PE waits up to
// a tick (the bound for a put+quiet to a PE computing for 300 ms is 10 ms; across
// fake nodes it took 1.1 ms, 0.2 ms with wakeup). Each tick costs the computing PE a thread
// switch: pinned to one CPU with no traffic, its thread got 98.0% of the CPU, against 98.6%
// with wakeup and 99.5% with calls.
const servePollEvery = time.Millisecond

// netServeModes are the modes' GOSHMEM_NET_PROGRESS values and what SHMEM_INFO says of them.
var netServeModes = [...]struct{ name, what string }{
	serveWakeup: {"wakeup", "a goroutine asleep on the UCX worker's wake-up descriptor"},
	servePoll:   {"poll", "a goroutine polling the UCX worker every " + servePollEvery.String()},
	serveCalls:  {"calls", "only the PE's own library calls"},
}

func (s netServe) String() string { return netServeModes[s].what }

// netServeMode decides who serves other nodes' requests from GOSHMEM_NET_PROGRESS and the
// node's wait policy. auto sleeps on the wake-up descriptor where waits sleep (a sleeping
// wait counts on that goroutine to serve the network and ring its doorbell at once) and
// polls where they spin (a spinning wait progresses the worker itself, and the descriptor
// would cost each message). calls needs waits that spin.
func netServeMode(setting string, sleepWait bool) (netServe, error) {
	for m, v := range netServeModes {
		if setting != v.name {
			continue
		}
		if netServe(m) == serveCalls && sleepWait {
			return 0, errors.New("GOSHMEM_NET_PROGRESS=calls: this node's PEs share CPUs, so their waits sleep and count on the progress goroutine to serve the network; set GOSHMEM_WAIT=spin as well, or use GOSHMEM_NET_PROGRESS=auto")
		}
		return netServe(m), nil
	}
	if sleepWait {
		return serveWakeup, nil
	}
	return servePoll, nil
}

// netServing is the mode netStart chose (reported by SHMEM_INFO and NetProgress).
var netServing netServe

// NetProgress names who serves other nodes' requests to this PE while it computes
// (GOSHMEM_NET_PROGRESS's value for it): wakeup, poll or calls; "" in a one-node job.
func NetProgress() string {
	if !multiNode {
		return ""
	}
	return netServeModes[netServing].name
}

// netPolls bounds one polled wait in the engine: a progress call over TCP costs 0.3-0.5 us,
// so the wait is back in Go every 100 us or so for its checks.
const netPolls = 256

// netPolled says whether network waits poll in the engine: across nodes, for a PE that
// owns its CPU (one that shares it yields between polls, from Go).
func netPolled() bool { return multiNode && !sleepWait }

// netPollGE polls the engine until my word w holds at least e, or netPolls times.
func netPollGE(w *uint64, e uint64) bool {
	lockNet()
	ok := engine.PollGE(w, e, netPolls)
	unlockNet()
	return ok
}

// netProgress runs the engine once from a wait loop.
func netProgress() {
	netMu.Lock()
	engine.Progress()
	netMu.Unlock()
}

func netEnter() {
	inLib.Add(1)
	libCalls.Add(1)
	schedPoint()
}

// schedPoint passes the calling goroutine through Go's scheduler once per schedEvery while
// the PE calls the engine. A goroutine that spends 10 ms in cgo calls without being
// scheduled is taken for stuck: sysmon takes its P and then wakes every 20 µs for the next
// milliseconds, each wake-up preempting a PE on a machine whose CPUs are all busy (a
// pingpong across nodes lost a fifth of its time so, and its threads switched 10 000
// times a second where raw UCX's do not). Half of those 10 ms, not less: each Gosched
// wakes another thread on the PE's CPU (on a C caller's locked thread it hands the P over
// and back), which switches the PE out for microseconds.
func schedPoint() {
	now := time.Since(netEpoch)
	if last := lastSched.Load(); now-time.Duration(last) >= schedEvery && lastSched.CompareAndSwap(last, int64(now)) {
		runtime.Gosched()
	}
}

const schedEvery = 5 * time.Millisecond

var (
	netEpoch  = time.Now()
	lastSched atomic.Int64 // time.Since(netEpoch) at the last schedPoint's Gosched
)

// lockNet takes the worker for one of the PE's operations, parking the progress goroutine.
// While it waits, netWanted says so to a polled wait holding the worker (up to netPolls
// progress calls, ~100 us), which then returns early.
func lockNet() {
	netEnter()
	if !netMu.TryLock() {
		atomic.AddUint32(netWanted, 1)
		netMu.Lock()
		atomic.AddUint32(netWanted, ^uint32(0))
	}
}

// netWanted counts goroutines waiting in lockNet: the engine's counter (ucx.LockWanted)
// in a job across nodes.
var netWanted = new(uint32)

func unlockNet() {
	netMu.Unlock()
	netLeave()
}

func netLeave() {
	if inLib.Add(-1) == 0 && serveAwait.Load() {
		libIdle.L.Lock()
		libIdle.Broadcast()
		libIdle.L.Unlock()
	}
}

// serveTick and serveTickMax bound the resting progress goroutine's sleep between looks
// while the PE calls the library in a loop. Each look wakes a thread on the PE's CPU and
// switches the PE out (across fake nodes, two thirds of a job's slow rounds had such a
// switch, against 0.1% of the others), so the sleep doubles while the PE is found inside
// the library, up to serveTickMax; a PE found outside after calls since the last look may
// have started computing and is looked at again after serveTick. A PE that starts
// computing is served within serveTickMax + serveTick (and servePollEvery): under 10 ms.
const (
	serveTick    = time.Millisecond
	serveTickMax = 4 * time.Millisecond
)

// nextServeTick is the sleep between looks after last (0: the first), the PE found inside
// the library at this look or not.
func nextServeTick(last time.Duration, inside bool) time.Duration {
	if !inside || last == 0 {
		return serveTick
	}
	return min(2*last, serveTickMax)
}

// serveSeen is libCalls when the progress goroutine last looked, serveLast its last sleep
// between looks (only it uses them).
var (
	serveSeen uint32
	serveLast time.Duration
)

// waitLibIdle returns once the PE is outside the library and has not entered it since the
// progress goroutine last looked, or for a tick. A PE calling the library in a loop is
// looked at once a tick, a tick that grows while the PE is found inside (waking the
// progress goroutine at every exit cost each operation a thread switch: a get across
// nodes took 2.4x raw UCX's); one inside a long wait is waited for on libIdle, which its
// exit broadcasts.
func waitLibIdle() {
	for {
		n := libCalls.Load()
		idle := inLib.Load() == 0
		switch {
		case idle && (n == serveSeen || waitAsleep.Load()):
			serveSeen, serveLast = n, 0
			return
		case n == serveSeen: // inside since the last look: a wait; sleep until it ends
			// Once: a PE that left the wait and came back is calling in a loop again, and
			// waiting on would wake this goroutine (a thread) at every one of its exits.
			libIdle.L.Lock()
			serveAwait.Store(true)
			if inLib.Load() != 0 {
				libIdle.Wait()
			}
			serveAwait.Store(false)
			libIdle.L.Unlock()
			serveLast = 0
		default:
			serveSeen = n
			serveLast = nextServeTick(serveLast, !idle)
			time.Sleep(serveLast)
		}
	}
}

// offset is p's offset in my segment: the address the engine sends for a symmetric p.
func segOffset(p unsafe.Pointer) uintptr { return uintptr(p) - uintptr(mySeg) }

// spansNodes reports whether group g has members on another node than mine.
func spansNodes(g Group) bool {
	if !multiNode {
		return false
	}
	return hierOf(g) != nil
}

// finalizing is set between Finalize's two barriers: a peer may then end at any time.
var (
	finalizing atomic.Bool
	lostOnce   sync.Once
)

// lostPE reports a PE that ended before Finalize and ends the job.
func lostPE(pe int, why string) {
	if finalizing.Load() {
		return
	}
	quietIfTimedOut()
	lostOnce.Do(func() { // the wait and the progress goroutine may both notice
		exitNoticed()
		msg := fmt.Sprintf("goshmem: PE %d on %s ended before shmem_finalize (%s); PE %d on %s ends the job", pe, Host(pe), why, me, Host(me))
		fmt.Fprintln(os.Stderr, msg)
		abortJob(1, msg)
	})
	select {} // the first caller exits
}

// netFail ends the job when the engine fails: an engine error is not the program's to
// handle (a peer died, a network went away). A peer the engine already knows lost is the
// cause to report (lostPE); an operation to it may fail before the wait that would have
// noticed (a signal sent at once, for immediate completion, fails with the endpoint's
// error).
func netFail(who string, pe int, err error) {
	quietIfTimedOut()
	exitNoticed()
	engine.Check()
	msg := fmt.Sprintf("%s on PE %d on %s: %v", who, me, Host(me), err) // quiet, fence: to any PE
	if pe >= 0 {
		msg = fmt.Sprintf("%s from PE %d on %s to PE %d on %s: %v", who, me, Host(me), pe, Host(pe), err)
	}
	fmt.Fprintln(os.Stderr, "goshmem:", msg)
	abortJob(1, msg)
}

// exitNoticed ends the job with the status of a GlobalExit another node's PE announced, if
// one did: that PE's end is why a connection failed, and the job's status is its status.
func exitNoticed() {
	if status, from := engine.ExitNotice(); status >= 0 {
		abortJob(status, fmt.Sprintf("goshmem: PE %d on %s called shmem_global_exit(%d); PE %d on %s ends the job with it", from, Host(from), status, me, Host(me)))
	}
}

// abortJob asks the launcher to end the job on every node (PMIx_Abort), then exits with
// status: a launcher that does not act on the request still sees this PE fail.
func abortJob(status int, msg string) {
	abortThen(func() { engine.Abort(status, msg) }, status)
}

// abortThen runs abort (a request to the launcher to end the job) and exits with status once
// it returned or after 2 s: Slurm's PMIx plugin held one for 26 s on fake nodes, and a
// launcher that does not act on the request still sees this PE fail.
func abortThen(abort func(), status int) {
	done := make(chan struct{})
	go func() {
		abort()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	exit(status)
}
