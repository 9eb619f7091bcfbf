package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in     string
		lo, hi int
	}{
		{"", 8, 16 << 20},
		{"64:4K", 64, 4096},
		{"1K:", 1024, 16 << 20},
		{":128", 8, 128},
		{"2M", 8, 2 << 20},
		{"1g:1G", 1 << 30, 1 << 30},
	} {
		lo, hi, err := parseRange(tc.in, 8, 16<<20)
		if err != nil || lo != tc.lo || hi != tc.hi {
			t.Errorf("parseRange(%q) = %d, %d, %v; want %d, %d", tc.in, lo, hi, err, tc.lo, tc.hi)
		}
	}
	for _, bad := range []string{"x", "8:4", "0:8", "-8:16", "8:16:32", "1T", "1.5K", "K"} {
		if _, _, err := parseRange(bad, 8, 16<<20); err == nil {
			t.Errorf("parseRange(%q) accepted", bad)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"-m", "8:64", "-o", "copy", "--json", "-i", "3", "-x", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.sizes, []int{8, 16, 32, 64}) || !o.copy || o.pingpong || !o.json || o.iters != 3 || o.warmup != 0 {
		t.Errorf("options %+v", o)
	}
	for _, bad := range [][]string{{"-o", "memcpy"}, {"-i", "0"}, {"-x", "-2"}, {"--cpus", "1,1"}, {"--cpus", "a"}, {"extra"}} {
		if _, err := parseOptions(bad, io.Discard); err == nil {
			t.Errorf("parseOptions(%q) accepted", bad)
		}
	}
}

func TestMedian(t *testing.T) {
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median of 3 1 2 = %v", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median of 4 1 3 2 = %v", got)
	}
}

// TestRunJSON runs both measurements at tiny counts and checks the records' shape
// (bench/FORMAT.md), not their speed.
func TestRunJSON(t *testing.T) {
	o, err := parseOptions([]string{"-m", "8:128K", "-i", "3", "-x", "1", "--json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := chooseCPUs(-1, -1); err != nil {
		t.Logf("no two CPUs (%v): copy only", err)
		o.pingpong, o.flagPingpong = false, false
	}
	var out, errOut bytes.Buffer
	if err := run(o, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	wantLines := 15 // 8 B .. 128 KiB
	pingOps := []string{}
	if o.pingpong {
		pingOps = append(pingOps, "cacheline_pingpong", "flag_pingpong")
		wantLines += 2
	}
	if len(lines) != wantLines {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), wantLines, out.String())
	}
	for i, line := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, line)
		}
		if r["impl"] != "limit" || r["unit"] != "B" || r["iters"] != 3.0 {
			t.Errorf("line %d: %s", i, line)
		}
		us, ok := r["us"].(float64)
		if !ok || us <= 0 {
			t.Errorf("line %d: us missing or not positive: %s", i, line)
		}
		if i < 15 {
			size := 8 << i
			if r["op"] != "copy" || r["size"] != float64(size) || r["npes"] != 1.0 {
				t.Errorf("line %d: want copy of %d B: %s", i, size, line)
			}
			if mbps, ok := r["mbps"].(float64); !ok || mbps <= 0 {
				t.Errorf("line %d: mbps missing: %s", i, line)
			}
			wantBatch := float64(min(copyBatchMax, copyBatchWork/size))
			if size > smallLimit {
				wantBatch = 1
			}
			if r["batch"] != wantBatch {
				t.Errorf("line %d: batch %v, want %v", i, r["batch"], wantBatch)
			}
		} else if r["op"] != pingOps[i-15] || r["npes"] != 2.0 || r["batch"] != float64(pingBatch) {
			t.Errorf("line %d: want %s: %s", i, pingOps[i-15], line)
		}
	}
}
