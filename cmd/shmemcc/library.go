package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

const module = "github.com/goshmem/shmem"

// source is where the header and the library come from: a goshmem source tree, which
// builds the library into the cache, or an installed prefix, which holds both.
type source struct {
	root   string // the source tree, or ""
	prefix string // the installed prefix, or ""
}

// locate finds the source: $GOSHMEM_ROOT; else the prefix this executable is installed in
// (bin/shmemcc beside lib/pkgconfig/goshmem.pc); else the source tree.
func locate() (source, error) {
	if os.Getenv("GOSHMEM_ROOT") == "" {
		if p, ok := installedPrefix(); ok {
			return source{prefix: p}, nil
		}
	}
	r, err := findRoot()
	return source{root: r}, err
}

// installedPrefix is the prefix of an installed wrapper: the parent of its bin directory,
// holding the header and the package-config file --goshmem-install writes.
func installedPrefix() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	p := filepath.Dir(filepath.Dir(exe))
	for _, f := range []string{"include/shmem.h", "lib/pkgconfig/goshmem.pc"} {
		if _, err := os.Stat(filepath.Join(p, f)); err != nil {
			return "", false
		}
	}
	return p, true
}

func (s source) include() string {
	if s.prefix != "" {
		return filepath.Join(s.prefix, "include")
	}
	return includeDir(s.root)
}

// library returns the directory of the library: the prefix's lib, or the cache directory
// of the source tree's current sources, building the library there first when build is set
// and it is not built yet.
func (s source) library(archive, ucx bool, env []string, build bool, log io.Writer) (string, error) {
	if s.prefix != "" {
		dir := filepath.Join(s.prefix, "lib")
		if _, err := os.Stat(filepath.Join(dir, libName(archive))); err != nil {
			return "", fmt.Errorf("the installation in %s has no %s", s.prefix, libName(archive))
		}
		return dir, nil
	}
	return library(s.root, archive, ucx, env, build, log)
}

// findRoot locates the goshmem source tree: $GOSHMEM_ROOT, else the tree this program was
// built from (its source path is recorded in the binary unless built with -trimpath), else
// the tree containing the current directory.
func findRoot() (string, error) {
	if r := os.Getenv("GOSHMEM_ROOT"); r != "" {
		if !isRoot(r) {
			return "", fmt.Errorf("GOSHMEM_ROOT=%s is not the goshmem source tree (no go.mod of %s with include/shmem.h)", r, module)
		}
		return r, nil
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if r := filepath.Dir(filepath.Dir(filepath.Dir(file))); isRoot(r) {
			return r, nil
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if isRoot(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("cannot find the goshmem source tree: set GOSHMEM_ROOT")
}

func isRoot(dir string) bool {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module "+module+"\n")) {
		return false
	}
	_, err = os.Stat(filepath.Join(includeDir(dir), "shmem.h"))
	return err == nil
}

func includeDir(root string) string { return filepath.Join(root, "include") }

// goTool is the go command: $GOROOT/bin/go when GOROOT is set, else go from PATH.
func goTool() string {
	if g := os.Getenv("GOROOT"); g != "" {
		return filepath.Join(g, "bin", "go")
	}
	return "go"
}

// libName is the library file of a build mode.
func libName(archive bool) string {
	if archive {
		return "libgoshmem.a"
	}
	return "libgoshmem.so"
}

// library returns the directory holding libgoshmem built from root's current sources (with
// the multi-node engine when ucx is set), building it there first if it is not and build is
// set. env is the go command's environment: its CC is the real C compiler, never a wrapper.
func library(root string, archive, ucx bool, env []string, build bool, log io.Writer) (string, error) {
	if env == nil {
		env = os.Environ()
	}
	key, err := cacheKey(root, archive, ucx, env)
	if err != nil {
		return "", err
	}
	cache := os.Getenv("GOSHMEM_CACHE")
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("no cache directory (%v): set GOSHMEM_CACHE", err)
		}
		cache = filepath.Join(cache, "goshmem")
	}
	dir := filepath.Join(cache, "lib-"+key)
	lib := filepath.Join(dir, libName(archive))
	if _, err := os.Stat(lib); err == nil || !build {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// One build at a time per key: concurrent shmemcc runs wait for the first.
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(lib); err == nil {
		return dir, nil
	}
	mode := "c-shared"
	if archive {
		mode = "c-archive"
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := []string{"build", "-buildmode=" + mode}
	if ucx {
		args = append(args, "-tags", ucxTag)
	}
	args = append(args, "-o", filepath.Join(tmp, libName(archive)), "./cabi")
	fmt.Fprintf(log, "shmemcc: building %s (go %s; about a minute with a cold Go build cache) into %s\n", libName(archive), strings.Join(args, " "), dir)
	cmd := exec.Command(goTool(), args...)
	cmd.Dir = root
	cmd.Env = append(env[:len(env):len(env)], "CGO_ENABLED=1")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building libgoshmem in %s: %v", root, err)
	}
	if err := os.Rename(filepath.Join(tmp, libName(archive)), lib); err != nil {
		return "", err
	}
	return dir, nil
}

// cacheKey identifies a build: the build mode, the Go toolchain and its C settings, and the
// contents of every file of root that can go into the library (sources of the packages,
// headers, go.mod and go.sum; not tests, tools, generators or benchmarks).
func cacheKey(root string, archive, ucx bool, env []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "mode %s\n", libName(archive))
	if ucx {
		fmt.Fprintf(h, "tags %s\n", ucxTag)
	}
	goEnv := exec.Command(goTool(), "env", "GOVERSION", "GOROOT", "GOOS", "GOARCH", "CC", "CGO_CFLAGS", "CGO_LDFLAGS", "GOFLAGS")
	goEnv.Env = env
	out, err := goEnv.Output()
	if err != nil {
		return "", fmt.Errorf("%s env: %v", goTool(), err)
	}
	h.Write(out)
	skip := map[string]bool{".git": true, "gen": true, "bench": true, "examples": true, "cmd": true, "testdata": true}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (skip[name] || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") || !librarySource(name) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func librarySource(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".c", ".h", ".s":
		return true
	}
	return name == "go.mod" || name == "go.sum"
}

// ucxTag is the build tag of the multi-node engine (runtime/ucx).
const ucxTag = "goshmem_ucx"

// useUCX decides whether the library has the multi-node engine: as forced ("yes", "no"),
// else when pkg-config finds UCX and PMIx (hasUCX).
func useUCX(force string, hasUCX func() bool) (bool, error) {
	switch force {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	case "", "auto":
		return hasUCX(), nil
	}
	return false, fmt.Errorf("SHMEMCC_UCX=%s: want yes, no or auto", force)
}

// pkgConfigHasUCX reports whether UCX's and PMIx's development files are installed.
func pkgConfigHasUCX() bool { return exec.Command("pkg-config", "--exists", "ucx", "pmix").Run() == nil }

// ucxLibs are the link flags a static libgoshmem with the engine needs.
func ucxLibs() ([]string, error) {
	out, err := exec.Command("pkg-config", "--libs", "ucx", "pmix").Output()
	if err != nil {
		return nil, fmt.Errorf("pkg-config --libs ucx pmix: %v", err)
	}
	return strings.Fields(string(out)), nil
}
