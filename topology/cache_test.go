package topology

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// A node's calibration and the network level a job across nodes measured are written by
// different writers into one model file; each keeps what the other wrote.
func TestModelFileNetLevel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "model-x.txt")
	f := sampleModelFile()
	net := NetLevel{Lat: 17 * time.Microsecond, BW: 850}
	const src = "measured across nodes when a job ended (PE 0 on a to PE 1 on b)"
	read := func() ModelFile {
		t.Helper()
		m, ok := readModelFile(path)
		if !ok {
			t.Fatalf("no model file at %s", path)
		}
		return m
	}

	// No model of the machine yet: the network level waits for the node's calibration.
	if wrote, err := WriteNetLevel(path, f.Machine, net, src); err != nil || wrote {
		t.Fatalf("WriteNetLevel without a model file: wrote %v, %v; want nothing written", wrote, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("WriteNetLevel created %s", path)
	}
	if _, err := WriteNodeModel(path, f); err != nil {
		t.Fatal(err)
	}
	if m := read(); NetLevelMeasured(m.Source) || m.Model.LatNet != DefaultCostModel().LatNet {
		t.Fatalf("a node's calibration alone: LatNet %v (%s), want the default", m.Model.LatNet, m.Source["LatNet"])
	}
	if wrote, err := WriteNetLevel(path, "another machine", net, src); err != nil || wrote {
		t.Fatalf("WriteNetLevel for another machine: wrote %v, %v", wrote, err)
	}
	if wrote, err := WriteNetLevel(path, f.Machine, net, src); err != nil || !wrote {
		t.Fatalf("WriteNetLevel: wrote %v, %v", wrote, err)
	}
	m := read()
	if m.Model.LatNet != net.Lat || m.Model.BWNet != net.BW || m.Source["LatNet"] != src || m.Source["BWNet"] != src || !NetLevelMeasured(m.Source) {
		t.Fatalf("after WriteNetLevel: LatNet %v (%s), BWNet %d (%s)", m.Model.LatNet, m.Source["LatNet"], m.Model.BWNet, m.Source["BWNet"])
	}
	if m.Model.LatL3 != f.Model.LatL3 || m.Source["LatL3"] != f.Source["LatL3"] {
		t.Fatalf("WriteNetLevel changed the node's fields: LatL3 %v (%s)", m.Model.LatL3, m.Source["LatL3"])
	}

	// Calibrating the node again keeps the measured network level; another machine's
	// model replaces the file whole.
	g := sampleModelFile()
	g.Model.LatL3 = 99 * time.Nanosecond
	got, err := WriteNodeModel(path, g)
	if err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Model != got.Model || m.Model.LatL3 != 99*time.Nanosecond || m.Model.LatNet != net.Lat || m.Source["LatNet"] != src {
		t.Fatalf("recalibrated: LatL3 %v, LatNet %v (%s); returned %+v", m.Model.LatL3, m.Model.LatNet, m.Source["LatNet"], got)
	}
	if g.Source["LatNet"] != "" {
		t.Fatalf("WriteNodeModel changed its argument's sources: %v", g.Source)
	}
	other := sampleModelFile()
	other.Machine = "another machine"
	if _, err := WriteNodeModel(path, other); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Machine != other.Machine || NetLevelMeasured(m.Source) {
		t.Fatalf("another machine's model: %q, LatNet from %q", m.Machine, m.Source["LatNet"])
	}

	// Writers at once (nodes sharing the cache): neither's fields are lost.
	for range 20 {
		for _, h := range []ModelFile{other, f} { // f without a network level
			if _, err := WriteNodeModel(path, h); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() { WriteNetLevel(path, f.Machine, net, src) })
		wg.Go(func() { WriteNodeModel(path, g) })
		wg.Wait()
		if m := read(); m.Model.LatNet != net.Lat || m.Model.LatL3 != g.Model.LatL3 {
			t.Fatalf("concurrent writers: LatNet %v, LatL3 %v; want %v and %v", m.Model.LatNet, m.Model.LatL3, net.Lat, g.Model.LatL3)
		}
	}
}
