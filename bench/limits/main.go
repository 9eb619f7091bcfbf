// Command limits measures what this machine allows at best, so that bench/compare can say
// how far each benchmark result is from it: copy() bandwidth within one core at each size
// (from 1 MiB the faster of one copy() and copies of 512 KiB pieces),
// and the round trip of a cache line bounced between two cores (an atomic counter, and a
// pair of one-writer flags). It uses plain Go (no
// goshmem) and writes the result format of bench/FORMAT.md with impl "limit".
//
//	go run ./bench/limits [-m MIN:MAX] [-i N] [-x N] [-o copy,cacheline_pingpong,flag_pingpong] [--cpus A,B] [--json]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	opts, err := parseOptions(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "limits: %v\n", err)
		os.Exit(2)
	}
	if err := run(opts, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "limits: %v\n", err)
		os.Exit(1)
	}
}

// options are the parsed command line.
type options struct {
	sizes        []int // copy sizes in bytes
	iters        int   // timed samples; 0: the default of each measurement
	warmup       int   // warm-up samples; -1: the default of each measurement
	json         bool
	copy         bool
	pingpong     bool // cacheline_pingpong
	flagPingpong bool // flag_pingpong
	cpuA, cpuB   int  // the two CPUs of the ping-pong; -1: the first two the process may use
}

const (
	defaultMinSize = 1
	defaultMaxSize = 16 << 20
)

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("m", "", "copy sizes `MIN:MAX` in bytes, doubling from MIN (default 1:16M)")
	iters := fs.Int("i", 0, "timed samples per size (default: per measurement)")
	warmup := fs.Int("x", -1, "warm-up samples per size (default: per measurement)")
	jsonOut := fs.Bool("json", false, "JSON lines on stdout (bench/FORMAT.md) instead of the table")
	ops := fs.String("o", "copy,cacheline_pingpong,flag_pingpong", "comma-separated measurements")
	cpus := fs.String("cpus", "", "the two CPUs `A,B` of the ping-pong (default: the first two allowed)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o := options{iters: *iters, warmup: *warmup, json: *jsonOut, cpuA: -1, cpuB: -1}
	if set := flagSet(fs, "i"); (set && *iters < 1) || *iters < 0 {
		return o, fmt.Errorf("-i: bad iteration count %d", *iters)
	}
	if *warmup < -1 {
		return o, fmt.Errorf("-x: bad warm-up count %d", *warmup)
	}
	lo, hi, err := parseRange(*sizes, defaultMinSize, defaultMaxSize)
	if err != nil {
		return o, fmt.Errorf("-m: %v", err)
	}
	for s := lo; s <= hi; s *= 2 {
		o.sizes = append(o.sizes, s)
	}
	for _, name := range strings.Split(*ops, ",") {
		switch name {
		case "copy":
			o.copy = true
		case "cacheline_pingpong":
			o.pingpong = true
		case "flag_pingpong":
			o.flagPingpong = true
		default:
			return o, fmt.Errorf("-o: unknown measurement %q (have copy, cacheline_pingpong, flag_pingpong)", name)
		}
	}
	if *cpus != "" {
		if _, err := fmt.Sscanf(*cpus, "%d,%d", &o.cpuA, &o.cpuB); err != nil || o.cpuA < 0 || o.cpuB < 0 || o.cpuA == o.cpuB {
			return o, fmt.Errorf("--cpus: want two different CPU numbers A,B, have %q", *cpus)
		}
	}
	return o, nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseRange reads OSU's -m spelling: "MIN:MAX", "MIN:", ":MAX" or "MAX", each a count
// with an optional K, M or G suffix (powers of 1024); an empty string keeps the defaults.
func parseRange(s string, defMin, defMax int) (lo, hi int, err error) {
	lo, hi = defMin, defMax
	if s == "" {
		return lo, hi, nil
	}
	minPart, maxPart, hasColon := strings.Cut(s, ":")
	if !hasColon {
		minPart, maxPart = "", s
	}
	if minPart != "" {
		if lo, err = parseSize(minPart); err != nil {
			return 0, 0, err
		}
	}
	if maxPart != "" {
		if hi, err = parseSize(maxPart); err != nil {
			return 0, 0, err
		}
	}
	if lo < 1 || lo > hi {
		return 0, 0, fmt.Errorf("bad size range %q", s)
	}
	return lo, hi, nil
}

func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K") || strings.HasSuffix(s, "k"):
		mult = 1 << 10
	case strings.HasSuffix(s, "M") || strings.HasSuffix(s, "m"):
		mult = 1 << 20
	case strings.HasSuffix(s, "G") || strings.HasSuffix(s, "g"):
		mult = 1 << 30
	}
	digits := s
	if mult != 1 {
		digits = s[:len(s)-1]
	}
	var n int
	if _, err := fmt.Sscanf(digits, "%d", &n); err != nil || fmt.Sprint(n) != digits || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
