//go:build linux && cgo

package main

// #include "cabi.h"
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Symmetric static data. A C program's global and static variables are symmetric data
// objects: the same variable exists on every PE, and routines may name it as a remote
// target (a static pSync, a global counter other PEs increment). At shmem_init the
// executable's writable data segment (.data and .bss, past the RELRO part) moves into the
// symmetric heap: its pages are copied into a region rt.ReserveStatic takes from the top of
// the heap (which launchers make that much larger than SHMEM_SYMMETRIC_SIZE:
// rt.SetStaticData, launch.StaticData), and that region of the shared object is mapped over
// the segment's own address (cstatic.c). The program keeps using its variables where they
// are; every entry point translates an address in the segment to the region's twin (sym),
// which the engine treats like any heap address: puts, gets, AMOs, waits and collectives
// reach every PE's copy.
//
// This needs the Go runtime outside the executable, in libgoshmem.so: in a c-archive link
// the executable's data segment holds the Go runtime's own variables, which other threads
// write at any time, so it cannot be copied and remapped. There static data stays private
// and naming it in a routine is an error that says so (symFail).

var static struct {
	lo, size uintptr        // the remapped segment [lo, lo+size), page aligned; size 0: none
	twin     unsafe.Pointer // its twin in the symmetric heap
	segLo    uintptr        // the executable's writable segment, remapped or not
	segHi    uintptr
	archive  bool // the library is linked into the executable: static data is not symmetric
	done     bool
}

// sym is the address the engine works with for a symmetric argument: the twin of a static
// variable, or p itself.
func sym(p unsafe.Pointer) unsafe.Pointer {
	if d := uintptr(p) - static.lo; d < static.size {
		return unsafe.Add(static.twin, d)
	}
	return p
}

// symCheck is sym for an argument of n bytes that must be symmetric; who and arg name the
// routine and the argument in the panic.
func symCheck(who, arg string, p unsafe.Pointer, n uintptr) unsafe.Pointer {
	q := sym(p)
	if n != 0 && !rt.InHeap(q, n) {
		symFail(who, arg, p, n)
	}
	return q
}

func symFail(who, arg string, p unsafe.Pointer, n uintptr) {
	rt.Check(who) // before shmem_init nothing is symmetric: say that instead
	a := uintptr(p)
	switch {
	case a-static.lo < static.size:
		panic(fmt.Sprintf("%s: %s [%#x, +%d bytes) runs past the end of the program's static data", who, arg, a, n))
	case a >= static.segLo && a < static.segHi && static.archive:
		panic(fmt.Sprintf("%s: %s (address %#x) is a static variable, which is symmetric only when the program is linked against libgoshmem.so (shmemcc without -goshmem-archive); or allocate it with shmem_malloc", who, arg, a))
	case rt.InHeap(p, 1):
		panic(fmt.Sprintf("%s: %s [%#x, +%d bytes) runs past the end of the symmetric heap (%d bytes per PE; SHMEM_SYMMETRIC_SIZE sets it)", who, arg, a, n, rt.HeapSize()))
	}
	panic(fmt.Sprintf("%s: %s (address %#x) is not symmetric: use memory from shmem_malloc, or a global or static variable of the program", who, arg, a))
}

// dataSegment finds the executable's writable data segment (cstatic.c).
func dataSegment() C.struct_goshmem_segment {
	var seg C.struct_goshmem_segment
	C.goshmem_data_segment(&seg)
	return seg
}

// staticDataSize is what initStatic will move into the heap: rt.SetStaticData before Init.
func staticDataSize() uintptr {
	if seg := dataSegment(); seg.linked_in == 0 {
		return uintptr(seg.size)
	}
	return 0
}

// initStatic makes the program's static data symmetric (see above); every PE runs it in
// shmem_init right after the engine's Init, before any allocation.
func initStatic(who string) {
	if static.done {
		return
	}
	static.done = true
	seg := dataSegment()
	static.segLo, static.segHi = uintptr(seg.seg_lo), uintptr(seg.seg_hi)
	static.archive = seg.linked_in != 0
	if static.archive || seg.size == 0 {
		return
	}
	twin, fd, off, err := rt.ReserveStatic(who, uintptr(seg.size))
	if err != nil {
		panic(err)
	}
	if e := C.goshmem_data_move(seg.lo, seg.size, twin, C.int(fd), C.long(off)); e != 0 {
		panic(fmt.Sprintf("%s: mapping the program's static data [%#x, +%d bytes) into the symmetric heap: %v", who, uintptr(seg.lo), uintptr(seg.size), syscall.Errno(e)))
	}
	static.lo, static.size, static.twin = uintptr(seg.lo), uintptr(seg.size), twin
	// No PE may write into a peer's static data before the peer has moved it.
	rt.SyncAll()
}
