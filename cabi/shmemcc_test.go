//go:build linux && cgo

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/proclimit"
)

// Builds that reach the compiler through CC, as configure and make do: CC=shmemcc and
// CXX=shmemc++ (configure exports them, and shmemcc must not run itself), an autotools
// project, and an installation used without the wrapper (pkg-config).

// buildLimit bounds the live processes of one build command: make, the shells, the wrapper
// and the compiler's passes. A wrapper that runs itself passes it within milliseconds.
const buildLimit = 48

// cxxWrapper is shmemc++: a link to shmemcc under the C++ name.
func cxxWrapper(t *testing.T) string {
	t.Helper()
	cc := shmemcc(t)
	cxx := filepath.Join(filepath.Dir(cc), "shmemc++")
	work.mu.Lock()
	defer work.mu.Unlock()
	if _, err := os.Lstat(cxx); err != nil {
		if err := os.Symlink("shmemcc", cxx); err != nil {
			t.Fatal(err)
		}
	}
	return cxx
}

// bounded runs a command in dir with extra environment, within buildLimit processes, and
// returns its output.
func bounded(t *testing.T, dir string, env []string, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOSHMEM_CACHE="+filepath.Join(work.dir, "cache")), env...)
	out, err := proclimit.Run(cmd, buildLimit, 5*time.Minute)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// helloSource is a program of testdata/autotools, by absolute path.
func helloSource(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "autotools", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkRing checks the output of testdata/autotools' programs at n PEs: one line per PE
// naming its left neighbour, in any order.
func checkRing(t *testing.T, j job, lang string, n int) {
	t.Helper()
	if j.status != 0 {
		t.Fatal(j)
	}
	for pe := range n {
		if want := fmt.Sprintf("%s: PE %d of %d has %d from its left\n", lang, pe, n, (pe+n-1)%n); !strings.Contains(j.stdout, want) {
			t.Errorf("no line %q: %v", want, j)
		}
	}
}

// CC=shmemcc and CXX=shmemc++ in the environment: compiling and linking finish, through the
// real compilers, and the programs run.
func TestCCIsShmemcc(t *testing.T) {
	compile(t, "test_some", "../examples/c/test_some.c") // the library, built once
	cc, cxx := shmemcc(t), cxxWrapper(t)
	dir := t.TempDir()
	env := []string{"CC=" + cc, "CXX=" + cxx}
	bounded(t, dir, env, cc, helloSource(t, "hello.c"), "-o", "hello")
	checkRing(t, run(t, filepath.Join(dir, "hello"), 3), "C", 3)
	bounded(t, dir, env, cxx, helloSource(t, "hellocxx.cc"), "-o", "hellocxx")
	checkRing(t, run(t, filepath.Join(dir, "hellocxx"), 2), "C++", 2)
}

// An autotools project (testdata/autotools: AC_PROG_CC, AC_PROG_CXX, a header check, link
// checks in C and C++) configures and builds with ./configure CC=shmemcc CXX=shmemc++.
// CI installs autoconf and automake; elsewhere the test skips without them.
func TestAutotoolsBuild(t *testing.T) {
	for _, tool := range []string{"autoreconf", "automake", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install autoconf automake make): the configure build is not tested", tool)
		}
	}
	compile(t, "test_some", "../examples/c/test_some.c") // the library, built once
	cc, cxx := shmemcc(t), cxxWrapper(t)
	dir := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command("cp", "-r", "testdata/autotools", dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the project: %v\n%s", err, out)
	}
	bounded(t, dir, nil, "autoreconf", "-i")
	out := bounded(t, dir, nil, "./configure", "CC="+cc, "CXX="+cxx)
	for _, want := range []string{"checking whether the C compiler works... yes", "checking for shmem.h... yes", "checking for shmem_init... yes", "checking whether C++ programs link with shmem_init... yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("configure did not print %q:\n%s", want, out)
		}
	}
	bounded(t, dir, nil, "make")
	checkRing(t, run(t, filepath.Join(dir, "hello"), 4), "C", 4)
	checkRing(t, run(t, filepath.Join(dir, "hellocxx"), 2), "C++", 2)
}

// The same project builds with CMake and CC=shmemcc CXX=shmemc++ (CMake runs the
// compilers to identify them, then checks a header). CI installs cmake; elsewhere the test
// skips without it.
func TestCMakeBuild(t *testing.T) {
	for _, tool := range []string{"cmake", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install cmake make): the CMake build is not tested", tool)
		}
	}
	compile(t, "test_some", "../examples/c/test_some.c") // the library, built once
	cc, cxx := shmemcc(t), cxxWrapper(t)
	src, err := filepath.Abs("testdata/autotools")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := []string{"CC=" + cc, "CXX=" + cxx}
	out := bounded(t, dir, env, "cmake", src)
	if !strings.Contains(out, "Looking for shmem.h - found") {
		t.Errorf("cmake did not find shmem.h through shmemcc:\n%s", out)
	}
	bounded(t, dir, env, "make")
	checkRing(t, run(t, filepath.Join(dir, "hello"), 4), "C", 4)
	checkRing(t, run(t, filepath.Join(dir, "hellocxx"), 2), "C++", 2)
}

// -showme:PART, Open MPI's wrappers' form, as a Makefile uses it: gcc compiles with the
// compile part and links with the link part, the shared library and the archive alike, and
// the other parts agree with them.
func TestShowmeParts(t *testing.T) {
	compile(t, "test_some", "../examples/c/test_some.c")                       // the shared library
	compile(t, "test_some.a", "../examples/c/test_some.c", "-goshmem-archive") // and the archive
	cc := shmemcc(t)
	part := func(p string, flags ...string) string {
		return strings.TrimSpace(bounded(t, ".", nil, cc, append(flags, "-showme:"+p)...))
	}
	inc := part("incdirs")
	if part("compile") != "-I"+inc || part("command") != "gcc" {
		t.Errorf("-showme:compile %q, -showme:command %q, -showme:incdirs %q", part("compile"), part("command"), inc)
	}
	if v := part("version"); !strings.HasPrefix(v, "shmemcc: goshmem ") || !strings.Contains(v, "language: C") {
		t.Errorf("-showme:version: %q", v)
	}
	for _, flags := range [][]string{nil, {"--goshmem-archive"}} {
		dir := t.TempDir()
		link, libdir := part("link", flags...), part("libdirs", flags...)
		libs := strings.Fields(part("libs", flags...))
		if !strings.Contains(link, libdir) || len(libs) == 0 || libs[0] != "goshmem" {
			t.Errorf("%v: -showme:link %q, -showme:libdirs %q, -showme:libs %q", flags, link, libdir, libs)
		}
		// test_some keeps its symmetric data on the heap, as the archive needs.
		src, err := filepath.Abs("../examples/c/test_some.c")
		if err != nil {
			t.Fatal(err)
		}
		bounded(t, dir, nil, "gcc", "-c", part("compile"), src, "-o", "x.o")
		bounded(t, dir, nil, "gcc", append([]string{"x.o", "-o", "x"}, strings.Fields(link)...)...)
		if j := run(t, filepath.Join(dir, "x"), 2); j.status != 0 || !strings.Contains(j.stdout, "PE 1 of 2: 2 blocks arrived, sum 19900 (correct)") {
			t.Errorf("%v: built with -showme:compile and -showme:link: %v", flags, j)
		}
	}
	cmd := exec.Command(cc, "--showme:nonsense")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `--showme:nonsense: unknown part "nonsense": want one of compile, link`) {
		t.Errorf("--showme:nonsense: %v, %s", err, out)
	}
}

// The user's -I comes before the library's headers, as with oshcc: a shmemx.h of the
// program's own (a shim for another implementation's extensions) is the one included.
func TestUserIncludeFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shmemx.h"), []byte("#define THE_PROGRAMS_SHMEMX 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "x.c")
	if err := os.WriteFile(src, []byte("#include <shmem.h>\n#include <shmemx.h>\n#ifndef THE_PROGRAMS_SHMEMX\n#error the library's shmemx.h came first\n#endif\nint x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bounded(t, dir, nil, shmemcc(t), "-I"+dir, "-c", src, "-o", filepath.Join(dir, "x.o"))
}

// --goshmem-install puts the wrappers, shmemrun, the header, both libraries and goshmem.pc
// under a prefix: a build with pkg-config and no wrapper links and runs, the installed
// shmemcc uses the prefix and builds nothing, and the installed shmemrun runs the program.
func TestInstall(t *testing.T) {
	if _, err := exec.LookPath("pkg-config"); err != nil {
		t.Skip("no pkg-config")
	}
	compile(t, "test_some", "../examples/c/test_some.c")                       // the shared library
	compile(t, "test_some.a", "../examples/c/test_some.c", "-goshmem-archive") // and the archive
	prefix := filepath.Join(t.TempDir(), "prefix")
	bounded(t, ".", nil, shmemcc(t), "--goshmem-install", prefix)
	for _, f := range []string{"bin/shmemcc", "bin/shmemc++", "bin/shmemrun", "include/shmem.h", "include/shmemx.h", "include/mpp/shmem.h", "lib/libgoshmem.so", "lib/libgoshmem.a", "lib/pkgconfig/goshmem.pc"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	pc := []string{"PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig")}
	flags := bounded(t, ".", pc, "pkg-config", "--cflags", "--libs", "goshmem")
	if want := "-I" + prefix + "/include -L" + prefix + "/lib -Wl,-rpath," + prefix + "/lib -lgoshmem"; strings.TrimSpace(flags) != want {
		t.Errorf("pkg-config --cflags --libs goshmem: %q, want %q", flags, want)
	}
	dir := t.TempDir()
	args := append([]string{"-std=c11", helloSource(t, "hello.c"), "-o", "hello"}, strings.Fields(flags)...)
	bounded(t, dir, nil, "gcc", args...)
	checkRing(t, run(t, filepath.Join(dir, "hello"), 2), "C", 2)

	// The installed wrapper: no source tree (a directory outside it, no GOSHMEM_ROOT), no cache.
	noCache := []string{"GOSHMEM_CACHE=" + filepath.Join(dir, "no-cache"), "GOSHMEM_ROOT="}
	out := bounded(t, dir, noCache, filepath.Join(prefix, "bin", "shmemcc"), "--showme", "x.c")
	if !strings.Contains(out, " x.c -I"+prefix+"/include -L"+prefix+"/lib -lgoshmem") {
		t.Errorf("the installed shmemcc --showme: %q", out)
	}
	if out := bounded(t, dir, noCache, filepath.Join(prefix, "bin", "shmemcc"), "-showme:link"); strings.TrimSpace(out) != "-L"+prefix+"/lib -lgoshmem -Wl,-rpath,"+prefix+"/lib" {
		t.Errorf("the installed shmemcc -showme:link: %q", out)
	}
	out = bounded(t, dir, noCache, filepath.Join(prefix, "bin", "shmemc++"), helloSource(t, "hellocxx.cc"), "-o", "hellocxx")
	if _, err := os.Stat(filepath.Join(dir, "no-cache")); err == nil || strings.Contains(out, "building") {
		t.Errorf("the installed shmemc++ built a library: %s", out)
	}
	if out := bounded(t, dir, nil, filepath.Join(prefix, "bin", "shmemrun"), "-n", "2", "./hellocxx"); !strings.Contains(out, "C++: PE 1 of 2 has 0 from its left") {
		t.Errorf("the installed shmemrun: %s", out)
	}
}
