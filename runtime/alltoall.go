package rt

import "unsafe"

// Alltoall: member i's j-th block of src (n elements at stride sst, starting at element
// j*n*sst) lands in member j's dst as its i-th block (starting at element i*n*dst, at
// stride dst). Blocks move by the strided-copy kernels, whole blocks at a time.

// AlltoallArgs is one alltoall(s) call.
type AlltoallArgs struct {
	Dst, Src             unsafe.Pointer // my symmetric arrays
	DstStride, SrcStride int
	N                    int     // elements per block
	Size                 uintptr // element size
}

// AlltoallSet is the active-set alltoall(s) on the user's pSync.
func AlltoallSet(who string, g Group, me int, pSync unsafe.Pointer, x AlltoallArgs) {
	alltoall(who, g, me, area{p: pSync}, x)
}

// AlltoallTeam is the team alltoall(s).
func AlltoallTeam(who string, t *Team, x AlltoallArgs) {
	t.Check(who)
	alltoall(who, t.G, t.Me, t.next(), x)
}

func alltoall(who string, g Group, me int, a area, x AlltoallArgs) {
	if debug {
		debugEnter(a, g, me, CollCall{Who: who, N: int64(x.N), Root: -1, Dst: x.Dst, Src: x.Src, Extra: int64(x.DstStride)<<32 | int64(x.SrcStride)})
		defer debugLeave()
	}
	if g.Size == 1 {
		x.block(me, me, g.PE(me))
		return
	}
	if x.N == 0 {
		barrier(who, g, me, &a) // nothing moves, but the call still synchronizes
		return
	}
	if spansNodes(g) {
		alltoallDirect(who, g, me, a, x) // blocks to other nodes travel by the engine
		return
	}
	nb := x.N * int(x.Size)
	switch chooseAlltoall(g, nb) {
	case AlgDirect:
		// Pushing into the peers' dst then one barrier costs what an eager exchange does
		// (measured at 2 PEs: 0.45 us for 2 KiB blocks, eager 0.43-0.62 us for 8 B-1 KiB).
		alltoallDirect(who, g, me, a, x)
	case AlgPairwise:
		alltoallPairwise(who, g, me, a, x)
	default:
		alltoallDirect(who, g, me, a, x)
	}
}

// block copies my block j into member j's (world PE pe's) dst as its block me.
func (x AlltoallArgs) block(me, j, pe int) {
	src := unsafe.Add(x.Src, uintptr(j*x.N*x.SrcStride)*x.Size)
	dst := unsafe.Add(x.Dst, uintptr(me*x.N*x.DstStride)*x.Size)
	if !local(pe) {
		transports[pe].PutStrided(dst, x.DstStride, src, x.SrcStride, x.N, x.Size, pe)
		return
	}
	StridedCopy(Remote(dst, pe), x.DstStride, src, x.SrcStride, x.N, x.Size)
}

// alltoallDirect pushes every block straight into its destination (starting with the next
// member, so members do not all write to the same one first), then synchronizes once.
func alltoallDirect(who string, g Group, me int, a area, x AlltoallArgs) {
	for k := 1; k <= g.Size; k++ {
		j := (me + k) % g.Size
		x.block(me, j, g.PE(j))
	}
	Quiet()
	barrier(who, g, me, &a)
}

// alltoallPairwise sends to member me+s in step s and signals it; each member counts the
// n-1 signals, so it returns when every block has arrived (every member has entered).
func alltoallPairwise(who string, g Group, me int, a area, x AlltoallArgs) {
	x.block(me, me, g.PE(me))
	for s := 1; s < g.Size; s++ {
		to := (me + s) % g.Size
		x.block(me, to, g.PE(to))
		a.signal(wordPair, g.PE(to), 1)
		a.await(who, WaitCollective, wordPair, 1)
	}
}
