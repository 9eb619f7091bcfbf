package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/goshmem/shmem/gen/tables"
)

// The scan kernels of the wait/test family (kernels.ScanSome, ScanFirst), one per
// comparison and scan class (tables.ScanKernels):
//
//	func(p *byte, v uint64, vals *byte, st *int32, sstep uintptr, idx *int, n, max int) int
//
// Element i (i < n) qualifies when st[i] == 0 and p[i] cmp w[i], where w[i] is vals[i], or
// v's low bits for every i when vals is nil. st advances by sstep bytes per element: 4, or 0
// with st pointing at a zero block of one group's statuses (no status array). With idx
// non-nil the kernel writes the qualifying indices to idx in increasing order, stops after
// max (>= 1) and returns the count; with idx nil it returns the first such index or -1.
// AVX2 kernels take n as a multiple of the lanes (the Go wrapper runs the tail); AVX-512
// kernels take any n and finish with a masked vector.
//
// The loop takes groups of up to 4 vectors (as many as have their lane masks fit one 64-bit
// word), then single vectors, then (AVX-512) the masked tail. Each element of p is read
// once, by one vector load (see kernels/scan.go for why an aligned element is never torn),
// and a group's mask is final before its indices are written.

// scanPrim is how a comparison is computed on AVX2: a primitive (== or signed >), with the
// operands swapped (x < w is w > x) and the result negated (x >= w is !(x < w)).
type scanPrim struct {
	gt, swap, neg bool
}

func scanPrimOf(cmp tables.Cmp) scanPrim {
	return map[string]scanPrim{
		"eq": {}, "ne": {neg: true},
		"gt": {gt: true}, "le": {gt: true, neg: true},
		"lt": {gt: true, swap: true}, "ge": {gt: true, swap: true, neg: true},
	}[cmp.Name]
}

// AVX-512 VPCMP predicates.
var vpcmpPred = map[string]uint8{"eq": 0, "lt": 1, "le": 2, "ne": 4, "ge": 5, "gt": 6}

func (g *amd64Gen) scans() {
	for _, k := range tables.ScanKernels() {
		g.scan(k)
	}
}

// scanLanes is the elements of one vector of class c.
func (g *amd64Gen) scanLanes(c tables.ScanClass) int { return g.isa.Bytes * 8 / c.Bits }

func (g *amd64Gen) scan(k tables.ScanKernel) {
	c := g.c
	cl := k.Class
	size := cl.Bits / 8
	L := g.scanLanes(cl)
	name := k.Name() + g.isa.Name
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(p *byte, v uint64, vals *byte, st *int32, sstep uintptr, idx *int, n, max int) int")
	if g.isa.AVX512 {
		c.Commentf("%s: indices of p[i] %s w[i] for %s with st[i] == 0, any n (masked tail).", name, k.Cmp.Go, cl.GoType())
	} else {
		c.Commentf("%s: indices of p[i] %s w[i] for %s with st[i] == 0; n is a multiple of %d.", name, k.Cmp.Go, cl.GoType(), L)
	}
	p := c.Load(c.Param("p"), c.GP64())
	vals := c.Load(c.Param("vals"), c.GP64())
	st := c.Load(c.Param("st"), c.GP64())
	sstep := c.Load(c.Param("sstep"), c.GP64())
	// Vectors per unrolled group: their masks must fit one 64-bit word. AVX2 tests a group
	// as a whole first (below): 8 vectors take half the loop overhead per element of 4.
	U := min(4, 64/L)
	if !g.isa.AVX512 {
		U = min(8, 64/L)
	}
	sstepG := c.GP64()
	c.MOVQ(sstep, sstepG)
	c.SHLQ(operand.U8(log2(U*L)), sstepG) // status bytes per group
	c.SHLQ(operand.U8(log2(L)), sstep)    // status bytes per vector
	n := c.Load(c.Param("n"), c.GP64())
	cnt, base := c.GP64(), c.GP64()
	c.XORQ(cnt, cnt)
	c.XORQ(base, base)
	w := map[int]string{16: "W", 32: "D", 64: "Q"}[cl.Bits]
	prim := scanPrimOf(k.Cmp)
	unsigned := k.Cmp.Ordered && cl.Kind == tables.Unsigned

	var zero, ones, bias reg.VecVirtual
	if !g.isa.AVX512 {
		zero = g.vec()
		c.VPXOR(zero, zero, zero)
		if prim.neg { // the group test's all-lanes pattern
			ones = g.vec()
			c.VPCMPEQD(zero, zero, ones)
		}
		if unsigned {
			bias = g.constant(fmt.Sprintf("signbits%d", cl.Bits), map[int]uint64{
				16: 0x8000800080008000, 32: 0x8000000080000000, 64: 0x8000000000000000}[cl.Bits])
		}
	}
	vecMov := map[int]string{16: "VMOVDQU16", 32: "VMOVDQU32", 64: "VMOVDQU64"}[cl.Bits]
	wide := g.pick("VMOVDQU", "VMOVDQU64")

	// statusMask: the lanes of this vector whose status is 0, as bits of a GP register.
	// tail (AVX-512): the GP mask of the lanes in range; masked loads never touch the others.
	statusMask := func(tail reg.GPVirtual, u int) reg.GPVirtual {
		sd := u * L * 4 // the statuses of vector u of an unrolled group
		out := c.GP64()
		if g.isa.AVX512 {
			halves := 1
			if cl.Bits == 16 {
				halves = 2 // 32 statuses: two zmm
			}
			var ks []reg.OpmaskVirtual
			for h := 0; h < halves; h++ {
				s := c.ZMM()
				var sv reg.Register = s
				if cl.Bits == 64 {
					sv = s.AsY() // 8 statuses
				}
				m := operand.Mem{Base: st, Disp: sd + h*64}
				if tail != nil {
					km := c.K()
					t := c.GP64()
					c.MOVQ(tail, t)
					if h == 1 {
						c.SHRQ(operand.U8(16), t)
					}
					c.KMOVQ(t, km)
					c.VMOVDQU32_Z(m, km, sv)
				} else {
					c.VMOVDQU32(m, sv)
				}
				k := c.K()
				c.VPTESTNMD(sv, sv, k) // k = lanes with s == 0
				ks = append(ks, k)
			}
			k := ks[0]
			if halves == 2 {
				k = c.K()
				c.KUNPCKWD(ks[0], ks[1], k) // low 16 from ks[0], high 16 from ks[1]
			}
			c.KMOVQ(k, out)
			return out
		}
		switch cl.Bits {
		case 64: // 4 statuses: one xmm
			s := c.XMM()
			c.VPCMPEQD(operand.Mem{Base: st, Disp: sd}, zero.AsX(), s)
			c.VMOVMSKPS(s, out.As32())
		case 32: // 8 statuses: one ymm
			s := c.YMM()
			c.VPCMPEQD(operand.Mem{Base: st, Disp: sd}, zero, s)
			c.VMOVMSKPS(s, out.As32())
		case 16: // 16 statuses: two ymm
			s0, s1 := c.YMM(), c.YMM()
			hi := c.GP64()
			c.VPCMPEQD(operand.Mem{Base: st, Disp: sd}, zero, s0)
			c.VPCMPEQD(operand.Mem{Base: st, Disp: sd + 32}, zero, s1)
			c.VMOVMSKPS(s0, out.As32())
			c.VMOVMSKPS(s1, hi.As32())
			c.SHLL(operand.U8(8), hi.As32())
			c.ORL(hi.As32(), out.As32())
		}
		return out
	}

	// cmpVec (AVX2): the primitive comparison of x with w, lane by lane (all ones where it
	// holds), before the negation a comparison may need (vecMask applies it).
	cmpVec := func(x, wv reg.VecVirtual) reg.VecVirtual {
		a, b := x, wv
		if unsigned {
			a = g.vec()
			c.VPXOR(bias, x, a)
			b = wv // biased once, or per vector by the caller
		}
		if prim.swap {
			a, b = b, a
		}
		r := g.vec()
		if prim.gt {
			g.ins("VPCMPGT"+w, b, a, r) // r = a > b
		} else {
			g.ins("VPCMPEQ"+w, b, a, r)
		}
		return r
	}
	// vecMask (AVX2): cmpVec's result as the bits of the qualifying lanes.
	vecMask := func(r reg.VecVirtual) reg.GPVirtual {
		out := c.GP64()
		switch cl.Bits {
		case 64:
			c.VMOVMSKPD(r, out.As32())
		case 32:
			c.VMOVMSKPS(r, out.As32())
		case 16:
			hi, t := c.XMM(), c.XMM()
			c.VEXTRACTI128(operand.U8(1), r, hi)
			c.VPACKSSWB(hi, r.AsX(), t) // lanes 0-7 then 8-15, one byte each
			c.VPMOVMSKB(t, out.As32())
		}
		if prim.neg {
			c.NOTL(out.As32())
		}
		return out
	}

	// cmpMask: the lanes where x cmp w, as bits of a GP register, for lanes in tail.
	cmpMask := func(x, wv reg.VecVirtual) reg.GPVirtual {
		if !g.isa.AVX512 {
			return vecMask(cmpVec(x, wv))
		}
		out, kr := c.GP64(), c.K()
		ins := "VPCMP"
		if unsigned {
			ins = "VPCMPU"
		}
		g.ins(ins+w, operand.U8(vpcmpPred[k.Cmp.Name]), wv, x, kr) // kr = x pred w
		c.KMOVQ(kr, out)
		return out
	}

	// The loop body, once with the broadcast value (vals nil) and once with per-element values.
	body := func(sfx string, vector bool) {
		loop, tail, done := name+"_loop"+sfx, name+"_tail"+sfx, name+"_done"
		var wv reg.VecVirtual
		if !vector {
			wv = g.vec()
			vb, err := c.Param("v").Resolve()
			if err != nil {
				panic(err)
			}
			if w == "W" {
				// Through a register: vet's asmdecl rejects a 2-byte read of the 8-byte v.
				gv, xv := c.GP64(), c.XMM()
				c.MOVQ(vb.Addr, gv)
				c.VMOVQ(gv, xv)
				g.ins("VPBROADCASTW", xv, wv)
			} else {
				g.ins("VPBROADCAST"+w, vb.Addr, wv)
			}
			if unsigned && !g.isa.AVX512 {
				c.VPXOR(bias, wv, wv)
			}
		}
		load := func(tailMask reg.GPVirtual, u int) (x, wr reg.VecVirtual) {
			x = g.vec()
			px := operand.Mem{Base: p, Index: base, Scale: uint8(size), Disp: u * g.isa.Bytes}
			pv := operand.Mem{Base: vals, Index: base, Scale: uint8(size), Disp: u * g.isa.Bytes}
			if tailMask != nil {
				km := c.K()
				c.KMOVQ(tailMask, km)
				g.ins(vecMov+"_Z", px, km, x)
				if vector {
					wr = g.vec()
					g.ins(vecMov+"_Z", pv, km, wr)
				}
			} else {
				g.ins(wide, px, x)
				if vector {
					wr = g.vec()
					g.ins(wide, pv, wr)
				}
			}
			if !vector {
				return x, wv
			}
			if unsigned && !g.isa.AVX512 {
				c.VPXOR(bias, wr, wr)
			}
			return x, wr
		}
		// mask gives the qualifying lanes of vector u (from base).
		mask := func(tailMask reg.GPVirtual, u int) reg.GPVirtual {
			x, wr := load(tailMask, u)
			m := cmpMask(x, wr)
			s := statusMask(tailMask, u)
			c.ANDQ(s, m)
			if tailMask != nil {
				c.ANDQ(tailMask, m)
			}
			return m
		}
		emit := func(tailMask reg.GPVirtual, lbl string) {
			g.scanFound(name, lbl, mask(tailMask, 0), base, cnt)
		}
		end := c.GP64()
		// Groups of U vectors, their masks in one word (lane u*L+j is bit u*L+j): one test
		// and one branch per group.
		groupLoop := name + "_group" + sfx
		c.MOVQ(n, end)
		c.SUBQ(operand.U32(U*L), end) // last full group starts at base <= end
		c.Label(groupLoop)
		c.CMPQ(base, end)
		c.JG(operand.LabelRef(loop + "_start"))
		var all reg.GPVirtual
		if g.isa.AVX512 {
			all = mask(nil, 0)
			for u := 1; u < U; u++ {
				m := mask(nil, u)
				c.SHLQ(operand.U8(u*L), m)
				c.ORQ(m, all)
			}
		} else {
			// The group's comparisons combined first: one test finds most groups without a
			// qualifying lane (a wait's scans, nearly all), where each vector's lane and
			// status masks cost three times the instructions. The masks, when needed, come
			// from the same comparisons: each element is still read once.
			rs := make([]reg.VecVirtual, U)
			for u := range U {
				rs[u] = cmpVec(load(nil, u))
			}
			acc := g.vec()
			combine := c.VPOR // a lane of a primitive that holds qualifies
			if prim.neg {
				combine = c.VPAND // a lane where the primitive fails qualifies
			}
			combine(rs[1], rs[0], acc)
			for u := 2; u < U; u++ {
				combine(rs[u], acc, acc)
			}
			if prim.neg {
				c.VPTEST(ones, acc) // CF: every lane holds the primitive, none qualifies
				c.JCS(operand.LabelRef(name + "_skip" + sfx))
			} else {
				c.VPTEST(acc, acc) // ZF: no lane holds it
				c.JEQ(operand.LabelRef(name + "_skip" + sfx))
			}
			all = c.GP64()
			c.XORQ(all, all)
			for u := range U {
				m := vecMask(rs[u])
				c.ANDQ(statusMask(nil, u), m)
				if u > 0 {
					c.SHLQ(operand.U8(u*L), m)
				}
				c.ORQ(m, all)
			}
		}
		g.scanFound(name, "g"+sfx, all, base, cnt)
		if !g.isa.AVX512 {
			c.Label(name + "_skip" + sfx)
		}
		c.ADDQ(sstepG, st)
		c.ADDQ(operand.U32(U*L), base)
		c.JMP(operand.LabelRef(groupLoop))
		c.Label(loop + "_start")
		c.MOVQ(n, end)
		c.SUBQ(operand.U32(L), end) // last full vector starts at base <= end
		c.Label(loop)
		c.CMPQ(base, end)
		c.JG(operand.LabelRef(tail))
		emit(nil, "l"+sfx)
		c.ADDQ(sstep, st)
		c.ADDQ(operand.U32(L), base)
		c.JMP(operand.LabelRef(loop))
		c.Label(tail)
		if g.isa.AVX512 {
			rest := c.GP64()
			c.MOVQ(n, rest)
			c.SUBQ(base, rest)
			c.JZ(operand.LabelRef(done))
			ones, tm := c.GP64(), c.GP64()
			c.MOVQ(operand.I32(-1), ones)
			c.BZHIQ(rest, ones, tm)
			emit(tm, "t"+sfx)
		}
		c.JMP(operand.LabelRef(done))
	}
	c.TESTQ(vals, vals)
	c.JNZ(operand.LabelRef(name + "_vector"))
	body("b", false)
	c.Label(name + "_vector")
	body("v", true)
	c.Label(name + "_done")
	// Nothing more: the count, or -1 in first mode.
	idx := c.Load(c.Param("idx"), c.GP64())
	m1 := c.GP64()
	c.MOVQ(operand.I32(-1), m1)
	c.TESTQ(idx, idx)
	c.CMOVQNE(cnt, m1)
	c.Store(m1, c.ReturnIndex(0))
	c.VZEROUPPER()
	c.RET()
}

// scanFound emits the handling of a vector's mask m (the qualifying lanes): nothing when m
// is 0; in first mode (idx nil) return base + the lowest lane; else write base + each lane
// to idx[cnt], cnt++, and return cnt once it reaches max.
func (g *amd64Gen) scanFound(name, lbl string, m, base, cnt reg.GPVirtual) {
	c := g.c
	pre := name + "_" + lbl
	c.TESTQ(m, m)
	c.JZ(operand.LabelRef(pre + "_none"))
	idx := c.Load(c.Param("idx"), c.GP64())
	t := c.GP64()
	c.TESTQ(idx, idx)
	c.JNZ(operand.LabelRef(pre + "_each"))
	c.BSFQ(m, t)
	c.ADDQ(base, t)
	c.Store(t, c.ReturnIndex(0))
	c.VZEROUPPER()
	c.RET()
	c.Label(pre + "_each")
	mx := c.Load(c.Param("max"), c.GP64())
	c.Label(pre + "_bit")
	c.BSFQ(m, t)
	c.ADDQ(base, t)
	c.MOVQ(t, operand.Mem{Base: idx, Index: cnt, Scale: 8})
	c.INCQ(cnt)
	c.CMPQ(cnt, mx)
	c.JNE(operand.LabelRef(pre + "_more"))
	c.Store(cnt, c.ReturnIndex(0))
	c.VZEROUPPER()
	c.RET()
	c.Label(pre + "_more")
	c.LEAQ(operand.Mem{Base: m, Disp: -1}, t)
	c.ANDQ(t, m)
	c.JNZ(operand.LabelRef(pre + "_bit"))
	c.Label(pre + "_none")
}
