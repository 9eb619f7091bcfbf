package topology

import (
	"os"
	"strings"

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

// cpuModel is the first "model name" of a /proc/cpuinfo (x86), else its "Hardware" or
// CPU implementer and part (arm64), else "".
func cpuModel(cpuinfo string) string {
	var impl, part string
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Hardware":
			if v != "" {
				return v
			}
		case "CPU implementer":
			if impl == "" {
				impl = v
			}
		case "CPU part":
			if part == "" {
				part = v
			}
		}
	}
	if impl != "" {
		return "arm implementer " + impl + " part " + part
	}
	return ""
}
