package rt

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Distributed locks (shmem_set_lock, shmem_test_lock, shmem_clear_lock) on a symmetric
// 64-bit word, zero when free: an MCS queue lock, so waiters get the lock in the order they
// asked for it and each waits on its own PE's memory (through Await: it spins, yields and
// sleeps as every wait does), not on a shared word.
//
// The word's two 32-bit halves (little-endian):
//
//	low, on the lock's home PE only: the queue's tail, the last requester's PE + 1 (0: free)
//	high, on every PE: that PE's queue node, lockWaiting | the next requester's PE + 1
//
// The home PE is spread over the job by the word's heap offset, so distinct locks do not all
// contend on PE 0. A requester clears its node, swaps itself into the tail and, if there was
// a predecessor, links itself into the predecessor's node and waits for its own node's
// lockWaiting bit to clear; the holder releases by removing itself from the tail, or, if a
// successor has queued, by clearing the successor's bit.

const (
	lockWaiting  = 1 << 31
	lockNextMask = lockWaiting - 1
)

// A lock also excludes the PE's other goroutines (a C program's threads): the queue has one
// node per PE, so a second request from the same PE would overwrite the first one's node or
// queue behind itself (SOS's mt_locking, 16 threads per PE on one lock, hung, or cleared a
// lock twice). A request first takes the lock's claim on this PE, held until ClearLock; a
// goroutine of a PE that already holds or requests the lock waits for the claim as for
// another PE.
var lockClaims sync.Map // the lock's address (uintptr) → *atomic.Bool, true while claimed

func lockClaim(p unsafe.Pointer) *atomic.Bool {
	if c, ok := lockClaims.Load(uintptr(p)); ok {
		return c.(*atomic.Bool)
	}
	c, _ := lockClaims.LoadOrStore(uintptr(p), new(atomic.Bool))
	return c.(*atomic.Bool)
}

// lockHome is the PE whose copy of the lock word holds the queue's tail.
func lockHome(p unsafe.Pointer) int { return int(Offset(p)/8) % npes }

func lockCheck(who string, p unsafe.Pointer) {
	Check(who)
	if p == nil {
		panic(who + ": lock is a null pointer")
	}
	if uintptr(p)&7 != 0 {
		panic(fmt.Sprintf("%s: lock %#x is not 8-byte aligned", who, uintptr(p)))
	}
	CheckSym(who, "lock", p, 8)
}

// The lock's halves: the tail (on the home PE), and a node (any PE's).
func lockTail(p unsafe.Pointer) unsafe.Pointer { return p }
func lockNode(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, 4) }

func lockAMO(who string, op AMOOp, q unsafe.Pointer, v, cond uint32, pe int) uint32 {
	return uint32(DefaultCtx.AMO(who, op, 4, q, uint64(v), uint64(cond), pe))
}

// SetLock waits until this PE holds the lock at p (shmem_set_lock), for the calling
// goroutine. Not reentrant: a PE that holds the lock and asks again waits forever (reported
// as a hang).
func SetLock(who string, p unsafe.Pointer) {
	lockCheck(who, p)
	if claim := lockClaim(p); !claim.CompareAndSwap(false, true) {
		Await(who, WaitLock, -1, func() bool { return claim.CompareAndSwap(false, true) })
	}
	node := (*uint32)(lockNode(p))
	atomic.StoreUint32(node, lockWaiting)
	prev := lockAMO(who, AMOSwap, lockTail(p), uint32(me+1), 0, lockHome(p))
	if prev == 0 {
		return // the lock was free
	}
	lockAMO(who, AMOFetchOr, lockNode(p), uint32(me+1), 0, int(prev-1))
	Await(who, WaitLock, int(prev-1), func() bool { return atomic.LoadUint32(node)&lockWaiting == 0 })
}

// TestLock takes the lock at p if it is free and reports whether it did (shmem_test_lock
// returns 0 then).
func TestLock(who string, p unsafe.Pointer) bool {
	lockCheck(who, p)
	claim := lockClaim(p)
	if claim.CompareAndSwap(false, true) {
		atomic.StoreUint32((*uint32)(lockNode(p)), lockWaiting)
		if lockAMO(who, AMOCompareSwap, lockTail(p), uint32(me+1), 0, lockHome(p)) == 0 {
			return true
		}
		claim.Store(false)
	}
	Idle()
	return false
}

// ClearLock releases the lock at p, which this PE holds, after completing its outstanding
// operations (a Quiet), so the next holder sees them (shmem_clear_lock).
func ClearLock(who string, p unsafe.Pointer) {
	lockCheck(who, p)
	claim := lockClaim(p)
	if !claim.Load() {
		panic(who + ": the lock is not held")
	}
	defer claim.Store(false)
	Quiet()
	node := (*uint32)(lockNode(p))
	next := atomic.LoadUint32(node) & lockNextMask
	if next == 0 {
		if lockAMO(who, AMOCompareSwap, lockTail(p), 0, uint32(me+1), lockHome(p)) == uint32(me+1) {
			atomic.StoreUint32(node, 0)
			return // nobody queued
		}
		if atomic.LoadUint32(node)&lockNextMask == 0 && lockTailHolder(p) == 0 {
			panic(who + ": the lock is not held")
		}
		// A requester took the tail but has not linked itself yet: wait for it.
		Await(who, WaitLock, -1, func() bool { return atomic.LoadUint32(node)&lockNextMask != 0 })
		next = atomic.LoadUint32(node) & lockNextMask
	}
	atomic.StoreUint32(node, 0)
	lockAMO(who, AMOFetchAnd, lockNode(p), ^uint32(lockWaiting), 0, int(next-1))
}

// lockTailHolder is the lock's tail (the last requester's PE + 1, 0 if free).
func lockTailHolder(p unsafe.Pointer) uint32 {
	return lockAMO("lock", AMOFetch, lockTail(p), 0, 0, lockHome(p))
}
