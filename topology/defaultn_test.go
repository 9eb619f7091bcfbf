package topology

import "testing"

// The default PE count of each captured machine: its usable cores, or hardware threads,
// or groups of PE=n cores; placing that many PEs with the same options needs no
// --oversubscribe.
func TestDefaultNPEs(t *testing.T) {
	for _, c := range []struct {
		tree, flags string
		want        int
	}{
		{"zen5-vm-2c", "", 2},
		{"zen5-vm-2c", "--map-by core:PE=2", 1},
		{"laptop-1s-smt", "", 4},
		{"laptop-1s-smt", "--map-by hwthread", 8},
		{"laptop-1s-smt", "--bind-to hwthread", 8},
		{"laptop-1s-smt", "--map-by core:PE=2", 2},
		{"laptop-1s-smt", "--cpu-list 0,1,2", 3},
		{"laptop-1s-smt", "--cpu-list 0,4", 1},
		{"xeon-2s-28c-smt", "", 56},
		{"xeon-2s-28c-smt", "--map-by socket", 56},
		{"xeon-2s-28c-smt", "--map-by hwthread", 112},
		{"xeon-2s-28c-smt", "--map-by core:PE=20", 2},
		{"arm64-64c", "", 64},
	} {
		top := readTree(t, c.tree)
		_, o, err := jobFlags(t, c.flags)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DefaultNPEs(top, o)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %d, %v; want %d", c.tree, c.flags, got, err, c.want)
			continue
		}
		if _, err := Place(top, got, o); err != nil {
			t.Errorf("%s %s: placing the default %d PEs: %v", c.tree, c.flags, got, err)
		}
	}
	if _, err := DefaultNPEs(readTree(t, "zen5-vm-2c"), Options{CPUList: []int{99}}); err == nil {
		t.Error("a bad --cpu-list gave a count")
	}
}
