package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Strided-copy kernels for the stride-2 patterns (the others run as a Go loop):
//
//	Pack:   dst[i] = src[2i]    (dstStride 1, srcStride 2)
//	Unpack: dst[2i] = src[i]    (dstStride 2, srcStride 1)
//	Even:   dst[2i] = src[2i]   (both strides 2)
//
// Signature func(dst, src *byte, n int); n is a multiple of the kernel's block (StrideBlock),
// and Pack reads src[0:2n] whole, so the caller keeps 2n <= len(src). Destination elements
// between the strided ones are never written (masked stores), so other writers of them
// (other PEs of an alltoalls) are safe.

// stridePatterns lists the patterns in the order the Go side names them.
var stridePatterns = []string{"Pack", "Unpack", "Even"}

// strideBlock gives the elements one iteration of a strided kernel moves.
func strideBlock(is isa, pattern string, size int) int {
	lanes := is.Bytes / size
	switch {
	case pattern == "Pack":
		return lanes
	case pattern == "Unpack" && size == 8 && !is.AVX512:
		return lanes // two stores per loaded vector
	}
	return lanes / 2
}

// table emits a read-only table of 64-bit words and loads it into a vector register.
func (g *amd64Gen) table(name string, words []uint64) reg.VecVirtual {
	m, ok := g.consts[name]
	if !ok {
		m = g.c.StaticGlobal(name)
		g.c.DataAttributes(attr.RODATA | attr.NOPTR)
		for _, w := range words {
			g.c.AppendDatum(operand.U64(w))
		}
		g.consts[name] = m
	}
	r := g.vec()
	g.ins(g.pick("VMOVDQU", "VMOVDQU64"), m, r)
	return r
}

// evenMask is a vector mask (AVX2) selecting the even elements of the given size.
func (g *amd64Gen) evenMask(size int) reg.VecVirtual {
	if size == 4 {
		return g.constant("even32", 0x00000000ffffffff)
	}
	return g.table("even64", []uint64{^uint64(0), 0, ^uint64(0), 0})
}

// evenK is an opmask (AVX-512) selecting the even elements of the given size.
func (g *amd64Gen) evenK(size int) reg.OpmaskVirtual {
	k := g.c.K()
	t := g.c.GP64()
	if size == 4 {
		g.c.MOVQ(operand.U32(0x5555), t)
	} else {
		g.c.MOVQ(operand.U32(0x55), t)
	}
	g.c.KMOVQ(t, k)
	return k
}

func (g *amd64Gen) strided() {
	for _, size := range []int{4, 8} {
		for _, pat := range stridePatterns {
			g.stridedKernel(pat, size)
		}
	}
}

func (g *amd64Gen) stridedKernel(pat string, size int) {
	c := g.c
	V := g.isa.Bytes
	B := strideBlock(g.isa, pat, size)
	name := fmt.Sprintf("%s%d%s", pat, size*8, g.isa.Name)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(dst, src *byte, n int)")
	c.Commentf("%s: strided copy of %d-byte elements (%s); n is a multiple of %d.", name, size, pat, B)
	dst := c.Load(c.Param("dst"), c.GP64())
	src := c.Load(c.Param("src"), c.GP64())
	n := c.Load(c.Param("n"), c.GP64())
	// Bytes of dst (Pack) or src (Unpack, Even) consumed per block; the loop runs over the
	// byte offset of the contiguous side.
	c.SHLQ(operand.U8(log2(size)), n)
	if pat == "Even" {
		c.SHLQ(operand.U8(1), n)
	}
	wide := g.pick("VMOVDQU", "VMOVDQU64")
	var kEven reg.OpmaskVirtual
	var vEven, idx reg.VecVirtual
	if g.isa.AVX512 {
		kEven = g.evenK(size)
	} else {
		vEven = g.evenMask(size)
	}
	if pat == "Unpack" && size == 8 && g.isa.AVX512 {
		idx = g.table("unpack64idx", []uint64{0, 0, 1, 1, 2, 2, 3, 3})
	}
	if pat == "Pack" && g.isa.AVX512 {
		lanes := V / size
		var words []uint64
		for i := 0; i < lanes; i += 64 / (size * 8) {
			if size == 4 {
				words = append(words, uint64(2*i)|uint64(2*i+2)<<32)
			} else {
				words = append(words, uint64(2*i))
			}
		}
		idx = g.table(fmt.Sprintf("pack%didx", size*8), words)
	}
	off := c.GP64()
	c.XORQ(off, off)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_done"))
	c.Label(name + "_loop")
	switch pat {
	case "Pack":
		// src offset is twice the dst offset.
		s2 := c.GP64()
		c.LEAQ(operand.Mem{Base: src, Index: off, Scale: 2}, s2)
		lo, hi := g.vec(), g.vec()
		g.ins(wide, operand.Mem{Base: s2}, lo)
		if g.isa.AVX512 {
			g.ins("VPERMT2"+map[int]string{4: "D", 8: "Q"}[size], operand.Mem{Base: s2, Disp: V}, idx, lo)
		} else {
			g.ins(wide, operand.Mem{Base: s2, Disp: V}, hi)
			t := g.vec()
			if size == 4 {
				c.VSHUFPS(operand.U8(0x88), hi, lo, t) // per 128-bit lane: lo[0], lo[2], hi[0], hi[2]
			} else {
				c.VPUNPCKLQDQ(hi, lo, t) // lo[0], hi[0], lo[2], hi[2]
			}
			c.VPERMQ(operand.U8(0xd8), t, lo) // 64-bit lanes 0, 2, 1, 3
		}
		g.ins(wide, lo, operand.Mem{Base: dst, Index: off, Scale: 1})
	case "Unpack":
		// dst offset is twice the src offset.
		d2 := c.GP64()
		c.LEAQ(operand.Mem{Base: dst, Index: off, Scale: 2}, d2)
		x := g.vec()
		in := operand.Mem{Base: src, Index: off, Scale: 1}
		if size == 4 {
			g.ins("VPMOVZXDQ", in, x) // element i into 32-bit lane 2i
		} else if g.isa.AVX512 {
			// Elements 0..3 into lanes 0, 2, 4, 6 (VPEXPANDQ from memory is much slower).
			y := g.vec()
			g.ins("VMOVDQU64", in, y.AsY())
			c.VPERMQ(y, idx, x)
		} else {
			y := g.vec()
			g.ins(wide, in, y)
			c.VPERMQ(operand.U8(0x10), y, x) // lanes 0, 0, 1, 0
			c.VPMASKMOVQ(x, vEven, operand.Mem{Base: d2})
			c.VPERMQ(operand.U8(0x32), y, x) // lanes 2, 0, 3, 0
			c.VPMASKMOVQ(x, vEven, operand.Mem{Base: d2, Disp: V})
			break
		}
		g.maskedStore(size, x, kEven, vEven, operand.Mem{Base: d2})
	case "Even":
		x := g.vec()
		in := operand.Mem{Base: src, Index: off, Scale: 1}
		if g.isa.AVX512 {
			g.ins(map[int]string{4: "VMOVDQU32_Z", 8: "VMOVDQU64_Z"}[size], in, kEven, x)
		} else {
			g.ins(map[int]string{4: "VPMASKMOVD", 8: "VPMASKMOVQ"}[size], in, vEven, x)
		}
		g.maskedStore(size, x, kEven, vEven, operand.Mem{Base: dst, Index: off, Scale: 1})
	}
	step := V
	if pat == "Unpack" {
		step = V / 2
		if size == 8 && !g.isa.AVX512 {
			step = V
		}
	}
	c.ADDQ(operand.U32(step), off)
	c.CMPQ(off, n)
	c.JB(operand.LabelRef(name + "_loop"))
	c.Label(name + "_done")
	c.VZEROUPPER()
	c.RET()
}

func (g *amd64Gen) maskedStore(size int, x reg.VecVirtual, k reg.OpmaskVirtual, v reg.VecVirtual, m operand.Mem) {
	if g.isa.AVX512 {
		g.ins(map[int]string{4: "VMOVDQU32", 8: "VMOVDQU64"}[size], x, k, m)
		return
	}
	g.ins(map[int]string{4: "VPMASKMOVD", 8: "VPMASKMOVQ"}[size], x, v, m)
}
