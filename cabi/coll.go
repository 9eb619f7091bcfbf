//go:build linux && cgo

package main

import "C"

import (
	"fmt"
	"unsafe"

	"github.com/goshmem/shmem"
	rt "github.com/goshmem/shmem/runtime"
)

// Collectives in bytes, in both forms: the active-set form (PE_start, logPE_stride,
// PE_size and a pSync; shmem_broadcast64, shmem_alltoalls32, ...) and the team form
// (shmem_int_broadcast, shmem_alltoallmem, ...). Their checks are the Go API's, on byte
// counts, with the C arguments' names.

// activeSet checks an active-set triplet and its pSync of words elements.
func activeSet(who string, start, logStride, size int32, pSync unsafe.Pointer, words int) (rt.Group, int, unsafe.Pointer) {
	rt.Check(who)
	g, me := rt.ActiveSet(who, int(start), int(logStride), int(size))
	return g, me, symCheck(who, "pSync", pSync, uintptr(words)*8)
}

//export goshmem_barrier_all
func goshmem_barrier_all(r int32) {
	defer catch(r)
	rt.BarrierAll()
}

//export goshmem_sync_all
func goshmem_sync_all(r int32) {
	defer catch(r)
	rt.Check(name(r))
	rt.SyncAll()
}

// goshmem_barrier is shmem_barrier and shmem_sync over an active set (the barrier's Quiet
// is harmless for sync).
//
//export goshmem_barrier
func goshmem_barrier(r, start, logStride, size int32, pSync unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	g, me, ps := activeSet(who, start, logStride, size, pSync, shmem.BarrierSyncSize)
	rt.Barrier(who, g, me, ps)
}

//export goshmem_team_sync
func goshmem_team_sync(r int32, team uintptr) int32 {
	defer catch(r)
	who := name(r)
	teamOf(who, team).Sync(who)
	return 0
}

// bcast checks a broadcast of nbytes from member root of a group of size members.
func bcast(who string, dest, source unsafe.Pointer, nbytes uintptr, root int32, size int, toRoot, amRoot bool) rt.BcastArgs {
	if root < 0 || int(root) >= size {
		panic(fmt.Sprintf("%s: PE_root %d out of range [0,%d)", who, root, size))
	}
	d := dest
	if toRoot || !amRoot { // the active-set form leaves the root's dest alone
		d = symCheck(who, "dest", dest, nbytes)
	} else {
		d = sym(dest)
	}
	s := symCheck(who, "source", source, nbytes)
	rt.CheckOverlap(who, d, s, nbytes, nbytes)
	return rt.BcastArgs{Dst: d, Src: s, Bytes: nbytes, Root: int(root), ToRoot: toRoot}
}

//export goshmem_broadcast_set
func goshmem_broadcast_set(r int32, dest, source unsafe.Pointer, nbytes uintptr, root, start, logStride, size int32, pSync unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	g, me, ps := activeSet(who, start, logStride, size, pSync, shmem.BcastSyncSize)
	rt.BroadcastSet(who, g, me, ps, bcast(who, dest, source, nbytes, root, g.Size, false, me == int(root)))
}

//export goshmem_broadcast_team
func goshmem_broadcast_team(r int32, team uintptr, dest, source unsafe.Pointer, nbytes uintptr, root int32) int32 {
	defer catch(r)
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	rt.BroadcastTeam(who, t, bcast(who, dest, source, nbytes, root, t.G.Size, true, t.Me == int(root)))
	return 0
}

// collectArgs checks a collect (fixed: fcollect) of nbytes from each of npes members. C
// says nothing of dest's size: a collect may fill it up to the end of the symmetric memory
// it lies in.
func collectArgs(who string, dest, source unsafe.Pointer, nbytes uintptr, npes int, fixed bool) rt.CollectArgs {
	s := symCheck(who, "source", source, nbytes)
	var d unsafe.Pointer
	var room uintptr
	if fixed {
		room = rt.Bytes(who, "dest", count(who, nbytes), uintptr(npes))
		d = symCheck(who, "dest", dest, room)
	} else if dest != nil || nbytes != 0 {
		d = symCheck(who, "dest", dest, 1)
		room = rt.HeapSize() - rt.Offset(d)
	} // else a NULL dest for an empty contribution: room 0, enough only if every PE's is empty
	// Without dest's size a collect's dest is known to hold my own block at least; the
	// runtime checks the rest once the total is in (CollectArgs.checkTotal).
	dn := nbytes
	if fixed {
		dn = room
	}
	rt.CheckDisjoint(who, d, s, dn, nbytes)
	return rt.CollectArgs{Dst: d, Src: s, Bytes: nbytes, Fixed: fixed, DstBytes: room}
}

//export goshmem_collect_set
func goshmem_collect_set(r int32, dest, source unsafe.Pointer, nbytes uintptr, fixed, start, logStride, size int32, pSync unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	g, me, ps := activeSet(who, start, logStride, size, pSync, shmem.CollectSyncSize)
	rt.CollectSet(who, g, me, ps, collectArgs(who, dest, source, nbytes, g.Size, fixed != 0))
}

//export goshmem_collect_team
func goshmem_collect_team(r int32, team uintptr, dest, source unsafe.Pointer, nbytes uintptr, fixed int32) int32 {
	defer catch(r)
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	rt.CollectTeam(who, t, collectArgs(who, dest, source, nbytes, t.G.Size, fixed != 0))
	return 0
}

// alltoallArgs checks an alltoall(s) of nelems elements of size bytes per member of a group
// of npes, at strides dst and sst (1 for alltoall).
func alltoallArgs(who string, dest, source unsafe.Pointer, dst, sst int64, nelems, size uintptr, npes int) rt.AlltoallArgs {
	n := count(who, nelems)
	rt.CheckStrided(who, stride(who, "dst", dst), stride(who, "sst", sst), n)
	total := rt.Mul(who, "elements of all PEs", npes, n)
	dn := rt.StridedBytes(who, "dest", total, int(dst), size)
	sn := rt.StridedBytes(who, "source", total, int(sst), size)
	d := symCheck(who, "dest", dest, dn)
	s := symCheck(who, "source", source, sn)
	rt.CheckDisjoint(who, d, s, dn, sn)
	return rt.AlltoallArgs{Dst: d, Src: s, DstStride: int(dst), SrcStride: int(sst), N: n, Size: size}
}

//export goshmem_alltoall_set
func goshmem_alltoall_set(r int32, dest, source unsafe.Pointer, dst, sst int64, nelems, size uintptr, start, logStride, setSize int32, pSync unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	g, me, ps := activeSet(who, start, logStride, setSize, pSync, max(shmem.AllToAllSyncSize, shmem.AllToAllSSyncSize))
	rt.AlltoallSet(who, g, me, ps, alltoallArgs(who, dest, source, dst, sst, nelems, size, g.Size))
}

//export goshmem_alltoall_team
func goshmem_alltoall_team(r int32, team uintptr, dest, source unsafe.Pointer, dst, sst int64, nelems, size uintptr) int32 {
	defer catch(r)
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	rt.AlltoallTeam(who, t, alltoallArgs(who, dest, source, dst, sst, nelems, size, t.G.Size))
	return 0
}
