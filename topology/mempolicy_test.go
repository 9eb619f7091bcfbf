package topology

import "testing"

func TestSegmentPolicy(t *testing.T) {
	for _, c := range []struct {
		tree, flags string
		segments    []string // policy of PE 0, 1, ...
		control     string
	}{
		{"zen5-vm-2c", "-n 2", []string{"bind 0", "bind 0"}, "interleave 0"},
		{"zen5-vm-2c", "-n 4", []string{"bind 0", "bind 0", "bind 0", "bind 0"}, "interleave 0"}, // unbound, but one node
		{"xeon-2s-28c-smt", "-n 2 --map-by socket", []string{"bind 0", "bind 1"}, "interleave 0-1"},
		{"xeon-2s-28c-smt", "-n 2", []string{"bind 0", "bind 0"}, "interleave 0"},  // both on socket 0: the job is one node
		{"xeon-2s-28c-smt", "-n 60", []string{"interleave 0-1"}, "interleave 0-1"}, // unbound: may run anywhere
		{"xeon-2s-28c-smt", "-n 2 --map-by core:PE=28", []string{"bind 0", "bind 1"}, "interleave 0-1"},
		{"epyc-2s-nps4", "-n 8 --map-by numa", []string{"bind 0", "bind 1", "bind 2", "bind 3", "bind 4", "bind 5", "bind 6", "bind 7"}, "interleave 0-7"},
		{"epyc-2s-nps4", "-n 2 --map-by socket --bind-to socket", []string{"interleave 0-7", "interleave 0-7"}, "interleave 0-7"},
		{"epyc-2s-nps4", "-n 4 --map-by l3cache", []string{"bind 0", "bind 0", "bind 1", "bind 1"}, "interleave 0-1"},
		// One PE spanning nodes 0-1, one inside node 2.
		{"epyc-2s-nps4", "-n 2 --cpu-list 12-19,32-39 --map-by core:PE=8", []string{"interleave 0-2", "bind 2"}, "interleave 0-2"},
		{"laptop-1s-smt-cpuset", "-n 2", []string{"bind 0", "bind 0"}, "interleave 0"},
		{"arm64-64c", "-n 64", []string{"bind 0"}, "interleave 0"},
		{"xeon-1s-8c-offline-isolated", "-n 3", []string{"bind 0", "bind 0", "bind 0"}, "interleave 0"},
	} {
		tp := readTree(t, c.tree)
		job, err := placeLine(t, tp, c.flags)
		if err != nil {
			t.Errorf("%s %s: %v", c.tree, c.flags, err)
			continue
		}
		for pe, want := range c.segments {
			if got := SegmentPolicy(tp, job[pe], job).String(); got != want {
				t.Errorf("%s %s: PE %d segment %s, want %s", c.tree, c.flags, pe, got, want)
			}
		}
		if got := ControlBlockPolicy(tp, job).String(); got != c.control {
			t.Errorf("%s %s: control block %s, want %s", c.tree, c.flags, got, c.control)
		}
	}
}

func TestParseMemPolicy(t *testing.T) {
	for _, s := range []string{"bind 3", "interleave 0-3", "interleave 0,2,5"} {
		p, err := ParseMemPolicy(s)
		if err != nil || p.String() != s {
			t.Errorf("ParseMemPolicy(%q) = %v, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "bind", "bind 0-1", "spread 0", "interleave x"} {
		if p, err := ParseMemPolicy(s); err == nil {
			t.Errorf("ParseMemPolicy(%q) = %v, want an error", s, p)
		}
	}
	a, _ := ParseMemPolicy("interleave 0-1")
	if !a.Equal(MemPolicy{MemInterleave, []int{0, 1}}) || a.Equal(MemPolicy{MemBind, []int{0, 1}}) {
		t.Error("Equal wrong")
	}
}
