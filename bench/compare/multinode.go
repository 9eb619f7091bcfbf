package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
)

// Across nodes (--nodes N): both suites and the limit run on the fake nodes of
// scripts/fakenodes, launched from node 1 by the harness (internal/fakenodes): goshmem's
// suite built with the engine's tag under mpirun, the C peer under oshrun on Open MPI's UCX
// SPML, and raw UCX (bench/ucxlimit) as the limit. PEs are placed round-robin over the
// nodes (--map-by node), so that PE 0 and PE 1, the pair of every one-sided row, are on
// different nodes whatever --per-node is.

// oshmemUCXArgs make Open MPI's OSHMEM use UCX for both its SPML and its PML, on whatever
// transport UCX finds between the nodes (TCP here): by default OSHMEM's UCX component
// refuses to run without an RDMA device (opal_common_ucx_tls/devices).
var oshmemUCXArgs = []string{
	"--mca", "spml", "ucx",
	"--mca", "pml", "ucx",
	"--mca", "opal_common_ucx_tls", "any",
	"--mca", "opal_common_ucx_devices", "any",
}

// binaries are the programs a run across nodes starts; "" where the build failed.
type binaries struct {
	goshmem, oshmem, limit string
}

// buildStep is one program to build before a run across nodes.
type buildStep struct {
	impl string   // whose program
	out  string   // the binary it makes
	argv []string // the command, run in the module's root
	env  []string // on top of the environment
}

// buildSteps are the builds of a run across nodes, into out: goshmem's suite with the
// engine's tag, the peer through its own run.sh (which installs Open MPI if needed), and
// the UCX limit program with ucxFlags (pkg-config --cflags --libs ucx pmix).
func buildSteps(out string, ucxFlags []string) []buildStep {
	osu := filepath.Join(out, "osu")
	peer := filepath.Join(out, "osu_peer")
	limit := filepath.Join(out, "ucx_limit")
	return []buildStep{
		{impl: implGoshmem, out: osu, argv: []string{"go", "build", "-tags", "goshmem_ucx", "-o", osu, "./bench/osu"}},
		{impl: implOSHMEM, out: peer, argv: []string{"sh", "bench/peer/run.sh"}, env: []string{"PEER_BUILD_ONLY=1", "PEER_BUILD_DIR=" + out}},
		{impl: implLimit, out: limit, argv: append([]string{"cc", "-O2", "-Wall", "-o", limit, "bench/ucxlimit/ucx_limit.c"}, ucxFlags...)},
	}
}

// multinodeJobs are the launches of a run across nodes (Args are set per run): the suites
// at nodes × perNode PEs, round-robin, and the limit at one process on each of two nodes.
// goshmem's job carries env (goshmemEnv), as a one-node run's shmemrun inherits it.
// Where the machine has a CPU for each process, process r is bound to CPU r, as a
// launcher binds each PE to a core of its own node (see fakenodes.Job.PinRanks).
func multinodeJobs(nodes, perNode int, bins binaries, timeout time.Duration, cpus int, env []string) map[string]fakenodes.Job {
	jobs := map[string]fakenodes.Job{}
	pin := nodes*perNode <= cpus
	if bins.goshmem != "" {
		jobs[implGoshmem] = fakenodes.Job{Nodes: nodes, PerNode: perNode, MapBy: "node", Prog: bins.goshmem, Timeout: timeout, PinRanks: pin, Env: env}
	}
	if bins.oshmem != "" {
		jobs[implOSHMEM] = fakenodes.Job{Nodes: nodes, PerNode: perNode, MapBy: "node", Prog: bins.oshmem, Timeout: timeout,
			Launcher: "oshrun", LauncherArgs: oshmemUCXArgs, PinRanks: pin}
	}
	if bins.limit != "" {
		jobs[implLimit] = fakenodes.Job{Nodes: 2, PerNode: 1, Prog: bins.limit, Timeout: timeout, PinRanks: cpus >= 2}
	}
	return jobs
}

// goshmemEnv is goshmem's settings in environ (SHMEM_* and GOSHMEM_*, but the fake nodes'
// own GOSHMEM_FAKENODES*): mpirun forwards only what it is told to, so a setting such as
// GOSHMEM_NET_PROGRESS=calls would otherwise stay on the machine running compare.
func goshmemEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if (strings.HasPrefix(kv, "SHMEM_") || strings.HasPrefix(kv, "GOSHMEM_")) && !strings.HasPrefix(kv, fakenodes.EnvMode) {
			out = append(out, kv)
		}
	}
	return out
}

// bindingNote says how the suites' PEs were bound, for the table's header.
func bindingNote(nodes, perNode, cpus int) string {
	if nodes*perNode <= cpus {
		return "binding: PE r on CPU r of the machine (taskset), as a launcher's --bind-to core on real nodes (the limit's processes too)"
	}
	return fmt.Sprintf("binding: none (%d PEs on %d CPUs: the fake nodes' PEs share the machine's CPUs)", nodes*perNode, cpus)
}

// limitArgs are the UCX limit program's flags: --json, and the suites' sample count when
// one was asked for (the same samples the suites take).
func limitArgs(benchArgs []string) []string {
	out := []string{"--json"}
	for i := 0; i+1 < len(benchArgs); i++ {
		if benchArgs[i] == "-i" {
			out = append(out, "-i", benchArgs[i+1])
		}
	}
	return out
}

// netLimitOps map a suite operation to the bench/ucxlimit record that bounds it (the same
// operation called straight on UCP), with the limit column's short name; elem is the bytes
// of one element where the suite's size counts elements (the UCX record's size is bytes).
var netLimitOps = map[string]struct {
	op, what string
	elem     int64
}{
	"put":                 {"ucx_put", "ucx put", 1},
	"get":                 {"ucx_get", "ucx get", 1},
	"put_bw":              {"ucx_put_bw", "ucx put_bw", 1},
	"atomic_fetch_add":    {"ucx_fetch_add", "ucx fadd", 1},
	"atomic_compare_swap": {"ucx_compare_swap", "ucx cswap", 1},
	"pingpong":            {"ucx_pingpong", "ucx pingpong", 1},
	"barrier":             {"ucx_barrier", "ucx msg each way", 1},
	"broadcast64":         {"ucx_bcast", "ucx one message", 8}, // the root's part: one message sent
}

// netLimitFor is the raw-UCX limit of an operation at a size across nodes: the faster of
// the UCX records of the same operation at the same size, the target polling its worker
// (ucx_OP) or asleep on its wake-up descriptor (ucx_OP_sleep, " ev" in the limit column).
func netLimitFor(sums map[Key]Summary, op string, size int64) Limit {
	m, ok := netLimitOps[op]
	if !ok {
		return Limit{}
	}
	var best Limit
	for _, v := range []struct{ suffix, what string }{{"", ""}, {"_sleep", " ev"}} {
		s, ok := sums[Key{implLimit, m.op + v.suffix, size * m.elem}]
		if ok && s.N > 0 && (best.US == 0 || s.US < best.US) {
			best = Limit{US: s.US, What: m.what + v.what}
		}
	}
	return best
}

// setUpMultinode holds the fake nodes and builds the programs; the runners it returns
// start their jobs there. release gives the nodes back and removes the binaries.
func setUpMultinode(cfg config, dir string, stderr io.Writer) (runners []*runner, notes []string, release func(), err error) {
	cl, err := fakenodes.Ensure(cfg.nodes)
	if err != nil { // *fakenodes.Unsupported says why this machine cannot
		return nil, nil, nil, fmt.Errorf("--nodes %d: %v", cfg.nodes, err)
	}
	out, err := os.MkdirTemp("", "goshmem-compare-")
	if err != nil {
		cl.Release()
		return nil, nil, nil, err
	}
	release = func() {
		cl.Release()
		os.RemoveAll(out)
	}
	var ucxFlags []string
	pc, pcErr := exec.Command("pkg-config", "--cflags", "--libs", "ucx", "pmix").Output()
	if pcErr == nil {
		ucxFlags = strings.Fields(string(pc))
	}
	var bins binaries
	for _, st := range buildSteps(out, ucxFlags) {
		if (st.impl == implGoshmem && cfg.goshmemCmd == "") || (st.impl == implOSHMEM && cfg.peerCmd == "") ||
			(st.impl == implLimit && cfg.limitsCmd == "") {
			continue
		}
		if st.impl == implLimit && pcErr != nil {
			notes = append(notes, "limit: pkg-config ucx pmix failed (install libucx-dev libpmix-dev); no UCX limit")
			continue
		}
		fmt.Fprintf(stderr, "compare: building %s: %s\n", st.impl, strings.Join(st.argv, " "))
		cmd := exec.Command(st.argv[0], st.argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), st.env...)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, io.MultiWriter(stderr, &log)
		if err := cmd.Run(); err != nil {
			note := fmt.Sprintf("%s: building it failed (%v): %s", st.impl, err, strings.Join(nonEmptyLines(log.Bytes()), " | "))
			fmt.Fprintf(stderr, "compare: %s\n", note)
			notes = append(notes, note)
			continue
		}
		switch st.impl {
		case implGoshmem:
			bins.goshmem = st.out
		case implOSHMEM:
			bins.oshmem = st.out
		case implLimit:
			bins.limit = st.out
		}
	}
	benchArgs := append([]string{"--json"}, cfg.benchArgs...)
	env := goshmemEnv(os.Environ())
	jobs := multinodeJobs(cfg.nodes, cfg.perNode, bins, cfg.timeout, runtime.NumCPU(), env)
	notes = append(notes, bindingNote(cfg.nodes, cfg.perNode, runtime.NumCPU()))
	if len(env) > 0 {
		notes = append(notes, "goshmem's settings: "+strings.Join(env, " "))
	}
	for _, impl := range []string{implLimit, implGoshmem, implOSHMEM} {
		j, ok := jobs[impl]
		if !ok {
			runners = append(runners, nil)
			continue
		}
		args := benchArgs
		if impl == implLimit {
			args = limitArgs(cfg.benchArgs)
		}
		r := &runner{impl: impl, args: args}
		r.start = func(args []string, dir string, stdout, stderr io.Writer) error {
			j := j
			j.Args = args
			cmd, err := cl.Command(j)
			if err != nil {
				return err
			}
			cmd.Dir = dir
			cmd.Stdout, cmd.Stderr = stdout, stderr
			res, err := cl.Run(cmd, j.Timeout)
			switch {
			case err != nil:
				return err
			case res.TimedOut:
				return fmt.Errorf("killed after the timeout of %v", j.Timeout)
			case res.ExitCode != 0:
				return fmt.Errorf("exit status %d", res.ExitCode)
			}
			return nil
		}
		cmd, _ := cl.Command(j)
		r.cmd = strings.Join(cmd.Args, " ")
		runners = append(runners, r)
	}
	return runners, notes, release, nil
}
