package rt

import "unsafe"

// Broadcast: the root's src reaches every member's dst (the root's own dst too when
// toRoot is set: the team form does that, the active-set form does not). Members pull
// from their parent: the root's src, or an inner node's dst once it has its copy.

// BcastArgs is one broadcast call.
type BcastArgs struct {
	Dst, Src unsafe.Pointer
	Bytes    uintptr
	Root     int // member index
	ToRoot   bool
}

// BroadcastSet is the active-set broadcast on the user's pSync.
func BroadcastSet(who string, g Group, me int, pSync unsafe.Pointer, x BcastArgs) {
	broadcast(who, g, me, area{p: pSync}, x)
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
		copy(bytes(x.Dst, x.Bytes), bytes(x.Src, x.Bytes))
	}
	if g.Size == 1 {
		return
	}
	switch chooseBcast(g, int(x.Bytes)) {
	case AlgTree:
		bcastTree(who, g, me, a, x)
	default:
		bcastLinear(who, g, me, a, x)
	}
}

// bcastLinear: the root says its source is ready; every member copies it; the root
// returns when all have (its source may change after that).
func bcastLinear(who string, g Group, me int, a area, x BcastArgs) {
	if me == x.Root {
		for j := range g.Size {
			if j != me {
				a.signal(wordDown, g.PE(j), 1)
			}
		}
		a.await(who, WaitCollective, wordAck, uint64(g.Size-1))
		return
	}
	a.await(who, WaitCollective, wordDown, 1)
	copy(bytes(x.Dst, x.Bytes), bytes(Remote(x.Src, g.PE(x.Root)), x.Bytes))
	a.signal(wordAck, g.PE(x.Root), 1)
}

// bcastTree copies down the plan's tree rooted at the root: each node copies from its
// parent, then lets its children copy from it, and waits until they have.
func bcastTree(who string, g Group, me int, a area, x BcastArgs) {
	p := planFor(g, x.Root)
	if up := p.parent[me]; up >= 0 {
		a.await(who, WaitCollective, wordDown, 1)
		from := Remote(x.Dst, g.PE(up))
		if up == x.Root {
			from = Remote(x.Src, g.PE(up))
		}
		copy(bytes(x.Dst, x.Bytes), bytes(from, x.Bytes))
		a.signal(wordAck, g.PE(up), 1)
	}
	kids := p.children[me]
	for _, c := range kids {
		a.signal(wordDown, g.PE(c), 1)
	}
	if len(kids) > 0 {
		a.await(who, WaitCollective, wordAck, uint64(len(kids)))
	}
}
