package topology

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/goshmem/shmem/topology/internal/sysfsgen"
)

var update = flag.Bool("update", false, "rewrite the synthetic trees and golden files under testdata")

// trees are the captured sysfs trees every table runs over: this machine's copy
// and the synthetic ones.
var trees = []string{
	"zen5-vm-2c",
	"xeon-2s-28c-smt",
	"epyc-2s-nps4",
	"laptop-1s-smt",
	"laptop-1s-smt-cpuset",
	"arm64-64c",
	"xeon-1s-8c-offline-isolated",
}

var (
	treeMu    sync.Mutex
	treeCache = map[string]*Topology{}
)

// readTree reads a captured tree once per test binary; callers must not modify it.
func readTree(t testing.TB, name string) *Topology {
	t.Helper()
	treeMu.Lock()
	defer treeMu.Unlock()
	if tp, ok := treeCache[name]; ok {
		return tp
	}
	tp, err := Read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	treeCache[name] = tp
	return tp
}

// TestSyntheticTrees checks testdata holds exactly the files the generator
// writes for every synthetic tree (-update rewrites them).
func TestSyntheticTrees(t *testing.T) {
	if *update {
		for _, m := range sysfsgen.Machines {
			if err := sysfsgen.Write("testdata", m); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, m := range sysfsgen.Machines {
		if !slices.Contains(trees, m.Name) {
			t.Errorf("machine %s is not in the trees table", m.Name)
		}
		want, got := m.Files(), fileMap(t, filepath.Join("testdata", m.Name))
		for name, w := range want {
			if g, ok := got[name]; !ok {
				t.Errorf("%s: testdata lacks %s (run with -update)", m.Name, name)
			} else if g != w {
				t.Errorf("%s/%s: testdata has %q, generator writes %q (run with -update)", m.Name, name, g, w)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("%s: testdata has %s, which the generator does not write", m.Name, name)
			}
		}
	}
}

func fileMap(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		m[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return m
}
