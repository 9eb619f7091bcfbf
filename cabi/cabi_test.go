//go:build linux && cgo

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goshmem/shmem/runtime/launch"
)

// The C programs are built by shmemcc, which builds libgoshmem (shared and archive) once per
// test binary into a private cache, and run through the launcher shmemrun uses.

var work struct {
	dir string // temporary: shmemcc, its cache, the programs
	mu  sync.Mutex
	cc  string            // shmemcc, once built
	exe map[string]string // built programs by name
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cabi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	work.dir, work.exe = dir, map[string]string{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shmemcc builds cmd/shmemcc once.
func shmemcc(t testing.TB) string {
	t.Helper()
	work.mu.Lock()
	defer work.mu.Unlock()
	if work.cc == "" {
		out := filepath.Join(work.dir, "shmemcc")
		if b, err := exec.Command("go", "build", "-o", out, "../cmd/shmemcc").CombinedOutput(); err != nil {
			t.Fatalf("building shmemcc: %v\n%s", err, b)
		}
		work.cc = out
	}
	return work.cc
}

// compile builds a C program with shmemcc (extra flags first), once per name.
func compile(t testing.TB, name, src string, flags ...string) string {
	t.Helper()
	cc := shmemcc(t)
	work.mu.Lock()
	defer work.mu.Unlock()
	if exe, ok := work.exe[name]; ok {
		return exe
	}
	exe := filepath.Join(work.dir, name)
	args := append(append([]string{}, flags...), "-Wall", "-Wextra", "-O1", src, "-o", exe)
	cmd := exec.Command(cc, args...)
	cmd.Env = append(os.Environ(), "GOSHMEM_CACHE="+filepath.Join(work.dir, "cache"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shmemcc %s: %v\n%s", strings.Join(args, " "), err, b)
	} else if bytes.Contains(b, []byte("warning")) {
		t.Errorf("shmemcc %s: warnings:\n%s", src, b)
	}
	work.exe[name] = exe
	return exe
}

type job struct {
	status         int
	stdout, stderr string
}

// run runs exe as n PEs. Waits yield and sleep: the tests share two cores with each other.
func run(t testing.TB, exe string, n int, args ...string) job {
	t.Helper()
	return runEnv(t, nil, exe, n, args...)
}

// runEnv is run with extra environment variables (KEY=VALUE).
func runEnv(t testing.TB, env []string, exe string, n int, args ...string) job {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status, err := launch.Run(launch.Config{
		NPEs:       n,
		Prog:       exe,
		Args:       args,
		Env:        append(os.Environ(), env...),
		Stdout:     &stdout,
		Stderr:     &stderr,
		SharedCPUs: true,
		Timeout:    2 * time.Minute,
	})
	if err != nil {
		t.Fatalf("launching %s as %d PEs: %v", exe, n, err)
	}
	return job{status, stdout.String(), stderr.String()}
}

func (j job) String() string {
	return fmt.Sprintf("status %d\n--- stdout\n%s--- stderr\n%s", j.status, j.stdout, j.stderr)
}

// The seeds' C examples pass at 2 to 8 PEs.
func TestExamples(t *testing.T) {
	for _, ex := range []string{"test_some", "alltoalls64", "or_to_all", "min_to_all", "sum_to_all"} {
		exe := compile(t, ex, "../examples/c/"+ex+".c")
		for n := 2; n <= 8; n++ {
			t.Run(fmt.Sprintf("%s/%dPE", ex, n), func(t *testing.T) {
				if j := run(t, exe, n); j.status != 0 {
					t.Fatal(j)
				}
			})
		}
	}
}

// Linked with the archive, heap-only programs pass; static symmetric data is refused with a
// message that says why and what to do.
func TestArchive(t *testing.T) {
	exe := compile(t, "test_some.a", "../examples/c/test_some.c", "-goshmem-archive")
	for _, n := range []int{2, 4} {
		if j := run(t, exe, n); j.status != 0 {
			t.Fatalf("%d PEs: %v", n, j)
		}
	}
	exe = compile(t, "alltoalls64.a", "../examples/c/alltoalls64.c", "-goshmem-archive")
	j := run(t, exe, 2)
	want := regexp.MustCompile(`(?m)^panic: shmem_alltoalls64: pSync \(address 0x[0-9a-f]+\) is a static variable, which is symmetric only when the program is linked against libgoshmem.so`)
	if j.status == 0 || !want.MatchString(j.stderr) {
		t.Fatalf("want a failure matching %q, got %v", want, j)
	}
}

// Every family, on heap and static data; the static data's move also in an executable that
// is not position independent and in one without RELRO; and with SHMEM_DEBUG's cross-PE
// checks.
func TestAPI(t *testing.T) {
	exe := compile(t, "api", "testdata/api.c")
	for _, n := range []int{1, 2, 3, 4, 8} {
		t.Run(fmt.Sprintf("%dPE", n), func(t *testing.T) {
			if j := run(t, exe, n); j.status != 0 {
				t.Fatal(j)
			}
		})
	}
	for _, v := range []struct{ name, flag string }{{"no-pie", "-no-pie"}, {"norelro", "-Wl,-z,norelro"}} {
		t.Run(v.name, func(t *testing.T) {
			if j := run(t, compile(t, "api-"+v.name, "testdata/api.c", v.flag), 3); j.status != 0 {
				t.Fatal(j)
			}
		})
	}
	t.Run("SHMEM_DEBUG", func(t *testing.T) {
		if j := runEnv(t, []string{"SHMEM_DEBUG=1"}, exe, 3); j.status != 0 {
			t.Fatal(j)
		}
	})
}

// The C fast path (fastpath.h) and the calls it leaves to Go: RMA of every size on heap and
// static data, the atomics of every type against a serial model with all PEs contending,
// shmem_ptr, fence and quiet, and waiters woken by every kind of post. The tests' PEs share
// CPUs, so waits yield and sleep and posters ring doorbells; more PEs than CPUs too; and
// with GOSHMEM_WAIT=spin, where waits poll in C first (and the pair barrier loads first or
// pauses first, GOSHMEM_FIRST_POLL).
func TestFastPath(t *testing.T) {
	exe := compile(t, "fastpath", "testdata/fastpath.c")
	for _, n := range []int{1, 2, 3, 4, 8} {
		t.Run(fmt.Sprintf("%dPE", n), func(t *testing.T) {
			if j := run(t, exe, n); j.status != 0 {
				t.Fatal(j)
			}
		})
	}
	t.Run("spin", func(t *testing.T) {
		if j := runEnv(t, []string{"GOSHMEM_WAIT=spin"}, exe, 2); j.status != 0 {
			t.Fatal(j)
		}
	})
	// shmem_barrier_all's pair barrier both ways its wait may start.
	for _, poll := range []string{"load", "pause"} {
		t.Run("spin-first-poll-"+poll, func(t *testing.T) {
			if j := runEnv(t, []string{"GOSHMEM_WAIT=spin", "GOSHMEM_FIRST_POLL=" + poll}, exe, 2); j.status != 0 {
				t.Fatal(j)
			}
		})
	}
	t.Run("no-pie", func(t *testing.T) {
		if j := run(t, compile(t, "fastpath-no-pie", "testdata/fastpath.c", "-no-pie"), 2); j.status != 0 {
			t.Fatal(j)
		}
	})
}

// Errors name the C routine and the argument, in one line, with no Go traceback.
func TestErrors(t *testing.T) {
	exe := compile(t, "errors", "testdata/errors.c")
	for _, c := range []struct {
		name   string
		status int
		want   string // a line of stderr (regular expression)
		env    []string
	}{
		{"before-init", 2, `^panic: shmem_my_pe: called before shmem_init$`, nil},
		{"after-finalize", 2, `^panic: shmem_my_pe: called after shmem_finalize$`, nil},
		{"pe", 2, `^panic: shmem_putmem: PE 9 out of range \[0,2\)$`, nil},
		{"stack", 2, `^panic: shmem_long_put: dest \(address 0x[0-9a-f]+\) is not symmetric: use memory from shmem_malloc, or a global or static variable of the program$`, nil},
		{"cmp", 2, `^panic: shmem_long_wait_until: invalid comparison 42$`, nil},
		{"align", 2, `^panic: shmem_long_atomic_add: target 0x[0-9a-f]+ is not 8-byte aligned$`, nil},
		{"team", 2, `^panic: shmem_team_sync: team 0x63 does not exist`, nil},
		{"null", 2, `^panic: shmem_putmem: source is a null pointer$`, nil},
		{"static-overrun", 2, `^panic: shmem_long_get: source \[0x[0-9a-f]+, \+8589934592 bytes\) runs past the end of the program's static data$`, nil},
		{"active-set", 2, `^panic: shmem_barrier: active set \(start 0, log stride 0, size 3\) reaches PE 2, out of range \[0,2\)$`, nil},
		{"exhausted", 0, `^libgoshmem: shmem_malloc: cannot allocate 70368744177664 bytes: more than the whole symmetric heap .*SHMEM_SYMMETRIC_SIZE`, nil},
		{"global-exit", 3, ``, nil},
		{"iput-stride", 2, `^panic: shmem_long_iput: dest: 3 elements at stride 4611686018427387904 overflow$`, nil},
		{"iget-stride", 2, `^panic: shmem_long_iget: dest: 3 elements at stride 4611686018427387904 overflow$`, nil},
		{"put-count", 2, `^panic: shmem_long_put: 2305843009213693953 elements of 8 bytes overflow$`, nil},
		{"collect-overlap", 2, `^panic: shmem_long_collect: dest and source overlap$`, nil},
		{"alltoall-count", 2, `^panic: shmem_long_alltoall: elements of all PEs: 2 × 4611686018427387904 overflows$`, nil},
		{"global-exit-256", 255, `^shmem_global_exit: status 256 is outside the exit statuses \[0,255\]: exiting with 255$`, nil},
		// The fast path's routines leave bad input to Go, which reports it as before.
		{"p-pe", 2, `^panic: shmem_long_p: PE -1 out of range \[0,2\)$`, nil},
		{"g-pe", 2, `^panic: shmem_int_g: PE 2 out of range \[0,2\)$`, nil},
		{"amo-pe", 2, `^panic: shmem_long_atomic_fetch_add: PE 2 out of range \[0,2\)$`, nil},
		{"amo-stack", 2, `^panic: shmem_int_atomic_fetch_inc: dest \(address 0x[0-9a-f]+\) is not symmetric: use memory from shmem_malloc, or a global or static variable of the program$`, nil},
		{"get-heap-end", 2, `^panic: shmem_getmem: source \[0x[0-9a-f]+, \+1099511627776 bytes\) runs past the end of the symmetric heap \(\d+ bytes per PE; SHMEM_SYMMETRIC_SIZE sets it\)$`, nil},
		{"static-align", 2, `^panic: shmem_int_atomic_set: target 0x[0-9a-f]+ is not 4-byte aligned$`, nil},
		{"test-stack", 2, `^panic: shmem_long_test: ivar \(address 0x[0-9a-f]+\) is not symmetric: use memory from shmem_malloc, or a global or static variable of the program$`, nil},
		{"test-cmp", 2, `^panic: shmem_int_test: invalid comparison -1$`, nil},
		{"signal-op", 2, `^panic: shmem_putmem_signal: invalid signal operation 7$`, nil},
		{"get-null", 2, `^panic: shmem_getmem: dest is a null pointer$`, nil},
		{"put-before-init", 2, `^panic: shmem_putmem: called before shmem_init$`, nil},
		{"quiet-before-init", 2, `^panic: shmem_quiet: called before shmem_init$`, nil},
		{"amo-after-finalize", 2, `^panic: shmem_long_atomic_inc: called after shmem_finalize$`, nil},
		{"fence-after-finalize", 2, `^panic: shmem_fence: called after shmem_finalize$`, nil},
		{"ptr-after-finalize", 2, `^panic: shmem_ptr: called after shmem_finalize$`, nil},
		{"ctx-destroyed", 2, `^panic: shmem_ctx_long_p: context was destroyed$`, nil},
		{"ctx-team-pe", 2, `^panic: shmem_ctx_long_atomic_add: PE 1 out of range \[0,1\) of the context's team$`, nil},
		{"ctx-default-destroy", 2, `^panic: shmem_ctx_destroy: the default context cannot be destroyed$`, nil},
		{"pe-quiet-pe", 2, `^panic: shmem_pe_quiet: target_pes\[1\] = 2: PE out of range \[0,2\)$`, nil},
		{"pe-quiet-null", 2, `^panic: shmem_pe_quiet: target_pes is a null pointer$`, nil},
		{"pe-quiet-negative", 2, `^panic: shmem_ctx_pe_quiet: npes -2 is negative$`, nil},
		{"scan-team", 2, `^panic: shmem_long_sum_inscan: invalid team`, nil},
		{"scan-overlap", 2, `^panic: shmem_long_sum_exscan: .*overlap`, nil},
		{"session-options", 2, `^panic: shmem_ctx_session_start: unknown options 0x200$`, nil},
		{"session-config", 2, `^panic: shmem_ctx_session_start: config is a null pointer, but config_mask selects its total_ops$`, nil},
		{"to-all-outside", 0, `^libgoshmem: shmem_int_sum_to_all: PE 1 is not in the active set \(start 0, log stride 0, size 1\): nothing done, as Open MPI's OSHMEM does$`, []string{"SHMEM_DEBUG=1"}},
		{"lock-stack", 2, `^panic: shmem_set_lock: lock \(address 0x[0-9a-f]+\) is not symmetric`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := runEnv(t, c.env, exe, 2, c.name)
			if j.status != c.status {
				t.Fatalf("want status %d, got %v", c.status, j)
			}
			if !regexp.MustCompile("(?m)" + c.want).MatchString(j.stderr) {
				t.Fatalf("stderr has no line matching %q:\n%v", c.want, j)
			}
			if strings.Contains(j.stderr, "goroutine ") {
				t.Fatalf("a Go traceback:\n%v", j)
			}
		})
	}
	// A program probing the heap's size: one line per routine, or one per failure under
	// SHMEM_DEBUG.
	line := regexp.MustCompile(`(?m)^libgoshmem: shmem_malloc: cannot allocate \d+ bytes: (the symmetric heap is exhausted|more than the whole symmetric heap)`)
	j := run(t, exe, 2, "probe-heap")
	if n := len(line.FindAllString(j.stderr, -1)); j.status != 0 || n != 2 || !strings.Contains(j.stderr, "(reported once; SHMEM_DEBUG=1 reports every failure)") || !strings.Contains(j.stdout, "the heap holds") {
		t.Fatalf("probing the heap: %d lines (want one per PE): %v", n, j)
	}
	j = runEnv(t, []string{"SHMEM_DEBUG=1"}, exe, 2, "probe-heap")
	if n := len(line.FindAllString(j.stderr, -1)); j.status != 0 || n < 2*10 {
		t.Fatalf("probing the heap under SHMEM_DEBUG: %d lines, want one per failure: %v", n, j)
	}
	// GlobalExit flushes C's buffered stdout first.
	if j := run(t, exe, 1, "global-exit"); !strings.Contains(j.stdout, "exiting with 3") {
		t.Fatalf("output before shmem_global_exit was lost: %v", j)
	}
	// Allocations beyond the heap return NULL with a message (issue 13.4).
	j = runEnv(t, []string{"SHMEM_DEBUG=1"}, exe, 2, "alloc-overflow") // every failure reported
	for i, msg := range []string{"shmem_malloc: cannot allocate 18446744073709551615 bytes", "shmem_malloc: cannot allocate 18446744073709551608 bytes",
		"shmem_realloc: cannot allocate 18446744073709551615 bytes", "shmem_align: cannot allocate 18446744073709551615 bytes"} {
		if j.status != 0 || !strings.Contains(j.stdout, fmt.Sprintf("allocation %d: NULL", i)) || !strings.Contains(j.stderr, msg) {
			t.Fatalf("allocation %d: want NULL and %q: %v", i, msg, j)
		}
	}
	// ... and so do the other PEs, even one busy outside the library (issue 13.9).
	if j := run(t, exe, 2, "global-exit-others"); j.status != 5 || !strings.Contains(j.stdout, "PE 0 buffered this line") {
		t.Fatalf("another PE's output before shmem_global_exit was lost: %v", j)
	}
}

// Every C11 generic selection picks the function of its argument's type: zgenerics.c calls
// each with each basic type's pointers and values, and a wrong pick is an incompatible
// pointer type. Compiled as C++ the same calls reach the overloads, which must resolve
// each without ambiguity (and whose bodies pass their arguments to the typed routine).
func TestGenericSelections(t *testing.T) {
	for _, compiler := range [][]string{{"gcc", "-std=c11"}, {"g++", "-x", "c++"}} {
		args := append(compiler[1:], "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I../include", "testdata/zgenerics.c")
		if b, err := exec.Command(compiler[0], args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", compiler[0], err, b)
		}
	}
}

// The generic names from C++ run: a put, a fetch-add on a context, a wait, a team sum.
func TestCXXOverloads(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "overloads")
	src, err := filepath.Abs("testdata/overloads.cc")
	if err != nil {
		t.Fatal(err)
	}
	bounded(t, ".", nil, cxxWrapper(t), "-Wall", "-Wextra", "-Werror", "-O1", src, "-o", exe)
	for _, n := range []int{2, 3} {
		if j := run(t, exe, n); j.status != 0 || !strings.Contains(j.stdout, "PE 1: overloads ok") {
			t.Fatalf("%d PEs: %v", n, j)
		}
	}
}

// shmem.h compiles as C99 (no generic selection) and as C++, warning-free.
func TestHeaderDialects(t *testing.T) {
	src := filepath.Join(work.dir, "hdr.c")
	if err := os.WriteFile(src, []byte("#include <shmem.h>\nint main(void) { shmem_init(); shmem_finalize(); return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-fsyntax-only", "-x", "c"},
		{"g++", "-std=c++17", "-Wall", "-Wextra", "-fsyntax-only", "-x", "c++"},
	} {
		if _, err := exec.LookPath(args[0]); err != nil {
			t.Logf("no %s: %v", args[0], err)
			continue
		}
		cmd := exec.Command(args[0], append(args[1:], "-I../include", src)...)
		if b, err := cmd.CombinedOutput(); err != nil || len(b) > 0 {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
}

// Communication contexts: every context routine of every type against a serial model on a
// team context (zctx.c), the C11 selections with and without a context, SHMEM_CTX_INVALID,
// the management routines, locks, pshmem, the 1.6 routines; built as C11 with warnings as
// errors, at 1 to 8 PEs, and with waits that spin.
func TestContexts(t *testing.T) {
	exe := compile(t, "ctx", "testdata/ctx.c", "-std=c11", "-Werror")
	for _, n := range []int{1, 2, 3, 4, 8} {
		t.Run(fmt.Sprintf("%dPE", n), func(t *testing.T) {
			if j := run(t, exe, n); j.status != 0 || !strings.Contains(j.stdout, "ctx: ok") {
				t.Fatal(j)
			}
		})
	}
	t.Run("spin", func(t *testing.T) {
		if j := runEnv(t, []string{"GOSHMEM_WAIT=spin"}, exe, 2); j.status != 0 {
			t.Fatal(j)
		}
	})
	// shmem_barrier_all's pair barrier both ways its wait may start.
	for _, poll := range []string{"load", "pause"} {
		t.Run("spin-first-poll-"+poll, func(t *testing.T) {
			if j := runEnv(t, []string{"GOSHMEM_WAIT=spin", "GOSHMEM_FIRST_POLL=" + poll}, exe, 2); j.status != 0 {
				t.Fatal(j)
			}
		})
	}
}

// Implicit finalization: a program that returns from main after shmem_init or start_pes
// without shmem_finalize ends normally; one that calls exit with a failure status fails,
// without waiting in a finalizing barrier.
func TestImplicitFinalize(t *testing.T) {
	for _, init := range []string{"shmem_init", "start_pes"} {
		t.Run(init, func(t *testing.T) {
			exe := compile(t, "nofinalize", "testdata/nofinalize.c", "-Werror")
			if init == "start_pes" {
				exe = compile(t, "nofinalize-start_pes", "testdata/nofinalize.c", "-Werror", "-DSTART_PES")
			}
			for _, n := range []int{1, 4} {
				if j := run(t, exe, n); j.status != 0 || !strings.Contains(j.stdout, fmt.Sprintf("counted %d", n)) {
					t.Fatalf("%d PEs: %v", n, j)
				}
			}
			if j := run(t, exe, 3, "3"); j.status != 3 {
				t.Fatalf("exit(3): %v", j)
			}
		})
	}
}

// Static data beside the heap: a program with 64 MiB of static data allocates nearly all of
// an 8 MiB SHMEM_SYMMETRIC_SIZE, under shmemrun's launcher (which reads the executable) and
// as one PE alone (which sizes its own heap). Through a wrapper script the launcher cannot
// see the static data, which then takes the top of the heap asked for: the allocation's
// error says so, and static data larger than the heap stops shmem_init with its message.
func TestStaticBesideHeap(t *testing.T) {
	exe := compile(t, "bigstatic", "testdata/bigstatic.c", "-Werror")
	small := []string{"SHMEM_SYMMETRIC_SIZE=8M"}
	for _, n := range []int{1, 3} {
		if j := runEnv(t, small, exe, n, "7340032"); j.status != 0 || !strings.Contains(j.stdout, fmt.Sprintf("%d PEs: 7340032 bytes of heap", n)) {
			t.Fatalf("%d PEs: %v", n, j)
		}
	}
	cmd := exec.Command(exe, "7340032")
	cmd.Env = append(os.Environ(), small...)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "1 PEs: 7340032 bytes") {
		t.Fatalf("one PE without a launcher: %v\n%s", err, out)
	}
	wrapper := filepath.Join(work.dir, "bigstatic.sh")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+exe+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	j := runEnv(t, []string{"SHMEM_SYMMETRIC_SIZE=80M"}, wrapper, 2, "33554432")
	if j.status == 0 || !strings.Contains(j.stderr, "shmem_malloc: cannot allocate 33554432 bytes: the symmetric heap is exhausted (") ||
		!strings.Contains(j.stderr, "bytes per PE after the program's static data took ") || !strings.Contains(j.stderr, " of SHMEM_SYMMETRIC_SIZE, 0 in use") {
		t.Fatalf("through a wrapper script: %v", j)
	}
	// errors.c's 32 MiB of static data beside a 16 MiB heap: room under shmemrun; through a
	// wrapper it does not fit, and shmem_init says so.
	errs := compile(t, "errors", "testdata/errors.c")
	if j := runEnv(t, []string{"SHMEM_SYMMETRIC_SIZE=16M"}, errs, 2, "static-too-big"); j.status != 0 {
		t.Fatalf("32 MiB of static data beside a 16 MiB heap: %v", j)
	}
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+errs+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	j = runEnv(t, []string{"SHMEM_SYMMETRIC_SIZE=16M"}, wrapper, 2, "static-too-big")
	want := regexp.MustCompile(`(?m)^panic: shmem_init: the program's static data \(\d+ bytes\) does not fit in the free symmetric heap \(16777216 bytes per PE\); set SHMEM_SYMMETRIC_SIZE to enlarge it$`)
	if j.status != 2 || !want.MatchString(j.stderr) || strings.Contains(j.stderr, "goroutine ") {
		t.Fatalf("32 MiB of static data in a 16 MiB heap, through a wrapper: %v", j)
	}
}

// The headers with g++: the profiling header too, and a C++ program using contexts, locks
// and the 1.6 routines, checked by g++ alone, then built with shmemc++ and run at 1, 2, 4
// and 8 PEs.
func TestCxxContexts(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++")
	}
	src := filepath.Join(work.dir, "ctx.cc")
	prog := `#include <pshmem.h>
#include <shmem.h>
int main() {
	shmem_init();
	shmem_ctx_t ctx;
	long *x = (long *)shmem_calloc(1, sizeof(long));
	if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) return 1;
	shmem_ctx_long_atomic_inc(ctx, x, 0);
	int pes[1] = {0};
	shmem_ctx_pe_quiet(ctx, pes, 1);
	shmem_ctx_session_config_t cfg = {8};
	shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
	shmem_ctx_session_stop(ctx);
	shmem_ctx_quiet(ctx);
	shmem_ctx_destroy(ctx);
	shmem_pe_quiet(pes, 1);
	long *s = (long *)shmem_calloc(2, sizeof(long));
	long me = shmem_my_pe();
	s[0] = me + 1;
	if (shmem_long_sum_inscan(SHMEM_TEAM_WORLD, &s[1], &s[0], 1) != 0 || s[1] != (me + 1) * (me + 2) / 2) return 1;
	if (pshmem_long_sum_exscan(SHMEM_TEAM_WORLD, &s[1], &s[0], 1) != 0 || s[1] != me * (me + 1) / 2) return 1;
	long *lock = (long *)shmem_calloc(1, sizeof(long));
	shmem_set_lock(lock);
	shmem_clear_lock(lock);
	shmem_barrier_all();
	int ok = shmem_my_pe() != 0 || *x == shmem_n_pes();
	shmem_finalize();
	return ok ? 0 : 1;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I../include", src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	exe := filepath.Join(work.dir, "ctxcc")
	build := exec.Command(cxxWrapper(t), "-std=c++17", "-Wall", "-Wextra", "-Werror", src, "-o", exe)
	build.Env = append(os.Environ(), "GOSHMEM_CACHE="+filepath.Join(work.dir, "cache"))
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("shmemc++: %v\n%s", err, b)
	}
	for _, n := range []int{1, 2, 4, 8} {
		if j := run(t, exe, n); j.status != 0 {
			t.Fatalf("%d PEs: %v", n, j)
		}
	}
}

// Heap stress (a vendor suite's failure): allocations up to the heap's size, realloc up and
// down, random sizes; contents and symmetry checked, at 2, 4 and 8 PEs.
func TestHeapStress(t *testing.T) {
	exe := compile(t, "heapstress", "testdata/heapstress.c", "-Werror")
	for _, n := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("%dPE", n), func(t *testing.T) {
			if j := runEnv(t, []string{"SHMEM_SYMMETRIC_SIZE=256M"}, exe, n); j.status != 0 || !strings.Contains(j.stdout, "heapstress: ok") {
				t.Fatal(j)
			}
		})
	}
}

// A C PE waiting 300 ms in shmem_long_wait_until and in shmem_barrier_all keeps its CPU:
// its thread is switched out about as often as the scheduler's tick and the waits' pace
// of Goscheds (schedPoint) make it, a few hundred times. Each Gosched of a C caller's
// locked thread hands the P to another thread and back: when the waits made one every
// 256 polls, the same waits switched 15 000-16 000 times each (61-139 since).
func TestSpinWaitKeepsCPU(t *testing.T) {
	exe := compile(t, "spinwait", "testdata/spinwait.c", "-Werror")
	j := runEnv(t, []string{"GOSHMEM_WAIT=spin"}, exe, 2)
	var inWait, inBarrier int
	if _, err := fmt.Sscanf(j.stdout, "PE 1: %d switches in wait_until, %d in barrier_all", &inWait, &inBarrier); err != nil || j.status != 0 {
		t.Fatalf("%v (%v)", j, err)
	}
	t.Logf("switches: %d in wait_until, %d in barrier_all", inWait, inBarrier)
	if inWait > 2000 || inBarrier > 2000 {
		t.Errorf("PE 1's thread was switched out %d times in a 300 ms wait_until and %d in a 300 ms barrier_all; want a few hundred", inWait, inBarrier)
	}
}

// Pre-1.1 programs build and run: <mpp/shmem.h>, the underscore constants, start_pes,
// _my_pe, _num_pes, shmalloc and shfree; <shmemx.h> and <mpp/shmemx.h> exist.
func TestLegacyNames(t *testing.T) {
	exe := compile(t, "legacy", "testdata/legacy.c", "-Werror")
	if j := run(t, exe, 2); j.status != 0 || !strings.Contains(j.stdout, "PE 1 of 2: alltoall ok") {
		t.Fatal(j)
	}
}

// A fault in the program's own code is reported with its cause, its address and the
// instruction, named so that addr2line finds the function: through the Go runtime's
// forwarding, a backtrace could not reach the program's frames. The PE still ends by the
// signal, and the launcher says so.
func TestFaultReport(t *testing.T) {
	shared := compile(t, "fault", "testdata/fault.c", "-g")
	archive := compile(t, "fault.a", "testdata/fault.c", "-g", "-goshmem-archive") // the handler's object is linked
	for _, c := range []struct{ exe, mode, signal, report, function string }{
		{shared, "segv", "SIGSEGV", "SIGSEGV (address not mapped) at address 0x0, in ", "store_through"},
		{shared, "fpe", "SIGFPE", "SIGFPE (integer division by zero) at address 0x", "divide"},
		{shared, "raise", "SIGSEGV", "SIGSEGV (sent by a process)\n", ""},
		{archive, "segv", "SIGSEGV", "SIGSEGV (address not mapped) at address 0x0, in ", "store_through"},
	} {
		t.Run(filepath.Base(c.exe)+"/"+c.mode, func(t *testing.T) {
			j := run(t, c.exe, 2, c.mode)
			if j.status == 0 || !strings.Contains(j.stderr, "goshmem: PE 1 (pid ") || !strings.Contains(j.stderr, c.report) || !strings.Contains(j.stderr, "killed by "+c.signal) {
				t.Fatalf("want %q and killed by %s: %v", c.report, c.signal, j)
			}
			if c.function == "" {
				return
			}
			m := regexp.MustCompile(`goshmem: addr2line -f -e (\S+) (0x[0-9a-f]+) names the function and line`).FindStringSubmatch(j.stderr)
			if m == nil {
				t.Fatalf("no addr2line command in the report: %v", j)
			}
			if _, err := exec.LookPath("addr2line"); err != nil {
				t.Skip("no addr2line to check the report's offset")
			}
			out, err := exec.Command("addr2line", "-f", "-e", m[1], m[2]).Output()
			if err != nil || !strings.HasPrefix(string(out), c.function+"\n") || !strings.Contains(string(out), "fault.c:") {
				t.Errorf("addr2line -f -e %s %s: %q (%v), want %s in fault.c", m[1], m[2], out, err, c.function)
			}
		})
	}
}

// shmem_init_thread provides the level asked for, and shmem_query_thread reports it (SOS's
// query_thread checks both; goshmem said SHMEM_THREAD_MULTIPLE to every request); a level
// that is none is an error. At SHMEM_THREAD_MULTIPLE a lock excludes the PE's other threads:
// 4 threads of every PE count exactly under one lock (SOS's mt_locking hung before).
func TestThreads(t *testing.T) {
	exe := compile(t, "threads", "testdata/threads.c", "-Werror")
	for level := 0; level <= 3; level++ {
		j := run(t, exe, 2, strconv.Itoa(level))
		want := fmt.Sprintf("PE 1: requested %d, provided %d, queried %d", level, level, level)
		if j.status != 0 || !strings.Contains(j.stdout, want) {
			t.Fatalf("want %q: %v", want, j)
		}
	}
	for _, n := range []int{1, 3} {
		if j := run(t, exe, n, "3"); j.status != 0 || !strings.Contains(j.stdout, fmt.Sprintf("counter %d of %d", n*800, n*800)) {
			t.Fatalf("%d PEs: %v", n, j)
		}
	}
	j := run(t, exe, 2, "7")
	if want := "panic: shmem_init_thread: requested 7 is not a thread level: want SHMEM_THREAD_SINGLE (0) to SHMEM_THREAD_MULTIPLE (3)"; j.status != 2 || !strings.Contains(j.stderr, want) {
		t.Fatalf("want status 2 and %q: %v", want, j)
	}
}
