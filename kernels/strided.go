package kernels

import (
	"fmt"
	"unsafe"
)

// stridedKernels are one path's strided copies for one element size. Each takes n as a
// multiple of its block; nil means the path has none (the Go loop runs):
//
//	pack:   dst[i] = src[2i]   (reads src[0:2n] whole)
//	unpack: dst[2i] = src[i]
//	even:   dst[2i] = src[2i]
//
// Elements of dst between the strided ones are never written.
type stridedKernels struct {
	pack, unpack, even func(dst, src *byte, n int)
	block              [3]int // of pack, unpack, even
}

// Strided32 copies n elements: dst[i*dstStride] = src[i*srcStride] for i < n. Strides are
// in elements and at least 1; dst elements between the strided ones are not written. The
// unit-stride case is copy(). dst and src must not overlap (except for unit strides, where
// the copy behaves as copy()). It panics on a stride below 1, a negative n, or a slice too
// short for n elements.
func Strided32(dst []uint32, dstStride int, src []uint32, srcStride int, n int) {
	if !checkStrided("Strided32", len(dst), dstStride, len(src), srcStride, n) {
		return
	}
	if dstStride == 1 && srcStride == 1 {
		copy(dst[:n], src[:n])
		return
	}
	stridedCopy[uint32](&cur.strided[0], &dst[0], dstStride, &src[0], srcStride, n, len(src))
}

// Strided64 is Strided32 for 8-byte elements.
func Strided64(dst []uint64, dstStride int, src []uint64, srcStride int, n int) {
	if !checkStrided("Strided64", len(dst), dstStride, len(src), srcStride, n) {
		return
	}
	if dstStride == 1 && srcStride == 1 {
		copy(dst[:n], src[:n])
		return
	}
	stridedCopy[uint64](&cur.strided[1], &dst[0], dstStride, &src[0], srcStride, n, len(src))
}

// checkStrided validates the arguments; it reports whether there is anything to copy.
func checkStrided(fn string, ld, ds, ls, ss, n int) bool {
	switch {
	case ds < 1:
		panic(fmt.Sprintf("kernels.%s: dstStride = %d, want >= 1", fn, ds))
	case ss < 1:
		panic(fmt.Sprintf("kernels.%s: srcStride = %d, want >= 1", fn, ss))
	case n < 0:
		panic(fmt.Sprintf("kernels.%s: n = %d, want >= 0", fn, n))
	case n == 0:
		return false
	case ld == 0 || (n-1) > (ld-1)/ds:
		panic(fmt.Sprintf("kernels.%s: len(dst) = %d, too short for %d elements at stride %d", fn, ld, n, ds))
	case ls == 0 || (n-1) > (ls-1)/ss:
		panic(fmt.Sprintf("kernels.%s: len(src) = %d, too short for %d elements at stride %d", fn, ls, n, ss))
	}
	return true
}

// stridedCopy runs the path's kernel for a stride-2 pattern on whole blocks and the Go
// loop on the rest.
func stridedCopy[T uint32 | uint64](k *stridedKernels, d *T, ds int, s *T, ss int, n, srcLen int) {
	done := 0
	dp, sp := (*byte)(unsafe.Pointer(d)), (*byte)(unsafe.Pointer(s))
	switch {
	case ds == 1 && ss == 2 && k.pack != nil:
		// pack reads src[0:2m]; src holds 2n-1 elements at least.
		done = min(n, srcLen/2) / k.block[0] * k.block[0]
		if done > 0 {
			k.pack(dp, sp, done)
		}
	case ds == 2 && ss == 1 && k.unpack != nil:
		done = n / k.block[1] * k.block[1]
		if done > 0 {
			k.unpack(dp, sp, done)
		}
	case ds == 2 && ss == 2 && k.even != nil:
		done = n / k.block[2] * k.block[2]
		if done > 0 {
			k.even(dp, sp, done)
		}
	}
	if done < n {
		var z T
		sz := int(unsafe.Sizeof(z))
		stridedLoop((*T)(unsafe.Add(unsafe.Pointer(d), done*ds*sz)), ds, (*T)(unsafe.Add(unsafe.Pointer(s), done*ss*sz)), ss, n-done)
	}
}

// stridedLoop is the Go strided copy (the generic path and every other stride), bounds
// already checked. Addresses are formed for accessed elements only (never one stride past
// the end: checkptr rejects that, and so does the garbage collector's view of pointers).
func stridedLoop[T uint32 | uint64](d *T, ds int, s *T, ss int, n int) {
	var z T
	sz := unsafe.Sizeof(z)
	dp, sp := unsafe.Pointer(d), unsafe.Pointer(s)
	dstep, sstep := uintptr(ds)*sz, uintptr(ss)*sz
	var do, so uintptr // byte offsets of element i
	i := 0
	for ; i+4 <= n; i += 4 {
		v0 := *(*T)(unsafe.Add(sp, so))
		v1 := *(*T)(unsafe.Add(sp, so+sstep))
		v2 := *(*T)(unsafe.Add(sp, so+2*sstep))
		v3 := *(*T)(unsafe.Add(sp, so+3*sstep))
		*(*T)(unsafe.Add(dp, do)) = v0
		*(*T)(unsafe.Add(dp, do+dstep)) = v1
		*(*T)(unsafe.Add(dp, do+2*dstep)) = v2
		*(*T)(unsafe.Add(dp, do+3*dstep)) = v3
		so += 4 * sstep
		do += 4 * dstep
	}
	for ; i < n; i++ {
		*(*T)(unsafe.Add(dp, do)) = *(*T)(unsafe.Add(sp, so))
		so += sstep
		do += dstep
	}
}
