//go:build !purego && !race

package kernels

import (
	"unsafe"

	"github.com/goshmem/shmem/kernels/asm"
	"github.com/klauspost/cpuid/v2"
)

// copyLarge is Copy from copyERMSMin bytes on. Not inlined, so that Copy is.
//
//go:noinline
func copyLarge(dst, src []byte) int {
	if !cur.copyERMS {
		return copyChunked(dst, src, copyCachedMax)
	}
	return copyERMS(dst, src)
}

// Go's memmove writes a copy of 1 MiB or more with non-temporal stores, which leave the
// destination in memory, not in the cache. Up to half the L3 the destination fits there, and
// the runtime reads what it puts, gets and gathers: on a Zen 2 VM without ERMS a copy of
// 1-4 MiB in pieces under 1 MiB ran 1.4-1.6x one copy()'s rate (copy then read: 2.0-2.6x),
// 8 MiB 1.17x (1.6x); from 16 MiB (its L3) the pieces were 2.5x slower (bench/KERNELS.md).
const (
	copyNTMin = 1 << 20   // memmove's non-temporal threshold (runtime/memmove_amd64.s)
	copyPiece = 512 << 10 // under copyNTMin: each piece's stores stay temporal
)

// copyCachedMax is the largest copy copyChunked splits: half the L3 (0 where CPUID does not
// say: then none).
var copyCachedMax = max(0, cpuid.CPU.Cache.L3/2)

// copyChunked is copy(), in pieces of copyPiece bytes when it copies copyNTMin to limit bytes
// between slices that do not overlap (a forward copy by pieces would read what it wrote).
func copyChunked(dst, src []byte, limit int) int {
	n := min(len(dst), len(src))
	if n < copyNTMin || n > limit || overlap(ptr(dst), ptr(src), uintptr(n)) {
		return copy(dst, src)
	}
	for off := 0; off < n; off += copyPiece {
		end := min(off+copyPiece, n)
		copy(dst[off:end], src[off:end])
	}
	return n
}

// copyERMS runs the REP MOVSB kernel, at any length, unless the slices overlap or sit a
// short distance apart, where copy() runs.
func copyERMS(dst, src []byte) int {
	n := min(len(dst), len(src))
	d, s := ptr(dst), ptr(src)
	// REP MOVSB copies forward: with dst above src in the same bytes it would read bytes it
	// has already overwritten. Below src it would be right, but overlapping copies are rare
	// and copy() is a memmove.
	if overlap(d, s, uintptr(n)) {
		return copy(dst, src)
	}
	// When dst - src is 1..63 modulo 4 KiB, REP MOVSB measured 0.75x copy() at 4 MiB and
	// 0.94-1.0x at 64 KiB (1.3x at the other distances tried): presumably 4 KiB aliasing, the
	// loads of each block looking, on their low 12 address bits, as if they depended on the
	// stores just made.
	if (uintptr(unsafe.Pointer(d))-uintptr(unsafe.Pointer(s))-1)&4095 < 63 {
		return copy(dst, src)
	}
	asm.CopyERMS(d, s, n)
	return n
}
