package rt

import (
	"unsafe"

	"github.com/goshmem/shmem/kernels"
)

// Broadcast: the root's src reaches every member's dst (the root's own dst too when
// toRoot is set: the team form does that, the active-set form does not). Members pull
// from their parent: the root's src, or an inner node's dst once it has its copy.

// BcastArgs is one broadcast call.
type BcastArgs struct {
	Dst, Src unsafe.Pointer
	Bytes    uintptr
	Root     int // member index
	ToRoot   bool
	// Early marks the root node's phase of a broadcast across nodes: it may take the eager
	// path, whose root returns before its members (see bcastHier).
	Early bool
}

// BroadcastSet is the active-set broadcast on the user's pSync.
func BroadcastSet(who string, g Group, me int, pSync unsafe.Pointer, x BcastArgs) {
	broadcast(who, g, me, pSyncArea(pSync), x)
}

// BroadcastTeam is the team broadcast.
func BroadcastTeam(who string, t *Team, x BcastArgs) {
	t.Check(who)
	broadcast(who, t.G, t.Me, t.next(), x)
}

func broadcast(who string, g Group, me int, a area, x BcastArgs) {
	if debug {
		debugEnter(a, g, me, CollCall{Who: who, N: int64(x.Bytes), Root: int64(x.Root), Dst: x.Dst, Src: x.Src})
		defer debugLeave()
	}
	if me == x.Root && x.ToRoot && x.Dst != x.Src {
		kernels.Copy(bytes(x.Dst, x.Bytes), bytes(x.Src, x.Bytes))
	}
	if g.Size == 1 {
		return
	}
	if h := hierOf(g); h != nil {
		bcastHier(who, g, h, me, &a, x)
		return
	}
	switch chooseBcast(g, int(x.Bytes)) {
	case AlgTree:
		bcastTree(who, g, me, a, x)
	default:
		// Inside a node phase of a collective across nodes every phase must wait for
		// all its members (hier.go's invariant): no early return there.
		if int(x.Bytes) <= eagerCap(g) && (nodePhases.Load() == 0 || x.Early) {
			bcastEager(who, g, me, a, x)
			return
		}
		bcastLinear(who, g, me, a, x)
	}
}

// bcastEager is the linear broadcast of a message that fits an eager slot: the root writes
// it into its slot at every member and returns, its source free for reuse; a member copies
// its slot out and returns. Nobody waits for anybody but the message, so the root may run
// ahead of slow members: its next writes to a slot wait until the member has emptied it
// (eagerSend), and a member reads its slots in call order, so a later message can never
// be taken for an earlier one. The rule that a call returns only after every member entered
// (barrier.go) does not hold here, and need not: the call leaves nothing pending in an area
// but its slots, and the other collectives' words count (pSync) or carry increasing epochs
// (team areas), so a signal arriving while a member is still in an earlier eager broadcast
// waits for its own call.
func bcastEager(who string, g Group, me int, a area, x BcastArgs) {
	if me == x.Root {
		data := bytes(x.Src, x.Bytes)
		fresh := a.eagerFresh()
		for k := 1; k < g.Size; k++ {
			a.eagerSend(who, g, me, (me+k)%g.Size, data, fresh)
		}
		a.eagerSentNow()
		return
	}
	msg := a.eagerRecv(who, g, me, x.Root)
	copy(bytes(x.Dst, x.Bytes), msg)
	a.eagerDone(g, me, x.Root, msg)
}

// Every broadcast ends with the root releasing the members once all have their copy: a
// member returns only after every member has entered the call, the invariant that lets
// two alternating areas serve back-to-back collectives (see barrier.go).

// bcastLinear: the root says its source is ready; every member copies it and acknowledges;
// the root releases them when all have (its source may change after that).
func bcastLinear(who string, g Group, me int, a area, x BcastArgs) {
	if me == x.Root {
		for j := range g.Size {
			if j != me {
				a.signal(wordDown, g.PE(j), 1)
			}
		}
		a.releaseAfterAcks(who, g, me)
		return
	}
	a.await(who, WaitCollective, wordDown, 1)
	kernels.Copy(bytes(x.Dst, x.Bytes), bytes(Remote(x.Src, g.PE(x.Root)), x.Bytes))
	a.ackAndWait(who, g, x.Root)
}

func (a area) releaseAfterAcks(who string, g Group, root int) {
	a.await(who, WaitCollective, wordAck, uint64(g.Size-1))
	for j := range g.Size {
		if j != root {
			a.signal(wordRelease, g.PE(j), 1)
		}
	}
}

func (a area) ackAndWait(who string, g Group, root int) {
	a.signal(wordAck, g.PE(root), 1)
	a.await(who, WaitCollective, wordRelease, 1)
}

// bcastTree copies down the plan's tree rooted at the root: each node copies from its
// parent, then lets its children copy from it. Acknowledgements climb back once a node's
// whole subtree has its copy (so a parent's buffer stays put until then), and the root's
// release runs down the tree.
func bcastTree(who string, g Group, me int, a area, x BcastArgs) {
	p := planFor(g, x.Root)
	up := p.parent[me]
	if up >= 0 {
		a.await(who, WaitCollective, wordDown, 1)
		from := Remote(x.Dst, g.PE(up))
		if up == x.Root {
			from = Remote(x.Src, g.PE(up))
		}
		kernels.Copy(bytes(x.Dst, x.Bytes), bytes(from, x.Bytes))
	}
	kids := p.children[me]
	for _, c := range kids {
		a.signal(wordDown, g.PE(c), 1)
	}
	if len(kids) > 0 {
		a.await(who, WaitCollective, wordAck, uint64(len(kids)))
	}
	if up >= 0 {
		a.signal(wordAck, g.PE(up), 1)
		a.await(who, WaitCollective, wordRelease, 1)
	}
	for _, c := range kids {
		a.signal(wordRelease, g.PE(c), 1)
	}
}

// bcastHier is the broadcast over a group g spanning nodes: a node broadcast from the root
// on its node (its leader's dst gets the data, or the leader is the root), the leaders'
// network broadcast, a node broadcast from the leader's dst on every other node.
func bcastHier(who string, g Group, h *hier, me int, a *area, x BcastArgs) {
	na := a.net()
	rootPE := g.PE(x.Root)
	rootLead := h.leaderOf[x.Root]
	onRootNode := rootLead == h.leaderOf[me]
	if onRootNode {
		// The root's node phase may be eager (the root returns once its message is in its
		// members' slots), as one-node broadcasts are: it leaves nothing pending in the area
		// but the slots, which a later call's sender waits for (eagerSend), so members of the
		// root's node may be calls apart here without harm; every other node phase waits.
		lx := x
		lx.Root, lx.Early = h.loc.Index(rootPE), true
		nodePhase(func() { broadcast(who, h.loc, h.locMe, a.phase(0), lx) })
	}
	if h.leadMe >= 0 {
		buf := x.Dst
		if h.lead.PE(rootLead) == rootPE {
			buf = x.Src // the root leads its node: the data is in its src
		}
		if chooseNetBcast(h.lead.Size, x.Bytes) == netBcastRing {
			netBroadcastRing(who, h, &na, rootLead, x.Dst, buf, x.Bytes)
		} else {
			netBroadcast(who, h, &na, rootLead, x.Dst, buf, x.Bytes)
		}
	}
	if !onRootNode {
		lx := x
		lx.Src, lx.Root, lx.ToRoot = x.Dst, 0, true
		nodePhase(func() { broadcast(who, h.loc, h.locMe, a.phase(1), lx) })
	}
}
