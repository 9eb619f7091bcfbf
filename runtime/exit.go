package rt

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/goshmem/shmem/runtime/shm"
)

// GlobalExit ends the job with status: it records the status for the launcher (the first
// caller's status wins), wakes the launcher and every sleeping PE (their waits see the
// request and exit), and exits this PE. The launcher asks the PEs that are not waiting to
// exit with shm.ExitSignal, so they too flush their buffered output first. A status
// outside [0,255] cannot be an exit status (256 would read as success): it becomes 255,
// and the PE says so (ExitStatus, which the public routines call with their name).
func GlobalExit(status int) {
	status = ExitStatus("shmem.GlobalExit", status)
	if state.Load() == stateRunning && engine != nil {
		// A PMIx launcher ends the job on every node; C's stdio is flushed first (exit
		// runs onExit again: flushing twice is harmless).
		for _, f := range onExit {
			f()
		}
		engine.NoticeExit(status)
		abortJob(status, fmt.Sprintf("goshmem: PE %d on %s called shmem_global_exit(%d)", me, Host(me), status))
	}
	if state.Load() == stateRunning && !singlePE {
		if atomic.CompareAndSwapUint32(&hdr.ExitRequested, 0, 2) {
			atomic.StoreInt32(&hdr.ExitStatus, int32(status))
			atomic.StoreUint32(&hdr.ExitRequested, 1)
		}
		atomic.AddUint32(&hdr.JobBell, 1)
		shm.FutexWake(&hdr.JobBell, 1<<30)
		for pe := range npes {
			seg := obj.SegHeader(pe)
			atomic.AddUint32(&seg.Bell, 1)
			shm.FutexWake(&seg.Bell, 1<<30)
		}
	}
	exit(status)
}

// ExitStatus is status when it is a valid exit status, else 255 with a message naming who.
func ExitStatus(who string, status int) int {
	if status >= 0 && status <= 255 {
		return status
	}
	fmt.Fprintf(os.Stderr, "%s: status %d is outside the exit statuses [0,255]: exiting with 255\n", who, status)
	return 255
}

// onExit holds what must run before the engine itself ends this PE (GlobalExit, or a job
// ending): the C ABI flushes C's stdio buffers there.
var onExit []func()

// OnExit registers f to run before the engine exits the process.
func OnExit(f func()) { onExit = append(onExit, f) }

func exit(status int) {
	for _, f := range onExit {
		f()
	}
	os.Exit(status)
}

// exitOnRequest makes this PE exit, running the exit hooks, when the launcher sends
// shm.ExitSignal after another PE's GlobalExit: a PE computing outside any wait would
// otherwise be killed with its output still in its buffers.
func exitOnRequest() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, shm.ExitSignal)
	go func() {
		for range c {
			if atomic.LoadUint32(&hdr.ExitRequested) == 1 {
				exit(int(atomic.LoadInt32(&hdr.ExitStatus)))
			}
		}
	}()
}
