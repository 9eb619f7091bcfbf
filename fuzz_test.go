package shmem_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
)

// FuzzArgumentChecks calls one routine of every family with hostile integers (counts,
// strides, PEs, offsets, alignments, roots, active sets) in a one-PE job. Every call must
// either panic with a message that starts with the routine's name, or return an error that
// does, or complete without touching memory outside the arrays it was given: the guards
// around them are checked after every call. CI runs it for a few seconds (.ci/run); the
// seeds, near the integer limits, are in testdata/fuzz/FuzzArgumentChecks.
func FuzzArgumentChecks(f *testing.F) {
	f.Add(uint8(0), int64(3), int64(1<<62), int64(1), int64(0))
	f.Fuzz(func(t *testing.T, family uint8, a, b, c, d int64) {
		fz := fuzzInit(t)
		fz.reset()
		who, err := fz.call(family, int(a), int(b), int(c), int(d))
		if err != nil && !strings.HasPrefix(err.Error(), who+": ") {
			t.Fatalf("%s(%d, %d, %d, %d): error %q does not name the routine", who, a, b, c, d, err)
		}
		fz.checkGuards(t, who, a, b, c, d)
	})
}

// The arrays the fuzzed calls get: a symmetric and a local one, each a window between two
// guard zones that no call may write.
type fuzzState struct {
	heap, local []int64
	pSync       []int64
}

const (
	fuzzGuard  = 64
	fuzzWindow = 128
	fuzzMark   = int64(-0x5a5a5a5a5a5a5a5b)
)

var (
	fuzzOnce sync.Once
	fuzz     fuzzState
)

func fuzzInit(t *testing.T) *fuzzState {
	fuzzOnce.Do(func() {
		if err := shmem.Init(); err != nil {
			t.Fatal(err)
		}
		var err error
		if fuzz.heap, err = shmem.Calloc[int64](2*fuzzGuard + fuzzWindow); err != nil {
			t.Fatal(err)
		}
		if fuzz.pSync, err = shmem.Calloc[int64](shmem.SyncSize); err != nil {
			t.Fatal(err)
		}
		fuzz.local = make([]int64, 2*fuzzGuard+fuzzWindow)
	})
	return &fuzz
}

func (fz *fuzzState) reset() {
	for _, s := range [][]int64{fz.heap, fz.local} {
		for i := range s {
			s[i] = fuzzMark
		}
		for i := fuzzGuard; i < fuzzGuard+fuzzWindow; i++ {
			s[i] = int64(i)
		}
	}
	clear(fz.pSync)
}

func (fz *fuzzState) checkGuards(t *testing.T, who string, a, b, c, d int64) {
	for name, s := range map[string][]int64{"symmetric": fz.heap, "local": fz.local} {
		for i, v := range s {
			if (i < fuzzGuard || i >= fuzzGuard+fuzzWindow) && v != fuzzMark {
				t.Fatalf("%s(%d, %d, %d, %d) wrote %s guard element %d", who, a, b, c, d, name, i)
			}
		}
	}
}

// window is a slice of the window from offset off (clamped into it) of length n (clamped
// to the window's end: slices are Go's, their lengths are never hostile).
func window(s []int64, off, n int) []int64 {
	w := s[fuzzGuard : fuzzGuard+fuzzWindow]
	off = int(uint(off) % uint(len(w)+1))
	n = int(uint(n) % uint(len(w)-off+1))
	return w[off : off+n]
}

// call runs family's routine and returns its name and error; a panic becomes the error
// after its message is checked to name the routine.
func (fz *fuzzState) call(family uint8, a, b, c, d int) (who string, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			if !strings.HasPrefix(msg, who+": ") {
				panic(fmt.Sprintf("%s(%d, %d, %d, %d): panic %q does not name the routine", who, a, b, c, d, msg))
			}
		}
	}()
	world := shmem.TeamWorld()
	h, l := fz.heap, fz.local
	switch family % 16 {
	case 0:
		who = "shmem.IPut"
		shmem.IPut(window(h, d, fuzzWindow), window(l, 0, fuzzWindow), a, b, c, d%3)
	case 1:
		who = "shmem.IGet"
		shmem.IGet(window(l, d, fuzzWindow), window(h, 0, fuzzWindow), a, b, c, d%3)
	case 2:
		who = "shmem.Put"
		shmem.Put(window(h, a, b), window(l, 0, c), d)
	case 3:
		who = "shmem.Get"
		shmem.Get(window(l, a, b), window(h, 0, c), d)
	case 4:
		who = "shmem.AllToAllS"
		err = shmem.AllToAllS(world, window(h, 0, fuzzWindow/2), window(h, fuzzWindow/2, fuzzWindow/2), a, b, c)
	case 5:
		who = "shmem.AllToAllS64"
		shmem.AllToAllS64(window(h, 0, fuzzWindow/2), window(h, fuzzWindow/2, fuzzWindow/2), a, b, c, shmem.ActiveSet{Start: d, LogStride: 0, Size: 1}, fz.pSync)
	case 6:
		who = "shmem.Broadcast64"
		shmem.Broadcast64(window(h, 0, fuzzWindow/2), window(h, fuzzWindow/2, fuzzWindow/2), a, b, shmem.ActiveSet{Start: c, LogStride: d, Size: 1}, fz.pSync)
	case 7:
		who = "shmem.FCollect"
		err = shmem.FCollect(world, window(h, a, b), window(h, c, d))
	case 8:
		who = "shmem.SumReduce"
		err = shmem.SumReduce(world, window(h, a, b), window(h, c, d))
	case 9:
		who = "shmem.AtomicFetchAdd"
		p := (*int64)(unsafe.Add(unsafe.Pointer(&window(h, 0, fuzzWindow)[0]), uint(a)%uint(8*(fuzzWindow-1))))
		shmem.AtomicFetchAdd(p, int64(b), c)
	case 10:
		who = "shmem.P"
		shmem.P(&h[fuzzGuard+int(uint(a)%fuzzWindow)], int64(b), c)
	case 11:
		who = "shmem.Malloc"
		var s []int64
		if s, err = shmem.Malloc[int64](a); err == nil {
			fz.checkNoOverlap(who, s)
			shmem.Free(s)
		}
	case 12:
		who = "shmem.Align"
		var s []byte
		if s, err = shmem.Align[byte](uintptr(a), b); err == nil {
			if len(s) > 0 && uintptr(unsafe.Pointer(&s[0]))%uintptr(max(a, 1)) != 0 {
				panic(fmt.Sprintf("shmem.Align(%d, %d) returned an unaligned block", a, b))
			}
			shmem.Free(s)
		}
	case 13:
		who = "shmem.Realloc"
		s, _ := shmem.Malloc[int64](1)
		var q []int64
		if q, err = shmem.Realloc(s, a); err == nil {
			fz.checkNoOverlap(who, q)
			s = q
		}
		shmem.Free(s)
	case 14:
		who = "shmem.TestSome"
		ivars := window(h, 0, 16)
		idx := make([]int, 4)
		for i := range idx {
			idx[i] = []int{a, b, c, d}[i]
		}
		shmem.TestSome(ivars, idx, nil, shmem.Cmp(a), int64(b))
	case 15:
		who = "shmem.Team.SplitStrided"
		var nt shmem.Team
		if nt, err = world.SplitStrided(a, b, c, nil); err == nil && nt.Valid() {
			nt.Destroy()
		}
	}
	return who, err
}

// checkNoOverlap panics when a new allocation overlaps the live arrays.
func (fz *fuzzState) checkNoOverlap(who string, s []int64) {
	if len(s) == 0 {
		return
	}
	lo, hi := uintptr(unsafe.Pointer(&s[0])), uintptr(unsafe.Pointer(&s[0]))+uintptr(len(s))*8
	for _, live := range [][]int64{fz.heap, fz.pSync} {
		llo := uintptr(unsafe.Pointer(&live[0]))
		if lo < llo+uintptr(len(live))*8 && llo < hi {
			panic(fmt.Sprintf("%s returned [%#x, %#x), overlapping a live allocation at %#x", who, lo, hi, llo))
		}
	}
}
