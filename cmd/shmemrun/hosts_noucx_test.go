//go:build !goshmem_ucx

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goshmem/shmem/runtime/launch"
)

// builtWithUCX says whether this test binary has the many-node engine.
const builtWithUCX = false

// --tune --hosts needs a shmemrun with the engine: its timing jobs are shmemrun itself.
func TestTuneHostsNeedsEngine(t *testing.T) {
	var out, errb bytes.Buffer
	st := run([]string{"--tune", "--hosts", "a:1,b:1"}, &out, &errb)
	if st != launch.StatusUsage || !strings.Contains(errb.String(), "has no many-node engine") || !strings.Contains(errb.String(), "-tags goshmem_ucx") {
		t.Errorf("status %d, %q", st, errb.String())
	}
}
