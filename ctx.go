package shmem

import (
	"errors"
	"fmt"

	rt "github.com/goshmem/shmem/runtime"
)

// Ctx is a communication context (shmem_ctx_t): a stream of puts, gets, atomics and
// put-with-signals whose Quiet and Fence order only its own operations. A context made
// from a team names PEs by their number in that team. The package-level routines are
// CtxDefault's. The zero Ctx is CtxInvalid, on which every operation does nothing (and a
// fetching one returns the zero value), as OpenSHMEM specifies.
//
// Operations with a type parameter are functions taking the context first, named as the
// package-level routine with a Ctx prefix (CtxPut(ctx, dst, src, pe) is Put(dst, src, pe) on
// ctx); the others are methods (ctx.Quiet(), ctx.Fence()).
//
// On one node every PE is reached through shared memory, where an operation is complete
// when it returns: a context costs nothing more than the default one. On several nodes each
// context has its own network resources for the PEs of other nodes, so threads that each
// use their own context do not serialize on them, and a context's Quiet waits for its own
// operations only.
type Ctx struct{ c *rt.Ctx }

// CtxOptions are the options of CtxCreate and Team.CreateCtx, or'ed together.
type CtxOptions int64

// The context options, with the specification's values.
const (
	CtxSerialized = CtxOptions(rt.CtxSerialized) // not used by several goroutines at once
	CtxPrivate    = CtxOptions(rt.CtxPrivate)    // used only by the goroutine that made it
	CtxNostore    = CtxOptions(rt.CtxNostore)    // Quiet and Fence need not order its stores
)

var (
	// CtxDefault is the default context (SHMEM_CTX_DEFAULT): the world's; the package-level
	// routines use it.
	CtxDefault = Ctx{rt.DefaultCtx}
	// CtxInvalid is the invalid context (SHMEM_CTX_INVALID): operations on it do nothing.
	CtxInvalid = Ctx{}
)

// CtxCreate makes a context on the world team. An error means the engine has no resources
// for another context; the program may go on with the default one.
func CtxCreate(options CtxOptions) (Ctx, error) {
	c, err := rt.NewCtx("shmem.CtxCreate", nil, rt.CtxOptions(options))
	return Ctx{c}, err
}

// CreateCtx makes a context on team t (shmem_team_create_ctx): its operations name PEs by
// their number in t. The context must be destroyed before t is.
func (t Team) CreateCtx(options CtxOptions) (Ctx, error) {
	const who = "shmem.Team.CreateCtx"
	rt.Check(who)
	if t.t == nil {
		return CtxInvalid, errors.New(who + ": invalid team")
	}
	c, err := rt.NewCtx(who, t.t, rt.CtxOptions(options))
	return Ctx{c}, err
}

// Destroy completes the context's operations (a Quiet) and ends it; destroying CtxInvalid
// does nothing, destroying CtxDefault is an error.
func (c Ctx) Destroy() {
	if c.c != nil {
		c.c.Destroy("shmem.Ctx.Destroy")
	}
}

// Valid reports whether c is not CtxInvalid.
func (c Ctx) Valid() bool { return c.c != nil }

// Team is the team the context was made on (TeamWorld for CtxDefault and CtxCreate's),
// TeamInvalid for CtxInvalid.
func (c Ctx) Team() Team {
	if c.c == nil {
		return TeamInvalid
	}
	rt.Check("shmem.Ctx.Team")
	return Team{c.c.Team}
}

// Options are the options the context was made with.
func (c Ctx) Options() CtxOptions {
	if c.c == nil {
		return 0
	}
	return CtxOptions(c.c.Options)
}

// Quiet completes every operation issued on c (see Quiet).
func (c Ctx) Quiet() {
	if c.c != nil {
		rt.Check("shmem.Ctx.Quiet")
		c.c.Quiet()
	}
}

// PEQuiet completes c's operations to the PEs pes (numbers in c's team) only (see PEQuiet).
func (c Ctx) PEQuiet(pes ...int) {
	if c.c != nil {
		rt.Check("shmem.Ctx.PEQuiet")
		rt.PEQuiet(c.c, "shmem.Ctx.PEQuiet", "pes", pes)
	}
}

// Fence orders c's puts to each PE before its later puts to that PE (see Fence).
func (c Ctx) Fence() {
	if c.c != nil {
		rt.Check("shmem.Ctx.Fence")
		c.c.Fence()
	}
}

// CtxSessionOptions are the hints of Ctx.SessionStart, or'ed together (OpenSHMEM 1.6).
type CtxSessionOptions int64

// CtxSessionBatch says the context will issue a batch: many small puts and non-fetching
// atomics that may be delayed and combined (SHMEM_CTX_SESSION_BATCH).
const CtxSessionBatch = CtxSessionOptions(rt.SessionBatch)

// CtxSessionConfig is a session's configuration (shmem_ctx_session_config_t): hints only.
type CtxSessionConfig struct {
	TotalOps uint64 // the expected number of RMA calls in the session (default: MaxUint64)
}

// CtxSessionConfigMask selects the fields of a CtxSessionConfig that SessionStart applies.
type CtxSessionConfigMask int64

// CtxSessionTotalOps selects CtxSessionConfig.TotalOps (SHMEM_CTX_SESSION_TOTAL_OPS).
const CtxSessionTotalOps = CtxSessionConfigMask(rt.SessionTotalOps)

// SessionStart starts a communication session on c (shmem_ctx_session_start): options and
// the fields of config that mask selects (config may be nil when mask is 0) are hints about
// the operations c will issue until SessionStop. On a session already started, options are
// or'ed in and the selected fields replace the earlier ones. Sessions change no completion
// or ordering rule, so a correct program behaves the same with or without them; goshmem
// records the hints (Session reports them), and needs no change of strategy for them: on
// shared memory every operation is complete when it returns, and across nodes puts and
// non-fetching atomics already complete at the next Quiet. Unknown options or mask bits
// panic; on CtxInvalid it does nothing.
func (c Ctx) SessionStart(options CtxSessionOptions, config *CtxSessionConfig, mask CtxSessionConfigMask) {
	const who = "shmem.Ctx.SessionStart"
	if c.c == nil {
		return
	}
	var total uint64
	if mask&CtxSessionTotalOps != 0 {
		if config == nil {
			panic(who + ": config is nil, but mask selects its TotalOps")
		}
		total = config.TotalOps
	}
	c.c.SessionStart(who, int64(options), int64(mask), total)
}

// SessionStop ends c's session (shmem_ctx_session_stop); without one it does nothing.
func (c Ctx) SessionStop() {
	if c.c != nil {
		c.c.SessionStop("shmem.Ctx.SessionStop")
	}
}

// Session reports c's session: whether one is started, its options and its configuration
// (TotalOps MaxUint64 when not given).
func (c Ctx) Session() (active bool, options CtxSessionOptions, config CtxSessionConfig) {
	if c.c == nil {
		return false, 0, CtxSessionConfig{}
	}
	s := c.c.SessionState()
	return s.Active, CtxSessionOptions(s.Options), CtxSessionConfig{TotalOps: s.TotalOps}
}

// CtxPut is Put on context c.
func CtxPut[T any](c Ctx, dst, src []T, pe int) {
	if c.c != nil {
		put("shmem.CtxPut", c.c, dst, src, pe)
	}
}

// CtxPutNBI is PutNBI on context c.
func CtxPutNBI[T any](c Ctx, dst, src []T, pe int) {
	if c.c != nil {
		putNBI("shmem.CtxPutNBI", c.c, dst, src, pe)
	}
}

// CtxGet is Get on context c.
func CtxGet[T any](c Ctx, dst, src []T, pe int) {
	if c.c != nil {
		get("shmem.CtxGet", c.c, dst, src, pe)
	}
}

// CtxGetNBI is GetNBI on context c.
func CtxGetNBI[T any](c Ctx, dst, src []T, pe int) {
	if c.c != nil {
		getNBI("shmem.CtxGetNBI", c.c, dst, src, pe)
	}
}

// CtxP is P on context c.
func CtxP[T any](c Ctx, dst *T, v T, pe int) {
	if c.c != nil {
		p("shmem.CtxP", c.c, dst, v, pe)
	}
}

// CtxG is G on context c.
func CtxG[T any](c Ctx, src *T, pe int) T {
	if c.c == nil {
		return *new(T)
	}
	return g("shmem.CtxG", c.c, src, pe)
}

// CtxIPut is IPut on context c.
func CtxIPut[T any](c Ctx, dst, src []T, dstStride, srcStride, n, pe int) {
	if c.c != nil {
		iput("shmem.CtxIPut", c.c, dst, src, dstStride, srcStride, n, pe)
	}
}

// CtxIGet is IGet on context c.
func CtxIGet[T any](c Ctx, dst, src []T, dstStride, srcStride, n, pe int) {
	if c.c != nil {
		iget("shmem.CtxIGet", c.c, dst, src, dstStride, srcStride, n, pe)
	}
}

// CtxPutSignal is PutSignal on context c.
func CtxPutSignal[T any](c Ctx, dst, src []T, sig *uint64, signal uint64, op SignalOp, pe int) {
	if c.c != nil {
		putSignal("shmem.CtxPutSignal", c.c, dst, src, sig, signal, op, pe)
	}
}

// CtxPutSignalNBI is PutSignalNBI on context c.
func CtxPutSignalNBI[T any](c Ctx, dst, src []T, sig *uint64, signal uint64, op SignalOp, pe int) {
	if c.c != nil {
		putSignal("shmem.CtxPutSignalNBI", c.c, dst, src, sig, signal, op, pe)
	}
}

// ctxAMO is amo on c, nothing (the zero value) on CtxInvalid.
func ctxAMO[T any](who string, c Ctx, op rt.AMOOp, dst *T, v, cond T, pe int) T {
	if c.c == nil {
		return *new(T)
	}
	return amo(who, c.c, op, dst, v, cond, pe)
}

// CtxAtomicFetch is AtomicFetch on context c.
func CtxAtomicFetch[T ExtAMO](c Ctx, src *T, pe int) T {
	var z T
	return ctxAMO("shmem.CtxAtomicFetch", c, rt.AMOFetch, src, z, z, pe)
}

// CtxAtomicSet is AtomicSet on context c.
func CtxAtomicSet[T ExtAMO](c Ctx, dst *T, v T, pe int) {
	ctxAMO("shmem.CtxAtomicSet", c, rt.AMOSet, dst, v, v, pe)
}

// CtxAtomicSwap is AtomicSwap on context c.
func CtxAtomicSwap[T ExtAMO](c Ctx, dst *T, v T, pe int) T {
	return ctxAMO("shmem.CtxAtomicSwap", c, rt.AMOSwap, dst, v, v, pe)
}

// CtxAtomicCompareSwap is AtomicCompareSwap on context c.
func CtxAtomicCompareSwap[T AMO](c Ctx, dst *T, cond, v T, pe int) T {
	return ctxAMO("shmem.CtxAtomicCompareSwap", c, rt.AMOCompareSwap, dst, v, cond, pe)
}

// CtxAtomicFetchAdd is AtomicFetchAdd on context c.
func CtxAtomicFetchAdd[T AMO](c Ctx, dst *T, v T, pe int) T {
	return ctxAMO("shmem.CtxAtomicFetchAdd", c, rt.AMOFetchAdd, dst, v, v, pe)
}

// CtxAtomicAdd is AtomicAdd on context c.
func CtxAtomicAdd[T AMO](c Ctx, dst *T, v T, pe int) {
	ctxAMO("shmem.CtxAtomicAdd", c, rt.AMOFetchAdd, dst, v, v, pe)
}

// CtxAtomicFetchInc is AtomicFetchInc on context c.
func CtxAtomicFetchInc[T AMO](c Ctx, dst *T, pe int) T {
	return ctxAMO("shmem.CtxAtomicFetchInc", c, rt.AMOFetchAdd, dst, 1, 1, pe)
}

// CtxAtomicInc is AtomicInc on context c.
func CtxAtomicInc[T AMO](c Ctx, dst *T, pe int) {
	ctxAMO("shmem.CtxAtomicInc", c, rt.AMOFetchAdd, dst, 1, 1, pe)
}

// CtxAtomicFetchAnd is AtomicFetchAnd on context c.
func CtxAtomicFetchAnd[T Bitwise](c Ctx, dst *T, v T, pe int) T {
	return ctxAMO("shmem.CtxAtomicFetchAnd", c, rt.AMOFetchAnd, dst, v, v, pe)
}

// CtxAtomicAnd is AtomicAnd on context c.
func CtxAtomicAnd[T Bitwise](c Ctx, dst *T, v T, pe int) {
	ctxAMO("shmem.CtxAtomicAnd", c, rt.AMOFetchAnd, dst, v, v, pe)
}

// CtxAtomicFetchOr is AtomicFetchOr on context c.
func CtxAtomicFetchOr[T Bitwise](c Ctx, dst *T, v T, pe int) T {
	return ctxAMO("shmem.CtxAtomicFetchOr", c, rt.AMOFetchOr, dst, v, v, pe)
}

// CtxAtomicOr is AtomicOr on context c.
func CtxAtomicOr[T Bitwise](c Ctx, dst *T, v T, pe int) {
	ctxAMO("shmem.CtxAtomicOr", c, rt.AMOFetchOr, dst, v, v, pe)
}

// CtxAtomicFetchXor is AtomicFetchXor on context c.
func CtxAtomicFetchXor[T Bitwise](c Ctx, dst *T, v T, pe int) T {
	return ctxAMO("shmem.CtxAtomicFetchXor", c, rt.AMOFetchXor, dst, v, v, pe)
}

// CtxAtomicXor is AtomicXor on context c.
func CtxAtomicXor[T Bitwise](c Ctx, dst *T, v T, pe int) {
	ctxAMO("shmem.CtxAtomicXor", c, rt.AMOFetchXor, dst, v, v, pe)
}

// IBPut copies nblocks blocks of bsize elements, block i from src[i*srcStride:] to
// dst[i*dstStride:] on PE pe (OpenSHMEM 1.6's shmem_ibput; strides >= 1, in elements;
// bsize 1 is IPut).
func IBPut[T any](dst, src []T, dstStride, srcStride, bsize, nblocks, pe int) {
	ibput("shmem.IBPut", rt.DefaultCtx, dst, src, dstStride, srcStride, bsize, nblocks, pe)
}

// IBGet copies nblocks blocks of bsize elements, block i from the symmetric
// src[i*srcStride:] on PE pe to dst[i*dstStride:] (shmem_ibget).
func IBGet[T any](dst, src []T, dstStride, srcStride, bsize, nblocks, pe int) {
	ibget("shmem.IBGet", rt.DefaultCtx, dst, src, dstStride, srcStride, bsize, nblocks, pe)
}

// CtxIBPut is IBPut on context c.
func CtxIBPut[T any](c Ctx, dst, src []T, dstStride, srcStride, bsize, nblocks, pe int) {
	if c.c != nil {
		ibput("shmem.CtxIBPut", c.c, dst, src, dstStride, srcStride, bsize, nblocks, pe)
	}
}

// CtxIBGet is IBGet on context c.
func CtxIBGet[T any](c Ctx, dst, src []T, dstStride, srcStride, bsize, nblocks, pe int) {
	if c.c != nil {
		ibget("shmem.CtxIBGet", c.c, dst, src, dstStride, srcStride, bsize, nblocks, pe)
	}
}

func ibput[T any](who string, c *rt.Ctx, dst, src []T, dstStride, srcStride, bsize, nblocks, pe int) {
	checkBlockLens(who, len(dst), len(src), dstStride, srcStride, bsize, nblocks)
	c.IBPut(who, sliceAddr(dst), sliceAddr(src), dstStride, srcStride, uintptr(bsize), uintptr(nblocks), sizeOf[T](), pe)
}

func ibget[T any](who string, c *rt.Ctx, dst, src []T, dstStride, srcStride, bsize, nblocks, pe int) {
	checkBlockLens(who, len(dst), len(src), dstStride, srcStride, bsize, nblocks)
	c.IBGet(who, sliceAddr(dst), sliceAddr(src), dstStride, srcStride, uintptr(bsize), uintptr(nblocks), sizeOf[T](), pe)
}

// checkBlockLens checks the counts and that both slices hold their blocks.
func checkBlockLens(who string, ldst, lsrc, dstStride, srcStride, bsize, nblocks int) {
	if bsize < 0 || nblocks < 0 {
		panic(fmt.Sprintf("%s: negative block size %d or count %d", who, bsize, nblocks))
	}
	for _, a := range []struct {
		name         string
		have, stride int
	}{{"dst", ldst, dstStride}, {"src", lsrc, srcStride}} {
		need := rt.CheckBlocks(who, a.name, a.stride, uintptr(bsize), uintptr(nblocks), 1)
		if uintptr(a.have) < need {
			panic(fmt.Sprintf("%s: %s has %d elements, %d blocks of %d at stride %d need %d", who, a.name, a.have, nblocks, bsize, a.stride, need))
		}
	}
}

// Signal updates the symmetric signal word *sig on PE pe atomically, by op (SignalSet or
// SignalAdd) with v: a signal without data (OpenSHMEM 1.6's shmem_signal_set and
// shmem_signal_add).
func Signal(sig *uint64, v uint64, op SignalOp, pe int) {
	signal("shmem.Signal", rt.DefaultCtx, sig, v, op, pe)
}

// CtxSignal is Signal on context c.
func CtxSignal(c Ctx, sig *uint64, v uint64, op SignalOp, pe int) {
	if c.c != nil {
		signal("shmem.CtxSignal", c.c, sig, v, op, pe)
	}
}

func signal(who string, c *rt.Ctx, sig *uint64, v uint64, op SignalOp, pe int) {
	aop := rt.AMOSet
	switch op {
	case SignalSet:
	case SignalAdd:
		aop = rt.AMOFetchAdd
	default:
		panic(fmt.Sprintf("%s: invalid signal operation %d", who, op))
	}
	amo(who, c, aop, sig, v, v, pe)
}
