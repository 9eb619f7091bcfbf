package shmem_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

var cmps = []shmem.Cmp{shmem.CmpEQ, shmem.CmpNE, shmem.CmpGT, shmem.CmpGE, shmem.CmpLT, shmem.CmpLE}

// ref is the test's own model of a comparison.
func ref[T shmem.Sync](a T, c shmem.Cmp, b T) bool {
	switch c {
	case shmem.CmpEQ:
		return a == b
	case shmem.CmpNE:
		return a != b
	case shmem.CmpGT:
		return a > b
	case shmem.CmpGE:
		return a >= b
	case shmem.CmpLT:
		return a < b
	case shmem.CmpLE:
		return a <= b
	}
	panic("bad cmp")
}

// Every comparison × every Sync type × every form, against the model.
func TestSyncForms(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		syncForms[int16](t, math.MinInt16, -1, math.MaxInt16)
		syncForms[uint16](t, 0, 1, math.MaxUint16)
		syncForms[int32](t, math.MinInt32, 0, math.MaxInt32)
		syncForms[uint32](t, 0, 1<<31, math.MaxUint32)
		syncForms[int64](t, math.MinInt64, -5, math.MaxInt64)
		syncForms[uint64](t, 0, 1<<63, math.MaxUint64)
		syncForms[int](t, math.MinInt, 7, math.MaxInt)
		syncForms[uint](t, 0, 3, math.MaxUint)
		syncForms[uintptr](t, 0, 1<<40, ^uintptr(0))
	}, 1, 2)
}

func syncForms[T shmem.Sync](t *testing.T, lo, mid, hi T) {
	t.Helper()
	// 1: the scalar test of one element; 13: odd, so 16-bit arrays end mid-word; 77: whole
	// vectors of the scan kernels, and a tail.
	for _, k := range []int{1, 13, 77} {
		syncFormsLen(t, k, lo, mid, hi)
	}
}

func syncFormsLen[T shmem.Sync](t *testing.T, k int, lo, mid, hi T) {
	t.Helper()
	me, n := shmem.MyPE(), shmem.NPEs()
	ivars := mustAlloc[T](t, k)
	vals := []T{lo, mid, hi}
	rng := rand.New(rand.NewPCG(uint64(k), 1))
	idx := make([]int, k)

	// Test forms on local data: each case a random array, mask and comparison value.
	for _, c := range cmps {
		for trial := range 30 {
			status := make([]int32, k)
			values := make([]T, k)
			for i := range ivars {
				ivars[i] = vals[rng.IntN(3)]
				status[i] = int32(rng.IntN(4) / 3) // about a quarter excluded
				values[i] = vals[rng.IntN(3)]
			}
			if trial == 0 {
				status = nil
			}
			v := vals[rng.IntN(3)]
			in := func(i int) bool { return status == nil || status[i] == 0 }
			if got := shmem.Test(&ivars[0], c, v); got != ref(ivars[0], c, v) {
				t.Fatalf("%T Test(%v %v %v) = %v", v, ivars[0], c, v, got)
			}
			for _, vector := range []bool{false, true} {
				cv := func(i int) T {
					if vector {
						return values[i]
					}
					return v
				}
				var want []int
				for i := range ivars {
					if in(i) && ref(ivars[i], c, cv(i)) {
						want = append(want, i)
					}
				}
				all := true
				for i := range ivars {
					all = all && (!in(i) || ref(ivars[i], c, cv(i)))
				}
				var gotAll bool
				var gotAny, gotSome int
				if vector {
					gotAll = shmem.TestAllVector(ivars, status, c, values)
					gotAny = shmem.TestAnyVector(ivars, status, c, values)
					gotSome = shmem.TestSomeVector(ivars, idx, status, c, values)
				} else {
					gotAll = shmem.TestAll(ivars, status, c, v)
					gotAny = shmem.TestAny(ivars, status, c, v)
					gotSome = shmem.TestSome(ivars, idx, status, c, v)
				}
				if gotAll != all {
					t.Fatalf("%T TestAll(vector %v, %v): %v, want %v", v, vector, c, gotAll, all)
				}
				if len(want) == 0 && gotAny != -1 || len(want) > 0 && !slices.Contains(want, gotAny) {
					t.Fatalf("%T TestAny(vector %v, %v %v) = %d, satisfied %v", v, vector, c, v, gotAny, want)
				}
				got := slices.Clone(idx[:gotSome])
				slices.Sort(got)
				if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Fatalf("%T TestSome(vector %v, %v) = %v, want %v", v, vector, c, got, want)
				}
				// The wait forms return at once on satisfied sets.
				if len(want) > 0 {
					var a, s int
					if vector {
						a = shmem.WaitUntilAnyVector(ivars, status, c, values)
						s = shmem.WaitUntilSomeVector(ivars, idx, status, c, values)
					} else {
						a = shmem.WaitUntilAny(ivars, status, c, v)
						s = shmem.WaitUntilSome(ivars, idx, status, c, v)
					}
					if !slices.Contains(want, a) || s != len(want) {
						t.Fatalf("%T WaitUntilAny/Some(vector %v, %v) = %d, %d; satisfied %v", v, vector, c, a, s, want)
					}
				}
				if all {
					if vector {
						shmem.WaitUntilAllVector(ivars, status, c, values)
					} else {
						shmem.WaitUntilAll(ivars, status, c, v)
					}
				}
			}
		}
	}
	shmem.BarrierAll()
	if n < 2 {
		return
	}
	// Wait forms against a peer: PE 1 makes the conditions true on PE 0 after PE 0 waits.
	for _, c := range cmps {
		before, after, target := unsatisfied(c, lo, mid, hi)
		for form := range 7 {
			if me == 0 {
				for i := range ivars {
					ivars[i] = before
				}
			}
			shmem.BarrierAll()
			switch me {
			case 1:
				for _, i := range []int{k - 1, 3, 0, 8} {
					if i >= k {
						continue
					}
					shmem.P(&ivars[i], after, 0)
					if form < 3 { // the Any and Some forms need one element
						break
					}
				}
				for i := range ivars {
					shmem.P(&ivars[i], after, 0)
				}
			case 0:
				values := slices.Repeat([]T{target}, k)
				switch form {
				case 0:
					shmem.WaitUntil(&ivars[k-1], c, target)
				case 1:
					i := shmem.WaitUntilAny(ivars, nil, c, target)
					if !ref(ivars[i], c, target) {
						t.Fatalf("%T WaitUntilAny returned unsatisfied %d", target, i)
					}
				case 2:
					s := shmem.WaitUntilSome(ivars, idx, nil, c, target)
					for _, i := range idx[:s] {
						if !ref(ivars[i], c, target) {
							t.Fatalf("%T WaitUntilSome returned unsatisfied %d", target, i)
						}
					}
				case 3:
					shmem.WaitUntilAll(ivars, nil, c, target)
				case 4:
					shmem.WaitUntilAllVector(ivars, nil, c, values)
				case 5:
					shmem.WaitUntilAnyVector(ivars, nil, c, values)
				case 6:
					shmem.WaitUntilSomeVector(ivars, idx, nil, c, values)
				}
			}
			shmem.BarrierAll()
		}
	}
}

// unsatisfied gives, for cmp, a value that fails "x cmp target", one that holds, and target.
func unsatisfied[T shmem.Sync](c shmem.Cmp, lo, mid, hi T) (before, after, target T) {
	switch c {
	case shmem.CmpEQ:
		return lo, mid, mid
	case shmem.CmpNE:
		return mid, hi, mid
	case shmem.CmpGT:
		return mid, hi, mid
	case shmem.CmpGE:
		return lo, mid, mid
	case shmem.CmpLT:
		return mid, lo, mid
	}
	return hi, mid, mid
}

// An index that stays satisfied is eventually returned by repeated _Any calls.
func TestAnyFairness(t *testing.T) {
	if !shmemtest.Run(t, 1) {
		return
	}
	initPE(t)
	ivars := mustAlloc[int32](t, 10)
	for i := range ivars {
		ivars[i] = 1
	}
	status := []int32{0, 0, 1, 0, 0, 0, 1, 0, 0, 0}
	seenT, seenW := map[int]bool{}, map[int]bool{}
	// The guarantee is about a series of calls to one routine.
	for range len(ivars) {
		seenT[shmem.TestAny(ivars, status, shmem.CmpEQ, 1)] = true
	}
	for range len(ivars) {
		seenW[shmem.WaitUntilAny(ivars, status, shmem.CmpEQ, 1)] = true
	}
	for i, s := range status {
		if s == 0 && (!seenT[i] || !seenW[i]) {
			t.Fatalf("index %d never returned (TestAny %v, WaitUntilAny %v)", i, seenT, seenW)
		}
		if s == 1 && (seenT[i] || seenW[i]) {
			t.Fatalf("excluded index %d returned", i)
		}
	}
}

func TestEmptyTestSet(t *testing.T) {
	if !shmemtest.Run(t, 1) {
		return
	}
	initPE(t)
	ivars := mustAlloc[int64](t, 4)
	all := []int32{1, 1, 1, 1}
	idx := make([]int, 4)
	if shmem.WaitUntilAny(ivars, all, shmem.CmpEQ, 5) != -1 || shmem.WaitUntilAny(ivars[:0], nil, shmem.CmpEQ, 5) != -1 {
		t.Fatal("WaitUntilAny on an empty set must return -1")
	}
	if shmem.WaitUntilSome(ivars, idx, all, shmem.CmpEQ, 5) != 0 || shmem.TestSome(ivars, idx, all, shmem.CmpEQ, 0) != 0 {
		t.Fatal("_Some on an empty set must return 0")
	}
	if !shmem.TestAll(ivars, all, shmem.CmpEQ, 5) || shmem.TestAny(ivars, all, shmem.CmpEQ, 0) != -1 {
		t.Fatal("TestAll must be true and TestAny -1 on an empty set")
	}
	shmem.WaitUntilAll(ivars, all, shmem.CmpEQ, 5)
	shmem.WaitUntilAllVector(ivars[:0], nil, shmem.CmpEQ, nil)
}

// A flag is never seen before the data its writer put before it (and fenced).
func TestAcquireOrdering(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const rounds, words = 2000, 64
		data := mustAlloc[int64](t, words)
		// The flag is the last of 40, so the scans run their vector kernels.
		flags := mustAlloc[int64](t, 40)
		flag := &flags[len(flags)-1]
		src := make([]int64, words)
		idx := make([]int, len(flags))
		for r := int64(1); r <= rounds; r++ {
			if me == 1 {
				for i := range src {
					src[i] = r*words + int64(i)
				}
				shmem.Put(data, src, 0)
				shmem.Fence()
				shmem.P(flag, r, 0)
			} else {
				if r%2 == 0 {
					shmem.WaitUntilSome(flags, idx, nil, shmem.CmpGE, r)
				} else {
					for shmem.TestAny(flags, nil, shmem.CmpGE, r) < 0 {
					}
				}
				for i, v := range data {
					if v != r*words+int64(i) {
						t.Fatalf("round %d: data[%d] = %d seen after its flag", r, i, v)
					}
				}
				shmem.P(flag, 0, 0)
			}
			shmem.SyncAll()
		}
	}, 2)
}
