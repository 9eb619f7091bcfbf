package shmem_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/kernels"
)

// mix is splitmix64: the deterministic source of every PE's test data, so each PE can
// compute every other PE's contribution and the serial reference.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// val is element i of PE pe's source in case seed, for op: full-range integers; floats
// and complex numbers scaled so sums and products stay finite and min/max see distinct
// values (no NaN or mixed zeros: their order-dependence is the kernels' tests' business).
func val[T kernels.Elem](op kernels.Op, seed uint64, pe, i int) T {
	r := mix(seed ^ uint64(pe)<<40 ^ uint64(i))
	f := func(r uint64) float64 {
		u := float64(r>>11) / (1 << 53) // [0,1)
		if op == kernels.Prod {
			return 1 + (u-0.5)/64
		}
		return (u - 0.5) * 2000
	}
	var z T
	switch p := any(&z).(type) {
	case *float32:
		*p = float32(f(r))
	case *float64:
		*p = f(r)
	case *complex64:
		*p = complex(float32(f(r)), float32(f(mix(r))))
	case *complex128:
		*p = complex(f(r), f(mix(r)))
	default: // integer types: the low bytes of r
		size := unsafe.Sizeof(z)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&z)), size), unsafe.Slice((*byte)(unsafe.Pointer(&r)), size))
	}
	return z
}

// refReduce combines in member order, with C's min/max.
func refReduce[T kernels.Elem](op kernels.Op, a, b T) T {
	switch op {
	case kernels.Sum:
		return a + b
	case kernels.Prod:
		return a * b
	}
	switch x := any(a).(type) {
	case float32:
		return any(minmax(op, x, any(b).(float32))).(T)
	case float64:
		return any(minmax(op, x, any(b).(float64))).(T)
	}
	return intOp(op, a, b)
}

func minmax[F float32 | float64](op kernels.Op, a, b F) F {
	if op == kernels.Min {
		if a < b {
			return a
		}
		return b
	}
	if a > b {
		return a
	}
	return b
}

func intOp[T kernels.Elem](op kernels.Op, a, b T) T {
	var ua, ub uint64
	size := unsafe.Sizeof(a)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&ua)), size), unsafe.Slice((*byte)(unsafe.Pointer(&a)), size))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&ub)), size), unsafe.Slice((*byte)(unsafe.Pointer(&b)), size))
	var r uint64
	switch op {
	case kernels.And:
		r = ua & ub
	case kernels.Or:
		r = ua | ub
	case kernels.Xor:
		r = ua ^ ub
	case kernels.Min, kernels.Max:
		less := lessInt(a, b)
		if (op == kernels.Min) == less {
			return a
		}
		return b
	}
	var out T
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out)), size), unsafe.Slice((*byte)(unsafe.Pointer(&r)), size))
	return out
}

func lessInt[T kernels.Elem](a, b T) bool {
	switch x := any(a).(type) {
	case int8:
		return x < any(b).(int8)
	case int16:
		return x < any(b).(int16)
	case int32:
		return x < any(b).(int32)
	case int64:
		return x < any(b).(int64)
	case int:
		return x < any(b).(int)
	case uint8:
		return x < any(b).(uint8)
	case uint16:
		return x < any(b).(uint16)
	case uint32:
		return x < any(b).(uint32)
	case uint64:
		return x < any(b).(uint64)
	case uint:
		return x < any(b).(uint)
	case uintptr:
		return x < any(b).(uintptr)
	}
	panic("not an integer")
}

// close reports whether a float result is within the bound of an n-term sum or product in
// any order: n·ε of the magnitudes involved (mag: Σ|x| for sums, |ref| for products).
func closeEnough[T kernels.Elem](op kernels.Op, got, ref T, mag float64, n int) bool {
	eps := 0.0
	var d float64
	switch g := any(got).(type) {
	case float32:
		eps, d = 0x1p-23, math.Abs(float64(g)-float64(any(ref).(float32)))
	case float64:
		eps, d = 0x1p-52, math.Abs(g-any(ref).(float64))
	case complex64:
		eps, d = 0x1p-23, cmplx.Abs(complex128(g)-complex128(any(ref).(complex64)))
	case complex128:
		eps, d = 0x1p-52, cmplx.Abs(g-any(ref).(complex128))
	default:
		return got == ref
	}
	return d <= 4*float64(n)*eps*mag+1e-300
}

func magnitude[T kernels.Elem](x T) float64 {
	switch v := any(x).(type) {
	case float32:
		return math.Abs(float64(v))
	case float64:
		return math.Abs(v)
	case complex64:
		return cmplx.Abs(complex128(v))
	case complex128:
		return cmplx.Abs(v)
	}
	return 0
}

// randomSet picks an active set of the job: random start, log stride and size, size 1 and
// sets that skip PEs included.
func randomSet(rng *rand.Rand, n int) shmem.ActiveSet {
	logStride := rng.IntN(3)
	size := 1 + rng.IntN((n-1)>>logStride+1)
	start := rng.IntN(n - (size-1)<<logStride)
	return shmem.ActiveSet{Start: start, LogStride: logStride, Size: size}
}

func members(s shmem.ActiveSet) []int {
	out := make([]int, s.Size)
	for i := range out {
		out[i] = s.Start + i<<s.LogStride
	}
	return out
}

func index(s shmem.ActiveSet, pe int) int {
	for i, m := range members(s) {
		if m == pe {
			return i
		}
	}
	return -1
}

func ptrOf(p *uint64) unsafe.Pointer { return unsafe.Pointer(p) }

// sameBits compares two values bit for bit (NaN payloads included).
func sameBits[T any](a, b T) bool {
	size := unsafe.Sizeof(a)
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a)), size)) == string(unsafe.Slice((*byte)(unsafe.Pointer(&b)), size))
}

// dawdle is a few microseconds of work on about a third of the calls of PEs but skip, so
// that calls without a barrier between them find members at different points.
func dawdle(call, n, me, skip int) {
	if me != skip && mix(uint64(call*n+me))%3 == 0 {
		for x := range 2000 + int(mix(uint64(call))%4000) {
			sink += x
		}
	}
}

// sumReduceCheck is a team reduction between calls of a run-ahead test: every PE adds
// call+me+k at element k, and checks the sums.
func sumReduceCheck(t *testing.T, world shmem.Team, call, me, n int, rsrc, rdst []int64) {
	t.Helper()
	for k := range rsrc {
		rsrc[k] = int64(call + me + k)
	}
	if err := shmem.SumReduce(world, rdst, rsrc); err != nil {
		t.Fatal(err)
	}
	for k, got := range rdst {
		if want := int64(n*(call+k) + n*(n-1)/2); got != want {
			t.Fatalf("PE %d call %d: sum[%d] = %d, want %d", me, call, k, got, want)
		}
	}
}
