package kernels

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestCopy checks Copy on every path, and the REP MOVSB kernel's wrapper itself (amd64; it
// runs at every length, where Copy hands it 32 KiB or more only), against copy(): lengths
// 0..maxLen and larger ones (around copyERMSMin, 64 KiB, 1 MiB + odd), every byte offset
// 0..63 of dst and src (sampled per length, a full grid at a few lengths), dst and src of
// unequal lengths, guard zones around dst, and copies within one buffer: overlapping either
// way, adjacent, and a short distance apart modulo 4 KiB.

// copier is one implementation under test.
type copier struct {
	name string
	path Path // the path Copy runs on; ignored by the raw kernels
	run  func(dst, src []byte) int
}

// copiers lists Copy on every path, then archCopiers (the raw kernels of this build).
func copiers() []copier {
	var cs []copier
	for _, p := range Paths() {
		cs = append(cs, copier{name: "Copy/" + p.String(), path: p, run: Copy})
	}
	return append(cs, archCopiers...)
}

// copyCase holds the buffers of one copier's checks: darena is dst with guard zones, src
// is random bytes. fills is all fill, the arena's expected content outside dst.
type copyCase struct {
	t      *testing.T
	c      copier
	darena []byte
	src    []byte
	fills  []byte
	fails  int
}

func newCopyCase(t *testing.T, c copier, maxN int) *copyCase {
	r := rand.New(rand.NewPCG(uint64(maxN), 3))
	cc := &copyCase{t: t, c: c,
		darena: make([]byte, guard+64+maxN+64+guard),
		src:    make([]byte, 64+maxN+64),
		fills:  bytes.Repeat([]byte{fill}, guard+64+maxN+64+guard),
	}
	for i := range cc.src {
		// Never the fill byte, so that a byte copied into a guard shows.
		cc.src[i] = byte(r.IntN(255))
		if cc.src[i] == fill {
			cc.src[i] = 0xff
		}
	}
	copy(cc.darena, cc.fills)
	return cc
}

// run copies n bytes from src at offset os to dst at offset od; dst has dx bytes more than
// n, src sx more (at most one of them non-zero: n is the shorter length).
func (cc *copyCase) run(n, od, os, dx, sx int) {
	if cc.fails > 5 {
		return
	}
	t := cc.t
	dst := cc.darena[guard+od : guard+od+n+dx]
	src := cc.src[os : os+n+sx]
	got := cc.c.run(dst, src)
	what := fmt.Sprintf("%s n=%d offsets dst=%d src=%d len(dst)=%d len(src)=%d", cc.c.name, n, od, os, len(dst), len(src))
	defer copy(cc.darena[guard+od:guard+od+n], cc.fills) // back to all fill for the next run
	if got != n {
		t.Errorf("%s: returned %d, want %d", what, got, n)
		cc.fails++
		return
	}
	if !bytes.Equal(dst[:n], src[:n]) {
		i := 0
		for dst[i] == src[i] {
			i++
		}
		t.Errorf("%s: dst[%d] = %#x, want %#x", what, i, dst[i], src[i])
		cc.fails++
		return
	}
	before, after := cc.darena[:guard+od], cc.darena[guard+od+n:guard+od+n+dx+guard]
	if !bytes.Equal(before, cc.fills[:len(before)]) {
		i := len(before) - 1
		for before[i] == fill {
			i--
		}
		t.Errorf("%s: byte %d before dst overwritten", what, len(before)-i)
		cc.fails++
	}
	if !bytes.Equal(after, cc.fills[:len(after)]) {
		i := 0
		for after[i] == fill {
			i++
		}
		t.Errorf("%s: byte %d after dst[:n] overwritten", what, i)
		cc.fails++
	}
}

// shift copies n bytes within one buffer, from offset a to offset b, and compares the whole
// buffer with what copy() makes of it.
func (cc *copyCase) shift(buf, want []byte, n, a, b int) {
	if cc.fails > 5 {
		return
	}
	size := max(a, b) + n + guard
	w, g := want[:size], buf[:size]
	copy(w, cc.src)
	copy(g, cc.src)
	copy(w[b:b+n], w[a:a+n])
	got := cc.c.run(g[b:b+n], g[a:a+n])
	if got != n || !bytes.Equal(g, w) {
		i := 0
		for i < size-1 && g[i] == w[i] {
			i++
		}
		cc.t.Errorf("%s: copy of %d bytes from %d to %d in one buffer: returned %d (want %d), byte %d = %#x, want %#x", cc.c.name, n, a, b, got, n, i, g[i], w[i])
		cc.fails++
	}
}

func TestCopy(t *testing.T) {
	big := []int{copyERMSMin - 1, copyERMSMin, copyERMSMin + 1, 64 << 10, 1 << 20, 1<<20 + 13, 1<<20 + 512<<10 + 5}
	maxN := big[len(big)-1]
	for _, c := range copiers() {
		t.Run(c.name, func(t *testing.T) {
			defer Use(c.path)()
			cc := newCopyCase(t, c, maxN)
			// Every length; offsets stepping through 0..63 at co-prime rates, so that each
			// offset of each operand meets many lengths; now dst, now src the longer slice.
			for n := 0; n <= maxLen; n++ {
				for k := 0; k < 4; k++ {
					od := (n*37 + k*17) % 64
					os := (n*11 + k*41 + 7) % 64
					dx, sx := 0, 0
					switch (n + k) % 3 {
					case 1:
						dx = (n+k)%64 + 1
					case 2:
						sx = (n+k)%64 + 1
					}
					cc.run(n, od, os, dx, sx)
				}
			}
			// Every dst offset against every src offset at a few lengths: a short one, one
			// over a page, and the smallest length Copy gives the kernel.
			for _, n := range []int{37, 4096 + 5, copyERMSMin} {
				for od := 0; od < 64; od++ {
					for os := 0; os < 64; os++ {
						cc.run(n, od, os, 0, 0)
					}
				}
			}
			for _, n := range big {
				for _, o := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {13, 50}, {63, 63}, {32, 0}, {0, 32}} {
					cc.run(n, o[0], o[1], 0, 0)
				}
				cc.run(n, 5, 9, 3, 0)
				cc.run(n, 9, 5, 0, 3)
			}

			// Within one buffer: overlapping from below and above, adjacent, equal, and dst
			// 1..63 bytes past src modulo 4 KiB without overlap.
			const far = 16 << 10 // beyond the largest n below, a multiple of 4 KiB
			buf, want := make([]byte, 2*(far+copyERMSMin+guard)), make([]byte, 2*(far+copyERMSMin+guard))
			if len(cc.src) < len(buf) {
				t.Fatal("TestCopy: src pool shorter than the shift buffer")
			}
			for _, n := range []int{0, 1, 15, 64, 65, 300, 1100, copyERMSMin + 7} {
				for _, d := range []int{0, 1, 7, 31, 63, 64, 65, n - 1, n, n + 1} {
					if d < 0 || d > n+1 {
						continue
					}
					cc.shift(buf, want, n, 10, 10+d) // dst above src
					cc.shift(buf, want, n, 10+d, 10) // dst below src
				}
				for _, d := range []int{1, 32, 63, 64, 4095} {
					cc.shift(buf, want, n, 10, 10+far+d)
					cc.shift(buf, want, n, 10+far+d, 10)
				}
			}
		})
	}
}

// TestCopyPaths checks the dispatch: the amd64 paths copy with REP MOVSB exactly when the
// CPU has ERMS, the generic (and every other) path never.
func TestCopyPaths(t *testing.T) {
	erms := runtime.GOARCH == "amd64" && !purego && cpuid.CPU.Supports(cpuid.ERMS)
	for _, p := range Paths() {
		want := erms && (p == PathAVX2 || p == PathAVX512)
		if got := impls[p].copyERMS; got != want {
			t.Errorf("path %v: copyERMS = %v, want %v (ERMS: %v)", p, got, want, cpuid.CPU.Supports(cpuid.ERMS))
		}
	}
}

// TestCopyNoEscape checks that Copy keeps its slices from escaping, as copy() does: stack
// buffers stay on the stack (the kernel's stub is go:noescape).
func TestCopyNoEscape(t *testing.T) {
	for _, p := range Paths() {
		restore := Use(p)
		allocs := testing.AllocsPerRun(20, func() {
			var d, s [copyERMSMin + 4096]byte
			s[100] = 1
			Copy(d[:], s[:])
			if d[100] != 1 {
				panic("TestCopyNoEscape: Copy did not copy")
			}
		})
		restore()
		if allocs != 0 {
			t.Errorf("%v: Copy of stack buffers allocated %v times", p, allocs)
		}
	}
}
