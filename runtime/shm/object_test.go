package shm

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func testObject(t *testing.T, npes int) *Object {
	t.Helper()
	l, err := NewLayout(npes, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Create(l, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// A control block with the right magic but a geometry NewLayout would not make is refused,
// instead of becoming a mapping whose slots and segments lie outside it (issue 13.9).
func TestOpenRejectsImpossibleGeometry(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(h *Header)
	}{
		{"npes", func(h *Header) { h.NPEs = 1000 }},
		{"zero PEs", func(h *Header) { h.NPEs = 0 }},
		{"segment size", func(h *Header) { h.SegSize = 1 << 40 }},
		{"segment offset", func(h *Header) { h.SegOffset = h.TotalSize - 4096 }},
		{"heap size", func(h *Header) { h.HeapSize = 1 << 62 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := testObject(t, 2)
			c.break_(o.Header())
			if _, err := Open(o.Fd, 0); err == nil || !strings.Contains(err.Error(), "impossible geometry") {
				t.Fatalf("Open accepted a control block with a broken %s: %v", c.name, err)
			}
		})
	}
	o := testObject(t, 2)
	if _, err := Open(o.Fd, 2); err == nil || !strings.Contains(err.Error(), "PE 2 out of range [0,2)") {
		t.Fatalf("Open for PE 2 of 2: %v", err)
	}
}

// Every PE's mapping puts its own heap at an address aligned to the heap's size rounded up
// to a power of two, so Align can align addresses (issue 13.5).
func TestHeapAligned(t *testing.T) {
	o := testObject(t, 3)
	a := o.Layout.HeapAlign()
	if a < 4<<20 {
		t.Fatalf("HeapAlign %d for a 4 MiB heap", a)
	}
	for pe := range 3 {
		p, err := Open(o.Fd, pe)
		if err != nil {
			t.Fatal(err)
		}
		if h := p.Heap(pe); h%a != 0 {
			t.Errorf("PE %d's heap at %#x is not %d-aligned", pe, h, a)
		}
		p.Mem[len(p.Mem)-1] = 1 // the whole object is mapped
		if o.Mem[len(o.Mem)-1] != 1 {
			t.Fatal("the two mappings do not share memory")
		}
		p.Mem[len(p.Mem)-1] = 0
		unix.MunmapPtr(unsafe.Pointer(&p.Mem[0]), uintptr(len(p.Mem))) // not Close: the descriptor is o's
	}
}

// A child forked by a PE does not inherit the job's mapping (issue 13.3).
func TestMappingNotInheritedByFork(t *testing.T) {
	o := testObject(t, 2)
	o.Mem[0] = 1
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil || !strings.Contains(string(maps), "memfd:goshmem") {
		t.Fatalf("the mapping is not in this process's maps (%v)", err)
	}
	pid := forkPaused(t)
	defer func() {
		unix.Kill(pid, unix.SIGKILL)
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
	}()
	maps, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(maps), "memfd:goshmem") {
		t.Fatalf("the forked child maps the job's object:\n%s", maps)
	}
}

// forkPaused forks this process with a raw clone; the child only waits for a signal.
func forkPaused(t *testing.T) int {
	t.Helper()
	pid, _, errno := unix.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if errno != 0 {
		t.Fatalf("clone: %v", errno)
	}
	if pid == 0 {
		for {
			unix.RawSyscall6(unix.SYS_PPOLL, 0, 0, 0, 0, 0, 0)
		}
	}
	return int(pid)
}

// The static data's room is added to the heap asked for, and a sum that overflows is refused.
func TestHeapWithStatic(t *testing.T) {
	if h, err := HeapWithStatic(256<<20, 64<<20); err != nil || h != 320<<20 {
		t.Errorf("256 MiB + 64 MiB: %d, %v", h, err)
	}
	if _, err := HeapWithStatic(^uint64(0)-10, 4096); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("an overflowing sum: %v", err)
	}
}
