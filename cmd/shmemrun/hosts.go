package main

// Many nodes: with --hosts (or --launcher), shmemrun is a front end to a PMIx launcher,
// mpirun or, inside a Slurm allocation, srun --mpi=pmix. It computes the launcher's command
// line and the placement (which PE runs on which host) as pure functions, prints them with
// --dry-run, and otherwise runs the launcher, relaying signals and its exit status.

import (
	"debug/buildinfo"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
	"golang.org/x/sys/unix"
)

// clusterFlags are the flags of the many-node mode.
type clusterFlags struct {
	hosts    string // a:32,b:32
	hostfile string // Open MPI's format: "a slots=32" per line
	launcher string // "", "mpirun", "srun"
}

// addClusterFlags registers the many-node flags on fs.
func addClusterFlags(fs *flag.FlagSet) *clusterFlags {
	var c clusterFlags
	fs.StringVar(&c.hosts, "hosts", "", "run across these `hosts` with these slots, e.g. a:32,b:32 (a host without :n has 1 slot), through mpirun, or srun inside a Slurm allocation; -n defaults to the slots")
	fs.StringVar(&c.hostfile, "hostfile", "", "read the hosts from `file`, one per line as Open MPI writes them: name [slots=n] (# comments); instead of --hosts")
	fs.StringVar(&c.launcher, "launcher", "", "the PMIx `launcher` of the many-node mode: mpirun|srun (default: srun when SLURM_JOB_ID is set, else mpirun); implies that mode")
	return &c
}

// clusterUsage is --help's paragraph on the many-node mode.
const clusterUsage = `
many nodes: shmemrun --hosts a:32,b:32 | --hostfile F [-n 64] [flags] [--] program [args...]
  runs the job through mpirun (srun --mpi=pmix inside a Slurm allocation, or --launcher);
  a Go package is built with -tags goshmem_ucx. --map-by slot|node spreads PEs over the
  hosts; --bind-to goes to the launcher when it has the unit, else goshmem pins each node's
  PEs; SHMEM_*, GOSHMEM_* and UCX_* variables reach every PE; --dry-run prints the command
  and which PE runs on which host.
`

// active says whether the many-node mode is asked for.
func (c *clusterFlags) active() bool { return c.hosts != "" || c.hostfile != "" || c.launcher != "" }

// host is one entry of --hosts.
type host struct {
	name  string
	slots int
}

// maxSlots bounds a host's slots and the job's PEs: far beyond any machine, small enough
// that sums cannot overflow.
const maxSlots = 1 << 20

// parseHosts reads --hosts: name[:slots],... in order; each name once.
func parseHosts(s string) ([]host, error) {
	var hs []host
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		name, n, hasN := strings.Cut(item, ":")
		if name == "" || strings.ContainsAny(name, " \t\n'\"\\$`;&|<>()*?[]{}") {
			return nil, fmt.Errorf("--hosts %s: bad host name %q", s, name)
		}
		slots := 1
		if hasN {
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 || v > maxSlots {
				return nil, fmt.Errorf("--hosts %s: %s: slots %q not in [1,%d]", s, name, n, maxSlots)
			}
			slots = v
		}
		if seen[name] {
			return nil, fmt.Errorf("--hosts %s: %s listed twice", s, name)
		}
		seen[name] = true
		hs = append(hs, host{name, slots})
	}
	return hs, nil
}

// parseHostfile reads an Open MPI hostfile: per line a host name, optionally slots=n
// (default 1) and max_slots=n (ignored: shmemrun never places beyond slots without
// --oversubscribe); # starts a comment. A host on several lines gets their slots summed,
// as Open MPI does. name is the file's name for the errors.
func parseHostfile(name, text string) ([]host, error) {
	var hs []host
	at := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		where := fmt.Sprintf("--hostfile %s:%d", name, i+1)
		h := host{name: f[0], slots: 1}
		if strings.ContainsAny(h.name, "'\"\\$`;&|<>()*?[]{}=,:") {
			return nil, fmt.Errorf("%s: bad host name %q", where, h.name)
		}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "slots":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > maxSlots {
					return nil, fmt.Errorf("%s: %s: slots %q not in [1,%d]", where, h.name, v, maxSlots)
				}
				h.slots = n
			case "max_slots", "max-slots":
			default:
				return nil, fmt.Errorf("%s: %s: unknown field %q (want slots=n)", where, h.name, kv)
			}
		}
		if j, ok := at[h.name]; ok {
			if hs[j].slots += h.slots; hs[j].slots > maxSlots {
				return nil, fmt.Errorf("%s: %s: more than %d slots", where, h.name, maxSlots)
			}
			continue
		}
		at[h.name] = len(hs)
		hs = append(hs, h)
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("--hostfile %s: no hosts", name)
	}
	return hs, nil
}

// placeOnHosts says on which host (an index into hs) each of n PEs runs, as Open MPI's
// round-robin mapper does it (checked against mpirun on fake nodes): by slot, PEs fill each
// host's slots in order; by node, PEs are dealt round-robin over the hosts, each host
// taking its share of n/len(hs) as far as its slots allow, the remainder going to the first
// hosts with room. More PEs than slots need oversubscribe; the extra PEs are then spread
// evenly, first hosts first.
func placeOnHosts(hs []host, n int, byNode, oversubscribe bool) ([]int, error) {
	total := 0
	for _, h := range hs {
		total += h.slots
	}
	if n < 1 || n > maxSlots {
		return nil, fmt.Errorf("-n %d: not in [1,%d]", n, maxSlots)
	}
	over := n > total
	if over && !oversubscribe {
		return nil, fmt.Errorf("-n %d: more PEs than the %d slots of --hosts (add slots, or --oversubscribe)", n, total)
	}
	count := make([]int, len(hs))
	switch {
	case over:
		// Every slot, then the rest evenly.
		extra := n - total
		for i, h := range hs {
			count[i] = h.slots + extra/len(hs)
			if i < extra%len(hs) {
				count[i]++
			}
		}
	case !byNode:
		left := n
		for i, h := range hs {
			count[i] = min(h.slots, left)
			left -= count[i]
		}
	default:
		// Each host its even share (at least 1) as far as its slots allow; a host with
		// room takes the remainder and what hosts before it could not.
		avg := max(n/len(hs), 1)
		owed := n - avg*len(hs) // the remainder, then plus each shortfall
		if owed < 0 {
			owed = 0
		}
		left := n
		for i, h := range hs {
			if left == 0 {
				break
			}
			take := min(avg, h.slots, left)
			owed += avg - take
			if extra := min(owed, h.slots-take, left-take); extra > 0 {
				take += extra
				owed -= extra
			}
			count[i] = take
			left -= take
		}
		for i, h := range hs { // shortfalls of the last hosts: the first with room
			extra := min(left, h.slots-count[i])
			count[i] += extra
			left -= extra
		}
	}
	pes := make([]int, 0, n)
	if !byNode {
		for i, c := range count {
			for range c {
				pes = append(pes, i)
			}
		}
		return pes, nil
	}
	// By node, ranks go round-robin over the hosts that still have PEs to number.
	left := append([]int(nil), count...)
	for len(pes) < n {
		for i := range left {
			if left[i] > 0 {
				pes = append(pes, i)
				left[i]--
			}
		}
	}
	return pes, nil
}

// chooseLauncher picks mpirun or srun: the flag, else srun inside a Slurm allocation.
func chooseLauncher(flagValue string, getenv func(string) string) (string, error) {
	switch flagValue {
	case "mpirun", "srun":
		return flagValue, nil
	case "":
		if getenv("SLURM_JOB_ID") != "" {
			return "srun", nil
		}
		return "mpirun", nil
	}
	return "", fmt.Errorf("--launcher %s: want mpirun or srun", flagValue)
}

// clusterPlan is everything the launcher's command line depends on.
type clusterPlan struct {
	launcher       string
	hosts          []host // nil: the launcher's own (srun: the allocation)
	n              int    // 0: the launcher's default (srun without --hosts)
	byNode         bool
	mapBy, bindTo  string // shmemrun's --map-by (without "node"/"slot") and --bind-to
	cpuList        string
	oversubscribe  bool
	tagOutput      bool
	reportBindings bool
	timeoutReport  bool // --timeout: the PEs report their state when it expires (GOSHMEM_TIMEOUT_REPORT)
	root           bool
	forward        []string // KEY=VALUE of the caller's environment to forward
	prog           string
	args           []string
	hostfile       string // srun: where SLURM_HOSTFILE will be
}

// srunBind is srun's --cpu-bind type for each of shmemrun's --bind-to units it has.
var srunBind = map[string]string{"none": "none", "hwthread": "threads", "core": "cores", "socket": "sockets", "numa": "ldoms"}

// launcherBinds says whether the launcher pins the PEs: when --bind-to is given, there is
// no --cpu-list, and the launcher has the unit. Otherwise it binds none and goshmem places
// each node's PEs itself (GOSHMEM_MAP_BY, GOSHMEM_BIND_TO, GOSHMEM_CPU_LIST).
func (p *clusterPlan) launcherBinds() bool {
	if p.bindTo == "" || p.cpuList != "" {
		return false
	}
	if p.launcher == "srun" {
		_, ok := srunBind[p.bindTo]
		return ok
	}
	return true
}

// goshmemPlacement is the environment telling goshmem to place each node's PEs (nil when
// the launcher binds).
func (p *clusterPlan) goshmemPlacement() []string {
	if p.launcherBinds() {
		return nil
	}
	bind := p.bindTo
	if bind == "" {
		bind = "auto"
	}
	env := []string{"GOSHMEM_BIND_TO=" + bind}
	if p.mapBy != "" {
		env = append(env, "GOSHMEM_MAP_BY="+p.mapBy)
	}
	if p.cpuList != "" {
		env = append(env, "GOSHMEM_CPU_LIST="+p.cpuList)
	}
	if p.reportBindings {
		env = append(env, "GOSHMEM_REPORT_BINDINGS=1")
	}
	return env
}

// forwardedEnv picks the variables to hand to every PE: SHMEM_*, GOSHMEM_* (not the
// one-node bootstrap's descriptor and PE number, nor the cost model and table a one-node
// shmemrun hands its PEs: each node is its own machine and reads its own from the cache)
// and UCX_*, sorted.
func forwardedEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == rt.EnvFD || k == rt.EnvPE || k == "GOSHMEM_BIND_TO" || k == "GOSHMEM_MAP_BY" || k == "GOSHMEM_CPU_LIST" || k == "GOSHMEM_REPORT_BINDINGS" || k == "GOSHMEM_TIMEOUT_REPORT" ||
			k == rt.EnvModel || k == rt.EnvModelFile || k == rt.EnvTable || k == rt.EnvTableFile {
			continue
		}
		if strings.HasPrefix(k, "SHMEM_") || strings.HasPrefix(k, "GOSHMEM_") || strings.HasPrefix(k, "UCX_") {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// command is the launcher's environment additions and argument vector.
func (p *clusterPlan) command() (env, argv []string) {
	place := p.goshmemPlacement()
	if p.timeoutReport {
		place = append(place, "GOSHMEM_TIMEOUT_REPORT=1")
	}
	if p.launcher == "srun" {
		// --kill-on-bad-exit: a PE that fails ends the job, as under mpirun. srun's default
		// (a site's KillOnBadExit, usually 0) lets the others run on, and a PE that fails
		// before the start-up exchange leaves them waiting in PMIx_Fence for its timeout.
		argv = []string{"srun", "--mpi=pmix", "--kill-on-bad-exit=1"}
		if p.n > 0 {
			argv = append(argv, "-n", strconv.Itoa(p.n))
		}
		if p.hosts != nil {
			// The exact placement: one line per PE in SLURM_HOSTFILE. No --nodelist: srun
			// takes it for the step's layout, refusing more PEs than the hosts it names.
			env = append(env, "SLURM_HOSTFILE="+p.hostfile)
			argv = append(argv, "--distribution=arbitrary")
		} else if p.byNode {
			argv = append(argv, "--distribution=cyclic")
		}
		if p.launcherBinds() {
			bind := srunBind[p.bindTo]
			if p.reportBindings {
				bind = "verbose," + bind
			}
			argv = append(argv, "--cpu-bind="+bind)
		} else {
			argv = append(argv, "--cpu-bind=none")
		}
		if p.oversubscribe {
			argv = append(argv, "--overcommit")
		}
		if p.tagOutput {
			argv = append(argv, "--label")
		}
		// srun hands the whole environment to the tasks (--export=ALL): nothing to forward,
		// only the placement to add.
		env = append(env, place...)
		argv = append(argv, "--export=ALL")
		return env, append(append(argv, p.prog), p.args...)
	}
	if p.root {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	argv = []string{"mpirun"}
	if p.hosts != nil {
		hs := make([]string, len(p.hosts))
		for i, h := range p.hosts {
			hs[i] = h.name + ":" + strconv.Itoa(h.slots)
		}
		argv = append(argv, "--host", strings.Join(hs, ","))
	}
	argv = append(argv, "-np", strconv.Itoa(p.n))
	mapBy := "slot"
	if p.byNode {
		mapBy = "node"
	} else if p.launcherBinds() && p.mapBy != "" {
		mapBy = p.mapBy
	}
	argv = append(argv, "--map-by", mapBy)
	if p.launcherBinds() {
		argv = append(argv, "--bind-to", p.bindTo)
		if p.reportBindings {
			argv = append(argv, "--report-bindings")
		}
	} else {
		argv = append(argv, "--bind-to", "none")
	}
	if p.oversubscribe {
		argv = append(argv, "--oversubscribe")
	}
	if p.tagOutput {
		argv = append(argv, "--tag-output")
	}
	for _, kv := range p.forward {
		k, _, _ := strings.Cut(kv, "=")
		argv = append(argv, "-x", k)
	}
	for _, kv := range place {
		argv = append(argv, "-x", kv)
	}
	return env, append(append(argv, p.prog), p.args...)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+:,./@%^") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// commandLine is env and argv as one shell line.
func commandLine(env, argv []string) string {
	parts := make([]string, 0, len(env)+len(argv))
	for _, s := range append(append([]string(nil), env...), argv...) {
		parts = append(parts, shellQuote(s))
	}
	return strings.Join(parts, " ")
}

// peList is a sorted list of PEs, runs as a-b: "0-31", "0,2,4".
func peList(pes []int) string {
	var b strings.Builder
	for i := 0; i < len(pes); {
		j := i
		for j+1 < len(pes) && pes[j+1] == pes[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", pes[i], pes[j])
		} else {
			fmt.Fprintf(&b, "%d", pes[i])
		}
		i = j + 1
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// clusterDryRun is what --dry-run prints in the many-node mode: the command, and where
// each PE runs.
func clusterDryRun(p *clusterPlan, placement []int, build string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "launcher: %s\n", p.launcher)
	if build != "" {
		fmt.Fprintf(&b, "build: %s\n", build)
	}
	env, argv := p.command()
	fmt.Fprintf(&b, "command: %s\n", commandLine(env, argv))
	if p.hosts == nil {
		b.WriteString("placement: the launcher's (no --hosts)\n")
	} else {
		how := "by slot"
		if p.byNode {
			how = "by node"
		}
		fmt.Fprintf(&b, "placement of %d PEs on %d %s (%s):\n", len(placement), len(p.hosts), plural(len(p.hosts), "host"), how)
		for i, h := range p.hosts {
			var pes []int
			for pe, hi := range placement {
				if hi == i {
					pes = append(pes, pe)
				}
			}
			list := peList(pes)
			if list == "" {
				list = "none"
			}
			fmt.Fprintf(&b, "  %s (%d %s): %d PEs: %s\n", h.name, h.slots, plural(h.slots, "slot"), len(pes), list)
		}
		if p.launcher == "srun" {
			fmt.Fprintf(&b, "SLURM_HOSTFILE: one line per PE, the hosts above in PE order\n")
		}
	}
	if p.launcherBinds() {
		fmt.Fprintf(&b, "binding: by %s, --bind-to %s\n", p.launcher, p.bindTo)
	} else {
		fmt.Fprintf(&b, "binding: none by %s; goshmem places each node's PEs (%s)\n", p.launcher, strings.Join(p.goshmemPlacement(), " "))
	}
	b.WriteString(clusterModelLine(os.Getenv))
	return b.String()
}

// clusterModelLine says where auto's sources come from in a job across nodes.
func clusterModelLine(getenv func(string) string) string {
	if f := strings.TrimSpace(getenv("SHMEM_COLL_TUNING")); f != "" {
		return "cost model and tuning table: each node's leader reads its machine's model from its cache; the table " + f + " (SHMEM_COLL_TUNING)\n"
	}
	dir, err := topology.CacheDir(getenv)
	if err != nil {
		return "cost model and tuning table: the default model, no table (" + err.Error() + ")\n"
	}
	return "cost model and tuning table: each node's leader reads its machine's model and the table of the job's layout from " + dir +
		" (shmemrun --calibrate on a node of each kind, shmemrun --tune --hosts with these flags)\n"
}

// planCluster turns the flags into a plan and a placement; errors name the flag.
func planCluster(c *clusterFlags, o options, prog string, args []string, getenv func(string) string, environ []string, root bool) (*clusterPlan, []int, error) {
	l, err := chooseLauncher(c.launcher, getenv)
	if err != nil {
		return nil, nil, err
	}
	if o.topoDir != "" {
		return nil, nil, fmt.Errorf("--topology describes one machine: not with --hosts or --launcher")
	}
	p := &clusterPlan{launcher: l, n: o.n, bindTo: o.bindTo, cpuList: o.cpuList, oversubscribe: o.oversubscribe,
		tagOutput: o.tagOutput, reportBindings: o.reportBindings, timeoutReport: o.timeout > 0, root: root, prog: prog, args: args}
	switch o.mapBy {
	case "node":
		p.byNode = true
	case "", "slot":
	default:
		if _, err := topology.ParseMapBy(o.mapBy); err != nil {
			return nil, nil, fmt.Errorf("%v, or slot or node across hosts", err)
		}
		p.mapBy = o.mapBy
	}
	if o.bindTo != "" {
		if _, err := topology.ParseBindTo(o.bindTo); err != nil {
			return nil, nil, err
		}
	}
	if o.cpuList != "" {
		if _, err := topology.ParseCPUList(o.cpuList); err != nil {
			return nil, nil, fmt.Errorf("--cpu-list %s: %v", o.cpuList, err)
		}
	}
	if l == "mpirun" {
		p.forward = forwardedEnv(environ)
	}
	var placement []int
	if c.hosts != "" && c.hostfile != "" {
		return nil, nil, fmt.Errorf("--hosts and --hostfile: give one")
	}
	if c.hostfile != "" {
		text, err := os.ReadFile(c.hostfile)
		if err != nil {
			return nil, nil, fmt.Errorf("--hostfile: %v", err)
		}
		if p.hosts, err = parseHostfile(c.hostfile, string(text)); err != nil {
			return nil, nil, err
		}
	} else if c.hosts != "" {
		if p.hosts, err = parseHosts(c.hosts); err != nil {
			return nil, nil, err
		}
	}
	if p.hosts != nil {
		if p.n == 0 {
			for _, h := range p.hosts {
				p.n += h.slots
			}
		}
		if placement, err = placeOnHosts(p.hosts, p.n, p.byNode, o.oversubscribe); err != nil {
			return nil, nil, err
		}
		if l == "srun" {
			p.hostfile = filepath.Join(os.TempDir(), "shmemrun-hosts-"+strconv.Itoa(os.Getpid()))
		}
	} else if p.n < 1 && l == "mpirun" {
		return nil, nil, fmt.Errorf("-n %d: need at least 1 PE (or --hosts to count the slots)", p.n)
	}
	return p, placement, nil
}

// runCluster is shmemrun's many-node mode.
func runCluster(c *clusterFlags, o options, rest []string, stdout, stderr io.Writer) int {
	if len(rest) == 0 && !o.dryRun {
		fmt.Fprintln(stderr, "shmemrun: no program to run")
		return launch.StatusUsage
	}
	prog, args := "PROGRAM", []string(nil)
	if len(rest) > 0 {
		prog, args = rest[0], rest[1:]
	}
	isPkg := false
	if st, err := os.Stat(prog); err == nil && st.IsDir() {
		isPkg = true
	}
	pkg := prog
	if isPkg {
		// Built into the working directory, which on a cluster is usually shared by every
		// node (unlike /tmp); removed after the job.
		prog = filepath.Join(".shmemrun-build-*", filepath.Base(filepath.Clean(pkg)))
	}
	p, placement, err := planCluster(c, o, prog, args, os.Getenv, os.Environ(), os.Geteuid() == 0)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		return launch.StatusUsage
	}
	if o.dryRun {
		build := ""
		if isPkg {
			build = "go build -tags goshmem_ucx -o " + prog + " " + pkg + "  (a new directory here, removed after the job)"
		}
		fmt.Fprint(stdout, clusterDryRun(p, placement, build))
		return 0
	}
	if isPkg {
		bin, cleanup, err := buildUCX(pkg, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "shmemrun: %v\n", err)
			return launch.StatusUsage
		}
		defer cleanup()
		p.prog = bin
	} else if strings.ContainsRune(prog, '/') {
		if p.prog, err = filepath.Abs(prog); err != nil {
			fmt.Fprintf(stderr, "shmemrun: %v\n", err)
			return launch.StatusUsage
		}
		if err := checkUCXBuild(p.prog); err != nil {
			fmt.Fprintf(stderr, "shmemrun: %v\n", err)
			return launch.StatusUsage
		}
	}
	if p.hostfile != "" {
		var lines strings.Builder
		for _, hi := range placement {
			lines.WriteString(p.hosts[hi].name + "\n")
		}
		if err := os.WriteFile(p.hostfile, []byte(lines.String()), 0o644); err != nil {
			fmt.Fprintf(stderr, "shmemrun: SLURM_HOSTFILE: %v\n", err)
			return launch.StatusUsage
		}
		defer os.Remove(p.hostfile)
	}
	env, argv := p.command()
	return runLauncher(env, argv, o.timeout, p.timeoutReport, stdout, stderr)
}

// checkUCXBuild refuses a goshmem Go program built without the many-node engine: started
// by a PMIx launcher it could only stop with "rebuild with -tags goshmem_ucx". Programs
// that are not Go (C with libgoshmem) are not checked.
func checkUCXBuild(path string) error {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil
	}
	uses := bi.Main.Path == "github.com/goshmem/shmem"
	for _, d := range bi.Deps {
		uses = uses || d.Path == "github.com/goshmem/shmem"
	}
	if !uses {
		return nil
	}
	for _, s := range bi.Settings {
		if s.Key == "-tags" && strings.Contains(","+s.Value+",", ",goshmem_ucx,") {
			return nil
		}
	}
	return fmt.Errorf("%s: built without -tags goshmem_ucx, it cannot run across nodes (go build -tags goshmem_ucx)", path)
}

// buildUCX builds the Go package in dir with the many-node engine into .shmemrun-build-*
// of the working directory.
func buildUCX(dir string, stderr io.Writer) (string, func(), error) {
	tmp, err := os.MkdirTemp(".", ".shmemrun-build-")
	if err != nil {
		return "", func() {}, fmt.Errorf("building %s: %v", dir, err)
	}
	tmp, _ = filepath.Abs(tmp)
	cleanup := func() { os.RemoveAll(tmp) }
	pkg := dir
	if !filepath.IsAbs(pkg) && !strings.HasPrefix(pkg, ".") {
		pkg = "./" + pkg
	}
	out := filepath.Join(tmp, filepath.Base(filepath.Clean(dir)))
	cmd := exec.Command("go", "build", "-tags", "goshmem_ucx", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", func() {}, fmt.Errorf("building %s with -tags goshmem_ucx: %v", dir, err)
	}
	return out, cleanup, nil
}

// reportWait is how long the PEs' timeout reports get before the job ends.
const reportWait = time.Second

// runLauncher runs the launcher, relaying SIGINT, SIGTERM and SIGHUP to it and its output
// to stdout and stderr, and returns its status: 128+signal when it was killed or
// shmemrun relayed the signal; 124 after the timeout, when it gets SIGTERM and, 5 s later,
// SIGKILL; 141 when stdout or stderr broke, when it gets the same. With report, the timeout
// first sends SIGUSR2, which mpirun and srun pass to every PE: the PEs
// (GOSHMEM_TIMEOUT_REPORT) say what they are doing, and reportWait later the job is ended.
func runLauncher(env, argv []string, timeout time.Duration, report bool, stdout, stderr io.Writer) int {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %s not found in PATH\n", argv[0])
		return launch.StatusUsage
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = os.Stdin
	// If shmemrun dies (SIGKILL), the launcher ends the job (mpirun and srun end it on every
	// node on SIGTERM) instead of running it on with no one reading its output.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// A broken stdout or stderr is a write error to handle (below), not SIGPIPE.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	outR, errR, err := launch.StartPiped(cmd)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: %v\n", err)
		return launch.StatusUsage
	}
	done := make(chan struct{})
	// endJob asks the launcher to end the job, and makes sure 5 s later.
	var ending sync.Once
	endJob := func() {
		ending.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			go func() {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					cmd.Process.Kill()
				}
			}()
		})
	}
	// The launcher's output passes through shmemrun: Open MPI 4.1's mpirun, finding its
	// stdout a broken pipe (`shmemrun --hosts ... | head`), aborts on SIGPIPE and then crashes
	// in PMIx_Finalize. shmemrun instead ends the job as a one-node job's reader sees it end:
	// at a failed write both streams discard (the PEs' messages about peers lost as the job
	// ends would mislead), the launcher is asked to end the job, and its output is still read
	// so it never meets the broken pipe itself; the status is SIGPIPE's, 141.
	var out, errOut *launch.Output
	broke := func() {
		out.Discard()
		errOut.Discard()
		endJob()
	}
	out, errOut = launch.NewOutput(stdout, broke), launch.NewOutput(stderr, broke)
	stderr = errOut // shmemrun's own messages go between the launcher's lines
	streams := []*launch.Stream{out.Relay(outR), errOut.Relay(errR)}
	go func() {
		cmd.Wait()
		for _, s := range streams {
			s.Drain()
		}
		close(done)
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		expired = time.After(timeout)
	}
	timedOut := false
	var signalled syscall.Signal // the first signal shmemrun relayed: the job's status is 128+it
	for {
		select {
		case sig := <-sigs:
			if s := sig.(syscall.Signal); signalled == 0 {
				signalled = s
				fmt.Fprintf(stderr, "shmemrun: %s: ending the job\n", unix.SignalName(s))
			}
			cmd.Process.Signal(sig) // a second SIGINT too: mpirun then ends the job at once
			continue
		case <-expired:
			timedOut = true
			expired = nil
			if report {
				fmt.Fprintf(stderr, "shmemrun: --timeout %v expired: the PEs say what they are doing (a PE unnamed below had not reached shmem_init, or was stopped with its node's other PEs), then the job ends\n", timeout)
				cmd.Process.Signal(syscall.SIGUSR2)
				select {
				case <-done:
				case <-time.After(reportWait):
				}
			} else {
				fmt.Fprintf(stderr, "shmemrun: --timeout %v expired: ending the job\n", timeout)
			}
			endJob()
			continue
		case <-done:
		}
		break
	}
	switch {
	case out.Broken() || errOut.Broken():
		return 128 + int(syscall.SIGPIPE) // as the one-node launcher, killed by it
	case signalled != 0:
		return 128 + int(signalled)
	case timedOut:
		return launch.StatusTimeout
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}
