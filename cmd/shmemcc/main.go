// Command shmemcc compiles and links C OpenSHMEM programs against goshmem, as oshcc does
// for other implementations; installed or linked under the name shmemc++ it compiles C++:
//
//	shmemcc [wrapper flags] [cc flags...] prog.c -o prog
//	shmemrun -n 4 ./prog
//
// It runs the C compiler ($SHMEMCC_CC, else $CC, else gcc; shmemc++: $SHMEMCC_CXX, else
// $CXX, else g++) with -std=gnu11 for C (unless a -std flag is given), the directory of
// shmem.h, and, when linking, libgoshmem: the shared library (found at run time through an
// rpath), or with --goshmem-archive the static archive. A compiler variable that names
// shmemcc itself (configure exports CC=shmemcc) is skipped, so the wrapper never runs
// itself; every program it starts sees CC and CXX set to the real compilers.
//
// From a source tree, the library is built on first use, with go build
// -buildmode=c-shared (or c-archive), into a cache directory keyed by the sources and the
// Go toolchain, so it is rebuilt when either changes (about a minute with a cold Go build
// cache). An installed shmemcc (--goshmem-install) uses the library installed beside it.
//
// shmemcc --help lists the wrapper's flags and environment.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	rt "github.com/goshmem/shmem/runtime"
)

func main() {
	os.Exit(run(os.Args[0], os.Args[1:], os.Stdout, os.Stderr))
}

// options are shmemcc's own flags, taken out of the compiler's.
type options struct {
	archive bool   // link libgoshmem.a
	showme  bool   // print the command, run nothing
	showOne string // -showme:WHAT, Open MPI's wrappers' form: print one part of the command
	libdir  bool   // print the library's directory
	help    bool   // print the usage
	install string // install into this prefix
	ucx     string // "yes", "no": the multi-node engine forced in or out; "": SHMEMCC_UCX, else auto
	cc      []string
}

func parse(args []string) (options, error) {
	var o options
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-goshmem-archive" || a == "--goshmem-archive":
			o.archive = true
		case a == "--goshmem-ucx":
			o.ucx = "yes"
		case a == "--goshmem-no-ucx":
			o.ucx = "no"
		case a == "-showme" || a == "--showme":
			o.showme = true
		case strings.HasPrefix(a, "-showme:") || strings.HasPrefix(a, "--showme:"):
			o.showOne = a[strings.IndexByte(a, ':')+1:]
			if !slices.Contains(showParts, o.showOne) {
				return o, fmt.Errorf("%s: unknown part %q: want one of %s", a, o.showOne, strings.Join(showParts, ", "))
			}
		case a == "-goshmem-libdir" || a == "--goshmem-libdir":
			o.libdir = true
		case a == "-help" || a == "--help":
			o.help = true
		case a == "-goshmem-install" || a == "--goshmem-install":
			if i+1 == len(args) {
				return o, errors.New("--goshmem-install: missing the prefix directory")
			}
			i++
			o.install = args[i]
		case strings.HasPrefix(a, "--goshmem-install="):
			o.install = strings.TrimPrefix(a, "--goshmem-install=")
		default:
			o.cc = append(o.cc, a)
		}
	}
	// gcc takes -h as a soname flag; alone it can only mean help.
	if len(args) == 1 && args[0] == "-h" {
		o.help, o.cc = true, nil
	}
	return o, nil
}

func usage(w io.Writer, l lang) {
	fmt.Fprintf(w, `usage: %[1]s [wrapper flags] [compiler flags] files... [-o program]

Compiles and links OpenSHMEM programs against goshmem (libgoshmem, shmem.h), as oshcc and
oshc++ do for other implementations: runs the compiler with -I<dir of shmem.h> and, when
linking, -L<dir> -lgoshmem -Wl,-rpath,<dir>. Every flag not listed below goes to the compiler
(%[1]s --version is the compiler's). Run the program with shmemrun -n N ./program.

wrapper flags:
  --showme                print the compiler command instead of running it (builds nothing)
  --showme:PART           print one part, as Open MPI's wrappers do: compile (the flags to
                          compile with), link (to link with; builds the library), command
                          (the compiler), incdirs, libdirs, libs, version, help
  --goshmem-ucx           build the library with the multi-node engine (UCX and PMIx; default
                          when pkg-config finds both, or SHMEMCC_UCX=yes); run across nodes
                          with mpirun or shmemrun --hosts
  --goshmem-no-ucx        build it without (one node only; or SHMEMCC_UCX=no)
  --goshmem-archive       link the static archive libgoshmem.a (-lpthread -ldl -lm) instead
  --goshmem-libdir        print the library's directory (building the library if needed)
  --goshmem-install DIR   install shmemcc, shmemc++, shmemrun (DIR/bin), shmem.h (DIR/include),
                          libgoshmem.so, libgoshmem.a and pkgconfig/goshmem.pc (DIR/lib)
  --help, -help, -h       this help (-h only alone: with other arguments it is the compiler's)

environment:
  SHMEMCC_CC, CC          the C compiler, the first set (default gcc); may hold flags
  SHMEMCC_CXX, CXX        the C++ compiler of shmemc++ (default g++)
                          a value naming shmemcc or shmemc++ is skipped: configure exports
                          CC=shmemcc, and the wrapper never runs itself
  GOSHMEM_ROOT            the goshmem source tree to build the library from (default: the
                          tree shmemcc was built from, else the one around the directory)
  GOSHMEM_CACHE           where built libraries are kept (default: goshmem in the user cache
                          directory, e.g. ~/.cache/goshmem)

The first link from a source tree builds libgoshmem (go build -buildmode=c-shared ./cabi):
about a minute with a cold Go build cache, seconds with a warm one; later links reuse it
until a library source or the Go toolchain changes. An installed shmemcc uses the library
installed beside it and builds nothing.
`, l.wrapper)
}

func run(argv0 string, args []string, stdout, stderr io.Writer) int {
	l := langOf(argv0)
	o, err := parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", l.wrapper, err)
		return 2
	}
	if o.help {
		usage(stdout, l)
		return 0
	}
	if o.showOne == "help" {
		usage(stdout, l)
		return 0
	}
	if len(o.cc) == 0 && !o.libdir && o.install == "" && o.showOne == "" {
		usage(stderr, l)
		return 2
	}
	if d := depth(os.Getenv); d > maxDepth {
		fmt.Fprintf(stderr, "%s: started by another shmemcc (%s=%d, CC=%q, SHMEMCC_CC=%q): a compiler that runs shmemcc again would loop; set SHMEMCC_CC to a C compiler\n",
			l.wrapper, depthVar, d, os.Getenv("CC"), os.Getenv("SHMEMCC_CC"))
		return 1
	}
	cc := chooseCompiler(langC, os.Getenv, isWrapperProgram)
	cxx := chooseCompiler(langCXX, os.Getenv, isWrapperProgram)
	comp := cc
	if l.wrapper == langCXX.wrapper {
		comp = cxx
	}
	env := childEnv(os.Environ(), cc, cxx, depth(os.Getenv))
	if o.ucx == "" {
		o.ucx = os.Getenv("SHMEMCC_UCX")
	}
	ucx, err := useUCX(o.ucx, pkgConfigHasUCX)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", l.wrapper, err)
		return 2
	}

	if o.install != "" {
		if err := install(o.install, ucx, env, stderr); err != nil {
			fmt.Fprintf(stderr, "%s: --goshmem-install: %v\n", l.wrapper, err)
			return 1
		}
		return 0
	}
	src, err := locate()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", l.wrapper, err)
		return 2
	}
	if o.showOne != "" {
		return showPart(o.showOne, l, comp.words, src, o.archive, ucx, env, stdout, stderr)
	}
	lib := ""
	if o.libdir || linking(o.cc) {
		// --showme only names the directory; anything else needs the library in it.
		if lib, err = src.library(o.archive, ucx, env, !o.showme, stderr); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", l.wrapper, err)
			return 1
		}
	}
	if o.libdir {
		fmt.Fprintln(stdout, lib)
		return 0
	}
	var link []string
	if lib != "" {
		if link, err = linkFlags(lib, o.archive, ucx); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", l.wrapper, err)
			return 1
		}
	}
	cmd := command(comp.words, l.std, o.cc, src.include(), link)
	if o.showme {
		fmt.Fprintln(stdout, strings.Join(cmd, " "))
		return 0
	}
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Env = env
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, stdout, stderr
	if err := c.Run(); err != nil {
		if e, ok := err.(*exec.ExitError); ok && e.ExitCode() > 0 {
			return e.ExitCode()
		}
		fmt.Fprintf(stderr, "%s: %v\n", l.wrapper, err)
		return 1
	}
	return 0
}

// showParts are the parts -showme:PART prints (Open MPI's wrappers' names).
var showParts = []string{"compile", "link", "command", "incdirs", "libdirs", "libs", "version", "help"}

// showPart prints one part of the wrapper's command, for build systems that call the
// compiler themselves (CFLAGS=$(shmemcc -showme:compile), LDLIBS=$(shmemcc -showme:link)).
// The parts that name the library build it first: a link with them follows.
func showPart(part string, l lang, comp []string, src source, archive, ucx bool, env []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "%s: -showme:%s: %v\n", l.wrapper, part, err)
		return 1
	}
	language := "C"
	if l.wrapper == langCXX.wrapper {
		language = "C++"
	}
	var words []string
	switch part {
	case "compile":
		words = []string{"-I" + src.include()}
	case "incdirs":
		words = []string{src.include()}
	case "command":
		words = comp
	case "version":
		words = []string{fmt.Sprintf("%s: goshmem %s (OpenSHMEM %d.%d; language: %s)", l.wrapper, rt.Version, rt.SpecMajor, rt.SpecMinor, language)}
	case "link", "libdirs", "libs":
		lib, err := src.library(archive, ucx, env, true, stderr)
		if err != nil {
			return fail(err)
		}
		link, err := linkFlags(lib, archive, ucx)
		if err != nil {
			return fail(err)
		}
		switch part {
		case "link":
			words = link
		case "libdirs":
			words = []string{lib}
		case "libs":
			for _, f := range link {
				if strings.HasPrefix(f, "-l") {
					words = append(words, f[2:])
				} else if strings.HasSuffix(f, ".a") {
					words = append(words, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "lib"), ".a"))
				}
			}
		}
	}
	fmt.Fprintln(stdout, strings.Join(words, " "))
	return 0
}
