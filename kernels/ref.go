package kernels

import "unsafe"

// The pure-Go references: always compiled, the generic path, the tails of the vector paths
// and the tests' oracle. Each computes dst[i] = op(a[i], b[i]) for i < n over raw pointers,
// reading a[i] and b[i] before writing dst[i], so dst may be a or b.

type integer interface {
	int8 | int16 | int32 | int64 | int | uint8 | uint16 | uint32 | uint64 | uint | uintptr
}

type ordered interface {
	integer | float32 | float64
}

func views[T any](dst, a, b *byte, n int) (d, x, y []T) {
	d = unsafe.Slice((*T)(unsafe.Pointer(dst)), n)
	x = unsafe.Slice((*T)(unsafe.Pointer(a)), n)
	y = unsafe.Slice((*T)(unsafe.Pointer(b)), n)
	return d, x[:len(d)], y[:len(d)]
}

func refSum[T Elem](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		d[i] = x[i] + y[i]
	}
}

func refProd[T Elem](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		d[i] = x[i] * y[i]
	}
}

// refMin is the C reference a < b ? a : b; for floats a NaN or equal zeros give b.
func refMin[T ordered](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		if x[i] < y[i] {
			d[i] = x[i]
		} else {
			d[i] = y[i]
		}
	}
}

// refMax is a > b ? a : b; for floats a NaN or equal zeros give b.
func refMax[T ordered](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		if x[i] > y[i] {
			d[i] = x[i]
		} else {
			d[i] = y[i]
		}
	}
}

func refAnd[T integer](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		d[i] = x[i] & y[i]
	}
}

func refOr[T integer](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		d[i] = x[i] | y[i]
	}
}

func refXor[T integer](dst, a, b *byte, n int) {
	d, x, y := views[T](dst, a, b, n)
	for i := range d {
		d[i] = x[i] ^ y[i]
	}
}
