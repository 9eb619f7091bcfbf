package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
)

// buildExample compiles examples/testsome once for the tests below.
func buildExample(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "testsome")
	cmd := exec.Command("go", "build", "-o", out, "../../examples/testsome")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, b)
	}
	return out
}

func TestExampleTestSome(t *testing.T) {
	prog := buildExample(t)
	for _, n := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
		var out, errb bytes.Buffer
		if st := run([]string{"-n", n, prog}, &out, &errb); st != 0 {
			t.Fatalf("-n %s: status %d\n%s%s", n, st, out.String(), errb.String())
		}
	}
}

// The one-command form: a package directory is built, then run.
func TestRunsPackageDirectory(t *testing.T) {
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "2", "../../examples/testsome"}, &out, &errb); st != 0 {
		t.Fatalf("status %d\n%s", st, errb.String())
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "data.txt")
	os.WriteFile(notExec, []byte("x"), 0o644)
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"--bogus", "-n", "2", "true"}, launch.StatusUsage, "flag provided but not defined: -bogus"},
		{[]string{"-n", "0", "true"}, launch.StatusUsage, "-n 0: need at least 1 PE"},
		{[]string{"-np", "-3", "true"}, launch.StatusUsage, "-n -3: need at least 1 PE"},
		{[]string{"-n", "2"}, launch.StatusUsage, "no program to run"},
		{[]string{"-n", "2", "./no/such/prog"}, launch.StatusNotFound, "./no/such/prog: no such file or directory"},
		{[]string{"-n", "2", notExec}, launch.StatusCannotRun, "not an executable file"},
		{[]string{"-n", "2", "no-such-program-anywhere"}, launch.StatusNotFound, "program not found in PATH"},
		{[]string{"--timeout", "-5s", "-n", "2", "true"}, launch.StatusUsage, `invalid value "-5s" for flag -timeout: -5s is negative`},
		{[]string{"--timeout", "-1", "-n", "2", "true"}, launch.StatusUsage, `-1 is negative`},
		{[]string{"--timeout", "NaN", "-n", "2", "true"}, launch.StatusUsage, `NaN is not a number of seconds`},
		{[]string{"--timeout", "soon", "-n", "2", "true"}, launch.StatusUsage, `"soon" is neither a duration (30s, 1m30s) nor a number of seconds`},
		{[]string{"--oversubscribe", "-n", "16385", "true"}, launch.StatusUsage, "-n 16385: at most 16384 PEs run on one node"},
	} {
		var out, errb bytes.Buffer
		if st := run(c.args, &out, &errb); st != c.status || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", c.args, st, errb.String(), c.status, c.want)
		}
	}
	t.Setenv("SHMEM_REDUCE_ALGORITHM", "fastest")
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "1", "true"}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "valid values are auto, linear, tree, ring") {
		t.Errorf("bad algorithm: status %d, %q", st, errb.String())
	}
}

// shmemrun runs any program, as mpirun does: one that never calls Init is no error.
func TestRunsAnyProgram(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "2", "hostname"}, &out, &errb); st != 0 || out.String() != host+"\n"+host+"\n" || errb.Len() != 0 {
		t.Fatalf("shmemrun -n 2 hostname: status %d, stdout %q, stderr %q", st, out.String(), errb.String())
	}
	out.Reset()
	if st := run([]string{"-n", "3", "--tag-output", "sh", "-c", "echo $GOSHMEM_PE"}, &out, &errb); st != 0 {
		t.Fatalf("sh: status %d, %s", st, errb.String())
	}
	for pe := range 3 {
		if want := fmt.Sprintf("[PE %d] %d\n", pe, pe); !strings.Contains(out.String(), want) {
			t.Errorf("no %q in %q", want, out.String())
		}
	}
	errb.Reset()
	// A PE's non-zero status is shmemrun's, whether it comes first (and ends the job) or last.
	if st := run([]string{"-n", "2", "sh", "-c", "exit $((4 * GOSHMEM_PE))"}, &out, &errb); st != 4 {
		t.Errorf("statuses 0 and 4: shmemrun's %d, want 4; %s", st, errb.String())
	}
}

// A PE that exits without Init while another PE calls it would leave that one waiting in
// Init forever: the job ends with status 1 and a report naming both, whichever comes first.
func TestExitWithoutInitWhileOthersInit(t *testing.T) {
	_, prog := binaries(t)
	for _, script := range []string{
		`if [ "$GOSHMEM_PE" = 0 ]; then exit 0; fi; exec "$0" stdin`,            // PE 0 leaves at once
		`if [ "$GOSHMEM_PE" = 0 ]; then sleep 0.5; exit 0; fi; exec "$0" stdin`, // after PE 1 called Init
	} {
		var out, errb bytes.Buffer
		st := run([]string{"-n", "2", "--timeout", "60s", "sh", "-c", script, prog}, &out, &errb)
		if st != 1 || !strings.Contains(errb.String(), "PE 0 (pid ") || !strings.Contains(errb.String(), "exited without calling shmem.Init, but PE 1 called it") {
			t.Errorf("%s: status %d, stderr:\n%s", script, st, errb.String())
		}
	}
}

// Without -n, one PE per binding unit: the usable cores.
func TestDefaultN(t *testing.T) {
	top, err := topology.Read("")
	if err != nil {
		t.Fatal(err)
	}
	want, err := topology.DefaultNPEs(top, topology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if st := run([]string{"sh", "-c", "echo $GOSHMEM_PE"}, &out, &errb); st != 0 || strings.Count(out.String(), "\n") != want {
		t.Fatalf("status %d, %d lines, want %d: %q %s", st, strings.Count(out.String(), "\n"), want, out.String(), errb.String())
	}
	out.Reset()
	if st := run([]string{"--dry-run"}, &out, &errb); st != 0 || !strings.Contains(out.String(), fmt.Sprintf("placement of %d PEs:", want)) {
		t.Fatalf("--dry-run without -n: status %d: %s", st, out.String())
	}
}

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	want := regexp.MustCompile(`^shmemrun \(goshmem \d+\.\d+\.\d+\) OpenSHMEM 1\.6, go1\.\S+ \w+/\w+\n$`)
	if st := run([]string{"--version"}, &out, &errb); st != 0 || !want.MatchString(out.String()) {
		t.Fatalf("--version: status %d, %q", st, out.String())
	}
}

// --help spells every flag as it is typed, and lists the exit statuses.
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if st := run([]string{"--help"}, &out, &errb); st != 0 {
		t.Fatalf("status %d", st)
	}
	h := out.String()
	for _, w := range []string{"\n  --map-by unit ", "\n  --timeout ", "\n  -n N, -np N ", "\n  --version ", "\n  124 ", "\n  125 ", "\n  126 ", "\n  127 ", "\n  128+n ", "panics exits with 2"} {
		if !strings.Contains(h, w) {
			t.Errorf("--help lacks %q:\n%s", w, h)
		}
	}
	if regexp.MustCompile(`(?m)^  -[a-z][a-z]`).MatchString(h) {
		t.Errorf("--help spells a long flag with one dash:\n%s", h)
	}
}

// A package of another module (the user's own, with a replace of goshmem) builds in its
// module and runs; a directory outside any module is refused with what to do.
func TestPackageInAnotherModule(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	prog := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/goshmem/shmem\"\n)\n\nfunc main() {\n\tif err := shmem.Init(); err != nil {\n\t\tpanic(err)\n\t}\n\tdefer shmem.Finalize()\n\tfmt.Printf(\"PE %d of %d\\n\", shmem.MyPE(), shmem.NPEs())\n}\n"
	os.WriteFile(filepath.Join(mod, "main.go"), []byte(prog), 0o644)
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/mine\n\ngo 1.26\n\nrequire github.com/goshmem/shmem v0.0.0\n\nreplace github.com/goshmem/shmem => "+root+"\n"), 0o644)
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644)
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir, tidy.Env = mod, append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	if b, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, b)
	}
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "2", mod}, &out, &errb); st != 0 || !strings.Contains(out.String(), "PE 1 of 2\n") {
		t.Fatalf("status %d: %s%s", st, out.String(), errb.String())
	}

	bare := t.TempDir()
	os.WriteFile(filepath.Join(bare, "main.go"), []byte(prog), 0o644)
	errb.Reset()
	if st := run([]string{"-n", "2", bare}, &out, &errb); st != launch.StatusUsage ||
		!strings.Contains(errb.String(), "not inside a Go module; make one there (go mod init example.com/prog; go mod edit -replace github.com/goshmem/shmem="+root) {
		t.Fatalf("no module: status %d: %s", st, errb.String())
	}
	// A module that does not require goshmem: go's message, and shmemrun's hint.
	os.WriteFile(filepath.Join(bare, "go.mod"), []byte("module example.com/bare\n\ngo 1.26\n"), 0o644)
	errb.Reset()
	if st := run([]string{"-n", "2", bare}, &out, &errb); st != launch.StatusUsage || !strings.Contains(errb.String(), "go mod edit -require github.com/goshmem/shmem@v0.0.0 -replace github.com/goshmem/shmem="+root) {
		t.Fatalf("no require: status %d: %s", st, errb.String())
	}
}

func TestHelpEnv(t *testing.T) {
	var out, errb bytes.Buffer
	if st := run([]string{"--help-env"}, &out, &errb); st != 0 || !strings.Contains(out.String(), "SHMEM_SYMMETRIC_SIZE") {
		t.Fatalf("status %d: %s", st, out.String())
	}
}

// SHMEM_SYMMETRIC_SIZE is rounded up to 2 MiB: --help-env says so, and SHMEM_INFO shows the
// size used and why.
func TestHeapRoundingShown(t *testing.T) {
	prog := buildExample(t)
	var out, errb bytes.Buffer
	if st := run([]string{"--help-env"}, &out, &errb); st != 0 || !strings.Contains(out.String(), "rounded up to a multiple of 2 MiB") {
		t.Errorf("--help-env: %s", out.String())
	}
	t.Setenv("SHMEM_SYMMETRIC_SIZE", "1000000")
	t.Setenv("SHMEM_INFO", "1")
	out.Reset()
	if st := run([]string{"-n", "1", prog}, &out, &errb); st != 0 || !strings.Contains(errb.String(), "symmetric heap 2097152 bytes per PE (SHMEM_SYMMETRIC_SIZE=1000000 rounded up to a multiple of 2 MiB)") {
		t.Errorf("SHMEM_INFO: status %d, stderr:\n%s", st, errb.String())
	}
	t.Setenv("SHMEM_SYMMETRIC_SIZE", "4M")
	errb.Reset()
	if st := run([]string{"-n", "1", prog}, &out, &errb); st != 0 || !strings.Contains(errb.String(), "symmetric heap 4194304 bytes per PE, waits") {
		t.Errorf("SHMEM_INFO, a multiple of 2 MiB: status %d, stderr:\n%s", st, errb.String())
	}
}

// --timeout takes Go durations and bare numbers of seconds, as timeout(1) does.
func TestParseTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{"5": 5 * time.Second, "2.5": 2500 * time.Millisecond, "0": 0,
		"1500ms": 1500 * time.Millisecond, "1m30s": 90 * time.Second} {
		if d, err := parseTimeout(in); err != nil || d != want {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v", in, d, err, want)
		}
	}
	for _, in := range []string{"-5s", "-0.5", "Inf", "1e300", "", "5 s"} {
		if d, err := parseTimeout(in); err == nil {
			t.Errorf("parseTimeout(%q) = %v, want an error", in, d)
		}
	}
}
