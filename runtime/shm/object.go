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
// sizes it and maps it, and writes the header. The memfd has no name in /dev/shm and its
// mode is 0600, so only processes handed the descriptor can reach it.
func Create(l Layout, flags uint32) (*Object, error) {
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
	o, err := mapObject(fd, l)
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

// Open maps the object behind an inherited descriptor and checks its header.
func Open(fd int) (*Object, error) {
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
	l := Layout{NPEs: int(h.NPEs), HeapSize: uintptr(h.HeapSize), SegSize: uintptr(h.SegSize),
		SegOffset: uintptr(h.SegOffset), Total: uintptr(h.TotalSize)}
	if int64(l.Total) != st.Size {
		return nil, fmt.Errorf("fd %d: object is %d bytes, header says %d", fd, st.Size, l.Total)
	}
	return mapObject(fd, l)
}

func mapObject(fd int, l Layout) (*Object, error) {
	mem, err := unix.Mmap(fd, 0, int(l.Total), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of shared object: %w", l.Total, err)
	}
	return &Object{Fd: fd, Mem: mem, Layout: l}, nil
}

// Close unmaps the object and closes its descriptor.
func (o *Object) Close() error {
	err := unix.Munmap(o.Mem)
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
