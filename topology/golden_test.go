package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden renders, for every captured tree, what shmemrun --dry-run and
// --report-bindings build on: Summary, the bindings for a set of flags (or the
// error), the memory policies, and the algorithm table. -update rewrites the
// files under testdata/golden.
func TestGolden(t *testing.T) {
	for _, tree := range trees {
		t.Run(tree, func(t *testing.T) {
			got := renderGolden(t, tree)
			path := filepath.Join("testdata", "golden", tree+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the output (run with -update after checking):\n%s", path, firstDiff(string(want), got))
			}
		})
	}
}

func renderGolden(t *testing.T, tree string) string {
	tp := readTree(t, tree)
	var b strings.Builder
	fmt.Fprintf(&b, "== summary\n%s", strings.ReplaceAll(Summary(tp), tp.Root, "testdata/"+tree))
	cores, threads := itoa(len(tp.Cores)), itoa(tp.Allowed.Count())
	for _, flags := range []string{
		"-n 2",
		"-n " + cores,
		"-n " + itoa(tp.Allowed.Count()+1),
		"-n 4 --map-by socket",
		"-n 4 --map-by numa --bind-to numa",
		"-n 4 --map-by l3cache",
		"-n 4 --map-by hwthread",
		"-n 2 --map-by core:PE=2",
		"-n 2 --map-by socket:PE=" + cores,
		"-n 3 --cpu-list 1,0",
		"-n " + threads + " --bind-to hwthread",
		"-n " + itoa(tp.Allowed.Count()+1) + " --bind-to hwthread",
		"-n " + itoa(len(tp.Cores)+1) + " --bind-to core --oversubscribe",
	} {
		fmt.Fprintf(&b, "== %s\n", flags)
		bs, err := placeLine(t, tp, flags)
		if err != nil {
			fmt.Fprintf(&b, "shmemrun: %v\n", err)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(ReportBindings(bs), "\n"), "\n")
		if len(lines) > 12 {
			// Long jobs: the first and last PEs say enough.
			lines = append(append(lines[:6:6], fmt.Sprintf("... %d more", len(lines)-12)), lines[len(lines)-6:]...)
		}
		fmt.Fprintf(&b, "%s\n", strings.Join(lines, "\n"))
		fmt.Fprintf(&b, "oversubscribed %v; control block %s; PE 0 segment %s\n",
			Oversubscribed(bs), ControlBlockPolicy(tp, bs), SegmentPolicy(tp, bs[0], bs))
	}
	for _, flags := range []string{"-n 2", "-n " + cores, "-n 4 --map-by socket"} {
		bs, err := placeLine(t, tp, flags)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "== algorithms %s\n%s", flags, ChoiceTable(PlaceMap(bs), DefaultCostModel()))
	}
	return b.String()
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, wl, gl)
		}
	}
	return ""
}
