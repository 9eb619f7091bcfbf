package rt

import (
	"sync/atomic"
	"unsafe"
)

// CABIView is what the C ABI (package cabi) copies into plain C variables at shmem_init so
// that its C code can do puts, gets, AMOs, quiet and fence itself, without a call into Go
// (a cgo transition costs more than the operation). The C code repeats what this package
// does for those routines on the shared-memory transport: Remote's translation, InHeap's
// bounds, and after a write Notify's or NotifyAtomic's doorbell protocol; anything else
// (bad input, a PE reached through another transport) calls the Go entry point.
type CABIView struct {
	Me, NPEs int
	HeapLo   uintptr // my symmetric heap [HeapLo, HeapLo+HeapSize)
	HeapSize uintptr
	SegSize  uintptr // PE pe's copy of my symmetric address p is p + (pe-Me)*SegSize
	// Sleepers is my segment's count of sleeping waiters; PE pe's is (pe-Me)*SegSize bytes
	// away. When MayWake, a poster loads it after its write (after a full fence if the write
	// was a plain store) and, only if it is non-zero, rings with NotifyAtomic(pe).
	Sleepers  unsafe.Pointer
	MayWake   bool // some waiter may sleep: posters must ring doorbells
	SleepWait bool // this PE's waits yield and sleep: a failed test must call Idle
	Direct    bool // every PE is reached through shared memory (the shared-memory transport)
	// MultiNode: some PEs are on other nodes, reached through the multi-node engine (in
	// Go); Local(pe) tells the others.
	MultiNode bool
	// PairSync, when not nil, is the world team's teamSync (its call count, then its eager
	// mark) and the world's barrier is barrierPair: BarrierAll and SyncAll are then
	// Team.pairSync, which C repeats on these words. PairLine is barrierPair's line on PE 0
	// (the world's first area's; member i's flag is its word i), PairOther the other PE,
	// PairPollFirst whether the wait loads before its first pause (pairPollFirst).
	PairSync      unsafe.Pointer
	PairLine      unsafe.Pointer
	PairOther     int
	PairPollFirst bool
}

// CABI is the C ABI's view of the job while this PE runs; ok is false before Init and after
// Finalize.
func CABI() (v CABIView, ok bool) {
	if !Running() {
		return CABIView{}, false
	}
	direct := true
	for _, t := range transports {
		if t != Transport(shmT) {
			direct = false
		}
	}
	return CABIView{
		Me: me, NPEs: npes,
		HeapLo: heapLo, HeapSize: heapSize, SegSize: uintptr(segSize),
		Sleepers: unsafe.Pointer(&obj.SegHeader(me).Sleepers),
		MayWake:  mayWake, SleepWait: sleepWait, Direct: direct, MultiNode: multiNode,
	}.withPair(), true
}

// withPair fills v's Pair fields when the world's synchronizations are Team.pairSync.
func (v CABIView) withPair() CABIView {
	if World.barrierChoice(); World.pair {
		v.PairSync = unsafe.Pointer(World.s)
		v.PairLine = Remote(teamArea(World.Slot, 0).p, World.G.PE(0))
		v.PairOther = World.G.PE(1 - World.Me)
		v.PairPollFirst = pairPollFirst
	}
	return v
}

// AwaitPair is barrierPair's wait past its first polls, for the C ABI's (which made them):
// until the word at flag (the other member's) holds at least e.
func AwaitPair(flag unsafe.Pointer, e uint64) {
	w := (*uint64)(flag)
	Await("shmem_barrier_all", WaitBarrier, wordDissem, func() bool { return atomic.LoadUint64(w) >= e })
}
