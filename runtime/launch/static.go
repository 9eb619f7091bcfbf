package launch

import (
	"debug/elf"
	"os"
	"os/exec"
	"strings"
)

// StaticData is how much a C program's static data adds to each PE's symmetric heap: the
// executable's last writable segment in whole pages (what the C ABI moves into the heap at
// shmem_init, rt.ReserveStatic; its RELRO part stays behind, so this is not less) when prog
// is an ELF executable linked against libgoshmem.so, else 0 (a Go program, a script, a
// static link, whose data stays put). The heap then keeps the size SHMEM_SYMMETRIC_SIZE
// asked for, as where static data is registered apart (Open MPI's OSHMEM, SOS).
func StaticData(prog string) uint64 {
	if !strings.Contains(prog, "/") {
		if p, err := exec.LookPath(prog); err == nil {
			prog = p
		}
	}
	f, err := elf.Open(prog)
	if err != nil {
		return 0
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return 0
	}
	libs, err := f.ImportedLibraries()
	if err != nil || !linksGoshmem(libs) {
		return 0
	}
	return writableSpan(f.Progs, uint64(os.Getpagesize()))
}

func linksGoshmem(libs []string) bool {
	for _, l := range libs {
		if strings.HasPrefix(l, "libgoshmem.so") {
			return true
		}
	}
	return false
}

// writableSpan is the last writable loadable segment's extent in whole pages of size page (a
// power of two), 0 if there is none or its numbers overflow.
func writableSpan(progs []*elf.Prog, page uint64) uint64 {
	var lo, hi uint64
	for _, p := range progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0 {
			lo, hi = p.Vaddr, p.Vaddr+p.Memsz
			if hi < lo || hi > ^uint64(0)-page {
				return 0
			}
		}
	}
	if hi <= lo {
		return 0
	}
	return (hi+page-1)&^(page-1) - lo&^(page-1)
}
