package rt

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/goshmem/shmem/runtime/shm"
)

// FuzzStridedBytes compares the checked size arithmetic with exact big-integer arithmetic:
// a result is returned exactly when it fits, and a panic names the routine and argument.
func FuzzStridedBytes(f *testing.F) {
	for _, s := range [][3]int64{{3, math.MaxInt64/2 + 1, 8}, {2, math.MaxInt64, 1}, {1 << 61, 4, 2}, {0, 0, 8}, {-1, 1, 1}, {5, 1, 1 << 62}} {
		f.Add(s[0], s[1], uint64(s[2]))
	}
	f.Fuzz(func(t *testing.T, n, stride int64, size uint64) {
		if n < 0 || stride < 1 {
			return // CheckStrided's domain
		}
		want := new(big.Int)
		if n > 0 {
			want.SetInt64(n - 1)
			want.Mul(want, big.NewInt(stride))
			want.Add(want, big.NewInt(1))
		}
		elemsFit := want.Cmp(big.NewInt(math.MaxInt)) <= 0
		elemsFitUintptr := want.Cmp(new(big.Int).SetUint64(math.MaxUint64)) <= 0
		want.Mul(want, new(big.Int).SetUint64(size))
		bytesFit := elemsFitUintptr && want.Cmp(new(big.Int).SetUint64(math.MaxUint64)) <= 0
		fits := elemsFit && bytesFit
		got, msg := func() (b uintptr, msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = fmt.Sprint(r)
				}
			}()
			return StridedBytes("shmem.IPut", "dst", int(n), int(stride), uintptr(size)), ""
		}()
		switch {
		case fits && (msg != "" || uint64(got) != want.Uint64()):
			t.Fatalf("StridedBytes(%d, %d, %d) = %d, %q; want %v", n, stride, size, got, msg, want)
		case !fits && msg == "":
			t.Fatalf("StridedBytes(%d, %d, %d) = %d; want an overflow panic (exact %v)", n, stride, size, got, want)
		case !fits && msg[:len("shmem.IPut: dst: ")] != "shmem.IPut: dst: ":
			t.Fatalf("panic %q does not name the routine and argument", msg)
		}
		if span := StridedSpan(int(n), int(stride), uintptr(size)); bytesFit && uint64(span) != want.Uint64() || !bytesFit && span != ^uintptr(0) {
			t.Fatalf("StridedSpan(%d, %d, %d) = %d, want %v (saturating)", n, stride, size, span, want)
		}
	})
}

// Group bounds do not wrap: a group whose last member overflows an int reaches past every PE.
func TestInRange(t *testing.T) {
	for _, c := range []struct {
		start, stride, size, n int
		want                   bool
	}{
		{0, 1, 4, 4, true}, {0, 1, 5, 4, false}, {1, 2, 2, 4, true}, {1, 2, 3, 4, false},
		{0, math.MaxInt, 2, 4, false}, {0, 1 << 30, math.MaxInt, 4, false}, {3, 1 << 62, 3, 4, false}, {0, 5, 1, 1, true},
	} {
		if got := inRange(c.start, c.stride, c.size, c.n); got != c.want {
			t.Errorf("inRange(%d, %d, %d, %d) = %v", c.start, c.stride, c.size, c.n, got)
		}
	}
}

// A record no PE has written reads as such, not as "in  over PEs ," (issue 13.7).
func TestRecordStringEmpty(t *testing.T) {
	var r shm.DebugRecord
	if s := RecordString(&r); s != "no collective yet" {
		t.Fatalf("RecordString of an empty record = %q", s)
	}
	copy(r.Routine[:], "shmem.Barrier")
	r.Start, r.Stride, r.Size = 1, 2, 3
	if s := RecordString(&r); s != "shmem.Barrier over PEs 1,3,5" {
		t.Fatalf("RecordString = %q", s)
	}
}
