package topology

import (
	"strings"
	"testing"
	"time"
)

func sampleModelFile() ModelFile {
	m := DefaultCostModel()
	m.LatL3, m.BWL3, m.BWCombine, m.PollFirst = 186*time.Nanosecond, 11400, 37300, true
	src := map[string]string{"LatL3": "measured (CPUs 0,1)", "BWL3": "measured (CPUs 0,1)",
		"LatCrossL3": "derived: LatL3 × 215/47 (one L3 domain)", "BWCombine": "measured",
		"FirstPoll": "measured (a 2-PE barrier 64ns loading first, 112ns pausing first)"}
	return ModelFile{Machine: "AMD EPYC | 1 socket, 1 L3 domain, 2 cores, 2 CPUs | linux 6.1", Measured: "2026-12-02T18:00:00Z", Model: m, Source: src}
}

func TestModelFileRoundTrip(t *testing.T) {
	f := sampleModelFile()
	text := FormatModel(f)
	g, err := ParseModel("m.txt", text)
	if err != nil {
		t.Fatalf("ParseModel(FormatModel(f)): %v\n%s", err, text)
	}
	if g.Machine != f.Machine || g.Measured != f.Measured || g.Model != f.Model {
		t.Errorf("round trip: got %+v, want %+v", g, f)
	}
	for _, k := range modelFields {
		want := f.Source[k]
		if want == "" {
			want = "default"
		}
		if g.Source[k] != want {
			t.Errorf("source of %s: got %q, want %q", k, g.Source[k], want)
		}
	}
	if again := FormatModel(g); string(again) != string(text) {
		t.Errorf("format(parse(format)) differs:\n%s\nvs\n%s", again, text)
	}
}

func TestModelFileErrors(t *testing.T) {
	good := string(FormatModel(sampleModelFile()))
	cases := []struct{ name, text, want string }{
		{"bad duration", strings.Replace(good, "LatL3      186ns", "LatL3 fast", 1), "m.txt:5: LatL3: bad duration \"fast\""},
		{"negative bw", strings.Replace(good, "BWL3       11400", "BWL3 -5", 1), "m.txt:9: BWL3: bad bandwidth \"-5\""},
		{"unknown", good + "LatMoon 1s measured\n", "m.txt:15: unknown field \"LatMoon\""},
		{"twice", good + "LatL3 1ns measured\n", "m.txt:15: LatL3 given twice (first on line 5)"},
		{"bad first poll", strings.Replace(good, "FirstPoll  load", "FirstPoll  maybe", 1), "m.txt:14: FirstPoll: bad value \"maybe\" (want load or pause)"},
		{"no source", strings.Replace(good, "BWNet      12000    default", "BWNet 12000", 1), "m.txt:12: BWNet 12000: no source"},
		{"missing", strings.Replace(good, "BWNet      12000    default\n", "", 1), "m.txt: no BWNet line"},
		{"no machine", strings.Replace(good, "machine ", "# machine ", 1), "m.txt: no machine line"},
		{"no value", good + "BWNet\n", "m.txt:15: BWNet given twice"},
	}
	for _, c := range cases {
		_, err := ParseModel("m.txt", []byte(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q...", c.name, err, c.want)
		}
	}
}

// A file written before FirstPoll existed still parses, pausing first as the default does.
func TestModelFileWithoutFirstPoll(t *testing.T) {
	var lines []string
	for _, l := range strings.Split(string(FormatModel(sampleModelFile())), "\n") {
		if !strings.HasPrefix(l, "FirstPoll") {
			lines = append(lines, l)
		}
	}
	f, err := ParseModel("old.txt", []byte(strings.Join(lines, "\n")))
	if err != nil || f.Model.PollFirst || f.Source["FirstPoll"] != "" {
		t.Errorf("old file: %v, PollFirst %v, source %q", err, f.Model.PollFirst, f.Source["FirstPoll"])
	}
	if !strings.Contains(ModelSummary(f.Model, f.Source), "FirstPoll  pause    default") {
		t.Errorf("summary:\n%s", ModelSummary(f.Model, f.Source))
	}
}

func TestMachineKey(t *testing.T) {
	topo := &Topology{Packages: make([]Package, 2), L3: make([]Cache, 4), Cores: make([]Core, 8)}
	got := MachineKeyOf("Intel(R)  Xeon |  Gold", "linux 6.1", topo)
	if want := "Intel(R) Xeon / Gold | 2 sockets, 4 L3 domains, 8 cores, 0 CPUs | linux 6.1"; got != want {
		t.Errorf("MachineKeyOf = %q, want %q", got, want)
	}
	if !strings.HasPrefix(MachineKeyOf("", "", topo), "unknown CPU |") {
		t.Error("empty CPU model not named unknown")
	}
	if ModelFileName(got) == ModelFileName(got+"x") || !strings.HasPrefix(ModelFileName(got), "model-") {
		t.Error("ModelFileName does not tell keys apart")
	}
	x86 := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\n"
	arm := "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
	if cpuModel(x86) != "AMD EPYC 9B14" || cpuModel(arm) != "arm implementer 0x41 part 0xd0c" || cpuModel("") != "" {
		t.Errorf("cpuModel: %q %q", cpuModel(x86), cpuModel(arm))
	}
}
