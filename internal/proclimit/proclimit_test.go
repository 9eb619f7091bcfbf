package proclimit

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

// A command within its bound runs to the end; a fork chain is killed at its bound.
func TestRun(t *testing.T) {
	out, err := Run(exec.Command("sh", "-c", "echo ok"), 4, time.Minute)
	if err != nil || string(out) != "ok\n" {
		t.Fatalf("a bounded command: %q, %v", out, err)
	}
	// Each shell starts the next and waits for it: an endless chain of live processes.
	chain := exec.Command("sh", "-c", `export x='sleep 0.002; sh -c "$x"; :'; sh -c "$x"`)
	_, err = Run(chain, 20, time.Minute)
	var tooMany *ErrTooMany
	if !errors.As(err, &tooMany) || tooMany.Seen <= 20 {
		t.Fatalf("a fork chain: %v", err)
	}
}
