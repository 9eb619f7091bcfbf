package topology

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func sampleTable() *Table {
	return &Table{
		Machine: "AMD EPYC | 1 socket, 1 L3 domain, 2 cores, 2 CPUs | linux 6.1",
		Layout:  Layout{Nodes: 1, PEsPerNode: 2, Placement: "s0l0c0,s0l0c1"},
		Rules: []Rule{
			{Barrier, 0, anySize, AlgLinear},
			{Bcast, 0, 64 << 10, AlgLinear},
			{Bcast, 128 << 10, 1 << 20, AlgTree},
			{Reduce, 0, 8, AlgLinear},
			{Reduce, 16, 16, AlgRing},
			{AllToAll, 1 << 30, 2 << 30, AlgPairwise},
		},
		Notes: []string{"bcast 8: linear 0.4us tree 0.5us"},
	}
}

func TestTableRoundTrip(t *testing.T) {
	tb := sampleTable()
	text := FormatTable(tb)
	for _, want := range []string{"\nbarrier   any       linear\n", "\nbcast     128K-1M   tree\n", "\nreduce    16        ring\n", "\nalltoall  1G-2G     pairwise\n", "\n# bcast 8: linear 0.4us tree 0.5us\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	got, err := ParseTable("t.txt", text)
	if err != nil {
		t.Fatalf("ParseTable(FormatTable): %v\n%s", err, text)
	}
	if got.Machine != tb.Machine || got.Layout != tb.Layout || len(got.Rules) != len(tb.Rules) || strings.Join(got.Notes, "|") != strings.Join(tb.Notes, "|") {
		t.Fatalf("round trip: got %+v, want %+v", got, tb)
	}
	for i := range got.Rules {
		if got.Rules[i] != tb.Rules[i] {
			t.Errorf("rule %d: got %+v, want %+v", i, got.Rules[i], tb.Rules[i])
		}
	}
}

// A table measured across nodes carries the network level it measured.
func TestTableNetworkLine(t *testing.T) {
	tb := sampleTable()
	tb.Layout.Nodes = 2
	tb.Net = NetLevel{Lat: 30100 * time.Nanosecond, BW: 950}
	text := FormatTable(tb)
	if !strings.Contains(string(text), "\nnetwork latency=30.1us bandwidth=950MB/s\n") {
		t.Fatalf("no network line:\n%s", text)
	}
	got, err := ParseTable("t.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	if got.Net != tb.Net || len(got.Rules) != len(tb.Rules) {
		t.Fatalf("round trip: got %+v, want %+v", got.Net, tb.Net)
	}
	if tb.Net = (NetLevel{}); strings.Contains(string(FormatTable(tb)), "network") {
		t.Error("a network line without a measurement")
	}
}

func TestTableLookup(t *testing.T) {
	tb := sampleTable()
	cases := []struct {
		c    Collective
		n    int64
		want Algorithm
		ok   bool
	}{
		{Barrier, 0, AlgLinear, true}, {Barrier, 1 << 40, AlgLinear, true},
		{Bcast, 1, AlgLinear, true}, {Bcast, 64 << 10, AlgLinear, true}, {Bcast, 64<<10 + 1, "", false},
		{Bcast, 128 << 10, AlgTree, true}, {Bcast, 2 << 20, "", false},
		{Reduce, 16, AlgRing, true}, {Reduce, 32, "", false},
		{FCollect, 8, "", false}, {AllToAll, 8, "", false},
	}
	for _, c := range cases {
		a, ok := tb.Lookup(c.c, c.n)
		if a != c.want || ok != c.ok {
			t.Errorf("Lookup(%s, %d) = %q %v, want %q %v", c.c, c.n, a, ok, c.want, c.ok)
		}
	}
	var none *Table
	if _, ok := none.Lookup(Bcast, 8); ok {
		t.Error("a nil table answered")
	}
}

func TestTableErrors(t *testing.T) {
	head := "# c\nmachine M\nlayout nodes=1 pes-per-node=2 placement=s0l0c0,s0l0c1\n"
	cases := []struct{ name, text, want string }{
		{"unknown coll", head + "gather 8-16 linear\n", "t.txt:4: unknown collective \"gather\""},
		{"bad alg", head + "bcast 8-16 ring\n", "t.txt:4: bcast 8-16: bcast algorithm \"ring\": want linear, tree"},
		{"bad size", head + "bcast 8-1Q linear\n", "t.txt:4: bcast 8-1Q: bad size \"1Q\""},
		{"empty range", head + "bcast 16-8 linear\n", "t.txt:4: bcast 16-8: empty range"},
		{"overlap", head + "bcast 8-16 linear\nbcast 16-32 tree\n", "t.txt:5: bcast 16-32 overlaps an earlier bcast rule"},
		{"fields", head + "bcast 8-16\n", "t.txt:4: \"bcast 8-16\": want collective, size range, algorithm"},
		{"rule first", "bcast 8 linear\n" + head, "t.txt:1: rule \"bcast 8 linear\" before the machine and layout lines"},
		{"no layout", "machine M\n", "t.txt: no layout line"},
		{"no machine", "", "t.txt: no machine line"},
		{"bad layout", "machine M\nlayout nodes=0 pes-per-node=2 placement=x\n", "t.txt:2: layout: nodes=\"0\": want a positive count"},
		{"layout field", "machine M\nlayout nodes=1 ppn=2\n", "t.txt:2: layout: unknown field \"ppn\""},
		{"two machines", "machine M\nmachine N\n", "t.txt:2: second machine line"},
		{"overflow", head + "bcast 8-99999999999G linear\n", "t.txt:4: bcast 8-99999999999G: bad size"},
		{"network first", "machine M\nnetwork latency=1us bandwidth=1MB/s\n", "t.txt:2: the network line comes once, after the layout line"},
		{"network twice", head + "network latency=1us bandwidth=1MB/s\nnetwork latency=1us bandwidth=1MB/s\n", "t.txt:5: the network line comes once"},
		{"network after rules", head + "bcast 8 linear\nnetwork latency=1us bandwidth=1MB/s\n", "t.txt:5: the network line comes once"},
		{"network unit", head + "network latency=1ms bandwidth=1MB/s\n", "t.txt:4: network: \"latency=1ms\": want"},
		{"network bw", head + "network latency=1us bandwidth=0MB/s\n", "t.txt:4: network: bandwidth=\"0MB/s\": want MB/s"},
		{"network lat", head + "network latency=-1us bandwidth=5MB/s\n", "t.txt:4: network: latency=\"-1us\": want microseconds"},
		{"network half", head + "network latency=3us\n", "t.txt:4: network: want latency="},
	}
	for _, c := range cases {
		_, err := ParseTable("t.txt", []byte(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q...", c.name, err, c.want)
		}
	}
}

func TestPlacementSignature(t *testing.T) {
	a := []PEPlace{{Socket: 0, L3: 2, Core: 4, CPU: 4}, {Socket: 0, L3: 2, Core: 5, CPU: 5}}
	b := []PEPlace{{Socket: 1, L3: 7, Core: 9, CPU: 18}, {Socket: 1, L3: 7, Core: 11, CPU: 22}}
	if PlacementSignature(a) != "s0l0c0,s0l0c1" || PlacementSignature(a) != PlacementSignature(b) {
		t.Errorf("same shape, different names: %s %s", PlacementSignature(a), PlacementSignature(b))
	}
	c := []PEPlace{{Socket: 0, L3: 0, Core: 0, CPU: 0}, {Socket: 1, L3: 1, Core: 1, CPU: 1}, {CPU: -1}, {Socket: -1, L3: -1, Core: -1, CPU: 3}}
	if got := PlacementSignature(c); got != "s0l0c0,s1l1c1,u,sxlxcx" {
		t.Errorf("PlacementSignature = %q", got)
	}
	big := make([]PEPlace, 65)
	for i := range big {
		big[i] = PEPlace{Core: int32(i), CPU: int32(i)}
	}
	if got := PlacementSignature(big); !strings.HasPrefix(got, "hash-") || len(got) > 30 {
		t.Errorf("65 PEs: %q", got)
	}
	if l := LayoutOf(a, 3); l != (Layout{3, 2, "s0l0c0,s0l0c1"}) {
		t.Errorf("LayoutOf = %+v", l)
	}
	if TableFileName("m", l0) == TableFileName("m", Layout{1, 4, "s0l0c0,s0l0c1"}) {
		t.Error("TableFileName ignores the PE count")
	}
}

var l0 = Layout{1, 2, "s0l0c0,s0l0c1"}

func TestTableFromTimings(t *testing.T) {
	ts := []Timing{
		{Barrier, 8, AlgLinear, 0.2}, {Barrier, 8, AlgTree, 0.3}, {Barrier, 8, AlgDissem, 0.5},
		// bcast: linear wins small, tree large; 64 is a tree win within the tie margin
		// (linear stays), 8192 a noisy linear win within 10% between tree wins (smoothed)
		{Bcast, 8, AlgLinear, 1}, {Bcast, 8, AlgTree, 2},
		{Bcast, 64, AlgLinear, 1.05}, {Bcast, 64, AlgTree, 1},
		{Bcast, 512, AlgLinear, 1}, {Bcast, 512, AlgTree, 2},
		{Bcast, 4096, AlgLinear, 5}, {Bcast, 4096, AlgTree, 2},
		{Bcast, 8192, AlgLinear, 1}, {Bcast, 8192, AlgTree, 1.05},
		{Bcast, 32768, AlgLinear, 9}, {Bcast, 32768, AlgTree, 4},
		// fcollect: ring faster by less than the tie margin: linear, the simpler, stays
		{FCollect, 8, AlgLinear, 1.0}, {FCollect, 8, AlgRing, 0.98},
		// alltoall: a clear single-size win stays
		{AllToAll, 8, AlgDirect, 1}, {AllToAll, 8, AlgPairwise, 2},
		{AllToAll, 16, AlgDirect, 3}, {AllToAll, 16, AlgPairwise, 1},
		{AllToAll, 32, AlgDirect, 1}, {AllToAll, 32, AlgPairwise, 2},
	}
	tb := TableFromTimings("M", l0, ts, nil)
	want := []Rule{
		{Barrier, 0, anySize, AlgLinear},
		{Bcast, 0, 512, AlgLinear}, {Bcast, 4096, 32768, AlgTree},
		{FCollect, 0, 8, AlgLinear},
		{AllToAll, 0, 8, AlgDirect}, {AllToAll, 16, 16, AlgPairwise}, {AllToAll, 32, 32, AlgDirect},
	}
	if len(tb.Rules) != len(want) {
		t.Fatalf("rules %+v, want %+v", tb.Rules, want)
	}
	for i := range want {
		if tb.Rules[i] != want[i] {
			t.Errorf("rule %d: %+v, want %+v", i, tb.Rules[i], want[i])
		}
	}
	if tb.Machine != "M" || tb.Layout != l0 || len(tb.Notes) != 1+6+1+3 {
		t.Errorf("header or notes: %+v", tb)
	}
	if _, err := ParseTable("x", FormatTable(tb)); err != nil {
		t.Errorf("its own table does not parse: %v", err)
	}
}

// TestTableFromTimingsPrefer: where the model's choice is within the tie margin of the
// fastest it wins, whichever is simpler; a clear win against it stays; a lone size against
// neighbours and model is smoothed within the wider margin; and each note says what the
// model chose.
func TestTableFromTimingsPrefer(t *testing.T) {
	ts := []Timing{
		// 8: direct within 10% of linear, the faster: the model's direct wins
		{Reduce, 8, AlgLinear, 1.0}, {Reduce, 8, AlgDirect, 1.08},
		// 64: linear faster by 30%: a clear win over the model's direct, kept between
		// direct sizes (beyond smoothModelMargin)
		{Reduce, 64, AlgLinear, 1.0}, {Reduce, 64, AlgDirect, 1.3},
		// 512: direct, the model's, also the fastest
		{Reduce, 512, AlgLinear, 2.0}, {Reduce, 512, AlgDirect, 1.0},
		// fcollect: ring alone at 64, 1.2x faster, between linear sizes that the model
		// also chose: smoothed to linear (1.25x allowed); at 512, 1.3x faster: kept
		{FCollect, 8, AlgLinear, 1}, {FCollect, 8, AlgRing, 2},
		{FCollect, 64, AlgLinear, 1.2}, {FCollect, 64, AlgRing, 1},
		{FCollect, 128, AlgLinear, 1}, {FCollect, 128, AlgRing, 2},
		{FCollect, 512, AlgLinear, 1.3}, {FCollect, 512, AlgRing, 1},
		{FCollect, 1024, AlgLinear, 1}, {FCollect, 1024, AlgRing, 2},
		// barrier: the model's dissem ties linear; alltoall: the model's pairwise ties direct
		{Barrier, 8, AlgLinear, 0.30}, {Barrier, 8, AlgTree, 0.2}, {Barrier, 8, AlgDissem, 0.21},
		{AllToAll, 8, AlgDirect, 1}, {AllToAll, 8, AlgPairwise, 1.05},
	}
	prefer := func(c Collective, size int64) Algorithm {
		switch c {
		case Barrier:
			return AlgDissem
		case AllToAll:
			return AlgPairwise
		case FCollect:
			return AlgLinear
		}
		return AlgDirect
	}
	tb := TableFromTimings("M", l0, ts, prefer)
	want := []Rule{
		{Barrier, 0, anySize, AlgDissem},
		{Reduce, 0, 8, AlgDirect}, {Reduce, 64, 64, AlgLinear}, {Reduce, 512, 512, AlgDirect},
		{FCollect, 0, 128, AlgLinear}, {FCollect, 512, 512, AlgRing}, {FCollect, 1024, 1024, AlgLinear},
		{AllToAll, 0, 8, AlgPairwise},
	}
	if !slices.Equal(tb.Rules, want) {
		t.Errorf("rules %+v, want %+v", tb.Rules, want)
	}
	for _, n := range tb.Notes {
		if _, m, ok := strings.Cut(n, "(model: "); !ok || !strings.HasSuffix(m, ")") {
			t.Errorf("note %q does not say the model's choice", n)
		}
	}
	// Without a model the simpler algorithm keeps the 8-byte tie.
	if a, _ := TableFromTimings("M", l0, ts, nil).Lookup(Reduce, 8); a != AlgLinear {
		t.Errorf("no model: reduce 8 B is %s, want linear", a)
	}
}

// TestChooseSources forces each source of auto's verdict: a table rule, the calibrated
// model (a different verdict from the default's), the default model.
func TestChooseSources(t *testing.T) {
	pes := []PEPlace{{Socket: 0, L3: 0, Core: 0, CPU: 0}, {Socket: 0, L3: 0, Core: 1, CPU: 1}}
	def := DefaultCostModel()
	tb := &Table{Rules: []Rule{{Reduce, 0, 64, AlgRing}}}
	if a, src := ChooseTuned(Reduce, pes, 64, def, tb); a != AlgRing || src != "table" {
		t.Errorf("table: %s %s", a, src)
	}
	defAlg, src := ChooseTuned(Reduce, pes, 1<<20, def, tb)
	if src != "model" {
		t.Errorf("outside the table: source %s", src)
	}
	if want, _ := Choose(Reduce, pes, 1<<20, def); defAlg != want {
		t.Errorf("default model: %s, Choose says %s", defAlg, want)
	}
	// A machine whose hand-off is slow beside its bandwidth: direct's fence and barrier
	// cost two where pairwise waits one, which the default model calls a tie at 1 MiB, so
	// the verdicts differ (or the test would prove nothing).
	cal := def
	cal.LatL3 = time.Millisecond
	defA2A, _ := ChooseTuned(AllToAll, pes, 1<<20, def, nil)
	calAlg, src := ChooseTuned(AllToAll, pes, 1<<20, cal, nil)
	if src != "model" || calAlg == defA2A {
		t.Errorf("calibrated model: %s (%s), default %s: the test needs them to differ", calAlg, src, defA2A)
	}
	if a, _ := ChooseTuned(Reduce, pes[:1], 64, def, tb); a != AlgLinear {
		t.Errorf("one PE: %s", a)
	}
	if got := ChoiceTableTuned(pes, def, tb); !strings.Contains(got, "ring 8 B-64 B (table)") || !strings.Contains(got, "(model)") {
		t.Errorf("ChoiceTableTuned:\n%s", got)
	}
}
