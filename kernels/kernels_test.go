package kernels

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// The per-type tests (zkernels_test.go, generated) call testCombine for each element type:
// every op x path against the pure-Go reference, lengths 0..maxLen, every byte offset 0..63
// of each operand (sampled combinations, each offset of each operand many times, plus a full
// dst x src grid at one length), guard zones around dst, floats compared bit for bit.

const (
	maxLen = 1100
	guard  = 128 // bytes checked untouched before and after dst
	fill   = 0xA5
)

// alignStep is 1 (every byte offset) unless checkptr (the race detector) forbids
// misaligned element pointers.
func alignStep[T any]() int {
	if !raceEnabled {
		return 1
	}
	var z T
	return int(unsafe.Alignof(z))
}

// pool holds the test inputs of one type: random values mixed with the special values.
func pool[T Elem](r *rand.Rand, n int) []T {
	out := make([]T, n)
	sp := specials[T]()
	for i := range out {
		switch r.IntN(3) {
		case 0:
			out[i] = sp[r.IntN(len(sp))]
		case 1:
			out[i] = randBits[T](r)
		default:
			out[i] = small[T](r)
		}
	}
	return out
}

func f32s() []float32 {
	return []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001), // -qNaN, sNaN
		math.Float32frombits(1), math.Float32frombits(0x807fffff), // denormals
		math.SmallestNonzeroFloat32, -math.MaxFloat32, math.MaxFloat32, 0x1p-126, 1, -1, 0.5, 3, -7.25}
}

func f64s() []float64 {
	return []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1),
		math.NaN(), math.Float64frombits(0xfff8000000000123), math.Float64frombits(0x7ff0000000000001),
		math.Float64frombits(1), math.Float64frombits(0x800fffffffffffff),
		-math.MaxFloat64, math.MaxFloat64, 0x1p-1022, 1, -1, 0.5, 3, -7.25, 1e300, -1e-300}
}

func specials[T Elem]() []T {
	var out []T
	var z T
	switch any(z).(type) {
	case float32:
		for _, f := range f32s() {
			out = append(out, any(f).(T))
		}
	case float64:
		for _, f := range f64s() {
			out = append(out, any(f).(T))
		}
	case complex64:
		fs := f32s()
		for _, re := range fs {
			for _, im := range fs[:8] {
				out = append(out, any(complex(re, im)).(T))
			}
		}
	case complex128:
		fs := f64s()
		for _, re := range fs {
			for _, im := range fs[:8] {
				out = append(out, any(complex(re, im)).(T))
			}
		}
	default:
		// Integers: 0, 1, -1 (all ones), the signed and unsigned extremes and neighbours.
		size := uint(unsafe.Sizeof(z)) * 8
		for _, u := range []uint64{0, 1, 2, ^uint64(0), ^uint64(1), 1 << (size - 1), 1<<(size-1) - 1,
			1<<(size-1) + 1, 1 << (size / 2), 1<<(size/2) + 1, 0x5555555555555555, 0xaaaaaaaaaaaaaaaa} {
			out = append(out, fromBits[T](u))
		}
	}
	return out
}

// fromBits makes an integer T from the low bits of u.
func fromBits[T Elem](u uint64) T {
	var z T
	p := unsafe.Pointer(&z)
	switch unsafe.Sizeof(z) {
	case 1:
		*(*uint8)(p) = uint8(u)
	case 2:
		*(*uint16)(p) = uint16(u)
	case 4:
		*(*uint32)(p) = uint32(u)
	case 8:
		*(*uint64)(p) = u
	case 16:
		*(*uint64)(p) = u
		*(*uint64)(unsafe.Add(p, 8)) = u * 0x9e3779b97f4a7c15
	}
	return z
}

func randBits[T Elem](r *rand.Rand) T {
	var z T
	switch any(z).(type) {
	case complex128:
		return any(complex(math.Float64frombits(r.Uint64()), math.Float64frombits(r.Uint64()))).(T)
	}
	return fromBits[T](r.Uint64())
}

// small gives values whose sums and products stay moderate (and integers small, signed).
func small[T Elem](r *rand.Rand) T {
	var z T
	x := r.Float64()*200 - 100
	switch any(z).(type) {
	case float32:
		return any(float32(x)).(T)
	case float64:
		return any(x).(T)
	case complex64:
		return any(complex(float32(x), float32(r.Float64()*20-10))).(T)
	case complex128:
		return any(complex(x, r.Float64()*20-10)).(T)
	}
	return fromBits[T](uint64(int64(x)))
}

// arena is a byte buffer holding one operand at a chosen byte offset, with guard zones.
type arena struct {
	buf []byte
}

func newArena(elems, size int) *arena {
	return &arena{buf: make([]byte, guard+64+elems*size+guard)}
}

// place copies vals into the arena at byte offset off and returns the view.
func place[T Elem](a *arena, off int, vals []T) []T {
	for i := range a.buf {
		a.buf[i] = fill
	}
	s := unsafe.Slice((*T)(unsafe.Pointer(&a.buf[guard+off])), len(vals))
	copy(s, vals)
	return s
}

// checkGuards verifies the bytes around [off, off+nbytes) kept the fill pattern.
func (a *arena) checkGuards(t *testing.T, off, nbytes int, what string) bool {
	t.Helper()
	for i := 0; i < guard+off; i++ {
		if a.buf[i] != fill {
			t.Errorf("%s: byte %d before dst overwritten", what, guard+off-i)
			return false
		}
	}
	for i := guard + off + nbytes; i < len(a.buf); i++ {
		if a.buf[i] != fill {
			t.Errorf("%s: byte %d after dst overwritten", what, i-(guard+off+nbytes))
			return false
		}
	}
	return true
}

// same compares element bit patterns.
func same[T Elem](x, y T) bool {
	var z T
	n := unsafe.Sizeof(z)
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&x)), n), unsafe.Slice((*byte)(unsafe.Pointer(&y)), n))
}

// accept reports whether got is an acceptable result for op(a, b) given the reference want:
// bit-equal, except for complex prod, where the package doc allows two things: a NaN part
// may be any NaN (which payload Go's own * propagates depends on the compiler's register
// choices), and for complex128 a part may be another evaluation order of the same formula
// (with GOAMD64=v3 or later Go's compiler fuses the imaginary part's x*y+z and the AVX
// kernels do not: there only, these alternatives, exactly, are accepted).
func accept[T Elem](op Op, a, b, got, want T) bool {
	if same(got, want) {
		return true
	}
	if op != Prod {
		return false
	}
	okPart := func(g float64, alts ...float64) bool {
		for _, v := range alts {
			if math.Float64bits(g) == math.Float64bits(v) || (math.IsNaN(g) && math.IsNaN(v)) {
				return true
			}
		}
		return false
	}
	switch g := any(got).(type) {
	case complex64:
		w := any(want).(complex64)
		return okPart(float64(real(g)), float64(real(w))) && okPart(float64(imag(g)), float64(imag(w)))
	case complex128:
		w := any(want).(complex128)
		if !refFuses {
			return okPart(real(g), real(w)) && okPart(imag(g), imag(w))
		}
		// float64(x*y) rounds the product: no fusion in these alternatives.
		ca, cb := any(a).(complex128), any(b).(complex128)
		ar, ai, br, bi := real(ca), imag(ca), real(cb), imag(cb)
		return okPart(real(g), float64(ar*br)-float64(ai*bi), math.FMA(ar, br, -float64(ai*bi)), math.FMA(-ai, bi, float64(ar*br))) &&
			okPart(imag(g), float64(ar*bi)+float64(ai*br), math.FMA(ar, bi, float64(ai*br)), math.FMA(ai, br, float64(ar*bi)))
	}
	return false
}

type combineCase[T Elem] struct {
	t          *testing.T
	op         Op
	path       Path
	a, b       []T // input pools
	da, aa, ba *arena
	want       []T
	ref        kernel
	fails      int
}

// run checks one call: n elements, inputs from the pools at start, byte offsets of dst, a,
// b, and the form: 0 Combine (dst is a), 1 Combine3 into a separate dst, 2 Combine3 with
// dst = b.
func (c *combineCase[T]) run(n, start, od, oa, ob, form int) {
	if c.fails > 5 {
		return
	}
	t := c.t
	x, y := c.a[start:start+n], c.b[start:start+n]
	ref := c.want[:n]
	c.ref(ptr(ref), ptr(x), ptr(y), n)

	var z T
	size := int(unsafe.Sizeof(z))
	var dst []T
	switch form {
	case 0:
		dst = place(c.da, od, x)
		src := place(c.ba, ob, y)
		Combine(c.op, dst, src)
	case 1:
		dst = place(c.da, od, make([]T, n))
		Combine3(c.op, dst, place(c.aa, oa, x), place(c.ba, ob, y))
	case 2:
		dst = place(c.da, od, y)
		Combine3(c.op, dst, place(c.aa, oa, x), dst)
	}
	what := fmt.Sprintf("%s/%v/%v n=%d offsets dst=%d a=%d b=%d form=%d", typeNames[typeIndex[T]()], c.path, c.op, n, od, oa, ob, form)
	if !c.da.checkGuards(t, od, n*size, what) {
		c.fails++
		return
	}
	for i := range dst {
		if !accept(c.op, x[i], y[i], dst[i], ref[i]) {
			t.Errorf("%s: [%d] %v(%v, %v) = %v (%s), want %v (%s)", what, i, c.op, x[i], y[i], dst[i], hexOf(dst[i]), ref[i], hexOf(ref[i]))
			c.fails++
			return
		}
	}
}

func hexOf[T any](v T) string {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v))
	var s strings.Builder
	for i := len(b) - 1; i >= 0; i-- {
		fmt.Fprintf(&s, "%02x", b[i])
	}
	return s.String()
}

func testCombine[T Elem](t *testing.T) {
	var z T
	size := int(unsafe.Sizeof(z))
	step := alignStep[T]()
	r := rand.New(rand.NewPCG(uint64(typeIndex[T]()), 1))
	const poolLen = 4 * maxLen
	pa, pb := pool[T](r, poolLen), pool[T](r, poolLen)
	testPanics[T](t)
	// Under the race detector (which also runs checkptr) a sample of the lengths does:
	// it is there for the unsafe rules, the full sweep runs without it.
	lenStep := 1
	if raceEnabled {
		lenStep = 7
	}
	for _, p := range Paths() {
		restore := Use(p)
		for op := Op(0); op < numOps; op++ {
			if !Valid[T](op) {
				continue
			}
			c := &combineCase[T]{t: t, op: op, path: p, a: pa, b: pb,
				da: newArena(maxLen, size), aa: newArena(maxLen, size), ba: newArena(maxLen, size),
				want: make([]T, maxLen), ref: genericKernels[typeIndex[T]()][op]}
			salt := int(op)*7 + int(p)*13
			// Every length; offsets stepping through 0..63 for each operand at co-prime
			// rates, so each offset of each operand meets many lengths and tails.
			for n := 0; n <= maxLen; n += lenStep {
				od := (n*37 + salt) % 64 / step * step
				oa := (n*11 + 7 + salt*3) % 64 / step * step
				ob := (n*53 + 29 + salt*5) % 64 / step * step
				start := (n*131 + salt) % (poolLen - maxLen)
				c.run(n, start, od, oa, ob, (n+int(op))%3)
			}
			// Every dst offset against eight src offsets (so eight relative misalignments
			// each) at one length with a vector body and a tail.
			n := 3*64/size + 5 + int(op)
			for od := 0; od < 64; od += step {
				for j := 0; j < 8; j++ {
					ob := (od + j*9 + salt) % 64 / step * step
					c.run(n, (od*64+ob)%(poolLen-maxLen), od, 0, ob, 0)
				}
			}
		}
		restore()
	}
}

// testPanics checks the argument errors.
func testPanics[T Elem](t *testing.T) {
	t.Helper()
	x := make([]T, 8)
	wantPanic(t, "kernels.Combine: len(src)", func() { Combine(Sum, x, x[:7]) })
	wantPanic(t, "kernels.Combine3: len(b)", func() { Combine3(Sum, x, x, x[:7]) })
	wantPanic(t, "kernels.Combine3: len(a)", func() { Combine3(Sum, x[:7], x, x[:7]) })
	wantPanic(t, "kernels.Combine3: dst and a overlap partially", func() { Combine3(Sum, x[1:], x[:7], x[:7]) })
	wantPanic(t, "kernels.Combine: dst and src overlap partially", func() { Combine(Sum, x[1:], x[:7]) })
	wantPanic(t, "kernels.Combine: op Op(9) is not valid", func() { Combine(Op(9), x, x) })
	for op := Op(0); op < numOps; op++ {
		if !Valid[T](op) {
			wantPanic(t, fmt.Sprintf("kernels.Combine: op %v is not valid for %s", op, typeNames[typeIndex[T]()]), func() { Combine(op, x, x) })
			wantPanic(t, "kernels.Combine3: op", func() { Combine3(op, x, x, x) })
		}
	}
	Combine(Sum, x[:0], x[:0]) // empty is fine
}

func wantPanic(t *testing.T, prefix string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, prefix) {
			t.Errorf("panic %q, want prefix %q", r, prefix)
		}
	}()
	f()
}

func TestValid(t *testing.T) {
	for op := Op(0); op < numOps; op++ {
		if !Valid[int8](op) || !Valid[uintptr](op) {
			t.Errorf("%v not valid for integers", op)
		}
		bitwise := op == And || op == Or || op == Xor
		if Valid[float32](op) == bitwise || Valid[float64](op) == bitwise {
			t.Errorf("Valid[float](%v) wrong", op)
		}
		if Valid[complex64](op) != (op == Sum || op == Prod) || Valid[complex128](op) != (op == Sum || op == Prod) {
			t.Errorf("Valid[complex](%v) wrong", op)
		}
	}
	if Valid[int32](numOps) {
		t.Error("Valid(numOps)")
	}
	if Sum.String() != "sum" || Xor.String() != "xor" || Op(99).String() != "Op(99)" {
		t.Error("Op.String")
	}
}

func TestPaths(t *testing.T) {
	ps := Paths()
	if len(ps) == 0 || ps[0] != PathGeneric {
		t.Fatalf("Paths() = %v", ps)
	}
	if Current() != ps[len(ps)-1] {
		t.Errorf("Current() = %v, want the best of %v", Current(), ps)
	}
	want := map[string][]Path{"amd64": {PathGeneric, PathAVX2, PathAVX512}, "arm64": {PathGeneric, PathNEON}}[runtime.GOARCH]
	if !purego && want != nil && fmt.Sprint(ps) != fmt.Sprint(want) {
		t.Logf("note: this CPU runs %v of %v", ps, want)
	}
	for _, p := range ps {
		restore := Use(p)
		if Current() != p {
			t.Errorf("Use(%v): Current() = %v", p, Current())
		}
		restore()
	}
	wantPanic(t, "kernels.Use: path neon is not available", func() {
		if runtime.GOARCH == "arm64" && !purego {
			panic("kernels.Use: path neon is not available (skipped)")
		}
		Use(PathNEON)
	})
	if PathAVX512.String() != "avx512" || Path(9).String() != "Path(9)" {
		t.Error("Path.String")
	}
}

// TestStrided checks both strided copies on every path against a plain loop: strides 1..5
// and a few large ones, n 0..300, offsets, and that no dst element between the strided ones
// (nor the guards) is written.
func TestStrided(t *testing.T) {
	testStrided[uint32](t, Strided32)
	testStrided[uint64](t, Strided64)
}

func testStrided[T uint32 | uint64](t *testing.T, f func([]T, int, []T, int, int)) {
	var z T
	size := int(unsafe.Sizeof(z))
	strides := []int{1, 2, 3, 4, 5, 8, 17}
	r := rand.New(rand.NewPCG(uint64(size), 2))
	const maxN = 300
	src := make([]T, maxN*17+64)
	for i := range src {
		src[i] = T(r.Uint64())
	}
	var sbits uint64 = 0xdeadbeefcafef00d
	sentinel := T(sbits)
	for _, p := range Paths() {
		restore := Use(p)
		for _, ds := range strides {
			for _, ss := range strides {
				for n := 0; n <= maxN; n += 1 + n/40 {
					off := (n + ds*3 + ss) % 8 // element offset into the buffers
					soff := (n*5 + ss) % 8
					dlen, slen := 0, 0
					if n > 0 {
						dlen, slen = (n-1)*ds+1, (n-1)*ss+1
					}
					dbuf := make([]T, off+dlen+8)
					for i := range dbuf {
						dbuf[i] = sentinel
					}
					d := dbuf[off : off+dlen]
					s := src[soff : soff+slen]
					f(d, ds, s, ss, n)
					for i := range dbuf {
						want := sentinel
						j := i - off
						if j >= 0 && j < dlen && j%ds == 0 {
							want = s[j/ds*ss]
						}
						if dbuf[i] != want {
							t.Fatalf("%v Strided%d(ds=%d, ss=%d, n=%d): element %d = %#x, want %#x", p, size*8, ds, ss, n, j, dbuf[i], want)
						}
					}
				}
			}
		}
		restore()
	}
	fn := fmt.Sprintf("kernels.Strided%d", size*8)
	x := make([]T, 10)
	wantPanic(t, fn+": dstStride = 0", func() { f(x, 0, x, 1, 1) })
	wantPanic(t, fn+": srcStride = -1", func() { f(x, 1, x, -1, 1) })
	wantPanic(t, fn+": n = -1", func() { f(x, 1, x, 1, -1) })
	wantPanic(t, fn+": len(dst) = 10, too short", func() { f(x, 2, make([]T, 20), 2, 6) })
	wantPanic(t, fn+": len(src) = 9, too short", func() { f(make([]T, 20), 2, x[:9], 2, 6) })
	wantPanic(t, fn+": len(dst) = 0", func() { f(nil, 1, x, 1, 1) })
	f(x, 2, x, 3, 0) // nothing to do
	f(x[:9], 2, x[:9], 2, 5)
	f(make([]T, 4), math.MaxInt, x, 1, 1) // one element: stride never multiplied
}
