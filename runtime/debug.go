package rt

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/goshmem/shmem/runtime/shm"
)

// SHMEM_DEBUG=1: cross-PE argument checks and hang reports.

var (
	debug     bool
	hangAfter = 10 * time.Second // a wait this long is reported once (debug only)
)

func debugInit() { debug = conf.Bool("SHMEM_DEBUG") }

// Debug reports whether SHMEM_DEBUG is on.
func Debug() bool { return debug }

// debugAgree checks, in debug mode, that every PE passed the same value for a collective
// allocation's argument; a PE that disagrees reports all values and ends the job.
func debugAgree(who, what string, v uint64) {
	if !debug {
		return
	}
	vals := World.allgatherWord(who, v)
	for pe, x := range vals {
		if x != vals[0] {
			msg := fmt.Sprintf("%s: PEs passed different %s: PE 0 passed %d, PE %d passed %d", who, what, vals[0], pe, x)
			if me == 0 || me == pe {
				fmt.Fprintln(os.Stderr, msg)
			}
			GlobalExit(1)
		}
	}
}

// debugHang prints, once per wait, where a PE has waited for longer than hangAfter.
func debugHang(slot *shm.Slot) {
	if !debug {
		return
	}
	since := atomic.LoadInt64(&slot.WaitSince)
	if since == 0 || time.Since(time.Unix(0, since)) < hangAfter {
		return
	}
	if atomic.CompareAndSwapInt64(&slot.WaitSince, since, 0) {
		fmt.Fprintf(os.Stderr, "shmem: PE %d has waited %v in %s (word %d)\n", me, hangAfter, WaitName(atomic.LoadUint32(&slot.WaitOp)), atomic.LoadInt32(&slot.WaitArg))
	}
}
