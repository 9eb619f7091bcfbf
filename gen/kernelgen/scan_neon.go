package main

import (
	"fmt"

	"github.com/goshmem/shmem/gen/tables"
)

// The NEON scan kernels: the contract of scan_amd64.go (n a multiple of the lanes of one
// 128-bit vector, the Go wrapper runs the tail). NEON has no movemask: the compare mask is
// narrowed (UZP1 keeps each lane's low half) into one 64-bit register, ANDed with the
// statuses' mask narrowed the same way, and one bit per lane is kept, so that the lowest
// set bit's position, divided by the narrowed lane width, is the lane. Compares the Go
// assembler lacks (CMGT, CMGE, CMHI, CMHS; CMEQ for uniformity) are WORD-encoded.
//
// Ordering: LD1 with the element's arrangement reads each element with one single-copy
// atomic access (aligned elements); DMB ISHLD before every return gives the scan's reads
// acquire order, as the LDAR of sync/atomic's loads does.

// neonScanLanes is the elements of one 128-bit vector of class c.
func neonScanLanes(c tables.ScanClass) int { return 128 / c.Bits }

func (g *neonGen) scan(k tables.ScanKernel) {
	cl := k.Class
	name := k.Name() + "NEON"
	L := neonScanLanes(cl)
	arr := goArr(cl.Bits)
	half := goArr(cl.Bits / 2)
	lw := cl.Bits / 2 // bits per lane in the narrowed mask
	keep := map[int]uint64{32: 0x0000000100000001, 16: 0x0001000100010001, 8: 0x0101010101010101}[lw]
	g.p("")
	g.p("// func %s(p *byte, v uint64, vals *byte, st *int32, sstep uintptr, idx *int, n int, max int) int", name)
	g.p("// %s: indices of p[i] %s w[i] for %s with st[i] == 0; n is a multiple of %d.", name, k.Cmp.Go, cl.GoType(), L)
	g.p("TEXT ·%s(SB), NOSPLIT, $0-72", name)
	g.p("\tMOVD p+0(FP), R0")
	g.p("\tMOVD vals+16(FP), R1")
	g.p("\tMOVD st+24(FP), R2")
	g.p("\tMOVD sstep+32(FP), R3")
	g.p("\tLSL $%d, R3, R3 // status bytes per vector", log2(L))
	g.p("\tMOVD idx+40(FP), R5")
	g.p("\tMOVD n+48(FP), R8")
	g.p("\tMOVD max+56(FP), R9")
	g.p("\tMOVD $0, R6 // count")
	g.p("\tMOVD $0, R7 // index of the vector's first element")
	g.p("\tMOVD $0x%016x, R13 // one bit per narrowed lane", keep)
	g.p("\tVEOR V31.B16, V31.B16, V31.B16")
	g.p("\tCBZ R8, %s_done", name)
	g.p("\tCBNZ R1, %s_vector", name)
	g.p("\tMOVD v+8(FP), R4")
	g.p("\tVDUP R4, V1.%s", arr)
	for _, vector := range []bool{false, true} {
		sfx := map[bool]string{false: "b", true: "v"}[vector]
		if vector {
			g.p("%s_vector:", name)
		}
		loop := name + "_loop" + sfx
		g.p("%s:", loop)
		g.p("\tVLD1.P 16(R0), [V0.%s]", arr)
		if vector {
			g.p("\tVLD1.P 16(R1), [V1.%s]", arr)
		}
		g.scanCompare(k, 2, 0, 1)
		g.p("\tVUZP1 V2.%s, V2.%s, V3.%s // lanes' low halves", half, half, half)
		switch cl.Bits {
		case 64: // 2 statuses
			g.p("\tFMOVD (R2), F4")
			g.word(threeSame(1, 2, 0b10001, 4, 4, 31), "cmeq v4.4s, v4.4s, v31.4s")
		case 32: // 4 statuses
			g.p("\tVLD1 (R2), [V4.S4]")
			g.word(threeSame(1, 2, 0b10001, 4, 4, 31), "cmeq v4.4s, v4.4s, v31.4s")
			g.p("\tVUZP1 V4.H8, V4.H8, V4.H8")
		case 16: // 8 statuses
			g.p("\tVLD1 (R2), [V4.S4, V5.S4]")
			g.word(threeSame(1, 2, 0b10001, 4, 4, 31), "cmeq v4.4s, v4.4s, v31.4s")
			g.word(threeSame(1, 2, 0b10001, 5, 5, 31), "cmeq v5.4s, v5.4s, v31.4s")
			g.p("\tVUZP1 V5.H8, V4.H8, V4.H8")
			g.p("\tVUZP1 V4.B16, V4.B16, V4.B16")
		}
		g.p("\tADD R3, R2, R2")
		g.p("\tFMOVD F3, R10")
		g.p("\tFMOVD F4, R11")
		if k.Cmp.Name == "ne" {
			g.p("\tBIC R10, R11, R10 // included and not equal")
		} else {
			g.p("\tAND R11, R10, R10")
		}
		g.p("\tAND R13, R10, R10")
		lbl := name + "_" + sfx
		g.p("\tCBZ R10, %s_none", lbl)
		g.p("\tCBNZ R5, %s_each", lbl)
		g.scanLane(log2(lw))
		g.scanReturn("R11")
		g.p("%s_each:", lbl)
		g.scanLane(log2(lw))
		g.p("\tMOVD R11, (R5)(R6<<3)")
		g.p("\tADD $1, R6, R6")
		g.p("\tCMP R9, R6")
		g.p("\tBNE %s_more", lbl)
		g.scanReturn("R6")
		g.p("%s_more:", lbl)
		g.p("\tSUB $1, R10, R12")
		g.p("\tAND R12, R10, R10")
		g.p("\tCBNZ R10, %s_each", lbl)
		g.p("%s_none:", lbl)
		g.p("\tADD $%d, R7, R7", L)
		g.p("\tCMP R8, R7")
		g.p("\tBLT %s", loop)
		g.p("\tB %s_done", name)
	}
	g.p("%s_done:", name)
	g.p("\tMOVD $-1, R11")
	g.p("\tCMP $0, R5")
	g.p("\tCSEL NE, R6, R11, R11 // the count, or -1 in first mode")
	g.scanReturn("R11")
}

// scanLane sets R11 to the element index of R10's lowest lane.
func (g *neonGen) scanLane(shift int) {
	g.p("\tRBIT R10, R11")
	g.p("\tCLZ R11, R11")
	g.p("\tLSR $%d, R11, R11", shift)
	g.p("\tADD R7, R11, R11")
}

func (g *neonGen) scanReturn(r string) {
	g.p("\tDMB $0x9 // ISHLD: later reads stay after the scan's")
	g.p("\tMOVD %s, ret+64(FP)", r)
	g.p("\tRET")
}

// scanCompare emits vd = vx cmp vw, lanes of all ones where it holds (NE: ==, negated by
// the caller).
func (g *neonGen) scanCompare(k tables.ScanKernel, d, x, w int) {
	cl := k.Class
	u := uint32(0)
	if cl.Kind == tables.Unsigned {
		u = 1
	}
	gtName := map[uint32]string{0: "cmgt", 1: "cmhi"}[u]
	geName := map[uint32]string{0: "cmge", 1: "cmhs"}[u]
	a := armArr(cl.Bits)
	sz := isize(cl.Bits)
	emit := func(mn string, uu, opcode uint32, n, m int) {
		g.word(threeSame(uu, sz, opcode, uint32(d), uint32(n), uint32(m)), "%s v%d.%s, v%d.%s, v%d.%s", mn, d, a, n, a, m, a)
	}
	switch k.Cmp.Name {
	case "eq", "ne":
		emit("cmeq", 1, 0b10001, x, w)
	case "gt":
		emit(gtName, u, 0b00110, x, w)
	case "lt":
		emit(gtName, u, 0b00110, w, x)
	case "ge":
		emit(geName, u, 0b00111, x, w)
	case "le":
		emit(geName, u, 0b00111, w, x)
	default:
		panic(fmt.Sprintf("no NEON compare for %s", k.Cmp.Name))
	}
}
