package kernels

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// The scans of the wait/test family (shmem.TestSome, WaitUntilAny, ... and their Vector
// forms): which elements of an array of flags compare to a value (or to per-element values)
// by a comparison, among those a status array does not exclude.
//
// Atomicity and order. The flags are written by other PEs while a scan reads them, so a scan
// must never see an element torn (half old, half new) and must read each element once, so
// that the index it reports is of a value it compared. Every element is naturally aligned
// (Go and C both align int16/int32/int64 to their size, and shmem's wait/test routines reject
// an ivars array that is not: rt.LocalTarget),
// and each is read exactly once per scan, by one vector load or, in the reference and the
// tails, by one sync/atomic load (a 16-bit element through its aligned 32-bit container).
//
//   - arm64: LD1 with the element's arrangement is, by the Arm architecture's definition of
//     single-copy atomicity (Arm ARM DDI 0487, B2.2.1), a sequence of element accesses, each
//     single-copy atomic when the element is aligned to its size. The kernels end with
//     DMB ISHLD, so later reads (the data the flags announce) are ordered after the scan's,
//     as the LDAR of an atomic load orders them.
//   - amd64: the vendors promise atomicity for aligned loads of up to 8 bytes (Intel SDM vol.
//     3A 9.1.1, AMD APM vol. 2 7.3.2) and, on AVX CPUs, for 16-byte-aligned VMOVDQA; of a
//     32- or 64-byte VMOVDQU they say only that it may be carried out as several accesses.
//     The argument rests on how those accesses are made: a vector load reads each cache
//     line it touches in one access (a line-split load is two), and a naturally aligned
//     element of 2, 4 or 8 bytes never crosses a cache line, so it comes whole from one
//     access. That is how x86 implementations work, not a written promise; the scalar
//     reference (-tags purego) keeps to the written one. Loads of write-back memory,
//     vector ones included, are not reordered with other loads (SDM vol. 3A 9.2.2), so a
//     scan has acquire order as MOV does. AVX-512's masked loads read only the lanes in
//     range and suppress faults beyond them.
//
// A scan reads each element once but not all elements at one instant: like the scalar loop
// it replaces, its result is a set of elements that each compared true when read.

// Cmp is a comparison of the scans: element cmp value. The constants (CmpEQ, ...) have the
// specification's SHMEM_CMP_* values.
type Cmp uint8

func (c Cmp) String() string {
	if c < numCmps {
		return cmpNames[c]
	}
	return fmt.Sprintf("Cmp(%d)", uint8(c))
}

// Negate is the comparison that holds exactly where c does not.
func (c Cmp) Negate() Cmp {
	return [numCmps]Cmp{CmpEQ: CmpNE, CmpNE: CmpEQ, CmpGT: CmpLE, CmpGE: CmpLT, CmpLT: CmpGE, CmpLE: CmpGT}[c]
}

// ScanElem is the element types of the scans: the point-to-point synchronization types.
// int, uint and uintptr scan as the integers of their size.
type ScanElem interface {
	int16 | int32 | int64 | int | uint16 | uint32 | uint64 | uint | uintptr
}

// scanKernel is one path's scan of one (class, comparison): element i < n qualifies when
// st[i] == 0 and p[i] cmp w[i], with w[i] = vals[i], or v's low bits for every i when vals
// is nil. st advances sstep bytes per element (0: st is scanZeroStatus, no statuses). With
// idx non-nil it writes the qualifying indices to idx in increasing order, stops after max
// (>= 1) and returns how many it wrote; with idx nil it returns the first such index or -1.
type scanKernel = func(p *byte, v uint64, vals *byte, st *int32, sstep uintptr, idx *int, n, max int) int

// scanZeroStatus stands for "no status array": zero statuses for one unrolled group of
// vectors (64 lanes at most), read with step 0.
var scanZeroStatus [64]int32

// scanClass gives T's row in the scan tables.
func scanClass[T ScanElem]() int {
	var z T
	c := sI64
	switch unsafe.Sizeof(z) {
	case 2:
		c = sI16
	case 4:
		c = sI32
	}
	if ^z > 0 { // unsigned
		c++
	}
	return c
}

func checkScan[T ScanElem](fn string, ivars []T, status []int32, cmp Cmp, values []T) {
	if cmp >= numCmps {
		panic(fmt.Sprintf("kernels.%s: invalid comparison %d", fn, uint8(cmp)))
	}
	if status != nil && len(status) < len(ivars) {
		panic(fmt.Sprintf("kernels.%s: len(status) = %d, want >= len(ivars) = %d", fn, len(status), len(ivars)))
	}
	if values != nil && len(values) < len(ivars) {
		panic(fmt.Sprintf("kernels.%s: len(values) = %d, want >= len(ivars) = %d", fn, len(values), len(ivars)))
	}
}

// scanArgs turns slices into a kernel's arguments.
func scanArgs[T ScanElem](ivars []T, status []int32, v T, values []T) (p *byte, vw uint64, vals *byte, st *int32, sstep uintptr) {
	p = (*byte)(unsafe.Pointer(unsafe.SliceData(ivars)))
	switch unsafe.Sizeof(v) {
	case 2:
		vw = uint64(*(*uint16)(unsafe.Pointer(&v)))
	case 4:
		vw = uint64(*(*uint32)(unsafe.Pointer(&v)))
	default:
		vw = *(*uint64)(unsafe.Pointer(&v))
	}
	if values != nil {
		vals = (*byte)(unsafe.Pointer(unsafe.SliceData(values)))
	}
	st, sstep = &scanZeroStatus[0], 0
	if status != nil {
		st, sstep = unsafe.SliceData(status), 4
	}
	return
}

// ScanSome writes to indices, in increasing order, every i < len(ivars) with status[i] == 0
// (every i when status is nil) and ivars[i] cmp v (cmp values[i] when values is not nil),
// stopping once indices is full, and returns how many it wrote. Each element is read once,
// atomically, with acquire order (see above). It panics on an invalid cmp, or on status or
// values shorter than ivars.
func ScanSome[T ScanElem](ivars []T, status []int32, cmp Cmp, v T, values []T, indices []int) int {
	checkScan("ScanSome", ivars, status, cmp, values)
	n := len(ivars)
	if n == 0 || len(indices) == 0 {
		return 0
	}
	p, vw, vals, st, sstep := scanArgs(ivars, status, v, values)
	return cur.scan[scanClass[T]()][cmp](p, vw, vals, st, sstep, unsafe.SliceData(indices), n, len(indices))
}

// ScanFirst returns the first index ScanSome would write, or -1.
func ScanFirst[T ScanElem](ivars []T, status []int32, cmp Cmp, v T, values []T) int {
	checkScan("ScanFirst", ivars, status, cmp, values)
	n := len(ivars)
	if n == 0 {
		return -1
	}
	p, vw, vals, st, sstep := scanArgs(ivars, status, v, values)
	return cur.scan[scanClass[T]()][cmp](p, vw, vals, st, sstep, nil, n, 0)
}

// scanRest finishes a scan of n elements whose first m a kernel did (finding r: a count, or
// a first index or -1), running k on the rest.
func scanRest(k scanKernel, r, size int, p *byte, v uint64, vals *byte, st *int32, sstep uintptr, idx *int, m, n, max int) int {
	if vals != nil {
		vals = at(vals, m*size)
	}
	st = (*int32)(unsafe.Add(unsafe.Pointer(st), uintptr(m)*sstep))
	if idx == nil {
		if r >= 0 {
			return r
		}
		r = k(at(p, m*size), v, vals, st, sstep, nil, n-m, 0)
		if r >= 0 {
			r += m
		}
		return r
	}
	if r == max {
		return r
	}
	out := unsafe.Slice(idx, max)
	c := k(at(p, m*size), v, vals, st, sstep, &out[r], n-m, max-r)
	for i := r; i < r+c; i++ {
		out[i] += m
	}
	return r + c
}

// The reference scans (generated: refScanEQI16, ...) are the generic path and the tails of
// the vector paths; the tests' oracle is a plain loop of their own.

type scanInt interface {
	int16 | int32 | int64 | uint16 | uint32 | uint64
}

// LoadAcquire reads *p atomically, with acquire ordering (a 16-bit element through its
// aligned 32-bit container, little-endian: the targets with scan kernels and every other Go
// target but a few big-endian ones, for which the shift is mirrored). The references and
// the wait/test family's one-variable forms read with it.
func LoadAcquire[T int16 | int32 | int64 | uint16 | uint32 | uint64 | int | uint | uintptr](p *T) T {
	switch unsafe.Sizeof(*p) {
	case 8:
		v := atomic.LoadUint64((*uint64)(unsafe.Pointer(p)))
		return *(*T)(unsafe.Pointer(&v))
	case 4:
		v := atomic.LoadUint32((*uint32)(unsafe.Pointer(p)))
		return *(*T)(unsafe.Pointer(&v))
	}
	a := uintptr(unsafe.Pointer(p))
	w := atomic.LoadUint32((*uint32)(unsafe.Add(unsafe.Pointer(p), -int(a&2))))
	sh := (a & 2) * 8
	if bigEndian {
		sh = 16 - sh
	}
	h := uint16(w >> sh)
	return *(*T)(unsafe.Pointer(&h))
}

// Holds reports whether a cmp b: the comparison a scan makes of one element, for the
// one-variable forms of the wait/test family.
func Holds[T ScanElem](a T, cmp Cmp, b T) bool {
	switch cmp {
	case CmpEQ:
		return a == b
	case CmpNE:
		return a != b
	case CmpGT:
		return a > b
	case CmpGE:
		return a >= b
	case CmpLT:
		return a < b
	}
	return a <= b
}

var bigEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 0 }()

// scanViews turns a reference scan's arguments into slices and the broadcast value: the
// generated references (refScanEQI16, ...) are each a loop over them with the comparison
// inline.
func scanViews[T scanInt](p *byte, v uint64, vals *byte, st *int32, idx *int, n, max int) (xs, ws []T, w T, sp unsafe.Pointer, out []int) {
	xs = unsafe.Slice((*T)(unsafe.Pointer(p)), n)
	if vals != nil {
		ws = unsafe.Slice((*T)(unsafe.Pointer(vals)), n)
	}
	if idx != nil {
		out = unsafe.Slice(idx, max)
	}
	return xs, ws, T(v), unsafe.Pointer(st), out
}
