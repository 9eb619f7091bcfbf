package launch

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Output relay. Every byte a PE writes reaches the destination before the launcher exits,
// however slowly the destination reads: the relay blocks on it (only a failed write, such as
// a broken pipe, makes it discard). Memory is bounded whatever the output: lines up to
// relayChunk bytes are written whole, in one Write under the writer's lock, so lines from
// different PEs never mix; a longer line goes out in relayChunk pieces, and a line of
// another PE that arrives in the middle of it starts on a line of its own.
//
// A PE's pipe stays open as long as any process holds its write end, and a PE's children
// may hold it long after the PE exited. So the relay does not wait for end-of-file once the
// job is over: drain makes it deliver what the pipe holds at that moment (all that the PEs
// wrote: their writes completed before they exited) and then stop, closing its end.

// relayChunk bounds a relay's buffer: the largest piece written at once.
const relayChunk = 64 << 10

// lineWriter writes lines from many PEs to one destination.
type lineWriter struct {
	mu       sync.Mutex
	w        io.Writer
	tag      bool
	open     *relay      // the relay whose line is unfinished at the destination
	broken   atomic.Bool // a write failed, or Discard: discard the rest
	onBroken func()      // nil, or called once, at the first failed write (under mu)
}

// relay is one PE's stream (stdout or stderr) on its way to a lineWriter.
type relay struct {
	pe      int
	f       *os.File
	lw      *lineWriter
	first   *atomic.Pointer[string] // nil, or where to keep the first failure line
	prefix  []byte
	midLine bool // the last piece of this stream did not end a line
	sigLine bool // the last line was a Go runtime's report of a fatal signal
	done    chan struct{}
	// draining is set by drain; the relay's next read then returns at once with
	// os.ErrDeadlineExceeded, and the relay delivers what the pipe holds, then stops.
	draining atomic.Bool
}

func (lw *lineWriter) newRelay(pe int, f *os.File, first *atomic.Pointer[string]) *relay {
	r := &relay{pe: pe, f: f, lw: lw, first: first, done: make(chan struct{})}
	if lw.tag {
		r.prefix = []byte("[PE " + strconv.Itoa(pe) + "] ")
	}
	return r
}

// drain tells the relay that no PE runs any more (see above).
func (r *relay) drain() {
	r.draining.Store(true)
	r.f.SetReadDeadline(time.Now())
}

// run copies the PE's stream to the writer until end-of-file, or until the pipe is empty
// after drain. A last line without a newline gets one.
func (r *relay) run() {
	defer close(r.done)
	defer r.f.Close()
	buf := make([]byte, relayChunk)
	have := 0         // bytes at buf's start not yet written: an unfinished line
	left := int64(-1) // after drain: the bytes still to read
	for {
		var n int
		var err error
		if left == 0 {
			err = io.EOF
		} else {
			n, err = r.f.Read(buf[have:])
		}
		if left > 0 {
			left -= min(int64(n), left)
		}
		have = r.emit(buf, have+n)
		switch {
		case err == nil:
			continue
		case errors.Is(err, os.ErrDeadlineExceeded) && r.draining.Load():
			// The job is over: what the pipe holds now is the rest of the PEs' output
			// (and perhaps some of their children's); read exactly that, blocking.
			if left < 0 {
				left = int64(pending(r.f))
			}
			r.f.SetReadDeadline(time.Time{})
			continue
		}
		if have > 0 {
			r.piece(buf[:have])
		}
		r.lw.finish(r)
		return
	}
}

// emit writes the complete lines of buf[:n], and the unfinished last one when it fills the
// buffer; it returns how many bytes remain, moved to the buffer's start.
func (r *relay) emit(buf []byte, n int) int {
	data := buf[:n]
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		r.piece(data[:i+1])
		data = data[i+1:]
	}
	if len(data) == len(buf) {
		r.piece(data) // a line longer than the buffer: its first part
		return 0
	}
	return copy(buf, data)
}

// piece writes part of a line; it ends the line when it ends with a newline.
func (r *relay) piece(p []byte) {
	if !r.midLine && r.first != nil {
		r.failureCause(p)
	}
	r.midLine = p[len(p)-1] != '\n'
	r.lw.write(r, p)
}

// failureCause keeps the first line of a failure report, and says when the signal in it
// was sent by another process: the Go runtime's next line then has sigcode 0 (SI_USER,
// kill) or -6 (SI_TKILL, tgkill).
func (r *relay) failureCause(line []byte) {
	f := r.first.Load()
	if r.sigLine && f != nil && (bytes.Contains(line, []byte(" sigcode=0")) || bytes.Contains(line, []byte(" sigcode=-6"))) {
		s := *f + " (sent by another process, not a fault of the PE)"
		r.first.Store(&s)
	}
	r.sigLine = false
	if f == nil && isFailureLine(line) {
		s := string(bytes.TrimSpace(line))
		r.first.Store(&s)
		r.sigLine = bytes.HasPrefix(line, []byte("SIG"))
	}
}

// isFailureLine reports whether l starts a Go runtime's failure report: a panic, a fatal
// error, or a signal it does not handle (such as a SIGSEGV or SIGQUIT sent by kill).
func isFailureLine(l []byte) bool {
	if bytes.HasPrefix(l, []byte("panic: ")) || bytes.HasPrefix(l, []byte("fatal error: ")) {
		return true
	}
	name, _, ok := bytes.Cut(l, []byte(": "))
	if !ok || len(name) < 4 || len(name) > 9 || !bytes.HasPrefix(name, []byte("SIG")) {
		return false
	}
	for _, c := range name {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// write writes p, a piece of r's current line, in one Write. A piece that starts a line at
// the destination gets r's tag; one that continues the line of another PE ends that line
// first, and that PE's next piece then starts a line of its own.
func (lw *lineWriter) write(r *relay, p []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	starts := lw.open != r // a line of its own at the destination
	if starts {
		lw.endOpen()
	}
	if starts && len(r.prefix) > 0 {
		buf := make([]byte, 0, len(r.prefix)+len(p))
		lw.put(append(append(buf, r.prefix...), p...))
	} else {
		lw.put(p)
	}
	lw.open = nil
	if p[len(p)-1] != '\n' {
		lw.open = r
	}
}

// endOpen ends the unfinished line at the destination, if any, under lw.mu.
func (lw *lineWriter) endOpen() {
	if lw.open != nil {
		lw.put([]byte{'\n'})
		lw.open = nil
	}
}

// finish ends r's line at the destination if it is unfinished there (end of stream).
func (lw *lineWriter) finish(r *relay) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.open == r {
		lw.put([]byte{'\n'})
		lw.open = nil
	}
}

// put writes to the destination; after a failed write the rest is discarded, so the PEs
// never block on a destination that is gone.
func (lw *lineWriter) put(b []byte) {
	if lw.broken.Load() {
		return
	}
	if _, err := lw.w.Write(b); err != nil {
		lw.broken.Store(true)
		if lw.onBroken != nil {
			lw.onBroken()
		}
	}
}

// Output is a destination for relayed streams, line by line as the PEs' are: shmemrun --hosts
// relays the launcher's (mpirun's, srun's) stdout and stderr through it.
type Output struct{ lw *lineWriter }

// NewOutput returns an Output writing to w. onBroken, if not nil, is called once, at the
// first failed write (a broken pipe); the Output discards everything after it.
func NewOutput(w io.Writer, onBroken func()) *Output {
	return &Output{&lineWriter{w: w, onBroken: onBroken}}
}

// Write writes the launcher's own message, p being whole lines, between the relayed lines.
func (o *Output) Write(p []byte) (int, error) {
	o.lw.mu.Lock()
	defer o.lw.mu.Unlock()
	o.lw.endOpen()
	o.lw.put(p)
	return len(p), nil
}

// Discard makes the Output discard everything from now on (another stream broke).
func (o *Output) Discard() { o.lw.broken.Store(true) }

// Broken reports whether a write failed, or Discard was called.
func (o *Output) Broken() bool { return o.lw.broken.Load() }

// Relay copies f to the Output until f's end, or until Stream.Drain; it closes f.
func (o *Output) Relay(f *os.File) *Stream {
	r := o.lw.newRelay(0, f, nil)
	go r.run()
	return &Stream{r}
}

// Stream is one relayed stream.
type Stream struct{ r *relay }

// Drain delivers what the pipe holds, its writer having exited, and returns when it is
// delivered: a child of the writer that holds the pipe open does not hold the relay.
func (s *Stream) Drain() {
	s.r.drain()
	<-s.r.done
}

// StartPiped starts cmd with its stdout and stderr on new pipes, and returns their read ends.
func StartPiped(cmd *exec.Cmd) (stdout, stderr *os.File, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, nil, err
	}
	return outR, errR, nil
}

// pending is how many bytes the pipe f holds (FIONREAD).
func pending(f *os.File) int {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	var ierr error
	if err := sc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return 0
	}
	return n
}
