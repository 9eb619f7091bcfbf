// Command shmemrun runs an OpenSHMEM program as N PEs on this machine.
//
//	shmemrun -n N [flags] [--] program [args...]
//	shmemrun -n N [flags] ./path/to/go/package [args...]
//
// A directory argument is a Go package: shmemrun builds it first. Each PE's output is
// relayed line by line; shmemrun exits with the highest PE status, with s after
// GlobalExit(s), and non-zero when a PE fails (128+signal when it was killed).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/runtime/settings"
	"github.com/goshmem/shmem/topology"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	n              int
	tagOutput      bool
	timeout        time.Duration
	mapBy, bindTo  string
	cpuList        string
	oversubscribe  bool
	reportBindings bool
	dryRun         bool
	topoDir        string
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `usage: shmemrun -n N [flags] [--] program [args...]
       shmemrun -n N [flags] ./path/to/go/package [args...]

Runs program as N PEs of one OpenSHMEM job on this machine. A directory is a Go package:
shmemrun builds it first. Exit status: the highest PE status; s after GlobalExit(s);
128+signal when a PE is killed; 2 for usage errors; 124 when --timeout expires.

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nenvironment (see --help-env): SHMEM_SYMMETRIC_SIZE, SHMEM_DEBUG, SHMEM_INFO, ...\n")
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("shmemrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.n, "n", 0, "number of PEs")
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
	helpEnv := fs.Bool("help-env", false, "list the environment variables")
	helpEnvMD := fs.Bool("help-env-markdown", false, "list the environment variables as the README's Markdown table")
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")
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
	}
	rest := fs.Args()
	if len(rest) == 0 && !o.dryRun {
		fmt.Fprintln(stderr, "shmemrun: no program to run")
		usage(fs, stderr)
		return launch.StatusUsage
	}
	if o.n < 1 {
		fmt.Fprintf(stderr, "shmemrun: -n %d: need at least 1 PE\n", o.n)
		return launch.StatusUsage
	}
	if o.topoDir != "" && !o.dryRun {
		fmt.Fprintf(stderr, "shmemrun: --topology %s describes another machine: use it with --dry-run\n", o.topoDir)
		return launch.StatusUsage
	}
	topo, bindings, err := place(o)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		return launch.StatusUsage
	}
	if o.dryRun {
		fmt.Fprint(stdout, dryRun(topo, bindings))
		return 0
	}
	if o.reportBindings {
		fmt.Fprint(stderr, topology.ReportBindings(bindings))
	}
	prog, cleanup, err := resolve(rest[0], stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		return launch.StatusUsage
	}
	defer cleanup()
	status, err := launch.Run(launch.Config{
		NPEs:      o.n,
		Prog:      prog,
		Args:      rest[1:],
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
				return "", nothing, fmt.Errorf("%s: no such file or directory", arg)
			}
			return "", nothing, err
		}
		if st.Mode()&0o111 == 0 || !st.Mode().IsRegular() {
			return "", nothing, fmt.Errorf("%s: not an executable file", arg)
		}
		abs, err := filepath.Abs(arg)
		return abs, nothing, err
	}
	p, err := exec.LookPath(arg)
	if err != nil {
		return "", nothing, fmt.Errorf("%s: program not found in PATH", arg)
	}
	return p, nothing, nil
}

// build compiles the Go package in dir into a temporary directory.
func build(dir string, stderr io.Writer) (string, func(), error) {
	tmp, err := os.MkdirTemp("", "shmemrun-")
	if err != nil {
		return "", func() {}, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	pkg := dir
	if !filepath.IsAbs(pkg) && !strings.HasPrefix(pkg, ".") {
		pkg = "./" + pkg
	}
	out := filepath.Join(tmp, filepath.Base(filepath.Clean(dir)))
	goTool := "go"
	if g := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		goTool = g
	}
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", func() {}, fmt.Errorf("building %s: %v", dir, err)
	}
	return out, cleanup, nil
}
