// Package numa wraps the Linux NUMA memory-policy system calls the heap needs and
// golang.org/x/sys lacks: mbind, to place a range on nodes before it is first
// touched, and move_pages in query mode, to read back where pages landed.
//
// Where there is no NUMA policy to set — off Linux, on a kernel built without
// CONFIG_NUMA, under qemu-user — the calls fail with an error for which
// errors.Is(err, errors.ErrUnsupported) holds, so a caller can go on unplaced.
package numa

import (
	"fmt"

	"github.com/goshmem/shmem/topology"
)

// Memory policy modes (linux/mempolicy.h).
const (
	MPOL_DEFAULT    = 0
	MPOL_PREFERRED  = 1
	MPOL_BIND       = 2
	MPOL_INTERLEAVE = 3
	MPOL_LOCAL      = 4
)

// mbind flags.
const (
	MPOL_MF_STRICT   = 1 << 0 // fail if existing pages do not follow the policy
	MPOL_MF_MOVE     = 1 << 1 // move this process's pages that do not
	MPOL_MF_MOVE_ALL = 1 << 2
)

// Apply sets the policy p (from topology.SegmentPolicy or ControlBlockPolicy) on
// [addr, addr+length), which must be page-aligned and not yet touched.
func Apply(addr, length uintptr, p topology.MemPolicy) error {
	switch p.Mode {
	case topology.MemBind:
		return Mbind(addr, length, MPOL_BIND, p.Nodes, 0)
	case topology.MemInterleave:
		return Mbind(addr, length, MPOL_INTERLEAVE, p.Nodes, 0)
	}
	return fmt.Errorf("numa.Apply: unknown policy mode %d", p.Mode)
}

// nodeMask is the kernel's nodemask for nodes: one bit per node, in words.
func nodeMask(routine string, nodes []int) ([]uint64, error) {
	var mask []uint64
	for _, n := range nodes {
		if n < 0 || n >= 1<<16 {
			return nil, fmt.Errorf("%s: node %d out of range", routine, n)
		}
		for n/64 >= len(mask) {
			mask = append(mask, 0)
		}
		mask[n/64] |= 1 << (n % 64)
	}
	return mask, nil
}
