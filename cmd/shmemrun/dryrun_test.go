package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goshmem/shmem/runtime/launch"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// --dry-run on every captured tree with the placement flags, against golden files: the
// summary, each PE's binding line, the wait policy, the NUMA policies and the algorithm
// table. Errors are golden too (exit status 125 and the message).
func TestDryRunGolden(t *testing.T) {
	trees, _ := filepath.Glob("../../topology/testdata/*")
	cases := []struct {
		name string
		args []string
	}{
		{"default-4", []string{"-n", "4"}},
		{"socket-4", []string{"-n", "4", "--map-by", "socket"}},
		{"l3-8", []string{"-n", "8", "--map-by", "l3cache", "--bind-to", "l3cache"}},
		{"core-pe2-4", []string{"-n", "4", "--map-by", "core:PE=2"}},
		{"numa-bind-6", []string{"-n", "6", "--map-by", "numa", "--bind-to", "numa"}},
		{"cpulist-3", []string{"-n", "3", "--cpu-list", "1,3,0"}},
		{"over-200", []string{"-n", "200", "--bind-to", "core"}},
		{"over-200-ok", []string{"-n", "200", "--bind-to", "core", "--oversubscribe"}},
	}
	n := 0
	for _, tree := range trees {
		if st, err := os.Stat(filepath.Join(tree, "devices")); err != nil || !st.IsDir() {
			continue // not a sysfs tree (the golden files, the README)
		}
		for _, c := range cases {
			name := filepath.Base(tree) + "_" + c.name
			t.Run(name, func(t *testing.T) {
				var out, errb bytes.Buffer
				st := run(append([]string{"--dry-run", "--topology", tree}, c.args...), &out, &errb)
				got := out.String() + errb.String()
				if st != 0 {
					got += "exit status " + strconv.Itoa(st) + "\n"
				}
				golden := filepath.Join("testdata", "dryrun", name+".txt")
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					os.WriteFile(golden, []byte(got), 0o644)
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("--dry-run %s differs from %s:\n%s", strings.Join(c.args, " "), golden, got)
				}
			})
			n++
		}
	}
	if n < 6*len(cases) {
		t.Fatalf("only %d cases: captured trees missing", n)
	}
}

func TestTopologyNeedsDryRun(t *testing.T) {
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "2", "--topology", "../../topology/testdata/arm64-64c", "true"}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "use it with --dry-run") {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	out.Reset()
	errb.Reset()
	if st := run([]string{"-n", "2", "--cpu-list", "0,99", "true"}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "--cpu-list") {
		t.Fatalf("out-of-range --cpu-list: status %d: %s", st, errb.String())
	}
	out.Reset()
	errb.Reset()
	if st := run([]string{"-n", "2", "--map-by", "banana", "true"}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "banana") {
		t.Fatalf("unknown --map-by: status %d: %s", st, errb.String())
	}
}

func TestReportBindings(t *testing.T) {
	prog := buildExample(t)
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "2", "--report-bindings", prog}, &out, &errb); st != 0 ||
		!strings.Contains(errb.String(), "PE 0: socket 0 numa 0 core 0 cpus 0") || !strings.Contains(errb.String(), "PE 1: socket 0 numa 0 core 1 cpus 1") {
		t.Fatalf("status %d, stderr:\n%s", st, errb.String())
	}
}
