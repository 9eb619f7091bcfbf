package rt

import "unsafe"

// StridedCopy moves n elements of size bytes: dst[i*dstStride] = src[i*srcStride].
func StridedCopy(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int, n int, size uintptr) {
	if dstStride == 1 && srcStride == 1 {
		copy(bytes(dst, uintptr(n)*size), bytes(src, uintptr(n)*size))
		return
	}
	switch size {
	case 4:
		d := unsafe.Slice((*uint32)(dst), (n-1)*dstStride+1)
		s := unsafe.Slice((*uint32)(src), (n-1)*srcStride+1)
		for i := range n {
			d[i*dstStride] = s[i*srcStride]
		}
	case 8:
		d := unsafe.Slice((*uint64)(dst), (n-1)*dstStride+1)
		s := unsafe.Slice((*uint64)(src), (n-1)*srcStride+1)
		for i := range n {
			d[i*dstStride] = s[i*srcStride]
		}
	default:
		for i := range n {
			copy(bytes(unsafe.Add(dst, uintptr(i*dstStride)*size), size), bytes(unsafe.Add(src, uintptr(i*srcStride)*size), size))
		}
	}
}
