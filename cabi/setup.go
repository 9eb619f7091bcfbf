//go:build linux && cgo

package main

// #include <stdio.h>
// #include <stdlib.h>
// #include "cabi.h"
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Setup, the symmetric heap and the queries.

// goshmem_init is shmem_init, shmem_init_thread and start_pes: join the job, then make the
// program's static data symmetric. A second call does nothing.
//
//export goshmem_init
func goshmem_init(r int32) {
	defer catch(r)
	who := name(r)
	rt.SetStaticData(staticDataSize())
	rt.SetLockedCallers()
	if err := rt.Init(); err != nil {
		panic(err)
	}
	rt.OnExit(func() { C.fflush(nil) }) // when the engine ends this PE, C's buffered output goes out
	initStatic(who)
	publishFastPath()
	host := C.CString(rt.Host(rt.MyPE()))
	C.goshmem_fault_where_set(host)
	C.free(unsafe.Pointer(host))
}

// threadLevel is the thread level shmem_query_thread reports: the level shmem_init_thread
// was asked for (the library provides every level: any thread may call it, and locks
// exclude the PE's other threads), SHMEM_THREAD_MULTIPLE after shmem_init. Programs check
// that they got what they asked for, as other implementations give it.
var threadLevel atomic.Int32

func init() { threadLevel.Store(C.SHMEM_THREAD_MULTIPLE) }

// goshmem_init_thread is shmem_init_thread: shmem_init at the level requested.
//
//export goshmem_init_thread
func goshmem_init_thread(r, requested int32) int32 {
	defer catch(r)
	if requested < C.SHMEM_THREAD_SINGLE || requested > C.SHMEM_THREAD_MULTIPLE {
		panic(fmt.Sprintf("%s: requested %d is not a thread level: want SHMEM_THREAD_SINGLE (%d) to SHMEM_THREAD_MULTIPLE (%d)",
			name(r), requested, C.SHMEM_THREAD_SINGLE, C.SHMEM_THREAD_MULTIPLE))
	}
	goshmem_init(r)
	threadLevel.Store(requested)
	return requested
}

//export goshmem_query_thread
func goshmem_query_thread(r int32) int32 {
	defer catch(r)
	rt.Check(name(r))
	return threadLevel.Load()
}

//export goshmem_finalize
func goshmem_finalize(r int32) {
	defer catch(r)
	clearFastPath()
	rt.Finalize()
}

//export goshmem_check
func goshmem_check(r int32) {
	defer catch(r)
	rt.Check(name(r))
}

//export goshmem_my_pe
func goshmem_my_pe(r int32) int32 {
	defer catch(r)
	rt.Check(name(r))
	return int32(rt.MyPE())
}

//export goshmem_n_pes
func goshmem_n_pes(r int32) int32 {
	defer catch(r)
	rt.Check(name(r))
	return int32(rt.NPEs())
}

//export goshmem_pe_accessible
func goshmem_pe_accessible(r, pe int32) int32 {
	defer catch(r)
	rt.Check(name(r))
	return b2i(pe >= 0 && int(pe) < rt.NPEs())
}

//export goshmem_addr_accessible
func goshmem_addr_accessible(r int32, addr unsafe.Pointer, pe int32) int32 {
	defer catch(r)
	rt.Check(name(r))
	return b2i(pe >= 0 && int(pe) < rt.NPEs() && rt.InHeap(sym(addr), 1))
}

// goshmem_ptr is shmem_ptr: PE pe's copy of the symmetric object at dest, or NULL if dest is
// not symmetric or pe is not a PE of the job.
//
//export goshmem_ptr
func goshmem_ptr(r int32, dest unsafe.Pointer, pe int32) unsafe.Pointer {
	defer catch(r)
	rt.Check(name(r))
	q := sym(dest)
	if pe < 0 || int(pe) >= rt.NPEs() || !rt.InHeap(q, 1) || !rt.Local(int(pe)) {
		return nil
	}
	if int(pe) == rt.MyPE() {
		return dest // a static variable's own address rather than its twin's: the same bytes
	}
	return rt.Remote(q, int(pe))
}

// goshmem_peer is PE pe's copy of the symmetric object [p, p+n), for the C code of the
// library itself (the long double reductions): unlike shmem_ptr, bad input panics. NULL
// when pe is on another node (the caller gets the object through the engine).
//
//export goshmem_peer
func goshmem_peer(r int32, p unsafe.Pointer, n uintptr, pe int32) unsafe.Pointer {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	rt.CheckPE(who, int(pe))
	q := symCheck(who, "source", p, n)
	if !rt.Local(int(pe)) {
		return nil
	}
	return rt.Remote(q, int(pe))
}

//export goshmem_global_exit
func goshmem_global_exit(r, status int32) {
	defer catch(r)
	st := rt.ExitStatus(name(r), int(status))
	C.fflush(nil)
	rt.GlobalExit(st)
}

// goshmem_malloc is shmem_malloc, shmem_align (align > 0) and shmem_malloc_with_hints. A
// heap too small for the request returns NULL and says why on stderr.
//
//export goshmem_malloc
func goshmem_malloc(r int32, size, align uintptr) unsafe.Pointer {
	defer catch(r)
	p, err := rt.Malloc(name(r), size, align, false)
	if err != nil {
		warn(err)
		return nil
	}
	return p
}

//export goshmem_calloc
func goshmem_calloc(r int32, count, size uintptr) unsafe.Pointer {
	defer catch(r)
	who := name(r)
	b, ok := rt.MulOK(count, size)
	if !ok {
		rt.Check(who)
		warn(fmt.Errorf("%s: %d elements of %d bytes overflow", who, count, size))
		rt.BarrierAll() // the call is collective even when it fails
		return nil
	}
	p, err := rt.Malloc(who, b, 0, true)
	if err != nil {
		warn(err)
		return nil
	}
	return p
}

//export goshmem_realloc
func goshmem_realloc(r int32, ptr unsafe.Pointer, size uintptr) unsafe.Pointer {
	defer catch(r)
	p, err := rt.Realloc(name(r), ptr, size)
	if err != nil {
		warn(err)
		return nil
	}
	return p
}

//export goshmem_free
func goshmem_free(r int32, ptr unsafe.Pointer) {
	defer catch(r)
	rt.Free(name(r), ptr)
}
