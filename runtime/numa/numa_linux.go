package numa

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mbind sets the NUMA policy mode (MPOL_*) over nodes on [addr, addr+length),
// which must be page-aligned. For MPOL_DEFAULT and MPOL_LOCAL nodes must be empty.
// Pages already touched keep their place unless flags holds MPOL_MF_MOVE.
func Mbind(addr, length uintptr, mode int, nodes []int, flags int) error {
	mask, err := nodeMask("numa.Mbind", nodes)
	if err != nil {
		return err
	}
	var maskPtr unsafe.Pointer
	if len(mask) > 0 {
		maskPtr = unsafe.Pointer(&mask[0])
	}
	// maxnode counts bits and the kernel reads one fewer than it is told
	// (mm/mempolicy.c get_nodes), hence the +1, as libnuma passes.
	maxnode := uintptr(len(mask)*64 + 1)
	_, _, errno := unix.Syscall6(unix.SYS_MBIND, addr, length, uintptr(mode), uintptr(maskPtr), maxnode, uintptr(flags))
	if errno != 0 {
		return fmt.Errorf("numa.Mbind(%#x, %d, mode %d, nodes %v): %w", addr, length, mode, nodes, errno)
	}
	return nil
}

// NodesOfPages returns the node of the page holding each address (move_pages
// with no target nodes only reports). An entry is negative when the kernel
// reports an error for that page: -ENOENT (-2) for a page not yet touched,
// -EFAULT (-14) for an address not mapped.
func NodesOfPages(addrs []uintptr) ([]int, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	status := make([]int32, len(addrs))
	_, _, errno := unix.Syscall6(unix.SYS_MOVE_PAGES, 0, uintptr(len(addrs)),
		uintptr(unsafe.Pointer(&addrs[0])), 0, uintptr(unsafe.Pointer(&status[0])), 0)
	if errno != 0 {
		return nil, fmt.Errorf("numa.NodesOfPages: move_pages over %d pages: %w", len(addrs), errno)
	}
	out := make([]int, len(addrs))
	for i, s := range status {
		out[i] = int(s)
	}
	return out, nil
}
