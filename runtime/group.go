package rt

import (
	"fmt"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// Group is an ordered set of PEs: world PEs Start, Start+Stride, ... (Size of them). Active
// sets and every team of a one-node job are strided groups (a strided split of a strided
// team is strided). A node's PEs need not be: a launcher may place any PEs on a node, so a
// group can also list its members (list non-nil, ascending, or descending after a split with
// a negative stride; Start and Stride then unused).
type Group struct {
	Start, Stride, Size int
	list                *[]int
}

// listGroup is the group of the ascending world PEs pes.
func listGroup(pes []int) Group {
	if len(pes) > 1 { // strided after all: keep the cheap form
		d := pes[1] - pes[0]
		strided := d != 0
		for i := 2; i < len(pes) && strided; i++ {
			strided = pes[i]-pes[i-1] == d
		}
		if strided {
			return Group{Start: pes[0], Stride: d, Size: len(pes)}
		}
	}
	if len(pes) == 1 {
		return Group{Start: pes[0], Stride: 1, Size: 1}
	}
	return Group{Size: len(pes), list: &pes}
}

// PE is the world number of the group's i-th member.
func (g Group) PE(i int) int {
	if g.list != nil {
		return (*g.list)[i]
	}
	return g.Start + i*g.Stride
}

// Index is the position of world PE pe in the group, or -1.
func (g Group) Index(pe int) int {
	if g.list != nil {
		l := *g.list
		i := sort.SearchInts(l, pe)
		if len(l) > 1 && l[0] > l[len(l)-1] { // descending: a split with a negative stride
			i = sort.Search(len(l), func(k int) bool { return l[k] <= pe })
		}
		if i < len(l) && l[i] == pe {
			return i
		}
		return -1
	}
	d := pe - g.Start
	if g.Stride == 0 {
		if d != 0 {
			return -1
		}
		return 0
	}
	// A team's stride may be negative (OpenSHMEM 1.6: start, start-1, ... is the reverse).
	if d%g.Stride != 0 || d/g.Stride < 0 || d/g.Stride >= g.Size {
		return -1
	}
	return d / g.Stride
}

// Sub is the group of members start, start+stride, ... (size of them) of g.
func (g Group) Sub(start, stride, size int) Group {
	if g.list == nil {
		return Group{Start: g.PE(start), Stride: g.Stride * stride, Size: size}
	}
	pes := make([]int, size)
	for k := range pes {
		pes[k] = g.PE(start + k*stride)
	}
	return listGroup(pes)
}

// Strided reports whether g is described by Start and Stride alone.
func (g Group) Strided() bool { return g.list == nil }

// ActiveSet checks an active-set triplet against the job and the calling PE, and returns its
// group and the caller's index in it.
func ActiveSet(who string, start, logStride, size int) (Group, int) {
	g, i := ActiveSetGroup(who, start, logStride, size)
	if i < 0 {
		panic(fmt.Sprintf("%s: PE %d is not in the active set (start %d, log stride %d, size %d)", who, me, start, logStride, size))
	}
	return g, i
}

// ActiveSetGroup checks an active-set triplet against the job and returns its group and the
// caller's index in it, -1 if the caller is not in it.
func ActiveSetGroup(who string, start, logStride, size int) (Group, int) {
	switch {
	case start < 0 || start >= npes:
		panic(fmt.Sprintf("%s: active set start %d out of range [0,%d)", who, start, npes))
	case logStride < 0 || logStride > 30:
		panic(fmt.Sprintf("%s: active set log stride %d out of range [0,30]", who, logStride))
	case size < 1:
		panic(fmt.Sprintf("%s: active set size %d must be at least 1", who, size))
	case !inRange(start, 1<<logStride, size, npes):
		panic(fmt.Sprintf("%s: active set (start %d, log stride %d, size %d) reaches PE %s, out of range [0,%d)",
			who, start, logStride, size, reachString(start, 1<<logStride, size), npes))
	}
	g := Group{Start: start, Stride: 1 << logStride, Size: size}
	return g, g.Index(me)
}

// A sync area is SyncWords counters at a symmetric address: the user's pSync in the
// active-set API, a team's own words otherwise. A signal adds to a counter on a peer; the
// receiver waits until its counter reaches the count it expects and subtracts it, so the
// area returns to zero (SyncValue) when a collective is done, and a signal that arrives
// early for the next call is kept, not lost.
type area struct {
	p     unsafe.Pointer
	epoch uint64 // team areas: the call's epoch (see barrierDissem); 0 on a pSync
	// pairLine, on a team's areas, is the line barrierPair uses in every call, whichever
	// of the two areas the call has (nil: a's own first dissemination line).
	pairLine unsafe.Pointer
	// eagerSent is set while an eager message this PE sent on an area of the scope (a
	// team's, or the active sets' with the world team's) may be unread: see eagerFresh.
	eagerSent *uint64
}

// pSyncArea is the area of an active-set collective: its eager messages are in the world
// team's scope, whose barriers every PE enters only after its earlier calls.
func pSyncArea(pSync unsafe.Pointer) area { return area{p: pSync, eagerSent: &World.s.eagerSent} }

// The words of a sync area, all in one place:
const (
	wordDissem   = 0  // 0..31: dissemination rounds
	wordArrive   = 32 // linear and tree barriers: children -> parent
	wordRelease  = 33 // linear and tree barriers: parent -> children
	wordUp       = 34 // a child's partial result is ready
	wordDown     = 35 // the parent's result is ready
	wordAck      = 36 // a child has copied its parent's result
	wordRing     = 37 // the ring predecessor finished a step
	wordRingAck  = 38 // the ring successor no longer reads my buffers
	wordPair     = 39 // pairwise alltoall: a block arrived
	wordEagerAck = 40 // collect: a receiver has read an announced block
	wordValue    = 48 // 48..55: small values exchanged by the engine (team creation, collect)
	wordNet      = 64 // 64..95: the network phase of a collective spanning nodes (hier.go)
	wordEager    = 96 // 96..SyncWords-1: eager slots, one per sender (see eager.go)
)

// maxCount bounds a plausible counter: a larger value means the area was not initialized to
// SyncValue (or was overwritten) and waits on it would pass at once.
const maxCount = 1 << 40

func (a area) word(i int) *uint64 { return (*uint64)(unsafe.Add(a.p, i*8)) }

// signal adds n to word i of the area on PE pe. A PE on another node gets it through the
// engine, started, not waited for: the receiver waits for it, and a later Quiet or
// signal after a Fence orders it.
func (a area) signal(i int, pe int, n uint64) {
	if !local(pe) {
		netT.AMO(AMOFetchAdd|AMOPost|AMOSignal, 8, unsafe.Pointer(a.word(i)), n, 0, pe)
		return
	}
	atomic.AddUint64((*uint64)(Remote(unsafe.Pointer(a.word(i)), pe)), n)
	NotifyAtomic(pe)
}

// post stores v into word i of the area on PE pe (epoch flags: one writer per word).
func (a area) post(i int, pe int, v uint64) {
	if !local(pe) {
		netT.AMO(AMOSet|AMOPost|AMOSignal, 8, unsafe.Pointer(a.word(i)), v, 0, pe)
		return
	}
	shm.StoreRelease((*uint64)(Remote(unsafe.Pointer(a.word(i)), pe)), v)
	Notify(pe)
}

// awaitEpoch waits until my word i holds at least e.
func (a area) awaitEpoch(who string, op uint32, i int, e uint64) {
	awaitGE(who, op, i, a.word(i), e)
}

// postAwaitEpoch posts v into word j of the area on PE pe, then waits until my word i
// holds at least e: a round of a barrier. Across nodes the post and the first polls are
// one call into the engine, so that the wait starts polling as soon as the message left.
func (a area) postAwaitEpoch(who string, op uint32, j, pe int, v uint64, i int, e uint64) {
	if !local(pe) && netPolled() {
		lockNet()
		ok := engine.SignalPollGE(pe, unsafe.Pointer(a.word(j)), false, v, a.word(i), e, netPolls)
		unlockNet()
		if !ok {
			a.awaitEpoch(who, op, i, e)
		}
		return
	}
	a.post(j, pe, v)
	a.awaitEpoch(who, op, i, e)
}

// await waits until my word i holds at least n, then consumes n.
func (a area) await(who string, op uint32, i int, n uint64) {
	w := a.word(i)
	awaitGE(who, op, i, w, n)
	if v := atomic.AddUint64(w, -n); v > maxCount {
		panic(fmt.Sprintf("%s: pSync word %d held %d: pSync must hold SyncValue (%d) in every word before the first call", who, i, v+n, shm.SyncValue))
	}
}
