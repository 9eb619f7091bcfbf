package main

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The launcher's stdout and stderr pass through shmemrun (--hosts): Open MPI 4.1's mpirun,
// finding its stdout a broken pipe (`shmemrun --hosts ... | head`), aborts on SIGPIPE and
// then crashes in PMIx_Finalize, printing a segmentation fault's backtrace. shmemrun
// instead ends the job as the one-node launcher's readers see it end: it stops writing,
// asks the launcher to end the job, keeps reading (and discarding) so that the launcher
// never meets the broken pipe itself, and exits as SIGPIPE would have it (141).

// relayLinger is how long a relay waits for more output once the launcher has exited: a
// process it started may hold the pipe open, and the job is over.
const relayLinger = 5 * time.Second

// relay copies one of the launcher's streams to w, one read's bytes per write (lines stay
// as the launcher wrote them), blocking on a slow reader however long it takes.
type relay struct {
	r      *os.File
	w      io.Writer
	broken *atomic.Bool // set at the first failed write of any relay of the job: all discard then
	onFail func()
	exited atomic.Bool
	done   chan struct{}
}

// startRelay starts copying r to w; a failed write sets broken and calls onFail.
func startRelay(r *os.File, w io.Writer, broken *atomic.Bool, onFail func()) *relay {
	x := &relay{r: r, w: w, broken: broken, onFail: onFail, done: make(chan struct{})}
	go x.run()
	return x
}

func (x *relay) run() {
	defer close(x.done)
	defer x.r.Close()
	buf := make([]byte, 64<<10)
	for {
		if x.exited.Load() {
			x.r.SetReadDeadline(time.Now().Add(relayLinger))
		}
		n, err := x.r.Read(buf)
		// Once one stream broke the job is ending for it: the PEs' messages about
		// peers lost as it ends would mislead (a one-node shmemrun dies of SIGPIPE).
		if n > 0 && !x.broken.Load() {
			if _, werr := x.w.Write(buf[:n]); werr != nil {
				x.broken.Store(true)
				x.onFail()
			}
		}
		if err != nil {
			return // EOF, or nothing for relayLinger after the launcher exited
		}
	}
}

// finish waits for the relay to drain what the launcher wrote, the launcher having exited.
func (x *relay) finish() {
	x.exited.Store(true)
	x.r.SetReadDeadline(time.Now().Add(relayLinger)) // wakes a read already waiting
	<-x.done
}

// lockedWriter serializes writes to w: shmemrun's own messages and the launcher's stderr
// share it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
