package main

import (
	"cmp"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// Cell is one implementation's median at a row.
type Cell struct {
	Measured bool    // US holds a median
	US       float64 // µs
	NA       string  // reported unavailable, and why
}

func (c Cell) text() string {
	switch {
	case c.Measured:
		return formatUS(c.US)
	case c.NA != "":
		return "n/a"
	}
	return "-"
}

// Limit is the best time this machine allows for a row's operation, and what it is.
type Limit struct {
	US   float64 // 0: no limit applies or it was not measured
	What string
}

// Row is one line of the comparison table.
type Row struct {
	Op      string
	Size    int64
	Unit    string
	NPEs    int
	Goshmem Cell
	OSHMEM  Cell
	Limit   Limit
}

// Ratio is OSHMEM µs / goshmem µs (>1: goshmem is faster); ok is false unless both measured.
func (r Row) Ratio() (ratio float64, ok bool) {
	if !r.Goshmem.Measured || !r.OSHMEM.Measured {
		return 0, false
	}
	return r.OSHMEM.US / r.Goshmem.US, true
}

// OfLimit is the fraction of the limit a cell attains: limit time / measured time
// (1 = at the limit); ok is false when either is missing.
func (r Row) OfLimit(c Cell) (frac float64, ok bool) {
	if !c.Measured || r.Limit.US == 0 {
		return 0, false
	}
	return r.Limit.US / c.US, true
}

// limits holds the medians of the limit records.
type limits struct {
	copyUS     map[int64]float64 // copy() µs by bytes
	roundTrip  float64           // the faster of the two cache-line round trips, µs; 0 if neither was measured
	roundTripW string            // which: "line RT" (counter) or "flag RT" (two flags)
}

// roundTripOps are the limit records of a cache-line round trip and their short names.
var roundTripOps = []struct{ op, what string }{{"cacheline_pingpong", "line RT"}, {"flag_pingpong", "flag RT"}}

func limitsFrom(sums map[Key]Summary) limits {
	l := limits{copyUS: map[int64]float64{}}
	for k, s := range sums {
		if k.Impl == implLimit && k.Op == "copy" && s.N > 0 {
			l.copyUS[k.Size] = s.US
		}
	}
	for _, rt := range roundTripOps {
		s, ok := sums[Key{implLimit, rt.op, 8}]
		if ok && s.N > 0 && (l.roundTrip == 0 || s.US < l.roundTrip) {
			l.roundTrip, l.roundTripW = s.US, rt.what
		}
	}
	return l
}

// window is the number of messages per window of put_bw, get_bw and put_nbi_rate.
const window = 64

// limitFor is the lower bound bench/FORMAT.md ("Limits") gives an operation at a size.
func (l limits) limitFor(op string, size int64, npes int) Limit {
	copyOf := func(bytes int64, times int64, what string) Limit {
		us, ok := l.copyUS[bytes]
		if !ok {
			return Limit{}
		}
		return Limit{US: us * float64(times), What: what}
	}
	line := func(times float64, what string) Limit {
		if l.roundTrip == 0 {
			return Limit{}
		}
		return Limit{US: l.roundTrip * times, What: what}
	}
	others := int64(max(npes-1, 1))
	switch op {
	case "put", "get":
		return copyOf(size, 1, "copy")
	case "put_bw", "get_bw":
		return copyOf(size, window, "64 copy")
	case "pingpong", "test_some", "wait_until_some":
		return line(1, l.roundTripW)
	case "barrier":
		rounds := bits.Len(uint(max(npes-1, 1))) // ceil(log2 npes) rounds of one-way transfers
		return line(float64(rounds)/2, fmt.Sprintf("%d/2 %s", rounds, l.roundTripW))
	case "broadcast64":
		return copyOf(8*size, 1, "copy")
	case "collect64", "fcollect64", "alltoall64":
		return copyOf(8*size*others, 1, "copy")
	case "reduce_int_sum", "reduce_int_min":
		return copyOf(4*size, 1, "copy")
	case "reduce_long_sum", "reduce_double_sum", "reduce_long_or":
		return copyOf(8*size, 1, "copy")
	}
	return Limit{}
}

// BuildRows makes the table's rows from the summaries of goshmem, OSHMEM and the limits,
// ordered by operation (bench/FORMAT.md's order) and size. nodes is how many nodes the run
// spanned: up to 1, the limits are the machine's (bench/limits); from 2, raw UCX between
// two nodes (bench/ucxlimit), since a copy or a cache-line round trip bounds nothing there.
func BuildRows(sums map[Key]Summary, nodes int) []Row {
	type pt struct {
		op   string
		size int64
	}
	rows := map[pt]*Row{}
	for k, s := range sums {
		if k.Impl != implGoshmem && k.Impl != implOSHMEM {
			continue
		}
		p := pt{k.Op, k.Size}
		r := rows[p]
		if r == nil {
			r = &Row{Op: k.Op, Size: k.Size, Unit: s.Unit}
			rows[p] = r
		}
		r.NPEs = max(r.NPEs, s.NPEs)
		c := Cell{Measured: s.N > 0, US: s.US, NA: s.NA}
		if k.Impl == implGoshmem {
			r.Goshmem = c
		} else {
			r.OSHMEM = c
		}
	}
	lim := limitsFrom(sums)
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		if nodes >= 2 {
			r.Limit = netLimitFor(sums, r.Op, r.Size)
		} else {
			r.Limit = lim.limitFor(r.Op, r.Size, r.NPEs)
		}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Row) int {
		if c := opRank(a.Op, b.Op); c != 0 {
			return c
		}
		return cmp.Compare(a.Size, b.Size)
	})
	return out
}

// TableInfo is what the table's header says about the run.
type TableInfo struct {
	NPEs    int
	Nodes   int      // fake nodes the run spanned; 0: one machine, no launcher across nodes
	PerNode int      // PEs per node when Nodes > 0
	Reps    int      // repetitions; 0 when re-rendered from files
	Notes   []string // one line each, e.g. why a column is empty
}

// WriteTable prints the comparison table.
func WriteTable(w io.Writer, rows []Row, info TableInfo) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# goshmem vs Open MPI OSHMEM, %d PEs", info.NPEs)
	if info.Nodes > 0 {
		fmt.Fprintf(&b, " across %d fake nodes (%d per node, --map-by node: PE 0 and PE 1 on different nodes)", info.Nodes, info.PerNode)
	}
	if info.Reps > 0 {
		fmt.Fprintf(&b, ", medians of %d alternating repetitions", info.Reps)
	} else {
		b.WriteString(", medians of the records read")
	}
	b.WriteString("\n# ratio = OSHMEM µs / goshmem µs (>1: goshmem is faster); put_bw, get_bw, put_nbi_rate: µs per window of 64\n")
	if info.Nodes >= 2 {
		b.WriteString("# limit = raw UCX between two of the nodes, the same operation (bench/ucxlimit), the faster of a polling target\n")
		b.WriteString("#   and one asleep on its wake-up fd (\"ev\"); % = limit µs / measured µs\n")
	} else {
		b.WriteString("# limit = the best this machine allows (bench/FORMAT.md); % = limit µs / measured µs\n")
	}
	for _, n := range info.Notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	fmt.Fprintf(&b, "%-20s %9s %-5s %s %s %7s %s %-12s %9s %9s\n",
		"operation", "size", "unit", padLeft("goshmem µs", 12), padLeft("OSHMEM µs", 12), "ratio",
		padLeft("limit µs", 12), "limit", "goshmem %", "OSHMEM %")
	for _, r := range rows {
		ratio := "-"
		if v, ok := r.Ratio(); ok {
			ratio = fmt.Sprintf("%.2f", v)
		}
		limUS, limWhat := "-", ""
		if r.Limit.US > 0 {
			limUS, limWhat = formatUS(r.Limit.US), r.Limit.What
		}
		fmt.Fprintf(&b, "%-20s %9d %-5s %12s %12s %7s %12s %-12s %9s %9s\n",
			r.Op, r.Size, r.Unit, r.Goshmem.text(), r.OSHMEM.text(), ratio, limUS, limWhat,
			percent(r.OfLimit(r.Goshmem)), percent(r.OfLimit(r.OSHMEM)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// padLeft right-aligns s in width runes (fmt pads by bytes, and µ is two).
func padLeft(s string, width int) string {
	return strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s))) + s
}

func percent(frac float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*frac)
}

// formatUS prints a time in µs with three or four significant digits.
func formatUS(us float64) string {
	switch {
	case us < 1:
		return fmt.Sprintf("%.4f", us)
	case us < 100:
		return fmt.Sprintf("%.3f", us)
	case us < 10000:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.0f", us)
}
