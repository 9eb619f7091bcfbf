//go:build linux && cgo

package main

import (
	"fmt"
	"strings"
	"testing"
)

// bench/oneclock (a C program, so its test is here with the C toolchain's) runs every
// operation on 3 PEs of one node.
func TestOneClock(t *testing.T) {
	exe := compile(t, "oneclock", "../bench/oneclock/oneclock.c")
	const npes = 3
	for _, op := range []string{"barrier", "broadcast", "reduce", "fcollect"} {
		j := run(t, exe, npes, op, "200")
		if j.status != 0 {
			t.Fatalf("oneclock %s: %s", op, j)
		}
		checkOneClock(t, op, 200, npes, j.stdout)
	}
	if j := run(t, exe, 2, "scatter"); j.status == 0 || !strings.Contains(j.stderr, "OP: want barrier, broadcast, reduce or fcollect") {
		t.Errorf("oneclock scatter: want a failure naming OP: %s", j)
	}
}

// checkOneClock checks oneclock's output for op over rounds at npes. On one clock no PE
// can leave any of its calls before PE 0 entered it (each needs PE 0's barrier arrival,
// data or contribution), so every PE's exit_us is positive; PE 0's entry_us is 0 by
// definition.
func checkOneClock(t *testing.T, op string, rounds, npes int, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != npes {
		t.Fatalf("oneclock %s: %d lines, want %d:\n%s", op, len(lines), npes, out)
	}
	timed := rounds - rounds/10
	for pe, l := range lines {
		var gotOp string
		var gotPE, n int
		var call, entry, exit float64
		if _, err := fmt.Sscanf(l, "oneclock %s pe=%d rounds=%d call_us=%g entry_us=%g exit_us=%g", &gotOp, &gotPE, &n, &call, &entry, &exit); err != nil {
			t.Fatalf("oneclock %s: line %q: %v", op, l, err)
		}
		switch {
		case gotOp != op || gotPE != pe || n != timed:
			t.Errorf("oneclock %s: line %q: want op %s, pe %d, %d rounds (%d less the warm-up)", op, l, op, pe, timed, rounds)
		case call <= 0 || exit <= 0:
			t.Errorf("oneclock %s: line %q: a call, and an exit after PE 0's entry, must take time", op, l)
		case pe == 0 && (entry != 0 || exit != call):
			t.Errorf("oneclock %s: line %q: PE 0's entry is the origin", op, l)
		}
	}
}
