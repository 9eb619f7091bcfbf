package numa

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem/topology"
)

// memfdRegion maps a fresh memfd of pages pages, shared, as the heap maps its object.
func memfdRegion(t *testing.T, pages int) []byte {
	t.Helper()
	fd, err := unix.MemfdCreate("numa-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	size := pages * os.Getpagesize()
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	return mem
}

// needNUMA skips when the kernel (or qemu-user, which implements neither call)
// has no memory policy.
func needNUMA(t *testing.T) {
	t.Helper()
	if _, err := NodesOfPages([]uintptr{uintptr(unsafe.Pointer(&t))}); errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("no NUMA system calls here: %v", err)
	}
}

func pageAddrs(mem []byte) []uintptr {
	page := os.Getpagesize()
	out := make([]uintptr, len(mem)/page)
	for i := range out {
		out[i] = uintptr(unsafe.Pointer(&mem[i*page]))
	}
	return out
}

func touch(mem []byte) {
	for i := 0; i < len(mem); i += os.Getpagesize() {
		mem[i] = 1
	}
}

func base(mem []byte) uintptr { return uintptr(unsafe.Pointer(&mem[0])) }

func TestBindBeforeTouchPlacesEveryPage(t *testing.T) {
	needNUMA(t)
	mem := memfdRegion(t, 64)
	if err := Mbind(base(mem), uintptr(len(mem)), MPOL_BIND, []int{0}, MPOL_MF_STRICT); err != nil {
		t.Fatal(err)
	}
	before, err := NodesOfPages(pageAddrs(mem))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range before {
		if n >= 0 {
			t.Fatalf("page %d is on node %d before any touch", i, n)
		}
	}
	touch(mem)
	nodes, err := NodesOfPages(pageAddrs(mem))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if n != 0 {
			t.Errorf("page %d: node %d, want 0", i, n)
		}
	}
}

func TestInterleaveOverTheMachinesNodes(t *testing.T) {
	needNUMA(t)
	top, err := topology.Read("")
	if err != nil {
		t.Fatal(err)
	}
	job, err := topology.Place(top, 2, topology.Options{Oversubscribe: true, BindTo: topology.UnitCore})
	if err != nil {
		t.Fatal(err)
	}
	policy := topology.ControlBlockPolicy(top, job)
	mem := memfdRegion(t, 32)
	if err := Mbind(base(mem), uintptr(len(mem)), MPOL_BIND, []int{1000}, 0); err == nil {
		t.Error("Mbind to node 1000, which no machine here has, succeeded")
	}
	if err := Apply(base(mem), uintptr(len(mem)), policy); err != nil {
		t.Fatal(err)
	}
	touch(mem)
	nodes, err := NodesOfPages(pageAddrs(mem))
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for _, n := range nodes {
		count[n]++
	}
	for _, n := range policy.Nodes {
		// Interleaving puts pages on every node of the policy, none elsewhere.
		if count[n] == 0 {
			t.Errorf("%s: no page on node %d (%v)", policy, n, count)
		}
		delete(count, n)
	}
	if len(count) > 0 {
		t.Errorf("%s: pages outside the policy's nodes: %v", policy, count)
	}
}

func TestErrorsNameTheCall(t *testing.T) {
	needNUMA(t)
	mem := memfdRegion(t, 1)
	err := Mbind(base(mem)+1, 10, MPOL_BIND, []int{0}, 0) // not page-aligned
	if err == nil || !strings.Contains(err.Error(), "numa.Mbind") {
		t.Errorf("misaligned Mbind: %v, want an error naming numa.Mbind", err)
	}
	if err := Mbind(base(mem), uintptr(len(mem)), MPOL_BIND, []int{-1}, 0); err == nil {
		t.Error("Mbind to node -1 succeeded")
	}
	if err := Mbind(base(mem), uintptr(len(mem)), MPOL_BIND, []int{1000}, 0); err == nil {
		t.Error("Mbind to node 1000, which no machine here has, succeeded")
	}
	if err := Apply(base(mem), uintptr(len(mem)), topology.MemPolicy{}); err == nil || !strings.Contains(err.Error(), "numa.Apply") {
		t.Errorf("Apply of the zero policy: %v", err)
	}
	nodes, err := NodesOfPages([]uintptr{8 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if nodes[0] != -int(unix.EFAULT) && nodes[0] != -int(unix.ENOENT) {
		t.Errorf("unmapped address: status %d, want -EFAULT or -ENOENT", nodes[0])
	}
}

func TestNodeMask(t *testing.T) {
	mask, err := nodeMask("test", []int{0, 3, 64, 65})
	if err != nil {
		t.Fatal(err)
	}
	if len(mask) != 2 || mask[0] != 1|1<<3 || mask[1] != 3 {
		t.Errorf("nodeMask = %#x", mask)
	}
}
