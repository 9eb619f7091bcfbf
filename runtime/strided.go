package rt

import (
	"unsafe"

	"github.com/goshmem/shmem/kernels"
)

// StridedCopy moves n elements of size bytes: dst[i*dstStride] = src[i*srcStride]. 4- and
// 8-byte elements go through the strided-copy kernels; unit strides are one copy.
func StridedCopy(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int, n int, size uintptr) {
	if n == 0 {
		return
	}
	if dstStride == 1 && srcStride == 1 {
		kernels.Copy(bytes(dst, uintptr(n)*size), bytes(src, uintptr(n)*size))
		return
	}
	switch size {
	case 4:
		kernels.Strided32(unsafe.Slice((*uint32)(dst), (n-1)*dstStride+1), dstStride,
			unsafe.Slice((*uint32)(src), (n-1)*srcStride+1), srcStride, n)
	case 8:
		kernels.Strided64(unsafe.Slice((*uint64)(dst), (n-1)*dstStride+1), dstStride,
			unsafe.Slice((*uint64)(src), (n-1)*srcStride+1), srcStride, n)
	default:
		for i := range n {
			copy(bytes(unsafe.Add(dst, uintptr(i*dstStride)*size), size), bytes(unsafe.Add(src, uintptr(i*srcStride)*size), size))
		}
	}
}
