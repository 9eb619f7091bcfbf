package rt

import "unsafe"

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
	}, true
}
