package rt

import (
	"fmt"
	"sync/atomic"
	"unsafe"
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
	collect(who, g, me, area{p: pSync}, x)
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
	if !x.Fixed {
		collectLinear(who, g, me, a, x)
		return
	}
	if g.Size == 1 {
		copy(bytes(x.Dst, x.Bytes), bytes(x.Src, x.Bytes))
		return
	}
	switch chooseFcollect(g, int(x.Bytes)) {
	case AlgRing:
		fcollectRing(who, g, me, a, x)
	default:
		fcollectLinear(who, g, me, a, x)
	}
}

// fcollectLinear: after a barrier every member copies every member's block itself; a
// second barrier keeps the sources until all have.
func fcollectLinear(who string, g Group, me int, a area, x CollectArgs) {
	barrier(who, g, me, &a)
	for k := range g.Size {
		j := (me + k) % g.Size
		copy(bytes(unsafe.Add(x.Dst, uintptr(j)*x.Bytes), x.Bytes), bytes(Remote(x.Src, g.PE(j)), x.Bytes))
	}
	barrier(who, g, me, &a)
}

// fcollectRing passes blocks around the plan's ring: each member copies its own block,
// then, n-1 times, the block its predecessor got in the step before.
func fcollectRing(who string, g Group, me int, a area, x CollectArgs) {
	p := planFor(g, 0)
	n := g.Size
	pos := p.pos[me]
	pred, succ := g.PE(p.ring[(pos+n-1)%n]), g.PE(p.ring[(pos+1)%n])
	blk := func(m int) []byte { return bytes(unsafe.Add(x.Dst, uintptr(m)*x.Bytes), x.Bytes) }
	copy(blk(me), bytes(x.Src, x.Bytes))
	a.signal(wordRing, succ, 1)
	for s := 1; s < n; s++ {
		a.await(who, WaitCollective, wordRing, 1)
		m := p.ring[(pos-s+n)%n]
		copy(blk(m), bytes(Remote(unsafe.Pointer(unsafe.SliceData(blk(m))), pred), x.Bytes))
		if s < n-1 {
			a.signal(wordRing, succ, 1)
		}
	}
	a.signal(wordRingAck, pred, 1)
	a.await(who, WaitCollective, wordRingAck, 1)
}

// collectLinear publishes each member's byte count in its sync area, then every member
// places every block at the offset the counts before it give.
func collectLinear(who string, g Group, me int, a area, x CollectArgs) {
	mine := a.word(wordValue)
	atomic.StoreUint64(mine, uint64(x.Bytes))
	barrier(who, g, me, &a)
	var total uintptr
	for j := range g.Size {
		total += uintptr(atomic.LoadUint64((*uint64)(Remote(unsafe.Pointer(mine), g.PE(j)))))
	}
	if total > x.DstBytes {
		panic(fmt.Sprintf("%s: dst holds %d bytes, the members contribute %d", who, x.DstBytes, total))
	}
	var off uintptr
	for j := range g.Size {
		nb := uintptr(atomic.LoadUint64((*uint64)(Remote(unsafe.Pointer(mine), g.PE(j)))))
		copy(bytes(unsafe.Add(x.Dst, off), nb), bytes(Remote(x.Src, g.PE(j)), nb))
		off += nb
	}
	barrier(who, g, me, &a)
	atomic.StoreUint64(mine, 0) // pSync holds SyncValue again
}
