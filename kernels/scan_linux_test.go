//go:build linux

package kernels

import (
	"syscall"
	"testing"
	"unsafe"
)

// guardedPage returns a page of memory followed by an inaccessible page.
func guardedPage(t *testing.T) (mem []byte, release func()) {
	ps := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, 2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(m[ps:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return m[:ps], func() { syscall.Munmap(m) }
}

// The scans read through a page that ends right after the data: a kernel reading past the
// last element, status or value faults.
func TestScanGuardPage(t *testing.T) {
	testScanGuardPage[int16](t)
	testScanGuardPage[uint32](t)
	testScanGuardPage[int64](t)
}

func testScanGuardPage[T ScanElem](t *testing.T) {
	var z T
	size := int(unsafe.Sizeof(z))
	mem, release := guardedPage(t)
	defer release()
	for _, path := range Paths() {
		defer Use(path)()
		for n := 1; n <= 70; n++ {
			// ivars, then values, then status, each in its own page-end slot of mem.
			iv := unsafe.Slice((*T)(unsafe.Pointer(&mem[len(mem)-n*size])), n)
			for i := range iv {
				iv[i] = T(i)
			}
			st := make([]int32, n)
			want := naiveScan(iv, st, CmpGE, 0, nil)
			idx := make([]int, n)
			if c := ScanSome(iv, st, CmpGE, 0, nil, idx); c != len(want) {
				t.Fatalf("%v %T n=%d: ScanSome = %d, want %d", path, z, n, c, len(want))
			}
			if f := ScanFirst(iv, nil, CmpGE, 0, iv); f != 0 {
				t.Fatalf("%v %T n=%d: ScanFirst = %d, want 0", path, z, n, f)
			}
			sm := unsafe.Slice((*int32)(unsafe.Pointer(&mem[len(mem)-n*4])), n)
			clear(sm)
			ivars := make([]T, n)
			if c := ScanSome(ivars, sm, CmpEQ, 0, nil, idx); c != n {
				t.Fatalf("%v %T n=%d: ScanSome with status at the page's end = %d, want %d", path, z, n, c, n)
			}
		}
	}
}
