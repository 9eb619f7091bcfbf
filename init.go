package shmem

import (
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Init joins the job shmemrun started, or makes this process a job of one PE when it was
// started without shmemrun. It synchronizes with every PE. A malformed setting (an unknown
// SHMEM_*_ALGORITHM, say) is an error that names the variable and the valid values.
func Init() error { return rt.Init() }

// Finalize synchronizes with every PE and leaves the job. Call it before main returns:
// shmemrun reports a PE that exits without it while others still run, and ends the job.
func Finalize() { rt.Finalize() }

// MyPE is this PE's number in [0, NPEs()).
func MyPE() int { rt.Check("shmem.MyPE"); return rt.MyPE() }

// NPEs is the number of PEs in the job.
func NPEs() int { rt.Check("shmem.NPEs"); return rt.NPEs() }

// GlobalExit ends every PE of the job; shmemrun exits with status. The other PEs flush their
// buffered output before they exit. A status outside [0,255] becomes 255, with a message.
func GlobalExit(status int) { rt.GlobalExit(status) }

// InfoGetVersion is the OpenSHMEM version implemented (shmem_info_get_version).
func InfoGetVersion() (major, minor int) { return rt.SpecMajor, rt.SpecMinor }

// InfoGetName is the implementation's name (shmem_info_get_name).
func InfoGetName() string { return rt.Vendor + " " + rt.Version }

// PEAccessible reports whether PE pe can be reached: every PE of a job can.
func PEAccessible(pe int) bool {
	rt.Check("shmem.PEAccessible")
	return pe >= 0 && pe < rt.NPEs()
}

// AddrAccessible reports whether p is symmetric memory reachable on PE pe.
func AddrAccessible[T any](p *T, pe int) bool {
	rt.Check("shmem.AddrAccessible")
	return PEAccessible(pe) && rt.InHeap(unsafe.Pointer(p), unsafe.Sizeof(*p))
}

// Ptr is a direct pointer to PE pe's copy of the symmetric object *p (shmem_ptr): loads
// and stores through it reach the peer's memory. Waiters sleeping on a futex are not woken
// by plain stores through it; they notice within a millisecond. It is nil when pe is on
// another node.
func Ptr[T any](p *T, pe int) *T {
	rt.Check("shmem.Ptr")
	rt.CheckPE("shmem.Ptr", pe)
	rt.CheckSym("shmem.Ptr", "p", unsafe.Pointer(p), unsafe.Sizeof(*p))
	if !rt.Local(pe) {
		return nil
	}
	return (*T)(rt.Remote(unsafe.Pointer(p), pe))
}

// Quiet completes every put, AMO and store this PE issued: they are visible to every PE
// before anything this PE does after Quiet. It is a full memory barrier (SFENCE and a
// locked no-op on amd64, DMB ISH on arm64): on shared memory each transfer is done when its
// call returns.
func Quiet() { rt.Check("shmem.Quiet"); rt.Quiet() }

// Fence orders this PE's puts to each PE before its later puts to that PE. It is a store
// barrier (SFENCE on amd64, DMB ISHST on arm64).
func Fence() { rt.Check("shmem.Fence"); rt.Fence() }

// PEQuiet completes this PE's puts, AMOs, put-with-signals and non-blocking gets to the PEs
// pes only (OpenSHMEM 1.6's shmem_pe_quiet), with Quiet's guarantees towards them; PEQuiet()
// does nothing. On one node it is Quiet's full barrier (every operation is complete when
// its call returns); towards other nodes it waits only for those PEs' operations, on
// CtxDefault's own network resources. A PE out of range panics naming it.
func PEQuiet(pes ...int) {
	rt.Check("shmem.PEQuiet")
	rt.PEQuiet(rt.DefaultCtx, "shmem.PEQuiet", "pes", pes)
}

// BarrierAll completes this PE's puts and waits until every PE has called it. It needs no
// work array (shmem_barrier_all).
func BarrierAll() { rt.BarrierAll() }

// SyncAll waits until every PE has called it, without completing puts (shmem_sync_all).
func SyncAll() { rt.Check("shmem.SyncAll"); rt.SyncAll() }

func sliceAddr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

func sizeOf[T any]() uintptr {
	var z T
	return unsafe.Sizeof(z)
}
