package rt

import (
	"fmt"
	"unsafe"
)

// Remote memory access is memmove between my memory and a peer's segment. Every routine
// here checks its arguments first: who names the public routine in panics.

func bytes(p unsafe.Pointer, n uintptr) []byte { return unsafe.Slice((*byte)(p), n) }

// Put copies n bytes from local src to the symmetric dst on PE pe. On shared memory the copy
// is complete when Put returns; Quiet orders it before later accesses as seen by other CPUs.
func Put(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	Check(who)
	CheckPE(who, pe)
	CheckSym(who, "dst", dst, n)
	if n == 0 {
		return
	}
	if allShm { // the shared-memory transport's Put, inline
		copyBytes(Remote(dst, pe), src, n)
		Notify(pe)
		return
	}
	transports[pe].Put(dst, src, n, pe)
}

// Get copies n bytes from the symmetric src on PE pe to local dst.
func Get(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	Check(who)
	CheckPE(who, pe)
	CheckSym(who, "src", src, n)
	if n == 0 {
		return
	}
	if allShm { // the shared-memory transport's Get, inline
		copyBytes(dst, Remote(src, pe), n)
		return
	}
	transports[pe].Get(dst, src, n, pe)
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

// IPut copies n elements of size bytes from src (every srcStride-th element) to the
// symmetric dst on PE pe (every dstStride-th element).
func IPut(who string, dst, src unsafe.Pointer, dstStride, srcStride, n int, size uintptr, pe int) {
	Check(who)
	CheckPE(who, pe)
	CheckStrided(who, dstStride, srcStride, n)
	CheckSym(who, "dst", dst, StridedBytes(who, "dst", n, dstStride, size))
	StridedBytes(who, "src", n, srcStride, size)
	if n == 0 {
		return
	}
	transports[pe].PutStrided(dst, dstStride, src, srcStride, n, size, pe)
}

// IGet copies n elements from the symmetric src on PE pe (every srcStride-th) to local dst
// (every dstStride-th).
func IGet(who string, dst, src unsafe.Pointer, dstStride, srcStride, n int, size uintptr, pe int) {
	Check(who)
	CheckPE(who, pe)
	CheckStrided(who, dstStride, srcStride, n)
	CheckSym(who, "src", src, StridedBytes(who, "src", n, srcStride, size))
	StridedBytes(who, "dst", n, dstStride, size)
	if n == 0 {
		return
	}
	transports[pe].GetStrided(dst, dstStride, src, srcStride, n, size, pe)
}

// PutSignal puts n bytes from local src to the symmetric dst on PE pe, then updates the
// symmetric signal word sig there (adds signal when add, else stores it) atomically,
// ordered after the data: a PE that sees the signal sees the data. sigArg names sig in
// messages.
func PutSignal(who, sigArg string, dst, src unsafe.Pointer, n uintptr, sig unsafe.Pointer, signal uint64, add bool, pe int) {
	AMOTargetArg(who, sigArg, sig, 8, pe)
	Put(who, dst, src, n, pe)
	OrderBefore(pe)
	// On shared memory the signal's atomic is a release on arm64 and a locked instruction
	// on amd64: the data's stores are visible before the signal is.
	op := AMOSet
	if add {
		op = AMOFetchAdd
	}
	AMO(who, op|AMOPost, 8, sig, signal, 0, pe)
}
