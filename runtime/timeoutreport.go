package rt

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A launcher's timeout across nodes: shmemrun --hosts --timeout cannot read the other
// nodes' slots as the one-node launcher reads its job's, so when the timeout expires it
// sends SIGUSR2 through mpirun or srun (both pass it to every PE) and ends the job a second
// later. With GOSHMEM_TIMEOUT_REPORT set, each node's first PE still running prints a
// line per PE of its node (PEActivity: waiting where and how long, running outside the
// library, stopped, exited), and from then on a lost connection is the job ending, not a
// failed PE to report.

// timeoutReport is GOSHMEM_TIMEOUT_REPORT; endingByTimeout is set once the launcher's
// timeout report was asked for; nodeJoined once the node's object and PEs are known (until
// then a PE is in shmem_init's start-up exchange and reports only itself).
var (
	timeoutReport   bool
	endingByTimeout atomic.Bool
	nodeJoined      atomic.Bool
)

// startTimeoutReport serves SIGUSR2 when the launcher asked for it, from the start of
// shmem_init on (PE pe on host): a PE that never reaches it says nothing (Go ignores
// SIGUSR2 unless asked for it).
func startTimeoutReport(pe int, host string) {
	if timeoutReport = conf.Bool("GOSHMEM_TIMEOUT_REPORT"); !timeoutReport {
		return
	}
	t0 := time.Now()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	go func() {
		for range sig {
			endingByTimeout.Store(true)
			if !nodeJoined.Load() {
				fmt.Fprintf(os.Stderr, "goshmem: PE %d on %s (pid %d): in shmem_init for %v, whose start-up exchange waits for every PE of the job\n",
					pe, host, os.Getpid(), time.Since(t0).Round(time.Millisecond))
				continue
			}
			atomic.StoreUint32(&hdr.TimeoutReport, 1)
			if nodeReporter() == me {
				os.Stderr.WriteString(nodeReport(time.Now()))
			}
		}
	}()
}

// nodeReporter is my node's lowest PE whose process runs (is neither stopped nor gone;
// -1: none).
func nodeReporter() int {
	for _, q := range nodePEs {
		switch procState(int(atomic.LoadInt32(&obj.Slot(q).Pid))) {
		case 0, 'Z', 'X', 'T', 't':
			continue
		}
		return q
	}
	return -1
}

// nodeReport is a line per PE of my node.
func nodeReport(now time.Time) string {
	var b strings.Builder
	for _, q := range nodePEs {
		fmt.Fprintf(&b, "goshmem: PE %d on %s (pid %d): %s\n", q, Host(q), atomic.LoadInt32(&obj.Slot(q).Pid), PEActivity(obj, q, now))
	}
	return b.String()
}

// quietIfTimedOut returns unless a peer lost now is the job ending after a timeout report:
// then there is nothing to report, and the PE waits for the launcher's SIGTERM (exiting by
// itself should that not come). The node's header says so too: a PE stopped while the
// report was asked for gets SIGUSR2 only when the launcher continues it to end it, and its
// waits may see a peer gone before the signal's goroutine has run. No grace period: srun's
// --kill-on-bad-exit ends a really lost PE's peers within 20 ms, and their message with
// them.
func quietIfTimedOut() {
	if !timeoutReport || !endingByTimeout.Load() && (!nodeJoined.Load() || atomic.LoadUint32(&hdr.TimeoutReport) == 0) {
		return
	}
	time.Sleep(10 * time.Second)
	exit(1)
}
