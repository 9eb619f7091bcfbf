package main

// The amd64 kernels, written with avo: one AVX2 and one AVX-512 function per distinct kernel
// of tables.Kernels(), plus the strided-copy kernels and the bulk byte copy (copy.go).
//
// Combine kernels have the signature func(dst, a, b *byte, n int) and compute
// dst[i] = op(a[i], b[i]) for n elements of the kernel's class (dst may be a or b).
// AVX2 kernels take n as a multiple of the vector's element count (the Go wrapper runs the
// tail); AVX-512 kernels take any n and finish with one masked vector.

import (
	"fmt"
	"math/bits"
	"reflect"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"

	"github.com/goshmem/shmem/gen/tables"
)

// isa is one x86 vector instruction set the kernels are generated for.
type isa struct {
	Name   string // suffix of function names: "AVX2", "AVX512"
	Bytes  int    // vector width
	AVX512 bool
}

var (
	isaAVX2   = isa{Name: "AVX2", Bytes: 32}
	isaAVX512 = isa{Name: "AVX512", Bytes: 64, AVX512: true}
	amd64ISAs = []isa{isaAVX2, isaAVX512}
)

type amd64Gen struct {
	c      *build.Context
	isa    isa
	consts map[string]operand.Mem
}

// ins appends the instruction named op with the given operands (avo's operand order, which
// is Go's: sources first, destination last).
func (g *amd64Gen) ins(op string, ops ...operand.Op) {
	m := reflect.ValueOf(g.c).MethodByName(op)
	if !m.IsValid() {
		panic("avo has no instruction " + op)
	}
	args := make([]reflect.Value, len(ops))
	for i, o := range ops {
		args[i] = reflect.ValueOf(&o).Elem()
	}
	m.Call(args)
}

func (g *amd64Gen) vec() reg.VecVirtual {
	if g.isa.AVX512 {
		return g.c.ZMM()
	}
	return g.c.YMM()
}

// half is the half-width view of a vector register (ymm of zmm, xmm of ymm).
func (g *amd64Gen) half(v reg.VecVirtual) reg.Register {
	if g.isa.AVX512 {
		return v.AsY()
	}
	return v.AsX()
}

// pick returns the AVX-512 mnemonic when generating AVX-512, else the AVX2 one.
func (g *amd64Gen) pick(avx2, avx512 string) string {
	if g.isa.AVX512 {
		return avx512
	}
	return avx2
}

// constant broadcasts a 64-bit pattern into a new vector register (loaded once, before the loop).
func (g *amd64Gen) constant(name string, v uint64) reg.VecVirtual {
	m, ok := g.consts[name]
	if !ok {
		m = g.c.ConstData(name, operand.U64(v))
		g.consts[name] = m
	}
	r := g.vec()
	g.ins("VPBROADCASTQ", m, r)
	return r
}

// load moves a memory operand into a register; registers pass through.
func (g *amd64Gen) load(x operand.Op) reg.VecVirtual {
	if r, ok := x.(reg.VecVirtual); ok {
		return r
	}
	r := g.vec()
	g.ins(g.pick("VMOVDQU", "VMOVDQU64"), x, r)
	return r
}

// simple gives the one-instruction form of a kernel for this ISA ("" if there is none).
func (g *amd64Gen) simple(k tables.Kernel) string {
	c := k.Class
	w := map[int]string{8: "B", 16: "W", 32: "D", 64: "Q"}[c.Bits]
	fl := map[int]string{32: "PS", 64: "PD"}[c.Bits]
	switch k.Op.Name {
	case "sum":
		if c.Kind == tables.Float {
			return "VADD" + fl
		}
		return "VPADD" + w
	case "prod":
		switch {
		case c.Kind == tables.Float:
			return "VMUL" + fl
		case c.Kind == tables.Complex || c.Bits == 8:
			return ""
		case c.Bits == 64 && !g.isa.AVX512:
			return ""
		}
		return "VPMULL" + w
	case "min", "max":
		mm := map[string]string{"min": "MIN", "max": "MAX"}[k.Op.Name]
		if c.Kind == tables.Float {
			// VMINPS b, a, d: d = a < b ? a : b (the second source wins on NaN and on
			// equal zeros), exactly the C reference. VMAXPS likewise with >.
			return "V" + mm + fl
		}
		if c.Bits == 64 && !g.isa.AVX512 {
			return ""
		}
		s := map[tables.Kind]string{tables.Signed: "S", tables.Unsigned: "U"}[c.Kind]
		return "VP" + mm + s + w
	default: // and, or, xor
		return g.pick("VP"+upper(k.Op.Name), "VP"+upper(k.Op.Name)+"Q")
	}
}

type prepared struct {
	regs  map[string]reg.VecVirtual
	kEven reg.OpmaskVirtual
}

// prepare loads the constants a kernel needs before its loop.
func (g *amd64Gen) prepare(k tables.Kernel) prepared {
	p := prepared{regs: map[string]reg.VecVirtual{}}
	if g.simple(k) != "" {
		return p
	}
	c := k.Class
	switch {
	case k.Op.Name == "prod" && c.Bits == 8:
		p.regs["lo8"] = g.constant("lo8mask", 0x00ff00ff00ff00ff)
	case (k.Op.Name == "min" || k.Op.Name == "max") && c.Kind == tables.Unsigned:
		p.regs["bias"] = g.constant("signbit64", 0x8000000000000000)
	case k.Op.Name == "prod" && c.Kind == tables.Complex && g.isa.AVX512:
		p.kEven = g.c.K()
		t := g.c.GP64()
		g.c.MOVQ(operand.U32(0x55), t)
		g.c.KMOVQ(t, p.kEven)
	}
	return p
}

// op emits out = op(a, b) and returns out; a and b are registers or memory operands.
func (g *amd64Gen) op(k tables.Kernel, p prepared, a, b operand.Op) reg.VecVirtual {
	if s := g.simple(k); s != "" {
		out := g.vec()
		g.ins(s, b, g.load(a), out)
		return out
	}
	c := k.Class
	switch {
	case k.Op.Name == "prod" && c.Bits == 8:
		// Bytes have no multiply: the low byte of a 16-bit product depends only on the low
		// bytes, so even bytes come from one VPMULLW, odd bytes from another on the high
		// bytes shifted into place.
		x, y := g.load(a), g.load(b)
		even, ah, bh, odd, out := g.vec(), g.vec(), g.vec(), g.vec(), g.vec()
		g.ins("VPMULLW", y, x, even)
		g.ins("VPSRLW", operand.U8(8), x, ah)
		g.ins(g.pick("VPANDN", "VPANDNQ"), y, p.regs["lo8"], bh) // y &^ 0x00ff
		g.ins("VPMULLW", bh, ah, odd)
		g.ins(g.pick("VPAND", "VPANDQ"), p.regs["lo8"], even, even)
		g.ins(g.pick("VPOR", "VPORQ"), odd, even, out)
		return out
	case k.Op.Name == "prod" && c.Kind != tables.Complex && c.Bits == 64: // AVX2 only
		// lo(a)*lo(b) + (hi(a)*lo(b) + lo(a)*hi(b)) << 32, all mod 2^64.
		x, y := g.load(a), g.load(b)
		lo, ah, bh, t1, t2, out := g.vec(), g.vec(), g.vec(), g.vec(), g.vec(), g.vec()
		g.c.VPMULUDQ(y, x, lo)
		g.c.VPSRLQ(operand.U8(32), x, ah)
		g.c.VPMULUDQ(y, ah, t1)
		g.c.VPSRLQ(operand.U8(32), y, bh)
		g.c.VPMULUDQ(bh, x, t2)
		g.c.VPADDQ(t2, t1, t1)
		g.c.VPSLLQ(operand.U8(32), t1, t1)
		g.c.VPADDQ(t1, lo, out)
		return out
	case k.Op.Name == "min" || k.Op.Name == "max": // 64-bit on AVX2
		x, y := g.load(a), g.load(b)
		cx, cy := x, y
		if c.Kind == tables.Unsigned {
			cx, cy = g.vec(), g.vec()
			g.c.VPXOR(p.regs["bias"], x, cx)
			g.c.VPXOR(p.regs["bias"], y, cy)
		}
		mask, out := g.vec(), g.vec()
		if k.Op.Name == "min" {
			g.c.VPCMPGTQ(cx, cy, mask) // mask = b > a
		} else {
			g.c.VPCMPGTQ(cy, cx, mask) // mask = a > b
		}
		g.c.VPBLENDVB(mask, x, y, out) // mask ? a : b
		return out
	case c.Kind == tables.Complex && c.Bits == 64:
		return g.cmul128(p, g.load(a), g.load(b))
	case c.Kind == tables.Complex && c.Bits == 32:
		// Go multiplies complex64 in float64 and rounds once to float32: widen each half,
		// multiply as complex128, narrow.
		var outs [2]reg.Register
		for h := 0; h < 2; h++ {
			wa, wb := g.widen(a, h), g.widen(b, h)
			prod := g.cmul128(p, wa, wb)
			n := g.vec()
			g.ins(g.pick("VCVTPD2PSY", "VCVTPD2PS"), prod, g.half(n))
			outs[h] = g.half(n)
		}
		out := g.vec()
		g.ins(g.pick("VINSERTF128", "VINSERTF64X4"), operand.U8(1), outs[1], g.full(outs[0]), out)
		return out
	}
	panic(fmt.Sprintf("no amd64 code for %s on %s", k.Name(), g.isa.Name))
}

// full is the full-width view of a half register.
func (g *amd64Gen) full(r reg.Register) reg.Register {
	v := r.(reg.VecVirtual)
	if g.isa.AVX512 {
		return v.AsZ()
	}
	return v.AsY()
}

// widen converts half h of a float32 vector (memory or register) to a float64 vector.
func (g *amd64Gen) widen(x operand.Op, h int) reg.VecVirtual {
	out := g.vec()
	if m, ok := x.(operand.Mem); ok {
		m.Disp += h * g.isa.Bytes / 2
		g.ins("VCVTPS2PD", m, out)
		return out
	}
	v := x.(reg.VecVirtual)
	src := g.half(v)
	if h == 1 {
		t := g.vec()
		g.ins(g.pick("VEXTRACTF128", "VEXTRACTF64X4"), operand.U8(1), v, g.half(t))
		src = g.half(t)
	}
	g.ins("VCVTPS2PD", src, out)
	return out
}

// cmul128 multiplies complex128 lanes exactly as Go's * does without FMA:
// (ar*br - ai*bi, ar*bi + ai*br), each product rounded, then the sum rounded.
func (g *amd64Gen) cmul128(p prepared, x, y reg.VecVirtual) reg.VecVirtual {
	ar, ai, ys, t1, t2, out := g.vec(), g.vec(), g.vec(), g.vec(), g.vec(), g.vec()
	all := uint8(0xf)
	swap := uint8(0x5)
	if g.isa.AVX512 {
		all, swap = 0xff, 0x55
	}
	g.c.VMOVDDUP(x, ar)                    // (ar, ar)
	g.c.VPERMILPD(operand.U8(all), x, ai)  // (ai, ai)
	g.c.VPERMILPD(operand.U8(swap), y, ys) // (bi, br)
	g.c.VMULPD(y, ar, t1)                  // (ar*br, ar*bi)
	g.c.VMULPD(ys, ai, t2)                 // (ai*bi, ai*br)
	if !g.isa.AVX512 {
		g.c.VADDSUBPD(t2, t1, out) // (t1r - t2r, t1i + t2i)
		return out
	}
	// No VADDSUBPD on zmm: add everywhere, then subtract in the real lanes (merge-masked).
	// A sign flip and an add would differ from Go on a NaN's sign bit.
	g.c.VADDPD(t2, t1, out)
	g.c.VSUBPD(t2, t1, p.kEven, out)
	return out
}

// unroll is how many vectors one loop iteration handles.
func (g *amd64Gen) unroll(k tables.Kernel) int {
	if g.simple(k) != "" {
		return 4
	}
	return 2
}

func log2(n int) int { return bits.TrailingZeros(uint(n)) }

// combine generates one combine kernel.
func (g *amd64Gen) combine(k tables.Kernel) {
	c := g.c
	V := g.isa.Bytes
	U := g.unroll(k)
	c.Function(k.Name() + g.isa.Name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(dst, a, b *byte, n int)")
	elem := k.Class.Elem()
	if g.isa.AVX512 {
		c.Commentf("%s%s: dst[i] = %s(a[i], b[i]) for %s, any n (masked tail).", k.Name(), g.isa.Name, k.Op.Name, k.Class.GoType())
	} else {
		c.Commentf("%s%s: dst[i] = %s(a[i], b[i]) for %s; n is a multiple of %d.", k.Name(), g.isa.Name, k.Op.Name, k.Class.GoType(), V/elem)
	}
	dst := c.Load(c.Param("dst"), c.GP64())
	pa := c.Load(c.Param("a"), c.GP64())
	pb := c.Load(c.Param("b"), c.GP64())
	nb := c.Load(c.Param("n"), c.GP64())
	if s := log2(elem); s > 0 {
		c.SHLQ(operand.U8(s), nb) // bytes
	}
	p := g.prepare(k)
	off := c.GP64()
	c.XORQ(off, off)
	end := c.GP64()
	at := func(base reg.Register, d int) operand.Mem {
		return operand.Mem{Base: base, Index: off, Scale: 1, Disp: d}
	}
	store := func(r reg.VecVirtual, d int) {
		g.ins(g.pick("VMOVDQU", "VMOVDQU64"), r, at(dst, d))
	}
	name := k.Name() + g.isa.Name

	gran := k.Class.Bits / 8 // AVX-512 mask granularity in bytes
	if k.Class.Kind == tables.Complex && gran < 8 {
		gran = 8
	}
	// masked runs op on the cnt bytes (< V, a multiple of gran) at off, with masked loads
	// and a masked store; cnt is clobbered.
	masked := func(cnt reg.Register) {
		if s := log2(gran); s > 0 {
			c.SHRQ(operand.U8(s), cnt)
		}
		ones, m := c.GP64(), c.GP64()
		c.MOVQ(operand.I32(-1), ones)
		c.BZHIQ(cnt, ones, m)
		km := c.K()
		c.KMOVQ(m, km)
		mov := map[int]string{1: "VMOVDQU8", 2: "VMOVDQU16", 4: "VMOVDQU32", 8: "VMOVDQU64"}[gran]
		x, y := g.vec(), g.vec()
		g.ins(mov+"_Z", at(pa, 0), km, x)
		g.ins(mov+"_Z", at(pb, 0), km, y)
		r := g.op(k, p, x, y)
		g.ins(mov, r, km, at(dst, 0))
	}

	if g.isa.AVX512 {
		// Full speed needs 64-byte-aligned accesses: when dst's elements are aligned and
		// there are a few vectors to do, a masked head brings dst to a 64-byte boundary
		// (a and b too, when they share dst's alignment, the usual case).
		head := c.GP64()
		c.CMPQ(nb, operand.U32(4*V))
		c.JB(operand.LabelRef(name + "_body"))
		c.MOVQ(dst, head)
		c.NEGQ(head)
		c.ANDQ(operand.U32(63), head) // bytes to the next boundary
		c.JZ(operand.LabelRef(name + "_body"))
		// The head must hold whole elements (a complex128 is two mask lanes).
		whole := gran
		if k.Class.Kind == tables.Complex {
			whole = k.Class.Elem()
		}
		if whole > 1 {
			c.TESTQ(operand.U32(whole-1), head)
			c.JNZ(operand.LabelRef(name + "_body")) // misaligned elements: no boundary to reach
		}
		cnt := c.GP64()
		c.MOVQ(head, cnt)
		masked(cnt)
		c.MOVQ(head, off)
		c.Label(name + "_body")
	}

	// Unrolled loop over U vectors, while off <= nb - U*V.
	c.MOVQ(nb, end)
	c.SUBQ(operand.U32(U*V), end)
	c.CMPQ(off, end)
	c.JG(operand.LabelRef(name + "_one"))
	c.Label(name + "_loop")
	var outs []reg.VecVirtual
	for u := 0; u < U; u++ {
		outs = append(outs, g.op(k, p, at(pa, u*V), at(pb, u*V)))
	}
	for u, r := range outs {
		store(r, u*V)
	}
	c.ADDQ(operand.U32(U*V), off)
	c.CMPQ(off, end)
	c.JLE(operand.LabelRef(name + "_loop"))

	// One vector at a time, while off <= nb - V.
	c.Label(name + "_one")
	c.MOVQ(nb, end)
	c.SUBQ(operand.U32(V), end)
	c.Label(name + "_oneloop")
	c.CMPQ(off, end)
	c.JG(operand.LabelRef(name + "_tail"))
	store(g.op(k, p, at(pa, 0), at(pb, 0)), 0)
	c.ADDQ(operand.U32(V), off)
	c.JMP(operand.LabelRef(name + "_oneloop"))

	c.Label(name + "_tail")
	if g.isa.AVX512 {
		// The bytes left (< V): one masked vector.
		c.SUBQ(off, nb)
		c.JZ(operand.LabelRef(name + "_done"))
		masked(nb)
	}
	c.Label(name + "_done")
	c.VZEROUPPER()
	c.RET()
}

func upper(s string) string {
	b := []byte(s)
	for i := range b {
		if 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// genAMD64 builds the amd64 file and returns the assembly and the stubs.
func genAMD64(header []string) (asm, stubs []byte, err error) {
	c := build.NewContext()
	c.ConstraintExpr("amd64")
	c.ConstraintExpr("!purego")
	consts := map[string]operand.Mem{}
	for _, is := range amd64ISAs {
		g := &amd64Gen{c: c, isa: is, consts: consts}
		for _, k := range tables.Kernels() {
			g.combine(k)
		}
		g.strided()
		g.scans()
	}
	copyERMS(c)
	f, err := c.Result()
	if err != nil {
		return nil, nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, nil, err
	}
	cfg := printer.Config{Argv: header, Pkg: "asm"}
	asm, err = printer.NewGoAsm(cfg).Print(f)
	if err != nil {
		return nil, nil, err
	}
	stubs, err = printer.NewStubs(cfg).Print(f)
	return asm, stubs, err
}
