package topology

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestPEPlaceIsFixedSize(t *testing.T) {
	// The launcher copies PEPlace into the control block: 5 int32, no pointers.
	if got := unsafe.Sizeof(PEPlace{}); got != 20 {
		t.Errorf("PEPlace is %d bytes, want 20", got)
	}
	typ := reflect.TypeOf(PEPlace{})
	for i := 0; i < typ.NumField(); i++ {
		if typ.Field(i).Type.Kind() != reflect.Int32 {
			t.Errorf("PEPlace.%s is %s", typ.Field(i).Name, typ.Field(i).Type)
		}
	}
}

func TestPlaceMap(t *testing.T) {
	tp := readTree(t, "epyc-2s-nps4")
	bs, err := placeLine(t, tp, "-n 3 --map-by socket --bind-to socket")
	if err != nil {
		t.Fatal(err)
	}
	bs2, _ := placeLine(t, tp, "-n 2 --map-by l3cache")
	bs = append(bs, bs2...)
	unbound, _ := placeLine(t, tp, "-n 300")
	bs = append(bs, unbound[0])
	want := []PEPlace{
		{Socket: 0, NUMA: -1, L3: -1, Core: -1, CPU: 0},
		{Socket: 1, NUMA: -1, L3: -1, Core: -1, CPU: 64},
		{Socket: 0, NUMA: -1, L3: -1, Core: -1, CPU: 0},
		{Socket: 0, NUMA: 0, L3: 0, Core: 0, CPU: 0},
		{Socket: 0, NUMA: 0, L3: 1, Core: 8, CPU: 8},
		{Socket: -1, NUMA: -1, L3: -1, Core: -1, CPU: -1},
	}
	if got := PlaceMap(bs); !slices.Equal(got, want) {
		t.Errorf("PlaceMap:\n got %v\nwant %v", got, want)
	}
}

// placesOf places n PEs on a tree with flags and returns the map.
func placesOf(t *testing.T, tree, flags string) []PEPlace {
	t.Helper()
	bs, err := placeLine(t, readTree(t, tree), flags)
	if err != nil {
		t.Fatalf("%s %s: %v", tree, flags, err)
	}
	return PlaceMap(bs)
}

func TestGroups(t *testing.T) {
	places := placesOf(t, "epyc-2s-nps4", "-n 6 --map-by l3cache")    // PE i on CCD i, socket 0
	places = append(places, placesOf(t, "epyc-2s-nps4", "-n 256")...) // one unbound PE (index 6)
	places = append(places, placesOf(t, "epyc-2s-nps4", "-n 128")...) // bound: PE 6+256+64 is on socket 1
	pes := []int{3, 0, 1, 6 + 256 + 64, 6, 2, 6 + 256}
	got := Groups(places, pes)
	want := []SocketGroup{
		{Socket: 0, L3: []L3Group{{L3: 3, PEs: []int{3}}, {L3: 0, PEs: []int{0, 262}}, {L3: 1, PEs: []int{1}}, {L3: 2, PEs: []int{2}}}},
		{Socket: 1, L3: []L3Group{{L3: 8, PEs: []int{326}}}},
		{Socket: -1, L3: []L3Group{{L3: -1, PEs: []int{6}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Groups:\n got %+v\nwant %+v", got, want)
	}
	if got[0].Leader() != 3 || got[1].L3[0].Leader() != 326 {
		t.Error("leaders are not the first PEs")
	}
}

// crossings counts the ring's links between sockets and between L3 domains.
func crossings(places []PEPlace, ring []int) (sockets, l3s int) {
	for i, pe := range ring {
		a, b := places[pe], places[ring[(i+1)%len(ring)]]
		switch distance(a, b) {
		case crossSocket:
			sockets++
			l3s++
		case crossL3:
			l3s++
		}
	}
	return sockets, l3s
}

func TestRingAndTreeOnEveryTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, tree := range trees {
		tp := readTree(t, tree)
		for _, flags := range []string{"--map-by core", "--map-by socket", "--map-by l3cache", "--map-by hwthread --bind-to hwthread"} {
			n := tp.Allowed.Count()
			if !strings.Contains(flags, "hwthread") {
				n = len(tp.Cores)
				if tp.Allowed.Count() < tp.Online.Count() {
					n = 2
				}
			}
			places := placesOf(t, tree, "-n "+itoa(n)+" "+flags)
			for trial := 0; trial < 20; trial++ {
				pes := rng.Perm(len(places))[:1+rng.IntN(len(places))]
				groups := Groups(places, pes)
				nl3 := 0
				for _, g := range groups {
					nl3 += len(g.L3)
				}
				ring := Ring(places, pes)
				if ring[0] != pes[0] || !sameElements(ring, pes) {
					t.Fatalf("%s %s: Ring(%v) = %v", tree, flags, pes, ring)
				}
				// A closed ring must cross each boundary between groups at least once.
				s, l := crossings(places, ring)
				wantS, wantL := len(groups), nl3
				if wantS == 1 {
					wantS = 0
				}
				if wantL == 1 {
					wantL = 0
				}
				if s != wantS || l != wantL {
					t.Errorf("%s %s: ring crosses sockets %d times, L3 %d times; minimum %d, %d", tree, flags, s, l, wantS, wantL)
				}
				checkTree(t, places, pes, 1+rng.IntN(5)+1, len(groups), nl3)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func sameElements(a, b []int) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// checkTree: rooted at pes[0], parents and children agree, no cycles, and the
// edges cross sockets (L3 domains) exactly once per extra socket (domain).
func checkTree(t *testing.T, places []PEPlace, pes []int, radix, sockets, l3s int) {
	t.Helper()
	nodes := Tree(places, pes, radix)
	if len(nodes) != len(pes) {
		t.Fatalf("Tree: %d nodes for %d PEs", len(nodes), len(pes))
	}
	parent := map[int]int{}
	for i, nd := range nodes {
		if nd.PE != pes[i] {
			t.Fatalf("Tree: node %d is PE %d, want %d", i, nd.PE, pes[i])
		}
		parent[nd.PE] = nd.Parent
	}
	crossS, crossL := 0, 0
	for _, nd := range nodes {
		if (nd.Parent == -1) != (nd.PE == pes[0]) {
			t.Fatalf("Tree: PE %d has parent %d (root %d)", nd.PE, nd.Parent, pes[0])
		}
		for _, c := range nd.Children {
			if parent[c] != nd.PE {
				t.Fatalf("Tree: %d lists child %d whose parent is %d", nd.PE, c, parent[c])
			}
		}
		steps := 0
		for pe := nd.PE; pe != pes[0]; pe = parent[pe] {
			if steps++; steps > len(pes) {
				t.Fatalf("Tree: cycle through PE %d", nd.PE)
			}
		}
		if nd.Parent >= 0 {
			switch distance(places[nd.PE], places[nd.Parent]) {
			case crossSocket:
				crossS++
				crossL++
			case crossL3:
				crossL++
			}
		}
	}
	if crossS != sockets-1 || crossL != l3s-1 {
		t.Errorf("Tree radix %d: %d socket edges, %d L3 edges; want %d, %d", radix, crossS, crossL, sockets-1, l3s-1)
	}
}

func TestTreeShape(t *testing.T) {
	places := placesOf(t, "xeon-2s-28c-smt", "-n 8 --map-by socket") // even PEs socket 0, odd socket 1
	got := Tree(places, []int{0, 1, 2, 3, 4, 5, 6, 7}, 2)
	want := []TreeNode{
		{PE: 0, Parent: -1, Children: []int{1, 2, 4}}, // socket 1's leader first, then its own L3 tree
		{PE: 1, Parent: 0, Children: []int{3, 5}},
		{PE: 2, Parent: 0, Children: []int{6}},
		{PE: 3, Parent: 1, Children: []int{7}},
		{PE: 4, Parent: 0},
		{PE: 5, Parent: 1},
		{PE: 6, Parent: 2},
		{PE: 7, Parent: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tree:\n got %+v\nwant %+v", got, want)
	}
	if ring := Ring(places, []int{0, 1, 2, 3, 4, 5, 6, 7}); !slices.Equal(ring, []int{0, 2, 4, 6, 1, 3, 5, 7}) {
		t.Errorf("Ring = %v", ring)
	}
}

func TestBuildersPanicOnBadInput(t *testing.T) {
	places := make([]PEPlace, 4)
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"out of range", "topology.Groups: PE 4 out of range [0,4)", func() { Groups(places, []int{0, 4}) }},
		{"negative", "topology.Groups: PE -1 out of range [0,4)", func() { Ring(places, []int{-1}) }},
		{"repeat", "topology.Groups: PE 2 listed twice", func() { Tree(places, []int{2, 2}, 2) }},
		{"radix", "topology.Tree: radix 1 < 2", func() { Tree(places, []int{0}, 1) }},
		{"subset", "topology.Subset: PE 9 out of range [0,4)", func() { Subset(places, []int{9}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}
