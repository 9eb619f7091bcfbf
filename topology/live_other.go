//go:build !linux

package topology

import (
	"errors"
	"runtime"
)

// liveAllowed has no affinity or cgroup to consult off Linux: every CPU is allowed.
func liveAllowed() (CPUSet, string, error) {
	var s CPUSet
	for c := 0; c < runtime.NumCPU(); c++ {
		s.Add(c)
	}
	return s, "runtime.NumCPU (no affinity query on " + runtime.GOOS + ")", nil
}

// Affinity needs Linux's sched_getaffinity.
func Affinity() (CPUSet, error) {
	return CPUSet{}, errors.New("topology.Affinity: needs Linux (sched_getaffinity)")
}

// SetAffinity needs Linux's sched_setaffinity.
func SetAffinity(s CPUSet) error {
	return errors.New("topology.SetAffinity: needs Linux (sched_setaffinity)")
}

// CgroupAllowed has no cgroup to consult off Linux: every CPU liveAllowed gives.
func CgroupAllowed(t *Topology) (CPUSet, error) {
	s, _, err := liveAllowed()
	return s, err
}
