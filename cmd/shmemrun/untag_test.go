package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// tagStream is what mpirun --tag-output writes for the PEs' outputs: each PE's bytes in
// pieces of random length, interleaved at random, a tag at each piece's start and after
// every newline that more bytes of the piece follow.
func tagStream(rng *rand.Rand, outs [][]byte, kind string) []byte {
	var s bytes.Buffer
	left := make([][]byte, len(outs))
	copy(left, outs)
	for {
		var live []int
		for r, b := range left {
			if len(b) > 0 {
				live = append(live, r)
			}
		}
		if len(live) == 0 {
			return s.Bytes()
		}
		r := live[rng.IntN(len(live))]
		n := min(1+rng.IntN(300), len(left[r]))
		tag := fmt.Sprintf("[1,%d]<%s>:", r, kind)
		piece := left[r][:n]
		left[r] = left[r][n:]
		s.WriteString(tag)
		for i, c := range piece {
			s.WriteByte(c)
			if c == '\n' && i < len(piece)-1 {
				s.WriteString(tag)
			}
		}
	}
}

// feed writes b to u in random splits (tags cut anywhere), then closes it.
func feed(rng *rand.Rand, u *untagger, b []byte) {
	for len(b) > 0 {
		n := min(1+rng.IntN(40), len(b))
		u.Write(b[:n])
		b = b[n:]
	}
	u.Close()
}

// Each PE's lines come out whole and in order, however mpirun cut and interleaved them,
// with "[PE n] " under --tag-output; a last line without a newline gets one.
func TestUntagWholeLines(t *testing.T) {
	for _, tag := range []bool{false, true} {
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 7))
			const pes = 4
			outs := make([][]byte, pes)
			want := make([][]string, pes)
			for r := range pes {
				var b bytes.Buffer
				for i := range 40 + rng.IntN(40) {
					// Brackets and fake tag beginnings inside lines are text.
					l := fmt.Sprintf("PE %d line %d [x] [1,%d] [2,3]<out> %s", r, i, r, strings.Repeat("y", rng.IntN(200)))
					b.WriteString(l + "\n")
					want[r] = append(want[r], l)
				}
				if r == 2 { // unfinished at the end
					b.WriteString("no newline")
					want[r] = append(want[r], "no newline")
				}
				outs[r] = b.Bytes()
			}
			var got bytes.Buffer
			u := newUntagger(&got, tag)
			kind := []string{"stdout", "stderr", "stddiag"}[seed%3]
			feed(rng, u, tagStream(rng, outs, kind))
			per := make([][]string, pes)
			for _, l := range strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n") {
				var r int
				if tag {
					var rest string
					if _, err := fmt.Sscanf(l, "[PE %d]", &r); err != nil {
						t.Fatalf("tag %v seed %d: line %q without its tag", tag, seed, l)
					}
					rest, _ = strings.CutPrefix(l, fmt.Sprintf("[PE %d] ", r))
					l = rest
				} else if l == "no newline" {
					r = 2
				} else if _, err := fmt.Sscanf(l, "PE %d", &r); err != nil {
					t.Fatalf("seed %d: line %q", seed, l)
				}
				per[r] = append(per[r], l)
			}
			for r := range pes {
				if strings.Join(per[r], "\n") != strings.Join(want[r], "\n") {
					t.Fatalf("tag %v seed %d: PE %d's lines\n%q\nwant\n%q", tag, seed, r, per[r], want[r])
				}
			}
		}
	}
}

// mpirun's own lines (no tag) pass as they are, also after PEs' lines and under
// --tag-output; a tag cut at the end of the stream is text.
func TestUntagLauncherText(t *testing.T) {
	in := "mpirun: starting\n[1,0]<stdout>:a\n[1,1]<stdout>:b\nmpirun noticed that process rank 1 exited\n[1,0]<stdout>:c\n[1,"
	for _, tc := range []struct {
		tag  bool
		want string
	}{
		{false, "mpirun: starting\na\nb\nmpirun noticed that process rank 1 exited\nc\n[1,\n"},
		{true, "mpirun: starting\n[PE 0] a\n[PE 1] b\nmpirun noticed that process rank 1 exited\n[PE 0] c\n[1,\n"},
	} {
		for split := 1; split <= len(in); split++ {
			var got bytes.Buffer
			u := newUntagger(&got, tc.tag)
			for b := []byte(in); len(b) > 0; {
				n := min(split, len(b))
				u.Write(b[:n])
				b = b[n:]
			}
			u.Close()
			if got.String() != tc.want {
				t.Fatalf("tag %v, writes of %d: got\n%q\nwant\n%q", tc.tag, split, got.String(), tc.want)
			}
		}
	}
}

// A line longer than the bound goes out in pieces; another PE's line arriving in its
// middle starts on a line of its own, and the long line's rest is tagged again.
func TestUntagLongLine(t *testing.T) {
	long := strings.Repeat("x", untagChunk+100)
	in := "[1,0]<stdout>:" + long[:untagChunk+10] + "[1,1]<stdout>:short\n[1,0]<stdout>:" + long[untagChunk+10:] + "\n"
	var got bytes.Buffer
	u := newUntagger(&got, true)
	u.Write([]byte(in))
	u.Close()
	want := "[PE 0] " + long[:untagChunk] + "\n[PE 1] short\n[PE 0] " + long[untagChunk:] + "\n"
	if got.String() != want {
		t.Fatalf("got %d bytes, want %d: %.200q", got.Len(), len(want), got.String())
	}
}

// A destination that fails is written no more, and mpirun's relay is never told (it
// would stop relaying the other stream too).
func TestUntagBrokenWriter(t *testing.T) {
	w := &failAfter{n: 1}
	u := newUntagger(w, false)
	for range 3 {
		if n, err := u.Write([]byte("[1,0]<stdout>:line\n")); n != 19 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	u.Close()
	if w.calls != 2 {
		t.Errorf("%d writes to a destination failing at its second, want 2", w.calls)
	}
}

type failAfter struct{ n, calls int }

func (f *failAfter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls > f.n {
		return 0, errors.New("broken pipe")
	}
	return len(p), nil
}

func TestMatchTag(t *testing.T) {
	for _, tc := range []struct {
		in      string
		rank, n int
		ok      bool
	}{
		{"[1,12]<stdout>:x", 12, 15, true},
		{"[3,0]<stderr>:", 0, 14, true},
		{"[1,5]<stddiag>:y", 5, 15, true},
		{"[", 0, 0, true}, {"[1", 0, 0, true}, {"[1,", 0, 0, true}, {"[1,2]<std", 0, 0, true},
		{"[x", 0, 0, false}, {"[1]", 0, 0, false}, {"[1,2]<other>:", 0, 0, false},
		{"[1,2]<stdout>", 0, 0, true}, {"[1,2]<stdoutx", 0, 0, false}, {"[1234567890,1]<stdout>:", 0, 0, false},
	} {
		rank, n, ok := matchTag([]byte(tc.in))
		if rank != tc.rank || n != tc.n || ok != tc.ok {
			t.Errorf("matchTag(%q) = %d, %d, %v; want %d, %d, %v", tc.in, rank, n, ok, tc.rank, tc.n, tc.ok)
		}
	}
}
