package shmem

import (
	"fmt"

	rt "github.com/goshmem/shmem/runtime"
)

// Alltoall: every PE sends block j of src (n elements) to PE j, where it lands as block i
// of dst for sender i. In the strided forms block j starts at element j*n*srcStride of
// src, its elements srcStride apart, and lands at element i*n*dstStride of dst, dstStride
// apart (strides >= 1). Blocks move through the strided-copy kernels, whole blocks at once.

func alltoallArgs[T any](who string, dst, src []T, dstStride, srcStride, n, npes int) rt.AlltoallArgs {
	rt.CheckStrided(who, dstStride, srcStride, n)
	size := sizeOf[T]()
	total := rt.Mul(who, "elements of all PEs", npes, n)
	nd, ns := rt.StridedElems(who, "dst", total, dstStride), rt.StridedElems(who, "src", total, srcStride)
	if len(dst) < nd {
		panic(fmt.Sprintf("%s: dst has %d elements, %d PEs × %d at stride %d need %d", who, len(dst), npes, n, dstStride, nd))
	}
	if len(src) < ns {
		panic(fmt.Sprintf("%s: src has %d elements, %d PEs × %d at stride %d need %d", who, len(src), npes, n, srcStride, ns))
	}
	dn, sn := rt.Bytes(who, "dst", nd, size), rt.Bytes(who, "src", ns, size)
	rt.CheckSym(who, "dst", sliceAddr(dst), dn)
	rt.CheckSym(who, "src", sliceAddr(src), sn)
	rt.CheckDisjoint(who, sliceAddr(dst), sliceAddr(src), dn, sn)
	return rt.AlltoallArgs{Dst: sliceAddr(dst), Src: sliceAddr(src), DstStride: dstStride, SrcStride: srcStride, N: n, Size: size}
}

func alltoallSet[T any](who string, dst, src []T, dstStride, srcStride, n int, set ActiveSet, pSync []int64) {
	rt.Check(who)
	g, me := set.group(who)
	x := alltoallArgs(who, dst, src, dstStride, srcStride, n, g.Size)
	ps := checkPSync(who, pSync, AllToAllSyncSize)
	rt.AlltoallSet(who, g, me, ps, x)
}

// AllToAll32 exchanges n 32-bit elements with every PE of the active set.
// Every PE of set calls it with the same n and set. dst, src and pSync (AllToAllSyncSize
// elements holding SyncValue, not in use by another collective) are symmetric. Bad
// arguments panic naming the argument; there is no error result.
func AllToAll32[T Word32](dst, src []T, n int, set ActiveSet, pSync []int64) {
	alltoallSet("shmem.AllToAll32", dst, src, 1, 1, n, set, pSync)
}

// AllToAll64 exchanges n 64-bit elements with every PE of the active set.
// Every PE of set calls it with the same n and set. dst, src and pSync (AllToAllSyncSize
// elements holding SyncValue, not in use by another collective) are symmetric. Bad
// arguments panic naming the argument; there is no error result.
func AllToAll64[T Word64](dst, src []T, n int, set ActiveSet, pSync []int64) {
	alltoallSet("shmem.AllToAll64", dst, src, 1, 1, n, set, pSync)
}

// AllToAllS32 is AllToAll32 with strides (in elements).
// Every PE of set calls it with the same strides, n and set. dst, src and pSync
// (AllToAllSSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func AllToAllS32[T Word32](dst, src []T, dstStride, srcStride, n int, set ActiveSet, pSync []int64) {
	alltoallSet("shmem.AllToAllS32", dst, src, dstStride, srcStride, n, set, pSync)
}

// AllToAllS64 is AllToAll64 with strides (in elements).
// Every PE of set calls it with the same strides, n and set. dst, src and pSync
// (AllToAllSSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func AllToAllS64[T Word64](dst, src []T, dstStride, srcStride, n int, set ActiveSet, pSync []int64) {
	alltoallSet("shmem.AllToAllS64", dst, src, dstStride, srcStride, n, set, pSync)
}

// AllToAll exchanges n elements with every member of team t.
// Every member of t calls it with the same n (and strides). dst and src are symmetric; no
// work arrays. The error is always nil (the C routine's int result): bad arguments, and an
// invalid team, panic naming the argument.
func AllToAll[T any](t Team, dst, src []T, n int) error {
	return AllToAllS(t, dst, src, 1, 1, n)
}

// AllToAllS is AllToAll with strides (in elements).
// Every member of t calls it with the same n (and strides). dst and src are symmetric; no
// work arrays. The error is always nil (the C routine's int result): bad arguments, and an
// invalid team, panic naming the argument.
func AllToAllS[T any](t Team, dst, src []T, dstStride, srcStride, n int) error {
	const who = "shmem.AllToAllS"
	t.t.Check(who)
	checkNoPointers[T](who)
	x := alltoallArgs(who, dst, src, dstStride, srcStride, n, t.t.G.Size)
	rt.AlltoallTeam(who, t.t, x)
	return nil
}
