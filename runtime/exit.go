package rt

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/goshmem/shmem/runtime/shm"
)

// GlobalExit ends the job with status: it records the status for the launcher (the first
// caller's status wins), wakes the launcher and every sleeping PE (their waits see the
// request and exit), and exits this PE. The launcher ends PEs that are not waiting.
func GlobalExit(status int) {
	if state.Load() == stateRunning && engine != nil {
		// A PMIx launcher ends the job on every node; C's stdio is flushed first (exit
		// runs onExit again: flushing twice is harmless).
		for _, f := range onExit {
			f()
		}
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
