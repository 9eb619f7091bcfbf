// Command shmemrun runs a program as N PEs of one OpenSHMEM job on this machine, as mpirun
// and oshrun do:
//
//	shmemrun [-n N] [flags] [--] program [args...]
//	shmemrun [-n N] [flags] ./path/to/go/package [args...]
//
// Any program runs (shmemrun -n 2 hostname); only a PE that calls Init and exits before
// Finalize while others run, or fails, ends the job early. -n defaults to one PE per
// binding unit (core). A directory argument is a Go package, built first in its own module.
// Each PE's output is relayed line by line. shmemrun --help lists the flags and the exit
// statuses.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/runtime/settings"
	"github.com/goshmem/shmem/topology"
)

func main() {
	if spec, ok := os.LookupEnv(envTunePE); ok {
		os.Exit(tunePE(spec, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	n              int
	nSet           bool // -n given; otherwise one PE per binding unit
	tagOutput      bool
	timeout        time.Duration
	mapBy, bindTo  string
	cpuList        string
	oversubscribe  bool
	reportBindings bool
	dryRun         bool
	topoDir        string
	calibrate      bool
	tune           bool
	tuneSizes      string
	tuneSamples    int
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `usage: shmemrun [-n N] [flags] [--] program [args...]
       shmemrun [-n N] [flags] ./path/to/go/package [args...]

Runs program as N PEs of one OpenSHMEM job on this machine. Any program runs (shmemrun -n 2
hostname); a PE that calls shmem.Init must call shmem.Finalize before it exits. A directory
is a Go package: shmemrun builds it first, in the module holding it.

flags:
`)
	printFlags(fs, w)
	fmt.Fprint(w, clusterUsage)
	fmt.Fprintf(w, `
exit status:
  0        every PE exited with 0
  s        the highest PE status; s after GlobalExit(s) (a Go PE that panics exits with 2)
  1        a PE exited before shmem.Finalize, or without shmem.Init while others called it
  124      --timeout expired
  125      shmemrun's own error: a bad flag, placement or environment variable, a package
           that does not build
  126      the program is not executable
  127      the program was not found
  128+n    a PE was killed by signal n (or shmemrun was, by n)

environment (see --help-env): SHMEM_SYMMETRIC_SIZE, SHMEM_DEBUG, SHMEM_INFO, ...
`)
}

// printFlags lists the flags as they are spelled on the command line: one-letter flags
// with one dash, the others with two (the flag package accepts either).
func printFlags(fs *flag.FlagSet, w io.Writer) {
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "np" || f.Name == "h" || f.Name == "help-env-markdown" {
			return // aliases, and the README's generator
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		name, use := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if name != "" {
			line += " " + name
		}
		if f.Name == "n" {
			line += ", -np N"
		}
		if f.Name == "help" {
			line += ", -h"
		}
		fmt.Fprint(w, wrap(fmt.Sprintf("%-26s %s", line, use), 96, 27))
	})
}

// wrap breaks s into lines of at most width columns at spaces, indenting the lines after
// the first by indent.
func wrap(s string, width, indent int) string {
	var b strings.Builder
	for len(s) > width {
		i := strings.LastIndexByte(s[:width+1], ' ')
		if i <= indent {
			break
		}
		b.WriteString(s[:i] + "\n")
		s = strings.Repeat(" ", indent) + strings.TrimLeft(s[i:], " ")
	}
	return b.String() + s + "\n"
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("shmemrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.n, "n", 0, "start `N` PEs (default: one per binding unit: the usable cores, or hardware threads under --map-by hwthread)")
	fs.IntVar(&o.n, "np", 0, "number of PEs (same as -n)")
	fs.BoolVar(&o.tagOutput, "tag-output", false, "prefix every output line with [PE n]")
	fs.Var(timeoutFlag{&o.timeout}, "timeout", "end the job after this `duration` (30s, 1m30s, or seconds: 30), reporting where each PE waits")
	fs.StringVar(&o.mapBy, "map-by", "", "assign PEs round-robin to `unit`s: core|hwthread|l3cache|numa|socket[:PE=n] (n CPUs per PE; default core)")
	fs.StringVar(&o.bindTo, "bind-to", "", "pin each PE to its `unit`: none|hwthread|core|l3cache|numa|socket (default core when N <= cores, none otherwise)")
	fs.StringVar(&o.cpuList, "cpu-list", "", "use only these `CPUs`, in this order, e.g. 0,2,4-7")
	fs.BoolVar(&o.oversubscribe, "oversubscribe", false, "allow more PEs than binding units (waits then yield and sleep)")
	fs.BoolVar(&o.reportBindings, "report-bindings", false, "print each PE's binding on stderr")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the topology, the placement and the algorithm choices, and start nothing")
	fs.StringVar(&o.topoDir, "topology", "", "read the machine from this captured sysfs `dir` (with --dry-run)")
	fs.BoolVar(&o.calibrate, "calibrate", false, "measure this machine's cost model (hand-off latency and bandwidth per level, combine rate) into the cache and print it; a job's first run on a machine does it too")
	fs.BoolVar(&o.tune, "tune", false, "time every algorithm of every collective at each size on -n N PEs placed by the placement flags, and write the decision table auto consults into the cache")
	fs.StringVar(&o.tuneSizes, "tune-sizes", "8:8M", "with --tune: the message sizes `MIN:MAX` (bytes per PE, doubling; K, M suffixes); the default reaches bench/osu's largest vectors, past the L3 of most machines")
	fs.IntVar(&o.tuneSamples, "tune-samples", 500, "with --tune: `N` timed samples per algorithm and size up to 64 KiB (a tenth above); each PE's median, then their mean counts")
	helpEnv := fs.Bool("help-env", false, "list the environment variables")
	helpEnvMD := fs.Bool("help-env-markdown", false, "list the environment variables as the README's Markdown table")
	cluster := addClusterFlags(fs)
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")
	version := fs.Bool("version", false, "print shmemrun's version and the OpenSHMEM version")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		usage(fs, stderr)
		return launch.StatusUsage
	}
	switch {
	case *help:
		usage(fs, stdout)
		return 0
	case *helpEnv:
		fmt.Fprint(stdout, settings.Help())
		return 0
	case *helpEnvMD:
		fmt.Fprint(stdout, settings.Markdown())
		return 0
	case *version:
		fmt.Fprintf(stdout, "shmemrun (%s %s) OpenSHMEM %d.%d, %s %s/%s\n", rt.Vendor, rt.Version, rt.SpecMajor, rt.SpecMinor, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	}
	fs.Visit(func(f *flag.Flag) { o.nSet = o.nSet || f.Name == "n" || f.Name == "np" })
	rest := fs.Args()
	if o.calibrate {
		if len(rest) > 0 || o.tune || o.dryRun {
			fmt.Fprintln(stderr, "shmemrun: --calibrate takes no program and no --tune or --dry-run")
			return launch.StatusUsage
		}
		return runCalibrate(stdout, stderr)
	}
	if o.tune && (len(rest) > 0 || o.dryRun || o.topoDir != "") {
		fmt.Fprintln(stderr, "shmemrun: --tune runs its own timing program: no program, --dry-run or --topology")
		return launch.StatusUsage
	}
	if o.tune && cluster.active() {
		return runTuneCluster(cluster, o, stdout, stderr)
	}
	if cluster.active() {
		return runCluster(cluster, o, rest, stdout, stderr)
	}
	if len(rest) == 0 && !o.dryRun && !o.tune {
		fmt.Fprintln(stderr, "shmemrun: no program to run")
		usage(fs, stderr)
		return launch.StatusUsage
	}
	if o.nSet && o.n < 1 {
		fmt.Fprintf(stderr, "shmemrun: -n %d: need at least 1 PE\n", o.n)
		return launch.StatusUsage
	}
	if o.topoDir != "" && !o.dryRun {
		fmt.Fprintf(stderr, "shmemrun: --topology %s describes another machine: use it with --dry-run\n", o.topoDir)
		return launch.StatusUsage
	}
	topo, bindings, err := place(&o)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		return launch.StatusUsage
	}
	if o.dryRun {
		sources, m, tbl, err := dryRunModel(topo, bindings, o.topoDir != "", stderr)
		if err != nil {
			fmt.Fprintf(stderr, "shmemrun: %v\n", err)
			return launch.StatusUsage
		}
		fmt.Fprint(stdout, dryRun(topo, bindings, sources, m, tbl))
		return 0
	}
	if o.tune {
		return runTune(o, topo, bindings, stdout, stderr)
	}
	if o.reportBindings {
		fmt.Fprint(stderr, topology.ReportBindings(bindings))
	}
	prog, cleanup, err := resolve(rest[0], stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		var pe *progError
		if errors.As(err, &pe) {
			return pe.status
		}
		return launch.StatusUsage
	}
	defer cleanup()
	// The table first: a bad SHMEM_COLL_TUNING stops the job before anything is measured.
	tc, err := jobTable(topology.MachineKey(topo), topology.LayoutOf(topology.PlaceMap(bindings), 1), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		return launch.StatusUsage
	}
	model := jobModel(topo, stderr)
	status, err := launch.Run(launch.Config{
		NPEs:      o.n,
		Prog:      prog,
		Args:      rest[1:],
		Env:       collEnv(os.Environ(), model, tc),
		Stdin:     os.Stdin,
		Stdout:    stdout,
		Stderr:    stderr,
		TagOutput: o.tagOutput,
		Timeout:   o.timeout,
		Signals:   true,
		Bindings:  bindings,
		Topology:  topo,
	})
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
	}
	return status
}

// progError is a program that cannot be run, with the status that says why.
type progError struct {
	status int
	msg    string
}

func (e *progError) Error() string { return e.msg }

// resolve finds the program: a directory is a Go package to build; a path must be an
// executable file; a bare name is looked up in PATH.
func resolve(arg string, stderr io.Writer) (string, func(), error) {
	nothing := func() {}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return build(arg, stderr)
	}
	if strings.ContainsRune(arg, '/') {
		st, err := os.Stat(arg)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", nothing, &progError{launch.StatusNotFound, arg + ": no such file or directory"}
			}
			return "", nothing, err
		}
		if st.Mode()&0o111 == 0 || !st.Mode().IsRegular() {
			return "", nothing, &progError{launch.StatusCannotRun, arg + ": not an executable file"}
		}
		abs, err := filepath.Abs(arg)
		return abs, nothing, err
	}
	p, err := exec.LookPath(arg)
	if err != nil {
		return "", nothing, &progError{launch.StatusNotFound, arg + ": program not found in PATH"}
	}
	return p, nothing, nil
}

// build compiles the Go package in dir into a temporary directory. It builds in dir, so
// that a package of another module (a user's own, requiring goshmem, perhaps through a
// replace directive) builds with that module's go.mod.
func build(dir string, stderr io.Writer) (string, func(), error) {
	goTool := "go"
	if g := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		goTool = g
	}
	gomod, err := exec.Command(goTool, "env", "-C", dir, "GOMOD").Output()
	if err != nil {
		return "", func() {}, fmt.Errorf("building %s: go env GOMOD: %v", dir, err)
	}
	if m := strings.TrimSpace(string(gomod)); m == "" || m == os.DevNull {
		return "", func() {}, fmt.Errorf("building %s: it is not inside a Go module; make one there (go mod init example.com/prog; go mod edit -replace %s=%s; go mod tidy), or build the program yourself and pass the executable", dir, goshmemModule, goshmemTree())
	}
	tmp, err := os.MkdirTemp("", "shmemrun-")
	if err != nil {
		return "", func() {}, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	out := filepath.Join(tmp, filepath.Base(filepath.Clean(dir)))
	if abs, err := filepath.Abs(dir); err == nil {
		out = filepath.Join(tmp, filepath.Base(abs))
	}
	var msgs strings.Builder
	cmd := exec.Command(goTool, "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stderr, io.MultiWriter(stderr, &msgs)
	if err := cmd.Run(); err != nil {
		cleanup()
		hint := ""
		if strings.Contains(msgs.String(), goshmemModule) {
			hint = fmt.Sprintf(" (a package of another module needs goshmem in its go.mod: go mod edit -require %s@v0.0.0 -replace %s=%s; go mod tidy)", goshmemModule, goshmemModule, goshmemTree())
		}
		return "", func() {}, fmt.Errorf("building %s: %v%s", dir, err, hint)
	}
	return out, cleanup, nil
}

const goshmemModule = "github.com/goshmem/shmem"

// goshmemTree is the goshmem source tree shmemrun was built from, for the messages' replace
// directives, or a placeholder when the path is not recorded (-trimpath).
func goshmemTree() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root
		}
	}
	return "/path/to/goshmem"
}
