package launch

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

func TestWritableSpan(t *testing.T) {
	load := func(flags elf.ProgFlag, vaddr, memsz uint64) *elf.Prog {
		return &elf.Prog{ProgHeader: elf.ProgHeader{Type: elf.PT_LOAD, Flags: flags, Vaddr: vaddr, Memsz: memsz}}
	}
	text := load(elf.PF_R|elf.PF_X, 0x1000, 0x5000)
	for _, c := range []struct {
		name  string
		progs []*elf.Prog
		want  uint64
	}{
		{"none writable", []*elf.Prog{text}, 0},
		{"pages around", []*elf.Prog{text, load(elf.PF_R|elf.PF_W, 0x7e10, 0x3000)}, 0x4000}, // [0x7000, 0xb000)
		{"last writable wins", []*elf.Prog{load(elf.PF_R|elf.PF_W, 0x1000, 0x100000), load(elf.PF_R|elf.PF_W, 0x200000, 0x1000)}, 0x1000},
		{"empty", []*elf.Prog{load(elf.PF_W, 0x3000, 0)}, 0},
		{"overflow", []*elf.Prog{load(elf.PF_W, ^uint64(0)-10, 100)}, 0},
		{"no page above", []*elf.Prog{load(elf.PF_W, ^uint64(0)-0x800, 0x100)}, 0},
		{"below the top", []*elf.Prog{load(elf.PF_W, ^uint64(0)-0x2fff, 0x1000)}, 0x1000},
	} {
		if got := writableSpan(c.progs, 0x1000); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	if !linksGoshmem([]string{"libc.so.6", "libgoshmem.so"}) || linksGoshmem([]string{"libc.so.6", "libgoshmem_other.so"}) {
		t.Error("linksGoshmem")
	}
}

// Programs whose data stays put add nothing: a Go program (this test), a script, a missing
// file. (cabi's TestStaticBesideHeap runs a C program that adds its static data.)
func TestStaticDataNone(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{self, script, filepath.Join(t.TempDir(), "missing"), "sh"} {
		if got := StaticData(p); got != 0 {
			t.Errorf("StaticData(%s) = %d", p, got)
		}
	}
}
