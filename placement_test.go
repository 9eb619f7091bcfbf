package shmem_test

import (
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
	"github.com/goshmem/shmem/runtime/numa"
)

// With shmemrun's default placement each PE starts pinned to its own core, GOMAXPROCS
// follows the mask, and its heap pages are on its NUMA node (node 0 on this machine).
func TestPinningAndNUMA(t *testing.T) {
	if !shmemtest.InPE(t) && runtime.NumCPU() < 2 { // a pinned PE sees one CPU
		t.Skip("needs 2 CPUs")
	}
	if shmemtest.MultiNode() {
		t.Skip("shmemrun's pinning: a PMIx launcher binds PEs itself (--bind-to)")
	}
	if !shmemtest.Run(t, 2, shmemtest.Options{Bind: true, Spin: true}) {
		return
	}
	me, _ := initPE(t)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	if set.Count() != 1 || !set.IsSet(me) {
		t.Fatalf("PE %d runs on %d CPUs (CPU %d in the set: %v); want exactly CPU %d", me, set.Count(), me, set.IsSet(me), me)
	}
	if g := runtime.GOMAXPROCS(0); g != 1 {
		t.Fatalf("GOMAXPROCS %d, want 1 for a one-CPU mask", g)
	}
	buf := mustAlloc[byte](t, 3<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	var addrs []uintptr
	for i := 0; i < len(buf); i += 512 << 10 {
		addrs = append(addrs, uintptr(unsafe.Pointer(&buf[i])))
	}
	nodes, err := numa.NodesOfPages(addrs)
	if err != nil {
		t.Skipf("no page-node query here: %v", err)
	}
	for i, n := range nodes {
		if n != 0 {
			t.Fatalf("heap page %d of PE %d is on node %d, want 0", i, me, n)
		}
	}
	shmem.BarrierAll()
}
