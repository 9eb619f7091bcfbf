package rt

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// withHeap runs f on a fresh allocator of size bytes (no processes: the allocator's decisions
// are pure functions of its free list).
func withHeap(t *testing.T, size uintptr, f func()) {
	t.Helper()
	saved, savedHeap := heapSize, heap.free
	heapSize = size
	heapInit()
	t.Cleanup(func() { heapSize = saved; heap.free = savedHeap; heapInit() })
	f()
}

// checkHeap verifies the free list and the live allocations tile the heap exactly: sorted,
// coalesced free spans, no overlap, and inUse the live total.
func checkHeap(t *testing.T) {
	t.Helper()
	type iv struct {
		off, end uintptr
		free     bool
	}
	var all []iv
	var used uintptr
	for i, s := range heap.free {
		if s.off >= s.end {
			t.Fatalf("empty free span %v", s)
		}
		if i > 0 && heap.free[i-1].end >= s.off {
			t.Fatalf("free spans %v and %v not sorted and coalesced", heap.free[i-1], s)
		}
		all = append(all, iv{s.off, s.end, true})
	}
	for off, n := range heap.used {
		all = append(all, iv{off, off + n, false})
		used += n
	}
	if used != heap.inUse {
		t.Fatalf("inUse %d, live allocations sum to %d", heap.inUse, used)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].off < all[j].off })
	var at uintptr
	for _, x := range all {
		if x.off != at {
			t.Fatalf("heap not tiled at %d: next piece %v", at, x)
		}
		at = x.end
	}
	if at != heapSize {
		t.Fatalf("heap tiled to %d of %d", at, heapSize)
	}
}

func TestHeapFillsToTheBrim(t *testing.T) {
	const size = 256 << 20
	withHeap(t, size, func() {
		off, ok := allocate(253<<20, MinAlign)
		if !ok || off != 0 {
			t.Fatalf("253 MiB of a 256 MiB heap: offset %d, %v", off, ok)
		}
		checkHeap(t)
		// Grow to the whole heap, shrink, grow again: in place every time.
		for _, n := range []uintptr{size, 1 << 20, 200 << 20, size} {
			if noff, ok := resize(off, n); !ok || noff != off {
				t.Fatalf("resize to %d: offset %d, %v", n, noff, ok)
			}
			checkHeap(t)
		}
		if _, ok := resize(off, size+MinAlign); ok {
			t.Fatal("grew past the heap")
		}
		checkHeap(t)
		release(off)
		checkHeap(t)
		if len(heap.free) != 1 || heap.free[0] != (span{0, size}) {
			t.Fatalf("free list after releasing everything: %v", heap.free)
		}
	})
}

// A block between a free span and the heap's end grows by sliding down into the span; a
// block that cannot grow stays where it was, its neighbours untouched.
func TestHeapResizeSlides(t *testing.T) {
	withHeap(t, 1<<20, func() {
		a, _ := allocate(256<<10, MinAlign)
		b, _ := allocate(512<<10, MinAlign)
		c, _ := allocate(256<<10, MinAlign) // the heap is full
		release(a)
		if noff, ok := resize(b, 768<<10); !ok || noff != a {
			t.Fatalf("slide: offset %d, %v; want %d", noff, ok, a)
		}
		checkHeap(t)
		if _, ok := resize(a, 800<<10); ok {
			t.Fatal("grew into a live block")
		}
		if heap.used[a] != 768<<10 || heap.used[c] != 256<<10 {
			t.Fatalf("a failed growth changed the blocks: %v", heap.used)
		}
		checkHeap(t)
		// Shrinking frees the tail, which the next allocation reuses.
		if noff, ok := resize(a, 100<<10); !ok || noff != a {
			t.Fatalf("shrink: %d %v", noff, ok)
		}
		checkHeap(t)
		if d, ok := allocate(600<<10, MinAlign); !ok || d != a+100<<10 {
			t.Fatalf("the freed tail was not reused: %d %v", d, ok)
		}
		checkHeap(t)
	})
}

// Random allocations, resizes and frees against the invariants, near full most of the time.
func TestHeapRandomOps(t *testing.T) {
	const size = 64 << 20
	withHeap(t, size, func() {
		r := rand.New(rand.NewPCG(1, 2))
		var live []uintptr
		for step := range 20000 {
			switch op := r.IntN(10); {
			case op < 4 || len(live) == 0:
				n := uintptr(1 + r.IntN(int(size/8)))
				if r.IntN(4) == 0 {
					n = uintptr(1 + r.IntN(4096))
				}
				align := uintptr(MinAlign) << r.IntN(6)
				if off, ok := allocate(n, align); ok {
					if off%align != 0 {
						t.Fatalf("step %d: offset %d not aligned to %d", step, off, align)
					}
					live = append(live, off)
				} else if lf := largestFree(); lf > align && (n+MinAlign-1)&^(MinAlign-1) <= lf-align {
					t.Fatalf("step %d: %d bytes refused with %d free in one span", step, n, largestFree())
				}
			case op < 7:
				i := r.IntN(len(live))
				n := uintptr(1 + r.IntN(int(size/6)))
				old := heap.used[live[i]]
				if noff, ok := resize(live[i], n); ok {
					live[i] = noff
				} else if heap.used[live[i]] != old {
					t.Fatalf("step %d: failed resize changed the block", step)
				}
			default:
				i := r.IntN(len(live))
				release(live[i])
				live = append(live[:i], live[i+1:]...)
			}
			checkHeap(t)
		}
	})
}

// SHMEM_INFO's heap line says why the heap is larger than SHMEM_SYMMETRIC_SIZE asked.
func TestHeapRounding(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		asked, size uint64
		want        string
	}{
		{256 * mib, 256 * mib, ""},
		{1000000, 2 * mib, " (SHMEM_SYMMETRIC_SIZE=1000000 rounded up to a multiple of 2 MiB)"},
		{8 * mib, 74 * mib, " (SHMEM_SYMMETRIC_SIZE=8388608, and 69206016 for the program's static data, rounded up to a multiple of 2 MiB)"},
		{1000000, 4 * mib, " (SHMEM_SYMMETRIC_SIZE=1000000, and 2097152 for the program's static data, rounded up to a multiple of 2 MiB)"},
	} {
		if got := heapRounding(c.asked, c.size); got != c.want {
			t.Errorf("heapRounding(%d, %d) = %q, want %q", c.asked, c.size, got, c.want)
		}
	}
}
