package shmem

import (
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Distributed locks: a lock is a symmetric int64, zero when free (allocate it zeroed with
// Calloc, or set it to 0 on every PE before first use), used by every PE at the same
// address. SetLock, TestLock and ClearLock give mutual exclusion across PEs:
//
//	lock, err := shmem.Calloc[int64](1) // collective: every PE allocates it
//	...
//	shmem.SetLock(&lock[0])
//	... // update shared data; only one PE at a time is here
//	shmem.ClearLock(&lock[0]) // completes this PE's puts first (a Quiet)
//
// The lock is a queue (MCS) lock, as Sandia OpenSHMEM's: PEs get it in the order they asked
// for it, and each waits on its own memory, spinning, yielding or sleeping as every wait of
// this PE does, so many PEs sharing few CPUs make progress. It is not reentrant: a PE that
// holds a lock and sets it again waits forever (reported as a hang). It excludes the PE's
// other goroutines too: while one holds it, SetLock waits and TestLock fails in the others
// (any of them may clear it; the PE holds it).

// SetLock waits until this PE holds the lock (shmem_set_lock).
func SetLock(lock *int64) { rt.SetLock("shmem.SetLock", unsafe.Pointer(lock)) }

// TestLock takes the lock if it is free and reports whether it did; it does not wait
// (shmem_test_lock, which returns 0 when it took the lock).
func TestLock(lock *int64) bool { return rt.TestLock("shmem.TestLock", unsafe.Pointer(lock)) }

// ClearLock completes this PE's outstanding operations (a Quiet) and releases the lock,
// which this PE holds, to the next PE waiting for it (shmem_clear_lock).
func ClearLock(lock *int64) { rt.ClearLock("shmem.ClearLock", unsafe.Pointer(lock)) }
