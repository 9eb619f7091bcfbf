package launch

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/goshmem/shmem/runtime/numa"
	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// What a placement means for a job: each PE's CPUs (pinned before its fork), its record in
// the control block's placement map (the input of every PE's algorithm choice), whether
// PEs share CPUs (the wait policy), and the NUMA policy of each heap segment.

func init() {
	if unsafe.Sizeof(topology.PEPlace{}) > shm.PlaceSize {
		panic("launch: topology.PEPlace does not fit a slot's placement record")
	}
}

// placeRecord is p as the bytes of a slot's placement record.
func placeRecord(p topology.PEPlace) (r [shm.PlaceSize]byte) {
	*(*topology.PEPlace)(unsafe.Pointer(&r[0])) = p
	return r
}

// unplaced is the record of a PE with no known placement: every level unknown.
var unplaced = topology.PEPlace{Socket: -1, NUMA: -1, L3: -1, Core: -1, CPU: -1}

// applyNUMA binds each PE's segment to its node (or interleaves it) and interleaves the
// control block, before any page is touched. Where the kernel has no NUMA support the
// segments are left where first touch puts them.
func applyNUMA(o *shm.Object, t *topology.Topology, bs []topology.Binding) error {
	base := o.Base()
	apply := func(addr, length uintptr, p topology.MemPolicy) error {
		err := numa.Apply(addr, length, p)
		if errors.Is(err, errors.ErrUnsupported) {
			return nil
		}
		return err
	}
	if err := apply(base, o.Layout.SegOffset, topology.ControlBlockPolicy(t, bs)); err != nil {
		return fmt.Errorf("NUMA policy of the control block: %w", err)
	}
	for i, b := range bs {
		if err := apply(uintptr(o.Segment(i)), o.Layout.SegSize, topology.SegmentPolicy(t, b, bs)); err != nil {
			return fmt.Errorf("NUMA policy of PE %d's segment: %w", i, err)
		}
	}
	return nil
}
