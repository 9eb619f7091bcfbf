package shmem

import (
	"fmt"

	rt "github.com/goshmem/shmem/runtime"
)

// Collect concatenates every PE's src into dst on every PE, in PE order: each PE's
// contribution may differ in length (collect) or must be the same (fcollect). dst must
// hold the total and must not overlap src.

func collectArgs[T any](who string, dst, src []T, npes int, fixed bool) rt.CollectArgs {
	size := sizeOf[T]()
	b := rt.Bytes(who, "src", len(src), size)
	if fixed {
		if need := rt.Mul(who, "dst elements", npes, len(src)); len(dst) < need {
			panic(fmt.Sprintf("%s: dst has %d elements, %d PEs × %d need %d", who, len(dst), npes, len(src), need))
		}
	}
	db := rt.Bytes(who, "dst", len(dst), size)
	rt.CheckSym(who, "dst", sliceAddr(dst), db)
	rt.CheckSym(who, "src", sliceAddr(src), b)
	rt.CheckDisjoint(who, sliceAddr(dst), sliceAddr(src), db, b)
	return rt.CollectArgs{Dst: sliceAddr(dst), Src: sliceAddr(src), Bytes: b, Fixed: fixed, DstBytes: db}
}

func collectSet[T any](who string, dst, src []T, fixed bool, set ActiveSet, pSync []int64) {
	rt.Check(who)
	g, me := set.group(who)
	x := collectArgs(who, dst, src, g.Size, fixed)
	ps := checkPSync(who, pSync, CollectSyncSize)
	rt.CollectSet(who, g, me, ps, x)
}

// Collect32 concatenates the active set's 32-bit src arrays (lengths may differ) into dst.
// Every PE of set calls it with the same set. dst, src and pSync (CollectSyncSize elements
// holding SyncValue, not in use by another collective) are symmetric. Bad arguments panic
// naming the argument; there is no error result.
func Collect32[T Word32](dst, src []T, set ActiveSet, pSync []int64) {
	collectSet("shmem.Collect32", dst, src, false, set, pSync)
}

// Collect64 concatenates the active set's 64-bit src arrays (lengths may differ) into dst.
// Every PE of set calls it with the same set. dst, src and pSync (CollectSyncSize elements
// holding SyncValue, not in use by another collective) are symmetric. Bad arguments panic
// naming the argument; there is no error result.
func Collect64[T Word64](dst, src []T, set ActiveSet, pSync []int64) {
	collectSet("shmem.Collect64", dst, src, false, set, pSync)
}

// FCollect32 concatenates the active set's 32-bit src arrays (one length on all) into dst.
// Every PE of set calls it with the same set. dst, src and pSync (CollectSyncSize elements
// holding SyncValue, not in use by another collective) are symmetric. Bad arguments panic
// naming the argument; there is no error result.
func FCollect32[T Word32](dst, src []T, set ActiveSet, pSync []int64) {
	collectSet("shmem.FCollect32", dst, src, true, set, pSync)
}

// FCollect64 concatenates the active set's 64-bit src arrays (one length on all) into dst.
// Every PE of set calls it with the same set. dst, src and pSync (CollectSyncSize elements
// holding SyncValue, not in use by another collective) are symmetric. Bad arguments panic
// naming the argument; there is no error result.
func FCollect64[T Word64](dst, src []T, set ActiveSet, pSync []int64) {
	collectSet("shmem.FCollect64", dst, src, true, set, pSync)
}

// Collect concatenates the src arrays of t's members (lengths may differ) into dst.
// Every member of t calls it. dst and src are symmetric; no work arrays. The error is
// always nil (the C routine's int result): bad arguments, and an invalid team, panic
// naming the argument.
func Collect[T any](t Team, dst, src []T) error {
	return teamCollect("shmem.Collect", t, dst, src, false)
}

// FCollect concatenates the src arrays of t's members (one length on all) into dst.
// Every member of t calls it. dst and src are symmetric; no work arrays. The error is
// always nil (the C routine's int result): bad arguments, and an invalid team, panic
// naming the argument.
func FCollect[T any](t Team, dst, src []T) error {
	return teamCollect("shmem.FCollect", t, dst, src, true)
}

func teamCollect[T any](who string, t Team, dst, src []T, fixed bool) error {
	t.t.Check(who)
	checkNoPointers[T](who)
	rt.CollectTeam(who, t.t, collectArgs(who, dst, src, t.t.G.Size, fixed))
	return nil
}
