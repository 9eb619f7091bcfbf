package shmem_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// GlobalExit from one PE while the others wait in a barrier ends the job with its status.
func TestGlobalExit(t *testing.T) {
	if shmemtest.InPE(t) {
		me, _ := initPE(t)
		if me == 2 {
			time.Sleep(50 * time.Millisecond)
			shmem.GlobalExit(7)
		}
		shmem.BarrierAll() // never completes: PE 2 is gone
		t.Fatal("barrier completed without PE 2")
	}
	start := time.Now()
	r := shmemtest.Launch(t, 4)
	if r.Status != 7 {
		t.Fatalf("status %d, want 7\n%s%s", r.Status, r.Stdout, r.Stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Logf("job took %v", d) // a report, not an assertion: the machine may be loaded
	}
}

// A PE that panics, or returns without Finalize, while the others wait ends the job, and
// the launcher says which PE and how.
func TestFailingPE(t *testing.T) {
	for _, c := range []struct{ mode, want string }{
		{"panic", "PE 1 (pid "},
		{"exit3", "exited with status 3"},
		{"nofinalize", "exited with status 0 before shmem.Finalize"},
		{"kill", "killed by SIGKILL"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			if shmemtest.InPE(t) {
				// No Finalize at cleanup here: a panicking test runs its cleanups, and a
				// Finalize there would pair with the others' barrier.
				if err := shmem.Init(); err != nil {
					t.Fatal(err)
				}
				if shmem.MyPE() == 1 {
					switch c.mode {
					case "panic":
						panic("deliberate failure")
					case "exit3":
						os.Exit(3)
					case "nofinalize":
						os.Exit(0)
					case "kill":
						p, _ := os.FindProcess(os.Getpid())
						p.Kill()
					}
				}
				shmem.BarrierAll()
				t.Fatal("barrier completed without PE 1")
			}
			r := shmemtest.Launch(t, 3)
			if shmemtest.MultiNode() {
				// A peer that lost PE 1 reports it ("PE 1 on b ended before
				// shmem_finalize ..."), or the PMIx launcher does (rank 1 is PE 1).
				if r.Status == 0 || !strings.Contains(r.Stderr, "PE 1 on ") && !strings.Contains(r.Stderr, ",1]") {
					t.Fatalf("status %d, stderr:\n%s\nwant non-zero and PE 1 named", r.Status, r.Stderr)
				}
				return
			}
			if r.Status == 0 || !strings.Contains(r.Stderr, c.want) {
				t.Fatalf("status %d, stderr:\n%s\nwant non-zero and %q", r.Status, r.Stderr, c.want)
			}
			if c.mode == "panic" && !strings.Contains(r.Stderr, "panic: deliberate failure") {
				t.Fatalf("the report should carry the panic's first line:\n%s", r.Stderr)
			}
			if c.mode == "kill" && r.Status != 128+9 {
				t.Fatalf("status %d, want 137", r.Status)
			}
		})
	}
}
