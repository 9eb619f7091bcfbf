package kernels

import (
	"fmt"
	"testing"
	"unsafe"
)

// Benchmarks: b.SetBytes is the size of dst (one operand), so MB/s compare directly with
// copy() of the same size. Combine reads two operands and writes one: in bytes moved it is
// 1.5x copy()'s traffic per byte of dst.

var benchSizes = []struct {
	name  string
	bytes int
}{{"4KiB", 4 << 10}, {"256KiB", 256 << 10}, {"16MiB", 16 << 20}}

// aligned returns n elements starting on a 64-byte boundary.
func aligned[T any](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	buf := make([]byte, n*size+64)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1 // fault the pages in before timing
	}
	off := int(-uintptr(unsafe.Pointer(&buf[0])) & 63)
	return unsafe.Slice((*T)(unsafe.Pointer(&buf[off])), n)
}

func benchCombine[T Elem](b *testing.B) {
	var z T
	size := int(unsafe.Sizeof(z))
	for op := Op(0); op < numOps; op++ {
		if !Valid[T](op) {
			continue
		}
		for _, sz := range benchSizes {
			n := sz.bytes / size
			dst, src := aligned[T](n), aligned[T](n)
			// Values that stay finite under repeated in-place ops: producing NaN from
			// Inf*0 (or computing on NaN) takes a slow path on some CPUs and would measure
			// that instead of the kernel.
			for i := range dst {
				dst[i], src[i] = num[T](i%7+1), unit[T](i)
			}
			for _, p := range Paths() {
				b.Run(fmt.Sprintf("%v/%s/%v", op, sz.name, p), func(b *testing.B) {
					defer Use(p)()
					b.SetBytes(int64(sz.bytes))
					for b.Loop() {
						Combine(op, dst, src)
					}
				})
			}
		}
	}
}

// BenchmarkCopy is the limit: copy() of the same sizes.
func BenchmarkCopy(b *testing.B) {
	for _, sz := range benchSizes {
		dst, src := aligned[byte](sz.bytes), aligned[byte](sz.bytes)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(sz.bytes))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkCombineSmall measures dispatch: one element, the collectives' common case.
func BenchmarkCombineSmall(b *testing.B) {
	for _, p := range Paths() {
		b.Run(p.String(), func(b *testing.B) {
			defer Use(p)()
			x, y := []int64{1}, []int64{2}
			for b.Loop() {
				Combine(Sum, x, y)
			}
		})
	}
}

// BenchmarkStrided copies n elements of 4 or 8 bytes (SetBytes: n*size, the bytes moved
// out of src) with each path and with a plain Go loop over slices.
func BenchmarkStrided(b *testing.B) {
	benchStrided[uint32](b, "32", Strided32)
	benchStrided[uint64](b, "64", Strided64)
}

func benchStrided[T uint32 | uint64](b *testing.B, bitsName string, f func([]T, int, []T, int, int)) {
	var z T
	size := int(unsafe.Sizeof(z))
	for _, st := range [][2]int{{2, 2}, {1, 2}, {2, 1}, {3, 5}, {1, 1}} {
		ds, ss := st[0], st[1]
		for _, sz := range benchSizes[:2] {
			n := sz.bytes / size
			dst, src := aligned[T](n*ds), aligned[T](n*ss)
			name := fmt.Sprintf("%s/ds=%d,ss=%d/%s", bitsName, ds, ss, sz.name)
			b.Run(name+"/goloop", func(b *testing.B) {
				b.SetBytes(int64(sz.bytes))
				for b.Loop() {
					for i := 0; i < n; i++ {
						dst[i*ds] = src[i*ss]
					}
				}
			})
			for _, p := range Paths() {
				b.Run(name+"/"+p.String(), func(b *testing.B) {
					defer Use(p)()
					b.SetBytes(int64(sz.bytes))
					for b.Loop() {
						f(dst, ds, src, ss, n)
					}
				})
			}
		}
	}
}

// num converts a small integer to T.
func num[T Elem](v int) T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(float32(v)).(T)
	case float64:
		return any(float64(v)).(T)
	case complex64:
		return any(complex(float32(v), 0)).(T)
	case complex128:
		return any(complex(float64(v), 0)).(T)
	}
	return fromBits[T](uint64(v))
}

// unit is a factor of magnitude one: 1 or -1 for reals, 1, i, -1, -i for complex, i%7+1
// for integers (they wrap anyway).
func unit[T Elem](i int) T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(float32(1 - 2*(i&1))).(T)
	case float64:
		return any(float64(1 - 2*(i&1))).(T)
	case complex64:
		return any([]complex64{1, 1i, -1, -1i}[i&3]).(T)
	case complex128:
		return any([]complex128{1, 1i, -1, -1i}[i&3]).(T)
	}
	return num[T](i%7 + 1)
}

// BenchmarkCombineOffset is int32 sum at 4 KiB with dst and src starting off a 64-byte
// boundary: both by the same amount (the AVX-512 kernel's masked head realigns both),
// by different amounts (only dst is realigned), and by an amount that misaligns the
// elements themselves (nothing can be realigned).
func BenchmarkCombineOffset(b *testing.B) {
	const n = 1024
	for _, o := range []struct {
		name     string
		dst, src int // byte offsets
	}{{"0/0", 0, 0}, {"4/4", 4, 4}, {"4/0", 4, 0}, {"0/4", 0, 4}, {"1/1", 1, 1}} {
		dbuf, sbuf := aligned[byte](4*n+64), aligned[byte](4*n+64)
		d := unsafe.Slice((*int32)(unsafe.Pointer(&dbuf[o.dst])), n)
		s := unsafe.Slice((*int32)(unsafe.Pointer(&sbuf[o.src])), n)
		for _, p := range Paths() {
			b.Run(o.name+"/"+p.String(), func(b *testing.B) {
				defer Use(p)()
				b.SetBytes(4 * n)
				for b.Loop() {
					Combine(Sum, d, s)
				}
			})
		}
	}
}

// copySizes are the sizes of the Copy benchmarks: L1 and L2 sizes, the 1 MiB from which
// Go's memmove (on CPUs where it does not use REP MOVS) switches to non-temporal stores, and
// beyond.
var copySizes = []struct {
	name  string
	bytes int
}{{"4KiB", 4 << 10}, {"64KiB", 64 << 10}, {"256KiB", 256 << 10}, {"1MiB", 1 << 20}, {"4MiB", 4 << 20}, {"16MiB", 16 << 20}}

// BenchmarkCopyKernel is Copy on each path beside copy() itself ("builtin"), 64-byte
// aligned dst and src (page-aligned from 64 KiB: Go's large allocations are) of each size;
// SetBytes is the size copied.
func BenchmarkCopyKernel(b *testing.B) {
	for _, sz := range copySizes {
		dst, src := aligned[byte](sz.bytes), aligned[byte](sz.bytes)
		b.Run(sz.name+"/builtin", func(b *testing.B) {
			b.SetBytes(int64(sz.bytes))
			for b.Loop() {
				copy(dst, src)
			}
		})
		for _, p := range Paths() {
			b.Run(sz.name+"/"+p.String(), func(b *testing.B) {
				defer Use(p)()
				b.SetBytes(int64(sz.bytes))
				for b.Loop() {
					Copy(dst, src)
				}
			})
		}
	}
}

// BenchmarkCopyKernelRead is BenchmarkCopyKernel with the copy's destination read right
// after (by copy() into a third buffer, the same in every row), as the runtime's copies are:
// what a put writes is read by the target, what a get brings by the caller. From 1 MiB this
// is where copy() and REP MOVSB differ: copy() writes with non-temporal stores, which leave
// the destination in memory rather than in cache. SetBytes is the size Copy copies.
func BenchmarkCopyKernelRead(b *testing.B) {
	for _, sz := range copySizes {
		dst, src, out := aligned[byte](sz.bytes), aligned[byte](sz.bytes), aligned[byte](sz.bytes)
		b.Run(sz.name+"/builtin", func(b *testing.B) {
			b.SetBytes(int64(sz.bytes))
			for b.Loop() {
				copy(dst, src)
				copy(out, dst)
			}
		})
		for _, p := range Paths() {
			b.Run(sz.name+"/"+p.String(), func(b *testing.B) {
				defer Use(p)()
				b.SetBytes(int64(sz.bytes))
				for b.Loop() {
					Copy(dst, src)
					copy(out, dst)
				}
			})
		}
	}
}

// BenchmarkCopyKernelOffset is Copy at 64 KiB and 1 MiB with dst and src off their 64-byte
// boundaries: equally (1/1), differently (13/50: dst 37 bytes below src modulo 4 KiB), and
// with dst 32 bytes past src modulo 4 KiB (32/0), where Copy runs copy() instead of the
// kernel (0/32 is the same misalignment the other way, which the kernel takes).
func BenchmarkCopyKernelOffset(b *testing.B) {
	for _, sz := range []struct {
		name  string
		bytes int
	}{{"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
		for _, o := range []struct {
			name     string
			dst, src int
		}{{"0/0", 0, 0}, {"1/1", 1, 1}, {"13/50", 13, 50}, {"32/0", 32, 0}, {"0/32", 0, 32}} {
			dbuf, sbuf := aligned[byte](sz.bytes+64), aligned[byte](sz.bytes+64)
			dst, src := dbuf[o.dst:o.dst+sz.bytes], sbuf[o.src:o.src+sz.bytes]
			name := sz.name + "/" + o.name
			b.Run(name+"/builtin", func(b *testing.B) {
				b.SetBytes(int64(sz.bytes))
				for b.Loop() {
					copy(dst, src)
				}
			})
			for _, p := range Paths() {
				b.Run(name+"/"+p.String(), func(b *testing.B) {
					defer Use(p)()
					b.SetBytes(int64(sz.bytes))
					for b.Loop() {
						Copy(dst, src)
					}
				})
			}
		}
	}
}

// BenchmarkCopySmall is Copy of 8 bytes beside copy(): what the dispatch costs a small put.
func BenchmarkCopySmall(b *testing.B) {
	dst, src := make([]byte, 8), make([]byte, 8)
	b.Run("builtin", func(b *testing.B) {
		for b.Loop() {
			copy(dst, src)
		}
	})
	for _, p := range Paths() {
		b.Run(p.String(), func(b *testing.B) {
			defer Use(p)()
			for b.Loop() {
				Copy(dst, src)
			}
		})
	}
}
