package shmem_test

import (
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// Bad input panics with a message naming the routine and the argument, before touching
// memory. Each case runs in one PE process and recovers the panic.
func TestBadInput(t *testing.T) {
	if !shmemtest.Run(t, 2, shmemtest.Options{Env: []string{"SHMEM_SYMMETRIC_SIZE=2M"}}) {
		return
	}
	me, n := initPE(t)
	buf := mustAlloc[int64](t, 8)
	flags := mustAlloc[int32](t, 4)
	local := make([]int64, 8)
	idx := make([]int, 4)
	peer := (me + 1) % n

	wantPanic(t, "shmem.Put: PE 9 out of range [0,2)", func() { shmem.Put(buf, local, 9) })
	wantPanic(t, "shmem.Get: PE -1 out of range [0,2)", func() { shmem.Get(local, buf, -1) })
	wantPanic(t, "shmem.P: PE 2 out of range", func() { shmem.P(&buf[0], 1, 2) })
	wantPanic(t, "shmem.AtomicFetchAdd: PE 5 out of range", func() { shmem.AtomicFetchAdd(&buf[0], 1, 5) })
	wantPanic(t, "shmem.Ptr: PE 3 out of range", func() { shmem.Ptr(&buf[0], 3) })
	wantPanic(t, "shmem.Put: dst is not symmetric memory", func() { shmem.Put(local, buf, peer) })
	wantPanic(t, "shmem.Get: src is not symmetric memory", func() { shmem.Get(buf, local, peer) })
	wantPanic(t, "shmem.AtomicAdd: dst is not symmetric memory", func() { shmem.AtomicAdd(&local[0], 1, peer) })
	wantPanic(t, "shmem.WaitUntil: ivar is not symmetric memory", func() { shmem.WaitUntil(&local[0], shmem.CmpEQ, 0) })
	wantPanic(t, "shmem.Put: dst has 8 elements, src 9", func() { shmem.Put(buf, make([]int64, 9), peer) })
	wantPanic(t, "runs past the end of the symmetric heap", func() {
		end := unsafe.Slice(&buf[0], 1<<40)        // a slice forged past the heap's end
		shmem.Put(end, make([]int64, 1<<19), peer) // 4 MiB into a 2 MiB heap
	})
	wantPanic(t, "shmem.TestSome: invalid comparison 42", func() { shmem.TestSome(flags, idx, nil, 42, 0) })
	wantPanic(t, "shmem.WaitUntil: invalid comparison -1", func() { shmem.WaitUntil(&flags[0], -1, 0) })
	wantPanic(t, "shmem.SignalWaitUntil: invalid comparison 6", func() { shmem.SignalWaitUntil((*uint64)(unsafe.Pointer(&buf[0])), 6, 0) })
	wantPanic(t, "shmem.TestSome: indices has 3 elements, ivars 4", func() { shmem.TestSome(flags, idx[:3], nil, shmem.CmpEQ, 0) })
	wantPanic(t, "shmem.WaitUntilSome: indices has 0 elements, ivars 4", func() { shmem.WaitUntilSome(flags, nil, nil, shmem.CmpEQ, 0) })
	wantPanic(t, "shmem.TestAll: status has 2 elements, ivars 4", func() { shmem.TestAll(flags, []int32{0, 0}, shmem.CmpEQ, 0) })
	wantPanic(t, "shmem.TestAnyVector: values has 1 elements, ivars 4", func() { shmem.TestAnyVector(flags, nil, shmem.CmpEQ, []int32{0}) })
	wantPanic(t, "shmem.IPut: dst stride 0 must be at least 1", func() { shmem.IPut(buf, local, 0, 1, 2, peer) })
	wantPanic(t, "shmem.IGet: src stride -2 must be at least 1", func() { shmem.IGet(local, buf, 1, -2, 2, peer) })
	wantPanic(t, "shmem.IPut: negative element count -1", func() { shmem.IPut(buf, local, 1, 1, -1, peer) })
	wantPanic(t, "shmem.IPut: dst has 8 elements, 5 at stride 2 need 9", func() { shmem.IPut(buf, local, 2, 1, 5, peer) })
	wantPanic(t, "shmem.AtomicInc: target", func() {
		shmem.AtomicInc((*int64)(unsafe.Add(unsafe.Pointer(&buf[0]), 4)), peer) // 4-byte aligned int64
	})
	wantPanic(t, "shmem.AtomicFetch: nil pointer", func() { shmem.AtomicFetch[int64](nil, peer) })
	wantPanic(t, "shmem.PutSignal: invalid signal operation 7", func() { shmem.PutSignal(buf, local, (*uint64)(unsafe.Pointer(&buf[1])), 1, 7, peer) })
	wantPanic(t, "shmem.Barrier: active set size 0 must be at least 1", func() { shmem.Barrier(shmem.ActiveSet{Start: 0, Size: 0}, buf) })
	wantPanic(t, "shmem.Barrier: active set (start 1, log stride 1, size 2) reaches PE 3", func() { shmem.Barrier(shmem.ActiveSet{Start: 1, LogStride: 1, Size: 2}, buf) })
	wantPanic(t, "shmem.Barrier: pSync has 8 elements, needs 256", func() { shmem.Barrier(shmem.ActiveSet{Start: 0, Size: 2}, buf) })
	wantPanic(t, "is not in the active set", func() { shmem.Barrier(shmem.ActiveSet{Start: peer, Size: 1}, buf) })
	wantPanic(t, "shmem.Barrier: pSync is not symmetric memory", func() { shmem.Barrier(shmem.ActiveSet{Start: 0, Size: 2}, make([]int64, shmem.BarrierSyncSize)) })
	shmem.BarrierAll()
}

// Routines called before Init or after Finalize panic saying so.
func TestBeforeInit(t *testing.T) {
	if shmemtest.InPE(t) {
		return
	}
	// The test process itself never calls Init.
	wantPanic(t, "shmem.Put: called before shmem.Init", func() { shmem.Put(make([]int, 1), make([]int, 1), 0) })
	wantPanic(t, "shmem.MyPE: called before shmem.Init", func() { shmem.MyPE() })
	wantPanic(t, "shmem.BarrierAll: called before shmem.Init", func() { shmem.BarrierAll() })
	wantPanic(t, "shmem.Malloc: called before shmem.Init", func() { shmem.Malloc[int](1) })
	wantPanic(t, "shmem.TestSome: called before shmem.Init", func() { shmem.TestSome(make([]int32, 1), make([]int, 1), nil, shmem.CmpEQ, 0) })
}

func TestAfterFinalize(t *testing.T) {
	if !shmemtest.Run(t, 2) {
		return
	}
	if err := shmem.Init(); err != nil {
		t.Fatal(err)
	}
	buf, _ := shmem.Malloc[int](4)
	shmem.Finalize()
	shmem.Finalize() // a second call is harmless
	wantPanic(t, "shmem.Put: called after shmem.Finalize", func() { shmem.Put(buf, buf, 0) })
	wantPanic(t, "shmem.AtomicInc: called after shmem.Finalize", func() { shmem.AtomicInc(&buf[0], 0) })
	if err := shmem.Init(); err == nil {
		t.Fatal("Init after Finalize succeeded")
	}
}
