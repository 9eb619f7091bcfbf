package rt

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// Placement of a node's PEs when a PMIx launcher started the job and GOSHMEM_BIND_TO asks
// goshmem to place them (shmemrun --hosts does: it leaves the launcher's binding off):
// every PE of the node computes the same placement of the node's PEs, as shmemrun would
// for a job of that many PEs, and pins itself to its own entry.

// nodeBindings is the placement of n PEs on this machine from GOSHMEM_BIND_TO, _MAP_BY and
// _CPU_LIST, or nil when the launcher's binding stands.
func nodeBindings(n int) ([]topology.Binding, error) {
	bind := conf.String("GOSHMEM_BIND_TO")
	if bind == "none" {
		return nil, nil
	}
	t, err := topology.Read("")
	if err != nil {
		return nil, err
	}
	o := topology.Options{Oversubscribe: true}
	if bind != "auto" {
		if o.BindTo, err = topology.ParseBindTo(bind); err != nil {
			return nil, fmt.Errorf("GOSHMEM_BIND_TO: %v", err)
		}
	}
	if m := conf.String("GOSHMEM_MAP_BY"); m != "" {
		if o.MapBy, err = topology.ParseMapBy(m); err != nil {
			return nil, fmt.Errorf("GOSHMEM_MAP_BY: %v", err)
		}
	}
	if l := conf.String("GOSHMEM_CPU_LIST"); l != "" {
		if o.CPUList, err = topology.ParseCPUList(l); err != nil {
			return nil, fmt.Errorf("GOSHMEM_CPU_LIST=%s: %v", l, err)
		}
	}
	return topology.Place(t, n, o)
}

// bindSelf pins this PE (world PE pe) to its binding b and records it in its slot, where
// the node's PEs read each other's placement for their algorithm choices.
func bindSelf(o *shm.Object, pe int, b topology.Binding) error {
	if b.Bound {
		var set unix.CPUSet
		for _, c := range b.CPUs.CPUs() {
			set.Set(c)
		}
		// Affinity is per thread: pin every thread the Go runtime has started so far (those
		// it starts later inherit it).
		tids, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("pin PE %d: %w", pe, err)
		}
		for _, d := range tids {
			tid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("pin PE %d to CPUs %v: %w", pe, b.CPUs, err)
			}
		}
	}
	*(*topology.PEPlace)(unsafe.Pointer(&o.Slot(pe).Place[0])) = topology.PlaceOf(b)
	if conf.Bool("GOSHMEM_REPORT_BINDINGS") {
		host, _ := os.Hostname()
		b.PE = pe
		fmt.Fprintf(os.Stderr, "%s: %s", host, topology.ReportBindings([]topology.Binding{b}))
	}
	return nil
}
