package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/topology"
	"github.com/goshmem/shmem/topology/calibrate"
)

// The cache (topology/cache.go): shmemrun reads it for every job it starts on one node and
// hands the PEs what applies (see runtime/model.go).

// cacheDir is the cache directory, or "" with the reason when there is none.
func cacheDir() (string, error) { return topology.CacheDir(os.Getenv) }

// modelChoice is the cost model a job runs on and where it came from.
type modelChoice struct {
	text   []byte // the model file's text; nil: the default model
	path   string
	file   topology.ModelFile
	source string // for --dry-run
}

// cachedModel reads this machine's model file from the cache. ok is false when there is
// none, or it is unreadable, malformed or of another machine (why says which).
func cachedModel(machine string) (m modelChoice, ok bool, why string) {
	dir, err := cacheDir()
	if err != nil {
		return modelChoice{}, false, err.Error()
	}
	c, ok, why := topology.ReadCachedModel(dir, machine)
	if !ok {
		return modelChoice{path: c.Path}, false, why
	}
	return modelChoice{text: c.Text, path: c.Path, file: c.Model, source: fmt.Sprintf("calibrated %s (measured %s)", c.Path, c.Model.Measured)}, true, ""
}

// measureModel calibrates this machine now and writes the cache (when there is one).
func measureModel(t *topology.Topology) (modelChoice, error) {
	f, err := calibrate.Run(t, calibrate.Options{})
	if err != nil {
		return modelChoice{}, err
	}
	m := modelChoice{text: topology.FormatModel(f), file: f, source: "calibrated just now (measured " + f.Measured + "), not cached"}
	dir, derr := cacheDir()
	if derr != nil {
		return m, nil
	}
	m.path = filepath.Join(dir, topology.ModelFileName(f.Machine))
	f, err = topology.WriteNodeModel(m.path, f) // keeps a network level a job across nodes measured
	if err != nil {
		return m, fmt.Errorf("writing the calibration to %s: %w", m.path, err)
	}
	m.text, m.file = topology.FormatModel(f), f
	m.source = fmt.Sprintf("calibrated %s (measured %s)", m.path, f.Measured)
	return m, nil
}

// jobModel is the model of a job on this machine: the cached one, else measured now (the
// first job on a machine pays for it: about 0.2 s, before its PEs start, so nothing else
// of ours runs on the CPUs being measured). Failures to measure or to cache are reported
// on log and the job runs on what it has.
func jobModel(t *topology.Topology, log io.Writer) modelChoice {
	machine := topology.MachineKey(t)
	if m, ok, _ := cachedModel(machine); ok {
		return m
	}
	if _, err := cacheDir(); err != nil && os.Getenv("GOSHMEM_CACHE") == topology.CacheOff {
		return modelChoice{source: "default (GOSHMEM_CACHE=none)"}
	}
	m, err := measureModel(t)
	if err != nil {
		fmt.Fprintf(log, "shmemrun: calibrating the cost model: %v\n", err)
		if m.text == nil {
			return modelChoice{source: "default (calibration failed)"}
		}
	}
	return m
}

// tableChoice is the tuning table a job consults and where it came from.
type tableChoice struct {
	text  []byte
	path  string
	table *topology.Table
}

// jobTable is the table for a job of layout l on machine: SHMEM_COLL_TUNING's (an error
// when unreadable or malformed: the user asked for it), else the cache's for this
// machine and layout (a malformed one is reported on log and skipped).
func jobTable(machine string, l topology.Layout, log io.Writer) (tableChoice, error) {
	if file := os.Getenv("SHMEM_COLL_TUNING"); strings.TrimSpace(file) != "" {
		file = strings.TrimSpace(file)
		b, err := os.ReadFile(file)
		if err != nil {
			return tableChoice{}, fmt.Errorf("SHMEM_COLL_TUNING: %v", err)
		}
		t, err := topology.ParseTable(file, b)
		if err != nil {
			return tableChoice{}, fmt.Errorf("SHMEM_COLL_TUNING: %v", err)
		}
		return tableChoice{b, file, t}, nil
	}
	dir, err := cacheDir()
	if err != nil {
		return tableChoice{}, nil
	}
	c, ok, err := topology.ReadCachedTable(dir, machine, l)
	if err != nil {
		fmt.Fprintf(log, "shmemrun: tuning table %v (ignored; shmemrun --tune rewrites it)\n", err)
	}
	if !ok {
		return tableChoice{}, nil
	}
	return tableChoice{c.Text, c.Path, c.Table}, nil
}

// collEnv is env without inherited model and table variables, plus this job's.
func collEnv(env []string, m modelChoice, tc tableChoice) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != rt.EnvModel && k != rt.EnvModelFile && k != rt.EnvTable && k != rt.EnvTableFile {
			out = append(out, kv)
		}
	}
	if m.text != nil {
		out = append(out, rt.EnvModel+"="+string(m.text), rt.EnvModelFile+"="+m.path)
	}
	if tc.text != nil {
		out = append(out, rt.EnvTable+"="+string(tc.text), rt.EnvTableFile+"="+tc.path)
	}
	return out
}

// runCalibrate is shmemrun --calibrate: measure, write the cache, print the model.
func runCalibrate(stdout, stderr io.Writer) int {
	t, err := topology.Read("")
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: --calibrate: %v\n", err)
		return 1
	}
	t0 := time.Now()
	m, err := measureModel(t)
	if err != nil {
		fmt.Fprintf(stderr, "shmemrun: --calibrate: %v\n", err)
		return 1
	}
	where := m.path
	if where == "" {
		where = "not cached: GOSHMEM_CACHE=none"
	}
	fmt.Fprintf(stdout, "calibrated in %v: %s\n", time.Since(t0).Round(time.Millisecond), where)
	stdout.Write(m.text)
	return 0
}

// dryRunModel is what --dry-run says of auto's sources: the cached model on this machine
// (--dry-run measures nothing) and the table a job would consult; the default model and
// no table on a captured tree.
func dryRunModel(t *topology.Topology, bs []topology.Binding, captured bool, log io.Writer) (string, topology.CostModel, *topology.Table, error) {
	if captured {
		return "tuning table: none (--topology: another machine)\ncost model: default (--topology: another machine)\n" +
			topology.ModelSummary(topology.DefaultCostModel(), nil), topology.DefaultCostModel(), nil, nil
	}
	machine := topology.MachineKey(t)
	var b strings.Builder
	l := topology.LayoutOf(topology.PlaceMap(bs), 1)
	tc, err := jobTable(machine, l, log)
	if err != nil {
		return "", topology.CostModel{}, nil, err
	}
	switch {
	case tc.table == nil:
		fmt.Fprintf(&b, "tuning table: none (shmemrun --tune with these flags writes one)\n")
	case tc.table.Layout != l:
		fmt.Fprintf(&b, "tuning table: %s not used: it was tuned for %s, this job is %s\n", tc.path, tc.table.Layout, l)
		tc.table = nil
	default:
		fmt.Fprintf(&b, "tuning table: %s (%s)\n", tc.path, l)
	}
	m, ok, why := cachedModel(machine)
	model, fields := topology.DefaultCostModel(), map[string]string(nil)
	if ok {
		model, fields = m.file.Model, m.file.Source
		fmt.Fprintf(&b, "cost model: %s\n", m.source)
	} else {
		fmt.Fprintf(&b, "cost model: default (%s; the first job measures it, or shmemrun --calibrate)\n", why)
	}
	b.WriteString(topology.ModelSummary(model, fields))
	return b.String(), model, tc.table, nil
}
