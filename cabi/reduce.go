//go:build linux && cgo

package main

import "C"

import (
	"fmt"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/kernels"
	rt "github.com/goshmem/shmem/runtime"
)

// Reductions: shmem_TYPENAME_OP_to_all (active set, pWrk, pSync) and
// shmem_TYPENAME_OP_reduce (team). zshmem.c passes the operation's index in gen/tables.Ops
// (the kernels.Op order) and the Go type's index in gen/tables.Types; reduceByType
// (zcabi.go) holds the engine's reduction for each type. long double is longdouble.c's.

// reduceFuncs are the engine's reductions for one element type.
type reduceFuncs struct {
	size uintptr
	set  func(who string, op kernels.Op, g rt.Group, me int, pSync, dst, src unsafe.Pointer, n int)
	team func(who string, op kernels.Op, t *rt.Team, dst, src unsafe.Pointer, n int)
	scan func(who string, t *rt.Team, dst, src unsafe.Pointer, n int, inclusive bool)
}

func reduceFor[T kernels.Elem]() *reduceFuncs {
	return &reduceFuncs{
		size: unsafe.Sizeof(*new(T)),
		set: func(who string, op kernels.Op, g rt.Group, me int, pSync, dst, src unsafe.Pointer, n int) {
			rt.ReduceSet(who, op, g, me, pSync, unsafe.Slice((*T)(dst), n), unsafe.Slice((*T)(src), n))
		},
		team: func(who string, op kernels.Op, t *rt.Team, dst, src unsafe.Pointer, n int) {
			rt.ReduceTeam(who, op, t, unsafe.Slice((*T)(dst), n), unsafe.Slice((*T)(src), n))
		},
		scan: func(who string, t *rt.Team, dst, src unsafe.Pointer, n int, inclusive bool) {
			rt.ScanTeam(who, kernels.Sum, t, unsafe.Slice((*T)(dst), n), unsafe.Slice((*T)(src), n), inclusive)
		},
	}
}

func reduceType(who string, ti int32) *reduceFuncs {
	if uint32(ti) < uint32(len(reduceByType)) && reduceByType[ti] != nil {
		return reduceByType[ti]
	}
	panic(fmt.Sprintf("%s: type %d has no reductions", who, ti))
}

// reduceArgs checks dest and source of n elements of size bytes and returns their
// engine addresses.
func reduceArgs(who string, dest, source unsafe.Pointer, n int, size uintptr) (unsafe.Pointer, unsafe.Pointer) {
	if n < 0 {
		panic(fmt.Sprintf("%s: negative nreduce %d", who, n))
	}
	b := rt.Bytes(who, "dest", n, size)
	d := symCheck(who, "dest", dest, b)
	s := symCheck(who, "source", source, b)
	rt.CheckOverlap(who, d, s, b, b)
	return d, s
}

// toAllArgs checks an active-set reduction's arguments: the set, dest and source, pWrk of
// max(nreduce/2+1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements and pSync. The engine needs no
// pWrk, but a program that passes a short one is wrong on any implementation.
func toAllArgs(who string, dest, source unsafe.Pointer, nreduce int32, size uintptr, start, logStride, setSize int32, pWrk, pSync unsafe.Pointer) (g rt.Group, me int, ps, d, s unsafe.Pointer) {
	g, me, ps = activeSet(who, start, logStride, setSize, pSync, shmem.ReduceSyncSize)
	n := int(nreduce)
	d, s = reduceArgs(who, dest, source, n, size)
	symCheck(who, "pWrk", pWrk, rt.Bytes(who, "pWrk", max(n/2+1, shmem.ReduceMinWrkDataSize), size))
	return g, me, ps, d, s
}

//export goshmem_to_all
func goshmem_to_all(r, op, ti int32, dest, source unsafe.Pointer, nreduce, start, logStride, size int32, pWrk, pSync unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	if outsideSet(who, start, logStride, size) {
		return
	}
	f := reduceType(who, ti)
	g, me, ps, d, s := toAllArgs(who, dest, source, nreduce, f.size, start, logStride, size, pWrk, pSync)
	f.set(who, kernels.Op(op), g, me, ps, d, s, int(nreduce))
}

//export goshmem_reduce
func goshmem_reduce(r, op, ti int32, team uintptr, dest, source unsafe.Pointer, nreduce uintptr) int32 {
	defer catch(r)
	who := name(r)
	f := reduceType(who, ti)
	t := teamOf(who, team)
	t.Check(who)
	n := count(who, nreduce)
	d, s := reduceArgs(who, dest, source, n, f.size)
	f.team(who, kernels.Op(op), t, d, s, n)
	return 0
}

// goshmem_scan is shmem_TYPENAME_sum_inscan (inclusive 1) and _exscan (OpenSHMEM 1.6).
//
//export goshmem_scan
func goshmem_scan(r, ti int32, team uintptr, dest, source unsafe.Pointer, nelems uintptr, inclusive int32) int32 {
	defer catch(r)
	who := name(r)
	f := reduceType(who, ti)
	t := teamOf(who, team)
	t.Check(who)
	n := count(who, nelems)
	d, s := reduceArgs(who, dest, source, n, f.size)
	f.scan(who, t, d, s, n, inclusive != 0)
	return 0
}

// goshmem_check_to_all checks a long double active-set reduction's arguments for
// longdouble.c, which then reduces in C.
//
//export goshmem_check_to_all
func goshmem_check_to_all(r int32, dest, source unsafe.Pointer, nreduce int32, size uintptr, start, logStride, setSize int32, pWrk, pSync unsafe.Pointer) int32 {
	defer catch(r)
	who := name(r)
	if outsideSet(who, start, logStride, setSize) {
		return 1
	}
	toAllArgs(who, dest, source, nreduce, size, start, logStride, setSize, pWrk, pSync)
	return 0
}

// outsideSet reports whether this PE calls an active-set reduction of a set it is not in:
// the specification leaves that undefined, Open MPI's OSHMEM returns without touching
// anything, and programs written against it (a vendor's verification suite) rely on that,
// so the reduction does nothing here too, and says so under SHMEM_DEBUG.
func outsideSet(who string, start, logStride, size int32) bool {
	rt.Check(who)
	if _, i := rt.ActiveSetGroup(who, int(start), int(logStride), int(size)); i >= 0 {
		return false
	}
	if rt.Debug() {
		warn(fmt.Errorf("%s: PE %d is not in the active set (start %d, log stride %d, size %d): nothing done, as Open MPI's OSHMEM does", who, rt.MyPE(), start, logStride, size))
	}
	return true
}

// goshmem_check_reduce checks a long double team reduction's arguments for longdouble.c
// and returns the team's size.
//
//export goshmem_check_reduce
func goshmem_check_reduce(r int32, team uintptr, dest, source unsafe.Pointer, nreduce, size uintptr) int32 {
	defer catch(r)
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	reduceArgs(who, dest, source, count(who, nreduce), size)
	return int32(t.G.Size)
}
