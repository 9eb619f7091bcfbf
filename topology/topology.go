// Package topology models the machine a job runs on — packages (sockets), dies,
// NUMA nodes, cores, hardware threads and caches, read from sysfs — and makes the
// decisions that depend on it, each a pure function tested without processes:
// where each PE runs (Place), where its memory lives (SegmentPolicy), and which
// algorithm a collective uses (Choose, over the compact placement map Place that
// the launcher writes into the control block).
//
// Numbering: Package and Node are the kernel's ids (physical_package_id, nodeN).
// Core, Die and L3 are machine-wide indices into Topology.Cores, .Dies and .L3,
// assigned in order of each one's lowest CPU, because the kernel's core_id and
// die_id repeat across packages and may skip numbers.
package topology

//go:generate go test -run TestSyntheticTrees|TestGolden -update

import "fmt"

// CPU is one hardware thread.
type CPU struct {
	ID      int
	Core    int // index in Topology.Cores; -1 when offline (the kernel drops an offline CPU's topology)
	Package int // physical_package_id; -1 when offline
	Die     int // index in Topology.Dies; -1 when offline
	Node    int // NUMA node id; -1 when offline
	L3      int // index in Topology.L3; -1 when offline
	Online  bool
}

// Package is a socket.
type Package struct {
	ID   int
	CPUs CPUSet // its online CPUs
}

// Die is one die of a package (most packages have one).
type Die struct {
	Index   int
	Package int
	DieID   int // the kernel's die_id, unique only within the package
	CPUs    CPUSet
}

// Node is a NUMA node. Distance[i] is the kernel's distance to Topology.Nodes[i]
// (10 means local; a node without CPUs, such as CXL memory, has empty CPUs).
type Node struct {
	ID       int
	CPUs     CPUSet
	Distance []int
}

// Core is one physical core and its hardware threads.
type Core struct {
	Index   int
	CoreID  int // the kernel's core_id, unique only within the package
	Package int
	Die     int
	Node    int
	L3      int
	CPUs    CPUSet // its online hardware threads
}

// Cache is one cache instance and the CPUs that share it.
type Cache struct {
	Level   int
	Type    string // "Data", "Instruction" or "Unified"
	Size    int64  // bytes; 0 when unknown
	CPUs    CPUSet
	Assumed bool // not in sysfs: sharing assumed (see Read), size from cpuid or unknown
}

// Topology is a machine as Read found it.
type Topology struct {
	Root string // the sysfs root read
	Live bool   // Root is this machine's /sys: Allowed came from the running process

	CPUs     []CPU // every present CPU, ascending ID
	Packages []Package
	Dies     []Die
	Nodes    []Node // ascending ID
	Cores    []Core
	L3       []Cache // the last-level (L3) domains, indexed by CPU.L3
	Caches   []Cache // every cache instance, by level, type, then lowest CPU

	Online   CPUSet
	Offline  CPUSet // present but offline
	Isolated CPUSet // isolcpus= / nohz_full isolated CPUs (devices/system/cpu/isolated)
	Allowed  CPUSet // online CPUs this process may use: its affinity and cgroup cpuset

	AllowedFrom string   // where Allowed came from, for Summary
	Assumed     []string // each piece sysfs lacked and what Read assumed instead
}

// CPU returns the record of cpu; ok is false when the machine has no such CPU.
func (t *Topology) CPU(cpu int) (c CPU, ok bool) {
	i := t.cpuIndex(cpu)
	if i < 0 {
		return CPU{ID: cpu, Core: -1, Package: -1, Die: -1, Node: -1, L3: -1}, false
	}
	return t.CPUs[i], true
}

func (t *Topology) cpuIndex(cpu int) int {
	lo, hi := 0, len(t.CPUs)
	for lo < hi {
		m := (lo + hi) / 2
		if t.CPUs[m].ID < cpu {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.CPUs) && t.CPUs[lo].ID == cpu {
		return lo
	}
	return -1
}

// NodeIndex is the position of node id in t.Nodes, -1 when there is none.
func (t *Topology) NodeIndex(id int) int {
	for i, n := range t.Nodes {
		if n.ID == id {
			return i
		}
	}
	return -1
}

// Distance is the kernel's NUMA distance between node ids a and b, -1 when unknown.
func (t *Topology) Distance(a, b int) int {
	i, j := t.NodeIndex(a), t.NodeIndex(b)
	if i < 0 || j < 0 || j >= len(t.Nodes[i].Distance) {
		return -1
	}
	return t.Nodes[i].Distance[j]
}

// Threads is the number of online hardware threads.
func (t *Topology) Threads() int { return t.Online.Count() }

func (t *Topology) assume(format string, args ...any) {
	t.Assumed = append(t.Assumed, fmt.Sprintf(format, args...))
}
