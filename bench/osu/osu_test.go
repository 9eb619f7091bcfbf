package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goshmem/shmem/runtime/launch"
)

// The smoke test: the whole suite at tiny sizes and counts, as 2 PEs through the launcher,
// and its JSON lines parsed: every operation present, at the sizes asked for, with positive
// finite times and the rates where FORMAT.md has them.
func TestSuiteJSON(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "osu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	st, err := launch.Run(launch.Config{NPEs: 2, Prog: bin, Args: []string{"-m", "1:16", "-i", "3", "-x", "1", "-f", "--json"},
		Stdout: &stdout, Stderr: &stderr, Env: append(os.Environ(), "SHMEM_SYMMETRIC_SIZE=64M")})
	if err != nil || st != 0 {
		t.Fatalf("status %d %v\n%s", st, err, stderr.String())
	}
	seen := map[string][]int{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var r struct {
			Impl, Op, Unit           string
			Size, Npes, Iters, Batch int
			Us                       float64
			UsMin                    float64 `json:"us_min"`
			UsMax                    float64 `json:"us_max"`
			UsAvg                    float64 `json:"us_avg"`
			Mbps, Mops               float64
		}
		line := sc.Text()
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		var raw map[string]any
		json.Unmarshal([]byte(line), &raw)
		if r.Impl != "goshmem" || r.Npes != 2 || r.Iters != 3 || r.Us <= 0 || raw["us_min"] == nil {
			t.Errorf("bad record %s", line)
		}
		// us is the mean of the active PEs' medians (OSU's average latency): us_avg itself,
		// between us_min and us_max.
		if r.Us != r.UsAvg || r.Us < r.UsMin || r.Us > r.UsMax {
			t.Errorf("%s: us is not the mean over the PEs: %s", r.Op, line)
		}
		if wantRate := strings.HasSuffix(r.Op, "_bw"); wantRate != (raw["mbps"] != nil) {
			t.Errorf("%s: mbps presence wrong: %s", r.Op, line)
		}
		if wantRate := strings.HasPrefix(r.Op, "atomic_") || r.Op == "put_nbi_rate"; wantRate != (raw["mops"] != nil) {
			t.Errorf("%s: mops presence wrong: %s", r.Op, line)
		}
		seen[r.Op] = append(seen[r.Op], r.Size)
	}
	for _, o := range ops {
		sizes := seen[o.name]
		switch {
		case len(sizes) == 0:
			t.Errorf("no rows for %s", o.name)
		case o.fixed && len(sizes) != 1:
			t.Errorf("%s: %d rows, want 1", o.name, len(sizes))
		case !o.fixed && o.unit == "elems" && len(sizes) != 5: // 1, 2, 4, 8, 16
			t.Errorf("%s: sizes %v, want 1..16", o.name, sizes)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-o", "warp_drive"}, {"-m", "9:3"}, {"-i", "0"}, {"extra"}} {
		if _, err := parseOptions(args); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// -touch: every collective's record says so and no other's does; a run through the
// launcher also shows that the writes and reads stay inside the buffers (bounds checked).
func TestTouchJSON(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "osu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	st, err := launch.Run(launch.Config{NPEs: 3, Prog: bin, Args: []string{"-m", "1:64", "-i", "2", "-x", "1", "-touch", "--json", "-o", "put,barrier,broadcast64,collect64,fcollect64,reduce_int_sum,inscan_long_sum,alltoall64,alltoalls64"},
		Stdout: &stdout, Stderr: &stderr, Env: append(os.Environ(), "SHMEM_SYMMETRIC_SIZE=64M")})
	if err != nil || st != 0 {
		t.Fatalf("status %d %v\n%s", st, err, stderr.String())
	}
	n := 0
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var r struct {
			Op    string
			Touch bool
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not JSON: %q: %v", sc.Text(), err)
		}
		o := ops[slices.IndexFunc(ops, func(o op) bool { return o.name == r.Op })]
		if r.Touch != (o.fam == famColl) {
			t.Errorf("%s: touch %v: %s", r.Op, r.Touch, sc.Text())
		}
		n++
	}
	if n != 1+8*7 { // barrier at its one size; put and the 7 collectives at 7 sizes each
		t.Errorf("%d records, want %d:\n%s", n, 1+8*7, stdout.String())
	}
}

// extent: what one call of a collective uses of its source and destination, per PE (the
// buffers' size and -touch's span).
func TestExtent(t *testing.T) {
	defer func(n int) { npes = n }(npes)
	npes = 3
	for name, want := range map[string][2]int{
		"broadcast64": {56, 56}, "collect64": {56, 168}, "fcollect64": {56, 168},
		"reduce_int_sum": {28, 28}, "inscan_long_sum": {56, 56}, "alltoall64": {168, 168}, "alltoalls64": {336, 336},
	} {
		o := &ops[slices.IndexFunc(ops, func(o op) bool { return o.name == name })]
		if src, dst := o.extent(7); src != want[0] || dst != want[1] {
			t.Errorf("%s of 7 elements at 3 PEs: extent %d, %d, want %d, %d", name, src, dst, want[0], want[1])
		}
		if b := o.bufferBytes(7); b != max(want[0], want[1]) {
			t.Errorf("%s: buffers of %d bytes, want %d", name, b, max(want[0], want[1]))
		}
	}
}
