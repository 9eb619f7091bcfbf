package rt

import (
	"fmt"
	"math/bits"
)

// Overflow-checked size arithmetic. Every size, count and stride computation from a
// routine's arguments goes through MulOK (or the panicking forms below), so an argument
// near the integer limits is an error naming the routine, never a product that wraps to a
// small size and passes the bounds checks.

// MulOK is a*b and whether it fits in a uintptr.
func MulOK(a, b uintptr) (uintptr, bool) {
	hi, lo := bits.Mul(uint(a), uint(b))
	return uintptr(lo), hi == 0
}

// Mul is a*b for counts (a, b >= 0); who and what name the routine and the product in the
// panic when it does not fit in an int.
func Mul(who, what string, a, b int) int {
	p, ok := MulOK(uintptr(a), uintptr(b))
	if a < 0 || b < 0 || !ok || int(p) < 0 {
		panic(fmt.Sprintf("%s: %s: %d × %d overflows", who, what, a, b))
	}
	return int(p)
}

// Bytes is n elements of size bytes; who and arg name the routine and the argument in the
// panic when that overflows.
func Bytes(who, arg string, n int, size uintptr) uintptr {
	b, ok := MulOK(uintptr(n), size)
	if n < 0 || !ok {
		panic(fmt.Sprintf("%s: %s: %d elements of %d bytes overflow", who, arg, n, size))
	}
	return b
}

// StridedElems is how many elements n elements at stride span: (n-1)*stride+1, 0 for none;
// who and arg name the routine and the argument in the panic when that overflows (n >= 0,
// stride >= 1: CheckStrided).
func StridedElems(who, arg string, n, stride int) int {
	if n == 0 {
		return 0
	}
	e, ok := MulOK(uintptr(n-1), uintptr(stride))
	if n < 0 || stride < 1 || !ok || int(e) < 0 || int(e+1) < 0 {
		panic(fmt.Sprintf("%s: %s: %d elements at stride %d overflow", who, arg, n, stride))
	}
	return int(e) + 1
}

// StridedBytes is the bytes n elements of size at stride span (StridedElems × size).
func StridedBytes(who, arg string, n, stride int, size uintptr) uintptr {
	return Bytes(who, arg, StridedElems(who, arg, n, stride), size)
}

// lastMember is start + (size-1)*stride, the last PE of a strided group (start >= 0,
// stride >= 1, size >= 1), and false when that overflows an int: such a group reaches past
// every PE.
func lastMember(start, stride, size int) (int, bool) {
	e, ok := MulOK(uintptr(size-1), uintptr(stride))
	if !ok || int(e) < 0 || start+int(e) < 0 {
		return 0, false
	}
	return start + int(e), true
}

// reachString is lastMember for messages: the PE, or "a PE beyond any int".
func reachString(start, stride, size int) string {
	if last, ok := lastMember(start, stride, size); ok {
		return fmt.Sprint(last)
	}
	return "beyond the largest int"
}

// inRange reports whether the strided group's last member is below n.
func inRange(start, stride, size, n int) bool {
	last, ok := lastMember(start, stride, size)
	return ok && last < n
}
