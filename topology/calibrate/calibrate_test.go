package calibrate

import (
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/topology"
)

func read(t *testing.T, name string) *topology.Topology {
	t.Helper()
	topo, err := topology.Read("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// Pairs finds every level a captured machine has, never two threads of one core.
func TestPairs(t *testing.T) {
	cases := []struct {
		tree string
		want []Level
	}{
		{"epyc-2s-nps4", []Level{SameL3, CrossL3, CrossSoc}},
		{"xeon-2s-28c-smt", []Level{SameL3, CrossSoc}},
		{"laptop-1s-smt", []Level{SameL3}},
		{"zen5-vm-2c", []Level{SameL3}},
	}
	for _, c := range cases {
		topo := read(t, c.tree)
		ps := Pairs(topo, topo.Online)
		if len(ps) != len(c.want) {
			t.Errorf("%s: pairs %v, want levels %v", c.tree, ps, c.want)
		}
		for _, l := range c.want {
			p, ok := ps[l]
			if !ok {
				t.Errorf("%s: no pair at level %d", c.tree, l)
				continue
			}
			a, b := topo.CPUs[p.A], topo.CPUs[p.B]
			if a.Core == b.Core {
				t.Errorf("%s: pair %v shares a core", c.tree, p)
			}
		}
		one := topology.NewCPUSet(topo.Online.First())
		if got := Pairs(topo, one); len(got) != 0 {
			t.Errorf("%s: one CPU allowed gave pairs %v", c.tree, got)
		}
	}
}

// Model keeps what was measured, derives the rest from the nearest measured level by the
// default model's ratios, and says so; with nothing measured it is the default.
func TestModelDerivation(t *testing.T) {
	def := topology.DefaultCostModel()
	at := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	ms := map[Level]Measurement{SameL3: {Pair: Pair{0, 1}, HandOff: 100 * time.Nanosecond, ReadMBps: 20000}}
	f := Model("M", at, ms, 40000)
	m := f.Model
	if m.LatL3 != 100*time.Nanosecond || m.BWL3 != 20000 || m.BWCombine != 40000 {
		t.Errorf("measured fields: %+v", m)
	}
	if want := 100 * time.Nanosecond * def.LatCrossL3 / def.LatL3; m.LatCrossL3 != want {
		t.Errorf("LatCrossL3 = %v, want %v", m.LatCrossL3, want)
	}
	if want := int64(20000) * def.BWSocket / def.BWL3; m.BWSocket != want {
		t.Errorf("BWSocket = %d, want %d", m.BWSocket, want)
	}
	if m.LatNet != def.LatNet || m.BWNet != def.BWNet || m.TreeRadix != def.TreeRadix || m.EagerRegion != def.EagerRegion {
		t.Errorf("network or job fields changed: %+v", m)
	}
	for k, want := range map[string]string{"LatL3": "measured", "LatCrossL3": "derived: LatL3", "BWSocket": "derived: BWL3", "LatNet": "default", "BWCombine": "measured"} {
		if !strings.HasPrefix(f.Source[k], want) {
			t.Errorf("source of %s: %q, want %q...", k, f.Source[k], want)
		}
	}
	if f.Machine != "M" || f.Measured != "2026-12-02T18:00:00Z" {
		t.Errorf("header: %q %q", f.Machine, f.Measured)
	}
	// Only the socket level measured: the others derive from it.
	f = Model("M", at, map[Level]Measurement{CrossSoc: {HandOff: 430 * time.Nanosecond, ReadMBps: 12000}}, 0)
	if f.Model.LatL3 != def.LatL3 || f.Model.BWCrossL3 != def.BWCrossL3 || f.Model.BWCombine != def.BWCombine || f.Source["BWCombine"] != "" {
		t.Errorf("derived from the socket level: %+v %v", f.Model, f.Source)
	}
	f = Model("M", at, nil, 0)
	if f.Model != def || !strings.HasPrefix(f.Source["LatL3"], "default (one CPU") {
		t.Errorf("nothing measured: %+v %v", f.Model, f.Source)
	}
	if _, err := topology.ParseModel("x", topology.FormatModel(f)); err != nil {
		t.Errorf("its file does not parse: %v", err)
	}
}

// FirstPoll loads at once only when the measured 2-PE barrier was clearly faster so, at the
// nearest measured level; else, and with nothing measured, it pauses first as the default.
func TestModelFirstPoll(t *testing.T) {
	at := time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		loaded, paused time.Duration
		want           bool
	}{{64, 112, true}, {100, 102, false}, {112, 64, false}} {
		ms := map[Level]Measurement{
			SameL3:   {Pair: Pair{0, 1}, HandOff: 100, ReadMBps: 1, PairLoaded: c.loaded, PairPaused: c.paused},
			CrossSoc: {Pair: Pair{0, 9}, HandOff: 300, ReadMBps: 1, PairLoaded: c.paused, PairPaused: c.loaded}, // farther: not asked
		}
		f := Model("M", at, ms, 0)
		if f.Model.PollFirst != c.want || !strings.HasPrefix(f.Source["FirstPoll"], "measured (CPUs 0,1: a 2-PE barrier") {
			t.Errorf("loaded %v paused %v: PollFirst %v (%s), want %v", c.loaded, c.paused, f.Model.PollFirst, f.Source["FirstPoll"], c.want)
		}
	}
	if f := Model("M", at, nil, 0); f.Model.PollFirst || !strings.HasPrefix(f.Source["FirstPoll"], "default") {
		t.Errorf("nothing measured: PollFirst %v (%s)", f.Model.PollFirst, f.Source["FirstPoll"])
	}
}

func TestRoundMBps(t *testing.T) {
	for in, want := range map[float64]int64{0.2: 1, 7: 7, 12345: 12300, 987654: 988000} {
		if got := roundMBps(in); got != want {
			t.Errorf("roundMBps(%v) = %d, want %d", in, got, want)
		}
	}
}

// The probes on this machine: plausible numbers, not speed (that is for benchmarks).
func TestMeasureLive(t *testing.T) {
	topo, err := topology.Read("")
	if err != nil {
		t.Skip(err)
	}
	if len(Pairs(topo, topo.Allowed)) == 0 {
		t.Skip("needs two allowed cores")
	}
	ms, combine, err := Measure(topo, topo.Allowed, Options{Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	for l, m := range ms {
		if m.HandOff <= 0 || m.HandOff > time.Millisecond || m.ReadMBps <= 0 || m.PairPaused <= 0 || m.PairLoaded <= 0 || m.PairLoaded > time.Millisecond {
			t.Errorf("level %d: %+v", l, m)
		}
	}
	if combine <= 0 {
		t.Errorf("combine %v MB/s", combine)
	}
	if _, err := FlagRoundTrip(0, 0, 1, 1); err == nil || !strings.Contains(err.Error(), "calibrate.FlagRoundTrip") {
		t.Errorf("one CPU: %v", err)
	}
	if _, err := PairBarrier(1, 1, 1, 1, true); err == nil || !strings.Contains(err.Error(), "calibrate.PairBarrier") {
		t.Errorf("one CPU: %v", err)
	}
	// A CPU that cannot be pinned: an error, not a wait for a side that never runs.
	off := topo.Online.First() + 512
	for name, probe := range map[string]func(a, b int) error{
		"FlagRoundTrip": func(a, b int) error { _, err := FlagRoundTrip(a, b, 3, 10); return err },
		"PairBarrier":   func(a, b int) error { _, err := PairBarrier(a, b, 3, 10, false); return err },
		"PeerRead":      func(a, b int) error { _, err := PeerRead(a, b, 4096, 3); return err },
	} {
		for _, c := range [][2]int{{0, off}, {off, 0}} {
			if err := probe(c[0], c[1]); err == nil || !strings.Contains(err.Error(), "pinning to CPU") {
				t.Errorf("%s on CPUs %d,%d: %v", name, c[0], c[1], err)
			}
		}
	}
	if _, err := PeerRead(0, 1, 8, 1); err == nil || !strings.Contains(err.Error(), "calibrate.PeerRead") {
		t.Errorf("8 bytes: %v", err)
	}
}
