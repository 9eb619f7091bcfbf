//go:build linux && cgo

package main

import (
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/kernels"
)

// The Go part of the entry points, called from Go in this process (a job of one PE): the
// thin ones allocate nothing.

func routine(t testing.TB, name string) int32 {
	for i, n := range routineNames {
		if n == name {
			return int32(i)
		}
	}
	t.Fatalf("no routine %s", name)
	return -1
}

var inProcess struct {
	heap  unsafe.Pointer // 4 KiB of symmetric heap, zeroed
	src   unsafe.Pointer // 64 bytes of local memory
	index []int
}

func initInProcess(t testing.TB) {
	if inProcess.heap != nil {
		return
	}
	goshmem_init(routine(t, "shmem_init"))
	inProcess.heap = goshmem_calloc(routine(t, "shmem_calloc"), 512, 8)
	inProcess.src = unsafe.Pointer(new([8]int64))
	inProcess.index = make([]int, 16)
}

// entryPoints are the thin entry points with arguments that make them return at once.
func entryPoints(t testing.TB) []struct {
	name string
	call func()
} {
	initInProcess(t)
	h, src, idx := inProcess.heap, inProcess.src, unsafe.Pointer(&inProcess.index[0])
	sig := unsafe.Add(h, 2048)
	dc := defaultCtx()
	var (
		put, get, iput, p        = routine(t, "shmem_putmem"), routine(t, "shmem_getmem"), routine(t, "shmem_long_iput"), routine(t, "shmem_long_p")
		fadd, cswap, fetch       = routine(t, "shmem_long_atomic_fetch_add"), routine(t, "shmem_int_atomic_compare_swap"), routine(t, "shmem_double_atomic_fetch")
		wait, test, some, all    = routine(t, "shmem_long_wait_until"), routine(t, "shmem_int_test"), routine(t, "shmem_long_test_some"), routine(t, "shmem_long_wait_until_all")
		putSig, sigFetch, quiet  = routine(t, "shmem_putmem_signal"), routine(t, "shmem_signal_fetch"), routine(t, "shmem_quiet")
		accessible, barrier, ptr = routine(t, "shmem_pe_accessible"), routine(t, "shmem_barrier_all"), routine(t, "shmem_ptr")
		teamMyPE, reduce         = routine(t, "shmem_team_my_pe"), routine(t, "shmem_long_sum_reduce")
	)
	return []struct {
		name string
		call func()
	}{
		{"shmem_putmem 8 B", func() { goshmem_put(put, dc, h, src, 8, 0) }},
		{"shmem_getmem 8 B", func() { goshmem_get(get, dc, src, h, 8, 0) }},
		{"shmem_long_iput", func() { goshmem_iput(iput, dc, h, src, 2, 1, 4, 8, 0) }},
		{"shmem_long_p", func() { goshmem_put(p, dc, h, src, 8, 0) }},
		{"shmem_long_atomic_fetch_add", func() { goshmem_amo64(fadd, dc, amoFetchAdd, h, 1, 0, 0) }},
		{"shmem_int_atomic_compare_swap", func() { goshmem_amo32(cswap, dc, amoCompareSwap, h, 1, 0, 0) }},
		{"shmem_double_atomic_fetch", func() { goshmem_amo64(fetch, dc, amoFetch, h, 0, 0, 0) }},
		{"shmem_long_wait_until", func() { goshmem_wait_until(wait, tiInt64, unsafe.Add(h, 64), int32(shmem.CmpEQ), 0) }},
		{"shmem_int_test", func() { goshmem_test(test, tiInt32, unsafe.Add(h, 64), int32(shmem.CmpNE), 0) }},
		{"shmem_long_test_some", func() {
			goshmem_some(some, tiInt64, 0, unsafe.Add(h, 64), 16, idx, nil, int32(shmem.CmpEQ), 0, nil, 0)
		}},
		{"shmem_long_wait_until_all", func() {
			goshmem_all(all, tiInt64, 1, unsafe.Add(h, 64), 16, nil, int32(shmem.CmpGE), 0, nil, 0)
		}},
		{"shmem_putmem_signal", func() { goshmem_put_signal(putSig, dc, h, src, 8, sig, 1, int32(shmem.SignalAdd), 0) }},
		{"shmem_signal_fetch", func() { goshmem_signal_fetch(sigFetch, sig) }},
		{"shmem_quiet", func() { goshmem_quiet(quiet, dc) }},
		{"shmem_pe_accessible", func() { goshmem_pe_accessible(accessible, 0) }},
		{"shmem_barrier_all", func() { goshmem_barrier_all(barrier) }},
		{"shmem_ptr", func() { goshmem_ptr(ptr, h, 0) }},
		{"shmem_team_my_pe", func() { goshmem_team_my_pe(teamMyPE, handleWorld) }},
		{"shmem_long_sum_reduce", func() {
			goshmem_reduce(reduce, int32(kernels.Sum), tiInt64, handleWorld, unsafe.Add(h, 1024), unsafe.Add(h, 64), 8)
		}},
	}
}

func TestEntryPointsDoNotAllocate(t *testing.T) {
	for _, e := range entryPoints(t) {
		if a := testing.AllocsPerRun(1000, e.call); a != 0 {
			t.Errorf("%s: %v allocations per call", e.name, a)
		}
	}
}

// BenchmarkGoPart times the Go part of each entry point (no cgo transition): the C
// benchmark's times minus these are the transition's cost.
func BenchmarkGoPart(b *testing.B) {
	for _, e := range entryPoints(b) {
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.call()
			}
		})
	}
}
