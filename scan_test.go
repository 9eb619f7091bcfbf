package shmem_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/kernels"
)

var scanTypes = []func(*testing.T, *collCase){
	scanType[int8], scanType[int16], scanType[int32], scanType[int64], scanType[int],
	scanType[uint8], scanType[uint16], scanType[uint32], scanType[uint64], scanType[uint],
	scanType[uintptr], scanType[float32], scanType[float64], scanType[complex64], scanType[complex128],
}

// scanType runs one random scan of T: inclusive or exclusive, a random strided team, count
// (some beyond the engine's 1 MiB scratch, which the scan crosses in chunks), in place or
// not. Every member compares with the serial model, a loop over the members in order,
// exactly (the scan adds in member order); PEs outside the team check nothing of theirs
// changed.
func scanType[T shmem.Arithmetic](t *testing.T, c *collCase) {
	t.Helper()
	inclusive := c.rng.IntN(2) == 0
	set := randomSet(c.rng, c.n)
	nel := c.size(20_000)
	if c.rng.IntN(8) == 0 {
		nel = (1<<20)/int(unsafe.Sizeof(*new(T)))*2 + 3 // three chunks
	}
	inPlace := c.rng.IntN(3) == 0
	seed := c.rng.Uint64()
	src := mustAlloc[T](t, nel)
	dst := src
	if !inPlace {
		dst = mustAlloc[T](t, nel)
	}
	for i := range src {
		src[i] = val[T](kernels.Sum, seed, c.me, i)
	}
	if !inPlace {
		for i := range dst {
			dst[i] = val[T](kernels.Sum, ^seed, c.me, i)
		}
	}
	team, err := shmem.TeamWorld().SplitStrided(set.Start, 1<<set.LogStride, set.Size, nil)
	if err != nil {
		t.Fatal(err)
	}
	what := fmt.Sprintf("trial %d: %T inclusive %v over %+v, %d elements, in place %v", c.trial, *new(T), inclusive, set, nel, inPlace)
	if mi := index(set, c.me); mi >= 0 {
		scan := shmem.SumExScan[T]
		last := mi - 1
		if inclusive {
			scan, last = shmem.SumInScan[T], mi
		}
		if err := scan(team, dst, src); err != nil {
			t.Fatal(what, err)
		}
		ms := members(set)
		for i := range nel {
			var ref T
			for _, pe := range ms[:last+1] {
				ref += val[T](kernels.Sum, seed, pe, i)
			}
			if dst[i] != ref {
				t.Fatalf("%s: member %d element %d = %v, want %v", what, mi, i, dst[i], ref)
			}
		}
		team.Destroy()
	} else {
		for i := range dst {
			if dst[i] != val[T](kernels.Sum, ^seed, c.me, i) && !inPlace || src[i] != val[T](kernels.Sum, seed, c.me, i) {
				t.Fatalf("%s: PE %d is outside the team, but its element %d changed", what, c.me, i)
			}
		}
	}
	shmem.BarrierAll()
	if !inPlace {
		shmem.Free(dst)
	}
	shmem.Free(src)
}

// Scans of every type of their table (the sum reduction's), against the serial model.
func TestScans(t *testing.T) {
	collJob(t, nil, 45, scanTypes, 1, 2, 3, 4, 8)
}

// Zero elements with nil slices, the world team, and bad arguments named.
func TestScanEdges(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		if err := shmem.SumInScan[int64](shmem.TeamWorld(), nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := shmem.SumExScan[float64](shmem.TeamWorld(), nil, nil); err != nil {
			t.Fatal(err)
		}
		x := mustAlloc[int32](t, 3)
		x[0], x[1], x[2] = int32(me), 1, -int32(me)
		shmem.SumExScan(shmem.TeamWorld(), x, x) // in place
		if want := int32(me * (me - 1) / 2); x[0] != want || x[1] != int32(me) || x[2] != -want {
			t.Fatalf("exscan in place on PE %d: %v, want [%d %d %d]", me, x, want, me, -want)
		}
		wantPanic(t, "shmem.SumInScan: invalid team", func() { shmem.SumInScan(shmem.TeamInvalid, x, x) })
		wantPanic(t, "shmem.SumExScan: dst has 2 elements, src 3", func() { shmem.SumExScan(shmem.TeamWorld(), x[:2], x) })
		local := make([]int32, 3)
		wantPanic(t, "shmem.SumInScan: dst", func() { shmem.SumInScan(shmem.TeamWorld(), local, x) })
		shmem.BarrierAll()
	}, 1, 2, 4)
}

// Back-to-back scans with no barrier between them: across nodes a member whose successor
// is on another node mails its prefix and returns, so the chain's head runs ahead of
// members that dawdle, by more calls than the mail window (credits then hold it back).
// Then reductions on the same team's areas come between; every member checks every
// result, and the head changes its source as soon as a call returns.
func TestScanRunAhead(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const calls = 300
		src, dst := mustAlloc[int64](t, 16), mustAlloc[int64](t, 16)
		rsrc, rdst := mustAlloc[int64](t, 4), mustAlloc[int64](t, 4)
		value := func(call, pe, k int) int64 { return int64(call)<<32 | int64(pe)<<16 | int64(k) }
		world := shmem.TeamWorld()
		for call := range calls {
			dawdle(call, n, me, 0)                // members but the head
			if call >= calls*2/3 && call%5 == 4 { // scans alone first: the head can run ahead
				sumReduceCheck(t, world, call, me, n, rsrc, rdst)
				continue
			}
			m := 1 + call%16
			for k := range m {
				src[k] = value(call, me, k)
			}
			if err := shmem.SumInScan(world, dst[:m], src[:m]); err != nil {
				t.Fatal(err)
			}
			for k := range m {
				var want int64
				for pe := range me + 1 {
					want += value(call, pe, k)
				}
				if dst[k] != want {
					t.Fatalf("PE %d call %d: inscan[%d] = %#x, want %#x", me, call, k, dst[k], want)
				}
			}
		}
	}, 2, 3, 4)
}
