package shmem

import (
	"sync/atomic"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Atomic memory operations on a symmetric word of PE pe. Each is one sync/atomic operation
// on the peer's memory (a locked instruction on amd64, LSE or exclusive pairs on arm64), so
// it is atomic against every other AMO from every PE and goroutine. 8- and 16-bit bitwise
// AMOs update their aligned 32-bit container by compare-and-swap, leaving neighbours intact.

func target[T any](who string, p *T, pe int) unsafe.Pointer {
	if p == nil {
		panic(who + ": nil pointer")
	}
	return rt.AMOTarget(who, unsafe.Pointer(p), unsafe.Sizeof(*p), pe)
}

// bitsOf and fromBits reinterpret a 4- or 8-byte value.
func bits32[T any](v T) uint32 { return *(*uint32)(unsafe.Pointer(&v)) }
func bits64[T any](v T) uint64 { return *(*uint64)(unsafe.Pointer(&v)) }
func from32[T any](b uint32) T { return *(*T)(unsafe.Pointer(&b)) }
func from64[T any](b uint64) T { return *(*T)(unsafe.Pointer(&b)) }

// AtomicFetch loads *src on PE pe atomically.
func AtomicFetch[T ExtAMO](src *T, pe int) T {
	r := target("shmem.AtomicFetch", src, pe)
	if unsafe.Sizeof(*src) == 4 {
		return from32[T](atomic.LoadUint32((*uint32)(r)))
	}
	return from64[T](atomic.LoadUint64((*uint64)(r)))
}

// AtomicSet stores v into *dst on PE pe atomically.
func AtomicSet[T ExtAMO](dst *T, v T, pe int) {
	r := target("shmem.AtomicSet", dst, pe)
	if unsafe.Sizeof(v) == 4 {
		atomic.StoreUint32((*uint32)(r), bits32(v))
	} else {
		atomic.StoreUint64((*uint64)(r), bits64(v))
	}
	rt.NotifyAtomic(pe)
}

// AtomicSwap stores v into *dst on PE pe and returns the old value.
func AtomicSwap[T ExtAMO](dst *T, v T, pe int) T {
	r := target("shmem.AtomicSwap", dst, pe)
	var old T
	if unsafe.Sizeof(v) == 4 {
		old = from32[T](atomic.SwapUint32((*uint32)(r), bits32(v)))
	} else {
		old = from64[T](atomic.SwapUint64((*uint64)(r), bits64(v)))
	}
	rt.NotifyAtomic(pe)
	return old
}

// AtomicCompareSwap stores v into *dst on PE pe if it equals cond, and returns the value it
// held before (equal to cond exactly when the swap happened).
func AtomicCompareSwap[T AMO](dst *T, cond, v T, pe int) T {
	r := target("shmem.AtomicCompareSwap", dst, pe)
	var old T
	if unsafe.Sizeof(v) == 4 {
		p := (*uint32)(r)
		for {
			o := atomic.LoadUint32(p)
			if o != uint32(cond) || atomic.CompareAndSwapUint32(p, o, uint32(v)) {
				old = T(o)
				break
			}
		}
	} else {
		p := (*uint64)(r)
		for {
			o := atomic.LoadUint64(p)
			if o != uint64(cond) || atomic.CompareAndSwapUint64(p, o, uint64(v)) {
				old = T(o)
				break
			}
		}
	}
	if old == cond {
		rt.NotifyAtomic(pe)
	}
	return old
}

// AtomicFetchAdd adds v to *dst on PE pe and returns the old value (integers wrap).
func AtomicFetchAdd[T AMO](dst *T, v T, pe int) T {
	return fetchAdd("shmem.AtomicFetchAdd", dst, v, pe)
}

// AtomicAdd adds v to *dst on PE pe.
func AtomicAdd[T AMO](dst *T, v T, pe int) { fetchAdd("shmem.AtomicAdd", dst, v, pe) }

// AtomicFetchInc adds 1 to *dst on PE pe and returns the old value.
func AtomicFetchInc[T AMO](dst *T, pe int) T { return fetchAdd("shmem.AtomicFetchInc", dst, 1, pe) }

// AtomicInc adds 1 to *dst on PE pe.
func AtomicInc[T AMO](dst *T, pe int) { fetchAdd("shmem.AtomicInc", dst, 1, pe) }

func fetchAdd[T AMO](who string, dst *T, v T, pe int) T {
	r := target(who, dst, pe)
	var old T
	if unsafe.Sizeof(v) == 4 {
		old = T(atomic.AddUint32((*uint32)(r), uint32(v)) - uint32(v))
	} else {
		old = T(atomic.AddUint64((*uint64)(r), uint64(v)) - uint64(v))
	}
	rt.NotifyAtomic(pe)
	return old
}

type bitOp int

const (
	opAnd bitOp = iota
	opOr
	opXor
)

func (o bitOp) apply(a, b uint64) uint64 {
	switch o {
	case opAnd:
		return a & b
	case opOr:
		return a | b
	}
	return a ^ b
}

// AtomicFetchAnd ands v into *dst on PE pe and returns the old value.
func AtomicFetchAnd[T Bitwise](dst *T, v T, pe int) T {
	return fetchBit("shmem.AtomicFetchAnd", opAnd, dst, v, pe)
}

// AtomicAnd ands v into *dst on PE pe.
func AtomicAnd[T Bitwise](dst *T, v T, pe int) { fetchBit("shmem.AtomicAnd", opAnd, dst, v, pe) }

// AtomicFetchOr ors v into *dst on PE pe and returns the old value.
func AtomicFetchOr[T Bitwise](dst *T, v T, pe int) T {
	return fetchBit("shmem.AtomicFetchOr", opOr, dst, v, pe)
}

// AtomicOr ors v into *dst on PE pe.
func AtomicOr[T Bitwise](dst *T, v T, pe int) { fetchBit("shmem.AtomicOr", opOr, dst, v, pe) }

// AtomicFetchXor xors v into *dst on PE pe and returns the old value.
func AtomicFetchXor[T Bitwise](dst *T, v T, pe int) T {
	return fetchBit("shmem.AtomicFetchXor", opXor, dst, v, pe)
}

// AtomicXor xors v into *dst on PE pe.
func AtomicXor[T Bitwise](dst *T, v T, pe int) { fetchBit("shmem.AtomicXor", opXor, dst, v, pe) }

func fetchBit[T Bitwise](who string, op bitOp, dst *T, v T, pe int) T {
	r := target(who, dst, pe)
	var old T
	switch size := unsafe.Sizeof(v); {
	case size == 4 && op == opAnd:
		old = T(atomic.AndUint32((*uint32)(r), uint32(v)))
	case size == 4 && op == opOr:
		old = T(atomic.OrUint32((*uint32)(r), uint32(v)))
	case size == 8 && op == opAnd:
		old = T(atomic.AndUint64((*uint64)(r), uint64(v)))
	case size == 8 && op == opOr:
		old = T(atomic.OrUint64((*uint64)(r), uint64(v)))
	case size == 8:
		p := (*uint64)(r)
		for {
			o := atomic.LoadUint64(p)
			if atomic.CompareAndSwapUint64(p, o, o^uint64(v)) {
				old = T(o)
				break
			}
		}
	default: // 1, 2 or 4 bytes by compare-and-swap on the aligned 32-bit word holding them
		old = T(rmwContainer(r, size, op, uint64(v)))
	}
	rt.NotifyAtomic(pe)
	return old
}

// rmwContainer applies op with v to the size-byte field at p inside its aligned 32-bit word
// and returns the field's old value. Little-endian (amd64, arm64): byte k of the word is
// bits 8k..8k+7.
func rmwContainer(p unsafe.Pointer, size uintptr, op bitOp, v uint64) uint64 {
	word := (*uint32)(unsafe.Pointer(uintptr(p) &^ 3))
	shift := (uintptr(p) & 3) * 8
	mask := uint32(uint64(1)<<(size*8)-1) << shift
	for {
		w := atomic.LoadUint32(word)
		o := uint64((w & mask) >> shift)
		n := uint32(op.apply(o, v))<<shift&mask | w&^mask
		if atomic.CompareAndSwapUint32(word, w, n) {
			return o
		}
	}
}
