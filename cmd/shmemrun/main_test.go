package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		args []string
		want string
	}{
		{[]string{"--bogus", "-n", "2", "true"}, "flag provided but not defined: -bogus"},
		{[]string{"-n", "0", "true"}, "-n 0: need at least 1 PE"},
		{[]string{"-n", "2"}, "no program to run"},
		{[]string{"-n", "2", "./no/such/prog"}, "./no/such/prog: no such file or directory"},
		{[]string{"-n", "2", notExec}, "not an executable file"},
		{[]string{"-n", "2", "no-such-program-anywhere"}, "program not found in PATH"},
		{[]string{"--timeout", "-5s", "-n", "2", "true"}, `invalid value "-5s" for flag -timeout: -5s is negative`},
		{[]string{"--timeout", "-1", "-n", "2", "true"}, `-1 is negative`},
		{[]string{"--timeout", "NaN", "-n", "2", "true"}, `NaN is not a number of seconds`},
		{[]string{"--timeout", "soon", "-n", "2", "true"}, `"soon" is neither a duration (30s, 1m30s) nor a number of seconds`},
		{[]string{"--oversubscribe", "-n", "16385", "true"}, "-n 16385: at most 16384 PEs run on one node"},
	} {
		var out, errb bytes.Buffer
		if st := run(c.args, &out, &errb); st != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: status %d, stderr %q; want 2 and %q", c.args, st, errb.String(), c.want)
		}
	}
	t.Setenv("SHMEM_REDUCE_ALGORITHM", "fastest")
	var out, errb bytes.Buffer
	if st := run([]string{"-n", "1", "true"}, &out, &errb); st != 2 || !strings.Contains(errb.String(), "valid values are auto, linear, tree, ring") {
		t.Errorf("bad algorithm: status %d, %q", st, errb.String())
	}
}

func TestHelpEnv(t *testing.T) {
	var out, errb bytes.Buffer
	if st := run([]string{"--help-env"}, &out, &errb); st != 0 || !strings.Contains(out.String(), "SHMEM_SYMMETRIC_SIZE") {
		t.Fatalf("status %d: %s", st, out.String())
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
