package topology

import (
	"os"

	"golang.org/x/sys/unix"
)

// MachineKey is MachineKeyOf this machine: the CPU model from /proc/cpuinfo and the
// kernel release from uname, with the shape of t (read from this machine's /sys).
func MachineKey(t *Topology) string {
	var model string
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		model = cpuModel(string(b))
	}
	var u unix.Utsname
	kernel := ""
	if unix.Uname(&u) == nil {
		kernel = "linux " + unix.ByteSliceToString(u.Release[:])
	}
	return MachineKeyOf(model, kernel, t)
}
