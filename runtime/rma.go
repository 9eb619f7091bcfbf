package rt

import (
	"fmt"
	"unsafe"
)

// Remote memory access is memmove between my memory and a peer's segment. Every routine
// here checks its arguments first: who names the public routine in panics.

func bytes(p unsafe.Pointer, n uintptr) []byte { return unsafe.Slice((*byte)(p), n) }

// Put copies n bytes from local src to the symmetric dst on PE pe: the default context's
// Put (see Ctx.Put).
func Put(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	DefaultCtx.Put(who, dst, src, n, pe)
}

// Get copies n bytes from the symmetric src on PE pe to local dst (the default context's).
func Get(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	DefaultCtx.Get(who, dst, src, n, pe)
}

// StridedSpan is the bytes that n elements of size at stride (in elements) cover, or
// ^uintptr(0) when that overflows: no memory range is that large, so a bounds check fails.
// Prefer StridedBytes, whose panic names the routine and the argument.
func StridedSpan(n, stride int, size uintptr) uintptr {
	if n == 0 {
		return 0
	}
	e, ok := MulOK(uintptr(n-1), uintptr(stride))
	if !ok || e+1 == 0 {
		return ^uintptr(0)
	}
	b, ok := MulOK(e+1, size)
	if !ok {
		return ^uintptr(0)
	}
	return b
}

// CheckStrided panics on a stride below 1 or a negative count; the slices' lengths are
// checked by the caller, which knows them in elements.
func CheckStrided(who string, dstStride, srcStride, n int) {
	switch {
	case n < 0:
		panic(fmt.Sprintf("%s: negative element count %d", who, n))
	case dstStride < 1:
		panic(fmt.Sprintf("%s: dst stride %d must be at least 1", who, dstStride))
	case srcStride < 1:
		panic(fmt.Sprintf("%s: src stride %d must be at least 1", who, srcStride))
	}
}

// IPut is the default context's strided put (see Ctx.IPut).
func IPut(who string, dst, src unsafe.Pointer, dstStride, srcStride, n int, size uintptr, pe int) {
	DefaultCtx.IPut(who, dst, src, dstStride, srcStride, n, size, pe)
}

// IGet is the default context's strided get (see Ctx.IGet).
func IGet(who string, dst, src unsafe.Pointer, dstStride, srcStride, n int, size uintptr, pe int) {
	DefaultCtx.IGet(who, dst, src, dstStride, srcStride, n, size, pe)
}

// PutSignal is the default context's put-with-signal (Ctx.PutSignal).
func PutSignal(who, sigArg string, dst, src unsafe.Pointer, n uintptr, sig unsafe.Pointer, signal uint64, add bool, pe int) {
	DefaultCtx.PutSignal(who, sigArg, dst, src, n, sig, signal, add, pe)
}
