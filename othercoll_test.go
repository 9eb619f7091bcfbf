package shmem_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/goshmem/shmem"
)

// Alltoall(s), broadcast, collect and fcollect against serial references, in both APIs.

// word is a value that names its origin: PE, case and element.
func word(seed uint64, pe, i int) uint64 { return mix(seed^uint64(pe)<<40) ^ uint64(i) }

func alltoallCase[T shmem.Word64 | shmem.Word32](set32 bool) func(*testing.T, *collCase) {
	return func(t *testing.T, c *collCase) {
		set := randomSet(c.rng, c.n)
		nb := c.size(2000)
		ds, ss := 1+c.rng.IntN(4), 1+c.rng.IntN(4)
		if c.rng.IntN(3) == 0 {
			ds, ss = 1, 1
		}
		useTeam := c.rng.IntN(3) == 0
		seed := c.rng.Uint64()
		span := func(stride int) int { return max((set.Size*nb-1)*stride+1, 1) }
		src := mustAlloc[T](t, span(ss))
		dst := mustAlloc[T](t, span(ds))
		conv := func(x uint64) T { return *(*T)(ptrOf(&x)) }
		for i := range src {
			src[i] = conv(word(seed, c.me, i))
		}
		for i := range dst {
			dst[i] = conv(^word(seed, c.me, i))
		}
		var team shmem.Team
		if useTeam {
			team, _ = shmem.TeamWorld().SplitStrided(set.Start, 1<<set.LogStride, set.Size, nil)
		}
		shmem.BarrierAll()
		what := fmt.Sprintf("trial %d: alltoalls %T over %+v, %d per PE, strides dst %d src %d, team %v", c.trial, *new(T), set, nb, ds, ss, useTeam)
		mi := index(set, c.me)
		if mi >= 0 {
			switch {
			case useTeam:
				if err := shmem.AllToAllS(team, dst, src, ds, ss, nb); err != nil {
					t.Fatal(err)
				}
			case ds == 1 && ss == 1:
				alltoallUnit(dst, src, nb, set, c.pSync[c.trial%2])
			default:
				alltoallStrided(dst, src, ds, ss, nb, set, c.pSync[c.trial%2])
			}
			// Block i of dst comes from member i's block mi.
			ms := members(set)
			want := make(map[int]T)
			for i, pe := range ms {
				for k := range nb {
					want[(i*nb+k)*ds] = conv(word(seed, pe, (mi*nb+k)*ss))
				}
			}
			for e := range dst {
				w, ok := want[e]
				if !ok {
					w = conv(^word(seed, c.me, e)) // between strided elements: untouched
				}
				if !sameBits(dst[e], w) {
					t.Fatalf("%s: dst[%d] = %v, want %v", what, e, dst[e], w)
				}
			}
		} else {
			for e := range dst {
				if !sameBits(dst[e], conv(^word(seed, c.me, e))) {
					t.Fatalf("%s: PE %d is outside the set, but dst[%d] changed", what, c.me, e)
				}
			}
		}
		if team.Valid() {
			team.Destroy()
		}
		shmem.BarrierAll()
		shmem.Free(dst)
		shmem.Free(src)
	}
}

// The 32- and 64-bit active-set entry points for whichever width T has.
func alltoallUnit[T shmem.Word64 | shmem.Word32](dst, src []T, n int, set shmem.ActiveSet, pSync []int64) {
	switch d := any(dst).(type) {
	case []uint32:
		shmem.AllToAll32(d, any(src).([]uint32), n, set, pSync)
	case []float32:
		shmem.AllToAll32(d, any(src).([]float32), n, set, pSync)
	case []int64:
		shmem.AllToAll64(d, any(src).([]int64), n, set, pSync)
	case []complex64:
		shmem.AllToAll64(d, any(src).([]complex64), n, set, pSync)
	default:
		panic(fmt.Sprintf("no case for %T", dst))
	}
}

func alltoallStrided[T shmem.Word64 | shmem.Word32](dst, src []T, ds, ss, n int, set shmem.ActiveSet, pSync []int64) {
	switch d := any(dst).(type) {
	case []uint32:
		shmem.AllToAllS32(d, any(src).([]uint32), ds, ss, n, set, pSync)
	case []float32:
		shmem.AllToAllS32(d, any(src).([]float32), ds, ss, n, set, pSync)
	case []int64:
		shmem.AllToAllS64(d, any(src).([]int64), ds, ss, n, set, pSync)
	case []complex64:
		shmem.AllToAllS64(d, any(src).([]complex64), ds, ss, n, set, pSync)
	default:
		panic(fmt.Sprintf("no case for %T", dst))
	}
}

func TestAlltoall(t *testing.T) {
	kinds := []func(*testing.T, *collCase){alltoallCase[int64](false), alltoallCase[uint32](true), alltoallCase[float32](true), alltoallCase[complex64](false)}
	for _, alg := range []string{"direct", "pairwise"} {
		t.Run(alg, func(t *testing.T) {
			collJob(t, []string{"SHMEM_ALLTOALL_ALGORITHM=" + alg}, 60, kinds, 1, 2, 3, 5, 8)
		})
	}
}

// bcastCase broadcasts from a random root; the active-set form leaves the root's dst alone.
func bcastCase[T shmem.Word64 | shmem.Word32](t *testing.T, c *collCase) {
	set := randomSet(c.rng, c.n)
	nb := c.size(50_000)
	root := c.rng.IntN(set.Size)
	useTeam := c.rng.IntN(3) == 0
	seed := c.rng.Uint64()
	src := mustAlloc[T](t, max(nb, 1))
	dst := mustAlloc[T](t, max(nb, 1))
	conv := func(x uint64) T { return *(*T)(ptrOf(&x)) }
	for i := range src {
		src[i] = conv(word(seed, c.me, i))
		dst[i] = conv(^word(seed, c.me, i))
	}
	var team shmem.Team
	if useTeam {
		team, _ = shmem.TeamWorld().SplitStrided(set.Start, 1<<set.LogStride, set.Size, nil)
	}
	shmem.BarrierAll()
	what := fmt.Sprintf("trial %d: broadcast %T over %+v from member %d, %d elements, team %v", c.trial, *new(T), set, root, nb, useTeam)
	mi := index(set, c.me)
	if mi >= 0 {
		if useTeam {
			if err := shmem.Broadcast(team, dst[:nb], src, root); err != nil {
				t.Fatal(err)
			}
		} else if _, ok := any(src).([]uint32); ok {
			shmem.Broadcast32(any(dst).([]uint32), any(src).([]uint32), nb, root, set, c.pSync[c.trial%2])
		} else {
			shmem.Broadcast64(any(dst).([]int64), any(src).([]int64), nb, root, set, c.pSync[c.trial%2])
		}
	}
	rootPE := members(set)[root]
	for i := range nb {
		w := conv(^word(seed, c.me, i))
		if mi >= 0 && (mi != root || useTeam) {
			w = conv(word(seed, rootPE, i))
		}
		if !sameBits(dst[i], w) {
			t.Fatalf("%s: PE %d dst[%d] = %v, want %v", what, c.me, i, dst[i], w)
		}
	}
	if team.Valid() {
		team.Destroy()
	}
	shmem.BarrierAll()
	shmem.Free(dst)
	shmem.Free(src)
}

// collectCase concatenates; in collect every member contributes its own count.
func collectCase[T shmem.Word64 | shmem.Word32](t *testing.T, c *collCase) {
	set := randomSet(c.rng, c.n)
	fixed := c.rng.IntN(2) == 0
	counts := make([]int, c.n)
	base := c.size(20_000)
	for pe := range counts {
		counts[pe] = base
		if !fixed {
			counts[pe] = c.rng.IntN(base + 1)
		}
	}
	useTeam := c.rng.IntN(3) == 0
	seed := c.rng.Uint64()
	total := 0
	for _, pe := range members(set) {
		total += counts[pe]
	}
	// Symmetric allocations have one size everywhere: the largest count; each PE passes its own.
	src := mustAlloc[T](t, slices.Max(counts))[:counts[c.me]]
	dst := mustAlloc[T](t, total+1)
	conv := func(x uint64) T { return *(*T)(ptrOf(&x)) }
	for i := range src {
		src[i] = conv(word(seed, c.me, i))
	}
	guard := conv(^seed)
	dst[total] = guard
	var team shmem.Team
	if useTeam {
		team, _ = shmem.TeamWorld().SplitStrided(set.Start, 1<<set.LogStride, set.Size, nil)
	}
	shmem.BarrierAll()
	what := fmt.Sprintf("trial %d: collect (fixed %v) %T over %+v, team %v", c.trial, fixed, *new(T), set, useTeam)
	if index(set, c.me) >= 0 {
		d := dst[:total]
		switch {
		case useTeam && fixed:
			if err := shmem.FCollect(team, d, src); err != nil {
				t.Fatal(err)
			}
		case useTeam:
			if err := shmem.Collect(team, d, src); err != nil {
				t.Fatal(err)
			}
		default:
			ps := c.pSync[c.trial%2]
			switch s := any(src).(type) {
			case []uint32:
				if fixed {
					shmem.FCollect32(any(d).([]uint32), s, set, ps)
				} else {
					shmem.Collect32(any(d).([]uint32), s, set, ps)
				}
			case []int64:
				if fixed {
					shmem.FCollect64(any(d).([]int64), s, set, ps)
				} else {
					shmem.Collect64(any(d).([]int64), s, set, ps)
				}
			}
		}
		off := 0
		for _, pe := range members(set) {
			for i := range counts[pe] {
				if w := conv(word(seed, pe, i)); !sameBits(dst[off+i], w) {
					t.Fatalf("%s: dst[%d] (PE %d's element %d) = %v, want %v", what, off+i, pe, i, dst[off+i], w)
				}
			}
			off += counts[pe]
		}
		if !sameBits(dst[total], guard) {
			t.Fatalf("%s: wrote past the total", what)
		}
		for i, v := range c.pSync[c.trial%2] {
			if v != shmem.SyncValue {
				t.Fatalf("%s: pSync[%d] = %d on return", what, i, v)
			}
		}
	}
	if team.Valid() {
		team.Destroy()
	}
	shmem.BarrierAll()
	shmem.Free(dst)
	shmem.Free(src)
}

func TestBroadcast(t *testing.T) {
	for _, alg := range []string{"linear", "tree"} {
		t.Run(alg, func(t *testing.T) {
			collJob(t, []string{"SHMEM_BCAST_ALGORITHM=" + alg, "SHMEM_COLL_RADIX=2"}, 40, []func(*testing.T, *collCase){bcastCase[int64], bcastCase[uint32]}, 1, 2, 3, 5, 8)
		})
	}
}

func TestCollect(t *testing.T) {
	for _, alg := range []string{"linear", "ring"} {
		t.Run(alg, func(t *testing.T) {
			collJob(t, []string{"SHMEM_FCOLLECT_ALGORITHM=" + alg}, 40, []func(*testing.T, *collCase){collectCase[int64], collectCase[uint32]}, 1, 2, 3, 5, 8)
		})
	}
}

// The root of a small broadcast returns once its message is in the members' eager slots, so
// it runs ahead of members that dawdle between calls: its next messages must wait for the
// slots to empty, never overwrite one not yet read. Active-set broadcasts on two pSyncs in
// turn (the reuse the rules allow), then team broadcasts with team reductions between (their
// eager messages share the slots); the root changes its source as soon as a call returns.
func TestBroadcastRunAhead(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const calls = 300
		pSync := [2][]int64{mustAlloc[int64](t, shmem.BcastSyncSize), mustAlloc[int64](t, shmem.BcastSyncSize)}
		src, dst := mustAlloc[int64](t, 16), mustAlloc[int64](t, 16)
		rsrc, rdst := mustAlloc[int64](t, 4), mustAlloc[int64](t, 4)
		value := func(call, root, k int) int64 { return int64(call)<<32 | int64(root)<<16 | int64(k) }
		world := shmem.TeamWorld()
		all := shmem.ActiveSet{Start: 0, LogStride: 0, Size: n}
		for call := range 2 * calls {
			root := call / 50 % n
			m := 1 + call%16
			if me == root {
				for k := range m {
					src[k] = value(call, root, k)
				}
			} else {
				dawdle(call, n, me, root)
			}
			if call < calls {
				shmem.Broadcast64(dst, src, m, root, all, pSync[call%2])
			} else if call%3 == 0 {
				sumReduceCheck(t, world, call, me, n, rsrc, rdst)
				continue
			} else if err := shmem.Broadcast(world, dst[:m], src, root); err != nil {
				t.Fatal(err)
			}
			for k := range m {
				if want := value(call, root, k); dst[k] != want && me != root {
					t.Fatalf("PE %d call %d (root %d, %d elements): dst[%d] = %#x, want %#x", me, call, root, m, k, dst[k], want)
				}
			}
			if me == root {
				clear(src) // the source is the root's again as soon as the call returns
			}
		}
		shmem.BarrierAll()
	})
}

var sink int

// Collect's counts travel with the blocks across nodes when both fit one message, the
// blocks again on their own when some node's do not (GOSHMEM_NET_EAGER, 64 KiB by
// default): every mix of small, empty and large contributions, on a team and on a pSync.
func TestCollectUneven(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const small, large = 3, 9000 // int64 elements: 24 B and 72 000 B
		patterns := []struct {
			name  string
			count func(pe int) int
		}{
			{"all small", func(int) int { return small }},
			{"all large", func(int) int { return large }},
			{"first large", func(pe int) int { return map[bool]int{true: large, false: small}[pe == 0] }},
			{"last large", func(pe int) int { return map[bool]int{true: large, false: small}[pe == n-1] }},
			{"one non-empty", func(pe int) int { return map[bool]int{true: small, false: 0}[pe == n/2] }},
			{"all empty", func(int) int { return 0 }},
		}
		src := mustAlloc[int64](t, large)
		dst := mustAlloc[int64](t, n*large+1)
		pSync := mustAlloc[int64](t, shmem.CollectSyncSize)
		for k := range pSync {
			pSync[k] = shmem.SyncValue
		}
		shmem.BarrierAll()
		for trial, p := range patterns {
			for _, onTeam := range []bool{true, false} {
				seed := uint64(trial)<<1 | map[bool]uint64{true: 1}[onTeam]
				mine := src[:p.count(me)]
				for i := range mine {
					mine[i] = int64(word(seed, me, i))
				}
				total := 0
				for pe := range n {
					total += p.count(pe)
				}
				dst[total] = -1
				if onTeam {
					if err := shmem.Collect(shmem.TeamWorld(), dst[:total], mine); err != nil {
						t.Fatal(err)
					}
				} else {
					shmem.Collect64(dst[:total], mine, shmem.ActiveSet{Size: n}, pSync)
				}
				off := 0
				for pe := range n {
					for i := range p.count(pe) {
						if got, want := dst[off+i], int64(word(seed, pe, i)); got != want {
							t.Fatalf("%s, team %v: dst[%d] (PE %d's element %d) = %#x, want %#x", p.name, onTeam, off+i, pe, i, got, want)
						}
					}
					off += p.count(pe)
				}
				if dst[total] != -1 {
					t.Fatalf("%s, team %v: wrote past the total", p.name, onTeam)
				}
				for k, v := range pSync {
					if v != shmem.SyncValue {
						t.Fatalf("%s: pSync[%d] = %d on return", p.name, k, v)
					}
				}
				shmem.BarrierAll() // every PE checked dst before the next call writes it
			}
		}
	}, 2, 3, 4)
}
