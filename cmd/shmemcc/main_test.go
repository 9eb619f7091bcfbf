package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Building and running programs with shmemcc is tested in package cabi (the examples, the
// archive link); these are the wrapper's own rules.

func TestCommand(t *testing.T) {
	for _, c := range []struct {
		args    []string
		lib     string
		archive bool
		want    string
	}{
		{[]string{"x.c", "-o", "x"}, "/L", false, "cc -std=c11 -I/inc x.c -o x -L/L -lgoshmem -Wl,-rpath,/L"},
		{[]string{"-std=gnu17", "x.c"}, "/L", false, "cc -I/inc -std=gnu17 x.c -L/L -lgoshmem -Wl,-rpath,/L"},
		{[]string{"-c", "x.c"}, "", false, "cc -std=c11 -I/inc -c x.c"},
		{[]string{"x.o", "-o", "x"}, "/L", true, "cc -std=c11 -I/inc x.o -o x /L/libgoshmem.a -lpthread -ldl -lm"},
	} {
		if got := strings.Join(command("cc", c.args, "/inc", c.lib, c.archive), " "); got != c.want {
			t.Errorf("%v: got %q, want %q", c.args, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	o := parse([]string{"-O2", "-goshmem-archive", "x.c", "--showme"})
	if !o.archive || !o.showme || o.libdir || !reflect.DeepEqual(o.cc, []string{"-O2", "x.c"}) {
		t.Errorf("parse: %+v", o)
	}
	for args, want := range map[string]bool{"x.c -o x": true, "-c x.c": false, "-E x.c": false, "-S x.c": false, "-MM x.c": false} {
		if got := linking(strings.Fields(args)); got != want {
			t.Errorf("linking(%s) = %v", args, got)
		}
	}
}

// A compile-only command needs no library: --showme prints it at once.
func TestShowmeCompileOnly(t *testing.T) {
	var out, errs bytes.Buffer
	t.Setenv("SHMEMCC_CC", "mycc")
	if s := run([]string{"--showme", "-c", "x.c"}, &out, &errs); s != 0 {
		t.Fatalf("status %d: %s", s, errs.String())
	}
	root, _ := findRoot()
	if want := "mycc -std=c11 -I" + filepath.Join(root, "include") + " -c x.c\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
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
		k, err := cacheKey(root, false)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	if a, _ := cacheKey(root, true); a == k0 {
		t.Error("the archive and the shared library have one key")
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
