package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// interesting gives the values the scans are tested with: the extremes, the sign boundary
// and their neighbours, so that signed and unsigned orders disagree on some pairs.
func interesting[T ScanElem]() []T {
	var z T
	bits := int(unsafe.Sizeof(z)) * 8
	var vs []T
	for _, u := range []uint64{0, 1, 2, 3, 1<<(bits-1) - 1, 1 << (bits - 1), 1<<(bits-1) + 1, 1<<bits - 1, 1<<bits - 2, 5, 1<<(bits-2) + 7} {
		vs = append(vs, T(u&(1<<bits-1)))
	}
	return vs
}

// naiveScan is the tests' oracle: every qualifying index, in order.
func naiveScan[T ScanElem](ivars []T, status []int32, cmp Cmp, v T, values []T) []int {
	var out []int
	for i, x := range ivars {
		if status != nil && status[i] != 0 {
			continue
		}
		w := v
		if values != nil {
			w = values[i]
		}
		var ok bool
		switch cmp {
		case CmpEQ:
			ok = x == w
		case CmpNE:
			ok = x != w
		case CmpGT:
			ok = x > w
		case CmpGE:
			ok = x >= w
		case CmpLT:
			ok = x < w
		case CmpLE:
			ok = x <= w
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

const scanGuard = -7 // indices beyond what a scan may write keep this

// testScan checks ScanSome and ScanFirst against the oracle on every path, for every
// comparison, lengths 0..140 and a few long ones, element offsets within a 64-byte line,
// random elements and elements all equal to the value but one, five status patterns,
// broadcast and per-element values, and limits on the indices.
func testScan[T ScanElem](t *testing.T) {
	var z T
	size := int(unsafe.Sizeof(z))
	vals := interesting[T]()
	lengths := []int{}
	for n := 0; n <= 140; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 255, 256, 257, 511, 1023, 1024, 1025)
	for _, path := range Paths() {
		t.Run(path.String(), func(t *testing.T) {
			defer Use(path)()
			rng := rand.New(rand.NewPCG(uint64(size), uint64(path)))
			backing := make([]T, 1100+64/size)
			values := make([]T, len(backing))
			status := make([]int32, len(backing))
			indices := make([]int, len(backing)+2)
			for _, n := range lengths {
				for off := 0; off < 64/size; off += max(1, 8/size) {
					if off+n > len(backing) {
						continue
					}
					for cmp := range numCmps {
						iv := backing[off : off+n]
						vs := values[off : off+n]
						ss := status[off : off+n]
						v := vals[rng.IntN(len(vals))]
						for i := range iv {
							iv[i] = vals[rng.IntN(len(vals))]
							vs[i] = vals[rng.IntN(len(vals))]
						}
						if (n+off+int(cmp))%3 == 0 {
							// Every element equal to its value, but for at most one: whole
							// groups where no lane (or every lane) compares true, which
							// random elements rarely give.
							for i := range iv {
								iv[i], vs[i] = v, v
							}
							if n > 0 && rng.IntN(2) == 0 {
								iv[rng.IntN(n)] = vals[rng.IntN(len(vals))]
							}
						}
						var st []int32
						switch (n + off + int(cmp)) % 5 {
						case 0: // no status array
						case 1: // all included
							st = ss
							clear(st)
						case 2: // all excluded
							st = ss
							for i := range st {
								st[i] = 1
							}
						case 3: // random, with nonzero values of every kind
							st = ss
							for i := range st {
								st[i] = []int32{0, 0, 1, -1, -1 << 31, 256}[rng.IntN(6)]
							}
						case 4: // alternating
							st = ss
							for i := range st {
								st[i] = int32(i & 1)
							}
						}
						for _, vector := range []bool{false, true} {
							var wv []T
							if vector {
								wv = vs
							}
							want := naiveScan(iv, st, cmp, v, wv)
							what := func() string {
								return fmt.Sprintf("%v %T n=%d off=%d %v v=%v vector=%v status=%v", path, z, n, off, cmp, v, vector, st != nil)
							}
							// All of them.
							for i := range indices {
								indices[i] = scanGuard
							}
							c := ScanSome(iv, st, cmp, v, wv, indices[:n])
							if !slices.Equal(indices[:c], want) {
								t.Fatalf("%s: ScanSome = %v, want %v\nivars %v\nvalues %v", what(), indices[:c], want, iv, wv)
							}
							if indices[n] != scanGuard || (c < n && indices[c] != scanGuard) {
								t.Fatalf("%s: ScanSome wrote past its count %d", what(), c)
							}
							// Limited to fewer indices than qualify.
							if len(want) > 1 {
								lim := 1 + rng.IntN(len(want)-1)
								for i := range indices {
									indices[i] = scanGuard
								}
								c := ScanSome(iv, st, cmp, v, wv, indices[:lim])
								if c != lim || !slices.Equal(indices[:c], want[:lim]) || indices[lim] != scanGuard {
									t.Fatalf("%s: ScanSome limited to %d = %v (guard %d), want %v", what(), lim, indices[:c], indices[lim], want[:lim])
								}
							}
							// The first.
							first := -1
							if len(want) > 0 {
								first = want[0]
							}
							if got := ScanFirst(iv, st, cmp, v, wv); got != first {
								t.Fatalf("%s: ScanFirst = %d, want %d", what(), got, first)
							}
						}
					}
				}
			}
		})
	}
}

// The word-sized types scan as the integers of their size.
func TestScanInt(t *testing.T)     { testScan[int](t) }
func TestScanUint(t *testing.T)    { testScan[uint](t) }
func TestScanUintptr(t *testing.T) { testScan[uintptr](t) }

func TestScanClass(t *testing.T) {
	for _, c := range []struct {
		got, want int
	}{
		{scanClass[int16](), sI16}, {scanClass[uint16](), sU16},
		{scanClass[int32](), sI32}, {scanClass[uint32](), sU32},
		{scanClass[int64](), sI64}, {scanClass[uint64](), sU64},
	} {
		if c.got != c.want {
			t.Errorf("scanClass = %d, want %d", c.got, c.want)
		}
	}
	if unsafe.Sizeof(int(0)) == 8 && (scanClass[int]() != sI64 || scanClass[uint]() != sU64 || scanClass[uintptr]() != sU64) {
		t.Errorf("word types: classes %d %d %d", scanClass[int](), scanClass[uint](), scanClass[uintptr]())
	}
}

func TestCmpNegate(t *testing.T) {
	vs := interesting[int32]()
	for c := range numCmps {
		for _, a := range vs {
			for _, b := range vs {
				if Holds(a, c.Negate(), b) == Holds(a, c, b) {
					t.Fatalf("%v.Negate() = %v: both or neither hold for %d, %d", c, c.Negate(), a, b)
				}
			}
		}
	}
}

func TestScanBadInput(t *testing.T) {
	for _, c := range []struct {
		want string
		f    func()
	}{
		{"kernels.ScanSome: invalid comparison 6", func() { ScanSome([]int32{1}, nil, 6, 0, nil, make([]int, 1)) }},
		{"kernels.ScanSome: len(status) = 1, want >= len(ivars) = 2", func() { ScanSome([]int32{1, 2}, []int32{0}, CmpEQ, 0, nil, make([]int, 2)) }},
		{"kernels.ScanFirst: len(values) = 0, want >= len(ivars) = 2", func() { ScanFirst([]int64{1, 2}, nil, CmpEQ, 0, []int64{}) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("panic %v, want %q", r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// BenchmarkScan: ScanSome over 1024 elements none of which qualify, and ScanFirst over
// 1024 whose last one does, on each path.
func BenchmarkScan(b *testing.B) {
	ivars := make([]int64, 1024)
	idx := make([]int, 1024)
	for _, path := range Paths() {
		b.Run(path.String(), func(b *testing.B) {
			defer Use(path)()
			b.Run("Some1024", func(b *testing.B) {
				for b.Loop() {
					ScanSome(ivars, nil, CmpNE, 0, nil, idx)
				}
			})
			b.Run("Some1", func(b *testing.B) {
				for b.Loop() {
					ScanSome(ivars[:1], nil, CmpNE, 0, nil, idx)
				}
			})
			ivars[1023] = 1
			b.Run("First1024", func(b *testing.B) {
				for b.Loop() {
					ScanFirst(ivars, nil, CmpNE, 0, nil)
				}
			})
			ivars[1023] = 0
		})
	}
}
