package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	rt "github.com/goshmem/shmem/runtime"
)

// install puts what C users need under prefix, so that builds which do not use the
// wrapper work too (pkg-config --cflags --libs goshmem):
//
//	bin/shmemcc, bin/shmemc++ (a link to it), bin/shmemrun
//	include/*.h
//	lib/libgoshmem.so, lib/libgoshmem.a, lib/pkgconfig/goshmem.pc
//
// Everything is built from the source tree; the installed shmemcc then uses the prefix's
// header and library and builds nothing.
func install(prefix string, ucx bool, env []string, log io.Writer) error {
	root, err := findRoot()
	if err != nil {
		return err
	}
	if prefix, err = filepath.Abs(prefix); err != nil {
		return err
	}
	bin, inc, lib := filepath.Join(prefix, "bin"), filepath.Join(prefix, "include"), filepath.Join(prefix, "lib")
	for _, d := range []string{bin, inc, filepath.Join(lib, "pkgconfig")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, archive := range []bool{false, true} {
		dir, err := library(root, archive, ucx, env, true, log)
		if err != nil {
			return err
		}
		if err := copyFile(filepath.Join(dir, libName(archive)), filepath.Join(lib, libName(archive)), 0o755); err != nil {
			return err
		}
	}
	// The headers, and mpp/shmem.h (the deprecated location) beside them.
	for _, sub := range []string{"", "mpp"} {
		headers, err := filepath.Glob(filepath.Join(includeDir(root), sub, "*.h"))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(inc, sub), 0o755); err != nil {
			return err
		}
		for _, h := range headers {
			if err := copyFile(h, filepath.Join(inc, sub, filepath.Base(h)), 0o644); err != nil {
				return err
			}
		}
	}
	for _, c := range []string{"shmemcc", "shmemrun"} {
		fmt.Fprintf(log, "shmemcc: building %s into %s\n", c, bin)
		cmd := exec.Command(goTool(), "build", "-o", filepath.Join(bin, c), "./cmd/"+c)
		cmd.Dir, cmd.Env = root, env
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %v", c, err)
		}
	}
	cxx := filepath.Join(bin, "shmemc++")
	if err := os.Remove(cxx); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Symlink("shmemcc", cxx); err != nil {
		return err
	}
	pc := filepath.Join(lib, "pkgconfig", "goshmem.pc")
	if err := os.WriteFile(pc, []byte(pkgConfig(prefix)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "shmemcc: installed into %s; pkg-config finds goshmem with PKG_CONFIG_PATH=%s\n", prefix, filepath.Dir(pc))
	return nil
}

// pkgConfig is goshmem.pc for a prefix. Libs carries an rpath because the library is
// rarely in the loader's default path; the archive's system libraries are Libs.private
// (pkg-config --static).
func pkgConfig(prefix string) string {
	return strings.Join([]string{
		"prefix=" + prefix,
		"includedir=${prefix}/include",
		"libdir=${prefix}/lib",
		"",
		"Name: goshmem",
		fmt.Sprintf("Description: OpenSHMEM %d.%d library of goshmem (a Go runtime); run programs with shmemrun", rt.SpecMajor, rt.SpecMinor),
		"URL: https://github.com/goshmem/shmem",
		"Version: " + rt.Version,
		"Cflags: -I${includedir}",
		"Libs: -L${libdir} -Wl,-rpath,${libdir} -lgoshmem",
		"Libs.private: -lpthread -ldl -lm",
		"",
	}, "\n")
}

func copyFile(from, to string, mode os.FileMode) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	// A new file, not a rewrite in place: a running program may map the old library.
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return os.Rename(tmp, to)
}
