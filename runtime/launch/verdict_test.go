package launch

import (
	"syscall"
	"testing"

	"github.com/goshmem/shmem/runtime/shm"
)

func TestVerdict(t *testing.T) {
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	killed := func(s syscall.Signal) syscall.WaitStatus { return syscall.WaitStatus(s) }
	for _, c := range []struct {
		name   string
		f      exitFacts
		how    string
		status int
	}{
		{"a program without Init, alone", exitFacts{exited(0), shm.StateNone, false, -1}, "", 0},
		{"a program without Init, others run it too", exitFacts{exited(0), shm.StateNone, true, -1}, "", 0},
		{"no Init while another called it", exitFacts{exited(0), shm.StateNone, true, 3}, notInitialized(3), 1},
		{"finalized, others run", exitFacts{exited(0), shm.StateFinalized, true, 1}, "", 0},
		{"no Finalize, others run", exitFacts{exited(0), shm.StateRunning, true, 1}, "exited with status 0 before shmem.Finalize", 1},
		{"no Finalize, the last", exitFacts{exited(0), shm.StateRunning, false, -1}, "", 0},
		{"a panic, others run", exitFacts{exited(2), shm.StateRunning, true, 0}, "exited with status 2", 2},
		{"non-zero after Finalize, others run", exitFacts{exited(5), shm.StateFinalized, true, 0}, "exited with status 5", 5},
		{"non-zero, the last", exitFacts{exited(5), shm.StateRunning, false, -1}, "", 0},
		{"non-zero without Init, others run", exitFacts{exited(7), shm.StateNone, true, -1}, "exited with status 7", 7},
		{"killed", exitFacts{killed(syscall.SIGKILL), shm.StateRunning, true, 0}, "killed by SIGKILL", 128 + 9},
		{"killed, the last", exitFacts{killed(syscall.SIGSEGV), shm.StateNone, false, -1}, "killed by SIGSEGV", 128 + 11},
	} {
		how, status := verdict(c.f)
		if how != c.how || status != c.status {
			t.Errorf("%s: %q %d, want %q %d", c.name, how, status, c.how, c.status)
		}
	}
}
