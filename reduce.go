package shmem

import (
	"fmt"

	"github.com/goshmem/shmem/kernels"
	rt "github.com/goshmem/shmem/runtime"
)

// Reductions, in the active-set form (*ToAll, with pWrk and pSync as the specification
// has them) and the team form (*Reduce). dst[i] becomes src[i] combined over every PE of
// the set or team; len(src) is nreduce and must be the same on every PE; dst may be src
// but must not partly overlap it. Integers wrap; float min and max are C's
// a < b ? a : b; the order of combination is fixed for a given algorithm and PE count
// (see the algorithms in package rt), so float results repeat run to run.

func toAll[T kernels.Elem](who string, op kernels.Op, dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	rt.Check(who)
	g, me := set.group(who)
	n := checkReduce(who, dst, src)
	need := max(n/2+1, ReduceMinWrkDataSize)
	if len(pWrk) < need {
		panic(fmt.Sprintf("%s: pWrk has %d elements, needs max(nreduce/2+1, ReduceMinWrkDataSize) = %d", who, len(pWrk), need))
	}
	rt.CheckSym(who, "pWrk", sliceAddr(pWrk), uintptr(need)*sizeOf[T]())
	ps := checkPSync(who, pSync, ReduceSyncSize)
	rt.ReduceSet(who, op, g, me, ps, dst[:n], src)
}

func teamReduce[T kernels.Elem](who string, op kernels.Op, t Team, dst, src []T) error {
	t.t.Check(who)
	n := checkReduce(who, dst, src)
	rt.ReduceTeam(who, op, t.t, dst[:n], src)
	return nil
}

func checkReduce[T any](who string, dst, src []T) int {
	n := len(src)
	if len(dst) < n {
		panic(fmt.Sprintf("%s: dst has %d elements, src %d", who, len(dst), n))
	}
	size := uintptr(n) * sizeOf[T]()
	rt.CheckSym(who, "dst", sliceAddr(dst), size)
	rt.CheckSym(who, "src", sliceAddr(src), size)
	rt.CheckOverlap(who, sliceAddr(dst), sliceAddr(src), size, size)
	return n
}

// SumToAll sets dst to the sum of src over the active set (shmem_TYPE_sum_to_all).
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func SumToAll[T Arithmetic](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.SumToAll", kernels.Sum, dst, src, set, pWrk, pSync)
}

// ProdToAll sets dst to the product of src over the active set.
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func ProdToAll[T Arithmetic](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.ProdToAll", kernels.Prod, dst, src, set, pWrk, pSync)
}

// MinToAll sets dst to the minimum of src over the active set.
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func MinToAll[T Ordered](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.MinToAll", kernels.Min, dst, src, set, pWrk, pSync)
}

// MaxToAll sets dst to the maximum of src over the active set.
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func MaxToAll[T Ordered](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.MaxToAll", kernels.Max, dst, src, set, pWrk, pSync)
}

// AndToAll sets dst to the bitwise and of src over the active set.
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func AndToAll[T Bitwise](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.AndToAll", kernels.And, dst, src, set, pWrk, pSync)
}

// OrToAll sets dst to the bitwise or of src over the active set.
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func OrToAll[T Bitwise](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.OrToAll", kernels.Or, dst, src, set, pWrk, pSync)
}

// XorToAll sets dst to the bitwise xor of src over the active set.
// Every PE of set calls it with the same set and len(src). dst (at least len(src)
// elements), src, pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements) and
// pSync (ReduceSyncSize elements holding SyncValue, not in use by another collective) are
// symmetric. Bad arguments panic naming the argument; there is no error result.
func XorToAll[T Bitwise](dst, src []T, set ActiveSet, pWrk []T, pSync []int64) {
	toAll("shmem.XorToAll", kernels.Xor, dst, src, set, pWrk, pSync)
}

// SumReduce sets dst to the sum of src over team t (shmem_TYPE_sum_reduce).
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func SumReduce[T Arithmetic](t Team, dst, src []T) error {
	return teamReduce("shmem.SumReduce", kernels.Sum, t, dst, src)
}

// ProdReduce sets dst to the product of src over team t.
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func ProdReduce[T Arithmetic](t Team, dst, src []T) error {
	return teamReduce("shmem.ProdReduce", kernels.Prod, t, dst, src)
}

// MinReduce sets dst to the minimum of src over team t.
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func MinReduce[T Ordered](t Team, dst, src []T) error {
	return teamReduce("shmem.MinReduce", kernels.Min, t, dst, src)
}

// MaxReduce sets dst to the maximum of src over team t.
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func MaxReduce[T Ordered](t Team, dst, src []T) error {
	return teamReduce("shmem.MaxReduce", kernels.Max, t, dst, src)
}

// AndReduce sets dst to the bitwise and of src over team t.
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func AndReduce[T Bitwise](t Team, dst, src []T) error {
	return teamReduce("shmem.AndReduce", kernels.And, t, dst, src)
}

// OrReduce sets dst to the bitwise or of src over team t.
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func OrReduce[T Bitwise](t Team, dst, src []T) error {
	return teamReduce("shmem.OrReduce", kernels.Or, t, dst, src)
}

// XorReduce sets dst to the bitwise xor of src over team t.
// Every member of t calls it with the same len(src). dst (at least len(src) elements) and
// src are symmetric; no work arrays. The error is always nil (the C routine's int result):
// bad arguments, and an invalid team, panic naming the argument.
func XorReduce[T Bitwise](t Team, dst, src []T) error {
	return teamReduce("shmem.XorReduce", kernels.Xor, t, dst, src)
}
