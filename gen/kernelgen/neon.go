package main

// The arm64 NEON kernels. avo has no arm64 back end, so this emits the Go assembly text
// directly. The Go arm64 assembler lacks most vector arithmetic (float add/mul/compare,
// integer mul/min/max, compares, conversions): those are WORD-encoded here, with the
// instruction in a comment. Same signature and contract as the AVX2 kernels: n is a
// multiple of the kernel's block (neonBlock), the Go wrapper runs the tail.
//
// Where NEON lacks the operation: 64-bit integer multiply has no vector form, so that
// kernel is a scalar loop (MUL) inside the kernel. 64-bit min and max have no SMIN/UMIN .2D
// either, but CMGT/CMHI .2D exist, so a compare and a bit select (BSL) keep them vector
// code, the same two instructions the float min/max use. Strided copies: only Pack
// (dst[i] = src[2i], by LD2); NEON has no masked store, so the patterns that must leave
// dst's other elements untouched run as the Go loop.

import (
	"bytes"
	"fmt"

	"github.com/goshmem/shmem/gen/tables"
)

// neonBlock is the elements one loop iteration of a NEON kernel handles.
func neonBlock(k tables.Kernel) int {
	if neonScalar(k) {
		return 1
	}
	return 32 / k.Class.Elem()
}

// neonScalar: NEON has no 64-bit integer multiply; that kernel is a scalar loop.
func neonScalar(k tables.Kernel) bool {
	return k.Op.Name == "prod" && k.Class.Kind != tables.Complex && k.Class.Kind != tables.Float && k.Class.Bits == 64
}

// Encoders for the AdvSIMD instructions the Go assembler lacks (Q=1: 128-bit vectors).

// threeSame: 0 Q U 01110 size 1 Rm opcode 1 Rn Rd.
func threeSame(u, size, opcode, rd, rn, rm uint32) uint32 {
	return 1<<30 | u<<29 | 0b01110<<24 | size<<22 | 1<<21 | rm<<16 | opcode<<11 | 1<<10 | rn<<5 | rd
}

// fcvtl widens single to double: FCVTL (upper=false, low half) or FCVTL2.
// 0 Q 0 01110 0 sz 10000 10111 10 Rn Rd, sz=1.
func fcvtl(upper bool, rd, rn uint32) uint32 {
	q := uint32(0)
	if upper {
		q = 1
	}
	return q<<30 | 0b01110<<24 | 1<<22 | 0b10000<<17 | 0b10111<<12 | 0b10<<10 | rn<<5 | rd
}

// fcvtn narrows double to single: FCVTN (into the low half, zeroing the upper) or FCVTN2
// (into the upper half, keeping the lower). 0 Q 0 01110 0 sz 10000 10110 10 Rn Rd, sz=1.
func fcvtn(upper bool, rd, rn uint32) uint32 {
	q := uint32(0)
	if upper {
		q = 1
	}
	return q<<30 | 0b01110<<24 | 1<<22 | 0b10000<<17 | 0b10110<<12 | 0b10<<10 | rn<<5 | rd
}

type neonGen struct {
	b bytes.Buffer
}

func (g *neonGen) p(format string, a ...any) { fmt.Fprintf(&g.b, format+"\n", a...) }

// word emits an encoded instruction with its assembly in a comment.
func (g *neonGen) word(enc uint32, asm string, a ...any) {
	g.p("\tWORD $0x%08x // %s", enc, fmt.Sprintf(asm, a...))
}

// arrangement names: Go's (for native instructions) and the ARM one (for comments).
func goArr(bits int) string { return map[int]string{8: "B16", 16: "H8", 32: "S4", 64: "D2"}[bits] }
func armArr(bits int) string {
	return map[int]string{8: "16b", 16: "8h", 32: "4s", 64: "2d"}[bits]
}

// size field of integer three-same instructions.
func isize(bits int) uint32 { return map[int]uint32{8: 0, 16: 1, 32: 2, 64: 3}[bits] }

// fsz is the sz bit of float instructions.
func fsz(bits int) uint32 {
	if bits == 64 {
		return 1
	}
	return 0
}

// int3 emits an integer three-same instruction d = op(n, m) by mnemonic.
func (g *neonGen) int3(op string, bits int, d, n, m int) {
	ops := map[string][2]uint32{ // U, opcode
		"mul":  {0, 0b10011},
		"smax": {0, 0b01100}, "smin": {0, 0b01101},
		"umax": {1, 0b01100}, "umin": {1, 0b01101},
		"cmgt": {0, 0b00110}, "cmhi": {1, 0b00110},
	}
	o := ops[op]
	a := armArr(bits)
	g.word(threeSame(o[0], isize(bits), o[1], uint32(d), uint32(n), uint32(m)),
		"%s v%d.%s, v%d.%s, v%d.%s", op, d, a, n, a, m, a)
}

// fp3 emits a float three-same instruction d = op(n, m).
func (g *neonGen) fp3(op string, bits int, d, n, m int) {
	ops := map[string][3]uint32{ // U, size high bit, opcode
		"fadd":  {0, 0, 0b11010},
		"fsub":  {0, 1, 0b11010},
		"fmul":  {1, 0, 0b11011},
		"fcmgt": {1, 1, 0b11100},
		"fmla":  {0, 0, 0b11001}, // d += n*m, fused
		"fmls":  {0, 1, 0b11001}, // d -= n*m, fused
	}
	o := ops[op]
	a := armArr(bits)
	g.word(threeSame(o[0], o[1]<<1|fsz(bits), o[2], uint32(d), uint32(n), uint32(m)),
		"%s v%d.%s, v%d.%s, v%d.%s", op, d, a, n, a, m, a)
}

// vop emits d = op(n, m) on vector registers for a (non-complex) kernel.
func (g *neonGen) vop(k tables.Kernel, d, n, m int) {
	c := k.Class
	arr := goArr(c.Bits)
	switch k.Op.Name {
	case "sum":
		if c.Kind == tables.Float {
			g.fp3("fadd", c.Bits, d, n, m)
		} else {
			g.p("\tVADD V%d.%s, V%d.%s, V%d.%s", m, arr, n, arr, d, arr)
		}
	case "prod":
		if c.Kind == tables.Float {
			g.fp3("fmul", c.Bits, d, n, m)
		} else {
			g.int3("mul", c.Bits, d, n, m)
		}
	case "min", "max":
		// d = a < b ? a : b (min) or a > b ? a : b (max): a mask and a bit select. For
		// floats this is the C reference bit for bit (a NaN compares false: b is taken).
		if c.Kind != tables.Float && c.Bits < 64 {
			s := map[tables.Kind]string{tables.Signed: "s", tables.Unsigned: "u"}[c.Kind]
			if c.Kind == tables.Unsigned {
				g.p("\tVU%s V%d.%s, V%d.%s, V%d.%s", upper(k.Op.Name), m, arr, n, arr, d, arr)
			} else {
				g.int3(s+k.Op.Name, c.Bits, d, n, m)
			}
			return
		}
		cmp := map[tables.Kind]string{tables.Signed: "cmgt", tables.Unsigned: "cmhi", tables.Float: "fcmgt"}[c.Kind]
		x, y := m, n // min: mask = b > a
		if k.Op.Name == "max" {
			x, y = n, m // max: mask = a > b
		}
		if c.Kind == tables.Float {
			g.fp3(cmp, c.Bits, d, x, y)
		} else {
			g.int3(cmp, c.Bits, d, x, y)
		}
		g.p("\tVBSL V%d.B16, V%d.B16, V%d.B16 // v%d = mask ? v%d : v%d", m, n, d, d, n, m)
	default:
		mn := map[string]string{"and": "VAND", "or": "VORR", "xor": "VEOR"}[k.Op.Name]
		g.p("\t%s V%d.B16, V%d.B16, V%d.B16", mn, m, n, d)
	}
}

// cmul emits the complex128 product of lanes (re in ar/br, im in ai/bi) into (dr, di),
// the way Go's arm64 compiler evaluates a*b: it fuses one product of each part,
// real = fl(ar*br) - ai*bi and imag = fl(ar*bi) + ai*br, each with a single rounding.
func (g *neonGen) cmul(dr, di, ar, ai, br, bi int) {
	g.fp3("fmul", 64, dr, ar, br)
	g.fp3("fmls", 64, dr, ai, bi)
	g.fp3("fmul", 64, di, ar, bi)
	g.fp3("fmla", 64, di, ai, br)
}

func (g *neonGen) kernel(k tables.Kernel) {
	name := k.Name() + "NEON"
	blk := neonBlock(k)
	g.p("")
	g.p("// func %s(dst *byte, a *byte, b *byte, n int)", name)
	g.p("// %s: dst[i] = %s(a[i], b[i]) for %s; n is a multiple of %d.", name, k.Op.Name, k.Class.GoType(), blk)
	g.p("TEXT ·%s(SB), NOSPLIT, $0-32", name)
	g.p("\tMOVD dst+0(FP), R0")
	g.p("\tMOVD a+8(FP), R1")
	g.p("\tMOVD b+16(FP), R2")
	g.p("\tMOVD n+24(FP), R3")
	g.p("\tCBZ R3, %s_done", name)
	if blk > 1 {
		g.p("\tLSR $%d, R3, R3", log2(blk))
	}
	g.p("%s_loop:", name)
	c := k.Class
	switch {
	case neonScalar(k):
		g.p("\tMOVD.P 8(R1), R4")
		g.p("\tMOVD.P 8(R2), R5")
		g.p("\tMUL R5, R4, R4")
		g.p("\tMOVD.P R4, 8(R0)")
	case c.Kind == tables.Complex && c.Bits == 64:
		// Two complex128: VLD2 splits real (V0) and imaginary (V1) parts.
		g.p("\tVLD2.P 32(R1), [V0.D2, V1.D2]")
		g.p("\tVLD2.P 32(R2), [V2.D2, V3.D2]")
		g.cmul(4, 5, 0, 1, 2, 3)
		g.p("\tVST2.P [V4.D2, V5.D2], 32(R0)")
	case c.Kind == tables.Complex:
		// Four complex64: split parts, widen each half to float64 (Go computes complex64
		// products in float64 and rounds once), multiply, narrow.
		g.p("\tVLD2.P 32(R1), [V0.S4, V1.S4]")
		g.p("\tVLD2.P 32(R2), [V2.S4, V3.S4]")
		for h, upper := range []bool{false, true} {
			ins := map[bool]string{false: "fcvtl", true: "fcvtl2"}[upper]
			for i, r := range []int{0, 1, 2, 3} {
				g.word(fcvtl(upper, uint32(8+i), uint32(r)), "%s v%d.2d, v%d.%s", ins, 8+i, r, map[bool]string{false: "2s", true: "4s"}[upper])
			}
			g.cmul(12+2*h, 13+2*h, 8, 9, 10, 11)
		}
		g.word(fcvtn(false, 4, 12), "fcvtn v4.2s, v12.2d")
		g.word(fcvtn(true, 4, 14), "fcvtn2 v4.4s, v14.2d")
		g.word(fcvtn(false, 5, 13), "fcvtn v5.2s, v13.2d")
		g.word(fcvtn(true, 5, 15), "fcvtn2 v5.4s, v15.2d")
		g.p("\tVST2.P [V4.S4, V5.S4], 32(R0)")
	default:
		arr := goArr(c.Bits)
		g.p("\tVLD1.P 32(R1), [V0.%s, V1.%s]", arr, arr)
		g.p("\tVLD1.P 32(R2), [V2.%s, V3.%s]", arr, arr)
		g.vop(k, 4, 0, 2)
		g.vop(k, 5, 1, 3)
		g.p("\tVST1.P [V4.%s, V5.%s], 32(R0)", arr, arr)
	}
	g.p("\tSUBS $1, R3, R3")
	g.p("\tBNE %s_loop", name)
	g.p("%s_done:", name)
	g.p("\tRET")
}

// neonPackBlock is the block of the NEON Pack kernels (dst[i] = src[2i]).
func neonPackBlock(size int) int { return 32 / size }

func (g *neonGen) pack(size int) {
	name := fmt.Sprintf("Pack%dNEON", size*8)
	arr := goArr(size * 8)
	g.p("")
	g.p("// func %s(dst *byte, src *byte, n int)", name)
	g.p("// %s: dst[i] = src[2i] for %d-byte elements; n is a multiple of %d, src[0:2n] is read.", name, size, neonPackBlock(size))
	g.p("TEXT ·%s(SB), NOSPLIT, $0-24", name)
	g.p("\tMOVD dst+0(FP), R0")
	g.p("\tMOVD src+8(FP), R1")
	g.p("\tMOVD n+16(FP), R3")
	g.p("\tCBZ R3, %s_done", name)
	g.p("\tLSR $%d, R3, R3", log2(neonPackBlock(size)))
	g.p("%s_loop:", name)
	// VLD2 splits even (V0, V2) from odd (V1, V3) elements.
	g.p("\tVLD2.P 32(R1), [V0.%s, V1.%s]", arr, arr)
	g.p("\tVLD2.P 32(R1), [V2.%s, V3.%s]", arr, arr)
	g.p("\tVMOV V2.B16, V1.B16")
	g.p("\tVST1.P [V0.%s, V1.%s], 32(R0)", arr, arr)
	g.p("\tSUBS $1, R3, R3")
	g.p("\tBNE %s_loop", name)
	g.p("%s_done:", name)
	g.p("\tRET")
}

// genNEON returns the arm64 assembly and its Go stubs.
func genNEON(header string) (asm, stubs []byte) {
	g := &neonGen{}
	g.p("// %s", header)
	g.p("")
	g.p("//go:build arm64 && !purego")
	g.p("")
	g.p("#include \"textflag.h\"")
	for _, k := range tables.Kernels() {
		g.kernel(k)
	}
	for _, size := range []int{4, 8} {
		g.pack(size)
	}
	for _, k := range tables.ScanKernels() {
		g.scan(k)
	}

	var s bytes.Buffer
	fmt.Fprintf(&s, "// %s\n\n//go:build arm64 && !purego\n\npackage asm\n", header)
	for _, k := range tables.Kernels() {
		fmt.Fprintf(&s, "\n// %sNEON: dst[i] = %s(a[i], b[i]) for %s; n is a multiple of %d.\n//\n//go:noescape\nfunc %sNEON(dst *byte, a *byte, b *byte, n int)\n",
			k.Name(), k.Op.Name, k.Class.GoType(), neonBlock(k), k.Name())
	}
	for _, size := range []int{4, 8} {
		fmt.Fprintf(&s, "\n// Pack%dNEON: dst[i] = src[2i]; n is a multiple of %d, src[0:2n] is read.\n//\n//go:noescape\nfunc Pack%dNEON(dst *byte, src *byte, n int)\n",
			size*8, neonPackBlock(size), size*8)
	}
	for _, k := range tables.ScanKernels() {
		fmt.Fprintf(&s, "\n// %sNEON: indices of p[i] %s w[i] for %s with st[i] == 0; n is a multiple of %d.\n//\n//go:noescape\nfunc %sNEON(p *byte, v uint64, vals *byte, st *int32, sstep uintptr, idx *int, n int, max int) int\n",
			k.Name(), k.Cmp.Go, k.Class.GoType(), neonScanLanes(k.Class), k.Name())
	}
	return g.b.Bytes(), s.Bytes()
}
