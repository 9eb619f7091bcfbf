package shmem_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// A process handed a running job's descriptor and an existing PE's number (any same-uid
// process can open /proc/<pid>/fd/3 of a PE) cannot join the job in that PE's place: its
// Init fails and the job goes on (issue 13.9: it joined as a second PE 0 and derailed it).
func TestSecondAttachRejected(t *testing.T) {
	if shmemtest.MultiNode() {
		t.Skip("shmemrun's descriptor hand-over; across nodes each PE claims its slot the same way (claimSlot)")
	}
	if !shmemtest.Run(t, 2) {
		return
	}
	me, _ := initPE(t)
	if me == 1 {
		fd, err := os.OpenFile("/proc/self/fd/"+os.Getenv("GOSHMEM_FD"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestIntruder$", "-test.v")
		cmd.Env = append(os.Environ(), "GOSHMEM_INTRUDER=1", "GOSHMEM_FD=3", "GOSHMEM_PE=0")
		cmd.ExtraFiles = []*os.File{fd}
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
			}
		}()
		out, err := cmd.CombinedOutput()
		close(done)
		if err != nil || !strings.Contains(string(out), "PE 0 of this job is already attached by pid ") {
			t.Fatalf("the intruder: %v\n%s", err, out)
		}
	}
	// The job is intact: a collective and a put still work.
	x := mustAlloc[int64](t, 1)
	shmem.P(&x[0], int64(me+1), (me+1)%2)
	shmem.BarrierAll()
	if want := int64((me+1)%2 + 1); x[0] != want {
		t.Fatalf("x = %d, want %d", x[0], want)
	}
}

// TestIntruder is the process TestSecondAttachRejected starts.
func TestIntruder(t *testing.T) {
	if os.Getenv("GOSHMEM_INTRUDER") != "1" {
		t.Skip("started by TestSecondAttachRejected only")
	}
	err := shmem.Init()
	if err == nil {
		t.Fatal("Init joined a running job as an existing PE")
	}
	t.Log(err)
	if pid := strconv.Itoa(os.Getpid()); strings.Contains(err.Error(), "by pid "+pid) {
		t.Fatalf("the slot names this process: %v", err)
	}
}
