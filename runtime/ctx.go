package rt

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// A communication context (shmem_ctx_t) is a stream of one-sided operations that its own
// Quiet and Fence order. Its operations name PEs by their number in its team (the world's
// for the default context). Node-local PEs are always reached through shared memory, where
// every operation is complete when it returns; the PEs of other nodes through the context's
// own remote transport, which the multi-node engine makes per context (its own UCX worker),
// so that a context's Quiet and Fence flush only that transport.
type Ctx struct {
	Options CtxOptions
	Team    *Team
	remote  Transport // nil in a one-node job
	world   bool      // the team is the world: PE numbers need no translation
	state   atomic.Int32
	// direct: c is live and its team the world, so a PE number in range is a world PE and
	// needs no other check (the hot paths' one test).
	direct bool

	sessionMu sync.Mutex
	session   Session
}

// Session is a context's communication session (OpenSHMEM 1.6's shmem_ctx_session_start):
// hints that the program will issue a batch of operations. They are recorded and change
// nothing: on shared memory every operation is complete when it returns, and the engine
// across nodes already leaves puts and non-fetching AMOs to the next Quiet, which is what a
// batch would allow; completion and ordering are the same inside a session as outside.
type Session struct {
	Active   bool
	Options  int64  // the options of every start since the last stop, or'ed
	TotalOps uint64 // the expected number of RMA calls (SIZE_MAX: not given)
}

// SessionBatch is the one session option (SHMEM_CTX_SESSION_BATCH), SessionTotalOps the one
// configuration field (SHMEM_CTX_SESSION_TOTAL_OPS).
const (
	SessionBatch    = 1 << 0
	SessionTotalOps = 1 << 0
)

// SessionStart starts a session on c or, on one already started, ors options into it;
// with SessionTotalOps in mask, totalOps replaces the expected number of calls.
func (c *Ctx) SessionStart(who string, options, mask int64, totalOps uint64) {
	c.check(who)
	if options&^SessionBatch != 0 {
		panic(fmt.Sprintf("%s: unknown options %#x", who, options&^SessionBatch))
	}
	if mask&^SessionTotalOps != 0 {
		panic(fmt.Sprintf("%s: unknown config_mask bits %#x", who, mask&^SessionTotalOps))
	}
	c.sessionMu.Lock()
	defer c.sessionMu.Unlock()
	if !c.session.Active {
		c.session = Session{Active: true, TotalOps: ^uint64(0)}
	}
	c.session.Options |= options
	if mask&SessionTotalOps != 0 {
		c.session.TotalOps = totalOps
	}
}

// SessionStop ends c's session; on a context without one it does nothing.
func (c *Ctx) SessionStop(who string) {
	c.check(who)
	c.sessionMu.Lock()
	c.session = Session{}
	c.sessionMu.Unlock()
}

// SessionState is c's session now.
func (c *Ctx) SessionState() Session {
	c.sessionMu.Lock()
	defer c.sessionMu.Unlock()
	return c.session
}

// CtxOptions are shmem_ctx_create's options (the specification's values).
type CtxOptions int64

const (
	CtxSerialized CtxOptions = 1 << iota // not used by threads concurrently
	CtxPrivate                           // used by the creating thread only
	CtxNostore                           // Quiet and Fence need not order its stores
)

const ctxAllOptions = CtxSerialized | CtxPrivate | CtxNostore

// Context states.
const (
	ctxLive = iota
	ctxDestroyed
)

// DefaultCtx is the default context (SHMEM_CTX_DEFAULT): the world's, its remote part the
// engine's transport for other nodes (transports' other entry). The package-level routines
// are its operations.
var DefaultCtx = newDefaultCtx()

func newDefaultCtx() *Ctx {
	c := &Ctx{world: true}
	c.direct = true
	return c
}

// newRemoteCtx, set by the multi-node engine, gives a new context its own transport to the
// PEs of other nodes; nil (a one-node job) leaves every PE to shared memory.
var newRemoteCtx func() (Transport, error)

// defaultCtxInit points the default context at the world and at the engine's remote
// transport, if some PE has one (after transportsInit).
func defaultCtxInit() {
	DefaultCtx.Team, DefaultCtx.remote = World, nil
	for _, t := range transports {
		if t != Transport(shmT) {
			DefaultCtx.remote = t
			break
		}
	}
}

// NewCtx creates a context on team t (nil: the world) with options; an error (not a panic:
// a program may retry with other options) when the engine cannot give it resources.
func NewCtx(who string, t *Team, options CtxOptions) (*Ctx, error) {
	Check(who)
	if options&^ctxAllOptions != 0 {
		panic(fmt.Sprintf("%s: unknown options %#x", who, int64(options&^ctxAllOptions)))
	}
	if t == nil {
		t = World
	}
	t.Check(who)
	c := &Ctx{Options: options, Team: t, world: t == World || t.G == World.G}
	c.direct = c.world && t == World
	c.remote = DefaultCtx.remote
	if newRemoteCtx != nil && !allShm {
		r, err := newRemoteCtx()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", who, err)
		}
		if r != nil { // nil: every PE is on my node
			c.remote = r
		}
	}
	return c, nil
}

// Destroy completes the context's operations (a Quiet) and ends it; its later use panics.
func (c *Ctx) Destroy(who string) {
	c.check(who)
	if c == DefaultCtx {
		panic(who + ": the default context cannot be destroyed")
	}
	c.Quiet()
	c.direct = false
	c.state.Store(ctxDestroyed)
	if cl, ok := c.remote.(interface{ Close() }); ok && c.remote != DefaultCtx.remote {
		cl.Close() // the context's own engine resources (a UCX worker)
	}
}

// check panics unless the job runs and c is a live context.
func (c *Ctx) check(who string) {
	Check(who)
	if c.state.Load() != ctxLive {
		panic(who + ": context was destroyed")
	}
	if !c.world {
		c.Team.Check(who)
	}
}

// PE checks c and pe, a PE number in c's team, and returns its world number, which the
// transports and the shared-memory addresses use.
func (c *Ctx) PE(who string, pe int) int {
	if c.direct && uint(pe) < uint(runningNPEs.Load()) {
		return pe
	}
	return c.teamPE(who, pe)
}

func (c *Ctx) teamPE(who string, pe int) int {
	c.check(who)
	if c.world {
		CheckPE(who, pe)
		return pe
	}
	if uint(pe) >= uint(c.Team.G.Size) {
		panic(fmt.Sprintf("%s: PE %d out of range [0,%d) of the context's team", who, pe, c.Team.G.Size))
	}
	return c.Team.G.PE(pe)
}

// transport is how c reaches world PE pe: shared memory for the PEs of this node, c's own
// remote transport for the others. Every operation of a context that does not take the
// shared-memory path inline dispatches here.
func (c *Ctx) transport(pe int) Transport {
	t := transports[pe]
	if c.remote != nil && t != Transport(shmT) {
		return c.remote
	}
	return t
}

// Quiet completes every operation issued on c: shared memory's are complete already, so a
// full barrier orders them; the remote transport flushes its own.
func (c *Ctx) Quiet() {
	shm.FenceFull()
	if c.remote != nil {
		c.remoteQuiet()
	}
}

// peQuieter is a remote transport that can complete its operations to some PEs only.
type peQuieter interface{ QuietPEs(pes []int32) }

// PEQuiet completes c's operations to the PEs pes (numbers in c's team; OpenSHMEM 1.6's
// shmem_pe_quiet): on shared memory they are complete already, so a full barrier orders
// them, as Quiet's; to other nodes c's own transport flushes only those PEs' endpoints.
// arg names pes in messages; every PE is checked before anything is done. pes is Go's
// []int or C's int array as it is (a function: methods take no type parameters).
func PEQuiet[P int | int32](c *Ctx, who, arg string, pes []P) {
	c.check(who)
	size := c.Team.G.Size
	var far []int32 // the engine's form: no copy on the way down
	for i, pe := range pes {
		if uint(pe) >= uint(size) {
			panic(fmt.Sprintf("%s: %s[%d] = %d: PE out of range [0,%d)", who, arg, i, pe, size))
		}
		if w := c.Team.G.PE(int(pe)); !local(w) {
			far = append(far, int32(w))
		}
	}
	if len(pes) == 0 {
		return // the specification: target_pes is ignored, nothing is done
	}
	shm.FenceFull()
	if len(far) == 0 || c.remote == nil {
		return
	}
	if q, ok := c.remote.(peQuieter); ok {
		q.QuietPEs(far)
		return
	}
	c.remote.Quiet()
}

// The remote part's calls stay out of line, so Quiet and Fence inline into the hot paths.
//
//go:noinline
func (c *Ctx) remoteQuiet() { c.remote.Quiet() }

//go:noinline
func (c *Ctx) remoteFence() { c.remote.Fence() }

// Fence orders c's puts to each PE before its later puts to that PE.
func (c *Ctx) Fence() {
	shm.FenceStore()
	if c.remote != nil {
		c.remoteFence()
	}
}

// Put copies n bytes from local src to the symmetric dst on PE pe of c's team. On shared
// memory the copy is complete when Put returns; Quiet orders it before later accesses as
// seen by other CPUs.
func (c *Ctx) Put(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckSym(who, "dst", dst, n)
	if n == 0 {
		return
	}
	if allShm { // the shared-memory transport's Put, inline
		copyBytes(Remote(dst, pe), src, n)
		Notify(pe)
		return
	}
	c.transport(pe).Put(dst, src, n, pe)
}

// Get copies n bytes from the symmetric src on PE pe of c's team to local dst.
func (c *Ctx) Get(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckSym(who, "src", src, n)
	if n == 0 {
		return
	}
	if allShm { // the shared-memory transport's Get, inline
		copyBytes(dst, Remote(src, pe), n)
		return
	}
	c.transport(pe).Get(dst, src, n, pe)
}

// PutNBI is Put that may return before src may be reused: c's Quiet completes it.
func (c *Ctx) PutNBI(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckSym(who, "dst", dst, n)
	if n == 0 {
		return
	}
	if allShm {
		copyBytes(Remote(dst, pe), src, n)
		Notify(pe)
		return
	}
	c.transport(pe).PutNBI(dst, src, n, pe)
}

// GetNBI is Get that may return before dst holds the data: c's Quiet completes it.
func (c *Ctx) GetNBI(who string, dst, src unsafe.Pointer, n uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckSym(who, "src", src, n)
	if n == 0 {
		return
	}
	if allShm {
		copyBytes(dst, Remote(src, pe), n)
		return
	}
	c.transport(pe).GetNBI(dst, src, n, pe)
}

// IPut copies n elements of size bytes from src (every srcStride-th element) to the
// symmetric dst on PE pe (every dstStride-th element).
func (c *Ctx) IPut(who string, dst, src unsafe.Pointer, dstStride, srcStride, n int, size uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckStrided(who, dstStride, srcStride, n)
	CheckSym(who, "dst", dst, StridedBytes(who, "dst", n, dstStride, size))
	StridedBytes(who, "src", n, srcStride, size)
	if n == 0 {
		return
	}
	c.transport(pe).PutStrided(dst, dstStride, src, srcStride, n, size, pe)
}

// IGet copies n elements from the symmetric src on PE pe (every srcStride-th) to local dst
// (every dstStride-th).
func (c *Ctx) IGet(who string, dst, src unsafe.Pointer, dstStride, srcStride, n int, size uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckStrided(who, dstStride, srcStride, n)
	CheckSym(who, "src", src, StridedBytes(who, "src", n, srcStride, size))
	StridedBytes(who, "dst", n, dstStride, size)
	if n == 0 {
		return
	}
	c.transport(pe).GetStrided(dst, dstStride, src, srcStride, n, size, pe)
}

// AMO is an atomic memory operation on the symmetric word p of PE pe of c's team.
func (c *Ctx) AMO(who string, op AMOOp, size uintptr, p unsafe.Pointer, v, cond uint64, pe int) uint64 {
	pe = c.PE(who, pe)
	AMOTarget(who, p, size, pe)
	if allShm {
		return shmT.AMO(op, size, p, v, cond, pe) // a direct call, not through the interface
	}
	return c.transport(pe).AMO(op, size, p, v, cond, pe)
}

// CheckBlocks panics on a stride below 1, and returns the bytes nblocks blocks of bsize
// elements of size bytes cover at stride (in elements) from the first block's start, with
// every product overflow-checked.
func CheckBlocks(who, arg string, stride int, bsize, nblocks, size uintptr) uintptr {
	if stride < 1 {
		panic(fmt.Sprintf("%s: %s stride %d must be at least 1", who, arg, stride))
	}
	if nblocks == 0 || bsize == 0 {
		return 0
	}
	// (nblocks-1)*stride + bsize elements, then bytes.
	span, ok := mulAdd(nblocks-1, uintptr(stride), bsize)
	if ok {
		span, ok = mulAdd(span, size, 0)
	}
	if !ok {
		panic(fmt.Sprintf("%s: %d blocks of %d elements at %s stride %d overflow", who, nblocks, bsize, arg, stride))
	}
	return span
}

// mulAdd is a*b+c, and whether it did not overflow.
func mulAdd(a, b, c uintptr) (uintptr, bool) {
	if b != 0 && a > ^uintptr(0)/b {
		return 0, false
	}
	r := a*b + c
	return r, r >= a*b
}

// IBPut copies nblocks blocks of bsize elements of size bytes: block i from src + i*srcStride
// elements to the symmetric dst + i*dstStride elements on PE pe of c's team (OpenSHMEM 1.6's
// shmem_ibput; with bsize 1 it is IPut).
func (c *Ctx) IBPut(who string, dst, src unsafe.Pointer, dstStride, srcStride int, bsize, nblocks, size uintptr, pe int) {
	pe = c.PE(who, pe)
	span := CheckBlocks(who, "dst", dstStride, bsize, nblocks, size)
	CheckBlocks(who, "src", srcStride, bsize, nblocks, size)
	CheckSym(who, "dst", dst, span)
	if span == 0 {
		return
	}
	t, n := c.transport(pe), bsize*size
	for i := range nblocks {
		t.Put(unsafe.Add(dst, i*uintptr(dstStride)*size), unsafe.Add(src, i*uintptr(srcStride)*size), n, pe)
	}
}

// IBGet copies nblocks blocks of bsize elements: block i from the symmetric src +
// i*srcStride elements on PE pe of c's team to dst + i*dstStride elements (shmem_ibget).
func (c *Ctx) IBGet(who string, dst, src unsafe.Pointer, dstStride, srcStride int, bsize, nblocks, size uintptr, pe int) {
	pe = c.PE(who, pe)
	CheckBlocks(who, "dst", dstStride, bsize, nblocks, size)
	span := CheckBlocks(who, "src", srcStride, bsize, nblocks, size)
	CheckSym(who, "src", src, span)
	if span == 0 {
		return
	}
	t, n := c.transport(pe), bsize*size
	for i := range nblocks {
		t.Get(unsafe.Add(dst, i*uintptr(dstStride)*size), unsafe.Add(src, i*uintptr(srcStride)*size), n, pe)
	}
}

// PutSignal puts n bytes from local src to the symmetric dst on PE pe of c's team, then
// updates the symmetric signal word sig there (adds signal when add, else stores it)
// atomically, ordered after the data: a PE that sees the signal sees the data. sigArg names
// sig in messages.
func (c *Ctx) PutSignal(who, sigArg string, dst, src unsafe.Pointer, n uintptr, sig unsafe.Pointer, signal uint64, add bool, pe int) {
	w := c.PE(who, pe)
	AMOTargetArg(who, sigArg, sig, 8, w)
	c.Put(who, dst, src, n, pe)
	if !local(w) {
		c.transport(w).Fence() // the data before the signal, on c's own remote transport
	}
	// On shared memory the signal's atomic is a release on arm64 and a locked instruction
	// on amd64: the data's stores are visible before the signal is.
	op := AMOSet
	if add {
		op = AMOFetchAdd
	}
	c.AMO(who, op|AMOPost, 8, sig, signal, 0, pe)
}

// TransportOf is how c reaches world PE pe (a scalar put or get by value to another node).
func (c *Ctx) TransportOf(pe int) Transport { return c.transport(pe) }
