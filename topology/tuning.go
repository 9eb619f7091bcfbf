package topology

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A tuning table is what `shmemrun --tune` measured on one machine and one PE layout:
// for each collective and range of message sizes, the algorithm that was fastest. Auto
// consults it before the cost model. It is text, like Open MPI's tuned rules files but
// written by the measurement:
//
//	# goshmem collective tuning table (shmemrun --tune) ...
//	machine AMD EPYC | 1 socket, 1 L3 domain, 2 cores, 2 CPUs | linux 6.1.0
//	layout nodes=1 pes-per-node=2 placement=s0l0c0,s0l0c1
//	barrier  any       linear
//	bcast    8-64K     linear
//	bcast    128K-1M   tree
//	# bcast 8: linear 0.41us tree 0.52us
//
// A rule's sizes are bytes per PE as auto sees them (bcast: the message; reduce: each
// PE's vector; fcollect: each PE's block; alltoall: each block), inclusive, with K, M and
// G for 1024, 1024² and 1024³. Sizes outside every rule of a collective fall back to the
// cost model. Lines starting with # are comments.

// Layout is the PE layout a table was measured on: the job's shape.
type Layout struct {
	Nodes, PEsPerNode int
	Placement         string // PlacementSignature of one node's PEs
}

func (l Layout) String() string {
	return fmt.Sprintf("nodes=%d pes-per-node=%d placement=%s", l.Nodes, l.PEsPerNode, l.Placement)
}

// LayoutOf is the layout of a job over nodes nodes whose PEs on one node have the
// placement-map entries places.
func LayoutOf(places []PEPlace, nodes int) Layout {
	return Layout{Nodes: nodes, PEsPerNode: len(places), Placement: PlacementSignature(places)}
}

// PlacementSignature names a placement by its shape: each PE's socket, L3 domain and core,
// renumbered in order of first use, so that the same shape on other CPUs has the same
// name ("s0l0c0,s0l0c1": two PEs on two cores of one L3 domain). "u" is an unbound PE,
// "x" a level its CPUs span. Two PEs on one core (hardware threads) share a c number.
// Jobs of more than 64 PEs are named by a hash of the same text, to keep lines short.
func PlacementSignature(places []PEPlace) string {
	maps := [3]map[int32]int{{}, {}, {}}
	id := func(level int, v int32) string {
		if v < 0 {
			return "x"
		}
		n, ok := maps[level][v]
		if !ok {
			n = len(maps[level])
			maps[level][v] = n
		}
		return strconv.Itoa(n)
	}
	parts := make([]string, len(places))
	for i, p := range places {
		if p.CPU < 0 {
			parts[i] = "u"
			continue
		}
		// L3 and core numbers are machine-wide, so they need no socket prefix.
		parts[i] = "s" + id(0, p.Socket) + "l" + id(1, p.L3) + "c" + id(2, p.Core)
	}
	sig := strings.Join(parts, ",")
	if len(places) > 64 {
		sig = "hash-" + KeyHash(sig)
	}
	return sig
}

// Rule says which algorithm coll uses for sizes Lo..Hi (inclusive).
type Rule struct {
	Coll   Collective
	Lo, Hi int64
	Alg    Algorithm
}

// Table is a parsed tuning table.
type Table struct {
	Machine string
	Layout  Layout
	Net     NetLevel // measured between nodes (a table of more than one node), else zero
	Rules   []Rule
	Notes   []string // comment lines after the rules: the measurements
}

// NetLevel is the network level of the cost model as --tune measured it across nodes:
// LatNet (an 8-byte put and its quiet, PE 0 to a PE of another node) and BWNet (1 MiB
// puts). A table line "network latency=30.1us bandwidth=950MB/s".
type NetLevel struct {
	Lat time.Duration
	BW  int64 // MB/s
}

// anySize is a barrier rule's range: every size.
const anySize = math.MaxInt64

// Lookup is the table's algorithm for coll at nbytes, if a rule covers it.
func (t *Table) Lookup(coll Collective, nbytes int64) (Algorithm, bool) {
	if t == nil {
		return "", false
	}
	for _, r := range t.Rules {
		if r.Coll == coll && (r.Lo <= nbytes && nbytes <= r.Hi || r.Hi == anySize) {
			return r.Alg, true
		}
	}
	return "", false
}

// FormatSize writes a size as a table does: 8, 512, 1K, 64K, 1M.
func FormatSize(n int64) string {
	for _, u := range []struct {
		shift uint
		s     string
	}{{30, "G"}, {20, "M"}, {10, "K"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseTableSize reads a table's size: digits with an optional K, M or G.
func ParseTableSize(s string) (int64, error) {
	shift := 0
	switch {
	case strings.HasSuffix(s, "K"):
		shift = 10
	case strings.HasSuffix(s, "M"):
		shift = 20
	case strings.HasSuffix(s, "G"):
		shift = 30
	}
	digits := s
	if shift > 0 {
		digits = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || digits == "" || digits[0] == '+' || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("bad size %q (want bytes, e.g. 8, 64K, 1M)", s)
	}
	return n << shift, nil
}

// FormatTable writes t as a tuning table.
func FormatTable(t *Table) []byte {
	var b strings.Builder
	b.WriteString("# goshmem collective tuning table, measured by shmemrun --tune on the machine and PE layout\n")
	b.WriteString("# below: collective, message bytes per PE (inclusive range; K, M = 1024, 1024²), algorithm.\n")
	b.WriteString("# Auto uses it for collectives over all the job's PEs; other sizes and groups use the cost\n")
	b.WriteString("# model. Edit freely; SHMEM_COLL_TUNING=FILE names a table explicitly.\n")
	fmt.Fprintf(&b, "machine %s\n", t.Machine)
	fmt.Fprintf(&b, "layout %s\n", t.Layout)
	if t.Net.BW > 0 {
		fmt.Fprintf(&b, "network latency=%.1fus bandwidth=%dMB/s\n", float64(t.Net.Lat)/float64(time.Microsecond), t.Net.BW)
	}
	for _, r := range t.Rules {
		span := "any"
		if r.Hi != anySize {
			span = FormatSize(r.Lo) + "-" + FormatSize(r.Hi)
			if r.Lo == r.Hi {
				span = FormatSize(r.Lo)
			}
		}
		fmt.Fprintf(&b, "%-9s %-9s %s\n", r.Coll, span, r.Alg)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	return []byte(b.String())
}

// ParseTable reads a tuning table; name (its path) and the line prefix every error:
// "FILE:7: bcast 8-64K: unknown algorithm "ring" (want linear, tree)".
func ParseTable(name string, data []byte) (*Table, error) {
	t := &Table{}
	haveMachine, haveLayout := false, false
	for i, line := range strings.Split(string(data), "\n") {
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if line[0] == '#' {
			if haveLayout && len(t.Rules) > 0 {
				t.Notes = append(t.Notes, strings.TrimSpace(line[1:]))
			}
			continue
		}
		f := strings.Fields(line)
		switch f[0] {
		case "machine":
			if haveMachine {
				return nil, errf("second machine line")
			}
			haveMachine = true
			t.Machine = strings.TrimSpace(strings.TrimPrefix(line, "machine"))
			continue
		case "layout":
			if haveLayout {
				return nil, errf("second layout line")
			}
			haveLayout = true
			l, err := parseLayout(f[1:])
			if err != nil {
				return nil, errf("layout: %v", err)
			}
			t.Layout = l
			continue
		case "network":
			if !haveLayout || t.Net.BW > 0 || len(t.Rules) > 0 {
				return nil, errf("the network line comes once, after the layout line and before the rules")
			}
			n, err := parseNetLevel(f[1:])
			if err != nil {
				return nil, errf("network: %v", err)
			}
			t.Net = n
			continue
		}
		if !haveMachine || !haveLayout {
			return nil, errf("rule %q before the machine and layout lines", line)
		}
		if len(f) != 3 {
			return nil, errf("%q: want collective, size range, algorithm", line)
		}
		c, ok := parseCollective(f[0])
		if !ok {
			return nil, errf("unknown collective %q (want %s)", f[0], strings.Join(collNames[:], ", "))
		}
		r := Rule{Coll: c}
		if f[1] == "any" {
			r.Lo, r.Hi = 0, anySize
		} else {
			lo, hi, cut := strings.Cut(f[1], "-")
			if !cut {
				hi = lo
			}
			var err error
			if r.Lo, err = ParseTableSize(lo); err == nil {
				r.Hi, err = ParseTableSize(hi)
			}
			if err != nil {
				return nil, errf("%s %s: %v", f[0], f[1], err)
			}
			if r.Lo > r.Hi {
				return nil, errf("%s %s: empty range", f[0], f[1])
			}
		}
		a, err := ParseAlgorithm(c, f[2])
		if err != nil {
			return nil, errf("%s %s: %v", f[0], f[1], err)
		}
		r.Alg = a
		for _, o := range t.Rules {
			if o.Coll == c && o.Lo <= r.Hi && r.Lo <= o.Hi {
				return nil, errf("%s %s overlaps an earlier %s rule", f[0], f[1], f[0])
			}
		}
		t.Rules = append(t.Rules, r)
	}
	if !haveMachine {
		return nil, fmt.Errorf("%s: no machine line: not a tuning table", name)
	}
	if !haveLayout {
		return nil, fmt.Errorf("%s: no layout line: not a tuning table", name)
	}
	return t, nil
}

func parseCollective(s string) (Collective, bool) {
	for i, n := range collNames {
		if n == s {
			return Collective(i), true
		}
	}
	return 0, false
}

func parseLayout(fields []string) (Layout, error) {
	var l Layout
	seen := map[string]bool{}
	for _, kv := range fields {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || seen[k] {
			return l, fmt.Errorf("%q: want nodes=N pes-per-node=N placement=SIGNATURE", kv)
		}
		seen[k] = true
		switch k {
		case "nodes", "pes-per-node":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return l, fmt.Errorf("%s=%q: want a positive count", k, v)
			}
			if k == "nodes" {
				l.Nodes = n
			} else {
				l.PEsPerNode = n
			}
		case "placement":
			l.Placement = v
		default:
			return l, fmt.Errorf("unknown field %q (want nodes, pes-per-node, placement)", k)
		}
	}
	if l.Nodes == 0 || l.PEsPerNode == 0 || l.Placement == "" {
		return l, fmt.Errorf("want nodes=N pes-per-node=N placement=SIGNATURE")
	}
	return l, nil
}

func parseNetLevel(fields []string) (NetLevel, error) {
	var n NetLevel
	for _, kv := range fields {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "latency" && strings.HasSuffix(v, "us") && n.Lat == 0:
			us, err := strconv.ParseFloat(strings.TrimSuffix(v, "us"), 64)
			if err != nil || !(us > 0 && us < 1e9) {
				return n, fmt.Errorf("latency=%q: want microseconds, e.g. 30.1us", v)
			}
			n.Lat = time.Duration(us * float64(time.Microsecond))
		case k == "bandwidth" && strings.HasSuffix(v, "MB/s") && n.BW == 0:
			bw, err := strconv.ParseInt(strings.TrimSuffix(v, "MB/s"), 10, 64)
			if err != nil || bw < 1 || bw > 1<<40 {
				return n, fmt.Errorf("bandwidth=%q: want MB/s, e.g. 950MB/s", v)
			}
			n.BW = bw
		default:
			return n, fmt.Errorf("%q: want latency=MICROSECONDSus bandwidth=NMB/s", kv)
		}
	}
	if n.Lat == 0 || n.BW == 0 {
		return n, fmt.Errorf("want latency=MICROSECONDSus bandwidth=NMB/s")
	}
	return n, nil
}

// TableFileName is the name of the table of machine and layout in the cache directory.
func TableFileName(machine string, l Layout) string {
	return fmt.Sprintf("tune-%s-%dx%d-%s.txt", KeyHash(machine)[:8], l.Nodes, l.PEsPerNode, KeyHash(l.Placement)[:8])
}

// Timing is one measurement of --tune: the time of one call of coll with alg at Size bytes
// per PE, each PE's median averaged over the PEs.
type Timing struct {
	Coll Collective
	Size int64
	Alg  Algorithm
	US   float64
}

// tieMargin: an algorithm later in Algorithms (more elaborate) replaces an earlier one
// only when faster by more than this fraction: closer than that, the measurement cannot
// tell them apart (--tune's jobs differ by more than this from one to the next on a VM
// whose CPUs move between L3 domains), and the simpler one is the safer guess.
const tieMargin = 0.10

// smoothMargin: how much slower than the best a neighbours' algorithm may be at a size to
// take it over (see TableFromTimings); the bar for auto is 1.15x of the best.
// smoothModelMargin replaces it where the model chose the neighbours' algorithm too: three
// witnesses against one timing. A Zen 5 VM's --tune put a 2-PE reduction of 256 B on
// direct alone (0.571 against linear's 0.661 µs, 1.16x), between linear sizes and against
// the model; the next runs timed direct there at 0.86 and linear at 0.48.
const (
	smoothMargin      = 1.10
	smoothModelMargin = 1.25
)

// TableFromTimings is the table the timings say: per collective and size, the fastest
// algorithm; consecutive sizes with one winner become one rule. Every algorithm timed
// at a size competes; a collective's rules cover the sizes timed and every smaller one.
//
// prefer (nil: none) is the cost model's choice at a size. Where it is within tieMargin
// of the fastest, it wins: the timings cannot tell the two apart, and the model knows the
// algorithms' structure (at 2 PEs, direct reduces both halves at once where linear
// copies the result after), which holds in every placement mode of a VM while one --tune
// sees one. On a Zen 5 VM a table tuned in one mode kept linear for 2-PE reductions of
// 64 KiB and 1 MiB by ties (1.82 against 1.81 µs, 39.8 against 36.7); in the next
// session's mode direct was 1.17 and 1.29x faster there. Otherwise the simpler algorithm
// keeps a tie.
func TableFromTimings(machine string, l Layout, ts []Timing, prefer func(Collective, int64) Algorithm) *Table {
	t := &Table{Machine: machine, Layout: l}
	for _, c := range Collectives {
		bySize := map[int64]map[Algorithm]float64{}
		for _, x := range ts {
			if x.Coll != c {
				continue
			}
			if bySize[x.Size] == nil {
				bySize[x.Size] = map[Algorithm]float64{}
			}
			bySize[x.Size][x.Alg] = x.US
		}
		if len(bySize) == 0 {
			continue
		}
		sizes := make([]int64, 0, len(bySize))
		for s := range bySize {
			sizes = append(sizes, s)
		}
		slices.Sort(sizes)
		// The winner per size, then smoothed: a size whose winner differs from both
		// neighbours', which agree, takes theirs when it is within smoothMargin (or
		// smoothModelMargin) of the best there (one noisy sample should not split a range
		// in three).
		wins := make([]Algorithm, len(sizes))
		for i, s := range sizes {
			var note []string
			bestUS := 0.0
			for _, a := range Algorithms(c) {
				us, ok := bySize[s][a]
				if !ok {
					continue
				}
				note = append(note, fmt.Sprintf("%s %.3gus", a, us))
				if wins[i] == "" || us < bestUS*(1-tieMargin) {
					wins[i], bestUS = a, us
				}
			}
			best := bySize[s][wins[i]]
			for _, us := range bySize[s] {
				best = min(best, us)
			}
			if prefer != nil {
				p := prefer(c, s)
				if us, ok := bySize[s][p]; ok && us <= best*(1+tieMargin) {
					wins[i] = p
				}
				note = append(note, "(model: "+string(p)+")")
			}
			if c == Barrier {
				t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", c, strings.Join(note, " ")))
			} else {
				t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s", c, FormatSize(s), strings.Join(note, " ")))
			}
		}
		if c == Barrier {
			t.Rules = append(t.Rules, Rule{Coll: c, Lo: 0, Hi: anySize, Alg: wins[0]})
			continue
		}
		for i := 1; i+1 < len(sizes); i++ {
			nb := wins[i-1]
			if wins[i] != nb && wins[i+1] == nb {
				margin := smoothMargin
				if prefer != nil && prefer(c, sizes[i]) == nb {
					margin = smoothModelMargin
				}
				if us, ok := bySize[sizes[i]][nb]; ok && us <= bySize[sizes[i]][wins[i]]*margin {
					wins[i] = nb
				}
			}
		}
		cur := -1
		for i, s := range sizes {
			if cur >= 0 && t.Rules[cur].Alg == wins[i] {
				t.Rules[cur].Hi = s
				continue
			}
			lo := s
			if cur < 0 {
				lo = 0 // smaller messages than the smallest timed cost what it costs
			}
			t.Rules = append(t.Rules, Rule{Coll: c, Lo: lo, Hi: s, Alg: wins[i]})
			cur = len(t.Rules) - 1
		}
	}
	return t
}
