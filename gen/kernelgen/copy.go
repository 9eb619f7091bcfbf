package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The bulk byte copy behind kernels.Copy: REP MOVSB, which on CPUs with ERMS (enhanced
// REP MOVSB) copies large blocks faster than Go's memmove (bench/KERNELS.md). The Go side
// decides when to run it (size, overlap, distance, CPU flags); the kernel only copies.
//
// Signature func(dst, src *byte, n int): copies n bytes forward, byte by byte in effect,
// so an overlapping dst above src would copy bytes it has already overwritten: the caller
// never passes that case.

// copyERMS generates CopyERMS.
func copyERMS(c *build.Context) {
	c.Function("CopyERMS")
	c.Attributes(attr.NOSPLIT)
	// The kernel keeps neither pointer: without noescape every slice given to kernels.Copy
	// would escape to the heap, which copy() does not do.
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, src *byte, n int)")
	c.Comment("CopyERMS: copies n bytes from src to dst with REP MOVSB, forward (dst must not overlap src from above).")
	c.Comment("REP MOVSB takes its operands in fixed registers: DI destination, SI source, CX count.")
	c.Load(c.Param("dst"), reg.RDI)
	c.Load(c.Param("src"), reg.RSI)
	c.Load(c.Param("n"), reg.RCX)
	c.Comment("The Go ABI keeps the direction flag clear, so the copy runs upward; n = 0 copies nothing.")
	// avo v0.5.0 has no string instructions (mmcloughlin/avo#99): emit the prefixed form as
	// the Go runtime writes it (runtime/memmove_amd64.s), with its implicit registers as
	// inputs and outputs so that avo's liveness sees them used.
	regs := []operand.Op{reg.RDI, reg.RSI, reg.RCX}
	c.Instruction(&ir.Instruction{Opcode: "REP; MOVSB", Inputs: regs, Outputs: regs})
	c.RET()
}
