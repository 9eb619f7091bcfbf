// Command shmemcc compiles and links C OpenSHMEM programs against goshmem, as oshcc does
// for other implementations:
//
//	shmemcc [-goshmem-archive] [--showme] [cc flags...] prog.c -o prog
//	shmemrun -n 4 ./prog
//
// It runs the C compiler ($SHMEMCC_CC, else $CC, else gcc) with -std=c11 (unless a -std
// flag is given), the directory of shmem.h, and, when linking, libgoshmem: the shared
// library (found at run time through an rpath), or with -goshmem-archive the static
// archive. The library is built from the goshmem source tree on first use, with go build
// -buildmode=c-shared (or c-archive), into a cache directory keyed by the sources and the Go
// toolchain, so it is rebuilt when either changes.
//
// Other flags: --showme prints the compiler command instead of running it;
// --goshmem-libdir prints the directory holding the built library.
//
// Environment: GOSHMEM_ROOT, the goshmem source tree (by default the one shmemcc was built
// from, or the one containing the current directory); GOSHMEM_CACHE, the cache directory
// (by default goshmem in the user's cache directory).
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are shmemcc's own flags, taken out of the compiler's.
type options struct {
	archive bool // link libgoshmem.a
	showme  bool // print the command, run nothing
	libdir  bool // print the library's directory
	cc      []string
}

func parse(args []string) options {
	var o options
	for _, a := range args {
		switch a {
		case "-goshmem-archive", "--goshmem-archive":
			o.archive = true
		case "-showme", "--showme":
			o.showme = true
		case "-goshmem-libdir", "--goshmem-libdir":
			o.libdir = true
		default:
			o.cc = append(o.cc, a)
		}
	}
	return o
}

// linking reports whether the compiler is asked to link (no -c, -S, -E or dependency-only
// flag).
func linking(args []string) bool {
	for _, a := range args {
		switch a {
		case "-c", "-S", "-E", "-M", "-MM":
			return false
		}
	}
	return true
}

// command is the compiler's command line: shmemcc's additions around the user's flags.
func command(cc string, args []string, include, lib string, archive bool) []string {
	cmd := []string{cc}
	hasStd := false
	for _, a := range args {
		if strings.HasPrefix(a, "-std=") {
			hasStd = true
		}
	}
	if !hasStd {
		cmd = append(cmd, "-std=c11")
	}
	cmd = append(cmd, "-I"+include)
	cmd = append(cmd, args...)
	if lib == "" {
		return cmd
	}
	if archive {
		return append(cmd, lib+"/libgoshmem.a", "-lpthread", "-ldl", "-lm")
	}
	return append(cmd, "-L"+lib, "-lgoshmem", "-Wl,-rpath,"+lib)
}

func compiler() string {
	for _, v := range []string{"SHMEMCC_CC", "CC"} {
		if c := os.Getenv(v); c != "" {
			return c
		}
	}
	return "gcc"
}

func run(args []string, stdout, stderr io.Writer) int {
	o := parse(args)
	if len(o.cc) == 0 && !o.libdir {
		fmt.Fprintln(stderr, "usage: shmemcc [-goshmem-archive] [--showme] [--goshmem-libdir] [cc flags...] files...")
		return 2
	}
	root, err := findRoot()
	if err != nil {
		fmt.Fprintf(stderr, "shmemcc: %v\n", err)
		return 2
	}
	lib := ""
	if o.libdir || linking(o.cc) {
		if lib, err = library(root, o.archive, stderr); err != nil {
			fmt.Fprintf(stderr, "shmemcc: %v\n", err)
			return 1
		}
	}
	if o.libdir {
		fmt.Fprintln(stdout, lib)
		return 0
	}
	cmd := command(compiler(), o.cc, includeDir(root), lib, o.archive)
	if o.showme {
		fmt.Fprintln(stdout, strings.Join(cmd, " "))
		return 0
	}
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, stdout, stderr
	if err := c.Run(); err != nil {
		if e, ok := err.(*exec.ExitError); ok && e.ExitCode() > 0 {
			return e.ExitCode()
		}
		fmt.Fprintf(stderr, "shmemcc: %v\n", err)
		return 1
	}
	return 0
}
