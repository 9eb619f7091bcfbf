package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// The impl values of bench/FORMAT.md.
const (
	implGoshmem = "goshmem"
	implOSHMEM  = "oshmem"
	implLimit   = "limit"
)

// Record is one JSON line of bench/FORMAT.md. Optional fields are pointers so that an
// absent field is told apart from a zero. Rep is compare's own: it numbers the repetition
// when compare saves the records it gathered (--save), and is absent in the suites' output.
type Record struct {
	Impl  string   `json:"impl"`
	Op    string   `json:"op"`
	Size  int64    `json:"size"`
	Unit  string   `json:"unit"`
	NPEs  int      `json:"npes"`
	Iters int      `json:"iters,omitempty"`
	Batch int      `json:"batch,omitempty"`
	US    *float64 `json:"us,omitempty"`
	USMin *float64 `json:"us_min,omitempty"`
	USMax *float64 `json:"us_max,omitempty"`
	USAvg *float64 `json:"us_avg,omitempty"`
	MBps  *float64 `json:"mbps,omitempty"`
	MOps  *float64 `json:"mops,omitempty"`
	NA    string   `json:"na,omitempty"`
	Touch bool     `json:"touch,omitempty"` // goshmem's -touch: source written and result read in each call
	Rep   int      `json:"rep,omitempty"`
}

// ParseRecords reads JSON lines. Lines that do not start with '{' are not results (a
// launcher's notice, a blank line) and are counted in skipped; a line that starts with '{'
// must be a valid record, else the error names source and line.
func ParseRecords(r io.Reader, source string) (recs []Record, skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if text[0] != '{' {
			skipped++
			continue
		}
		var rec Record
		dec := json.NewDecoder(bytes.NewReader(text))
		if err := dec.Decode(&rec); err != nil {
			return recs, skipped, fmt.Errorf("%s:%d: %v", source, line, err)
		}
		if dec.More() {
			return recs, skipped, fmt.Errorf("%s:%d: text after the JSON object", source, line)
		}
		if err := rec.validate(); err != nil {
			return recs, skipped, fmt.Errorf("%s:%d: %v", source, line, err)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return recs, skipped, fmt.Errorf("%s: %v", source, err)
	}
	return recs, skipped, nil
}

func (r Record) validate() error {
	switch {
	case r.Impl == "":
		return fmt.Errorf("record has no impl")
	case r.Op == "":
		return fmt.Errorf("record has no op")
	case r.Size < 0:
		return fmt.Errorf("%s %s: negative size %d", r.Impl, r.Op, r.Size)
	case r.Unit != "B" && r.Unit != "elems":
		return fmt.Errorf("%s %s: unit %q is neither \"B\" nor \"elems\"", r.Impl, r.Op, r.Unit)
	case r.NA == "" && r.US == nil:
		return fmt.Errorf("%s %s %d: neither us nor na", r.Impl, r.Op, r.Size)
	case r.NA != "" && r.US != nil:
		return fmt.Errorf("%s %s %d: both us and na", r.Impl, r.Op, r.Size)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"us", r.US}, {"us_min", r.USMin}, {"us_max", r.USMax}, {"us_avg", r.USAvg}, {"mbps", r.MBps}, {"mops", r.MOps}} {
		if f.v != nil && (*f.v <= 0 || math.IsInf(*f.v, 0) || math.IsNaN(*f.v)) {
			return fmt.Errorf("%s %s %d: %s is %v, want a positive number", r.Impl, r.Op, r.Size, f.name, *f.v)
		}
	}
	return nil
}

// Key names one measured point: an implementation's operation at a size.
type Key struct {
	Impl string
	Op   string
	Size int64
}

// Summary is the median over repetitions of one point. A point that was reported only as
// unavailable has N == 0 and its reason in NA.
type Summary struct {
	Key
	Unit string
	NPEs int
	N    int     // repetitions that measured it
	US   float64 // median of us
	MBps float64 // median of mbps; 0 when absent
	MOps float64 // median of mops; 0 when absent
	NA   string
}

// Summarize groups records by Key and takes the median of each field over the records.
func Summarize(recs []Record) map[Key]Summary {
	type acc struct {
		s              Summary
		us, mbps, mops []float64
	}
	accs := map[Key]*acc{}
	for _, r := range recs {
		k := Key{r.Impl, r.Op, r.Size}
		a := accs[k]
		if a == nil {
			a = &acc{s: Summary{Key: k, Unit: r.Unit, NPEs: r.NPEs}}
			accs[k] = a
		}
		if r.NA != "" {
			a.s.NA = r.NA
			continue
		}
		a.us = append(a.us, *r.US)
		if r.MBps != nil {
			a.mbps = append(a.mbps, *r.MBps)
		}
		if r.MOps != nil {
			a.mops = append(a.mops, *r.MOps)
		}
	}
	out := make(map[Key]Summary, len(accs))
	for k, a := range accs {
		s := a.s
		s.N = len(a.us)
		if s.N > 0 {
			s.US = Median(a.us)
			s.NA = ""
		}
		if len(a.mbps) > 0 {
			s.MBps = Median(a.mbps)
		}
		if len(a.mops) > 0 {
			s.MOps = Median(a.mops)
		}
		out[k] = s
	}
	return out
}

// Median returns the middle value of v, or the mean of the two middle values when len(v)
// is even (the rule of bench/FORMAT.md); v is not modified. It panics on an empty slice.
func Median(v []float64) float64 {
	if len(v) == 0 {
		panic("compare.Median: no values")
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// opOrder is the order of bench/FORMAT.md's operation table; the table and the plot follow it.
var opOrder = []string{
	"put", "get", "put_bw", "get_bw", "put_nbi_rate",
	"atomic_fetch_add", "atomic_add", "atomic_compare_swap", "atomic_swap", "atomic_set", "atomic_fetch",
	"barrier", "pingpong", "test_some", "wait_until_some", "progress",
	"broadcast64", "collect64", "fcollect64",
	"reduce_int_sum", "reduce_long_sum", "reduce_double_sum", "reduce_long_or", "reduce_int_min",
	"inscan_long_sum", "alltoall64", "alltoalls64",
}

// families are the plot's panels, in order.
var families = []string{"rma", "atomics", "sync", "collectives", "alltoall"}

// familyOf returns the plot panel of an operation; "" for one bench/FORMAT.md does not name.
func familyOf(op string) string {
	switch {
	case op == "put" || op == "get" || op == "put_bw" || op == "get_bw" || op == "put_nbi_rate":
		return "rma"
	case strings.HasPrefix(op, "atomic_"):
		return "atomics"
	case op == "barrier" || op == "pingpong" || op == "test_some" || op == "wait_until_some" || op == "progress":
		return "sync"
	case op == "broadcast64" || op == "collect64" || op == "fcollect64" || strings.HasPrefix(op, "reduce_") || op == "inscan_long_sum":
		return "collectives"
	case op == "alltoall64" || op == "alltoalls64":
		return "alltoall"
	}
	return ""
}

// opRank orders operations: those of opOrder first in its order, then the rest by name.
func opRank(a, b string) int {
	ia, ib := slices.Index(opOrder, a), slices.Index(opOrder, b)
	switch {
	case ia >= 0 && ib >= 0:
		return ia - ib
	case ia >= 0:
		return -1
	case ib >= 0:
		return 1
	}
	return strings.Compare(a, b)
}
