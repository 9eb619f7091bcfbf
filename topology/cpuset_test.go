package topology

import (
	"slices"
	"strings"
	"testing"
)

func TestCPUSetParseAndString(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"", ""},
		{" \n", ""},
		{"0", "0"},
		{"0,2,4-7", "0,2,4-7"},
		{"7,6,5,4", "4-7"},
		{"0-3,2-5", "0-5"},
		{"0-27,56-83", "0-27,56-83"},
		{"0-10:2", "0,2,4,6,8,10"},
		{"63,64,65", "63-65"},
		{"1000", "1000"},
		{" 1 , 3 ", "1,3"},
	} {
		s, err := ParseCPUSet(c.in)
		if err != nil {
			t.Errorf("ParseCPUSet(%q): %v", c.in, err)
			continue
		}
		if got := s.String(); got != c.out {
			t.Errorf("ParseCPUSet(%q).String() = %q, want %q", c.in, got, c.out)
		}
		back, err := ParseCPUSet(s.String())
		if err != nil || !back.Equal(s) {
			t.Errorf("%q does not round-trip: %v %v", c.in, back, err)
		}
	}
}

func TestCPUSetParseErrors(t *testing.T) {
	for _, in := range []string{"a", "1,", ",1", "3-1", "-1", "1-", "0-4:0", "2:2", "70000", "1-x"} {
		if s, err := ParseCPUSet(in); err == nil {
			t.Errorf("ParseCPUSet(%q) = %v, want an error", in, s)
		}
	}
}

func TestParseCPUListKeepsOrder(t *testing.T) {
	got, err := ParseCPUList("6,4,0-1")
	if err != nil || !slices.Equal(got, []int{6, 4, 0, 1}) {
		t.Errorf("ParseCPUList(6,4,0-1) = %v, %v", got, err)
	}
	if _, err := ParseCPUList("0-3,2"); err == nil || !strings.Contains(err.Error(), "CPU 2 listed twice") {
		t.Errorf("ParseCPUList(0-3,2): %v, want a repeat error", err)
	}
	if got := orderedList([]int{6, 4, 0, 1, 2}); got != "6,4,0-2" {
		t.Errorf("orderedList = %q", got)
	}
}

func TestCPUSetOperations(t *testing.T) {
	a := MustParseCPUSet("0-7,64-71")
	b := MustParseCPUSet("4-11")
	for _, c := range []struct {
		name string
		got  CPUSet
		want string
	}{
		{"intersect", a.Intersect(b), "4-7"},
		{"union", a.Union(b), "0-11,64-71"},
		{"difference", a.Difference(b), "0-3,64-71"},
		{"difference other way", b.Difference(a), "8-11"},
	} {
		if c.got.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if a.Count() != 16 || !a.Has(64) || a.Has(8) || a.Has(-1) || a.Has(1<<20) {
		t.Errorf("Count/Has wrong on %s", a)
	}
	if a.First() != 0 || b.First() != 4 || (CPUSet{}).First() != -1 {
		t.Error("First wrong")
	}
	if !b.Intersect(a).IsSubsetOf(a) || a.IsSubsetOf(b) || !a.Overlaps(b) || a.Overlaps(MustParseCPUSet("12-63")) {
		t.Error("IsSubsetOf/Overlaps wrong")
	}
	if !(CPUSet{}).IsEmpty() || !MustParseCPUSet("200").Difference(MustParseCPUSet("200")).IsEmpty() {
		t.Error("IsEmpty wrong")
	}
	// Equal ignores how many words each set happens to hold.
	long := MustParseCPUSet("1,300")
	long.Remove(300)
	if !long.Equal(NewCPUSet(1)) {
		t.Errorf("%v != {1}", long)
	}
	// Methods returning sets leave their operands alone.
	if a.String() != "0-7,64-71" || b.String() != "4-11" {
		t.Error("an operation modified its operands")
	}
	var s CPUSet
	if err := s.UnmarshalText([]byte("2-3")); err != nil || s.String() != "2-3" {
		t.Errorf("UnmarshalText: %v %v", s, err)
	}
	if txt, _ := s.MarshalText(); string(txt) != "2-3" {
		t.Errorf("MarshalText = %s", txt)
	}
}
