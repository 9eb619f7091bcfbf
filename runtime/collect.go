package rt

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	"github.com/goshmem/shmem/runtime/shm"
)

// Collect and fcollect: dst is the concatenation of every member's src, in member order.
// fcollect has the same count everywhere; collect's counts may differ, so members first
// publish theirs.

// CollectArgs is one collect or fcollect call.
type CollectArgs struct {
	Dst, Src unsafe.Pointer
	Bytes    uintptr // my contribution
	Fixed    bool    // fcollect: every member contributes Bytes
	DstBytes uintptr // collect: what dst holds, checked against the total
}

// CollectSet is the active-set collect on the user's pSync.
func CollectSet(who string, g Group, me int, pSync unsafe.Pointer, x CollectArgs) {
	collect(who, g, me, pSyncArea(pSync), x)
}

// CollectTeam is the team collect.
func CollectTeam(who string, t *Team, x CollectArgs) {
	t.Check(who)
	collect(who, t.G, t.Me, t.next(), x)
}

func collect(who string, g Group, me int, a area, x CollectArgs) {
	if debug {
		n := int64(-1) // collect's counts may differ
		if x.Fixed {
			n = int64(x.Bytes)
		}
		debugEnter(a, g, me, CollCall{Who: who, N: n, Root: -1, Dst: x.Dst, Src: x.Src})
		defer debugLeave()
	}
	if g.Size == 1 {
		kernels.Copy(bytes(x.Dst, x.Bytes), bytes(x.Src, x.Bytes))
		return
	}
	if h := hierOf(g); h != nil {
		collectHier(who, g, h, me, &a, x)
		return
	}
	if x.Fixed && chooseFcollect(g, int(x.Bytes)) == AlgRing {
		fcollectRing(who, g, me, a, x)
		return
	}
	collectLinear(who, g, me, a, x)
}

// collectLinear: each member sends its block to every other, eagerly when it fits a slot,
// else by announcing it; each places every block at the offset the lengths before it give,
// reading announced ones from their owner's src and acknowledging them. A member that
// announced waits for the acknowledgements, so its src stays put until all have read it.
// Counts may differ between members (collect): each one's choice is its own.
func collectLinear(who string, g Group, me int, a area, x CollectArgs) {
	mine := bytes(x.Src, x.Bytes)
	eager := int(x.Bytes) <= eagerCap(g)
	fresh := a.eagerFresh()
	for k := 1; k < g.Size; k++ {
		if to := (me + k) % g.Size; eager {
			a.eagerSend(who, g, me, to, mine, fresh)
		} else {
			a.announce(who, g, me, to, x.Bytes)
		}
	}
	a.eagerSentNow()
	var buf [smallGroup][]byte
	msgs := lists(&buf, g.Size)
	var total uintptr
	for j := range g.Size {
		switch {
		case j == me:
			msgs[j] = mine
		default:
			m, n, inSlot := a.recv(who, g, me, j)
			if !inSlot {
				m = bytes(Remote(x.Src, g.PE(j)), n) // the owner's src, until it is acknowledged
			}
			msgs[j] = m
		}
		total += uintptr(len(msgs[j]))
	}
	x.checkTotal(who, total)
	var off uintptr
	for k := range g.Size { // starting after me, so members do not all read the same owner first
		j := (me + k) % g.Size
		off = 0
		for i := range j {
			off += uintptr(len(msgs[i]))
		}
		kernels.Copy(bytes(unsafe.Add(x.Dst, off), uintptr(len(msgs[j]))), msgs[j])
		if j == me {
			continue
		}
		slot := eagerSlot(g, me, j)
		if f := atomic.LoadUint64(a.word(slot)); f&rendezvous != 0 {
			atomic.StoreUint64(a.word(slot), 0)
			a.signal(wordEagerAck, g.PE(j), 1)
		} else {
			a.eagerDone(g, me, j, msgs[j])
		}
	}
	if !eager {
		a.await(who, WaitCollective, wordEagerAck, uint64(g.Size-1))
	}
}

// fcollectRing passes blocks around the plan's ring: each member copies its own block,
// then, n-1 times, the block its predecessor got in the step before.
func fcollectRing(who string, g Group, me int, a area, x CollectArgs) {
	p := planFor(g, 0)
	n := g.Size
	pos := p.pos[me]
	pred, succ := g.PE(p.ring[(pos+n-1)%n]), g.PE(p.ring[(pos+1)%n])
	blk := func(m int) []byte { return bytes(unsafe.Add(x.Dst, uintptr(m)*x.Bytes), x.Bytes) }
	kernels.Copy(blk(me), bytes(x.Src, x.Bytes))
	a.signal(wordRing, succ, 1)
	for s := 1; s < n; s++ {
		a.await(who, WaitCollective, wordRing, 1)
		m := p.ring[(pos-s+n)%n]
		kernels.Copy(blk(m), bytes(Remote(unsafe.Pointer(unsafe.SliceData(blk(m))), pred), x.Bytes))
		if s < n-1 {
			a.signal(wordRing, succ, 1)
		}
	}
	a.signal(wordRingAck, pred, 1)
	a.await(who, WaitCollective, wordRingAck, 1)
}

// collectHier is collect and fcollect over a group spanning nodes: each leader places its
// node's blocks in its dst, the leaders exchange theirs, and each node's members copy the
// leader's whole dst. Collect first needs every member's byte count: in the same round as
// the blocks when the leaders' counts fit a message (collectOneRound), else gathered the
// same way first (fcollect of one word into every member's scratch).
func collectHier(who string, g Group, h *hier, me int, a *area, x CollectArgs) {
	na := a.net()
	if !x.Fixed && uintptr(slices.Max(h.perNode))*8 <= netEagerMax { // every leader's counts fit a message
		collectOneRound(who, g, h, a, &na, x)
		return
	}
	off := func(i int) uintptr { return uintptr(i) * x.Bytes }
	size := func(int) uintptr { return x.Bytes }
	total := x.Bytes * uintptr(g.Size)
	phase := 0
	if !x.Fixed {
		w := a.word(wordValue)
		atomic.StoreUint64(w, uint64(x.Bytes))
		counts := unsafe.Slice((*uint64)(reserved(shm.ReservedScratchOff)), g.Size)
		// Its own signal word: the data's messages of a fast leader may come before another
		// leader's count has (the network phase has no barrier).
		gatherHier(who, g, h, a, &na, 0, netUp, false, CollectArgs{Dst: unsafe.Pointer(&counts[0]), Src: unsafe.Pointer(w), Bytes: 8, Fixed: true})
		atomic.StoreUint64(w, 0) // read by my leader, which is done: the area is SyncValue again
		phase = 2
		offs := make([]uintptr, g.Size+1)
		for i, c := range counts {
			offs[i+1] = offs[i] + uintptr(c)
		}
		off = func(i int) uintptr { return offs[i] }
		size = func(i int) uintptr { return offs[i+1] - offs[i] }
		total = offs[g.Size]
		x.checkTotal(who, total)
	}
	_ = me
	gatherHierAt(who, g, h, a, &na, phase, netData, true, x, off, size, total)
}

// gatherHier is gatherHierAt for fixed-size blocks.
func gatherHier(who string, g Group, h *hier, a, na *area, phase, word int, callDst bool, x CollectArgs) {
	gatherHierAt(who, g, h, a, na, phase, word, callDst, x, func(i int) uintptr { return uintptr(i) * x.Bytes },
		func(int) uintptr { return x.Bytes }, x.Bytes*uintptr(g.Size))
}

// gatherHierAt puts member i's block (size(i) bytes of its src) at off(i) of every member's
// dst, total bytes in all; node phases use a's phases from phase on, the network phase
// word of na; callDst says dst is the call's own (netAllgather).
func gatherHierAt(who string, g Group, h *hier, a, na *area, phase, word int, callDst bool, x CollectArgs, off, size func(int) uintptr, total uintptr) {
	b := a.phase(phase)
	barrier(who, h.loc, h.locMe, &b) // every member of the node is in: their src are ready
	if h.leadMe >= 0 {
		for j := range h.loc.Size {
			pe := h.loc.PE(j)
			i := g.Index(pe)
			kernels.Copy(bytes(unsafe.Add(x.Dst, off(i)), size(i)), bytes(Remote(x.Src, pe), size(i)))
		}
		netAllgather(who, h, na, word, x.Dst, callDst, total, off, size)
	}
	nodePhase(func() {
		broadcast(who, h.loc, h.locMe, a.phase(phase+1), BcastArgs{Dst: x.Dst, Src: x.Dst, Bytes: total, ToRoot: true})
	})
}

// collectOneRound is collect across nodes in one network round where counts and blocks
// took two (OSHMEM's time, about two exchanges', suggests it takes two as well): each
// leader mails every other leader its node's members' byte counts followed, when they fit
// the message, by their blocks. Every leader then knows every count, so every offset, and
// places the blocks; only when some leader's blocks did not fit (all leaders see which)
// are the blocks exchanged again, as fcollect's are. The node's members learn the total
// from their leader, then copy its dst.
func collectOneRound(who string, g Group, h *hier, a, na *area, x CollectArgs) {
	w := a.word(wordValue)
	atomic.StoreUint64(w, uint64(x.Bytes))
	b := a.phase(0)
	barrier(who, h.loc, h.locMe, &b) // my node's counts and sources are ready
	total := (*uint64)(reserved(shm.ReservedScratchOff))
	if h.leadMe >= 0 {
		*total = uint64(collectLeaders(who, g, h, na, w, x))
	}
	nodePhase(func() {
		broadcast(who, h.loc, h.locMe, a.phase(1), BcastArgs{Dst: unsafe.Pointer(total), Src: unsafe.Pointer(total), Bytes: 8, ToRoot: true})
	})
	atomic.StoreUint64(w, 0) // read by my leader, which is done: the area is SyncValue again
	n := uintptr(*total)
	x.checkTotal(who, n)
	nodePhase(func() {
		broadcast(who, h.loc, h.locMe, a.phase(2), BcastArgs{Dst: x.Dst, Src: x.Dst, Bytes: n, ToRoot: true})
	})
}

// collectLeaders is collectOneRound's network phase, on a leader: it leaves every member's
// block in my dst and returns the total. w is the word holding each member's count.
func collectLeaders(who string, g Group, h *hier, na *area, w *uint64, x CollectArgs) uintptr {
	L, lm := h.lead.Size, h.leadMe
	// offs[i+1] holds member i's count until every count is known, then the prefix sums
	// make it the end of member i's block.
	offs := make([]uintptr, g.Size+1)
	size := func(i int) uintptr { return offs[i+1] - offs[i] }
	bp := packBufs.Get().(*[]byte)
	defer packBufs.Put(bp)
	msg, data := (*bp)[:0], uintptr(0)
	for i, l := range h.leaderOf {
		if l == lm {
			offs[i+1] = uintptr(atomic.LoadUint64((*uint64)(Remote(unsafe.Pointer(w), g.PE(i)))))
			msg = binary.NativeEndian.AppendUint64(msg, uint64(offs[i+1]))
			data = addBytes(who, data, offs[i+1])
		}
	}
	allInline := addBytes(who, uintptr(len(msg)), data) <= netEagerMax
	if allInline {
		for i, l := range h.leaderOf {
			if l == lm {
				msg = append(msg, bytes(Remote(x.Src, g.PE(i)), offs[i+1])...)
			}
		}
	}
	*bp = msg
	for s := 1; s < L; s++ {
		na.mail(netUp, unsafe.Pointer(unsafe.SliceData(msg)), uintptr(len(msg)), h.lead.PE((lm+s)%L))
	}
	// Every other leader's message: its members' counts, then their blocks or nothing.
	msgs := make([]unsafe.Pointer, L) // those carrying blocks, kept until the offsets are known
	for s := 1; s < L; s++ {
		l := (lm - s + L) % L
		from := h.lead.PE(l)
		p, n := na.awaitMail(who, netUp, mailOut{to: -1}, from, nil)
		head, sum := 8*uintptr(h.perNode[l]), uintptr(0)
		if n >= head {
			at := uintptr(0)
			for i, li := range h.leaderOf {
				if li == l {
					offs[i+1] = uintptr(*(*uint64)(unsafe.Add(p, at)))
					at += 8
					sum = addBytes(who, sum, offs[i+1])
				}
			}
		}
		switch {
		case n == head+sum && sum > 0:
			msgs[l] = p
		case n == head:
			allInline = allInline && sum == 0
			netFreeMail(p)
		default:
			netFreeMail(p)
			panic(fmt.Sprintf("%s: PE %d (on %s) sent %d bytes of counts and blocks where PE %d expects the %d of its node's counts and their blocks: every PE must call with the same group", who, from, Host(from), n, me, head))
		}
	}
	for i := range g.Size {
		offs[i+1] = addBytes(who, offs[i], offs[i+1])
	}
	total := offs[g.Size]
	x.checkTotal(who, total)
	for i, l := range h.leaderOf {
		if l == lm {
			kernels.Copy(bytes(unsafe.Add(x.Dst, offs[i]), size(i)), bytes(Remote(x.Src, g.PE(i)), size(i)))
		}
	}
	for l, p := range msgs {
		if p == nil {
			continue
		}
		at := 8 * uintptr(h.perNode[l])
		for i, li := range h.leaderOf {
			if li == l {
				copyBytes(unsafe.Add(x.Dst, offs[i]), unsafe.Add(p, at), size(i))
				at += size(i)
			}
		}
		netFreeMail(p)
	}
	if !allInline {
		netAllgather(who, h, na, netData, x.Dst, true, total, func(i int) uintptr { return offs[i] }, size)
	}
	return total
}

// addBytes is a+b, a collect's byte count: more than the address space is a bad count.
func addBytes(who string, a, b uintptr) uintptr {
	if a > ^uintptr(0)-b {
		panic(fmt.Sprintf("%s: the members' counts add up to more than %d bytes", who, ^uintptr(0)))
	}
	return a + b
}

// checkTotal stops a collect whose dst is shorter than what the members contribute, before
// anything is written there.
func (x CollectArgs) checkTotal(who string, total uintptr) {
	if total > x.DstBytes {
		panic(fmt.Sprintf("%s: dst holds %d bytes, the members contribute %d", who, x.DstBytes, total))
	}
	// Only now is dst's extent known (a collect's counts differ): it must not reach src.
	CheckDisjoint(who, x.Dst, x.Src, total, x.Bytes)
}
