//go:build linux && cgo

package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
)

// Unmodified C programs run across nodes under mpirun, linked against a libgoshmem built
// with the multi-node engine (shmemcc --goshmem-ucx): the seeds' examples, the API test,
// the contexts/1.6 test (scans of every type on teams spanning the nodes, pe_quiet) and the
// heap stress, as 2 nodes × 1 PE and 2 nodes × 2 PEs, PEs round-robin over the nodes.
func TestMultinodeCPrograms(t *testing.T) {
	c := fakenodes.Require(t, 2)
	progs := []struct{ name, src string }{
		{"test_some", "../examples/c/test_some.c"}, {"alltoalls64", "../examples/c/alltoalls64.c"},
		{"or_to_all", "../examples/c/or_to_all.c"}, {"min_to_all", "../examples/c/min_to_all.c"},
		{"sum_to_all", "../examples/c/sum_to_all.c"}, {"api", "testdata/api.c"},
		{"ctx", "testdata/ctx.c"}, {"heapstress", "testdata/heapstress.c"},
	}
	for _, p := range progs {
		exe := compile(t, p.name+".ucx", p.src, "--goshmem-ucx")
		for _, perNode := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/2x%d", p.name, perNode), func(t *testing.T) {
				r := c.Mpirun(t, fakenodes.Job{PerNode: perNode, MapBy: "node", Prog: exe, Timeout: 2 * time.Minute,
					Env: []string{"GOSHMEM_WAIT=sleep", "SHMEM_SYMMETRIC_SIZE=256M"}})
				if r.ExitCode != 0 {
					t.Fatal(r)
				}
			})
		}
	}
}
