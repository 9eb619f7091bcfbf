package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// lang is what the wrapper compiles: shmemcc runs a C compiler, shmemc++ a C++ one.
type lang struct {
	wrapper string   // the wrapper's name in messages
	envs    []string // variables naming the compiler, first set wins
	def     string   // the compiler when none is set
	std     string   // the -std flag added unless one is given ("" : none)
}

var (
	// gnu11: C11 for the generic selections, and the POSIX declarations (clock_gettime,
	// usleep) that oshcc's compiler default gives programs; -std=c11 hid them.
	langC   = lang{wrapper: "shmemcc", envs: []string{"SHMEMCC_CC", "CC"}, def: "gcc", std: "-std=gnu11"}
	langCXX = lang{wrapper: "shmemc++", envs: []string{"SHMEMCC_CXX", "CXX"}, def: "g++"}
)

// langOf chooses the language from the name the wrapper was started under: shmemc++,
// shmemcxx and shmemCC (oshc++, oshcxx and oshCC in other implementations) compile C++.
func langOf(argv0 string) lang {
	b := filepath.Base(argv0)
	if strings.HasSuffix(b, "c++") || strings.HasSuffix(b, "cxx") || strings.HasSuffix(b, "CC") {
		return langCXX
	}
	return langC
}

// wrapperNames are the names the wrapper is installed under: a compiler of one of these
// names is a goshmem wrapper too, never a compiler to run.
var wrapperNames = map[string]bool{"shmemcc": true, "shmemc++": true, "shmemcxx": true, "shmemCC": true}

// choice is the compiler a language resolves to, and the variables skipped on the way
// because they named a wrapper.
type choice struct {
	words   []string // program and its leading flags, as CC="gcc -std=gnu11" gives them
	from    string   // the variable it came from, or "default"
	skipped []string // "CC=shmemcc" for each variable that named a wrapper
}

// chooseCompiler picks l's compiler from the environment: the first of l.envs that is set
// and does not name a wrapper (configure exports CC=shmemcc, so shmemcc must not run
// $CC blindly: it would run itself without end), else l.def. isWrapper says whether a
// program word names a goshmem wrapper. Pure, for the tests.
func chooseCompiler(l lang, getenv func(string) string, isWrapper func(string) bool) choice {
	var c choice
	for _, v := range l.envs {
		s := getenv(v)
		words := strings.Fields(s)
		if len(words) == 0 {
			continue
		}
		if wrapperIn(words, isWrapper) {
			c.skipped = append(c.skipped, v+"="+s)
			continue
		}
		c.words, c.from = words, v
		return c
	}
	c.words, c.from = []string{l.def}, "default"
	return c
}

// wrapperIn reports whether a compiler command runs a wrapper: its program, or the program a
// launcher in front of it runs (CC="ccache shmemcc").
func wrapperIn(words []string, isWrapper func(string) bool) bool {
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		if isWrapper(w) {
			return true
		}
	}
	return false
}

// isWrapperProgram reports whether prog, a command name or path, is this executable or
// another goshmem wrapper: by name, and by file identity after PATH lookup and symlinks
// (a wrapper installed as cc, or reached through a link).
func isWrapperProgram(prog string) bool {
	if wrapperNames[filepath.Base(prog)] {
		return true
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && wrapperNames[filepath.Base(real)] {
		return true
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err1 := os.Stat(path)
	b, err2 := os.Stat(self)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// depthVar counts the wrappers between the user and this one. shmemcc never runs itself,
// but a compiler script that calls shmemcc again (SHMEMCC_CC=./my-cc-that-calls-shmemcc)
// would; the count turns that loop into an error instead of a fork bomb.
const depthVar = "GOSHMEMCC_DEPTH"

// maxDepth is the number of wrappers allowed above a running one: none, since nothing the
// wrapper starts (the compiler, go build) has reason to start a wrapper again.
const maxDepth = 0

// depth is how many wrappers are running above this one.
func depth(getenv func(string) string) int {
	d, err := strconv.Atoi(getenv(depthVar))
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// childEnv is the environment of every program the wrapper starts: CC and CXX name the real
// compilers, so that go build's cgo, go env and any script run under the wrapper reach the
// compiler and not the wrapper, and the nesting depth is one more.
func childEnv(env []string, cc, cxx choice, d int) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if strings.HasPrefix(kv, "CC=") || strings.HasPrefix(kv, "CXX=") || strings.HasPrefix(kv, depthVar+"=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CC="+strings.Join(cc.words, " "), "CXX="+strings.Join(cxx.words, " "), fmt.Sprintf("%s=%d", depthVar, d+1))
}

// stopFlags end the compiler's work before linking.
var stopFlags = map[string]bool{"-c": true, "-S": true, "-E": true, "-M": true, "-MM": true, "-fsyntax-only": true}

// valueFlags take the next argument as their value (gcc's separate-value forms).
var valueFlags = map[string]bool{
	"-o": true, "-I": true, "-L": true, "-D": true, "-U": true, "-x": true, "-include": true,
	"-imacros": true, "-idirafter": true, "-iprefix": true, "-iquote": true, "-isystem": true,
	"-MF": true, "-MT": true, "-MQ": true, "-T": true, "-u": true, "-z": true, "-Xlinker": true,
	"-Xpreprocessor": true, "-Xassembler": true, "-aux-info": true, "-e": true,
}

// linking reports whether the compiler is asked to link: it is given inputs (files or -l
// libraries), and no flag that stops before the link. `shmemcc --version` or `-v` alone, as
// configure runs them, link nothing and so need no library.
func linking(args []string) bool {
	inputs := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case stopFlags[a]:
			return false
		case valueFlags[a]:
			i++
		case a == "-" || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "-l"):
			inputs = true
		}
	}
	return inputs
}

// command is the compiler's command line: shmemcc's additions around the user's flags.
func command(cc []string, std string, args []string, include string, link []string) []string {
	cmd := append([]string{}, cc...)
	hasStd := false
	for _, a := range append(cc[1:len(cc):len(cc)], args...) {
		if strings.HasPrefix(a, "-std=") {
			hasStd = true
		}
	}
	if !hasStd && std != "" {
		cmd = append(cmd, std)
	}
	// The user's flags first, as oshcc and SOS's wrapper order them: a -I of the user's
	// (a shmemx.h of their own, say) is searched before the library's headers.
	cmd = append(cmd, args...)
	return append(append(cmd, "-I"+include), link...)
}

// linkFlags are the flags that link libgoshmem from directory lib: the shared library
// through an rpath, or the static archive and what it needs (with the multi-node engine,
// UCX and PMIx too).
func linkFlags(lib string, archive, ucx bool) ([]string, error) {
	if !archive {
		return []string{"-L" + lib, "-lgoshmem", "-Wl,-rpath," + lib}, nil
	}
	flags := []string{filepath.Join(lib, "libgoshmem.a"), "-lpthread", "-ldl", "-lm"}
	if !ucx {
		return flags, nil
	}
	libs, err := ucxLibs()
	return append(flags, libs...), err
}
