package rt

import (
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// Barrier algorithms over a group and a sync area. Each one returns only after every member
// has entered, and so does every collective: a PE can then never be two calls ahead of
// another, so two alternating areas are enough for back-to-back calls, and a wait for a
// count of signals from several members can never be satisfied by one member's signal of
// a later call.

// barrier synchronizes group g (I am member i) on area a with the configured algorithm.
func barrier(who string, g Group, i int, a *area) { barrierAlg(who, g, i, a, AlgAuto) }

// barrierAlg is barrier with the group's choice when the caller has it (a team keeps its
// own), else AlgAuto.
func barrierAlg(who string, g Group, i int, a *area, alg Alg) {
	if g.Size == 1 {
		return
	}
	if h := hierOf(g); h != nil {
		barrierHier(who, h, a)
		return
	}
	if a.epoch != 0 {
		a.epoch++ // each barrier of a call has its own epoch
	}
	if alg == AlgAuto {
		alg = chooseBarrier(g)
	}
	switch alg {
	case AlgLinear:
		barrierLinear(who, g, i, a)
	case AlgTree:
		barrierTree(who, g, i, a, collRadix)
	default:
		barrierDissem(who, g, i, a)
	}
}

// barrierDissem is the dissemination barrier: in round r, member i signals member i+2^r
// and waits for member i-2^r; after ceil(log2 n) rounds everyone has heard, transitively,
// from everyone. All signals of a round travel at once, so 2 PEs need one one-way latency.
//
// On a team's own words (a.epoch set) a round is a store of the barrier's epoch and a wait
// for it: each word has one writer, and nothing needs consuming. On a pSync the words count
// up and are consumed, so pSync holds SyncValue again when the barrier returns.
func barrierDissem(who string, g Group, i int, a *area) {
	if g.Size == 2 && a.epoch != 0 && local(g.PE(1-i)) { // the pair's line is shared memory
		barrierPair(who, g, i, a)
		return
	}
	for r, d := 0, 1; d < g.Size; r, d = r+1, d*2 {
		if a.epoch != 0 {
			a.postAwaitEpoch(who, WaitBarrier, wordDissem+r, g.PE((i+d)%g.Size), a.epoch, wordDissem+r, a.epoch)
			continue
		}
		a.signal(wordDissem+r, g.PE((i+d)%g.Size), 1)
		a.await(who, WaitBarrier, wordDissem+r, 1)
	}
}

// barrierPair is dissemination's one round at 2 members on a team's words, with both flags
// in one cache line, member 0's first dissemination line: each member stores the epoch into
// its word there and waits for the other's. The later arriver finds the earlier one's flag
// in the line it just took to write its own, so it leaves without another transfer: three
// transfers of one line a barrier, where a flag in each member's own line costs two each
// way (measured at 2 PEs on the Zen 5 VM, slow mode: 0.236 against 0.243 us, flag round
// trip 0.33 us). Round 1's word is free at 2 members.
//
// Every call uses the same line (the team's first area's, a.pairLine), not its own area's:
// alternating between two lines cost twice one line on an Intel Xeon VM (the bare protocol
// 0.149 against 0.064 us; BarrierAll at 2 PEs 0.13-0.16 against 0.11-0.12). Sharing is
// safe because the words only grow (epochs increase across both areas) and each has one
// writer: a member already in its next call stores a larger epoch, which the other's wait
// for >= e accepts, rightly, since that member passed e.
func barrierPair(who string, g Group, i int, a *area) {
	w := a.pairLine
	if w == nil {
		w = unsafe.Pointer(a.word(wordDissem))
	}
	line := Remote(w, g.PE(0))
	mine, other := (*uint64)(unsafe.Add(line, i*8)), (*uint64)(unsafe.Add(line, (1-i)*8))
	e := a.epoch
	shm.StoreRelease(mine, e)
	Notify(g.PE(1 - i))
	// A wait for the other's answer: its first polls pause before they load (AwaitAnswer),
	// or they compete for the line my store is still taking (0.072 against 0.050 us a
	// barrier, Zen 2 VM, shared-cache placement) - unless a pause costs more than that
	// line's trip, as on an Intel Xeon VM (BarrierAll 0.109-0.119 us pausing first,
	// 0.089-0.108 loading first): the calibration measures which (pairPollFirst).
	if pairPollFirst && atomic.LoadUint64(other) >= e {
		return
	}
	AwaitAnswer(who, WaitBarrier, wordDissem+1-i, func() bool { return atomic.LoadUint64(other) >= e })
}

// pairPollFirst: barrierPair loads the other's flag before its first pause
// (GOSHMEM_FIRST_POLL, else the model's PollFirst); set at Init. Only there: the waits of
// the WaitUntil family keep their pause first, which this Intel VM's wait_until_some round
// trip still measured faster (0.15-0.24 against 0.25-0.30 us).
var pairPollFirst bool

// barrierLinear gathers every member's arrival at member 0, which then releases them all.
//
// On a team's own words it is a central barrier: every member adds to one counter at
// member 0, the one whose addition completes a multiple of the group size is the last and
// publishes the epoch in one release word there, waking every sleeper with one futex wake;
// the others wait on that word. When PEs share CPUs this costs one wake-up per PE, where
// dissemination costs one per round.
func barrierLinear(who string, g Group, i int, a *area) {
	if a.epoch != 0 {
		root := g.PE(0)
		count := (*uint64)(Remote(unsafe.Pointer(a.word(wordArrive)), root))
		release := (*uint32)(Remote(unsafe.Pointer(a.word(wordRelease)), root)) // the word's low half
		e := uint32(a.epoch)
		if atomic.AddUint64(count, 1)%uint64(g.Size) == 0 {
			atomic.StoreUint32(release, e)
			if mayWake {
				shm.FutexWake(release, 1<<30)
			}
			return
		}
		awaitOn(who, WaitBarrier, wordRelease, release, func() bool { return int32(atomic.LoadUint32(release)-e) >= 0 })
		return
	}
	if i != 0 {
		a.signal(wordArrive, g.PE(0), 1)
		a.await(who, WaitBarrier, wordRelease, 1)
		return
	}
	a.await(who, WaitBarrier, wordArrive, uint64(g.Size-1))
	for j := 1; j < g.Size; j++ {
		a.signal(wordRelease, g.PE(j), 1)
	}
}

// barrierTree gathers arrivals up a k-ary tree rooted at member 0 (children of i are
// k*i+1 .. k*i+k) and releases down it.
func barrierTree(who string, g Group, i int, a *area, k int) {
	first, last := treeChildren(i, g.Size, k)
	if n := last - first; n > 0 {
		a.await(who, WaitBarrier, wordArrive, uint64(n))
	}
	if i != 0 {
		a.signal(wordArrive, g.PE((i-1)/k), 1)
		a.await(who, WaitBarrier, wordRelease, 1)
	}
	for c := first; c < last; c++ {
		a.signal(wordRelease, g.PE(c), 1)
	}
}

// treeChildren is the range [first, last) of member i's children in a k-ary tree of n.
func treeChildren(i, n, k int) (int, int) {
	first := min(k*i+1, n)
	return first, min(first+k, n)
}

// barrierHier is the barrier of a group spanning nodes: the node's members arrive, the
// leaders synchronize, the members are released.
func barrierHier(who string, h *hier, a *area) {
	na := a.net()
	barrier(who, h.loc, h.locMe, a)
	if h.leadMe >= 0 {
		netBarrier(who, h, &na)
	}
	barrier(who, h.loc, h.locMe, a)
}
