package fakenodes

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// PMIxInfo builds testdata/pmixinfo.c, an MPI-free C program printing what the PMIx
// launcher told it, one line per process:
//
//	rank R size N host H localrank L localsize S peers P0,P1,... cpus C bind B
//
// (C: its allowed CPUs, as /proc/self/status lists them; B: $GOSHMEM_BIND_TO or "-")
// and returns its path. It skips t (Skip) without a C compiler or libpmix-dev.
func PMIxInfo(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "testdata", "pmixinfo.c")
	if !ok || !filepath.IsAbs(file) {
		Skip(t, "fakenodes.PMIxInfo: the source of testdata/pmixinfo.c is not at hand")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		Skip(t, "fakenodes.PMIxInfo: no C compiler (cc) to build the PMIx test program")
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "pmix").Output()
	if err != nil {
		Skip(t, "fakenodes.PMIxInfo: pkg-config finds no pmix (apt-get install libpmix-dev): %v", err)
	}
	out := filepath.Join(t.TempDir(), "pmixinfo")
	args := append([]string{"-o", out, src}, strings.Fields(string(flags))...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("fakenodes.PMIxInfo: cc %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}
