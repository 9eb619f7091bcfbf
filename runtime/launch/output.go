package launch

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// lineWriter writes whole lines from many PEs to one destination, one Write per line under
// a lock, so lines from different PEs never interleave inside a line.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	tag bool
}

// relay copies r to the writer line by line until EOF. A last line without a newline gets
// one. When first is non-nil it keeps the first line that reads like a Go panic or fatal
// error, for the launcher's failure report.
func (lw *lineWriter) relay(pe int, r io.ReadCloser, first *atomic.Pointer[string]) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var prefix []byte
	if lw.tag {
		prefix = []byte("[PE " + strconv.Itoa(pe) + "] ")
	}
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if first != nil && first.Load() == nil && isPanicLine(line) {
				s := string(bytes.TrimSpace(line))
				first.CompareAndSwap(nil, &s)
			}
			lw.write(prefix, line)
			line = line[:0]
		}
		if err != nil {
			return
		}
	}
}

func isPanicLine(l []byte) bool {
	return bytes.HasPrefix(l, []byte("panic: ")) || bytes.HasPrefix(l, []byte("fatal error: "))
}

func (lw *lineWriter) write(prefix, line []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(prefix) > 0 {
		buf := make([]byte, 0, len(prefix)+len(line))
		lw.w.Write(append(append(buf, prefix...), line...))
		return
	}
	lw.w.Write(line)
}
