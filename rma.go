package shmem

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	rt "github.com/goshmem/shmem/runtime"
)

// Put copies src into the symmetric dst on PE pe (len(src) elements; dst must hold them).
// It returns when src may be reused; the data is delivered when Put returns, and ordered
// before later accesses by Quiet or Fence.
func Put[T any](dst, src []T, pe int) { put("shmem.Put", rt.DefaultCtx, dst, src, pe) }

// PutNBI is the non-blocking Put: src may be reused after Quiet, which also completes the
// delivery. On shared memory it completes before returning; to a PE on another node it
// only starts the transfer (src stays pinned until Quiet).
func PutNBI[T any](dst, src []T, pe int) { putNBI("shmem.PutNBI", rt.DefaultCtx, dst, src, pe) }

func putNBI[T any](who string, c *rt.Ctx, dst, src []T, pe int) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("%s: dst has %d elements, src %d", who, len(dst), len(src)))
	}
	c.PutNBI(who, sliceAddr(dst), sliceAddr(src), uintptr(len(src))*sizeOf[T](), pe)
}

func put[T any](who string, c *rt.Ctx, dst, src []T, pe int) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("%s: dst has %d elements, src %d", who, len(dst), len(src)))
	}
	c.Put(who, sliceAddr(dst), sliceAddr(src), uintptr(len(src))*sizeOf[T](), pe)
}

// Get copies the symmetric src on PE pe into dst (len(dst) elements; src must hold them).
func Get[T any](dst, src []T, pe int) { get("shmem.Get", rt.DefaultCtx, dst, src, pe) }

// GetNBI is the non-blocking Get: dst holds the data after Quiet. On shared memory it
// completes before returning; from a PE on another node it only starts the transfer (dst
// stays pinned until Quiet).
func GetNBI[T any](dst, src []T, pe int) { getNBI("shmem.GetNBI", rt.DefaultCtx, dst, src, pe) }

func getNBI[T any](who string, c *rt.Ctx, dst, src []T, pe int) {
	if len(src) < len(dst) {
		panic(fmt.Sprintf("%s: src has %d elements, dst %d", who, len(src), len(dst)))
	}
	c.GetNBI(who, sliceAddr(dst), sliceAddr(src), uintptr(len(dst))*sizeOf[T](), pe)
}

func get[T any](who string, c *rt.Ctx, dst, src []T, pe int) {
	if len(src) < len(dst) {
		panic(fmt.Sprintf("%s: src has %d elements, dst %d", who, len(src), len(dst)))
	}
	c.Get(who, sliceAddr(dst), sliceAddr(src), uintptr(len(dst))*sizeOf[T](), pe)
}

// P stores v into the symmetric *dst on PE pe.
func P[T any](dst *T, v T, pe int) { p("shmem.P", rt.DefaultCtx, dst, v, pe) }

func p[T any](who string, c *rt.Ctx, dst *T, v T, pe int) {
	q, w := scalarTarget(who, c, dst, pe)
	if q == nil { // on another node
		if n := unsafe.Sizeof(v); n <= 8 && n&(n-1) == 0 {
			c.TransportOf(w).PutValue(unsafe.Pointer(dst), bits(v), n, w)
			return
		}
		putOff(who, c, dst, v, pe)
		return
	}
	*q = v
	rt.Notify(w)
}

// putOff puts v to a PE on another node through memory: v escapes to the heap here, not in
// P, whose common case allocates nothing.
//
//go:noinline
func putOff[T any](who string, c *rt.Ctx, dst *T, v T, pe int) {
	c.Put(who, unsafe.Pointer(dst), unsafe.Pointer(&v), unsafe.Sizeof(v), pe)
}

// getOff is G from a PE on another node through memory.
//
//go:noinline
func getOff[T any](who string, c *rt.Ctx, src *T, pe int) T {
	var v T
	c.Get(who, unsafe.Pointer(&v), unsafe.Pointer(src), unsafe.Sizeof(v), pe)
	return v
}

// G loads the symmetric *src on PE pe.
func G[T any](src *T, pe int) T { return g("shmem.G", rt.DefaultCtx, src, pe) }

func g[T any](who string, c *rt.Ctx, src *T, pe int) T {
	p, w := scalarTarget(who, c, src, pe)
	if p == nil { // on another node
		if n := unsafe.Sizeof(*src); n <= 8 && n&(n-1) == 0 {
			return fromBits[T](c.TransportOf(w).GetValue(unsafe.Pointer(src), n, w))
		}
		return getOff(who, c, src, pe)
	}
	return *p
}

// scalarTarget is PE pe's copy of *p (nil on another node), and pe's world number.
func scalarTarget[T any](who string, c *rt.Ctx, p *T, pe int) (*T, int) {
	pe = c.PE(who, pe)
	if p == nil {
		panic(who + ": nil pointer")
	}
	rt.CheckSym(who, "address", unsafe.Pointer(p), unsafe.Sizeof(*p))
	if !rt.Local(pe) {
		return nil, pe
	}
	return (*T)(rt.Remote(unsafe.Pointer(p), pe)), pe
}

// IPut copies n elements, src[i*srcStride] to dst[i*dstStride] on PE pe (strides >= 1).
func IPut[T any](dst, src []T, dstStride, srcStride, n, pe int) {
	iput("shmem.IPut", rt.DefaultCtx, dst, src, dstStride, srcStride, n, pe)
}

func iput[T any](who string, c *rt.Ctx, dst, src []T, dstStride, srcStride, n, pe int) {
	checkStridedLens(who, len(dst), len(src), dstStride, srcStride, n)
	c.IPut(who, sliceAddr(dst), sliceAddr(src), dstStride, srcStride, n, sizeOf[T](), pe)
}

// IGet copies n elements, src[i*srcStride] on PE pe to dst[i*dstStride] (strides >= 1).
func IGet[T any](dst, src []T, dstStride, srcStride, n, pe int) {
	iget("shmem.IGet", rt.DefaultCtx, dst, src, dstStride, srcStride, n, pe)
}

func iget[T any](who string, c *rt.Ctx, dst, src []T, dstStride, srcStride, n, pe int) {
	checkStridedLens(who, len(dst), len(src), dstStride, srcStride, n)
	c.IGet(who, sliceAddr(dst), sliceAddr(src), dstStride, srcStride, n, sizeOf[T](), pe)
}

func checkStridedLens(who string, ldst, lsrc, dstStride, srcStride, n int) {
	rt.CheckStrided(who, dstStride, srcStride, n)
	if n == 0 {
		return
	}
	if need := rt.StridedElems(who, "dst", n, dstStride); ldst < need {
		panic(fmt.Sprintf("%s: dst has %d elements, %d at stride %d need %d", who, ldst, n, dstStride, need))
	}
	if need := rt.StridedElems(who, "src", n, srcStride); lsrc < need {
		panic(fmt.Sprintf("%s: src has %d elements, %d at stride %d need %d", who, lsrc, n, srcStride, need))
	}
}

// SignalOp is how PutSignal updates the signal word.
type SignalOp int

const (
	SignalSet SignalOp = iota // the signal word becomes the value
	SignalAdd                 // the value is added to the signal word
)

// PutSignal puts src into dst on PE pe, then updates the symmetric signal word *sig on pe
// (SignalSet or SignalAdd) atomically, ordered after the data: a PE that sees the signal
// sees the data.
func PutSignal[T any](dst, src []T, sig *uint64, signal uint64, op SignalOp, pe int) {
	putSignal("shmem.PutSignal", rt.DefaultCtx, dst, src, sig, signal, op, pe)
}

// PutSignalNBI is the non-blocking PutSignal; on shared memory it completes before
// returning.
func PutSignalNBI[T any](dst, src []T, sig *uint64, signal uint64, op SignalOp, pe int) {
	putSignal("shmem.PutSignalNBI", rt.DefaultCtx, dst, src, sig, signal, op, pe)
}

func putSignal[T any](who string, c *rt.Ctx, dst, src []T, sig *uint64, signal uint64, op SignalOp, pe int) {
	if op != SignalSet && op != SignalAdd {
		panic(fmt.Sprintf("%s: invalid signal operation %d", who, op))
	}
	if len(dst) < len(src) {
		panic(fmt.Sprintf("%s: dst has %d elements, src %d", who, len(dst), len(src)))
	}
	c.PutSignal(who, "sig", sliceAddr(dst), sliceAddr(src), uintptr(len(src))*sizeOf[T](), unsafe.Pointer(sig), signal, op == SignalAdd, pe)
}

// SignalFetch loads the local symmetric signal word atomically.
func SignalFetch(sig *uint64) uint64 {
	rt.LocalTarget("shmem.SignalFetch", "sig", unsafe.Pointer(sig), 8)
	return atomic.LoadUint64(sig)
}

// SignalWaitUntil waits until the local signal word compares to v by cmp, and returns it.
func SignalWaitUntil(sig *uint64, cmp Cmp, v uint64) uint64 {
	const who = "shmem.SignalWaitUntil"
	rt.LocalTarget(who, "sig", unsafe.Pointer(sig), 8)
	cmp.check(who)
	var got uint64
	rt.AwaitAnswer(who, rt.WaitSignal, 0, func() bool {
		got = atomic.LoadUint64(sig)
		return kernels.Holds(got, kernels.Cmp(cmp), v)
	})
	return got
}
