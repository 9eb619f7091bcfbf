package rt

import (
	"slices"
	"testing"

	"github.com/goshmem/shmem/topology"
)

// The split of a group by node, seen from each member: its node's members, the leaders (the
// lowest member per node), which leader serves each member, the widest fan-out.
func TestSplitByNode(t *testing.T) {
	roundRobin := func(pe int) int { return pe % 2 } // --map-by node over 2 nodes
	g := Group{Start: 0, Stride: 1, Size: 5}
	h := splitByNode(g, roundRobin, 3)
	if got := []int{h.loc.PE(0), h.loc.PE(1)}; h.loc.Size != 2 || !slices.Equal(got, []int{1, 3}) || h.locMe != 1 {
		t.Errorf("loc %v (size %d), locMe %d; want PEs 1,3 and 1", got, h.loc.Size, h.locMe)
	}
	if h.lead.Size != 2 || h.lead.PE(0) != 0 || h.lead.PE(1) != 1 || h.leadMe != -1 {
		t.Errorf("leaders %v, leadMe %d; want 0,1 and -1", h.lead, h.leadMe)
	}
	if !slices.Equal(h.leaderOf, []int{0, 1, 0, 1, 0}) || h.maxFar != 3 {
		t.Errorf("leaderOf %v maxFar %d; want [0 1 0 1 0] and 3", h.leaderOf, h.maxFar)
	}
	if h := splitByNode(g, roundRobin, 1); h.leadMe != 1 || h.locMe != 0 {
		t.Errorf("PE 1: leadMe %d locMe %d, want 1 and 0", h.leadMe, h.locMe)
	}
	// A group on one node is not split; a strided group across blocks of nodes is.
	if h := splitByNode(Group{Start: 0, Stride: 2, Size: 3}, roundRobin, 2); h != nil {
		t.Errorf("a group on one node split: %+v", h)
	}
	blocks := func(pe int) int { return pe / 4 }
	h = splitByNode(Group{Start: 1, Stride: 3, Size: 4}, blocks, 7) // PEs 1,4,7,10
	if h.lead.Size != 3 || h.lead.PE(2) != 10 || h.loc.Size != 2 || h.loc.PE(0) != 4 || h.leadMe != -1 {
		t.Errorf("PEs 1,4,7,10 over blocks of 4: leaders %v loc %v leadMe %d", h.lead, h.loc, h.leadMe)
	}
}

// treeAt: every member but the root has one parent, children ranges partition the rest.
func TestTreeAt(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for root := range n {
			for k := 1; k <= 4; k++ {
				parents := make([]int, n)
				seen := make([]int, n)
				for v := range n {
					p, first, last := treeAt(v, root, n, k)
					parents[v] = p
					for c := first; c < last; c++ {
						seen[child(c, root, n)]++
						if q, _, _ := treeAt(child(c, root, n), root, n, k); q != v {
							t.Fatalf("n %d root %d k %d: %d's child %d has parent %d", n, root, k, v, child(c, root, n), q)
						}
					}
				}
				for v := range n {
					if (v == root) != (parents[v] == -1) || v != root && seen[v] != 1 {
						t.Fatalf("n %d root %d k %d: member %d parent %d, listed as a child %d times", n, root, k, v, parents[v], seen[v])
					}
				}
			}
		}
	}
}

// netReduceAlg: what can run among L leaders at a size, then the model's price or the
// override (the prices themselves: topology's TestNetReduceChoose).
func TestNetReduceAlg(t *testing.T) {
	const eager = 64 << 10
	m := topology.DefaultCostModel()
	for _, c := range []struct {
		L             int
		nbytes, eager uintptr
		force         topology.Algorithm
		want          int
	}{
		{2, 8, eager, "", netRedRD},               // one round, one message
		{2, eager, eager, "", netRedRD},           // a message's worth
		{2, eager + 1, eager, "", netRedRDLarge},  // beyond: chunks through the scratch
		{2, 64 << 20, eager, "", netRedRDLarge},   // a ring moves the same bytes in two steps
		{2, 8, 0, "", netRedRDLarge},              // GOSHMEM_NET_EAGER=0: no message carries data
		{2, 0, eager, "", netRedRD},               //
		{3, 8, eager, "", netRedTree},             // not a power of two: one level of tree
		{3, 1 << 20, eager, "", netRedRing},       // each leader's link carries 2/3 of the vector, not 3
		{3, 1 << 20, 0, "", netRedTree},           // the ring's chunks travel as mail
		{4, 64 << 10, eager, "", netRedRD},        // two rounds' latency beat six steps'
		{4, 1 << 20, eager, "", netRedRing},       // 1.5 vectors per link beat 2
		{64, 8, eager, "", netRedRD},              // six rounds
		{64, 256 << 10, eager, "", netRedRDLarge}, // six rounds of two words each: they fit
		{128, 8, eager, "", netRedRD},             // seven rounds: a channel word each
		{128, 256 << 10, eager, "", netRedRing},   // but not two words each for the large form
		{1 << 12, 8, eager, "", netRedRD},         // twelve rounds: the last channel word
		{1 << 13, 8, eager, "", netRedTree},       // no word for a thirteenth; 16382 ring steps
		{128, 8, 0, "", netRedTree},               //
		{1, 8, eager, "", netRedTree},             // one leader: never asked, but no recursive doubling
		// GOSHMEM_NET_REDUCE_ALGORITHM: obeyed where it can run, else auto.
		{2, 8, eager, topology.NetRing, netRedRing},
		{4, 1 << 20, eager, topology.NetTree, netRedTree},
		{4, 1 << 20, eager, topology.NetRD, netRedRDLarge},
		{3, 8, eager, topology.NetRD, netRedTree},
		{2, 8, 0, topology.NetRing, netRedRDLarge},
	} {
		if got := netReduceAlg(c.L, c.nbytes, c.eager, m, c.force); got != c.want {
			t.Errorf("netReduceAlg(%d, %d, %d, %q) = %d, want %d", c.L, c.nbytes, c.eager, c.force, got, c.want)
		}
	}
}

func TestNetBcastAlg(t *testing.T) {
	const eager = 64 << 10
	m := topology.DefaultCostModel()
	for _, c := range []struct {
		L             int
		nbytes, eager uintptr
		force         topology.Algorithm
		want          int
	}{
		{2, 8, eager, "", netBcastTree},
		{2, 64 << 20, eager, "", netBcastTree}, // the ring's root sends it all too
		{4, 8, eager, "", netBcastTree},
		{4, 64 << 20, eager, "", netBcastRing},
		{4, 64 << 20, 0, "", netBcastTree}, // the ring's chunks travel as mail
		{2, 8, eager, topology.NetRing, netBcastRing},
		{4, 64 << 20, eager, topology.NetTree, netBcastTree},
		{4, 8, 0, topology.NetRing, netBcastTree},
	} {
		if got := netBcastAlg(c.L, c.nbytes, c.eager, m, c.force); got != c.want {
			t.Errorf("netBcastAlg(%d, %d, %d, %q) = %d, want %d", c.L, c.nbytes, c.eager, c.force, got, c.want)
		}
	}
}

// chunkBounds splits n bytes into L chunks that cover them in order, sizes differing by at
// most one, without overflowing at the largest sizes.
func TestChunkBounds(t *testing.T) {
	for _, n := range []uintptr{0, 1, 7, 8, 4097, 1<<62 + 3} {
		for _, L := range []int{1, 2, 3, 4, 7, 4096} {
			lo, hi := ^uintptr(0), uintptr(0)
			for c := range L {
				a, b := chunkBounds(n, c, L), chunkBounds(n, c+1, L)
				if b < a {
					t.Fatalf("n %d L %d: chunk %d [%d,%d)", n, L, c, a, b)
				}
				lo, hi = min(lo, b-a), max(hi, b-a)
			}
			if chunkBounds(n, 0, L) != 0 || chunkBounds(n, L, L) != n || hi-lo > 1 {
				t.Errorf("n %d L %d: chunks from %d to %d, sizes %d..%d", n, L, chunkBounds(n, 0, L), chunkBounds(n, L, L), lo, hi)
			}
		}
	}
}

func TestNetGatherAlg(t *testing.T) {
	const eager = 64 << 10
	m := topology.DefaultCostModel()
	for _, c := range []struct {
		L            int
		total, eager uintptr
		force        topology.Algorithm
		want         int
	}{
		{2, 16, eager, "", netGatherDirect},   // one message either way
		{3, 24, eager, "", netGatherDirect},   // two rounds for two messages: a tie
		{4, 32, eager, "", netGatherBruck},    // two rounds for three messages
		{4, eager, eager, "", netGatherBruck}, // the whole result in a message
		{4, eager + 1, eager, "", netGatherDirect},
		{4, 32, 0, "", netGatherDirect},                 // no mail
		{1 << 12, 8 << 12, 1 << 20, "", netGatherBruck}, // twelve rounds: the last channel word
		{1<<12 + 1, 8 << 12, 1 << 20, "", netGatherDirect},
		// GOSHMEM_NET_COLLECT_ALGORITHM: obeyed where it can run, else auto.
		{2, 16, eager, topology.NetBruck, netGatherBruck},
		{4, 32, eager, topology.NetDirect, netGatherDirect},
		{4, eager + 1, eager, topology.NetBruck, netGatherDirect},
	} {
		if got := netGatherAlg(c.L, c.total, c.eager, m, c.force); got != c.want {
			t.Errorf("netGatherAlg(%d, %d, %d, %q) = %d, want %d", c.L, c.total, c.eager, c.force, got, c.want)
		}
	}
}
