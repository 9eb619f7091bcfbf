package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/proclimit"
)

// Building and running programs with shmemcc (CC=shmemcc links included, a configure build,
// the installation and pkg-config) is tested in package cabi, which builds the library
// once; these are the wrapper's own rules.

func TestCommand(t *testing.T) {
	for _, c := range []struct {
		cc      string
		std     string
		args    []string
		lib     string
		archive bool
		want    string
	}{
		{"cc", "-std=c11", []string{"x.c", "-o", "x"}, "/L", false, "cc -std=c11 x.c -o x -I/inc -L/L -lgoshmem -Wl,-rpath,/L"},
		{"cc", "-std=c11", []string{"-std=gnu17", "x.c"}, "/L", false, "cc -std=gnu17 x.c -I/inc -L/L -lgoshmem -Wl,-rpath,/L"},
		{"cc -std=gnu11", "-std=c11", []string{"x.c"}, "/L", false, "cc -std=gnu11 x.c -I/inc -L/L -lgoshmem -Wl,-rpath,/L"},
		{"cc", "-std=c11", []string{"-c", "x.c"}, "", false, "cc -std=c11 -c x.c -I/inc"},
		{"cc", "-std=c11", []string{"x.o", "-o", "x"}, "/L", true, "cc -std=c11 x.o -o x -I/inc /L/libgoshmem.a -lpthread -ldl -lm"},
		{"g++", "", []string{"x.cc"}, "/L", false, "g++ x.cc -I/inc -L/L -lgoshmem -Wl,-rpath,/L"},
	} {
		var link []string
		if c.lib != "" {
			link, _ = linkFlags(c.lib, c.archive, false)
		}
		if got := strings.Join(command(strings.Fields(c.cc), c.std, c.args, "/inc", link), " "); got != c.want {
			t.Errorf("%s %v: got %q, want %q", c.cc, c.args, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	o, err := parse([]string{"-O2", "-goshmem-archive", "x.c", "--showme"})
	if err != nil || !o.archive || !o.showme || o.libdir || o.help || !reflect.DeepEqual(o.cc, []string{"-O2", "x.c"}) {
		t.Errorf("parse: %+v, %v", o, err)
	}
	for _, a := range []string{"-showme:link", "--showme:link"} {
		if o, err := parse([]string{a}); err != nil || o.showOne != "link" || o.showme || len(o.cc) != 0 {
			t.Errorf("parse %s: %+v, %v", a, o, err)
		}
	}
	if _, err := parse([]string{"-showme:cflags"}); err == nil || !strings.Contains(err.Error(), `-showme:cflags: unknown part "cflags"`) {
		t.Errorf("parse -showme:cflags: %v", err)
	}
	for _, args := range [][]string{{"--help"}, {"-help"}, {"-h"}, {"-O2", "--help", "x.c"}} {
		if o, _ := parse(args); !o.help {
			t.Errorf("%q is not help", args)
		}
	}
	// -h among other arguments is the compiler's (a soname).
	if o, _ := parse([]string{"-shared", "-h", "libx.so.1", "x.c"}); o.help || len(o.cc) != 4 {
		t.Errorf("-h with a file: %+v", o)
	}
	if o, _ := parse([]string{"--goshmem-install", "/opt/g"}); o.install != "/opt/g" || len(o.cc) != 0 {
		t.Errorf("--goshmem-install /opt/g: %+v", o)
	}
	if o, _ := parse([]string{"--goshmem-install=/opt/g"}); o.install != "/opt/g" {
		t.Errorf("--goshmem-install=/opt/g: %+v", o)
	}
	if _, err := parse([]string{"--goshmem-install"}); err == nil || !strings.Contains(err.Error(), "missing the prefix") {
		t.Errorf("--goshmem-install without a prefix: %v", err)
	}
}

// configure runs `$CC --version`, `-v`, `-V`: they link nothing and need no library.
func TestLinking(t *testing.T) {
	for args, want := range map[string]bool{
		"x.c -o x": true, "x.o": true, "-lm -o x": true, "-": true, "-O2 -Wall x.c": true,
		"-c x.c": false, "-E x.c": false, "-S x.c": false, "-MM x.c": false, "-fsyntax-only x.c": false,
		"--version": false, "-v": false, "-V": false, "-dumpversion": false, "-print-prog-name=ld": false,
		"-o x": false, "-I dir -D X": false, "-x c -": true,
	} {
		if got := linking(strings.Fields(args)); got != want {
			t.Errorf("linking(%s) = %v", args, got)
		}
	}
}

func TestLangOf(t *testing.T) {
	for argv0, want := range map[string]string{
		"shmemcc": "shmemcc", "/usr/bin/shmemcc": "shmemcc", "/tmp/go-build1/exe/main": "shmemcc",
		"shmemc++": "shmemc++", "/opt/bin/shmemcxx": "shmemc++", "shmemCC": "shmemc++",
	} {
		if got := langOf(argv0).wrapper; got != want {
			t.Errorf("langOf(%s) = %s, want %s", argv0, got, want)
		}
	}
}

// configure exports CC=shmemcc: the wrapper skips any variable naming a wrapper, whatever
// flags or launcher surround it.
func TestChooseCompiler(t *testing.T) {
	isWrapper := func(p string) bool { return wrapperNames[filepath.Base(p)] || p == "/opt/bin/cc-link-to-shmemcc" }
	for _, c := range []struct {
		lang    lang
		env     map[string]string
		want    string
		from    string
		skipped int
	}{
		{langC, nil, "gcc", "default", 0},
		{langC, map[string]string{"CC": "clang"}, "clang", "CC", 0},
		{langC, map[string]string{"CC": "gcc -std=gnu11"}, "gcc -std=gnu11", "CC", 0},
		{langC, map[string]string{"CC": "clang", "SHMEMCC_CC": "gcc-12"}, "gcc-12", "SHMEMCC_CC", 0},
		{langC, map[string]string{"CC": "shmemcc"}, "gcc", "default", 1},
		{langC, map[string]string{"CC": "/opt/goshmem/bin/shmemcc -std=gnu11"}, "gcc", "default", 1},
		{langC, map[string]string{"CC": "ccache shmemcc"}, "gcc", "default", 1},
		{langC, map[string]string{"CC": "/opt/bin/cc-link-to-shmemcc"}, "gcc", "default", 1},
		{langC, map[string]string{"CC": "shmemcc", "SHMEMCC_CC": "shmemcc"}, "gcc", "default", 2},
		{langC, map[string]string{"CC": "shmemcc", "SHMEMCC_CC": "clang"}, "clang", "SHMEMCC_CC", 0},
		{langC, map[string]string{"CC": "gcc -DX=shmemcc"}, "gcc -DX=shmemcc", "CC", 0},
		{langC, map[string]string{"CC": "   "}, "gcc", "default", 0},
		{langCXX, map[string]string{"CC": "clang", "CXX": "shmemc++"}, "g++", "default", 1},
		{langCXX, map[string]string{"CXX": "clang++"}, "clang++", "CXX", 0},
	} {
		got := chooseCompiler(c.lang, func(k string) string { return c.env[k] }, isWrapper)
		if strings.Join(got.words, " ") != c.want || got.from != c.from || len(got.skipped) != c.skipped {
			t.Errorf("%s %v: got %+v, want %s from %s, %d skipped", c.lang.wrapper, c.env, got, c.want, c.from, c.skipped)
		}
	}
}

func TestChildEnv(t *testing.T) {
	cc, cxx := choice{words: []string{"gcc", "-m64"}}, choice{words: []string{"g++"}}
	got := childEnv([]string{"PATH=/bin", "CC=shmemcc", "CXX=shmemc++", depthVar + "=7", "CCX=1"}, cc, cxx, 0)
	want := []string{"PATH=/bin", "CCX=1", "CC=gcc -m64", "CXX=g++", depthVar + "=1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-help"}, {"-h"}} {
		var out, errs bytes.Buffer
		if s := run("shmemcc", args, &out, &errs); s != 0 || errs.Len() != 0 {
			t.Fatalf("%q: status %d, %s", args, s, errs.String())
		}
		for _, w := range []string{"usage: shmemcc", "--showme", "--goshmem-archive", "--goshmem-install", "SHMEMCC_CC", "GOSHMEM_CACHE", "about a minute"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: the help lacks %q", args, w)
			}
		}
	}
	var out, errs bytes.Buffer
	if s := run("/x/shmemc++", []string{"--help"}, &out, &errs); s != 0 || !strings.HasPrefix(out.String(), "usage: shmemc++") {
		t.Errorf("shmemc++ --help: %d %q", s, out.String())
	}
	out.Reset()
	if s := run("shmemcc", nil, &out, &errs); s != 2 || !strings.Contains(errs.String(), "usage: shmemcc") {
		t.Errorf("no arguments: status %d, %q", s, errs.String())
	}
}

// A compile-only command needs no library: --showme prints it at once.
func TestShowmeCompileOnly(t *testing.T) {
	var out, errs bytes.Buffer
	t.Setenv("SHMEMCC_CC", "mycc")
	if s := run("shmemcc", []string{"--showme", "-c", "x.c"}, &out, &errs); s != 0 {
		t.Fatalf("status %d: %s", s, errs.String())
	}
	root, _ := findRoot()
	if want := "mycc -std=gnu11 -c x.c -I" + filepath.Join(root, "include") + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// --showme of a link names the library's directory without building the library.
func TestShowmeBuildsNothing(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOSHMEM_CACHE", cache)
	var out, errs bytes.Buffer
	if s := run("shmemcc", []string{"--showme", "x.c", "-o", "x"}, &out, &errs); s != 0 {
		t.Fatalf("status %d: %s", s, errs.String())
	}
	if !strings.Contains(out.String(), " -L"+cache+"/lib-") || !strings.Contains(out.String(), "-lgoshmem") {
		t.Errorf("--showme: %q", out.String())
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 0 || errs.Len() != 0 {
		t.Errorf("--showme built something: %v, %q", ents, errs.String())
	}
}

func TestFindRoot(t *testing.T) {
	root, err := findRoot()
	if err != nil || !isRoot(root) {
		t.Fatalf("findRoot: %q, %v", root, err)
	}
	t.Setenv("GOSHMEM_ROOT", t.TempDir())
	if _, err := findRoot(); err == nil || !strings.Contains(err.Error(), "is not the goshmem source tree") {
		t.Errorf("a bogus GOSHMEM_ROOT: %v", err)
	}
}

// The cache key follows the library's sources, and only them.
func TestCacheKey(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module "+module+"\n")
	write("include/shmem.h", "/* h */")
	write("runtime/a.go", "package rt")
	key := func() string {
		k, err := cacheKey(root, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	if a, _ := cacheKey(root, true, false, nil); a == k0 {
		t.Error("the archive and the shared library have one key")
	}
	if u, _ := cacheKey(root, false, true, nil); u == k0 {
		t.Error("the library with and without the multi-node engine have one key")
	}
	write("runtime/a_test.go", "package rt")
	write("gen/x.go", "package gen")
	write("cabi/testdata/p.c", "int main;")
	if k := key(); k != k0 {
		t.Error("tests, generators or test data changed the key")
	}
	write("runtime/a.go", "package rt // changed")
	if k := key(); k == k0 {
		t.Error("a source change kept the key")
	}
	k1 := key()
	write("include/shmem.h", "/* h2 */")
	if k := key(); k == k1 {
		t.Error("a header change kept the key")
	}
}

// buildWrapper builds shmemcc into a temporary directory, with shmemc++ linked to it.
func buildWrapper(t *testing.T) (cc, cxx string) {
	t.Helper()
	dir := t.TempDir()
	cc, cxx = filepath.Join(dir, "shmemcc"), filepath.Join(dir, "shmemc++")
	if b, err := exec.Command("go", "build", "-o", cc, ".").CombinedOutput(); err != nil {
		t.Fatalf("building shmemcc: %v\n%s", err, b)
	}
	if err := os.Symlink("shmemcc", cxx); err != nil {
		t.Fatal(err)
	}
	return cc, cxx
}

// wrapperLimit bounds the processes of one wrapper run: the wrapper, the compiler driver
// and its passes (cc1, as). A wrapper that runs itself passes it within milliseconds.
const wrapperLimit = 12

// CC=shmemcc (as configure exports it), CC naming the wrapper through a link of another
// name, CXX=shmemc++: each compiles with the real compiler and starts a bounded number of
// processes.
func TestCCIsTheWrapper(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	cc, cxx := buildWrapper(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "mycc")
	if err := os.Symlink(cc, link); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "x.c"), []byte("#include <shmem.h>\nint f(void) { return shmem_my_pe(); }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x.cc"), []byte("#include <shmem.h>\nint f() { return shmem_my_pe(); }\n"), 0o644)
	for _, c := range []struct {
		prog, src string
		env       []string
	}{
		{cc, "x.c", []string{"CC=" + cc}},
		{cc, "x.c", []string{"CC=shmemcc -std=gnu11", "PATH=" + filepath.Dir(cc) + ":" + os.Getenv("PATH")}},
		{cc, "x.c", []string{"CC=" + link}},
		{link, "x.c", []string{"CC=" + link}},
		{cc, "x.c", []string{"CC=" + cc, "SHMEMCC_CC=" + cxx}},
		{cxx, "x.cc", []string{"CXX=" + cxx, "CC=" + cc}},
	} {
		obj := filepath.Join(dir, "x.o")
		os.Remove(obj)
		cmd := exec.Command(c.prog, "-c", c.src, "-o", obj)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), c.env...)
		out, err := proclimit.Run(cmd, wrapperLimit, 2*time.Minute)
		if err != nil {
			t.Fatalf("%s with %q: %v\n%s", filepath.Base(c.prog), c.env, err, out)
		}
		if _, err := os.Stat(obj); err != nil {
			t.Errorf("%s with %q: no object file", filepath.Base(c.prog), c.env)
		}
	}
}

// A compiler that calls shmemcc again (a script given as SHMEMCC_CC) is stopped at the
// second wrapper with a message, instead of looping.
func TestRecursionThroughACompilerScript(t *testing.T) {
	cc, _ := buildWrapper(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "my-cc")
	os.WriteFile(script, []byte("#!/bin/sh\nexec "+cc+" \"$@\"\n"), 0o755)
	cmd := exec.Command(cc, "-c", "x.c")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "SHMEMCC_CC="+script)
	out, err := proclimit.Run(cmd, wrapperLimit, time.Minute)
	if _, ok := err.(*exec.ExitError); !ok || !strings.Contains(string(out), "started by another shmemcc") {
		t.Fatalf("want exit status 1 and the recursion named; got %v\n%s", err, out)
	}
}

// The multi-node engine is in the library when forced, else when pkg-config finds UCX and
// PMIx; a bad setting is an error naming it.
func TestUseUCX(t *testing.T) {
	for _, c := range []struct {
		force string
		found bool
		want  bool
		err   bool
	}{
		{"", true, true, false}, {"", false, false, false}, {"auto", true, true, false},
		{"yes", false, true, false}, {"no", true, false, false}, {"maybe", true, false, true},
	} {
		got, err := useUCX(c.force, func() bool { return c.found })
		if got != c.want || (err != nil) != c.err || err != nil && !strings.Contains(err.Error(), "SHMEMCC_UCX") {
			t.Errorf("useUCX(%q, found %v) = %v, %v; want %v, error %v", c.force, c.found, got, err, c.want, c.err)
		}
	}
}
