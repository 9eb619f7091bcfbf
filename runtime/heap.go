package rt

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"
)

// The symmetric heap allocator. It runs locally on each PE; because every PE makes the same
// calls in the same order with the same sizes (the collective contract), every PE reaches
// the same offsets, so an allocation is symmetric without any exchange.

// MinAlign is the alignment of every allocation: a cache line, and what AVX-512 wants.
const MinAlign = 64

type span struct{ off, end uintptr }

var heap struct {
	mu    sync.Mutex
	free  []span              // sorted by off, coalesced
	used  map[uintptr]uintptr // offset -> size of live allocations
	inUse uintptr
}

func heapInit() {
	heap.free = []span{{0, heapSize}}
	heap.used = map[uintptr]uintptr{}
	heap.inUse = 0
}

// allocate finds the first free span that fits size bytes at the alignment.
func allocate(size, align uintptr) (uintptr, bool) {
	size = (size + MinAlign - 1) &^ (MinAlign - 1)
	for _, s := range heap.free {
		off := (s.off + align - 1) &^ (align - 1)
		if off < s.off || off+size > s.end || off+size < off {
			continue
		}
		return off, carve(off, size) // a gap before (alignment) and a rest after may remain
	}
	return 0, false
}

// release returns an allocation to the free list, coalescing neighbours.
func release(off uintptr) bool {
	size, ok := heap.used[off]
	if !ok {
		return false
	}
	delete(heap.used, off)
	heap.inUse -= size
	i := sort.Search(len(heap.free), func(i int) bool { return heap.free[i].off > off })
	heap.free = append(heap.free, span{})
	copy(heap.free[i+1:], heap.free[i:])
	heap.free[i] = span{off, off + size}
	// Merge with the next, then with the previous span.
	if i+1 < len(heap.free) && heap.free[i].end == heap.free[i+1].off {
		heap.free[i].end = heap.free[i+1].end
		heap.free = append(heap.free[:i+1], heap.free[i+2:]...)
	}
	if i > 0 && heap.free[i-1].end == heap.free[i].off {
		heap.free[i-1].end = heap.free[i].end
		heap.free = append(heap.free[:i], heap.free[i+1:]...)
	}
	return true
}

// carve takes [off, off+size) out of the free span that holds it; false when none does.
func carve(off, size uintptr) bool {
	for i, s := range heap.free {
		if off < s.off || off+size > s.end {
			continue
		}
		rest := []span{}
		if off > s.off {
			rest = append(rest, span{s.off, off})
		}
		if off+size < s.end {
			rest = append(rest, span{off + size, s.end})
		}
		heap.free = append(heap.free[:i], append(rest, heap.free[i+1:]...)...)
		heap.used[off] = size
		heap.inUse += size
		return true
	}
	return false
}

// resize changes the allocation at off to size bytes (not 0) and returns its offset, which
// differs from off when the contents must move there (they may overlap: move them with
// memmove), or false when the heap has no room (the allocation stays as it was). A heap
// filled to the brim must still let blocks grow and shrink, so in order: a shrink gives
// its tail back; a growth takes the free span after the block when it suffices; else the
// block is released and the first fit taken, which may be the free span before it, the
// block and the one after it together (a slide); else the block is restored.
func resize(off, size uintptr) (uintptr, bool) {
	old := heap.used[off]
	size = (size + MinAlign - 1) &^ (MinAlign - 1)
	switch {
	case size == old:
		return off, true
	case size < old:
		heap.used[off] = size
		heap.used[off+size] = old - size
		release(off + size)
		return off, true
	}
	end := off + old
	for i, s := range heap.free {
		if s.off == end && s.end-s.off >= size-old {
			heap.free[i].off = off + size
			if heap.free[i].off == heap.free[i].end {
				heap.free = append(heap.free[:i], heap.free[i+1:]...)
			}
			heap.used[off] = size
			heap.inUse += size - old
			return off, true
		}
		if s.off > end {
			break
		}
	}
	release(off)
	if noff, ok := allocate(size, MinAlign); ok {
		return noff, true
	}
	carve(off, old) // the span it left is still free: the same place again
	return off, false
}

func largestFree() uintptr {
	var m uintptr
	for _, s := range heap.free {
		m = max(m, s.end-s.off)
	}
	return m
}

// tooLarge is the error for a request larger than the whole heap (SIZE_MAX from C, say).
func tooLarge(who string, size uintptr) error {
	return fmt.Errorf("%s: cannot allocate %d bytes: more than the whole symmetric heap (%d bytes per PE%s; SHMEM_SYMMETRIC_SIZE sets it)", who, size, heapSize-staticSize, staticNote())
}

func exhausted(who string, size uintptr) error {
	return fmt.Errorf("%s: cannot allocate %d bytes: the symmetric heap is exhausted (%d bytes per PE%s, %d in use, largest free block %d); set SHMEM_SYMMETRIC_SIZE to enlarge it",
		who, size, heapSize-staticSize, staticNote(), heap.inUse, largestFree())
}

// staticNote says so when a C program's static data took part of the heap the user asked for.
func staticNote() string {
	if staticTaken == 0 {
		return ""
	}
	return fmt.Sprintf(" after the program's static data took %d of SHMEM_SYMMETRIC_SIZE", staticTaken)
}

// Malloc allocates size bytes at align (a power of two; MinAlign at least) on every PE,
// zeroing them first when zero is set, then synchronizes: no PE uses the memory before every
// PE has allocated (and zeroed) it. Exhaustion is an error on every PE alike.
func Malloc(who string, size, align uintptr, zero bool) (unsafe.Pointer, error) {
	Check(who)
	if debugMark(who, World.G) {
		defer debugLeave()
	}
	if align&(align-1) != 0 {
		panic(fmt.Sprintf("%s: alignment %d is not a power of two", who, align))
	}
	if align > heapAlign {
		panic(fmt.Sprintf("%s: alignment %d is larger than the symmetric heap's own alignment %d (its size rounded up to a power of two; SHMEM_SYMMETRIC_SIZE sets it)", who, align, heapAlign))
	}
	align = max(align, MinAlign)
	DebugAgree(who, "sizes in bytes", uint64(size))
	var p unsafe.Pointer
	var err error
	if size > heapSize {
		err = tooLarge(who, size) // also keeps the rounding below from wrapping
	} else if size > 0 {
		heap.mu.Lock()
		off, ok := allocate(size, align)
		heap.mu.Unlock()
		if ok {
			p = unsafe.Add(mySeg, int(heapOff+off))
			if zero {
				clear(unsafe.Slice((*byte)(p), size))
			}
		} else {
			err = exhausted(who, size)
		}
	}
	barrierAll(who)
	return p, err
}

// liveAllocation is the heap offset and size of the allocation starting at p; it panics
// when p starts none (freed twice, or not from the allocator).
func liveAllocation(who string, p unsafe.Pointer) (off, size uintptr) {
	off = uintptr(p) - heapLo
	heap.mu.Lock()
	size, ok := heap.used[off]
	heap.mu.Unlock()
	if off >= heapSize || !ok {
		panic(fmt.Sprintf("%s: %#x is not the start of a live symmetric allocation (freed twice, or not from shmem.Malloc)", who, uintptr(p)))
	}
	return off, size
}

// Free releases an allocation on every PE after synchronizing (no PE may still use it).
func Free(who string, p unsafe.Pointer) {
	Check(who)
	if debugMark(who, World.G) {
		defer debugLeave()
	}
	if p == nil {
		return
	}
	off, _ := liveAllocation(who, p)
	DebugAgree(who, "offset", uint64(off))
	barrierAll(who)
	heap.mu.Lock()
	release(off)
	heap.mu.Unlock()
}

// Realloc resizes an allocation, keeping its contents up to the smaller size, with a
// synchronization before (no PE still uses the old block) and after (every PE has the new
// one). It grows in place when it can; every PE makes the same choice.
func Realloc(who string, p unsafe.Pointer, size uintptr) (unsafe.Pointer, error) {
	Check(who)
	if debugMark(who, World.G) {
		defer debugLeave()
	}
	if p == nil {
		return Malloc(who, size, MinAlign, false)
	}
	off, old := liveAllocation(who, p)
	DebugAgree(who, "sizes in bytes", uint64(size))
	barrierAll(who)
	if size == 0 {
		heap.mu.Lock()
		release(off)
		heap.mu.Unlock()
		barrierAll(who)
		return nil, nil
	}
	if size > heapSize {
		barrierAll(who)
		return p, tooLarge(who, size)
	}
	heap.mu.Lock()
	q, err := p, error(nil)
	if noff, ok := resize(off, size); !ok {
		err = exhausted(who, size)
	} else if noff != off {
		q = unsafe.Add(mySeg, int(heapOff+noff))
		// The new block may overlap the old one (a slide into the free span before it):
		// copy is a memmove.
		copy(unsafe.Slice((*byte)(q), min(old, size)), unsafe.Slice((*byte)(p), min(old, size)))
	}
	heap.mu.Unlock()
	barrierAll(who)
	return q, err
}

// AllocSize is the size of the live allocation starting at p, or 0.
func AllocSize(p unsafe.Pointer) uintptr {
	heap.mu.Lock()
	defer heap.mu.Unlock()
	return heap.used[uintptr(p)-heapLo]
}
