package rt

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
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
// sent (netBroadcast). So what one leader writes into another's area or scratch without
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
	maxFar   int // the most members any member has on other nodes than its own
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
	h.maxFar = g.Size - slices.Min(count)
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

// Mail (engine.c "Mail"): a network phase's message kept at its receiver, by sender and
// channel, until the receiver takes it, so the sender needs no sign that the receiver is
// ready: a broadcast's root returns once its message is sent, where it waited a hop for
// its child's "ready". Leaders may then be many calls apart, so data that may still be
// unread never goes into another leader's words or scratch without a handshake; mail
// queues instead (netReduceRD). A channel is a word of the network area, its symmetric
// address the key: each call's area (a team's two alternate, a pSync is the user's) keeps
// its messages apart, and a sender's messages on one channel are taken in the order sent
// (one endpoint, in order, as netExactCounts assumes).

// netMailable reports whether n bytes travel as one message (GOSHMEM_NET_EAGER).
func netMailable(n uintptr) bool { return netEagerMax > 0 && n <= netEagerMax }

// mail sends n bytes from src to PE pe on channel i of the area.
func (a area) mail(i int, src unsafe.Pointer, n uintptr, pe int) {
	netT.(mailer).Mail(pe, segOffset(unsafe.Pointer(a.word(i))), src, n)
}

// take waits for PE from's message on channel i of my area and returns its bytes, valid
// until netFreeMail; a message of another size than want means the PEs passed different
// sizes to the collective.
func (a area) take(who string, i, from int, want uintptr) unsafe.Pointer {
	p, n := a.awaitMail(i, from, nil)
	if n != want {
		netFreeMail(p)
		panic(fmt.Sprintf("%s: PE %d (on %s) sent %d bytes where PE %d expects %d: every PE must pass the same size", who, from, Host(from), n, me, want))
	}
	return p
}

// awaitMail waits for PE from's message on channel i of my area and returns its bytes
// (free them with netFreeMail). stalled, when not nil, runs every 1024 empty polls (a
// caller's deadline).
func (a area) awaitMail(i, from int, stalled func()) (p unsafe.Pointer, n uintptr) {
	key := segOffset(unsafe.Pointer(a.word(i)))
	count, seen := engine.MailCount(), ^uint64(0)
	polls := 0
	Await(WaitCollective, i, func() bool {
		if c := atomic.LoadUint64(count); c != seen { // else nothing came: no lock, no cgo call
			var ok bool
			lockNet()
			p, n, ok = engine.TakeMail(from, key)
			unlockNet()
			if seen = c; ok {
				return true
			}
		}
		if polls++; stalled != nil && polls%1024 == 0 {
			stalled()
		}
		return false
	})
	return p, n
}

func netFreeMail(p unsafe.Pointer) {
	lockNet()
	engine.FreeMail(p)
	unlockNet()
}

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

// netBroadcast gives every leader's symmetric dst the n bytes of leader root's buffer buf,
// down a tree rooted there. Data of one message goes as mail: a leader takes its parent's
// message into its dst and mails it on to its children, and the root returns once it sent
// its own (the broadcast's root is done when its source may be reused). Larger data is put
// straight into the child's dst: a leader tells its parent it is in the call (its dst may
// be written), and the parent, once it has the data, puts it there and raises the child's
// word; a leader's words are then written only by its parent and children, each in the call.
func netBroadcast(who string, h *hier, na *area, root int, dst, buf unsafe.Pointer, n uintptr) {
	L, me := h.lead.Size, h.leadMe
	parent, first, last := treeAt(me, root, L, collRadix)
	if netMailable(n) {
		if parent >= 0 {
			p := na.takeCredited(who, netDown, h.lead.PE(parent), n)
			copyBytes(dst, p, n)
			netFreeMail(p)
			buf = dst
		}
		for c := first; c < last; c++ {
			na.mailCredited(netDown, buf, n, h.lead.PE(child(c, root, L)))
		}
		return
	}
	if parent >= 0 {
		na.signal(netReady, h.lead.PE(parent), 1)
		na.await(who, WaitCollective, netDown, 1)
		buf = dst
	}
	if kids := last - first; kids > 0 {
		na.await(who, WaitCollective, netReady, uint64(kids))
	}
	for c := first; c < last; c++ {
		pe := h.lead.PE(child(c, root, L))
		na.netPutSignal(dst, buf, n, netDown, pe)
	}
}

// netBroadcastRing gives every leader's dst the n bytes of leader root's buf as a scatter
// and a ring, for large data among three or more leaders: the root mails each leader its
// chunk of n/L, then the chunks go round the ring of leaders from the root (each leader
// passes on every message's worth as soon as it has it; the root sends its successor the
// chunks it lacks, the last leader sends nothing). The root's link carries 2n(L-1)/L where
// the tree's sends k whole copies. All of it is broadcast mail (credits bound what the root
// may send ahead); a leader takes its scatter chunk first, then its predecessor's messages,
// in the order sent, on one channel.
func netBroadcastRing(who string, h *hier, na *area, root int, dst, buf unsafe.Pointer, n uintptr) {
	L := h.lead.Size
	r := (h.leadMe - root + L) % L // my rank from the root
	pe := func(rank int) int { return h.lead.PE((rank + root) % L) }
	step := max(netEagerMax, 1) // bytes per message (auto takes this path only with messages)
	// part is chunk c's bytes: the same split on every leader.
	part := func(c int) (off, size uintptr) {
		lo, hi := chunkBounds(n, c, L), chunkBounds(n, c+1, L)
		return lo, hi - lo
	}
	send := func(base unsafe.Pointer, c, to int) {
		off, size := part(c)
		for o := uintptr(0); o < size; o += step {
			na.mailCredited(netDown, unsafe.Add(base, off+o), min(step, size-o), to)
		}
	}
	if r == 0 {
		for c := 1; c < L; c++ {
			send(buf, c, pe(c))
		}
		for s := range L - 1 { // my successor's ring steps: chunks 0, L-1, ..., 2
			send(buf, (L-s)%L, pe(1))
		}
		return
	}
	take := func(c, from int, forward bool) {
		off, size := part(c)
		for o := uintptr(0); o < size; o += step {
			k := min(step, size-o)
			p := na.takeCredited(who, netDown, from, k)
			copyBytes(unsafe.Add(dst, off+o), p, k)
			netFreeMail(p)
			if forward {
				na.mailCredited(netDown, unsafe.Add(dst, off+o), k, pe(r+1))
			}
		}
	}
	last := r == L-1
	take(r, pe(0), !last)  // my chunk, passed on at once
	for s := range L - 1 { // step s brings chunk r-1-s: every chunk but mine
		take((r-1-s+L)%L, pe(r-1), !last && s < L-2) // passed on in step s+1
	}
}

// chunkBounds is where chunk c of L starts in n bytes (chunk L ends them), without the
// overflow of n*c.
func chunkBounds(n uintptr, c, L int) uintptr {
	q, rem := n/uintptr(L), n%uintptr(L)
	return q*uintptr(c) + rem*uintptr(c)/uintptr(L)
}

// Broadcast mail is the one kind a sender can send without bound ahead of its receiver (a
// root that broadcasts in a loop, a receiver computing). Its queue at the receiver is
// bounded by credits: a leader has at most mailWindow such messages to a PE that PE has not
// taken; the receiver returns credits every mailWindow/2 it takes, adding them to its word
// in the sender's reserved part (ReservedCreditOffset), and a sender at the limit waits
// for them. Every PE makes the collective calls in the same order and a blocked sender has
// finished its earlier calls, so what its receiver needs to reach the message is never
// behind the block. The other mail is bounded by its call (a message per round or step).
const mailWindow = 64

var mailSent, mailTaken []uint64 // per PE: broadcast mail I sent it, took from it

func mailCreditsInit() {
	if multiNode {
		mailSent, mailTaken = make([]uint64, npes), make([]uint64, npes)
	}
}

// creditWord is the word of my reserved part that PE pe adds its credits to.
func creditWord(pe int) *uint64 {
	return (*uint64)(unsafe.Add(reserved(shm.ReservedCreditOffset), pe*8))
}

// mailCredited is mail within pe's window of broadcast mail.
func (a area) mailCredited(i int, src unsafe.Pointer, n uintptr, pe int) {
	w := creditWord(pe)
	if atomic.LoadUint64(&mailSent[pe])-atomic.LoadUint64(w) >= mailWindow {
		Await(WaitCollective, i, func() bool { return atomic.LoadUint64(&mailSent[pe])-atomic.LoadUint64(w) < mailWindow })
	}
	atomic.AddUint64(&mailSent[pe], 1)
	a.mail(i, src, n, pe)
}

// takeCredited is take for broadcast mail: it returns the sender credits every
// mailWindow/2 messages.
func (a area) takeCredited(who string, i, from int, want uintptr) unsafe.Pointer {
	p := a.take(who, i, from, want)
	if atomic.AddUint64(&mailTaken[from], 1)%(mailWindow/2) == 0 {
		netT.AMO(AMOFetchAdd|AMOPost|AMOSignal, 8, unsafe.Pointer(creditWord(me)), mailWindow/2, 0, from)
	}
	return p
}

// phase is the area for the k-th node phase of a composed call: on a team's words each
// phase gets its own range of epochs (a phase's barriers count up from its base).
func (a *area) phase(k int) area {
	b := *a
	if b.epoch != 0 {
		b.epoch += uint64(4 * k)
	}
	return b
}

// netReduceRD combines the leaders' buf (one message's worth) into every leader's buf by
// recursive doubling: in round r each leader mails its partial result to leader me^2^r and
// combines the one it takes from it, so all leaders finish after log2(L) one-way latencies
// (the tree takes three per level: ready, up, down). Every leader combines the same
// operands pairwise, and the operations are commutative, so every leader ends with the
// same bits.
func netReduceRD[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	me := h.leadMe
	nb := uintptr(len(buf)) * unsafe.Sizeof(buf[0])
	for r, d := 0, 1; d < h.lead.Size; r, d = r+1, d*2 {
		pe := h.lead.PE(me ^ d)
		na.mail(netSlots+r, unsafe.Pointer(unsafe.SliceData(buf)), nb, pe)
		p := na.take(who, netSlots+r, pe, nb)
		combineAll(op, buf, [][]T{buf, unsafe.Slice((*T)(p), len(buf))})
		netFreeMail(p)
	}
}

// Network reductions: a tree; recursive doubling among a power of two of leaders (mail for
// one message's worth, netReduceRDLarge beyond; each round needs a word of its own, two for
// the large form); a ring (mail, one channel) when messages may carry data.
const (
	netRedTree = iota
	netRedRD
	netRedRDLarge
	netRedRing
)

var netRedNames = [...]topology.Algorithm{netRedTree: topology.NetTree, netRedRD: topology.NetRD, netRedRDLarge: topology.NetRD, netRedRing: topology.NetRing}

// netReduceAlg is the network reduction among L leaders of nbytes each, one message
// carrying up to eager bytes: force (GOSHMEM_NET_REDUCE_ALGORITHM) where it can run, else
// the one m prices cheapest (topology.NetChoose) among those that can.
func netReduceAlg(L int, nbytes, eager uintptr, m topology.CostModel, force topology.Algorithm) int {
	rounds := bits.Len(uint(L)) - 1
	mailable := eager > 0 && nbytes <= eager
	rd := L >= 2 && L&(L-1) == 0 && (mailable && rounds <= netSlotWords || !mailable && rounds <= netRDLargeRounds)
	can := func(a topology.Algorithm) bool {
		switch a {
		case topology.NetRD:
			return rd
		case topology.NetRing:
			return L >= 2 && eager > 0
		}
		return true
	}
	a := force
	if a == "" || !can(a) {
		a, _ = topology.NetChoose(topology.Reduce, L, int64(min(nbytes, math.MaxInt64)), m, can)
	}
	switch {
	case a == topology.NetRD && mailable:
		return netRedRD
	case a == topology.NetRD:
		return netRedRDLarge
	case a == topology.NetRing:
		return netRedRing
	}
	return netRedTree
}

// chooseNetReduce is netReduceAlg for this job (its eager limit, the network model every
// PE shares, the override), cached per leader count, size class and whether the data
// fits a message.
func chooseNetReduce(L int, nbytes uintptr) int {
	k := netVerdictKey{topology.Reduce, L, bits.Len64(uint64(max(nbytes, 1) - 1)), netMailable(nbytes)}
	if v, ok := k.cached(); ok {
		return v
	}
	// Priced at the class's upper bound (as auto does), limited by the exact size.
	m := netCostModel()
	class := uintptr(1) << k.class
	if k.mailable {
		class = min(class, netEagerMax)
	} else {
		class = max(class, netEagerMax+1)
	}
	a := netReduceAlg(L, class, netEagerMax, m, forceNetReduce)
	k.store(a)
	return a
}

// Network broadcasts: a tree (mail up to a message, puts beyond), a scatter and a ring
// (mail in messages) when messages may carry data.
const (
	netBcastTree = iota
	netBcastRing
)

var netBcastNames = [...]topology.Algorithm{netBcastTree: topology.NetTree, netBcastRing: topology.NetRing}

// netBcastAlg is the network broadcast among L leaders of nbytes, one message carrying up
// to eager bytes: force (GOSHMEM_NET_BCAST_ALGORITHM) where it can run, else the one m
// prices cheapest.
func netBcastAlg(L int, nbytes, eager uintptr, m topology.CostModel, force topology.Algorithm) int {
	can := func(a topology.Algorithm) bool { return a != topology.NetRing || L >= 2 && eager > 0 }
	a := force
	if a == "" || !can(a) {
		a, _ = topology.NetChoose(topology.Bcast, L, int64(min(nbytes, math.MaxInt64)), m, can)
	}
	if a == topology.NetRing {
		return netBcastRing
	}
	return netBcastTree
}

// chooseNetBcast is netBcastAlg for this job, cached as chooseNetReduce's verdicts are.
func chooseNetBcast(L int, nbytes uintptr) int {
	k := netVerdictKey{topology.Bcast, L, bits.Len64(uint64(max(nbytes, 1) - 1)), false}
	if v, ok := k.cached(); ok {
		return v
	}
	a := netBcastAlg(L, uintptr(1)<<k.class, netEagerMax, netCostModel(), forceNetBcast)
	k.store(a)
	return a
}

type netVerdictKey struct {
	coll           topology.Collective
	leaders, class int
	mailable       bool
}

var netVerdicts sync.Map // netVerdictKey -> netRed*, netBcast*

// netVerdictCache is a direct-mapped cache in front of netVerdicts, as verdictCache is.
var netVerdictCache [64]atomic.Pointer[netVerdictEntry]

type netVerdictEntry struct {
	k netVerdictKey
	a int
}

func (k netVerdictKey) slot() *atomic.Pointer[netVerdictEntry] {
	return &netVerdictCache[(uint(k.coll)*17+uint(k.leaders)*31+uint(k.class)*7)%uint(len(netVerdictCache))]
}

// cached is k's verdict, if one was stored.
func (k netVerdictKey) cached() (int, bool) {
	if e := k.slot().Load(); e != nil && e.k == k {
		return e.a, true
	}
	if v, ok := netVerdicts.Load(k); ok {
		k.slot().Store(&netVerdictEntry{k, v.(int)})
		return v.(int), true
	}
	return 0, false
}

func (k netVerdictKey) store(a int) {
	netVerdicts.Store(k, a)
	k.slot().Store(&netVerdictEntry{k, a})
}

// netRDLargeRounds is the most rounds (L up to 2^6 leaders) netReduceRDLarge has words for:
// a ready and a data word per round, in the payload words netReduceRD would use.
const netRDLargeRounds = netSlotWords / 2

// netReduceRDLarge is recursive doubling for vectors beyond the payload words: in round r
// each leader exchanges its whole partial result with leader me^2^r through the other's
// scratch, in chunks of one message each (GOSHMEM_NET_EAGER) with as many in flight as the
// scratch has slots; a leader offers its free slots (netSlots+2r), its partner sends a
// chunk into each with a signal (netSlots+2r+1) and it combines the chunks in order,
// offering each slot again. Both directions move at once and no result goes back down: the
// tree moved the vector up and then down, one after the other (a 4 MiB int sum across two
// nodes: 10.3 ms, OSHMEM 3.0). Each round has its own words: the next partner may offer
// its slots before the last one is done.
func netReduceRDLarge[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	me := h.leadMe
	esize := int(unsafe.Sizeof(buf[0]))
	step := max(min(max(int(netEagerMax), 4096), shm.ScratchSize/2)/esize, 1) // elements per chunk
	slots := shm.ScratchSize / (step * esize)
	scratch := reserved(shm.ReservedScratchOff)
	chunks := (len(buf) + step - 1) / step
	for r, d := 0, 1; d < h.lead.Size; r, d = r+1, d*2 {
		ready, data := netSlots+2*r, netSlots+2*r+1
		pe := h.lead.PE(me ^ d)
		na.signal(ready, pe, uint64(min(slots, chunks))) // my slots are free
		for i := range chunks {
			lo, hi := i*step, min((i+1)*step, len(buf))
			na.await(who, WaitCollective, ready, 1)
			slot := unsafe.Add(scratch, (i%slots)*step*esize)
			na.netPutSignal(slot, unsafe.Pointer(&buf[lo]), uintptr((hi-lo)*esize), data, pe)
			na.await(who, WaitCollective, data, 1)
			in := [2][]T{buf[lo:hi], unsafe.Slice((*T)(slot), hi-lo)}
			combineAll(op, buf[lo:hi], in[:])
			if i+slots < chunks {
				na.signal(ready, pe, 1) // the slot is free again
			}
		}
	}
}

// netReduceRing combines the leaders' buf into every leader's buf around the ring of
// leaders: a reduce-scatter (in step s each leader passes its successor its partial of
// chunk me-s and combines its predecessor's of chunk me-s-1 into its own), then an
// allgather of the finished chunks, 2(L-1) steps of n/L elements where recursive doubling
// moves all n in each of log2 L rounds. Chunks travel as mail in messages of up to
// GOSHMEM_NET_EAGER on one channel, taken in the order sent; a leader passes each message's
// worth on as soon as it has combined (or copied) it, so the steps overlap. Each chunk's
// result is computed by one leader and copied to the others: every leader has the same
// bits.
func netReduceRing[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	L, me := h.lead.Size, h.leadMe
	succ, pred := h.lead.PE((me+1)%L), h.lead.PE((me+L-1)%L)
	esize := unsafe.Sizeof(buf[0])
	step := max(int(netEagerMax/esize), 1) // elements per message
	send := func(s []T) {
		for lo := 0; lo < len(s); lo += step {
			hi := min(lo+step, len(s))
			na.mail(netSlots, unsafe.Pointer(&s[lo]), uintptr(hi-lo)*esize, succ)
		}
	}
	send(chunk(buf, me, L))
	steps := 2 * (L - 1)
	for s := range steps {
		c := (me - s - 1 + L) % L // reduce-scatter: my predecessor's partial of chunk me-s-1
		if s >= L-1 {
			c = (me - (s - (L - 1)) + L) % L // allgather: the finished chunk me-s'
		}
		part := chunk(buf, c, L)
		for lo := 0; lo < len(part); lo += step {
			hi := min(lo+step, len(part))
			p := na.take(who, netSlots, pred, uintptr(hi-lo)*esize)
			in := unsafe.Slice((*T)(p), hi-lo)
			if s < L-1 {
				combineAll(op, part[lo:hi], [][]T{part[lo:hi], in})
			} else {
				copy(part[lo:hi], in)
			}
			netFreeMail(p)
			if s < steps-1 { // my successor's next step is this piece (its last step none)
				send(part[lo:hi])
			}
		}
	}
}

// netReduce combines the leaders' buf (n elements each, in place) into every leader's buf:
// up a tree rooted at leader 0 through the parents' scratch, in chunks a parent's scratch
// holds for all its children, then the result down the same tree.
func netReduce[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	L, me := h.lead.Size, h.leadMe
	k := collRadix
	parent, first, last := treeAt(me, 0, L, k)
	esize := int(unsafe.Sizeof(buf[0]))
	step := max(shm.ScratchSize/k/esize, 1) // elements per chunk: one scratch slot per child
	scratch := reserved(shm.ReservedScratchOff)
	slot := func(c int) unsafe.Pointer { return unsafe.Add(scratch, c*step*esize) } // child c's slot
	kids := last - first
	var ins [1 + 16][]T
	for lo := 0; lo < len(buf); lo += step {
		hi := min(lo+step, len(buf))
		if kids > 0 {
			for c := first; c < last; c++ { // my slots are free: the children may send
				na.signal(netReady, h.lead.PE(child(c, 0, L)), 1)
			}
			na.await(who, WaitCollective, netUp, uint64(kids))
			in := append(ins[:0], buf[lo:hi])
			for c := 0; c < kids; c++ {
				in = append(in, unsafe.Slice((*T)(slot(c)), hi-lo))
			}
			combineAll(op, buf[lo:hi], in)
		}
		if parent >= 0 {
			na.await(who, WaitCollective, netReady, 1)
			myRank := (me - 0 + L) % L
			c := myRank - (k*((myRank-1)/k) + 1) // my index among my parent's children
			pe := h.lead.PE(parent)
			na.netPutSignal(slot(c), unsafe.Pointer(&buf[lo]), uintptr((hi-lo)*esize), netUp, pe)
		}
	}
	// The result goes down the same tree, pushed: every child is in the call (it sent up).
	if parent >= 0 {
		na.await(who, WaitCollective, netDown, 1)
	}
	p := unsafe.Pointer(unsafe.SliceData(buf))
	for c := first; c < last; c++ {
		pe := h.lead.PE(child(c, 0, L))
		na.netPutSignal(p, p, uintptr(len(buf)*esize), netDown, pe)
	}
}

// netAllgather gives every leader's dst every member's block: each leader puts its node's
// members' blocks (placed in its own dst by the node phase) into every other leader's dst,
// one message per run of consecutive members, each raising the receiver's word (word of
// the network area: a call gathering twice uses two). off(i) and
// size(i) place member i's block. The leaders meet first (netBarrier) unless dst is the
// call's own (callDst: the user made it ready before the call, as the one-node algorithms
// and SOS's assume), there are two leaders and every run is one message (netExactCounts).
func netAllgather(who string, h *hier, na *area, word int, g Group, dst unsafe.Pointer, callDst bool, off, size func(i int) uintptr) {
	L, me := h.lead.Size, h.leadMe
	_, eager := memberRuns(h, me, off, size, nil)
	// Each other leader signals once per run, or once after all of them (see below); every
	// leader decides the barrier alike, from all leaders' runs.
	var want uint64
	allEager := true
	for l := range L {
		runs, e := memberRuns(h, l, off, size, nil)
		allEager = allEager && e
		if l != me {
			if e {
				want += uint64(runs)
			} else {
				want++
			}
		}
	}
	if !callDst || L > 2 || !allEager {
		netBarrier(who, h, na)
	}
	for s := 1; s < L; s++ {
		to := h.lead.PE((me + s) % L)
		memberRuns(h, me, off, size, func(o, n uintptr) {
			p := unsafe.Add(dst, o)
			if eager {
				na.netPutSignal(p, p, n, word, to)
			} else {
				netPut(p, p, n, to)
			}
		})
		if !eager {
			na.netSignalAfter(word, to)
		}
	}
	na.await(who, WaitCollective, word, want)
}

// netExactCounts: a receiver that counts signals on a word of the network area counts
// only this call's when each of its senders sends it messages in order (one ordered
// stream: the one-message path, on one endpoint) and no other PE can send it a later
// call's. Without a barrier that holds only for a single sender per receiver: another
// sender may be calls ahead (a broadcast's root or a scan's member leaves before others
// enter), its later call's message then counted for this one, which lacked a block still
// under way from a third PE. So the network phases that skip their barrier
// (netAllgather, alltoallNet) do it with one far sender per receiver and messages only.

// memberRuns calls f (when not nil) with each run of consecutive blocks of the members of
// leader l's node (their offset in dst, their bytes: members numbered by node make one
// run, --map-by node one per member). It counts the runs, and says whether each is small
// enough to travel in one message with its signal (netPutSignal).
func memberRuns(h *hier, l int, off, size func(i int) uintptr, f func(off, n uintptr)) (runs int, eager bool) {
	eager = true
	n := len(h.leaderOf)
	for i := 0; i < n; {
		if h.leaderOf[i] != l {
			i++
			continue
		}
		j := i + 1
		for j < n && h.leaderOf[j] == l && off(j) == off(j-1)+size(j-1) {
			j++
		}
		bytes := off(j-1) + size(j-1) - off(i)
		if f != nil {
			f(off(i), bytes)
		}
		runs++
		eager = eager && bytes <= netEagerMax
		i = j
	}
	return runs, eager
}
