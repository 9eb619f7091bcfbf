package rt

import (
	"slices"
	"testing"
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

func TestNetRDRound(t *testing.T) {
	for _, c := range []struct{ L, nbytes, want int }{
		{1, 8, 0},       // one leader: no network phase
		{2, 8, 12},      // one round: the signal word and 11 payload words
		{2, 88, 12},     // 11 words fit
		{2, 89, 0},      // 12 do not
		{3, 8, 0},       // not a power of two: the tree
		{4, 40, 6},      // two rounds of 6 words, 5 of payload
		{4, 41, 0},      //
		{8, 24, 4},      // three rounds of 4
		{64, 8, 2},      // six rounds of 2: one payload word each
		{64, 9, 0},      //
		{128, 8, 0},     // seven rounds: no room
		{2, 0, 0},       // nothing to send
		{1 << 20, 8, 0}, //
		{6 << 10, 8, 0}, //
		{2, 1 << 40, 0}, //
		{16, 16, 3},     // four rounds of 3
		{16, 17, 0},     //
		{32, 8, 2},      //
	} {
		if got := netRDRound(c.L, c.nbytes); got != c.want {
			t.Errorf("netRDRound(%d, %d) = %d, want %d", c.L, c.nbytes, got, c.want)
		}
	}
}
