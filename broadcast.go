package shmem

import (
	"fmt"

	rt "github.com/goshmem/shmem/runtime"
)

// Broadcast copies n elements of src on the root to dst on the other PEs (the active-set
// forms: the root's dst is left alone) or on every member (the team form).

func bcastArgs[T any](who string, dst, src []T, n, root, size int, toRoot, amRoot bool) rt.BcastArgs {
	if n < 0 {
		panic(fmt.Sprintf("%s: negative element count %d", who, n))
	}
	if root < 0 || root >= size {
		panic(fmt.Sprintf("%s: root %d out of range [0,%d)", who, root, size))
	}
	if (toRoot || !amRoot) && len(dst) < n {
		panic(fmt.Sprintf("%s: dst has %d elements, %d broadcast", who, len(dst), n))
	}
	if len(src) < n {
		panic(fmt.Sprintf("%s: src has %d elements, %d broadcast", who, len(src), n))
	}
	b := uintptr(n) * sizeOf[T]()
	rt.CheckSym(who, "dst", sliceAddr(dst), min(b, uintptr(len(dst))*sizeOf[T]()))
	rt.CheckSym(who, "src", sliceAddr(src), b)
	rt.CheckOverlap(who, sliceAddr(dst), sliceAddr(src), b, b)
	return rt.BcastArgs{Dst: sliceAddr(dst), Src: sliceAddr(src), Bytes: b, Root: root, ToRoot: toRoot}
}

func broadcastSet[T any](who string, dst, src []T, n, root int, set ActiveSet, pSync []int64) {
	rt.Check(who)
	g, me := set.group(who)
	x := bcastArgs(who, dst, src, n, root, g.Size, false, me == root)
	ps := checkPSync(who, pSync, BcastSyncSize)
	rt.BroadcastSet(who, g, me, ps, x)
}

// Broadcast32 copies n 32-bit elements from src on the active set's root-th PE to dst on
// the others.
// Every PE of set calls it with the same n, root and set. dst, src and pSync
// (BcastSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func Broadcast32[T Word32](dst, src []T, n, root int, set ActiveSet, pSync []int64) {
	broadcastSet("shmem.Broadcast32", dst, src, n, root, set, pSync)
}

// Broadcast64 copies n 64-bit elements from src on the active set's root-th PE to dst on
// the others.
// Every PE of set calls it with the same n, root and set. dst, src and pSync
// (BcastSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func Broadcast64[T Word64](dst, src []T, n, root int, set ActiveSet, pSync []int64) {
	broadcastSet("shmem.Broadcast64", dst, src, n, root, set, pSync)
}

// Broadcast copies len(dst) elements of src on member root of t to dst on every member,
// the root included.
// Every member of t calls it with the same len(dst) and root. dst and src are symmetric;
// no work arrays. The error is always nil (the C routine's int result): bad arguments, and
// an invalid team, panic naming the argument.
func Broadcast[T any](t Team, dst, src []T, root int) error {
	const who = "shmem.Broadcast"
	t.t.Check(who)
	checkNoPointers[T](who)
	x := bcastArgs(who, dst, src, len(dst), root, t.t.G.Size, true, t.t.Me == root)
	rt.BroadcastTeam(who, t.t, x)
	return nil
}
