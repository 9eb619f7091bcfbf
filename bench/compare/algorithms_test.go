package main

import (
	"strings"
	"testing"
)

// The tail of a real shmemrun --dry-run, and what auto runs at each size.
const dryRunTail = `cost model: calibrated /root/.cache/goshmem/model.txt (measured 2026-12-03T12:31:45Z)
  LatL3      264ns    measured (CPUs 0,1)
collective algorithms over all 2 PEs (auto):
barrier   dissem
bcast     linear 8 B-
reduce    linear 8 B-64 KiB, direct 128 KiB-
fcollect  linear 8 B-
collect   linear 8 B-
alltoall  direct 8 B-8 KiB, pairwise 16 KiB-
`

// chosenCase is an algorithm a dry-run table gives a collective at a size.
type chosenCase struct {
	coll   string
	nbytes int64
	want   string
}

// parseAndCheck parses a dry run's text and checks Chosen against cases.
func parseAndCheck(t *testing.T, text string, cases []chosenCase) map[string][]span {
	t.Helper()
	c, err := ParseChoices(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		if got := Chosen(c[tc.coll], tc.nbytes); got != tc.want {
			t.Errorf("%s at %d B: %q, want %q", tc.coll, tc.nbytes, got, tc.want)
		}
	}
	return c
}

func TestParseChoicesAndChosen(t *testing.T) {
	parseAndCheck(t, dryRunTail, []chosenCase{
		{"barrier", 0, "dissem"},
		{"bcast", 8, "linear"},
		{"bcast", 8 << 20, "linear"},
		{"reduce", 4, "linear"}, // below the table's first size: the first span
		{"reduce", 64 << 10, "linear"},
		{"reduce", 64<<10 + 1, "direct"}, // priced at the next power of two, as the runtime does
		{"reduce", 1 << 30, "direct"},
		{"alltoall", 8 << 10, "direct"},
		{"alltoall", 16 << 10, "pairwise"},
		{"scan", 8, ""},
	})
	for _, bad := range []string{"no table here", "collective algorithms over all 2 PEs (auto):\nreduce    linear 8 B-64 KB\n", "collective algorithms over all 2 PEs (auto):\nreduce    linear 8 B (table\n",
		"collective algorithms over all 2 PEs (auto):\nreduce    linear eight B-\n"} {
		if _, err := ParseChoices(bad); err == nil {
			t.Errorf("ParseChoices(%q) accepted it", bad)
		}
	}
}

// dryRunTuned is shmemrun --dry-run's table with a tuning table (2026-12-05, Zen 2 VM):
// each span names its source, and a span of one size class has no range.
const dryRunTuned = `tuning table: /root/.cache/goshmem/tune-801b44e9-1x2-5c2ac1a6.txt (nodes=1 pes-per-node=2 placement=s0l0c0,s0l0c1)
cost model: calibrated /root/.cache/goshmem/model-801b44e9006b5651.txt (measured 2026-12-05T10:33:59Z)
  LatL3      184ns    measured (CPUs 0,1)
collective algorithms over all 2 PEs (auto):
barrier   linear (table)
bcast     linear 8 B-1 MiB (table), linear 2 MiB- (model)
reduce    linear 8 B-64 KiB (table), direct 128 KiB-1 MiB (table), direct 2 MiB- (model)
fcollect  linear 8 B-1 MiB (table), linear 2 MiB- (model)
collect   linear 8 B- (model)
alltoall  pairwise 8 B-32 B (table), direct 64 B-512 B (table), pairwise 1 KiB (table), direct 2 KiB-1 MiB (table), pairwise 2 MiB- (model)
`

func TestParseChoicesTuned(t *testing.T) {
	c := parseAndCheck(t, dryRunTuned, []chosenCase{
		{"barrier", 0, "linear"},
		{"alltoall", 32, "pairwise"},
		{"alltoall", 64, "direct"},
		{"alltoall", 600, "pairwise"}, // the one-size span 1 KiB
		{"alltoall", 1024, "pairwise"},
		{"alltoall", 1025, "direct"},
		{"alltoall", 4 << 20, "pairwise"},
		{"reduce", 1 << 20, "direct"},
	})
	if s := c["alltoall"][2]; s.lo != 1024 || s.hi != 1024 || s.src != "table" {
		t.Errorf("alltoall's third span %+v: want 1 KiB to 1 KiB from the table", s)
	}
	if s := c["reduce"][2]; s.hi != -1 || s.src != "model" {
		t.Errorf("reduce's last span %+v: want open-ended, from the model", s)
	}
	got := ChoiceSources(dryRunTuned)
	if len(got) != 2 || !strings.HasPrefix(got[0], "auto's tuning table: /root/") || !strings.HasPrefix(got[1], "auto's cost model: calibrated") {
		t.Errorf("ChoiceSources = %q", got)
	}
}

func TestAlgTable(t *testing.T) {
	us := func(v float64) *float64 { return &v }
	rec := func(impl, op string, size int64, v float64) Record {
		return Record{Impl: impl, Op: op, Size: size, Unit: "elems", NPEs: 2, US: us(v)}
	}
	recs := []Record{
		rec("auto", "reduce_long_sum", 8, 0.5), rec("linear", "reduce_long_sum", 8, 0.48), rec("tree", "reduce_long_sum", 8, 0.9),
		rec("direct", "reduce_long_sum", 8, 0.7), rec("ring", "reduce_long_sum", 8, 0.9),
		rec("auto", "reduce_long_sum", 512, 1.3), rec("linear", "reduce_long_sum", 512, 0.66), rec("tree", "reduce_long_sum", 512, 1.3),
		rec("direct", "reduce_long_sum", 512, 0.7),
		rec("auto", "reduce_long_sum", 16384, 1.7), rec("linear", "reduce_long_sum", 16384, 1.0), rec("direct", "reduce_long_sum", 16384, 0.8),
	}
	c, err := ParseChoices(dryRunTail)
	if err != nil {
		t.Fatal(err)
	}
	rows := BuildAlgRows(recs, c)
	// 8 and 512 elements (64 B, 4 KiB): linear, the fastest, whatever auto's own run took;
	// 16384 (128 KiB): direct, the fastest, though auto's run was slow.
	if len(rows) != 3 || rows[0].Chosen != "linear" || rows[1].Chosen != "linear" || rows[2].Chosen != "direct" || rows[0].Off() || rows[1].Off() || rows[2].Off() {
		t.Fatalf("rows %+v: want linear, linear, direct chosen, none off", rows)
	}
	rows[1].Chosen = "tree" // 1.3 against linear's 0.66
	if !rows[1].Off() {
		t.Fatalf("row %+v: a choice 1.97x slower than the best is not off", rows[1])
	}
	// Auto's own runs: 0.5 against 0.48 is within the bound, 1.3 against 0.66 and 1.7
	// against 0.8 are not.
	if rows[0].AutoOff() || !rows[1].AutoOff() || !rows[2].AutoOff() {
		t.Fatalf("rows %+v: want auto's runs off at 512 and 16384 elements only", rows)
	}
	var b strings.Builder
	if err := WriteAlgTable(&b, rows, 2, 1, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"0.4800*", "1.300*", "1.97 !", "ring", "choice/best", "rows whose choice is off by more than 1.15x and 0.05 µs: 1 of 3; whose auto run is: 2", "2.12 !"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestAlgorithmOpsAsked(t *testing.T) {
	if got := algorithmOpsAsked([]string{"-m", "1:8", "-o", "put,barrier,collect64,alltoall64"}); strings.Join(got, ",") != "barrier,alltoall64" {
		t.Errorf("got %v, want barrier and alltoall64 (put has no algorithms, collect64 one)", got)
	}
	if got := algorithmOpsAsked(nil); len(got) != len(algorithmOps) {
		t.Errorf("no -o: %v, want every operation", got)
	}
	if got := withoutOps([]string{"-m", "1:8", "-o", "barrier", "-i", "5"}); strings.Join(got, " ") != "-m 1:8 -i 5" {
		t.Errorf("withoutOps: %v", got)
	}
}
