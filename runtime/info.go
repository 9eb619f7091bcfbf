package rt

import (
	"fmt"
	"os"
)

// Version is goshmem's version; SpecMajor and SpecMinor the OpenSHMEM version it implements.
const (
	Version   = "0.1.0"
	SpecMajor = 1
	SpecMinor = 5
	Vendor    = "goshmem"
)

// printInfo prints what SHMEM_VERSION and SHMEM_INFO ask for, on PE 0.
func printInfo() {
	if me != 0 {
		return
	}
	if conf.Bool("SHMEM_VERSION") || conf.Bool("SHMEM_INFO") {
		fmt.Fprintf(os.Stderr, "goshmem %s (OpenSHMEM %d.%d)\n", Version, SpecMajor, SpecMinor)
	}
	if conf.Bool("SHMEM_INFO") {
		fmt.Fprintf(os.Stderr, "goshmem: %d PEs, symmetric heap %d bytes per PE, waits %s, barrier %s, radix %d\n",
			npes, heapSize, map[bool]string{true: "yield+sleep", false: "spin"}[sleepWait], forceBarrier, collRadix)
	}
}
