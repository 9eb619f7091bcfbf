package rt

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Collectives over a group that spans nodes are composed: a node phase among the group's
// members on each node (today's shared-memory algorithms and kernels, unchanged), a network
// phase among one leader per node (puts and signals through the engine), and a node phase
// again to hand the result out. Each phase is written once: the node phases are the
// one-node collectives over the node's part of the group, the network phases below know
// nothing of how a node is organised.
//
// A node's leader is the group's lowest PE on it. Signals of the network phase use their
// own words of the sync area (wordNet on), so a leader's two roles never count each
// other's signals. Back-to-back collectives on a team's two alternating areas: the node
// phases return only after every member of the node has entered, so a node's members are
// never two calls apart in an area's words (a small broadcast's phase on the root's node
// is eager, as on one node: it leaves nothing in the area but the slots, whose next
// sender waits for them). Leaders may be: a small broadcast's root leaves once its mail is
// sent (netBroadcast), and so does a scan's member whose successor is on another node
// (scanMails; mail with credits, taken in call order). So what one leader writes into another's area or scratch without
// a handshake in the same call is a count (signal adds, await subtracts: a later call's
// count waits for its call) or an epoch, never data: data goes as mail, into the user's
// dst (ready before any PE calls, as the spec has it), or into an area or scratch its
// receiver offered in this call (netReady, the large reduction's slot offers).

// hier is a group's split across nodes, seen from my PE.
type hier struct {
	loc    Group // the group's members on my node, in group order; its leader is member 0
	locMe  int
	lead   Group // the leaders, in group order
	leadMe int   // my index in lead, -1 when I am not my node's leader
	// leaderOf[i] is the index in lead of the leader of group member i's node.
	leaderOf []int
	maxFar   int   // the most members any member has on other nodes than its own
	perNode  []int // perNode[l] is how many members leader l's node has
}

var hiers sync.Map // Group -> *hier (nil: the group is on my node only)

// nodePhases counts the node phases of a composed collective this PE is in: the collective
// over the whole group made SHMEM_DEBUG's checks once; its node phases, one-node
// collectives on the same sync area, must not check (and count the pSync's use) again.
var nodePhases atomic.Int32

// nodePhase runs f as a node phase.
func nodePhase(f func()) {
	nodePhases.Add(1)
	defer nodePhases.Add(-1)
	f()
}

// hierOf is g's split, or nil when every member of g is on my node.
func hierOf(g Group) *hier {
	if !multiNode {
		return nil
	}
	// A direct-mapped cache in front of the map: every collective asks, and the map's
	// hashing of a Group cost about a tenth of a small broadcast's user time.
	slot := &hierCache[(uint(g.Start)*31+uint(g.Stride)*7+uint(g.Size)*131)%uint(len(hierCache))]
	if e := slot.Load(); e != nil && e.g == g {
		return e.h
	}
	v, ok := hiers.Load(g)
	if !ok {
		v, _ = hiers.LoadOrStore(g, splitByNode(g, func(pe int) int { return int(nodeOf[pe]) }, me))
	}
	slot.Store(&hierEntry{g, v.(*hier)})
	return v.(*hier)
}

type hierEntry struct {
	g Group
	h *hier
}

var hierCache [64]atomic.Pointer[hierEntry]

// splitByNode is the pure part of hierOf: the split of g by node(pe), seen from PE self.
func splitByNode(g Group, node func(pe int) int, self int) *hier {
	first := map[int]int{} // node -> its leader's index in lead
	var leaders, mine []int
	h := &hier{leaderOf: make([]int, g.Size), leadMe: -1}
	for i := range g.Size {
		pe := g.PE(i)
		n := node(pe)
		l, ok := first[n]
		if !ok {
			l = len(leaders)
			first[n] = l
			leaders = append(leaders, pe)
		}
		h.leaderOf[i] = l
		if n == node(self) {
			mine = append(mine, pe)
		}
	}
	if len(leaders) == 1 {
		return nil
	}
	count := make([]int, len(leaders))
	for _, l := range h.leaderOf {
		count[l]++
	}
	h.maxFar, h.perNode = g.Size-slices.Min(count), count
	h.loc, h.lead = listGroup(mine), listGroup(leaders)
	h.locMe, h.leadMe = h.loc.Index(self), h.lead.Index(self)
	return h
}

// net is the sync area of the call's network phase: its own words, the call's epoch.
func (a *area) net() area { return area{p: unsafe.Add(a.p, wordNet*8), epoch: a.epoch} }

// Words of the network area (barrierDissem among leaders uses words 0..15: 65536 nodes).
const (
	netDown  = 16 // a parent's data is in my buffer
	netUp    = 17 // a child's partial result is in my scratch
	netReady = 18 // my parent can take my next chunk
	netData  = 19 // a leader's blocks are in my dst
	// Words 20..31: two per round of netReduceRDLarge, and the mail channels of
	// netReduceRD's rounds (one per round).
	netSlots     = 20
	netSlotWords = 12
)

// netBarrier synchronizes the leaders (I am leader i).
func netBarrier(who string, h *hier, na *area) {
	if na.epoch != 0 {
		na.epoch++
	}
	barrierDissem(who, h.lead, h.leadMe, na)
}

// netPut copies n bytes from local src to the symmetric dst on PE pe (on any node).
func netPut(dst, src unsafe.Pointer, n uintptr, pe int) {
	if n > 0 {
		transports[pe].Put(dst, src, n, pe)
	}
}

// netSignalAfter raises word i on pe after the puts this PE issued to it (a fence orders
// them: the data is there when the signal is).
func (a area) netSignalAfter(i, pe int) {
	if local(pe) {
		a.signal(i, pe, 1)
		return
	}
	transports[pe].Fence()
	netT.AMO(AMOFetchAdd|AMOPost|AMOSignal|AMOAfterData, 8, unsafe.Pointer(a.word(i)), 1, 0, pe)
}

// netEagerMax is the most data a network phase sends in one message with its signal
// (GOSHMEM_NET_EAGER, the same on every PE: netStart checks); more is put (zero-copy where
// the network can), fenced, then signalled. Over TCP a message costs what a put does, and
// saves the fence and the signal.
var netEagerMax uintptr

// netPutSignal copies n bytes from local src to the symmetric dst on pe, then raises word i
// of the area there: one message for small data (a hop, where put, fence and signal took
// three over TCP), a put and netSignalAfter for more.
func (a area) netPutSignal(dst, src unsafe.Pointer, n uintptr, i, pe int) {
	if ps, ok := transports[pe].(putSignaler); ok && n <= netEagerMax {
		ps.PutSignal(dst, 1, src, 1, 1, n, unsafe.Pointer(a.word(i)), 1, pe) // one element of n bytes
		return
	}
	netPut(dst, src, n, pe)
	a.netSignalAfter(i, pe)
}

// treeAt is member v's parent and children in a k-ary tree of n rooted at member root (in
// the order the indices run from the root); the parent is -1 at the root.
func treeAt(v, root, n, k int) (parent int, first, last int) {
	r := (v - root + n) % n // rank from the root
	parent = -1
	if r > 0 {
		parent = ((r-1)/k + root) % n
	}
	first, last = treeChildren(r, n, k)
	return parent, first, last
}

// child is the index of the c-th rank of the tree rooted at root.
func child(c, root, n int) int { return (c + root) % n }

// phase is the area for the k-th node phase of a composed call: on a team's words each
// phase gets its own range of epochs (a phase's barriers count up from its base).
func (a *area) phase(k int) area {
	b := *a
	if b.epoch != 0 {
		b.epoch += uint64(4 * k)
	}
	return b
}
