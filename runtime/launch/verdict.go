package launch

import (
	"fmt"
	"syscall"

	"github.com/goshmem/shmem/runtime/shm"
)

// exitFacts is what the launcher knows when a PE exits.
type exitFacts struct {
	ws            syscall.WaitStatus
	state         uint32 // the PE's slot: shm.StateNone (never called Init), StateRunning, StateFinalized
	othersRunning bool   // some other PE has not exited
	initPE        int    // another PE that has called Init, or -1
}

// verdict decides whether a PE's exit fails the job, as mpirun and oshrun decide: any
// program may run (shmemrun -n 2 hostname), so a PE that never called Init and exits 0 is
// fine, unless another PE called Init and so waits for it; a PE that called Init and exits
// before Finalize while others run is an error, as is a non-zero status while others run
// or a death by signal. A failure returns the report's words and the job's status; "" is
// no failure (the job's status is then the highest PE status).
func verdict(f exitFacts) (how string, status int) {
	code := f.ws.ExitStatus()
	switch {
	case f.ws.Signaled():
		return fmt.Sprintf("killed by %s", signame(f.ws.Signal())), 128 + int(f.ws.Signal())
	case !f.othersRunning:
		return "", 0
	case code != 0:
		// Even after Finalize: a PE that fails ends the job rather than leave the others
		// waiting for it.
		return fmt.Sprintf("exited with status %d", code), code
	case f.state == shm.StateRunning:
		return "exited with status 0 before shmem.Finalize", 1
	case f.state == shm.StateNone && f.initPE >= 0:
		return notInitialized(f.initPE), 1
	}
	return "", 0
}

// notInitialized is the report of a PE that exited without Init while another called it.
func notInitialized(initPE int) string {
	return fmt.Sprintf("exited without calling shmem.Init, but PE %d called it (it would wait for this PE forever: every PE of a job calls Init, or none)", initPE)
}
