package topology

import (
	"fmt"
	"math/bits"
	"strings"
)

// The network phase of a collective that spans nodes runs among one leader per node
// (runtime/hier.go); NetChoose prices its broadcast, reduction and allgather algorithms
// with the model's network level (LatNet, BWNet) and BWCombine. Each leader's link carries
// its own messages; the network is not modelled beyond that (no contention among pairs).
//
// What each is charged, L leaders, n bytes (each), a = LatNet, x(b) = b bytes at BWNet,
// c(b) = b bytes combined, k = the radix (at most L-1), d = ceil(log_k L) tree levels:
//   - bcast tree: per level a parent sends k copies (a + k x(n));
//   - bcast ring: the root scatters a chunk of n/L to each leader, then the chunks go round
//     the ring, the root sending its successor the ones it lacks: the root's link carries
//     2n(L-1)/L, about L hops of latency (a L + 2(L-1) x(n/L)), where the tree's root sends
//     k whole copies;
//   - reduce tree: per level up, a child waits for its parent's "ready" and sends (a + a),
//     the parent receives k vectors over its link and combines them (k x(n) + k c(n)); per
//     level down, a parent sends k copies (a + k x(n));
//   - reduce rd, recursive doubling (L a power of two): log2 L rounds, each an exchange of
//     the whole partial result with a partner (a + x(n)) and its combination (c(n));
//   - reduce ring: a reduce-scatter and an allgather around the leaders, 2(L-1) steps of a
//     chunk of n/L bytes (a + x(n/L)) and L-1 combinations of a chunk: each leader's link
//     carries 2n(L-1)/L bytes where recursive doubling's carries n log2 L;
//   - allgather (FCollect, Collect; n is the whole result, b = n/L a leader's part) direct:
//     each leader sends its part to each other leader, L-1 messages ((L-1)(a + x(b)));
//   - allgather bruck: ceil(log2 L) rounds of one message to the leader 2^k back, carrying
//     all it has (up to 2^k parts): the same (L-1) x(b) in log2 L messages, not L-1.

// Network algorithms, by the names GOSHMEM_NET_BCAST_ALGORITHM and
// GOSHMEM_NET_REDUCE_ALGORITHM take.
const (
	NetTree Algorithm = "tree"
	NetRD   Algorithm = "rd"
	NetRing Algorithm = "ring"
	// NetDirect and NetBruck are the allgathers' (GOSHMEM_NET_COLLECT_ALGORITHM).
	NetDirect Algorithm = "direct"
	NetBruck  Algorithm = "bruck"
)

// NetAlgorithms lists the network algorithms of coll (Bcast, Reduce, FCollect or Collect),
// simplest first.
func NetAlgorithms(coll Collective) []Algorithm {
	switch coll {
	case Bcast:
		return []Algorithm{NetTree, NetRing}
	case Reduce:
		return []Algorithm{NetTree, NetRD, NetRing}
	case FCollect, Collect:
		return []Algorithm{NetDirect, NetBruck}
	}
	panic("topology.NetAlgorithms: no network algorithms for " + coll.String())
}

// NetCost is the model's estimate of network algorithm alg of coll among leaders leaders
// at nbytes (each), in picoseconds (saturating); rd among a leader count that is not a
// power of two costs maxCost.
func NetCost(coll Collective, alg Algorithm, leaders int, nbytes int64, m CostModel) int64 {
	m.check("topology.NetCost")
	if leaders < 2 {
		return 0
	}
	if nbytes < 0 {
		panic(fmt.Sprintf("topology.NetCost: negative size %d", nbytes))
	}
	a := m.LatNet.Nanoseconds() * 1000
	x := func(b int64) int64 { return xferPS(b, m.BWNet) }
	c := func(b int64) int64 { return xferPS(b, m.BWCombine) }
	L := int64(leaders)
	k := min(int64(m.TreeRadix), L-1) // children of a parent
	d := int64(0)
	for span := int64(1); span < L; span = add(mul(span, k), 1) {
		d++ // levels below the root: a tree of depth d holds 1+k+...+k^d leaders
	}
	chunk := (nbytes + L - 1) / L
	switch {
	case coll == Bcast && alg == NetTree:
		return mul(d, add(a, mul(k, x(nbytes))))
	case coll == Bcast && alg == NetRing:
		return add(mul(L, a), mul(2*(L-1), x(chunk)))
	case coll == Reduce && alg == NetTree:
		up := add(2*a, add(mul(k, x(nbytes)), mul(k, c(nbytes))))
		down := add(a, mul(k, x(nbytes)))
		return mul(d, add(up, down))
	case coll == Reduce && alg == NetRD:
		if leaders&(leaders-1) != 0 {
			return maxCost
		}
		rounds := int64(bits.Len(uint(leaders)) - 1)
		return mul(rounds, add(add(a, x(nbytes)), c(nbytes)))
	case coll == Reduce && alg == NetRing:
		return add(mul(2*(L-1), add(a, x(chunk))), mul(L-1, c(chunk)))
	case (coll == FCollect || coll == Collect) && alg == NetDirect:
		return mul(L-1, add(a, x(chunk)))
	case (coll == FCollect || coll == Collect) && alg == NetBruck:
		rounds := int64(bits.Len(uint(leaders - 1))) // ceil(log2 L)
		return add(mul(rounds, a), mul(L-1, x(chunk)))
	}
	panic("topology.NetCost: no network " + coll.String() + " " + string(alg))
}

// NetChoose picks the network algorithm of coll among leaders leaders at nbytes from those
// can allows (the runtime's limits: words for the rounds, a message size), and says why.
// As Choose does, a later algorithm replaces an earlier one only when more than 1/16
// cheaper. Every leader must choose alike: m must be the same on every node (the runtime
// takes PE 0's network level). The first of NetAlgorithms(coll) is always allowed.
func NetChoose(coll Collective, leaders int, nbytes int64, m CostModel, can func(Algorithm) bool) (Algorithm, string) {
	algs := NetAlgorithms(coll)
	best, bestCost := algs[0], NetCost(coll, algs[0], leaders, nbytes, m)
	var why strings.Builder
	fmt.Fprintf(&why, "%d leaders, %s:", leaders, fmtBytes(nbytes))
	for _, alg := range algs {
		if alg != algs[0] && !can(alg) {
			fmt.Fprintf(&why, " %s cannot", alg)
			continue
		}
		cost := NetCost(coll, alg, leaders, nbytes, m)
		fmt.Fprintf(&why, " %s %s", alg, fmtPS(cost))
		if cost < bestCost && cost+cost/16 < bestCost {
			best, bestCost = alg, cost
		}
	}
	return best, string(best) + " (" + why.String() + ")"
}

// NetChoiceLine writes choose's algorithm per size class of ChoiceSizes as spans, for
// SHMEM_INFO's network line:
//
//	rd 8 B-128 KiB, ring 256 KiB-
func NetChoiceLine(choose func(nbytes int64) Algorithm) string {
	var spans []string
	var cur Algorithm
	from := 0
	for _, n := range ChoiceSizes {
		if a := choose(int64(n)); a != cur {
			if cur != "" {
				spans = append(spans, fmt.Sprintf("%s %s-%s", cur, fmtBytes(int64(from)), fmtBytes(int64(n/2))))
			}
			cur, from = a, n
		}
	}
	return strings.Join(append(spans, fmt.Sprintf("%s %s-", cur, fmtBytes(int64(from)))), ", ")
}
