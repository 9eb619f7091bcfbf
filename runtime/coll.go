package rt

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/goshmem/shmem/topology"
)

// What every collective shares: the group's plan (ring order and tree from topology's
// pure builders over the placement map), a private scratch buffer, and views of a peer's
// copy of a symmetric slice.

// plan is a group's ring and tree, by member index.
type plan struct {
	ring     []int   // members in ring order
	pos      []int   // pos[m]: m's position in ring
	parent   []int   // -1 at the root
	children [][]int // in the order the parent serves them
}

type planKey struct {
	g     Group
	root  int
	radix int
}

var plans sync.Map // planKey -> *plan

// planFor is g's plan with its tree rooted at member root.
func planFor(g Group, root int) *plan {
	k := planKey{g, root, collRadix}
	if p, ok := plans.Load(k); ok {
		return p.(*plan)
	}
	pes := make([]int, 0, g.Size) // world PEs, the root first
	pes = append(pes, g.PE(root))
	for i := range g.Size {
		if i != root {
			pes = append(pes, g.PE(i))
		}
	}
	p := &plan{pos: make([]int, g.Size), parent: make([]int, g.Size), children: make([][]int, g.Size)}
	for _, pe := range topology.Ring(places, pes) {
		p.ring = append(p.ring, g.Index(pe))
	}
	for i, m := range p.ring {
		p.pos[m] = i
	}
	for _, node := range topology.Tree(places, pes, collRadix) {
		m := g.Index(node.PE)
		p.parent[m] = -1
		if node.Parent >= 0 {
			p.parent[m] = g.Index(node.Parent)
		}
		for _, c := range node.Children {
			p.children[m] = append(p.children[m], g.Index(c))
		}
	}
	v, _ := plans.LoadOrStore(k, p)
	return v.(*plan)
}

// places is the job's placement map, read from the control block at Init.
var places []topology.PEPlace

func placesInit() {
	places = make([]topology.PEPlace, npes)
	for pe := range places {
		places[pe] = *(*topology.PEPlace)(unsafe.Pointer(&obj.Slot(pe).Place[0]))
	}
}

// peer is PE pe's copy of my symmetric slice s.
func peer[T any](s []T, pe int) []T {
	if len(s) == 0 {
		return s
	}
	return unsafe.Slice((*T)(Remote(unsafe.Pointer(unsafe.SliceData(s)), pe)), len(s))
}

// chunk is the c-th of k near-equal parts of s.
func chunk[T any](s []T, c, k int) []T { return s[len(s)*c/k : len(s)*(c+1)/k] }

// scratch buffers are private to a call; a pool keeps steady-state calls allocation-free.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

func getScratch[T any](n int) ([]T, *[]byte) {
	b := scratchPool.Get().(*[]byte)
	size := n * int(unsafe.Sizeof(*new(T)))
	if cap(*b) < size {
		*b = make([]byte, size)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(*b))), n), b
}

func putScratch(b *[]byte) { scratchPool.Put(b) }

// CheckOverlap panics when dst and src overlap without being the same slice: a collective
// may run in place, but not on partly overlapping arrays.
func CheckOverlap(who string, dst, src unsafe.Pointer, dn, sn uintptr) {
	d, s := uintptr(dst), uintptr(src)
	if d == s || dn == 0 || sn == 0 || d+dn <= s || s+sn <= d {
		return
	}
	panic(fmt.Sprintf("%s: dst [%#x, +%d) and src [%#x, +%d) overlap without being the same array", who, d, dn, s, sn))
}

// CheckDisjoint panics when dst (dn bytes) and src (sn bytes) share a byte: the collectives
// that cannot run in place (collect, alltoall) take no overlap at all.
func CheckDisjoint(who string, dst, src unsafe.Pointer, dn, sn uintptr) {
	if dn > 0 && sn > 0 && uintptr(dst) < uintptr(src)+sn && uintptr(src) < uintptr(dst)+dn {
		panic(fmt.Sprintf("%s: dst and src overlap", who))
	}
}

// smallGroup is the group size up to which per-call lists live on the caller's stack.
const smallGroup = 16

// lists returns n empty-slice slots: buf's when it holds them (buf being the caller's stack
// array), so collectives on small groups allocate nothing per call.
func lists[T any](buf *[smallGroup][]T, n int) [][]T {
	if n <= len(buf) {
		return buf[:n]
	}
	return make([][]T, n)
}

// blockBytes is how much of a reduction's output is combined from all inputs before moving
// on: the accumulator stays in L1 while the inputs stream through.
const blockBytes = 16 << 10
