//go:build linux && cgo

package main

import "C"

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem"
	rt "github.com/goshmem/shmem/runtime"
)

// Remote memory access in bytes: every typed and sized C form (shmem_int_put, shmem_put64,
// shmem_putmem, their _nbi forms, p and g) scales its count by the element size and calls
// one of these. On shared memory the non-blocking forms complete before returning; to
// other nodes they only start (a C buffer needs no pinning) and quiet completes them.

//export goshmem_put
func goshmem_put(r int32, ctx, dest, source unsafe.Pointer, nbytes uintptr, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	d := symCheck(who, "dest", dest, nbytes)
	local(who, "source", source, nbytes)
	if nbi(r) {
		c.PutNBI(who, d, source, nbytes, int(pe))
		return
	}
	c.Put(who, d, source, nbytes, int(pe))
}

//export goshmem_get
func goshmem_get(r int32, ctx, dest, source unsafe.Pointer, nbytes uintptr, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	s := symCheck(who, "source", source, nbytes)
	local(who, "dest", dest, nbytes)
	if nbi(r) {
		c.GetNBI(who, dest, s, nbytes, int(pe))
		return
	}
	c.Get(who, dest, s, nbytes, int(pe))
}

// nbiRoutines marks the non-blocking routines (named ..._nbi) among routineNames: they
// share goshmem_put and goshmem_get with the blocking forms.
var nbiRoutines = func() (b [len(routineNames)]bool) {
	for i, n := range routineNames {
		b[i] = strings.HasSuffix(n, "_nbi")
	}
	return
}()

func nbi(r int32) bool { return uint32(r) < uint32(len(nbiRoutines)) && nbiRoutines[r] }

// goshmem_iput copies nelems elements of size bytes, source[i*sst] to dest[i*dst] on pe.
//
//export goshmem_iput
func goshmem_iput(r int32, ctx, dest, source unsafe.Pointer, dst, sst int64, nelems, size uintptr, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	n := count(who, nelems)
	rt.CheckStrided(who, stride(who, "dst", dst), stride(who, "sst", sst), n)
	d := symCheck(who, "dest", dest, rt.StridedBytes(who, "dest", n, int(dst), size))
	local(who, "source", source, rt.StridedBytes(who, "source", n, int(sst), size))
	c.IPut(who, d, source, int(dst), int(sst), n, size, int(pe))
}

//export goshmem_iget
func goshmem_iget(r int32, ctx, dest, source unsafe.Pointer, dst, sst int64, nelems, size uintptr, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	n := count(who, nelems)
	rt.CheckStrided(who, stride(who, "dst", dst), stride(who, "sst", sst), n)
	s := symCheck(who, "source", source, rt.StridedBytes(who, "source", n, int(sst), size))
	local(who, "dest", dest, rt.StridedBytes(who, "dest", n, int(dst), size))
	c.IGet(who, dest, s, int(dst), int(sst), n, size, int(pe))
}

// goshmem_ibput copies nblocks blocks of bsize elements of size bytes, block i from
// source + i*sst elements to dest + i*dst elements on pe (OpenSHMEM 1.6).
//
//export goshmem_ibput
func goshmem_ibput(r int32, ctx, dest, source unsafe.Pointer, dst, sst int64, bsize, nblocks, size uintptr, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	d := symCheck(who, "dest", dest, rt.CheckBlocks(who, "dst", int(dst), bsize, nblocks, size))
	local(who, "source", source, rt.CheckBlocks(who, "sst", int(sst), bsize, nblocks, size))
	c.IBPut(who, d, source, int(dst), int(sst), bsize, nblocks, size, int(pe))
}

//export goshmem_ibget
func goshmem_ibget(r int32, ctx, dest, source unsafe.Pointer, dst, sst int64, bsize, nblocks, size uintptr, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	s := symCheck(who, "source", source, rt.CheckBlocks(who, "sst", int(sst), bsize, nblocks, size))
	local(who, "dest", dest, rt.CheckBlocks(who, "dst", int(dst), bsize, nblocks, size))
	c.IBGet(who, dest, s, int(dst), int(sst), bsize, nblocks, size, int(pe))
}

// local checks a local buffer argument: only that it is there.
func local(who, arg string, p unsafe.Pointer, n uintptr) {
	if p == nil && n != 0 {
		panic(who + ": " + arg + " is a null pointer")
	}
}

// count converts a C element count, which the engine takes as an int.
// goshmem_overflow reports a typed routine's element count whose size in bytes overflows
// (fastpath.h's goshmem_nbytes) and ends the PE.
//
//export goshmem_overflow
func goshmem_overflow(r int32, nelems, size uintptr) {
	defer catch(r)
	panic(fmt.Sprintf("%s: %d elements of %d bytes overflow", name(r), nelems, size))
}

// stride is a C ptrdiff_t stride as an int (they are the same size on LP64: the check
// documents the assumption).
func stride(who, arg string, s int64) int {
	if int64(int(s)) != s {
		panic(fmt.Sprintf("%s: %s %d does not fit in an int", who, arg, s))
	}
	return int(s)
}

func count(who string, n uintptr) int {
	if int(n) < 0 {
		panic(fmt.Sprintf("%s: element count %d is too large", who, n))
	}
	return int(n)
}

// goshmem_put_signal puts nbytes, then updates the signal word *sig on pe (SHMEM_SIGNAL_SET
// or SHMEM_SIGNAL_ADD) atomically, after the data: a PE that sees the signal sees the data.
//
//export goshmem_put_signal
func goshmem_put_signal(r int32, ctx, dest, source unsafe.Pointer, nbytes uintptr, sig unsafe.Pointer, signal uint64, op, pe int32) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	if shmem.SignalOp(op) != shmem.SignalSet && shmem.SignalOp(op) != shmem.SignalAdd {
		panic(fmt.Sprintf("%s: invalid signal operation %d", who, op))
	}
	d := symCheck(who, "dest", dest, nbytes)
	local(who, "source", source, nbytes)
	c.PutSignal(who, "sig_addr", d, source, nbytes, symCheck(who, "sig_addr", sig, 8), signal, shmem.SignalOp(op) == shmem.SignalAdd, int(pe))
}

//export goshmem_signal_fetch
func goshmem_signal_fetch(r int32, sig unsafe.Pointer) uint64 {
	defer catch(r)
	who := name(r)
	p := symCheck(who, "sig_addr", sig, 8)
	rt.LocalTarget(who, "sig_addr", p, 8)
	return atomic.LoadUint64((*uint64)(p))
}

//export goshmem_signal_wait_until
func goshmem_signal_wait_until(r int32, sig unsafe.Pointer, cmp int32, value uint64) uint64 {
	defer catch(r)
	return shmem.SignalWaitUntil((*uint64)(symCheck(name(r), "sig_addr", sig, 8)), shmem.Cmp(cmp), value)
}

//export goshmem_quiet
func goshmem_quiet(r int32, ctx unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if c := ctxOf(who, ctx); c != nil {
		c.Quiet()
	}
}

//export goshmem_fence
func goshmem_fence(r int32, ctx unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if c := ctxOf(who, ctx); c != nil {
		c.Fence()
	}
}

// goshmem_pe_quiet completes the context's operations to the PEs target_pes[0..npes) (in
// the context's team): OpenSHMEM 1.6's shmem_pe_quiet. npes 0 ignores target_pes; a
// negative count converted to size_t is reported as one.
//
//export goshmem_pe_quiet
func goshmem_pe_quiet(r int32, ctx unsafe.Pointer, pes *int32, npes uintptr) {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	c := ctxOf(who, ctx)
	if int(npes) < 0 {
		panic(fmt.Sprintf("%s: npes %d is negative", who, int(npes)))
	}
	local(who, "target_pes", unsafe.Pointer(pes), npes)
	if c == nil || npes == 0 {
		return
	}
	rt.Bytes(who, "target_pes", int(npes), 4)
	rt.PEQuiet(c, who, "target_pes", unsafe.Slice(pes, npes))
}
