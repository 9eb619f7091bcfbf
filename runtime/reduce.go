package rt

import (
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	"github.com/goshmem/shmem/topology"
)

// Reductions: dst[i] = src_0[i] op src_1[i] op ... over the members of g, on every member.
// Every combine is a kernels call. The order of combination is fixed per algorithm and PE
// count, so float results repeat run to run:
//   - linear: ((s_0 op s_1) op s_2) ... in member order, on every member;
//   - tree:   each node combines its own source, then its children's partial results in
//     the plan's order; the root's result is copied down;
//   - ring:   chunk c is combined along the ring starting at ring position c:
//     ((s_c op s_c+1) op s_c+2) ... (positions mod n), then copied around;
//   - direct: chunk c is combined by member c, its own source first:
//     ((s_c op s_0) op s_1) ... (skipping c), then written to every member.

// ReduceSet is the active-set reduction on the user's pSync.
func ReduceSet[T kernels.Elem](who string, op kernels.Op, g Group, me int, pSync unsafe.Pointer, dst, src []T) {
	reduce(who, op, g, me, pSyncArea(pSync), dst, src)
}

func reduceCall[T any](who string, op kernels.Op, dst, src []T) CollCall {
	return CollCall{Who: who, N: int64(len(src)), Root: -1, Dst: unsafe.Pointer(unsafe.SliceData(dst)), Src: unsafe.Pointer(unsafe.SliceData(src)), Extra: int64(op)}
}

// ReduceTeam is the team reduction on the team's own sync words.
func ReduceTeam[T kernels.Elem](who string, op kernels.Op, t *Team, dst, src []T) {
	t.Check(who)
	reduce(who, op, t.G, t.Me, t.next(), dst, src)
}

// reduce runs the reduction of src into dst over g (I am member me) on sync area a.
func reduce[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T) {
	if debug {
		debugEnter(a, g, me, reduceCall(who, op, dst, src))
		defer debugLeave()
	}
	n := len(src)
	if n == 0 {
		return
	}
	if g.Size == 1 {
		copy(dst, src)
		return
	}
	if h := hierOf(g); h != nil {
		reduceHier(who, op, h, &a, dst, src)
		return
	}
	nb := n * int(unsafe.Sizeof(src[0]))
	switch chooseReduce(g, nb) {
	case AlgLinear:
		if nb <= int(topology.ReduceEagerMax(g.Size, int64(eagerCap(g)))) {
			reduceEager(who, op, g, me, a, dst, src)
			return
		}
		reduceLinear(who, op, g, me, a, dst, src)
	case AlgTree:
		reduceTree(who, op, g, me, a, dst, src)
	case AlgRing:
		reduceRing(who, op, g, me, a, dst, src)
	case AlgDirect:
		reduceDirect(who, op, g, me, a, dst, src)
	default:
		reduceLinear(who, op, g, me, a, dst, src)
	}
}

func same[T any](a, b []T) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

// combineAll sets out = ins[0] op ins[1] op ..., block by block, so the output stays in
// cache while the inputs stream through. out may be ins[0].
func combineAll[T kernels.Elem](op kernels.Op, out []T, ins [][]T) {
	if len(ins) == 1 {
		if !same(out, ins[0]) {
			copy(out, ins[0])
		}
		return
	}
	step := max(blockBytes/int(unsafe.Sizeof(out[0])), 1)
	for lo := 0; lo < len(out); lo += step {
		hi := min(lo+step, len(out))
		kernels.Combine3(op, out[lo:hi], ins[0][lo:hi], ins[1][lo:hi])
		for _, in := range ins[2:] {
			kernels.Combine(op, out[lo:hi], in[lo:hi])
		}
	}
}

// reduceEager is the linear reduction of small vectors: every member sends its source to
// every other as an eager message and combines all of them itself, in member order (so
// every member gets the same bits). One exchange, no barrier.
func reduceEager[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T) {
	mine := asBytes(src)
	fresh := a.eagerFresh()
	for k := 1; k < g.Size; k++ {
		a.eagerSend(who, g, me, (me+k)%g.Size, mine, fresh)
	}
	a.eagerSentNow()
	var buf [smallGroup][]T
	ins := lists(&buf, g.Size)
	ins[me] = src
	if same(dst, src) { // my source, kept aside: dst overwrites it while the others combine
		own, scratch := getScratch[T](len(src))
		defer putScratch(scratch)
		copy(own, src)
		ins[me] = own
	}
	for j := range g.Size {
		if j != me {
			ins[j] = fromBytes[T](a.eagerRecv(who, g, me, j))
		}
	}
	combineAll(op, dst, ins)
	for j := range g.Size {
		if j != me {
			a.eagerDone(g, me, j, asBytes(ins[j]))
		}
	}
}

// reduceLinear: after a barrier every member reads every member's source directly and
// combines them itself; a second barrier keeps sources untouched until all have read them.
// Best for small messages: two barriers and one pass over the sources.
func reduceLinear[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T) {
	var list [smallGroup][]T
	ins := lists(&list, g.Size)
	for j := range ins {
		ins[j] = peer(src, g.PE(j))
	}
	out, scratch := dst, (*[]byte)(nil)
	if same(dst, src) { // peers read my src until the second barrier: combine aside
		out, scratch = getScratch[T](len(dst))
		defer putScratch(scratch)
	}
	barrier(who, g, me, &a)
	combineAll(op, out, ins)
	barrier(who, g, me, &a)
	if scratch != nil {
		kernels.Copy(asBytes(dst), asBytes(out))
	}
}

// reduceTree combines up the plan's tree (hierarchical by socket and L3 domain), then
// copies the result down it. A leaf's partial result is its source; an inner node's is its
// dst. Acks keep a node's dst unchanged until its children have copied it.
func reduceTree[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T) {
	p := planFor(g, 0)
	kids := p.children[me]
	partial := func(m int) []T {
		if len(p.children[m]) == 0 {
			return peer(src, g.PE(m))
		}
		return peer(dst, g.PE(m))
	}
	if len(kids) > 0 {
		a.await(who, WaitCollective, wordUp, uint64(len(kids)))
		var buf [smallGroup][]T
		ins := lists(&buf, len(kids)+1)[:0]
		ins = append(ins, src)
		for _, c := range kids {
			ins = append(ins, partial(c))
		}
		combineAll(op, dst, ins)
	}
	if up := p.parent[me]; up >= 0 {
		a.signal(wordUp, g.PE(up), 1)
		a.await(who, WaitCollective, wordDown, 1)
		kernels.Copy(asBytes(dst), asBytes(peer(dst, g.PE(up))))
		a.signal(wordAck, g.PE(up), 1)
	}
	for _, c := range kids {
		a.signal(wordDown, g.PE(c), 1)
	}
	if len(kids) > 0 {
		a.await(who, WaitCollective, wordAck, uint64(len(kids)))
	}
}

// reduceDirect is reduce-scatter and allgather in one pass, by direct access: after a
// barrier, member c combines chunk c of every member's source, block by block, and writes
// each finished block into chunk c of every member's dst; a barrier ends it. Each member
// reads 1/n of the vector from every member and writes 1/n to every member, the traffic of
// one copy of the vector, with no step of one member waiting on another's. In place is
// safe: chunk c of any member's src is read only by member c, before it writes it.
func reduceDirect[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T) {
	n := g.Size
	var list [smallGroup][]T
	ins := lists(&list, n)
	ins[0] = chunk(src, me, n) // my own source first: dst's chunk may be this very memory
	for k, j := 1, 0; j < n; j++ {
		if j != me {
			ins[k] = chunk(peer(src, g.PE(j)), me, n)
			k++
		}
	}
	out := chunk(dst, me, n)
	barrier(who, g, me, &a)
	step := max(blockBytes/int(unsafe.Sizeof(*new(T))), 1)
	var blockList [smallGroup][]T
	for lo := 0; lo < len(out); lo += step {
		hi := min(lo+step, len(out))
		blk := lists(&blockList, n)
		for i := range ins {
			blk[i] = ins[i][lo:hi]
		}
		combineAll(op, out[lo:hi], blk)
		for j := range n {
			if j != me {
				kernels.Copy(asBytes(peer(out, g.PE(j))[lo:hi]), asBytes(out[lo:hi]))
			}
		}
	}
	barrier(who, g, me, &a)
}

// reduceRing is reduce-scatter then allgather around the plan's ring (which crosses socket
// links the fewest times): in reduce-scatter step s, the member at ring position p combines
// chunk p-s from its predecessor's partial (its source at step 1) with its own source; after
// n-1 steps it holds chunk p+1 complete, and n-1 allgather steps copy the others around.
// Each member reads only its predecessor, so every link carries 2(n-1)/n of the message.
func reduceRing[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T) {
	p := planFor(g, 0)
	n := g.Size
	pos := p.pos[me]
	pred, succ := g.PE(p.ring[(pos+n-1)%n]), g.PE(p.ring[(pos+1)%n])
	predSrc, predDst := peer(src, pred), peer(dst, pred)
	a.signal(wordRing, succ, 1) // my source is ready
	for s := 1; s < n; s++ {
		a.await(who, WaitCollective, wordRing, 1)
		c := (pos - s + n) % n
		in := chunk(predDst, c, n)
		if s == 1 {
			in = chunk(predSrc, c, n)
		}
		combineAll(op, chunk(dst, c, n), [][]T{in, chunk(src, c, n)})
		a.signal(wordRing, succ, 1)
	}
	for s := 1; s < n; s++ {
		a.await(who, WaitCollective, wordRing, 1)
		c := (pos + 1 - s + n) % n
		kernels.Copy(asBytes(chunk(dst, c, n)), asBytes(chunk(predDst, c, n)))
		if s < n-1 { // the successor's last step needs my step n-2, not this one
			a.signal(wordRing, succ, 1)
		}
	}
	a.signal(wordRingAck, pred, 1)               // I no longer read my predecessor
	a.await(who, WaitCollective, wordRingAck, 1) // my successor no longer reads me
}

// reduceHier is the reduction over a group spanning nodes: a node reduction (every member
// of the node gets the node's partial), the leaders' network reduction of their partials,
// a node broadcast of the leader's result.
func reduceHier[T kernels.Elem](who string, op kernels.Op, h *hier, a *area, dst, src []T) {
	na := a.net()
	nodePhase(func() { reduce(who, op, h.loc, h.locMe, a.phase(0), dst, src) })
	if h.leadMe >= 0 {
		switch chooseNetReduce(h.lead.Size, uintptr(len(dst))*unsafe.Sizeof(dst[0])) {
		case netRedRD:
			netReduceRD(who, op, h, &na, dst)
		case netRedRDLarge:
			netReduceRDLarge(who, op, h, &na, dst)
		case netRedRing:
			netReduceRing(who, op, h, &na, dst)
		default:
			netReduce(who, op, h, &na, dst)
		}
	}
	p := unsafe.Pointer(unsafe.SliceData(dst))
	nodePhase(func() {
		broadcast(who, h.loc, h.locMe, a.phase(1), BcastArgs{Dst: p, Src: p, Bytes: uintptr(len(dst)) * unsafe.Sizeof(dst[0]), ToRoot: true})
	})
}
