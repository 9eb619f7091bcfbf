package topology

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Collective names a collective operation for Choose.
type Collective int

const (
	Barrier Collective = iota
	Bcast
	Reduce // the to-all reductions: every PE gets the result
	FCollect
	Collect // variable blocks: costed as FCollect of the largest block
	AllToAll
)

// Collectives lists every Collective, in the order tables print them.
var Collectives = []Collective{Barrier, Bcast, Reduce, FCollect, Collect, AllToAll}

var collNames = [...]string{"barrier", "bcast", "reduce", "fcollect", "collect", "alltoall"}

func (c Collective) String() string {
	if c < 0 || int(c) >= len(collNames) {
		return "Collective(" + strconv.Itoa(int(c)) + ")"
	}
	return collNames[c]
}

// Algorithm is a collective algorithm, by the name SHMEM_<COLL>_ALGORITHM takes.
type Algorithm string

const (
	AlgLinear   Algorithm = "linear"   // everyone works with one root (or every owner) directly
	AlgTree     Algorithm = "tree"     // the hierarchical Tree: socket, L3 domain, PE levels
	AlgDissem   Algorithm = "dissem"   // dissemination barrier over the Ring order
	AlgRing     Algorithm = "ring"     // around the Ring order
	AlgDirect   Algorithm = "direct"   // alltoall: every PE puts its blocks, then a barrier; reduce: each PE reduces its chunk of every source and writes it to every PE
	AlgPairwise Algorithm = "pairwise" // alltoall: round r, get the block of the PE r places back
)

// Algorithms lists the algorithms of c, simplest first; Choose prefers the earlier
// of two that cost nearly the same.
func Algorithms(c Collective) []Algorithm {
	switch c {
	case Barrier:
		return []Algorithm{AlgLinear, AlgTree, AlgDissem}
	case Bcast:
		return []Algorithm{AlgLinear, AlgTree}
	case Reduce:
		return []Algorithm{AlgLinear, AlgTree, AlgDirect, AlgRing}
	case FCollect, Collect:
		return []Algorithm{AlgLinear, AlgRing}
	case AllToAll:
		return []Algorithm{AlgDirect, AlgPairwise}
	}
	panic("topology.Algorithms: unknown collective " + c.String())
}

// ParseAlgorithm checks an algorithm name for c (an SHMEM_*_ALGORITHM value).
func ParseAlgorithm(c Collective, s string) (Algorithm, error) {
	algs := Algorithms(c)
	for _, a := range algs {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(algs))
	for i, a := range algs {
		names[i] = string(a)
	}
	return "", fmt.Errorf("%s algorithm %q: want %s", c, s, strings.Join(names, ", "))
}

// CostModel prices the algorithms of Choose. Everything is integer (picoseconds
// inside), so every PE computes the same numbers from the same map.
//
// Latencies are one-way cache-line hand-offs: a flag written by one PE until a PE
// polling it sees it. Bandwidths are one core reading data another core just
// wrote (a get), in MB/s (10^6 bytes/s); the per-byte cost is their inverse.
// Which pair of each applies depends on how far apart two PEs are (PEPlace): in
// one L3 domain, across L3 domains of a socket, or across sockets (also whenever
// a PE's CPUs span sockets).
//
// What each algorithm is charged (n bytes per PE; N PEs; the root is the first):
//   - readers of one source at once: those in its L3 in parallel (the L3 serves
//     them), those in other L3 domains one after another (they share the source
//     L3's link), likewise those on other sockets (they share the socket link);
//   - barrier linear: N-1 arrivals on one counter, serialized, then one release;
//     tree: each parent polls its children in turn, then releases them;
//     dissem: ceil(log2 N) rounds over the Ring order, each as slow as its
//     slowest pair;
//   - bcast linear: every PE reads the root's buffer; tree: each PE reads its
//     parent's copy once the parent has it;
//   - reduce linear: the root reads and combines the others' vectors in turn, then
//     a linear bcast; tree: each parent combines its children's partial results,
//     then a tree bcast; ring: reduce-scatter then allgather around the Ring,
//     2(N-1) steps of n/N bytes, each step as slow as its slowest link;
//   - fcollect linear: every PE reads every block from its owner; the bytes that
//     cross a socket (or an L3 domain's) link share it; ring: N-1 steps of one
//     block around the Ring;
//   - alltoall direct: each PE stores its N-1 blocks into the peers' buffers in
//     shifted order, fences (its line fetches overlap: the farthest peer's
//     hand-off once), then one barrier; a put moves each line twice (the writer
//     fetches it to own it, the owner later reads it back); pairwise: N-1 rounds
//     in which each PE stores its block into the PE r places on along the Ring
//     and signals it, then waits for the signal of the PE r places back: a
//     hand-off and the block per round, no barrier.
//
// Not modelled: pipelining of large messages, memory bandwidth limits inside a
// socket, PEs sharing a CPU.
//
// LatNet and BWNet are the network level (one PE to a PE on another node, through the
// multi-node engine). Choose does not use them: a collective that spans nodes is composed
// of node phases, which Choose prices, and a network phase among the node leaders, whose
// broadcasts, reductions and allgathers NetChoose prices with them (netcost.go); the
// barrier's (dissemination) and alltoall's (each leader's blocks straight to their owners)
// have one algorithm each (runtime/hier.go, alltoall.go).
type CostModel struct {
	LatL3, LatCrossL3, LatSocket time.Duration
	BWL3, BWCrossL3, BWSocket    int64 // MB/s
	LatNet                       time.Duration
	BWNet                        int64 // MB/s
	BWCombine                    int64 // MB/s of one operand combined in cache (dst op= src)
	TreeRadix                    int   // fan-out of each level of the tree (SHMEM_COLL_RADIX)
	EagerRegion                  int64 // bytes of a sync area that carry eager messages (0: none)
	// PollFirst: the 2-PE barrier's wait for the other PE, right after storing its own flag
	// in their shared line, loads that line at once, else it pauses first. Not a price:
	// which of the two is faster is a property of the machine, measured by the calibration
	// (calibrate.PairBarrier); the default pauses first.
	PollFirst bool
}

// DefaultCostModel is the model measured on the development machine, a VM with
// 2 Zen 5 vCPUs whose two CPUs the host puts sometimes in one L3 (CCX) and
// sometimes in two: the benchmarks in costmodel_linux_test.go see both modes, and
// each gives one level (medians of the per-run medians; the runs and the method
// are in topology/testdata/README.md). It has one socket, so that level is assumed:
//
//	LatL3      =  47ns        hand-off in the one-L3 mode    (BenchmarkLineHandoff p50)
//	LatCrossL3 = 215ns        hand-off in the two-L3 mode
//	LatSocket  = 430ns        assumed: 2 × LatCrossL3
//	BWL3       = 54000 MB/s   copy of 256 KiB the other CPU just wrote, one-L3 mode (BenchmarkPeerRead p50)
//	BWCrossL3  = 24000 MB/s   the same, two-L3 mode
//	BWSocket   = 12000 MB/s   assumed: BWCrossL3 / 2
//	BWCombine  = 18000 MB/s   float64 dst += src in cache, pure Go (BenchmarkCombine; the AVX kernels are faster)
//	LatNet     = 2us          assumed: a put and its completion over an HPC fabric (InfiniBand EDR/HDR through UCX)
//	BWNet      = 12000 MB/s   assumed: 100 Gb/s
//	TreeRadix  = 4            SOS's default radix
//	PollFirst  = false        the 2-PE barrier pauses before its first poll: on a Zen 2 VM (one
//	                          L3) it took 0.050 us so, 0.072 loading at once (the loads
//	                          competed for the line the barrier's own store was taking)
func DefaultCostModel() CostModel {
	return CostModel{
		LatL3: 47 * time.Nanosecond, LatCrossL3: 215 * time.Nanosecond, LatSocket: 430 * time.Nanosecond,
		BWL3: 54000, BWCrossL3: 24000, BWSocket: 12000,
		LatNet: 2 * time.Microsecond, BWNet: 12000,
		BWCombine:   90000, // the AVX-512 int32 sum kernel in cache (bench/KERNELS.md)
		TreeRadix:   4,
		EagerRegion: 192 * 8, // the runtime's eager words of a sync area
	}
}

func (m CostModel) check(routine string) {
	if m.LatL3 < 0 || m.LatCrossL3 < 0 || m.LatSocket < 0 || m.LatNet < 0 {
		panic(routine + ": CostModel latencies must not be negative")
	}
	if m.BWL3 <= 0 || m.BWCrossL3 <= 0 || m.BWSocket <= 0 || m.BWCombine <= 0 || m.BWNet <= 0 {
		panic(routine + ": CostModel bandwidths must be positive")
	}
	if m.TreeRadix < 2 {
		panic(routine + ": CostModel.TreeRadix must be at least 2")
	}
}

// Choose picks the algorithm of coll for the PEs whose placement-map entries are
// pes (in team order; the first is the root where there is one) at nbytes per PE
// (bcast: the message; reduce: each PE's vector; fcollect/collect: each PE's
// block, the largest for collect; alltoall: each block; barrier: ignored), and
// says why, with the estimate of every candidate. An algorithm later in
// Algorithms replaces an earlier one only when more than 1/16 cheaper. Choose
// itself costs O(N²) for fcollect and alltoall: cache the verdict per team and
// size class.
func Choose(coll Collective, pes []PEPlace, nbytes int, m CostModel) (Algorithm, string) {
	m.check("topology.Choose")
	algs := Algorithms(coll)
	if len(pes) <= 1 {
		return algs[0], fmt.Sprintf("%s: %d PE, nothing to exchange", algs[0], len(pes))
	}
	if nbytes < 0 {
		panic(fmt.Sprintf("topology.Choose: negative size %d", nbytes))
	}
	e := newEstimator(pes, m)
	costs := make([]int64, len(algs))
	best := 0
	for i, a := range algs {
		costs[i] = e.cost(coll, a, int64(nbytes))
		// A later, more elaborate algorithm must win by more than 1/16: closer
		// than that, the model cannot tell them apart.
		if costs[i] < costs[best] && costs[i]+costs[i]/16 < costs[best] {
			best = i
		}
	}
	var why strings.Builder
	fmt.Fprintf(&why, "%s %s", algs[best], fmtPS(costs[best]))
	var others []string
	for i, a := range algs {
		if i != best {
			others = append(others, fmt.Sprintf("%s %s", a, fmtPS(costs[i])))
		}
	}
	fmt.Fprintf(&why, " (%s) for %s", strings.Join(others, ", "), e.shape())
	if coll != Barrier {
		fmt.Fprintf(&why, " at %s", fmtBytes(int64(nbytes)))
	}
	return algs[best], why.String()
}

// Estimate is the model's time for coll run with alg over pes at nbytes.
func Estimate(coll Collective, alg Algorithm, pes []PEPlace, nbytes int, m CostModel) time.Duration {
	m.check("topology.Estimate")
	if _, err := ParseAlgorithm(coll, string(alg)); err != nil {
		panic("topology.Estimate: " + err.Error())
	}
	if len(pes) <= 1 {
		return 0
	}
	return time.Duration(newEstimator(pes, m).cost(coll, alg, int64(nbytes)) / 1000)
}

// estimator prices algorithms over one set of PEs, by position.
type estimator struct {
	pes  []PEPlace
	m    CostModel
	ring []int      // positions in Ring order
	tree []TreeNode // by position
	all  []int      // 0..N-1
}

func newEstimator(pes []PEPlace, m CostModel) *estimator {
	e := &estimator{pes: pes, m: m, all: make([]int, len(pes))}
	for i := range e.all {
		e.all[i] = i
	}
	e.ring = Ring(pes, e.all)
	e.tree = Tree(pes, e.all, m.TreeRadix)
	return e
}

func (e *estimator) shape() string {
	groups := Groups(e.pes, e.all)
	l3 := 0
	for _, g := range groups {
		l3 += len(g.L3)
	}
	return fmt.Sprintf("%d PEs on %s, %s", len(e.pes), plural(len(groups), "socket"), plural(l3, "L3 domain"))
}

func plural(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return strconv.Itoa(n) + " " + what
}

func (e *estimator) lat(i, j int) int64 {
	switch distance(e.pes[i], e.pes[j]) {
	case sameL3:
		return e.m.LatL3.Nanoseconds() * 1000
	case crossL3:
		return e.m.LatCrossL3.Nanoseconds() * 1000
	}
	return e.m.LatSocket.Nanoseconds() * 1000
}

func (e *estimator) bw(l level) int64 {
	switch l {
	case sameL3:
		return e.m.BWL3
	case crossL3:
		return e.m.BWCrossL3
	}
	return e.m.BWSocket
}

// xfer is the time for j to read n bytes from i.
func (e *estimator) xfer(i, j int, n int64) int64 {
	return e.move(n, distance(e.pes[i], e.pes[j]))
}

// move is the time to move n bytes over a level: whole cache lines, because
// that is what the coherence protocol moves.
func (e *estimator) move(n int64, l level) int64 {
	return xferPS((n+lineSize-1)/lineSize*lineSize, e.bw(l))
}

const lineSize = 64

func (e *estimator) combine(n int64) int64 { return xferPS(n, e.m.BWCombine) }

// xferPS is n bytes at mbps MB/s in picoseconds (1 byte at 1 MB/s is 10^6 ps),
// saturating rather than overflowing.
func xferPS(n, mbps int64) int64 {
	if n <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), 1_000_000)
	if hi >= uint64(mbps) {
		return maxCost
	}
	q, _ := bits.Div64(hi, lo, uint64(mbps))
	if q > maxCost {
		return maxCost
	}
	return int64(q)
}

const maxCost = 1 << 62

func add(a, b int64) int64 {
	if a > maxCost-b {
		return maxCost
	}
	return a + b
}

func mul(k, a int64) int64 {
	if k > 0 && a > maxCost/k {
		return maxCost
	}
	return k * a
}

func (e *estimator) cost(c Collective, a Algorithm, n int64) int64 {
	switch {
	case c == Barrier && a == AlgLinear:
		return e.barrierLinear()
	case c == Barrier && a == AlgTree:
		return e.treeGather(0) + e.treeSpread(0)
	case c == Barrier && a == AlgDissem:
		return e.dissem()
	case c == Bcast && a == AlgLinear:
		return e.fanoutMax(0, e.all[1:], n)
	case c == Bcast && a == AlgTree:
		return e.treeSpread(n)
	case c == Reduce && a == AlgLinear:
		// Every PE reads every other's vector and combines them all itself: as eager
		// messages in its sync area up to ReduceEagerMax (no barrier), else straight from
		// the peers' sources between two barriers.
		t := add(e.allPairsSerial(n, 1), mul(int64(len(e.pes)-1), e.combine(n)))
		if n > ReduceEagerMax(len(e.pes), e.eagerCap()) {
			t = add(t, 2*e.dissem())
		}
		return t
	case c == Reduce && a == AlgTree:
		// Up, down, then the children's acknowledgements (a parent's dst must stay put until
		// its children copied it), a wave like a barrier's release: at 2 PEs three
		// hand-offs in a row where linear pays one exchange (measured here: 0.88 us
		// against 0.46 us at 8 B, 3.75 against 0.76 at 16 KiB).
		return add(add(e.treeGather(n), e.treeSpread(n)), e.treeSpread(0))
	case c == Reduce && a == AlgDirect:
		// A barrier; each PE reads its chunk from every peer and writes the result to every
		// peer (the owners read it after the call); a barrier. No step waits on another's.
		// The closing barrier's signal is seen only after the writes into the peers' dst
		// have drained from the store buffer: the last line's fetch, half a hand-off more
		// than linear's two barriers around local writes pay. Without it the model chose
		// direct from 2-4 KiB at 2 PEs, where linear was as fast up to 16 KiB (slow mode;
		// direct 15% faster from 32 KiB).
		chunk := (n + int64(len(e.pes)) - 1) / int64(len(e.pes))
		move := max(e.allPairsSerial(chunk, 2), e.linkTime(2*chunk))
		return add(add(2*e.dissem()+e.farthest()/2, move), mul(int64(len(e.pes)-1), e.combine(chunk)))
	case c == Reduce && a == AlgRing:
		// 2(N-1) dependent steps; each waits for the predecessor's flag (a hand-off) and
		// then moves its chunk (ringStep: a hand-off and the data).
		chunk := (n + int64(len(e.pes)) - 1) / int64(len(e.pes))
		step := add(e.ringStep(chunk), e.ringStep(0))
		return mul(int64(len(e.pes)-1), add(2*step, e.combine(chunk)))
	case (c == FCollect || c == Collect) && a == AlgLinear:
		return max(e.allPairsSerial(n, 1), e.linkTime(n))
	case (c == FCollect || c == Collect) && a == AlgRing:
		return mul(int64(len(e.pes)-1), e.ringStep(n))
	case c == AllToAll && a == AlgDirect:
		return add(e.dissem(), max(e.putsAll(n), e.linkTime(n)))
	case c == AllToAll && a == AlgPairwise:
		// At 2 PEs one hand-off where direct pays its fence's and a barrier's: pairwise
		// measured 0.14 us against direct's 0.15-0.17 for 8-512 B (Zen 5 VM), and never
		// slower; from 4 PEs its N-1 waits cost more than direct's log2(N) barrier rounds.
		return max(e.pairwiseRounds(n), e.linkTime(n))
	}
	panic("topology: no cost for " + c.String() + " " + string(a))
}

func (e *estimator) barrierLinear() int64 {
	var arrive, release int64
	for p := 1; p < len(e.pes); p++ {
		arrive += e.lat(p, 0)
		release = max(release, e.lat(0, p))
	}
	return arrive + release
}

// fanout is when each of readers has read n bytes from src, all starting at once.
func (e *estimator) fanout(src int, readers []int, n int64) []int64 {
	out := make([]int64, len(readers))
	var queued [3]int64 // readers so far per level: L3 ones run in parallel
	for i, r := range readers {
		l := distance(e.pes[src], e.pes[r])
		queued[l]++
		k := queued[l]
		if l == sameL3 {
			k = 1
		}
		out[i] = add(e.lat(src, r), mul(k, e.move(n, l)))
	}
	return out
}

func (e *estimator) fanoutMax(src int, readers []int, n int64) int64 {
	var t int64
	for _, f := range e.fanout(src, readers, n) {
		t = max(t, f)
	}
	return t
}

// treeGather is when the root has every contribution: a parent takes its
// children in turn, each once it is ready (n = 0: a barrier's arrival flags).
func (e *estimator) treeGather(n int64) int64 {
	var up func(v int) int64
	up = func(v int) int64 {
		var t int64
		for _, c := range e.tree[v].Children {
			t = add(max(t, up(c)), e.lat(c, v)+e.xfer(c, v, n))
			if n > 0 {
				t = add(t, e.combine(n))
			}
		}
		return t
	}
	return up(0)
}

// treeSpread is when every PE has the root's n bytes, each reading from its
// parent once the parent has them (n = 0: a barrier's release).
func (e *estimator) treeSpread(n int64) int64 {
	var last int64
	var down func(v int, start int64)
	down = func(v int, start int64) {
		last = max(last, start)
		kids := e.tree[v].Children
		for i, f := range e.fanout(v, kids, n) {
			down(kids[i], add(start, f))
		}
	}
	down(0, 0)
	return last
}

// farthest is the longest hand-off between two of the PEs.
func (e *estimator) farthest() int64 {
	var t int64
	for i := range e.pes {
		for j := range e.pes {
			t = max(t, e.lat(i, j))
		}
	}
	return t
}

func (e *estimator) dissem() int64 {
	var t int64
	n := len(e.ring)
	for d := 1; d < n; d *= 2 {
		var round int64
		for i := range e.ring {
			round = max(round, e.lat(e.ring[i], e.ring[(i+d)%n]))
		}
		t += round
	}
	return t
}

// eagerCap is the bytes one eager message may carry at this PE count: the eager region
// split into one slot per other PE, whole cache lines, less the slot's flag word.
func (e *estimator) eagerCap() int64 {
	k := int64(len(e.pes) - 1)
	if k < 1 || e.m.EagerRegion <= 0 {
		return 0
	}
	slot := e.m.EagerRegion / k / 64 * 64
	return max(slot-8, 0)
}

// ReduceEagerMax is the largest vector (bytes) that a linear reduction over npes PEs sends
// as eager messages, whose slots hold up to slotCap bytes; a larger one is read from the
// peers' sources between two barriers. An eager message's lines cross twice (the sender
// takes each from the receiver's cache, the receiver takes it back), a read in place's at
// most once, and not at all while the source stays unchanged, as in a benchmark's loop. At
// 2 PEs (Intel Xeon VM, reduce_int_sum, mean over PEs, eager / read in place) with the
// source kept and with it written before each call: 256 B 0.405 / 0.402 and 0.403 / 0.415
// us; 512 B 0.567 / 0.436 and 0.567 / 0.686; 1 KiB 0.726 / 0.437 and 0.753 / 0.857. Above
// 256 B eager loses 1.3-1.7x where the source is kept and wins 1.13-1.2x where it is
// rewritten, so the read in place has the smaller worst case. Other PE counts, where the
// barriers take more rounds and the slots are smaller, keep the slot's capacity.
func ReduceEagerMax(npes int, slotCap int64) int64 {
	if npes == 2 {
		return min(slotCap, reduceEagerMax2)
	}
	return slotCap
}

const reduceEagerMax2 = 256

// ringStep is one step around the Ring: every PE reads n bytes from the one
// before it, as slow as the slowest link.
func (e *estimator) ringStep(n int64) int64 {
	var t int64
	k := len(e.ring)
	for i := range e.ring {
		from, to := e.ring[(i+k-1)%k], e.ring[i]
		t = max(t, e.lat(from, to)+e.xfer(from, to, n))
	}
	return t
}

// allPairsSerial is the slowest PE's time to read (times = 1) or put (times = 2)
// one n-byte block from or to every other PE in turn.
func (e *estimator) allPairsSerial(n int64, times int64) int64 {
	var worst int64
	for me := range e.pes {
		var count [3]int64
		for o := range e.pes {
			if o != me {
				count[distance(e.pes[me], e.pes[o])]++
			}
		}
		var t int64
		lats := [3]int64{e.m.LatL3.Nanoseconds() * 1000, e.m.LatCrossL3.Nanoseconds() * 1000, e.m.LatSocket.Nanoseconds() * 1000}
		for l := sameL3; l <= crossSocket; l++ {
			t = add(t, mul(count[l], add(lats[l], mul(times, e.move(n, l)))))
		}
		worst = max(worst, t)
	}
	return worst
}

// linkTime is the busiest link's time when every PE exchanges n bytes with every
// other: a socket's link carries N_s·(N-N_s) blocks each way, an L3 domain's
// N_l·(N_s-N_l) within its socket.
func (e *estimator) linkTime(n int64) int64 {
	var t int64
	total := int64(len(e.pes))
	for _, s := range Groups(e.pes, e.all) {
		var ns int64
		for _, l := range s.L3 {
			ns += int64(len(l.PEs))
		}
		if s.Socket < 0 {
			// PEs spanning sockets: every block they exchange may cross.
			t = max(t, xferPS(mul(mul(ns, total-1), n), e.m.BWSocket))
		} else {
			t = max(t, xferPS(mul(mul(ns, total-ns), n), e.m.BWSocket))
		}
		for _, l := range s.L3 {
			nl := int64(len(l.PEs))
			t = max(t, xferPS(mul(mul(nl, ns-nl), n), e.m.BWCrossL3))
		}
	}
	return t
}

// pairwiseRounds is N-1 rounds; in round r each PE stores its block into the PE r
// places on along the Ring (each line moved twice) and waits for the signal of the PE
// r places back, and a round is as slow as its slowest pair.
func (e *estimator) pairwiseRounds(n int64) int64 {
	var t int64
	k := len(e.ring)
	for r := 1; r < k; r++ {
		var round int64
		for i := range e.ring {
			from, to := e.ring[(i+k-r)%k], e.ring[i]
			round = max(round, add(e.lat(from, to), mul(2, e.xfer(from, to, n))))
		}
		t = add(t, round)
	}
	return t
}

// putsAll is when every PE has stored its block of n bytes into every other PE's buffer
// and its fence has returned: the stores' line fetches overlap, so the farthest peer's
// hand-off counts once, and each line moves twice (fetched to be owned, read back later
// by its owner) at its level's bandwidth.
func (e *estimator) putsAll(n int64) int64 {
	var worst int64
	for me := range e.pes {
		var far, t int64
		for o := range e.pes {
			if o != me {
				far = max(far, e.lat(me, o))
				t = add(t, mul(2, e.xfer(me, o, n)))
			}
		}
		worst = max(worst, add(far, t))
	}
	return worst
}

// fmtPS writes picoseconds as ns, us or ms, with one decimal below 100.
func fmtPS(ps int64) string {
	if ps >= maxCost {
		return "overflow"
	}
	units := []struct {
		div  int64
		name string
	}{{1_000_000_000, "ms"}, {1_000_000, "us"}, {1_000, "ns"}}
	for _, u := range units {
		if ps >= u.div || u.name == "ns" {
			return fixed(ps, u.div) + u.name
		}
	}
	return ""
}

// fixed writes v/div with one decimal below 100, none above, rounding half up.
func fixed(v, div int64) string {
	tenths := (v*10 + div/2) / div
	if v >= 100*div {
		return strconv.FormatInt((v+div/2)/div, 10)
	}
	if tenths%10 == 0 {
		return strconv.FormatInt(tenths/10, 10)
	}
	return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10)
}

// fmtBytes writes a size with binary units: "8 B", "4 KiB", "38.5 MiB".
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fixed(n, 1<<30) + " GiB"
	case n >= 1<<20:
		return fixed(n, 1<<20) + " MiB"
	case n >= 1<<10:
		return fixed(n, 1<<10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// ChoiceSizes are the message sizes ChoiceTable tries: powers of two, 8 B to 64 MiB.
var ChoiceSizes = func() []int {
	var out []int
	for n := 8; n <= 64<<20; n *= 2 {
		out = append(out, n)
	}
	return out
}()

// ChoiceTable prints, one line per collective, the algorithm Choose picks for
// each size class of ChoiceSizes (for SHMEM_INFO=1 and shmemrun --dry-run):
//
//	reduce    linear 8 B-256 B, tree 512 B-64 KiB, ring 128 KiB-
func ChoiceTable(pes []PEPlace, m CostModel) string { return ChoiceTableTuned(pes, m, nil) }

// ChoiceTableTuned is ChoiceTable with a tuning table consulted first (ChooseTuned); with
// a table, each span says which source chose it:
//
//	bcast     linear 8 B-1 MiB (table), tree 2 MiB- (model)
func ChoiceTableTuned(pes []PEPlace, m CostModel, t *Table) string {
	var out strings.Builder
	for _, c := range Collectives {
		fmt.Fprintf(&out, "%-9s", c)
		if c == Barrier {
			a, src := ChooseTuned(c, pes, 0, m, t)
			fmt.Fprintf(&out, " %s%s\n", a, srcTag(t, src))
			continue
		}
		var spans []string
		var cur Algorithm
		var curSrc string
		from := 0
		flush := func(to int, last bool) {
			if cur == "" {
				return
			}
			span := fmt.Sprintf("%s %s-", cur, fmtBytes(int64(from)))
			if !last {
				span += fmtBytes(int64(to))
			}
			if !last && from == to && t != nil {
				span = fmt.Sprintf("%s %s", cur, fmtBytes(int64(from)))
			}
			spans = append(spans, span+srcTag(t, curSrc))
		}
		prev := 0
		for _, n := range ChoiceSizes {
			a, src := ChooseTuned(c, pes, n, m, t)
			if a != cur || src != curSrc {
				flush(prev, false)
				cur, curSrc, from = a, src, n
			}
			prev = n
		}
		flush(prev, true)
		fmt.Fprintf(&out, " %s\n", strings.Join(spans, ", "))
	}
	return out.String()
}

func srcTag(t *Table, src string) string {
	if t == nil {
		return ""
	}
	return " (" + src + ")"
}

// ChooseTuned is the table's algorithm for coll at nbytes when a rule of t covers it
// (source "table"), else Choose's (source "model"). t may be nil.
func ChooseTuned(coll Collective, pes []PEPlace, nbytes int, m CostModel, t *Table) (Algorithm, string) {
	if len(pes) > 1 {
		if a, ok := t.Lookup(coll, int64(nbytes)); ok {
			return a, "table"
		}
	}
	a, _ := Choose(coll, pes, nbytes, m)
	return a, "model"
}
