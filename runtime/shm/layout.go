// Package shm defines the shared object every PE of a job maps: its layout (a control block,
// then one segment per PE), the creation and mapping of the memfd that holds it, and the
// low-level primitives that operate on it (futex, memory barriers, spin hints).
//
// The launcher and the PEs both import this package; it imports nothing of the project, so
// both sides agree on the layout by construction.
package shm

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Magic and Version identify a control block; a PE refuses an object with other values.
const (
	Magic   = 0x316d656d68736f67 // "goshmem1" little-endian
	Version = 1
)

// Sizes of the layout. Segments and the control block are 2 MiB aligned so the kernel can
// back them with transparent huge pages and so NUMA policies apply to whole segments.
const (
	Align        = 2 << 20
	SlotSize     = 512       // per-PE record in the control block
	SlotsOffset  = 4096      // slots start on the control block's second page
	ReservedSize = 2 << 20   // runtime part at the start of each segment (see Reserved*)
	MaxPEs       = 1 << 14   // bounded so the control block stays small
	MaxTeams     = 64        // team slots per PE (bit mask of free slots is a uint64)
	TeamAreaSize = 4096      // per-team synchronization words in each segment: two areas
	SyncWords    = 256       // words in one synchronization area (a pSync)
	ScratchSize  = 1 << 20   // per-PE collective scratch in the reserved part
	DefaultHeap  = 256 << 20 // SHMEM_SYMMETRIC_SIZE default, per PE
)

// Offsets inside a segment's reserved part.
const (
	ReservedBellOffset      = 0         // SegHeader: doorbell and sleeper count, own cache line
	ReservedWorldSyncOffset = 4096      // the world team's call count and eager mark (rt's teamSync), own cache line
	ReservedTeamsOffset     = 64 << 10  // MaxTeams × TeamAreaSize
	ReservedCreditOffset    = 384 << 10 // across nodes: a word per PE, the broadcast mail that PE has taken from me (MaxPEs words)
	ReservedDebugOffset     = 512 << 10 // SHMEM_DEBUG: two meeting words, a mail channel's word (its address only); own cache line
	ReservedScratchOff      = 1 << 20   // ScratchSize bytes
	reservedEnd             = ReservedScratchOff + ScratchSize
)

// SyncValue is what a pSync word holds between collectives: the engine counts up from it.
const SyncValue = 0

// ExitSignal is what the launcher sends the PEs after a GlobalExit: the engine in each PE
// catches it and exits with the job's status after flushing buffered output. A real-time
// signal, which programs rarely use (glibc reserves the first two).
const ExitSignal = syscall.Signal(40)

// Job flags in Header.Flags.
const (
	FlagSharedCPUs = 1 << iota // some PEs share CPUs: waits must yield and sleep
	FlagDebug                  // SHMEM_DEBUG=1: cross-PE checks
)

// PlaceSize is the size of a PE's placement record in its slot.
const PlaceSize = 64

// Slot states.
const (
	StateNone      = 0
	StateRunning   = 1
	StateFinalized = 2
)

// Header is the first cache lines of the control block. Fields that change while the job
// runs are accessed atomically.
type Header struct {
	Magic       uint64
	Version     uint32
	NPEs        uint32
	HeapSize    uint64 // user bytes per PE (SHMEM_SYMMETRIC_SIZE, rounded to Align)
	SegSize     uint64 // ReservedSize + HeapSize
	SegOffset   uint64 // offset of segment 0
	TotalSize   uint64
	LauncherPid int32
	Flags       uint32
	_           [64 - 56]byte

	// Job state (own cache line).
	ExitRequested uint32 // GlobalExit: 0 -> 1 by the first caller
	ExitStatus    int32
	JobBell       uint32 // futex word the launcher sleeps on; bumped on exit requests
	Abort         uint32 // set by the launcher while it tears the job down
	HangReported  uint32 // SHMEM_DEBUG: 0 -> 1 by the one PE that reports a hang
	TimeoutReport uint32 // across nodes: 1 once the launcher's timeout report reached a PE of the node
	_             [64 - 24]byte
}

// Slot is a PE's record in the control block.
type Slot struct {
	Pid   int32
	State uint32
	// Where the PE waits, for hang reports (written by the PE, read by the launcher).
	WaitOp    uint32 // a routine code of the engine; 0 when not waiting
	WaitArg   int32
	WaitSince int64 // unix nanoseconds
	WaitAddr  uint64
	WaitWho   [32]byte // the routine, NUL-padded (truncated), stored before WaitOp
	// Place is the PE's placement record, written by the launcher before the PE starts.
	Place [PlaceSize]byte
	// Coll describes the collective the PE is in (SHMEM_DEBUG=1): peers compare their
	// arguments with it, the launcher's hang report reads it.
	Coll DebugRecord
	_    [SlotSize - 128 - 112]byte
}

// DebugRecord is one collective call's arguments. Seq is a sequence lock: odd while the
// owner writes the other fields, even when they are stable.
type DebugRecord struct {
	Seq     uint64
	Routine [48]byte
	Start   int32 // the group: world PEs Start + i*Stride, i < Size
	Stride  int32
	Size    int32
	Active  int32 // 1 while the PE is inside the collective
	N       int64 // element or byte count (-1: may differ between PEs)
	Root    int64
	Dst     int64 // heap offsets (-1: none)
	Src     int64
	Extra   int64 // strides or operation, per routine
}

// SegHeader is the first cache line of each segment: the PE's doorbell.
type SegHeader struct {
	Bell     uint32 // futex word; bumped by a poster that finds Sleepers != 0
	Sleepers uint32 // waiters that may sleep on Bell
	_        [64 - 8]byte
}

func init() {
	if unsafe.Sizeof(Header{}) != 128 || unsafe.Sizeof(Slot{}) != SlotSize || unsafe.Sizeof(SegHeader{}) != 64 || unsafe.Sizeof(DebugRecord{}) != 112 {
		panic("shm: layout structs have the wrong size")
	}
	if ReservedWorldSyncOffset < ReservedBellOffset+64 || ReservedWorldSyncOffset+64 > ReservedTeamsOffset || ReservedTeamsOffset+MaxTeams*TeamAreaSize > ReservedCreditOffset || ReservedCreditOffset+MaxPEs*8 > ReservedDebugOffset || ReservedDebugOffset+64 > ReservedScratchOff || reservedEnd > ReservedSize {
		panic("shm: reserved part overflows")
	}
}

// Layout is the geometry of one job's object.
type Layout struct {
	NPEs      int
	HeapSize  uintptr // per PE, rounded up to Align
	SegSize   uintptr
	SegOffset uintptr
	Total     uintptr
}

// HeapWithStatic is the heap a layout needs for SHMEM_SYMMETRIC_SIZE's asked bytes and a C
// program's static data beside them (its top, rt.ReserveStatic), overflow-checked.
func HeapWithStatic(asked, static uint64) (uint64, error) {
	if asked+static < asked {
		return 0, fmt.Errorf("SHMEM_SYMMETRIC_SIZE %d and the program's static data (%d bytes) overflow", asked, static)
	}
	return asked + static, nil
}

// NewLayout computes the layout for npes PEs with heapSize user bytes each.
func NewLayout(npes int, heapSize uint64) (Layout, error) {
	if npes < 1 || npes > MaxPEs {
		return Layout{}, fmt.Errorf("%d PEs out of range [1,%d]", npes, MaxPEs)
	}
	if heapSize == 0 {
		return Layout{}, fmt.Errorf("symmetric heap size must be positive")
	}
	h := roundUp(heapSize, Align)
	seg := h + ReservedSize
	off := roundUp(uint64(SlotsOffset+npes*SlotSize), Align)
	total := off + uint64(npes)*seg
	if h < heapSize || total/seg < uint64(npes) || total > 1<<46 {
		return Layout{}, fmt.Errorf("%d PEs × %d bytes of symmetric heap do not fit in the address space", npes, heapSize)
	}
	return Layout{NPEs: npes, HeapSize: uintptr(h), SegSize: uintptr(seg), SegOffset: uintptr(off), Total: uintptr(total)}, nil
}

// MaxHeapAlign bounds HeapAlign: the address space a mapping reserves to align its heap.
const MaxHeapAlign = 1 << 40

// HeapAlign is the alignment of a PE's heap in its own mapping, so the largest alignment
// an allocation can have: the heap's size rounded up to a power of two (at most
// MaxHeapAlign).
func (l Layout) HeapAlign() uintptr {
	a := uintptr(Align)
	for a < l.HeapSize && a < MaxHeapAlign {
		a <<= 1
	}
	return a
}

func roundUp(x, a uint64) uint64 { return (x + a - 1) / a * a }
