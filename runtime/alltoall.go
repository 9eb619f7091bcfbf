package rt

import (
	"slices"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

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
	alltoall(who, g, me, pSyncArea(pSync), x)
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
	if h := hierOf(g); h != nil {
		if _, ok := netT.(putSignaler); x.DstStride != 1 && (!ok || uintptr(x.N)*x.Size > netEagerMax) {
			alltoallStaged(who, g, h, me, &a, x)
			return
		}
		alltoallNet(who, g, h, me, &a, x)
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

// alltoallNet is alltoall(s) over a group spanning nodes when blocks land contiguous, or
// are small enough for one message: each block for another node travels with a signal to
// its receiver (in one message, which its handler scatters, up to GOSHMEM_NET_EAGER), so a
// member is done once it counted one per member on other nodes and its node's members,
// which copy their blocks straight in, passed a node barrier. No quiet (alltoall across
// nodes took a round trip and a hop more), and a barrier first only where the counts need
// it (netExactCounts): 2 PEs on 2 nodes, one element: 68 -> 11 us.
func alltoallNet(who string, g Group, h *hier, me int, a *area, x AlltoallArgs) {
	na := a.net()
	myNode := h.leaderOf[me]
	ps, eager := netT.(putSignaler)
	eager = eager && uintptr(x.N)*x.Size <= netEagerMax
	if h.maxFar > 1 || !eager {
		barrier(who, g, me, a) // the composed barrier: every member is in this call
	}
	far := 0
	for k := 1; k <= g.Size; k++ {
		j := (me + k) % g.Size
		pe := g.PE(j)
		if h.leaderOf[j] == myNode {
			x.block(me, j, pe)
			continue
		}
		far++
		if eager {
			src := unsafe.Add(x.Src, uintptr(j*x.N*x.SrcStride)*x.Size)
			dst := unsafe.Add(x.Dst, uintptr(me*x.N*x.DstStride)*x.Size)
			ps.PutSignal(dst, x.DstStride, src, x.SrcStride, x.N, x.Size, unsafe.Pointer(na.word(netData)), 1, pe)
			continue
		}
		x.block(me, j, pe) // contiguous at the destination (alltoall sends the rest staged)
		na.netSignalAfter(netData, pe)
	}
	na.await(who, WaitCollective, netData, uint64(far))
	barrier(who, h.loc, h.locMe, a)
}

// alltoallStaged is alltoall(s) over a group spanning nodes when blocks land strided: put
// into a PE on another node such a block would take a message per element (UCX's remote side
// is contiguous), so each sender packs its blocks for other nodes into its scratch, one slot
// per receiver, and each receiver fetches its slot whole and scatters it into its dst
// itself; blocks larger than a slot go in rounds, a sender refilling its slots once every
// receiver has fetched the last round. Blocks within a node are copied as always.
func alltoallStaged(who string, g Group, h *hier, me int, a *area, x AlltoallArgs) {
	na := a.net()
	myNode := h.leaderOf[me]
	var farBuf [smallGroup]int
	far := farBuf[:0] // members on other nodes: my receivers and my senders alike
	for k := 1; k <= g.Size; k++ {
		j := (me + k) % g.Size
		if h.leaderOf[j] == myNode {
			x.block(me, j, g.PE(j))
		} else {
			far = append(far, j)
		}
	}
	slices.Sort(far) // slot i of a sender's scratch is for its i-th far member, in group order
	F := len(far)
	// Slots are as large on every PE (a receiver finds its slot at a sender by the same
	// arithmetic): the PE with the most members on other nodes must fit them all.
	per := max(shm.ScratchSize/h.maxFar/int(x.Size), 1) // elements per slot and round
	slotBytes := uintptr(per) * x.Size
	scratch := reserved(shm.ReservedScratchOff)
	tmp, buf := getScratch[byte](per * int(x.Size))
	defer putScratch(buf)
	for lo := 0; lo < x.N; lo += per {
		cnt := min(per, x.N-lo)
		if lo > 0 {
			na.await(who, WaitCollective, netReady, uint64(F)) // my slots are free again
		}
		for i, j := range far {
			src := unsafe.Add(x.Src, uintptr((j*x.N+lo)*x.SrcStride)*x.Size)
			StridedCopy(unsafe.Add(scratch, uintptr(i)*slotBytes), 1, src, x.SrcStride, cnt, x.Size)
		}
		for _, j := range far {
			na.signal(netData, g.PE(j), 1)
		}
		na.await(who, WaitCollective, netData, uint64(F))
		for _, j := range far {
			// My slot at sender j: my place among the members on other nodes than j's.
			slot := 0
			for k := 0; k < me; k++ {
				if h.leaderOf[k] != h.leaderOf[j] {
					slot++
				}
			}
			pe := g.PE(j)
			transports[pe].Get(unsafe.Pointer(&tmp[0]), unsafe.Add(scratch, uintptr(slot)*slotBytes), uintptr(cnt)*x.Size, pe)
			dst := unsafe.Add(x.Dst, uintptr((j*x.N+lo)*x.DstStride)*x.Size)
			StridedCopy(dst, x.DstStride, unsafe.Pointer(&tmp[0]), 1, cnt, x.Size)
			if lo+per < x.N {
				na.signal(netReady, pe, 1) // fetched: it may refill
			}
		}
	}
	barrier(who, g, me, a)
}
