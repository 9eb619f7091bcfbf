// Package proclimit runs a command with a bound on the number of processes it may have
// alive at once, for tests of programs that must not run themselves without end (a
// compiler wrapper given CC=itself). RLIMIT_NPROC does not bind root, so the bound is
// enforced by watching the command's process group.
package proclimit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrTooMany reports a command that exceeded its bound; it and its processes are killed.
type ErrTooMany struct {
	Limit, Seen int
}

func (e *ErrTooMany) Error() string {
	return fmt.Sprintf("%d processes alive at once (bound %d): killed as a fork bomb", e.Seen, e.Limit)
}

// Run runs cmd in a process group of its own and kills the group when more than limit of
// its processes are alive at once, or when timeout passes. It returns cmd's combined
// output and its error (an *ErrTooMany when the bound was crossed).
func Run(cmd *exec.Cmd, limit int, timeout time.Duration) ([]byte, error) {
	var out bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &out
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	var fail error
	for {
		select {
		case err := <-done:
			// Anything of the group left behind goes too.
			syscall.Kill(-pgid, syscall.SIGKILL)
			if fail != nil {
				return out.Bytes(), fail
			}
			return out.Bytes(), err
		case <-tick.C:
			if fail != nil {
				continue
			}
			if n := Count(pgid); n > limit {
				fail = &ErrTooMany{Limit: limit, Seen: n}
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
		case <-deadline:
			if fail == nil {
				fail = fmt.Errorf("still running after %v: killed", timeout)
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
	}
}

// Count is the number of live processes in process group pgid.
func Count(pgid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		if g, err := strconv.Atoi(fields[2]); err == nil && g == pgid {
			n++
		}
	}
	return n
}
