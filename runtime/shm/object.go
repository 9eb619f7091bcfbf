package shm

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Object is one mapping of a job's shared object.
type Object struct {
	Fd     int
	Mem    []byte
	Layout Layout
}

// Create makes the memfd for a job (close-on-exec: the launcher passes it to PEs explicitly),
// sizes it and maps it (for PE pe, see mapObject), and writes the header. The memfd has no
// name in /dev/shm and its mode is 0600, so only processes handed the descriptor can reach it.
func Create(l Layout, flags uint32, pe int) (*Object, error) {
	fd, err := unix.MemfdCreate("goshmem", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	if err := unix.Fchmod(fd, 0o600); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("fchmod memfd: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(l.Total)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sizing the shared object to %d bytes: %w", l.Total, err)
	}
	o, err := mapObject(fd, l, pe)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	h := o.Header()
	h.Version = Version
	h.NPEs = uint32(l.NPEs)
	h.HeapSize = uint64(l.HeapSize)
	h.SegSize = uint64(l.SegSize)
	h.SegOffset = uint64(l.SegOffset)
	h.TotalSize = uint64(l.Total)
	h.LauncherPid = int32(os.Getpid())
	h.Flags = flags
	h.Magic = Magic
	return o, nil
}

// Open maps the object behind an inherited descriptor for PE pe, after checking its header:
// identity, and a geometry NewLayout would compute (a header with the right magic but
// impossible sizes must not become a mapping that faults).
func Open(fd, pe int) (*Object, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("fd %d: %w", fd, err)
	}
	if st.Size < SlotsOffset {
		return nil, fmt.Errorf("fd %d: %d bytes is too small for a goshmem control block", fd, st.Size)
	}
	hdr, err := unix.Mmap(fd, 0, int(unsafe.Sizeof(Header{})), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the control block: %w", err)
	}
	h := *(*Header)(unsafe.Pointer(&hdr[0]))
	unix.Munmap(hdr)
	if h.Magic != Magic || h.Version != Version {
		return nil, fmt.Errorf("fd %d is not a goshmem %d object (magic %#x version %d)", fd, Version, h.Magic, h.Version)
	}
	l, err := CheckHeader(&h)
	if err != nil {
		return nil, fmt.Errorf("fd %d: %w", fd, err)
	}
	if int64(l.Total) != st.Size {
		return nil, fmt.Errorf("fd %d: object is %d bytes, header says %d", fd, st.Size, l.Total)
	}
	if pe < 0 || pe >= l.NPEs {
		return nil, fmt.Errorf("PE %d out of range [0,%d)", pe, l.NPEs)
	}
	return mapObject(fd, l, pe)
}

// CheckHeader is the layout a header describes, or an error when its geometry is not one
// NewLayout makes.
func CheckHeader(h *Header) (Layout, error) {
	l, err := NewLayout(int(h.NPEs), h.HeapSize)
	if err == nil && (uint64(l.HeapSize) != h.HeapSize || uint64(l.SegSize) != h.SegSize || uint64(l.SegOffset) != h.SegOffset || uint64(l.Total) != h.TotalSize) {
		err = fmt.Errorf("%d PEs of %d bytes need segments of %d bytes from offset %d, %d bytes in all", l.NPEs, l.HeapSize, l.SegSize, l.SegOffset, l.Total)
	}
	if err != nil {
		return Layout{}, fmt.Errorf("control block with impossible geometry (%d PEs, heap %d, segments %d from %d, total %d): %v",
			h.NPEs, h.HeapSize, h.SegSize, h.SegOffset, h.TotalSize, err)
	}
	return l, nil
}

// mapObject maps the object so that PE pe's heap starts at an address aligned to
// l.HeapAlign(): an allocation aligned within the heap is then aligned in memory, alike on
// every PE (each maps the object so that its own heap is aligned). The mapping is not
// inherited by fork: a PE's child process must not keep the whole job's memory mapped.
func mapObject(fd int, l Layout, pe int) (*Object, error) {
	a := l.HeapAlign()
	at := l.SegOffset + uintptr(pe)*l.SegSize + ReservedSize // the heap's offset in the object
	span := l.Total + a
	res, err := unix.MmapPtr(-1, 0, nil, span, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("reserving %d bytes of address space for the shared object: %w", span, err)
	}
	start := uintptr(res)
	skip := (start+at+a-1)&^(a-1) - at - start
	p, err := unix.MmapPtr(fd, 0, unsafe.Add(res, skip), l.Total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_FIXED)
	if err != nil {
		unix.MunmapPtr(res, span)
		return nil, fmt.Errorf("mapping %d bytes of shared object: %w", l.Total, err)
	}
	if skip > 0 {
		unix.MunmapPtr(res, skip)
	}
	if rest := span - skip - l.Total; rest > 0 {
		unix.MunmapPtr(unsafe.Add(p, l.Total), rest)
	}
	mem := unsafe.Slice((*byte)(p), l.Total)
	if err := unix.Madvise(mem, unix.MADV_DONTFORK); err != nil {
		unix.MunmapPtr(p, l.Total)
		return nil, fmt.Errorf("marking the shared object not to be inherited by fork: %w", err)
	}
	return &Object{Fd: fd, Mem: mem, Layout: l}, nil
}

// Close unmaps the object and closes its descriptor.
func (o *Object) Close() error {
	err := unix.MunmapPtr(unsafe.Pointer(&o.Mem[0]), uintptr(len(o.Mem)))
	if e := unix.Close(o.Fd); err == nil {
		err = e
	}
	return err
}

// Base is the address of the mapping.
func (o *Object) Base() uintptr { return uintptr(unsafe.Pointer(&o.Mem[0])) }

// Header is the control block's header.
func (o *Object) Header() *Header { return (*Header)(unsafe.Pointer(&o.Mem[0])) }

// Slot is PE pe's record.
func (o *Object) Slot(pe int) *Slot {
	return (*Slot)(unsafe.Pointer(&o.Mem[SlotsOffset+pe*SlotSize]))
}

// Segment is the address of PE pe's segment (its reserved part comes first).
func (o *Object) Segment(pe int) uintptr {
	return o.Base() + o.Layout.SegOffset + uintptr(pe)*o.Layout.SegSize
}

// SegHeader is PE pe's doorbell line.
func (o *Object) SegHeader(pe int) *SegHeader {
	return (*SegHeader)(unsafe.Pointer(&o.Mem[o.Layout.SegOffset+uintptr(pe)*o.Layout.SegSize+ReservedBellOffset]))
}

// Heap is the address of PE pe's user heap.
func (o *Object) Heap(pe int) uintptr { return o.Segment(pe) + ReservedSize }
