package rt

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/goshmem/shmem/runtime/shm"
)

// Waiting. A PE that owns its CPU polls with PAUSE: a hand-off then costs one cache-line
// transfer. When PEs share CPUs, polling would hold the CPU the awaited PE needs, so after a
// short spin the waiter yields, and after a millisecond sleeps on its doorbell (a futex in
// its segment). The yields and futex waits are raw system calls: through Go's syscall
// path every yield that lasts a scheduling round lets sysmon hand the P to another thread,
// and the 8-PE barrier on 2 CPUs took 134 us instead of 46 us (measured here).
// Posters ring the doorbell only when a sleeper is registered, so the common case costs them
// one load of a line that stays shared in their cache.

// What a PE waits in, for hang reports.
const (
	WaitNone = iota
	WaitUntil
	WaitBarrier
	WaitCollective
	WaitSignal
	WaitLock
)

var waitNames = [...]string{"", "wait_until", "barrier", "collective", "signal_wait_until", "set_lock"}

// WaitName is the routine family a wait code stands for.
func WaitName(op uint32) string {
	if int(op) < len(waitNames) {
		return waitNames[op]
	}
	return "?"
}

const (
	spinBeforeYield  = 64               // polls before the wait's bookkeeping, and before a sharing PE yields
	yieldBeforeSleep = time.Millisecond // yielding time before a sharing PE sleeps
	sleepSlice       = time.Millisecond // futex timeout: bounds the delay of a missed ring
	jobCheckEvery    = 1 << 12          // polls between checks of the job's state when spinning
	// Polls between Goscheds when spinning: other goroutines of this PE (sharing its P,
	// GOMAXPROCS=1 on one core) run within a few microseconds instead of at the scheduler's
	// next preemption (10 ms and more). A Gosched with nothing else to run costs ~100 ns,
	// under 1% of the polls between two (on a locked thread, see waitGosched).
	goschedEvery = 1 << 8
)

// lockedCallers says that the library's callers run on locked OS threads, as a C
// program's do (a cgo callback's goroutine is locked to its C thread). There a Gosched
// hands the P to another thread and back, two thread switches of microseconds each: a C
// PE spinning in wait_until switched 300 000 times a second and noticed its word 1.0-1.2 us
// after it was set, against 0.16-0.18 us for waits too short to reach a Gosched.
var lockedCallers bool

// SetLockedCallers tells the runtime, before Init, that its callers run on locked threads
// (the C ABI's).
func SetLockedCallers() { lockedCallers = true }

// waitGosched lets this PE's other goroutines run from a wait loop: at once from an
// unlocked goroutine, at schedPoint's pace (every schedEvery) from a locked one, which then
// gives up the P only as often as sysmon's preemption needs.
func waitGosched() {
	if lockedCallers {
		schedPoint()
		return
	}
	runtime.Gosched()
}

// Await returns once done reports true. who (the routine), op and arg describe the wait
// for hang reports.
func Await(who string, op uint32, arg int, done func() bool) {
	if done() {
		return
	}
	awaitSlow(who, op, arg, nil, done, nil)
}

// AwaitAnswer is Await for a condition another PE makes true in answer to this one (the
// WaitUntil family, signal waits, the 2-PE barrier): it pauses before its first poll. A poll loads the line
// the poster is about to write, which its store must then take back: a pingpong (put,
// quiet, wait) took 0.55 us polling at once, 0.41 pausing first, where a flag round trip
// is 0.38-0.42 (Zen 2 VM, cores apart). A condition that holds already costs one pause
// (36 ns there). Across nodes the wait drives the engine from its first poll (awaitSlow).
func AwaitAnswer(who string, op uint32, arg int, done func() bool) {
	if !multiNode {
		for range spinBeforeYield {
			shm.Pause()
			if done() {
				return
			}
		}
	}
	Await(who, op, arg, done)
}

// Pause is the spin-wait hint, for a wait that polls before its Await (AwaitAnswer's pause).
func Pause() { shm.Pause() }

// awaitOn is Await for a condition on a futex word that every poster wakes (a barrier's
// release): sleepers of all PEs sleep on the word itself, so one wake reaches them all.
func awaitOn(who string, op uint32, arg int, word *uint32, done func() bool) {
	if done() {
		return
	}
	awaitSlow(who, op, arg, word, done, nil)
}

// awaitGE is Await for my word w to hold at least e. Across nodes the polling runs in the
// engine (netPollGE): one call into it per netPolls polls rather than one per poll.
func awaitGE(who string, op uint32, arg int, w *uint64, e uint64) {
	if atomic.LoadUint64(w) >= e {
		return
	}
	var poll func() bool
	if netPolled() {
		if netPollGE(w, e) { // the common case: before the bookkeeping
			return
		}
		poll = func() bool { return netPollGE(w, e) }
	}
	awaitSlow(who, op, arg, nil, func() bool { return atomic.LoadUint64(w) >= e }, poll)
}

// awaitSlow is Await once the first check failed. poll, when not nil, replaces a progress
// call and done in the spinning loop of a PE that owns its CPU across nodes: it polls the
// engine many times and reports done.
func awaitSlow(who string, op uint32, arg int, word *uint32, done func() bool, poll func() bool) {
	// The first polls come before the bookkeeping: most hand-offs land within them, and
	// the slot's stores, the clock read and the deferred call would delay noticing
	// one by about as much as the hand-off itself costs (a 2-PE barrier is one hand-off).
	if !multiNode {
		for range spinBeforeYield {
			shm.Pause()
			if done() {
				return
			}
		}
	}
	slot := obj.Slot(me)
	setWaitWho(slot, who)
	atomic.StoreInt32(&slot.WaitArg, int32(arg))
	atomic.StoreInt64(&slot.WaitSince, time.Now().UnixNano())
	atomic.StoreUint32(&slot.WaitOp, op)
	defer atomic.StoreUint32(&slot.WaitOp, WaitNone)
	if multiNode {
		// The wait serves other nodes' requests itself; the progress goroutine rests.
		netEnter()
		defer netLeave()
	}
	if poll != nil && !sleepWait {
		for i := 1; ; i++ {
			if poll() {
				return
			}
			waitGosched() // a poll is ~netPolls progress calls: about 100 us
			if i%(jobCheckEvery/netPolls) == 0 {
				checkJob()
				debugHang(slot)
			}
		}
	}
	if !sleepWait {
		for i := 1; ; i++ {
			shm.Pause()
			if multiNode {
				netProgress()
			}
			if done() {
				return
			}
			if i%goschedEvery == 0 {
				waitGosched()
				if i%jobCheckEvery == 0 {
					checkJob()
					debugHang(slot)
				}
			}
		}
	}
	if multiNode { // no spin before the bookkeeping above: spin here, as before yielding
		for range spinBeforeYield {
			shm.Pause()
			if done() {
				return
			}
		}
	}
	seg := obj.SegHeader(me)
	for {
		start := time.Now()
		for i := 1; time.Since(start) < yieldBeforeSleep; i++ {
			shm.Yield()
			if multiNode {
				netProgress()
			}
			if done() {
				return
			}
			if i%8 == 0 {
				waitGosched() // the yields bypass Go's scheduler: let this PE's goroutines run
			}
		}
		if word != nil {
			v := atomic.LoadUint32(word)
			if done() {
				return
			}
			netSleep(func() { shm.FutexWait(word, v, sleepSlice) })
			if done() {
				return
			}
			waitGosched()
			checkJob()
			debugHang(slot)
			continue
		}
		// Register as a sleeper, then read the bell, then re-check: a poster that writes
		// after our check sees Sleepers != 0 and rings, so the futex does not sleep.
		atomic.AddUint32(&seg.Sleepers, 1)
		bell := atomic.LoadUint32(&seg.Bell)
		if done() {
			atomic.AddUint32(&seg.Sleepers, ^uint32(0))
			return
		}
		netSleep(func() { shm.FutexWait(&seg.Bell, bell, sleepSlice) })
		atomic.AddUint32(&seg.Sleepers, ^uint32(0))
		if done() {
			return
		}
		waitGosched()
		checkJob()
		debugHang(slot)
	}
}

// netSleep runs a futex sleep of a wait; in a multi-node job the progress goroutine serves
// the engine meanwhile and rings the doorbell when something arrived.
func netSleep(sleep func()) {
	if !multiNode {
		sleep()
		return
	}
	waitAsleep.Store(true)
	netLeave()
	sleep()
	netEnter()
	waitAsleep.Store(false)
}

// Notify tells PE pe that its memory changed, waking its sleeping waiters. Callers whose
// write was a plain store call it; the fence orders that store before the Sleepers load
// (the waiter's side of the handshake is a locked increment, then its check).
func Notify(pe int) {
	if mayWake {
		notifyFenced(pe)
	}
}

func notifyFenced(pe int) {
	shm.FenceFull()
	ring(pe)
}

// NotifyAtomic is Notify after a sequentially consistent atomic write, which already orders
// the write before the Sleepers load.
func NotifyAtomic(pe int) {
	if mayWake {
		ring(pe)
	}
}

func ring(pe int) {
	seg := obj.SegHeader(pe)
	if atomic.LoadUint32(&seg.Sleepers) != 0 {
		atomic.AddUint32(&seg.Bell, 1)
		shm.FutexWake(&seg.Bell, 1<<30)
	}
}

// checkJob ends this PE when the job is over: another PE called GlobalExit, or the launcher
// is tearing the job down.
func checkJob() {
	if engine != nil {
		engine.Check()
	}
	if atomic.LoadUint32(&hdr.ExitRequested) == 1 { // 2: the status is being written
		exit(int(atomic.LoadInt32(&hdr.ExitStatus)))
	}
	if atomic.LoadUint32(&hdr.Abort) != 0 {
		exit(1)
	}
}

// Idle is called by a test routine that found nothing: when this PE shares its CPU, a
// polling loop around the test would otherwise hold the CPU the PE it waits for needs.
func Idle() {
	if multiNode {
		netProgress()
	}
	if sleepWait {
		shm.Yield()
	}
}

// setWaitWho writes the routine a PE waits in into its slot, for hang reports
// (PEActivity), before WaitOp's store, which publishes it.
func setWaitWho(slot *shm.Slot, who string) { putName(slot.WaitWho[:], who) }

// waitWho is the routine in a slot's WaitWho, "" if none.
func waitWho(slot *shm.Slot) string { return nameOf(slot.WaitWho[:]) }
