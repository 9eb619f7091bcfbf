package topology

import (
	"fmt"
	"strconv"
)

// PEPlace is one PE's entry in the placement map the launcher writes into the
// control block, where every PE reads the same copy; it is fixed-size and holds no
// pointers so it can live in shared memory. The collective verdict (Groups, Ring,
// Tree, Choose) is a function of these entries alone, so every PE reaches it.
type PEPlace struct {
	Socket, NUMA, L3, Core int32 // -1 when the PE's CPUs span several
	CPU                    int32 // the first CPU of its binding; -1 when unbound
}

// PlaceOf is the placement-map entry of a binding.
func PlaceOf(b Binding) PEPlace {
	cpu := int32(-1)
	if b.Bound {
		cpu = int32(b.CPUs.First())
	}
	return PEPlace{Socket: int32(b.Socket), NUMA: int32(b.NUMA), L3: int32(b.L3), Core: int32(b.Core), CPU: cpu}
}

// PlaceMap is the placement map of a job: entry i for PE i.
func PlaceMap(bs []Binding) []PEPlace {
	out := make([]PEPlace, len(bs))
	for i, b := range bs {
		out[i] = PlaceOf(b)
	}
	return out
}

// Subset is the entries of pes (PE numbers, in order) from the job's map: the
// input of Choose for an active set or team.
func Subset(places []PEPlace, pes []int) []PEPlace {
	checkPEs("topology.Subset", places, pes)
	out := make([]PEPlace, len(pes))
	for i, pe := range pes {
		out[i] = places[pe]
	}
	return out
}

func checkPEs(routine string, places []PEPlace, pes []int) {
	seen := make([]bool, len(places))
	for _, pe := range pes {
		if pe < 0 || pe >= len(places) {
			panic(fmt.Sprintf("%s: PE %d out of range [0,%d)", routine, pe, len(places)))
		}
		if seen[pe] {
			panic(fmt.Sprintf("%s: PE %d listed twice", routine, pe))
		}
		seen[pe] = true
	}
}

// level is how far apart two PEs are.
type level int

const (
	sameL3      level = iota // share an L3 cache (or a core)
	crossL3                  // one socket, different L3 domains
	crossSocket              // different sockets, or unknown
)

func distance(a, b PEPlace) level {
	switch {
	case a.Socket < 0 || b.Socket < 0 || a.Socket != b.Socket:
		return crossSocket
	case a.L3 >= 0 && a.L3 == b.L3:
		return sameL3
	default:
		return crossL3
	}
}

// SocketGroup is the PEs of one socket, by L3 domain.
type SocketGroup struct {
	Socket int32 // -1 gathers PEs whose CPUs span sockets
	L3     []L3Group
}

// L3Group is the PEs of one L3 domain.
type L3Group struct {
	L3  int32 // -1 gathers PEs whose CPUs span L3 domains
	PEs []int
}

// Leader is the first PE of the group: the one that combines for it.
func (g SocketGroup) Leader() int { return g.L3[0].PEs[0] }

// Leader is the first PE of the group.
func (g L3Group) Leader() int { return g.PEs[0] }

// Groups splits pes (PE numbers, in order; places is the job's map) into the
// groups a hierarchical tree combines in: by socket, then by L3 domain. Groups
// come in order of their first PE in pes and keep the order of pes inside, so
// the first group's leader is pes[0]; put the root first to root a tree there.
func Groups(places []PEPlace, pes []int) []SocketGroup {
	checkPEs("topology.Groups", places, pes)
	var out []SocketGroup
	for _, pe := range pes {
		p := places[pe]
		si := -1
		for i := range out {
			if out[i].Socket == p.Socket {
				si = i
				break
			}
		}
		if si < 0 {
			si = len(out)
			out = append(out, SocketGroup{Socket: p.Socket})
		}
		g := &out[si]
		li := -1
		for i := range g.L3 {
			if g.L3[i].L3 == p.L3 {
				li = i
				break
			}
		}
		if li < 0 {
			li = len(g.L3)
			g.L3 = append(g.L3, L3Group{L3: p.L3})
		}
		g.L3[li].PEs = append(g.L3[li].PEs, pe)
	}
	return out
}

// Ring orders pes (PE numbers) so that a ring through them, closing back to the
// first, crosses between sockets the fewest times possible (once per socket when
// there are several) and between L3 domains the fewest times next: socket by
// socket, L3 domain by L3 domain, in the order of Groups. It starts at pes[0].
func Ring(places []PEPlace, pes []int) []int {
	out := make([]int, 0, len(pes))
	for _, s := range Groups(places, pes) {
		for _, l := range s.L3 {
			out = append(out, l.PEs...)
		}
	}
	return out
}

// TreeNode is one PE of a Tree, by PE number.
type TreeNode struct {
	PE       int
	Parent   int   // -1 at the root
	Children []int // in the order a parent serves them: farthest level first
}

// Tree is the hierarchical tree over pes rooted at pes[0]: the socket leaders in
// a radix-ary tree under the root, in each socket the L3 leaders under the socket
// leader, in each L3 domain its PEs under the L3 leader, so each level's traffic
// stays inside the level. Entry i is pes[i]'s node.
func Tree(places []PEPlace, pes []int, radix int) []TreeNode {
	if radix < 2 {
		panic("topology.Tree: radix " + strconv.Itoa(radix) + " < 2")
	}
	groups := Groups(places, pes)
	pos := make(map[int]int, len(pes))
	out := make([]TreeNode, len(pes))
	for i, pe := range pes {
		pos[pe] = i
		out[i] = TreeNode{PE: pe, Parent: -1}
	}
	// kary hangs list[1:] under list[0] as a radix-ary heap.
	kary := func(list []int) {
		for j := 1; j < len(list); j++ {
			parent := list[(j-1)/radix]
			out[pos[list[j]]].Parent = parent
			out[pos[parent]].Children = append(out[pos[parent]].Children, list[j])
		}
	}
	var sockets []int
	for _, s := range groups {
		sockets = append(sockets, s.Leader())
	}
	kary(sockets)
	for _, s := range groups {
		var l3 []int
		for _, l := range s.L3 {
			l3 = append(l3, l.Leader())
		}
		kary(l3)
	}
	for _, s := range groups {
		for _, l := range s.L3 {
			kary(l.PEs)
		}
	}
	return out
}
