package shmem

import (
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Atomic memory operations on a symmetric word of PE pe. On shared memory each is one
// sync/atomic operation on the peer's memory (a locked instruction on amd64, LSE or
// exclusive pairs on arm64), so it is atomic against every other AMO from every PE and
// goroutine. 8- and 16-bit bitwise AMOs update their aligned 32-bit container by
// compare-and-swap, leaving the neighbours intact. Values travel as their bits: integers
// wrap as Go's arithmetic does; float fetch, set and swap move the bits unchanged.

// bits is v's bit pattern, zero-extended; fromBits is its inverse.
func bits[T any](v T) uint64 {
	var b uint64
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&b)), unsafe.Sizeof(v)), unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)))
	return b
}

func fromBits[T any](b uint64) T {
	var v T
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)), unsafe.Slice((*byte)(unsafe.Pointer(&b)), unsafe.Sizeof(v)))
	return v
}

func amo[T any](who string, c *rt.Ctx, op rt.AMOOp, dst *T, v, cond T, pe int) T {
	if dst == nil {
		panic(who + ": nil pointer")
	}
	return fromBits[T](c.AMO(who, op, unsafe.Sizeof(v), unsafe.Pointer(dst), bits(v), bits(cond), pe))
}

// AtomicFetch loads *src on PE pe atomically.
func AtomicFetch[T ExtAMO](src *T, pe int) T {
	var z T
	return amo("shmem.AtomicFetch", rt.DefaultCtx, rt.AMOFetch, src, z, z, pe)
}

// AtomicSet stores v into *dst on PE pe atomically.
func AtomicSet[T ExtAMO](dst *T, v T, pe int) {
	amo("shmem.AtomicSet", rt.DefaultCtx, rt.AMOSet|rt.AMOPost, dst, v, v, pe)
}

// AtomicSwap stores v into *dst on PE pe and returns the old value.
func AtomicSwap[T ExtAMO](dst *T, v T, pe int) T {
	return amo("shmem.AtomicSwap", rt.DefaultCtx, rt.AMOSwap, dst, v, v, pe)
}

// AtomicCompareSwap stores v into *dst on PE pe if it equals cond, and returns the value it
// held before (equal to cond exactly when the swap happened).
func AtomicCompareSwap[T AMO](dst *T, cond, v T, pe int) T {
	return amo("shmem.AtomicCompareSwap", rt.DefaultCtx, rt.AMOCompareSwap, dst, v, cond, pe)
}

// AtomicFetchAdd adds v to *dst on PE pe and returns the old value (integers wrap).
func AtomicFetchAdd[T AMO](dst *T, v T, pe int) T {
	return amo("shmem.AtomicFetchAdd", rt.DefaultCtx, rt.AMOFetchAdd, dst, v, v, pe)
}

// AtomicAdd adds v to *dst on PE pe.
func AtomicAdd[T AMO](dst *T, v T, pe int) {
	amo("shmem.AtomicAdd", rt.DefaultCtx, rt.AMOFetchAdd|rt.AMOPost, dst, v, v, pe)
}

// AtomicFetchInc adds 1 to *dst on PE pe and returns the old value.
func AtomicFetchInc[T AMO](dst *T, pe int) T {
	return amo("shmem.AtomicFetchInc", rt.DefaultCtx, rt.AMOFetchAdd, dst, 1, 1, pe)
}

// AtomicInc adds 1 to *dst on PE pe.
func AtomicInc[T AMO](dst *T, pe int) {
	amo("shmem.AtomicInc", rt.DefaultCtx, rt.AMOFetchAdd|rt.AMOPost, dst, 1, 1, pe)
}

// AtomicFetchAnd ands v into *dst on PE pe and returns the old value.
func AtomicFetchAnd[T Bitwise](dst *T, v T, pe int) T {
	return amo("shmem.AtomicFetchAnd", rt.DefaultCtx, rt.AMOFetchAnd, dst, v, v, pe)
}

// AtomicAnd ands v into *dst on PE pe.
func AtomicAnd[T Bitwise](dst *T, v T, pe int) {
	amo("shmem.AtomicAnd", rt.DefaultCtx, rt.AMOFetchAnd|rt.AMOPost, dst, v, v, pe)
}

// AtomicFetchOr ors v into *dst on PE pe and returns the old value.
func AtomicFetchOr[T Bitwise](dst *T, v T, pe int) T {
	return amo("shmem.AtomicFetchOr", rt.DefaultCtx, rt.AMOFetchOr, dst, v, v, pe)
}

// AtomicOr ors v into *dst on PE pe.
func AtomicOr[T Bitwise](dst *T, v T, pe int) {
	amo("shmem.AtomicOr", rt.DefaultCtx, rt.AMOFetchOr|rt.AMOPost, dst, v, v, pe)
}

// AtomicFetchXor xors v into *dst on PE pe and returns the old value.
func AtomicFetchXor[T Bitwise](dst *T, v T, pe int) T {
	return amo("shmem.AtomicFetchXor", rt.DefaultCtx, rt.AMOFetchXor, dst, v, v, pe)
}

// AtomicXor xors v into *dst on PE pe.
func AtomicXor[T Bitwise](dst *T, v T, pe int) {
	amo("shmem.AtomicXor", rt.DefaultCtx, rt.AMOFetchXor|rt.AMOPost, dst, v, v, pe)
}
