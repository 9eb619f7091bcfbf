package shm

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations on a word of the shared object. The object is MAP_SHARED across
// processes, so these are the shared (non-private) futex operations.
const (
	futexWait = 0
	futexWake = 1
)

// FutexWait sleeps while *addr == val, at most d (d <= 0: no limit). Spurious returns are
// normal; callers re-check their condition. It is a raw system call (the Go scheduler keeps
// the thread's P): callers bound d and let other goroutines run between waits.
func FutexWait(addr *uint32, val uint32, d time.Duration) {
	var ts *unix.Timespec
	if d > 0 {
		t := unix.NsecToTimespec(int64(d))
		ts = &t
	}
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait, uintptr(val), uintptr(unsafe.Pointer(ts)), 0, 0)
}

// FutexWake wakes up to n sleepers on addr.
func FutexWake(addr *uint32, n int) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake, uintptr(n), 0, 0, 0)
}

// Yield gives the CPU to another runnable thread (sched_yield), as a raw system call.
func Yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
