// Package kernels holds the combine and strided-copy kernels of the collectives, the bulk
// byte copy of puts, gets and block copies (Copy) and the scans of the wait/test family
// (ScanSome, ScanFirst; scan.go): a pure-Go reference for each, AVX2 and AVX-512 versions on
// amd64 (generated with avo; Copy: REP MOVSB), NEON on arm64, and dispatch on CPU features
// computed once at start-up.
//
// Combine semantics, for every element type and path:
//
//   - Integer sum and prod wrap as Go's + and * do; and, or, xor are bitwise; min and max
//     compare as signed or unsigned per the type.
//   - Float min is a < b ? a : b and max is a > b ? a : b, bit for bit: a NaN in either
//     operand, or two zeros of either sign, give b (the second operand, src for Combine).
//     This is C's dst < src ? dst : src, not Go's min builtin nor math.Min.
//   - Float sum and prod are IEEE operations without FMA, as Go computes them, bit for bit
//     (when both operands are NaN the result carries the first one's payload, as Go's
//     code does on amd64 and arm64). Complex sum adds the parts the same way.
//   - Complex prod is what Go's * gives. complex64: the parts are computed in float64 and
//     rounded once, as the Go compiler does, so every path is bit-exact. complex128: bit-exact
//     with Go's * as the compiler builds it for GOAMD64=v1/v2 (no FMA) and for arm64 (which
//     fuses one product of each part: real = fl(ar*br) - ai*bi, imag = fl(ar*bi) + ai*br,
//     and the NEON kernel fuses the same ones). With GOAMD64=v3 or later the compiler fuses
//     the imaginary part and the AVX kernels do not: there the last bit may differ. In every
//     case a NaN part's sign and payload are unspecified (Go's own depend on the compiler's
//     choice of operand order).
//
// Complex types have sum and prod only; floats have no and, or, xor. int, uint and uintptr
// use the 64-bit kernels on 64-bit targets.
//
// Use, Current and Paths exist for tests and benchmarks: Use is not safe to call while
// other goroutines run kernels.
package kernels

import (
	"fmt"
	"unsafe"
)

// Op is a combine operation.
type Op uint8

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// kernel computes dst[i] = op(a[i], b[i]) for i < n; dst may be a or b.
type kernel = func(dst, a, b *byte, n int)

// Valid reports whether op is defined for T: complex types have Sum and Prod only, floats
// have no And, Or, Xor.
func Valid[T Elem](op Op) bool {
	return op < numOps && genericKernels[typeIndex[T]()][op] != nil
}

func ptr[T any](s []T) *byte { return (*byte)(unsafe.Pointer(unsafe.SliceData(s))) }

// at offsets a kernel pointer by off bytes.
func at(p *byte, off int) *byte { return (*byte)(unsafe.Add(unsafe.Pointer(p), off)) }

// overlap reports whether x and y, of the given byte length, overlap without starting at
// the same address.
func overlap(x, y *byte, bytes uintptr) bool {
	px, py := uintptr(unsafe.Pointer(x)), uintptr(unsafe.Pointer(y))
	return px != py && px < py+bytes && py < px+bytes
}

// The panics live out of line so that Combine and Combine3 stay small.

func panicLen(fn, arg string, got, want int) {
	panic(fmt.Sprintf("kernels.%s: len(%s) = %d, want len(dst) = %d", fn, arg, got, want))
}

func panicOverlap(fn, x, y string) {
	panic(fmt.Sprintf("kernels.%s: %s and %s overlap partially", fn, x, y))
}

func panicOp(fn string, op Op, ti int) {
	panic(fmt.Sprintf("kernels.%s: op %v is not valid for %s", fn, op, typeNames[ti]))
}

// Combine computes dst[i] = op(dst[i], src[i]) for every i. It panics if the lengths
// differ, if op is not valid for T, or if src overlaps dst without being dst itself.
func Combine[T Elem](op Op, dst, src []T) {
	n := len(dst)
	if len(src) != n {
		panicLen("Combine", "src", len(src), n)
	}
	d, s := ptr(dst), ptr(src)
	if overlap(d, s, uintptr(n)*unsafe.Sizeof(*new(T))) {
		panicOverlap("Combine", "dst", "src")
	}
	ti := typeIndex[T]()
	var k kernel
	if op < numOps {
		k = cur.comb[ti][op]
	}
	if k == nil {
		panicOp("Combine", op, ti)
	}
	k(d, d, s, n)
}

// Combine3 computes dst[i] = op(a[i], b[i]) for every i. dst may be exactly a or b (the
// same first element); it must not overlap them otherwise. It panics if the lengths differ,
// if op is not valid for T, or on a partial overlap.
func Combine3[T Elem](op Op, dst, a, b []T) {
	n := len(dst)
	if len(a) != n {
		panicLen("Combine3", "a", len(a), n)
	}
	if len(b) != n {
		panicLen("Combine3", "b", len(b), n)
	}
	d, x, y := ptr(dst), ptr(a), ptr(b)
	bytes := uintptr(n) * unsafe.Sizeof(*new(T))
	if overlap(d, x, bytes) {
		panicOverlap("Combine3", "dst", "a")
	}
	if overlap(d, y, bytes) {
		panicOverlap("Combine3", "dst", "b")
	}
	ti := typeIndex[T]()
	var k kernel
	if op < numOps {
		k = cur.comb[ti][op]
	}
	if k == nil {
		panicOp("Combine3", op, ti)
	}
	k(d, x, y, n)
}
