//go:build linux && cgo

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
)

// Unmodified C programs run across nodes under mpirun, linked against a libgoshmem built
// with the multi-node engine (shmemcc --goshmem-ucx): the seeds' examples, the API test,
// the contexts/1.6 test (scans of every type on teams spanning the nodes, pe_quiet), the
// heap stress, a start_pes program that never calls shmem_finalize, one whose static data
// comes beside a nearly full heap, threads taking one lock and bench/oneclock's broadcast (the fake nodes share one
// clock), as 2 nodes × 1 PE and 2 nodes × 2 PEs, PEs round-robin over the nodes.
func TestMultinodeCPrograms(t *testing.T) {
	c := fakenodes.Require(t, 2)
	progs := []struct {
		name, src string
		flags     []string // shmemcc's, beside --goshmem-ucx
		args      []string
		check     func(t *testing.T, npes int, stdout string) // nil: the exit status says it all
	}{
		{name: "test_some", src: "../examples/c/test_some.c"}, {name: "alltoalls64", src: "../examples/c/alltoalls64.c"},
		{name: "or_to_all", src: "../examples/c/or_to_all.c"}, {name: "min_to_all", src: "../examples/c/min_to_all.c"},
		{name: "sum_to_all", src: "../examples/c/sum_to_all.c"}, {name: "api", src: "testdata/api.c"},
		{name: "ctx", src: "testdata/ctx.c"}, {name: "heapstress", src: "testdata/heapstress.c"},
		{name: "start_pes", src: "testdata/nofinalize.c", flags: []string{"-DSTART_PES"}, // ends without shmem_finalize
			check: func(t *testing.T, npes int, stdout string) {
				if want := fmt.Sprintf("counted %d", npes); !strings.Contains(stdout, want) {
					t.Errorf("stdout %q, want %q", stdout, want)
				}
			}},
		{name: "bigstatic", src: "testdata/bigstatic.c", args: []string{"262144000"}}, // 250 MiB of the 256 beside 64 of static data
		{name: "threads", src: "testdata/threads.c", args: []string{"3"}, // 4 threads per PE under one lock
			check: func(t *testing.T, npes int, stdout string) {
				if want := fmt.Sprintf("counter %d of %d", npes*800, npes*800); !strings.Contains(stdout, want) {
					t.Errorf("stdout %q, want %q", stdout, want)
				}
			}},
		{name: "oneclock", src: "../bench/oneclock/oneclock.c", args: []string{"broadcast", "100"},
			check: func(t *testing.T, npes int, stdout string) { checkOneClock(t, "broadcast", 100, npes, stdout) }},
	}
	for _, p := range progs {
		exe := compile(t, p.name+".ucx", p.src, append([]string{"--goshmem-ucx"}, p.flags...)...)
		for _, perNode := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/2x%d", p.name, perNode), func(t *testing.T) {
				r := c.Mpirun(t, fakenodes.Job{PerNode: perNode, MapBy: "node", Prog: exe, Args: p.args, Timeout: 2 * time.Minute,
					Env: []string{"GOSHMEM_WAIT=sleep", "SHMEM_SYMMETRIC_SIZE=256M"}})
				if r.ExitCode != 0 {
					t.Fatal(r)
				}
				if p.check != nil {
					p.check(t, 2*perNode, r.Stdout)
				}
			})
		}
	}
}

// Across nodes a fault in the program's code is reported by its PE, naming the node.
func TestMultinodeFaultReport(t *testing.T) {
	c := fakenodes.Require(t, 2)
	exe := compile(t, "fault.ucx", "testdata/fault.c", "--goshmem-ucx", "-g")
	r := c.Mpirun(t, fakenodes.Job{PerNode: 1, MapBy: "node", Prog: exe, Args: []string{"segv"}, Timeout: 2 * time.Minute})
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "goshmem: PE 1 on gsn2 (pid ") || !strings.Contains(r.Stderr, "SIGSEGV (address not mapped) at address 0x0, in ") {
		t.Fatalf("want PE 1's report naming its node: %v", r)
	}
}
