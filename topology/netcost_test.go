package topology

import (
	"strings"
	"testing"
	"time"
)

// The network reductions' prices, by hand for one model, and where the choice moves.
func TestNetReduceCost(t *testing.T) {
	m := DefaultCostModel()
	m.LatNet, m.BWNet, m.BWCombine = 10*time.Microsecond, 1000, 10000
	const a, x, c = 10_000_000, 1_000_000_000, 100_000_000 // ps: LatNet, 1e6 B sent, combined
	for _, tc := range []struct {
		alg     Algorithm
		leaders int
		want    int64
	}{
		{NetRD, 2, a + x + c},
		{NetRD, 4, 2 * (a + x + c)},
		{NetRD, 3, maxCost},                               // not a power of two
		{NetRing, 2, 2*(a+x/2) + c/2},                     // one step each way of half the vector
		{NetRing, 4, 6*(a+x/4) + 3*c/4},                   //
		{NetTree, 2, (2*a + x + c) + (a + x)},             // one child: up, then down
		{NetTree, 5, (2*a + 4*x + 4*c) + (a + 4*x)},       // radix 4: one level of four children
		{NetTree, 6, 2 * ((2*a + 4*x + 4*c) + (a + 4*x))}, // two levels
	} {
		if got := NetCost(Reduce, tc.alg, tc.leaders, 1_000_000, m); got != tc.want {
			t.Errorf("NetCost(reduce, %s, %d leaders, 1e6 B) = %d ps, want %d", tc.alg, tc.leaders, got, tc.want)
		}
	}
	if got := NetCost(Reduce, NetRing, 1, 8, m); got != 0 {
		t.Errorf("one leader costs %d, want 0", got)
	}
	if got := NetCost(Reduce, NetRing, 4, 1<<62, m); got != maxCost {
		t.Errorf("a huge vector costs %d, want the saturated %d", got, int64(maxCost))
	}
}

// crossover is the first size of ChoiceSizes at which NetChoose picks ring for a reduction.
func crossover(t *testing.T, leaders int, m CostModel) int {
	for _, n := range ChoiceSizes {
		if a, _ := NetChoose(Reduce, leaders, int64(n), m, func(Algorithm) bool { return true }); a == NetRing {
			return n
		}
	}
	t.Fatalf("%d leaders: ring never chosen", leaders)
	return 0
}

// Recursive doubling's few rounds win small vectors among a power of two of leaders, the
// ring's smaller share of the bytes large ones, later the more latency a message costs
// per byte of bandwidth (the bandwidth-delay product) and the more leaders there are.
func TestNetChooseReduce(t *testing.T) {
	all := func(Algorithm) bool { return true }
	m := DefaultCostModel()
	if a, why := NetChoose(Reduce, 4, 8, m, all); a != NetRD {
		t.Errorf("4 leaders, 8 B: %s, want rd (%s)", a, why)
	}
	if a, why := NetChoose(Reduce, 4, 64<<20, m, all); a != NetRing {
		t.Errorf("4 leaders, 64 MiB: %s, want ring (%s)", a, why)
	}
	if a, why := NetChoose(Reduce, 2, 64<<20, m, all); a != NetRD {
		t.Errorf("2 leaders, 64 MiB: %s, want rd: a ring moves the same bytes in two steps (%s)", a, why)
	}
	if a, why := NetChoose(Reduce, 3, 8, m, all); a != NetTree {
		t.Errorf("3 leaders, 8 B: %s, want tree (%s)", a, why)
	}
	slow := m
	slow.LatNet = 100 * time.Microsecond // a bandwidth-delay product of 1.2 MB, not 24 KB
	if d, s := crossover(t, 4, m), crossover(t, 4, slow); s <= d {
		t.Errorf("ring from %d B with LatNet %v, from %d B with %v: want later with the slower", d, m.LatNet, s, slow.LatNet)
	}
	if few, many := crossover(t, 4, m), crossover(t, 64, m); many <= few {
		t.Errorf("ring from %d B among 4 leaders, %d B among 64: want later among more", few, many)
	}
	// What can is false for is never chosen; tree always can.
	none := func(Algorithm) bool { return false }
	if a, why := NetChoose(Reduce, 4, 64<<20, m, none); a != NetTree || !strings.Contains(why, "ring cannot") {
		t.Errorf("nothing but tree allowed: %s (%s)", a, why)
	}
	if a, why := NetChoose(Reduce, 4, 64<<20, m, func(a Algorithm) bool { return a == NetRD }); a != NetRD {
		t.Errorf("ring not allowed, 64 MiB among 4: %s, want rd (%s)", a, why)
	}
}

func TestNetChoiceLine(t *testing.T) {
	m := DefaultCostModel()
	by := func(leaders int, can func(Algorithm, int64) bool) func(int64) Algorithm {
		return func(n int64) Algorithm {
			a, _ := NetChoose(Reduce, leaders, n, m, func(a Algorithm) bool { return can(a, n) })
			return a
		}
	}
	all := func(Algorithm, int64) bool { return true }
	if got, want := NetChoiceLine(by(4, all)), "rd 8 B-128 KiB, ring 256 KiB-"; got != want {
		t.Errorf("NetChoiceLine(4 leaders) = %q, want %q", got, want)
	}
	eager := func(a Algorithm, n int64) bool { return a != NetRing || n <= 64<<10 }
	if got, want := NetChoiceLine(by(3, eager)), "tree 8 B-8 KiB, ring 16 KiB-64 KiB, tree 128 KiB-"; got != want {
		t.Errorf("NetChoiceLine(3 leaders, ring up to 64 KiB) = %q, want %q", got, want)
	}
}

// Broadcast: the tree's root sends k whole copies, the scatter and ring's about two; the
// ring pays about L latencies for it, so it wins large messages among three or more
// leaders, never among two (where its root sends the whole message as well).
func TestNetChooseBcast(t *testing.T) {
	m := DefaultCostModel()
	m.LatNet, m.BWNet = 10*time.Microsecond, 1000
	const a, x = 10_000_000, 1_000_000_000 // ps: LatNet, 1e6 B sent
	if got, want := NetCost(Bcast, NetTree, 5, 1_000_000, m), int64(a+4*x); got != want {
		t.Errorf("tree among 5 (one level of 4 children): %d ps, want %d", got, want)
	}
	if got, want := NetCost(Bcast, NetRing, 4, 1_000_000, m), int64(4*a+6*x/4); got != want {
		t.Errorf("ring among 4: %d ps, want %d", got, want)
	}
	all := func(Algorithm) bool { return true }
	for _, c := range []struct {
		leaders int
		nbytes  int64
		want    Algorithm
	}{
		{2, 64 << 20, NetTree},
		{4, 8, NetTree},
		{4, 64 << 20, NetRing},
		{64, 8, NetTree},
		{64, 64 << 20, NetRing},
	} {
		if a, why := NetChoose(Bcast, c.leaders, c.nbytes, m, all); a != c.want {
			t.Errorf("bcast among %d, %d B: %s, want %s (%s)", c.leaders, c.nbytes, a, c.want, why)
		}
	}
	if a, _ := NetChoose(Bcast, 4, 64<<20, m, func(Algorithm) bool { return false }); a != NetTree {
		t.Errorf("ring not allowed: %s", a)
	}
}

// The network allgathers' prices by hand, and the choice: Bruck's log2 L messages beat
// direct's L-1 from four leaders on; at two and three they tie and direct, the simpler,
// stays.
func TestNetGatherCost(t *testing.T) {
	m := DefaultCostModel()
	m.LatNet, m.BWNet = 10*time.Microsecond, 1000
	const a, x = 10_000_000, 1_000_000_000 // ps: LatNet, 1e6 B sent
	for _, tc := range []struct {
		alg     Algorithm
		leaders int
		want    int64
	}{
		{NetDirect, 2, a + x/2},
		{NetBruck, 2, a + x/2},
		{NetDirect, 4, 3 * (a + x/4)},
		{NetBruck, 4, 2*a + 3*x/4},
		{NetBruck, 5, 3*a + 4*x/5}, // three rounds, the last with one part
	} {
		for _, coll := range []Collective{FCollect, Collect} {
			if got := NetCost(coll, tc.alg, tc.leaders, 1_000_000, m); got != tc.want {
				t.Errorf("NetCost(%s, %s, %d leaders, 1e6 B) = %d ps, want %d", coll, tc.alg, tc.leaders, got, tc.want)
			}
		}
	}
	all := func(Algorithm) bool { return true }
	for _, tc := range []struct {
		leaders int
		want    Algorithm
	}{{2, NetDirect}, {3, NetDirect}, {4, NetBruck}, {64, NetBruck}} {
		if a, why := NetChoose(FCollect, tc.leaders, 64, m, all); a != tc.want {
			t.Errorf("%d leaders, 64 B: %s, want %s (%s)", tc.leaders, a, tc.want, why)
		}
	}
	if a, why := NetChoose(FCollect, 64, 64, m, func(a Algorithm) bool { return a != NetBruck }); a != NetDirect || !strings.Contains(why, "bruck cannot") {
		t.Errorf("bruck not allowed: %s (%s)", a, why)
	}
}
