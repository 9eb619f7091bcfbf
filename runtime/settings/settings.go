// Package settings is the one table of goshmem's environment variables: it drives their
// parsing, `shmemrun --help-env` and the README's table.
package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Kind is how a variable's value is written.
type Kind int

const (
	Bool Kind = iota // 1/0, true/false, yes/no, on/off
	Size             // bytes, with an optional K, M, G or T suffix (powers of 1024)
	Int              // a positive decimal integer
	Enum             // one of Values
	Text             // free text, checked where it is used
)

func (k Kind) String() string { return [...]string{"bool", "size", "int", "enum", "text"}[k] }

// Var is one environment variable.
type Var struct {
	Name    string
	Kind    Kind
	Default string
	Values  []string // Enum only
	Desc    string
}

// Table lists every variable: the specification's first, then the algorithm overrides in
// Sandia OpenSHMEM's spelling, then goshmem's own.
var Table = []Var{
	{Name: "SHMEM_SYMMETRIC_SIZE", Kind: Size, Default: "256M", Desc: "symmetric heap bytes per PE (K/M/G/T suffixes), rounded up to a multiple of 2 MiB (SHMEM_INFO shows the size used); the heap is a memfd, so untouched pages cost nothing"},
	{Name: "SHMEM_DEBUG", Kind: Bool, Default: "0", Desc: "cross-PE argument checks in collectives and allocation, and hang reports from long waits"},
	{Name: "SHMEM_DEBUG_TIMEOUT", Kind: Int, Default: "10", Desc: "with SHMEM_DEBUG: seconds a wait may last before it ends the job, reporting what every PE is doing (0: no limit)"},
	{Name: "SHMEM_INFO", Kind: Bool, Default: "0", Desc: "PE 0 prints the settings, the topology and the algorithm choices at Init"},
	{Name: "SHMEM_VERSION", Kind: Bool, Default: "0", Desc: "PE 0 prints the library and specification version at Init"},
	{Name: "SHMEM_BARRIER_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "linear", "tree", "dissem"}, Desc: "barrier and sync algorithm"},
	{Name: "SHMEM_BCAST_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "linear", "tree"}, Desc: "broadcast algorithm"},
	{Name: "SHMEM_REDUCE_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "linear", "tree", "ring", "direct"}, Desc: "reduction algorithm"},
	{Name: "SHMEM_ALLTOALL_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "direct", "pairwise"}, Desc: "alltoall and alltoalls algorithm"},
	{Name: "SHMEM_FCOLLECT_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "linear", "ring"}, Desc: "collect and fcollect algorithm"},
	{Name: "SHMEM_COLL_CROSSOVER", Kind: Int, Default: "0", Desc: "PE count from which auto prefers log-depth algorithms to linear ones (0: from the cost model)"},
	{Name: "SHMEM_COLL_SIZE_CROSSOVER", Kind: Size, Default: "0", Desc: "message bytes from which auto prefers ring to tree (0: from the cost model)"},
	{Name: "SHMEM_COLL_RADIX", Kind: Int, Default: "4", Desc: "fan-out of tree algorithms"},
	{Name: "SHMEM_COLL_TUNING", Kind: Text, Default: "", Desc: "a tuning table (written by `shmemrun --tune`) that auto consults before the cost model; default: the cached table of this machine and PE layout, if any"},
	{Name: "GOSHMEM_CACHE", Kind: Text, Default: "", Desc: "the directory of each machine's calibrated cost model and its tuning tables, read by shmemrun and, in jobs across nodes, by each node's leader (default: goshmem in the user's cache directory, e.g. ~/.cache/goshmem; none: no cache, the default model)"},
	{Name: "GOSHMEM_BIND_TO", Kind: Enum, Default: "none", Values: []string{"none", "auto", "hwthread", "core", "l3cache", "numa", "socket"}, Desc: "jobs started by a PMIx launcher (mpirun, srun; shmemrun --hosts sets it to auto): goshmem pins each node's PEs as shmemrun's --bind-to does (none: the launcher's binding stands)"},
	{Name: "GOSHMEM_MAP_BY", Kind: Text, Default: "", Desc: "with GOSHMEM_BIND_TO: shmemrun's --map-by for each node's PEs"},
	{Name: "GOSHMEM_CPU_LIST", Kind: Text, Default: "", Desc: "with GOSHMEM_BIND_TO: shmemrun's --cpu-list for each node's PEs"},
	{Name: "GOSHMEM_REPORT_BINDINGS", Kind: Bool, Default: "0", Desc: "with GOSHMEM_BIND_TO: each PE prints its binding on stderr"},
	{Name: "GOSHMEM_TIMEOUT_REPORT", Kind: Bool, Default: "0", Desc: "jobs started by a PMIx launcher (set by `shmemrun --hosts --timeout`): on SIGUSR2 each node's first PE still running prints what its node's PEs are doing, and connections lost as the job then ends are not reported as failed PEs"},
	{Name: "GOSHMEM_INIT_TIMEOUT", Kind: Int, Default: "0", Desc: "jobs started by a PMIx launcher: seconds shmem_init may wait for every PE of the job to reach it; then the waiting PEs end the job, saying why (0: as long as the launcher lets it; a PE that ended before shmem_init keeps the others waiting until the launcher's timeout, which srun without --kill-on-bad-exit makes minutes; PE 0 says so after 30 s)"},
	{Name: "GOSHMEM_NET_EAGER", Kind: Size, Default: "64K", Desc: "across nodes: the most data a collective's network phase sends in one message with its signal; more is put, fenced and signalled (over TCP a message costs what a put does; on an RDMA network a smaller value keeps more transfers zero-copy)"},
	{Name: "GOSHMEM_NET_BCAST_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "tree", "ring"}, Desc: "across nodes: the broadcasts' network phase among the node leaders (SHMEM_BCAST_ALGORITHM steers the node phases): tree; ring, a scatter, then the chunks round a ring of the leaders, which needs GOSHMEM_NET_EAGER above 0 (else auto); auto prices them with PE 0's network model"},
	{Name: "GOSHMEM_NET_COLLECT_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "direct", "bruck"}, Desc: "across nodes: the network phase of fcollect, collect and a team split's exchange among the node leaders (SHMEM_FCOLLECT_ALGORITHM steers the node phases): direct, each leader sending its node's blocks to each other leader; bruck, ceil(log2 leaders) rounds of one message each, when the whole result fits a message of GOSHMEM_NET_EAGER (else direct); auto prices them with PE 0's network model"},
	{Name: "GOSHMEM_NET_REDUCE_ALGORITHM", Kind: Enum, Default: "auto", Values: []string{"auto", "tree", "rd", "ring"}, Desc: "across nodes: the reductions' network phase among the node leaders (SHMEM_REDUCE_ALGORITHM steers the node phases): tree, recursive doubling (rd: a power of two of leaders) or ring (GOSHMEM_NET_EAGER above 0); a forced one that cannot run leaves the choice to auto, which prices them with PE 0's network model"},
	{Name: "GOSHMEM_NET_PROGRESS", Kind: Enum, Default: "auto", Values: []string{"auto", "wakeup", "poll", "calls"}, Desc: "across nodes: who serves other nodes' requests to a PE while it computes outside the library (over TCP a get, an AMO or a strided put needs its target's CPU): wakeup, a goroutine asleep on the UCX worker's wake-up descriptor (answers at once; the descriptor costs every message 0.1-0.3 us of kernel work); poll, a goroutine polling the worker every millisecond (a request to a computing PE waits up to 1 ms); calls, only the PE's own library calls, as Open MPI's OSHMEM over TCP (a PE computing for a second delays its peers' gets from it by a second; needs waits that spin); auto: wakeup where the node's PEs share CPUs (waits sleep), poll otherwise"},
	{Name: "GOSHMEM_FIRST_POLL", Kind: Enum, Default: "auto", Values: []string{"auto", "pause", "load"}, Desc: "the 2-PE barrier's wait for the other PE: pause before its first poll, or load at once; auto: the calibrated model's FirstPoll, measured per machine (pausing first was faster on a Zen 2 VM, loading first on an Intel Xeon VM)"},
	{Name: "GOSHMEM_WAIT", Kind: Enum, Default: "auto", Values: []string{"auto", "spin", "sleep"}, Desc: "wait policy: spin with PAUSE (PE owns its CPU), or yield then sleep on a futex (CPUs shared); auto picks from the placement"},
}

// Values holds parsed settings by name.
type Values struct {
	raw map[string]string
}

// Parse reads every variable through lookup (os.LookupEnv in programs). A malformed value
// is an error naming the variable and, for an enumeration, listing the valid values.
func Parse(lookup func(string) (string, bool)) (Values, error) {
	v := Values{raw: make(map[string]string, len(Table))}
	for _, s := range Table {
		val, ok := lookup(s.Name)
		val = strings.TrimSpace(val)
		if !ok || val == "" {
			val = s.Default
		}
		if err := s.check(val); err != nil {
			return Values{}, err
		}
		v.raw[s.Name] = val
	}
	return v, nil
}

func (s Var) check(val string) error {
	switch s.Kind {
	case Bool:
		if _, err := ParseBool(val); err != nil {
			return fmt.Errorf("%s=%q: %v", s.Name, val, err)
		}
	case Size:
		if _, err := ParseSize(val); err != nil {
			return fmt.Errorf("%s=%q: %v", s.Name, val, err)
		}
	case Int:
		if n, err := strconv.Atoi(val); err != nil || n < 0 {
			return fmt.Errorf("%s=%q: want a non-negative integer", s.Name, val)
		}
	case Enum:
		for _, ok := range s.Values {
			if strings.EqualFold(val, ok) {
				return nil
			}
		}
		return fmt.Errorf("%s=%q: unknown value; valid values are %s", s.Name, val, strings.Join(s.Values, ", "))
	}
	return nil
}

func lookup(name string) Var {
	for _, s := range Table {
		if s.Name == name {
			return s
		}
	}
	panic("settings: no variable " + name)
}

// String is the raw value of a variable (its default when unset).
func (v Values) String(name string) string {
	lookup(name)
	if r, ok := v.raw[name]; ok {
		return strings.ToLower(r)
	}
	return strings.ToLower(lookup(name).Default)
}

// Text is a variable's value as given (String lowers it): a Text variable's, such as a path.
func (v Values) Text(name string) string {
	if r, ok := v.raw[name]; ok {
		return r
	}
	return lookup(name).Default
}

// Bool is a Bool variable's value.
func (v Values) Bool(name string) bool { b, _ := ParseBool(v.String(name)); return b }

// Size is a Size variable's value in bytes.
func (v Values) Size(name string) uint64 { n, _ := ParseSize(v.String(name)); return n }

// Int is an Int variable's value.
func (v Values) Int(name string) int { n, _ := strconv.Atoi(v.String(name)); return n }

// Seconds is an Int variable that counts seconds, as a duration: at most about 292 years
// (a larger count would overflow time.Duration's nanoseconds; it means no limit anyway).
func (v Values) Seconds(name string) time.Duration {
	return time.Duration(min(int64(v.Int(name)), math.MaxInt64/int64(time.Second))) * time.Second
}

// ParseBool accepts 1/0, true/false, yes/no, on/off in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on", "y":
		return true, nil
	case "0", "false", "no", "off", "n", "":
		return false, nil
	}
	return false, fmt.Errorf("want 1 or 0 (true/false, yes/no, on/off)")
}

// ParseSize reads a byte count with an optional K, M, G or T suffix (powers of 1024; a
// trailing B or iB is accepted too: 512M, 1GiB, 64KB).
func ParseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift != 0 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || t == "" {
		return 0, fmt.Errorf("want a byte count such as 268435456, 256M or 1G")
	}
	if n > (1<<63)>>shift {
		return 0, fmt.Errorf("size overflows")
	}
	return n << shift, nil
}

// Help is the text of `shmemrun --help-env`.
func Help() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "VARIABLE\tKIND\tDEFAULT\tDESCRIPTION")
	for _, s := range Table {
		desc := s.Desc
		if s.Kind == Enum {
			desc += " (" + strings.Join(s.Values, "|") + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Name, s.Kind, s.Default, desc)
	}
	w.Flush()
	return b.String()
}

// Markdown is the README's table of the variables.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| variable | kind | default | description |\n|---|---|---|---|\n")
	for _, s := range Table {
		desc := s.Desc
		if s.Kind == Enum {
			desc += " (`" + strings.Join(s.Values, "`, `") + "`)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", s.Name, s.Kind, s.Default, desc)
	}
	return b.String()
}
