package shmem_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// Counts and strides near the integer limits are errors naming the routine and the
// argument (issue 13.4): (n-1)*stride+1 and count × PEs used to wrap to small sizes that
// passed the bounds checks, and IPut wrote before its destination.
func TestOverflowingArguments(t *testing.T) {
	if !shmemtest.Run(t, 2) {
		return
	}
	initPE(t)
	a := mustAlloc[int64](t, 64)
	b := mustAlloc[int64](t, 64)
	guard := mustAlloc[int64](t, 64)
	local := make([]int64, 64)
	half := math.MaxInt/2 + 1 // (3-1)*half+1 wraps to 1
	wantPanic(t, "shmem.IPut: dst: 3 elements at stride 4611686018427387904 overflow", func() { shmem.IPut(b[1:], local, half, 1, 3, 1) })
	wantPanic(t, "shmem.IPut: src: 3 elements at stride 4611686018427387904 overflow", func() { shmem.IPut(b, local[1:], 1, half, 3, 1) })
	wantPanic(t, "shmem.IGet: dst: 3 elements at stride 4611686018427387904 overflow", func() { shmem.IGet(local[1:], a, half, 1, 3, 1) })
	wantPanic(t, "shmem.IGet: src: 3 elements at stride 4611686018427387904 overflow", func() { shmem.IGet(local, a[1:], 1, half, 3, 1) })
	wantPanic(t, "shmem.IPut: dst: 2 elements at stride 9223372036854775807 overflow", func() { shmem.IPut(b, local, math.MaxInt, 1, 2, 1) })
	wantPanic(t, "shmem.AllToAllS: elements of all PEs: 2 × 4611686018427387904 overflows", func() { shmem.AllToAll(shmem.TeamWorld(), b, a, 1<<62) })
	wantPanic(t, "shmem.AllToAllS: elements of all PEs: 2 × 9223372036854775807 overflows", func() { shmem.AllToAll(shmem.TeamWorld(), b, a, math.MaxInt) })
	wantPanic(t, "shmem.AllToAllS: dst: 4 elements at stride 4611686018427387904 overflow", func() { shmem.AllToAllS(shmem.TeamWorld(), b, a, half, 1, 2) })
	wantPanic(t, "shmem.AllToAllS64: src: 4 elements at stride 4611686018427387904 overflow", func() { shmem.AllToAllS64(b, a, 1, half, 2, shmem.ActiveSet{Size: 2}, nil) })
	for i, v := range guard {
		if v != 0 {
			t.Fatalf("guard[%d] = %d: a failed call wrote into the heap", i, v)
		}
	}
	// A size beyond the heap (beyond the address space in bytes, even) is the routine's
	// error on every PE, not a panic in unsafe.Slice.
	for _, n := range []int{math.MaxInt / 4, math.MaxInt / 8, 1 << 40} {
		if s, err := shmem.Malloc[int64](n); err == nil || s != nil || !strings.Contains(err.Error(), "shmem.Malloc: cannot allocate") {
			t.Fatalf("Malloc[int64](%d) = %d elements, %v", n, len(s), err)
		}
	}
	wantPanic(t, "shmem.Malloc: n: 4611686018427387904 elements of 8 bytes overflow", func() { shmem.Malloc[int64](math.MaxInt/2 + 1) })
	if s, err := shmem.Realloc(a, math.MaxInt/8); err == nil || !strings.Contains(err.Error(), "shmem.Realloc: cannot allocate") || &s[0] != &a[0] {
		t.Fatalf("Realloc to MaxInt/8 elements: %v", err)
	}
	c := mustAlloc[int64](t, 8) // the allocator is intact: c is after guard
	if addr(c) <= addr(guard) {
		t.Fatalf("the next allocation %#x is not after the live ones (%#x)", addr(c), addr(guard))
	}
}

// Align aligns addresses, alike on every PE, up to the heap's size rounded up to a power of
// two (issue 13.5: it aligned the heap offset, and the heap is only page aligned).
func TestAlignAddresses(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		table := mustAlloc[int64](t, 16)
		for k, align := range []uintptr{1 << 13, 1 << 16, 1 << 21, 1 << 22, 1 << 24} {
			pad := mustAlloc[byte](t, 100) // the next block does not start aligned by chance
			s, err := shmem.Align[byte](align, 10)
			if err != nil {
				t.Fatal(err)
			}
			if addr(s)%align != 0 {
				t.Fatalf("Align(%d) returned %#x", align, addr(s))
			}
			shmem.P(&table[k], int64(addr(s)-addr(table)), 0)
			shmem.BarrierAll()
			if me == 0 && table[k] != int64(addr(s)-addr(table)) {
				t.Fatalf("Align(%d): offset %d on PE 0, another PE wrote %d", align, addr(s)-addr(table), table[k])
			}
			shmem.BarrierAll()
			shmem.Free(s)
			shmem.Free(pad)
		}
		wantPanic(t, "shmem.Align: alignment 1099511627776 is larger than the symmetric heap's own alignment", func() { shmem.Align[byte](1<<40, 1) })
	}, 1, 3)
}
