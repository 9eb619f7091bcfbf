package shmem_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
	"github.com/goshmem/shmem/kernels"
)

// opFn is one reduction in both APIs.
type opFn[T any] struct {
	op    kernels.Op
	toAll func(dst, src []T, set shmem.ActiveSet, pWrk []T, pSync []int64)
	team  func(t shmem.Team, dst, src []T) error
}

func arith[T shmem.Arithmetic]() []opFn[T] {
	return []opFn[T]{{kernels.Sum, shmem.SumToAll[T], shmem.SumReduce[T]}, {kernels.Prod, shmem.ProdToAll[T], shmem.ProdReduce[T]}}
}

func ordered[T shmem.Ordered]() []opFn[T] {
	return append(arith[T](), opFn[T]{kernels.Min, shmem.MinToAll[T], shmem.MinReduce[T]}, opFn[T]{kernels.Max, shmem.MaxToAll[T], shmem.MaxReduce[T]})
}

func integer[T shmem.Bitwise]() []opFn[T] {
	return append(ordered[T](), opFn[T]{kernels.And, shmem.AndToAll[T], shmem.AndReduce[T]},
		opFn[T]{kernels.Or, shmem.OrToAll[T], shmem.OrReduce[T]}, opFn[T]{kernels.Xor, shmem.XorToAll[T], shmem.XorReduce[T]})
}

// collCase is what every PE draws alike for one trial.
type collCase struct {
	rng   *rand.Rand
	trial int
	me, n int
	pSync [2][]int64 // alternated between trials
}

// size draws an element count: mostly small, sometimes up to max.
func (c *collCase) size(max int) int {
	switch r := c.rng.IntN(10); {
	case r < 6:
		return c.rng.IntN(65)
	case r < 9:
		return c.rng.IntN(4097)
	}
	return c.rng.IntN(max + 1)
}

var reduceTypes = []func(*testing.T, *collCase){
	reduceType(integer[int8]()), reduceType(integer[int16]()), reduceType(integer[int32]()),
	reduceType(integer[int64]()), reduceType(integer[int]()), reduceType(integer[uint8]()),
	reduceType(integer[uint16]()), reduceType(integer[uint32]()), reduceType(integer[uint64]()),
	reduceType(integer[uint]()), reduceType(integer[uintptr]()), reduceType(ordered[float32]()),
	reduceType(ordered[float64]()), reduceType(arith[complex64]()), reduceType(arith[complex128]()),
}

// reduceType runs one random reduction of T: random op, active set, count, in or out of
// place, active-set or team API; every member checks against the serial reference, and PEs
// outside the set check that nothing of theirs changed.
func reduceType[T kernels.Elem](ops []opFn[T]) func(*testing.T, *collCase) {
	return func(t *testing.T, c *collCase) {
		t.Helper()
		f := ops[c.rng.IntN(len(ops))]
		set := randomSet(c.rng, c.n)
		nred := c.size(100_000)
		inPlace := c.rng.IntN(3) == 0
		useTeam := c.rng.IntN(3) == 0
		seed := c.rng.Uint64()
		src := mustAlloc[T](t, nred)
		dst := src
		if !inPlace {
			dst = mustAlloc[T](t, nred)
		}
		pWrk := mustAlloc[T](t, max(nred/2+1, shmem.ReduceMinWrkDataSize))
		for i := range src {
			src[i] = val[T](f.op, seed, c.me, i)
		}
		if !inPlace {
			for i := range dst {
				dst[i] = val[T](f.op, ^seed, c.me, i)
			}
		}
		var team shmem.Team
		if useTeam {
			var err error
			team, err = shmem.TeamWorld().SplitStrided(set.Start, 1<<set.LogStride, set.Size, nil)
			if err != nil {
				t.Fatal(err)
			}
		}
		shmem.BarrierAll()
		mi := index(set, c.me)
		what := fmt.Sprintf("trial %d: %T %v over %+v, %d elements, in place %v, team %v", c.trial, *new(T), f.op, set, nred, inPlace, useTeam)
		if mi >= 0 {
			if useTeam {
				if err := f.team(team, dst, src); err != nil {
					t.Fatal(what, err)
				}
			} else {
				f.toAll(dst, src, set, pWrk, c.pSync[c.trial%2])
			}
			ms := members(set)
			for i := range nred {
				ref := val[T](f.op, seed, ms[0], i)
				mag := magnitude(ref)
				for _, pe := range ms[1:] {
					x := val[T](f.op, seed, pe, i)
					ref = refReduce(f.op, ref, x)
					if f.op == kernels.Sum {
						mag += magnitude(x)
					}
				}
				if f.op == kernels.Prod {
					mag = magnitude(ref)
				}
				if !closeEnough(f.op, dst[i], ref, mag, set.Size) {
					t.Fatalf("%s: element %d = %v, want %v", what, i, dst[i], ref)
				}
			}
		} else {
			for i := range dst {
				if dst[i] != val[T](f.op, ^seed, c.me, i) && !inPlace || src[i] != val[T](f.op, seed, c.me, i) {
					t.Fatalf("%s: PE %d is outside the set, but its element %d changed", what, c.me, i)
				}
			}
		}
		for i, v := range c.pSync[c.trial%2] {
			if v != shmem.SyncValue {
				t.Fatalf("%s: pSync[%d] = %d on return", what, i, v)
			}
		}
		if team.Valid() {
			team.Destroy()
		}
		shmem.BarrierAll()
		shmem.Free(pWrk)
		if !inPlace {
			shmem.Free(dst)
		}
		shmem.Free(src)
	}
}

// collJob runs trials of the given kinds as a job of each size, with env forcing an algorithm.
func collJob(t *testing.T, env []string, trials int, kinds []func(*testing.T, *collCase), sizes ...int) {
	shmemtest.ForSizes(t, func(t *testing.T, n int) {
		if !shmemtest.Run(t, n, shmemtest.Options{Env: env}) {
			return
		}
		me, _ := initPE(t)
		c := &collCase{rng: rand.New(rand.NewPCG(uint64(n), 99)), me: me, n: n}
		c.pSync[0] = mustAlloc[int64](t, shmem.SyncSize)
		c.pSync[1] = mustAlloc[int64](t, shmem.SyncSize)
		for c.trial = range trials {
			kinds[c.trial%len(kinds)](t, c)
		}
	}, sizes...)
}

func TestReductions(t *testing.T) {
	for _, alg := range []string{"linear", "tree", "ring", "direct", "auto"} {
		t.Run(alg, func(t *testing.T) {
			collJob(t, []string{"SHMEM_REDUCE_ALGORITHM=" + alg, "SHMEM_COLL_RADIX=2"}, 90, reduceTypes, 1, 2, 3, 5, 8)
		})
	}
}
