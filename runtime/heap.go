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
	for i, s := range heap.free {
		off := (s.off + align - 1) &^ (align - 1)
		if off < s.off || off+size > s.end || off+size < off {
			continue
		}
		// Split the span: a gap before (alignment) and a rest after may remain.
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
		return off, true
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

// growInPlace extends the allocation at off to size bytes if the span after it is free.
func growInPlace(off, size uintptr) bool {
	old := heap.used[off]
	size = (size + MinAlign - 1) &^ (MinAlign - 1)
	if size <= old {
		return false // shrinking moves nothing and keeps the allocation as it is
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
			return true
		}
	}
	return false
}

func largestFree() uintptr {
	var m uintptr
	for _, s := range heap.free {
		m = max(m, s.end-s.off)
	}
	return m
}

func exhausted(who string, size uintptr) error {
	return fmt.Errorf("%s: cannot allocate %d bytes: the symmetric heap is exhausted (%d bytes per PE, %d in use, largest free block %d); set SHMEM_SYMMETRIC_SIZE to enlarge it",
		who, size, heapSize, heap.inUse, largestFree())
}

// Malloc allocates size bytes at align (a power of two; MinAlign at least) on every PE,
// zeroing them first when zero is set, then synchronizes: no PE uses the memory before every
// PE has allocated (and zeroed) it. Exhaustion is an error on every PE alike.
func Malloc(who string, size, align uintptr, zero bool) (unsafe.Pointer, error) {
	Check(who)
	if align&(align-1) != 0 {
		panic(fmt.Sprintf("%s: alignment %d is not a power of two", who, align))
	}
	align = max(align, MinAlign)
	DebugAgree(who, "sizes in bytes", uint64(size))
	var p unsafe.Pointer
	var err error
	if size > 0 {
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
	BarrierAll()
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
	if p == nil {
		return
	}
	off, _ := liveAllocation(who, p)
	DebugAgree(who, "offset", uint64(off))
	BarrierAll()
	heap.mu.Lock()
	release(off)
	heap.mu.Unlock()
}

// Realloc resizes an allocation, keeping its contents up to the smaller size, with a
// synchronization before (no PE still uses the old block) and after (every PE has the new
// one). It grows in place when it can; every PE makes the same choice.
func Realloc(who string, p unsafe.Pointer, size uintptr) (unsafe.Pointer, error) {
	Check(who)
	if p == nil {
		return Malloc(who, size, MinAlign, false)
	}
	off, old := liveAllocation(who, p)
	DebugAgree(who, "sizes in bytes", uint64(size))
	BarrierAll()
	if size == 0 {
		heap.mu.Lock()
		release(off)
		heap.mu.Unlock()
		BarrierAll()
		return nil, nil
	}
	heap.mu.Lock()
	q, err := p, error(nil)
	if !growInPlace(off, size) && size > old {
		if noff, ok := allocate(size, MinAlign); ok {
			q = unsafe.Add(mySeg, int(heapOff+noff))
			copy(unsafe.Slice((*byte)(q), old), unsafe.Slice((*byte)(p), old))
			release(off)
		} else {
			err = exhausted(who, size)
		}
	}
	heap.mu.Unlock()
	BarrierAll()
	return q, err
}

// AllocSize is the size of the live allocation starting at p, or 0.
func AllocSize(p unsafe.Pointer) uintptr {
	heap.mu.Lock()
	defer heap.mu.Unlock()
	return heap.used[uintptr(p)-heapLo]
}
