package launch

import (
	"bytes"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// A line longer than the relay's buffer goes out whole but in pieces, tagged once; a last
// line without a newline gets one.
func TestRelayLongLineAndPartialLast(t *testing.T) {
	var out bytes.Buffer
	lw := &lineWriter{w: &out, tag: true}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var first atomic.Pointer[string]
	rl := lw.newRelay(3, r, &first)
	go rl.run()
	long := strings.Repeat("y", 3*relayChunk+17)
	w.WriteString("short\n" + long + "\nSIGQUIT: quit\nPC=0x40816e m=0 sigcode=0 addr=0x3a39\nlast")
	w.Close()
	<-rl.done
	want := "[PE 3] short\n[PE 3] " + long + "\n[PE 3] SIGQUIT: quit\n[PE 3] PC=0x40816e m=0 sigcode=0 addr=0x3a39\n[PE 3] last\n"
	if out.String() != want {
		t.Fatalf("relayed %d bytes, want %d (head %q)", out.Len(), len(want), out.String()[:min(out.Len(), 40)])
	}
	if f := first.Load(); f == nil || *f != "SIGQUIT: quit (sent by another process, not a fault of the PE)" {
		t.Fatalf("failure line %v, want the signal's", f)
	}
}

// A line of another PE in the middle of a long line starts a line of its own, and the long
// line's rest is tagged again.
func TestLineWriterCut(t *testing.T) {
	var out bytes.Buffer
	lw := &lineWriter{w: &out, tag: true}
	r1, r2 := lw.newRelay(1, nil, nil), lw.newRelay(2, nil, nil)
	lw.write(r1, []byte("abc"))
	lw.write(r2, []byte("x\n"))
	lw.write(r1, []byte("def"))
	lw.write(r1, []byte("ghi\n"))
	lw.finish(r2)
	if want := "[PE 1] abc\n[PE 2] x\n[PE 1] defghi\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

// Go's report of a signal it does not handle counts as the failure's cause.
func TestIsFailureLine(t *testing.T) {
	for l, want := range map[string]bool{"panic: x": true, "fatal error: y": true, "SIGSEGV: segmentation violation": true,
		"SIGQUIT: quit": true, "SIG: x": false, "Sigsegv: x": false, "hello": false, "SIGNALLING: a long word": false} {
		if isFailureLine([]byte(l)) != want {
			t.Errorf("isFailureLine(%q) = %v", l, !want)
		}
	}
}

// failAfter fails every write after its first n bytes.
type failAfter struct {
	bytes.Buffer
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.Len()+len(p) > f.n {
		return 0, os.ErrClosed
	}
	return f.Buffer.Write(p)
}

// An Output (shmemrun --hosts relaying its launcher): its own messages end an unfinished
// relayed line first; the first failed write calls onBroken once and everything after is
// discarded, while the stream is still read to its end.
func TestOutput(t *testing.T) {
	var out bytes.Buffer
	o := NewOutput(&out, nil)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := o.Relay(r)
	long := strings.Repeat("x", relayChunk) // a line longer than the relay's buffer: its first part goes out
	w.WriteString(long)
	for written := false; !written; { // the relay has written its piece
		o.lw.mu.Lock()
		written = o.lw.open != nil
		o.lw.mu.Unlock()
	}
	o.Write([]byte("shmemrun: note\n"))
	w.WriteString(" more\n")
	w.Close()
	s.Drain()
	if want := long + "\nshmemrun: note\n more\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String()[max(0, out.Len()-40):], want[len(want)-40:])
	}

	dst := &failAfter{n: 7}
	calls := 0
	o = NewOutput(dst, func() { calls++ })
	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s = o.Relay(r)
	big := strings.Repeat("line\n", 200<<10) // more than the pipe holds: the relay must keep reading
	if _, err := w.WriteString("0123\n" + big); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Drain()
	if dst.String() != "0123\n" || calls != 1 || !o.Broken() {
		t.Fatalf("wrote %q, onBroken called %d times, Broken %v; want the first line, 1, true", dst.String(), calls, o.Broken())
	}
}
