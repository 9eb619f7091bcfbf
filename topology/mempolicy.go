package topology

import (
	"fmt"
	"slices"
	"strings"
)

// MemMode is how a memory range is spread over NUMA nodes.
type MemMode int

const (
	MemBind       MemMode = iota + 1 // every page on the one node (mbind MPOL_BIND)
	MemInterleave                    // pages round-robin over the nodes (MPOL_INTERLEAVE)
)

// MemPolicy is the NUMA placement of one memory range, applied with mbind before
// the range is first touched.
type MemPolicy struct {
	Mode  MemMode
	Nodes []int // kernel node ids, ascending
}

// String is "bind 1" or "interleave 0-3".
func (p MemPolicy) String() string {
	mode := "bind"
	if p.Mode == MemInterleave {
		mode = "interleave"
	}
	return mode + " " + nodeList(p.Nodes)
}

func nodeList(nodes []int) string {
	var s CPUSet // the list form fits node numbers as well
	for _, n := range nodes {
		s.Add(n)
	}
	if len(nodes) == 0 {
		return "none"
	}
	return s.String()
}

// nodesOf lists the nodes holding CPUs of s, ascending.
func nodesOf(t *Topology, s CPUSet) []int {
	var out []int
	for _, n := range t.Nodes {
		if n.CPUs.Overlaps(s) {
			out = append(out, n.ID)
		}
	}
	return out
}

// JobNodes lists the nodes holding a CPU of any PE of the job, ascending.
func JobNodes(t *Topology, job []Binding) []int {
	var all CPUSet
	for _, b := range job {
		all = all.Union(b.CPUs)
	}
	return nodesOf(t, all)
}

// SegmentPolicy is where the heap segment of the PE bound by b lives: on its node
// when all its CPUs lie in one node (every access it makes to its own segment is
// then local, and peers pay the distance once), interleaved over the job's nodes
// otherwise, so no node is favoured for a PE that may run on any of them.
func SegmentPolicy(t *Topology, b Binding, job []Binding) MemPolicy {
	if nodes := nodesOf(t, b.CPUs); len(nodes) == 1 {
		return MemPolicy{Mode: MemBind, Nodes: nodes}
	}
	return MemPolicy{Mode: MemInterleave, Nodes: JobNodes(t, job)}
}

// ControlBlockPolicy interleaves the control block over the job's nodes: every PE
// reads and writes it, so no single node should hold it all.
func ControlBlockPolicy(t *Topology, job []Binding) MemPolicy {
	return MemPolicy{Mode: MemInterleave, Nodes: JobNodes(t, job)}
}

// ParseMemPolicy reads the String form back ("bind 1", "interleave 0-3"), for
// tables and for passing a decision through the environment.
func ParseMemPolicy(s string) (MemPolicy, error) {
	mode, nodes, ok := strings.Cut(strings.TrimSpace(s), " ")
	var p MemPolicy
	switch mode {
	case "bind":
		p.Mode = MemBind
	case "interleave":
		p.Mode = MemInterleave
	default:
		return MemPolicy{}, fmt.Errorf("topology.ParseMemPolicy: %q: want bind or interleave and a node list", s)
	}
	set, err := ParseCPUSet(nodes)
	if !ok || err != nil || set.IsEmpty() {
		return MemPolicy{}, fmt.Errorf("topology.ParseMemPolicy: %q: bad node list %q", s, nodes)
	}
	p.Nodes = set.CPUs()
	if p.Mode == MemBind && len(p.Nodes) != 1 {
		return MemPolicy{}, fmt.Errorf("topology.ParseMemPolicy: %q: bind takes one node", s)
	}
	return p, nil
}

// Equal reports whether p and q are the same policy.
func (p MemPolicy) Equal(q MemPolicy) bool {
	return p.Mode == q.Mode && slices.Equal(p.Nodes, q.Nodes)
}
