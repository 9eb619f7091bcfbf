//go:build !linux

package topology

import "runtime"

// MachineKey is MachineKeyOf this machine; off Linux the CPU model is not read.
func MachineKey(t *Topology) string {
	return MachineKeyOf("", runtime.GOOS, t)
}
