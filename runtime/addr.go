package rt

import (
	"fmt"
	"github.com/goshmem/shmem/runtime/shm"
	"unsafe"
)

// Symmetric addresses: a PE's heap sits at the same offset in its segment as every other
// PE's, and segments are segSize apart, so the copy on PE pe of my address p is
// p + (pe-me)*segSize.

// Remote is the address on PE pe of the symmetric address p (which lies in my segment).
func Remote(p unsafe.Pointer, pe int) unsafe.Pointer {
	return unsafe.Add(p, (pe-me)*segSize)
}

// InHeap reports whether [p, p+n) lies in my symmetric heap.
func InHeap(p unsafe.Pointer, n uintptr) bool {
	off := uintptr(p) - heapLo
	return off < heapSize && n <= heapSize-off
}

// CheckSym panics unless [p, p+n) is symmetric memory; who and arg name the routine and
// the argument. An empty range needs no memory and passes.
func CheckSym(who, arg string, p unsafe.Pointer, n uintptr) {
	if off := uintptr(p) - heapLo; off+n > heapSize || off+n < n {
		symFail(who, arg, p, n) // kept out of line: the check itself inlines into callers
	}
}

func symFail(who, arg string, p unsafe.Pointer, n uintptr) {
	if n == 0 {
		return // an empty range needs no memory
	}
	off := uintptr(p) - heapLo
	if off < heapSize {
		panic(fmt.Sprintf("%s: %s [%#x, +%d bytes) runs past the end of the symmetric heap (%d bytes; SHMEM_SYMMETRIC_SIZE sets it)", who, arg, uintptr(p), n, heapSize))
	}
	panic(fmt.Sprintf("%s: %s is not symmetric memory (address %#x; allocate it with shmem.Malloc)", who, arg, uintptr(p)))
}

// Offset is p's offset in the symmetric heap (for debug checks and messages).
func Offset(p unsafe.Pointer) uintptr { return uintptr(p) - heapLo }

// reserved is the address of my segment's runtime part at offset off.
func reserved(off uintptr) unsafe.Pointer { return unsafe.Add(mySeg, off) }

// heapOff is where the user heap starts inside a segment.
const heapOff = shm.ReservedSize
