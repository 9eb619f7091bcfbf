package rt

import (
	"github.com/goshmem/shmem/kernels"
	"sync/atomic"
	"unsafe"
)

// Transport reaches the memory of one PE. Every PE of a job today shares this node's memory
// and is reached through shmTransport; a PE on another node will be reached through a second
// implementation wrapping an existing distributed engine (UCX's UCP through cgo, or MPI-3
// RMA as OSHMPI does), picked per PE at Init — never a home-made network layer. Addresses
// are this PE's symmetric addresses (or local buffers); the transport translates them.
// Collectives work on the node's shared memory directly, below this seam.
type Transport interface {
	Put(dst, src unsafe.Pointer, n uintptr, pe int)
	Get(dst, src unsafe.Pointer, n uintptr, pe int)
	// PutNBI and GetNBI may return before src may be reused or dst holds the data: Quiet
	// completes them (shared memory completes them at once).
	PutNBI(dst, src unsafe.Pointer, n uintptr, pe int)
	GetNBI(dst, src unsafe.Pointer, n uintptr, pe int)
	// PutValue and GetValue move a scalar of size 1, 2, 4 or 8 bytes (p and g) by value, so
	// no caller's variable has to live on the heap for the engine.
	PutValue(dst unsafe.Pointer, v uint64, size uintptr, pe int)
	GetValue(src unsafe.Pointer, size uintptr, pe int) uint64
	PutStrided(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, pe int)
	GetStrided(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, pe int)
	// AMO applies op to the size-byte word at p on pe (v the operand, cond the compare
	// value of AMOCompareSwap) and returns the word's old value.
	AMO(op AMOOp, size uintptr, p unsafe.Pointer, v, cond uint64, pe int) uint64
	Quiet()
	Fence()
}

// AMOOp is an atomic memory operation.
type AMOOp uint8

const (
	AMOFetch AMOOp = iota
	AMOSet
	AMOSwap
	AMOCompareSwap
	AMOFetchAdd
	AMOFetchAnd
	AMOFetchOr
	AMOFetchXor

	// AMOPost marks an operation whose result the caller does not use (AtomicAdd, Set,
	// And, ...): a transport may start it and let Quiet complete it.
	AMOPost AMOOp = 0x80
	// AMOSignal marks a posted operation that is a collective's signal: its receiver waits
	// for it, so no Quiet has to (a barrier's Quiet waited a round trip for the signal of
	// the barrier before). Transports that complete operations at once ignore it.
	AMOSignal AMOOp = 0x40
	// AMOAfterData marks a signal that follows data the caller fenced: the engine must keep
	// it in order behind that data (a signal alone may take a faster, unordered way).
	AMOAfterData AMOOp = 0x20
)

// putSignaler is a transport that carries a collective's data (n elements of size bytes,
// strided at either end) and its signal (an add to an 8-byte word) in one message; a
// transport without it puts, fences, then signals.
type putSignaler interface {
	PutSignal(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, sig unsafe.Pointer, v uint64, pe int)
}

// mailer is a transport that sends a collective's message to be kept at its receiver until
// taken by sender and key (netEngine.TakeMail), so the sender need not know the receiver
// is ready (hier.go's mail).
type mailer interface {
	Mail(pe int, key uintptr, src unsafe.Pointer, n uintptr)
}

// transports[pe] reaches PE pe: shared memory for the PEs of my node, the multi-node
// engine for the rest. allShm says every PE is reached through shared memory (a one-node
// job): the hot paths then call the shared-memory transport directly, where the compiler
// can inline it, instead of through the interface.
var (
	transports []Transport
	allShm     bool
)

func transportsInit() {
	transports = make([]Transport, npes)
	for pe := range transports {
		transports[pe] = shmT
		if !local(pe) {
			transports[pe] = netT
		}
	}
	allShm = !multiNode
}

// shmTransport is the shared-memory transport: memmove and sync/atomic on the peer's
// segment, then a doorbell for its sleeping waiters.
type shmTransport struct{}

var shmT = &shmTransport{}

func (t *shmTransport) PutNBI(dst, src unsafe.Pointer, n uintptr, pe int) { t.Put(dst, src, n, pe) }
func (t *shmTransport) GetNBI(dst, src unsafe.Pointer, n uintptr, pe int) { t.Get(dst, src, n, pe) }

func (*shmTransport) Put(dst, src unsafe.Pointer, n uintptr, pe int) {
	copyBytes(Remote(dst, pe), src, n)
	Notify(pe)
}

// copyBytes copies n bytes; a single word (a scalar put) is one load and one store.
func copyBytes(dst, src unsafe.Pointer, n uintptr) {
	if n == 8 {
		*(*uint64)(dst) = *(*uint64)(src) // unaligned accesses are fine on amd64 and arm64
		return
	}
	copyLarge(dst, src, n)
}

func copyLarge(dst, src unsafe.Pointer, n uintptr) { kernels.Copy(bytes(dst, n), bytes(src, n)) }

func (*shmTransport) Get(dst, src unsafe.Pointer, n uintptr, pe int) {
	copyBytes(dst, Remote(src, pe), n)
}

func (*shmTransport) PutValue(dst unsafe.Pointer, v uint64, size uintptr, pe int) {
	storeScalar(Remote(dst, pe), v, size)
	Notify(pe)
}

func (*shmTransport) GetValue(src unsafe.Pointer, size uintptr, pe int) uint64 {
	return loadScalar(Remote(src, pe), size)
}

// loadScalar reads the size (1, 2, 4 or 8) bytes at p as the low-order bytes of a word.
func loadScalar(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// storeScalar writes the size low-order bytes of v at p.
func storeScalar(p unsafe.Pointer, v uint64, size uintptr) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

func (*shmTransport) PutStrided(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, pe int) {
	StridedCopy(Remote(dst, pe), dstStride, src, srcStride, n, size)
	Notify(pe)
}

func (*shmTransport) GetStrided(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, pe int) {
	StridedCopy(dst, dstStride, Remote(src, pe), srcStride, n, size)
}

func (*shmTransport) Quiet() { Quiet() }
func (*shmTransport) Fence() { Fence() }

func (*shmTransport) AMO(op AMOOp, size uintptr, p unsafe.Pointer, v, cond uint64, pe int) uint64 {
	op &^= AMOPost
	r := Remote(p, pe)
	var old uint64
	switch size {
	case 8:
		old = amo64((*uint64)(r), op, v, cond)
	case 4:
		old = uint64(amo32((*uint32)(r), op, uint32(v), uint32(cond)))
	default: // 1- and 2-byte bitwise AMOs: compare-and-swap on the aligned 32-bit container
		old = amoContainer(r, size, op, v)
	}
	if op != AMOFetch {
		NotifyAtomic(pe)
	}
	return old
}

func amo64(p *uint64, op AMOOp, v, cond uint64) uint64 {
	switch op {
	case AMOFetch:
		return atomic.LoadUint64(p)
	case AMOSet:
		atomic.StoreUint64(p, v)
		return 0
	case AMOSwap:
		return atomic.SwapUint64(p, v)
	case AMOCompareSwap:
		for {
			o := atomic.LoadUint64(p)
			if o != cond || atomic.CompareAndSwapUint64(p, o, v) {
				return o
			}
		}
	case AMOFetchAdd:
		return atomic.AddUint64(p, v) - v
	case AMOFetchAnd:
		return atomic.AndUint64(p, v)
	case AMOFetchOr:
		return atomic.OrUint64(p, v)
	}
	for { // AMOFetchXor
		o := atomic.LoadUint64(p)
		if atomic.CompareAndSwapUint64(p, o, o^v) {
			return o
		}
	}
}

func amo32(p *uint32, op AMOOp, v, cond uint32) uint32 {
	switch op {
	case AMOFetch:
		return atomic.LoadUint32(p)
	case AMOSet:
		atomic.StoreUint32(p, v)
		return 0
	case AMOSwap:
		return atomic.SwapUint32(p, v)
	case AMOCompareSwap:
		for {
			o := atomic.LoadUint32(p)
			if o != cond || atomic.CompareAndSwapUint32(p, o, v) {
				return o
			}
		}
	case AMOFetchAdd:
		return atomic.AddUint32(p, v) - v
	case AMOFetchAnd:
		return atomic.AndUint32(p, v)
	case AMOFetchOr:
		return atomic.OrUint32(p, v)
	}
	for { // AMOFetchXor
		o := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, o, o^v) {
			return o
		}
	}
}

// amoContainer applies a bitwise op to the size-byte field at p inside its aligned 32-bit
// word, leaving the neighbours intact, and returns the field's old value. Little-endian
// (amd64, arm64): byte k of the word is bits 8k..8k+7.
func amoContainer(p unsafe.Pointer, size uintptr, op AMOOp, v uint64) uint64 {
	word := (*uint32)(unsafe.Pointer(uintptr(p) &^ 3))
	shift := (uintptr(p) & 3) * 8
	mask := uint32(uint64(1)<<(size*8)-1) << shift
	for {
		w := atomic.LoadUint32(word)
		o := uint64((w & mask) >> shift)
		if op == AMOFetch {
			return o
		}
		x := applyBitwise(op, o, v)
		if atomic.CompareAndSwapUint32(word, w, uint32(x)<<shift&mask|w&^mask) {
			return o
		}
	}
}

// applyBitwise is the new value of a 1- or 2-byte word o after op with operand v.
func applyBitwise(op AMOOp, o, v uint64) uint64 {
	switch op {
	case AMOFetchAnd:
		return o & v
	case AMOFetchOr:
		return o | v
	case AMOFetchXor:
		return o ^ v
	case AMOFetch:
		return o
	}
	panic("rt: AMO " + string(rune('0'+op)) + " on a 1- or 2-byte word")
}

// AMO is an atomic memory operation on the symmetric word p of PE pe, after the checks
// (who names the routine): the default context's (see Ctx.AMO).
func AMO(who string, op AMOOp, size uintptr, p unsafe.Pointer, v, cond uint64, pe int) uint64 {
	return DefaultCtx.AMO(who, op, size, p, v, cond, pe)
}
