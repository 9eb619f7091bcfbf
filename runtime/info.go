package rt

import (
	"fmt"
	"os"
	"strings"

	"github.com/goshmem/shmem/runtime/settings"
	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// Version is goshmem's version; SpecMajor and SpecMinor the OpenSHMEM version it implements.
const (
	Version   = "0.1.0"
	SpecMajor = 1
	SpecMinor = 6
	Vendor    = "goshmem"
)

// heapRounding says, when the heap is larger than SHMEM_SYMMETRIC_SIZE asked for, why: the
// rounding, and a C program's static data, which takes the top of the heap (ReserveStatic)
// beside what the user asked for.
func heapRounding(asked, size uint64) string {
	rounded := (asked + shm.Align - 1) / shm.Align * shm.Align
	switch {
	case asked == size:
		return ""
	case size > rounded && rounded >= asked:
		return fmt.Sprintf(" (SHMEM_SYMMETRIC_SIZE=%d, and %d for the program's static data, rounded up to a multiple of %d MiB)", asked, size-rounded, shm.Align>>20)
	}
	return fmt.Sprintf(" (SHMEM_SYMMETRIC_SIZE=%d rounded up to a multiple of %d MiB)", asked, shm.Align>>20)
}

// printInfo prints what SHMEM_VERSION and SHMEM_INFO ask for, on PE 0.
func printInfo() {
	if me != 0 {
		return
	}
	if tableFor(World.G); tuningNote != "" {
		fmt.Fprintf(os.Stderr, "goshmem: tuning table %s %s\n", tuningSource, tuningNote)
	}
	if conf.Bool("SHMEM_VERSION") || conf.Bool("SHMEM_INFO") {
		fmt.Fprintf(os.Stderr, "goshmem %s (OpenSHMEM %d.%d)\n", Version, SpecMajor, SpecMinor)
	}
	if !conf.Bool("SHMEM_INFO") {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "goshmem: multi-node engine: %s\n", NetEngine())
	if multiNode {
		fmt.Fprintf(&b, "goshmem: UCX settings (goshmem's where unset): %s\n", netEngineSettings())
		fmt.Fprintf(&b, "goshmem: other nodes' requests to a computing PE served by %s (GOSHMEM_NET_PROGRESS=%s)\n", netServing, conf.String("GOSHMEM_NET_PROGRESS"))
	}
	fmt.Fprintf(&b, "goshmem: %d PEs, symmetric heap %d bytes per PE%s, waits %s\n", npes, heapSize,
		heapRounding(conf.Size("SHMEM_SYMMETRIC_SIZE"), uint64(heapSize)),
		map[bool]string{true: "yield then sleep (PEs share CPUs)", false: "spin"}[sleepWait])
	for _, v := range settings.Table {
		fmt.Fprintf(&b, "  %s=%s\n", v.Name, conf.String(v.Name))
	}
	if t, err := topology.Read(""); err == nil {
		b.WriteString(topology.Summary(t))
	}
	b.WriteString(modelInfo())
	fmt.Fprintf(&b, "collective algorithms over all %d PEs (auto; SHMEM_*_ALGORITHM overrides):\n", npes)
	b.WriteString(topology.ChoiceTableTuned(places, costModel(), tableFor(World.G)))
	if h := hierOf(World.G); h != nil {
		fmt.Fprintf(&b, "network phase among the %d node leaders (GOSHMEM_NET_*_ALGORITHM override; the table above is the node phases'):\n", h.lead.Size)
		fmt.Fprintf(&b, "bcast     %s\n", topology.NetChoiceLine(func(n int64) topology.Algorithm {
			return netBcastNames[netBcastAlg(h.lead.Size, uintptr(n), netEagerMax, netCostModel(), forceNetBcast)]
		}))
		fmt.Fprintf(&b, "reduce    %s\n", topology.NetChoiceLine(func(n int64) topology.Algorithm {
			return netRedNames[netReduceAlg(h.lead.Size, uintptr(n), netEagerMax, netCostModel(), forceNetReduce)]
		}))
		fmt.Fprintf(&b, "collect   %s\n", topology.NetChoiceLine(func(n int64) topology.Algorithm {
			return netGatherNames[netGatherAlg(h.lead.Size, uintptr(n), netEagerMax, netCostModel(), forceNetGather)]
		}))
	}
	os.Stderr.WriteString(b.String())
}
