package rt

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// staticExtra is the static data a layout this PE makes adds to SHMEM_SYMMETRIC_SIZE
// (SetStaticData); staticSize is what ReserveStatic took from the top of the heap, and
// staticTaken the part of it that came out of the heap the user asked for (a launcher that
// did not know of the static data: a wrapper script under shmemrun, say).
var staticExtra, staticSize, staticTaken uintptr

// SetStaticData tells Init, before it runs, that a C program will move size bytes of static
// data into the symmetric heap (ReserveStatic). A layout this PE makes (one PE alone, a
// node's leader under a PMIx launcher) is then that much larger than SHMEM_SYMMETRIC_SIZE,
// as shmemrun's is (launch.StaticData): the heap keeps the size the user asked for, as it
// does in implementations that register static data apart. Every PE passes the same size.
func SetStaticData(size uintptr) {
	page := uintptr(os.Getpagesize())
	staticExtra = 0
	if size <= ^uintptr(0)-page {
		staticExtra = (size + page - 1) &^ (page - 1)
	}
}

// heapRequest is the heap a layout this PE makes asks for: SHMEM_SYMMETRIC_SIZE and the
// static data, checked for overflow.
func heapRequest() (uint64, error) {
	return shm.HeapWithStatic(conf.Size("SHMEM_SYMMETRIC_SIZE"), uint64(staticExtra))
}

// ReserveStatic takes size bytes, rounded up to the page size, from the top of this PE's
// symmetric heap for a C program's static data: the C ABI (package cabi) copies the
// program's writable data segment there and maps those pages over the segment's own
// address, so a static variable has a symmetric twin like any heap address (Remote works on
// it, AMOs and waits on it see every PE's updates).
//
// Every PE calls it right after Init, before any allocation, with the same size (the same
// program), so the region lies at the same offset in every segment. It returns the region's
// address in this PE's mapping and the descriptor and file offset of its pages in the shared
// object (page aligned), for mmap. The region is never handed out by Malloc nor taken by Free.
func ReserveStatic(who string, size uintptr) (p unsafe.Pointer, fd int, off int64, err error) {
	Check(who)
	page := uintptr(os.Getpagesize())
	size = (size + page - 1) &^ (page - 1)
	DebugAgree(who, "static data size", uint64(size))
	heap.mu.Lock()
	defer heap.mu.Unlock()
	last := len(heap.free) - 1
	if heap.inUse != 0 || last < 0 || heap.free[last].end != heapSize || heap.free[last].end-heap.free[last].off < size {
		return nil, 0, 0, fmt.Errorf("%s: the program's static data (%d bytes) does not fit in the free symmetric heap (%d bytes per PE); set SHMEM_SYMMETRIC_SIZE to enlarge it", who, size, heapSize)
	}
	heap.free[last].end -= size
	if heap.free[last].off == heap.free[last].end {
		heap.free = heap.free[:last]
	}
	staticSize = size
	if l, err := shm.NewLayout(1, conf.Size("SHMEM_SYMMETRIC_SIZE")); err == nil && heapSize-size < l.HeapSize {
		staticTaken = min(size, l.HeapSize-(heapSize-size))
	}
	p = unsafe.Add(mySeg, int(heapOff+heapSize-size)) // still inside [heapLo, heapLo+heapSize): CheckSym passes
	return p, obj.Fd, int64(uintptr(p) - uintptr(base)), nil
}
