package topology

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// A model file holds a calibrated CostModel: what `shmemrun --calibrate` (or a first job
// on a new machine) measured, cached per machine. It is text, one field a line, each with
// where its value came from:
//
//	# goshmem cost model (shmemrun --calibrate): field value source
//	machine AMD EPYC | 1 socket, 1 L3 domain, 2 cores, 2 CPUs | linux 6.1.0
//	measured 2026-12-02T18:30:00Z
//	LatL3      52ns    measured
//	LatCrossL3 238ns   derived: LatL3 × 215/47 (the machine has one L3 domain)
//	BWL3       41000   measured
//	...
//
// Latencies take Go duration syntax, bandwidths are MB/s, FirstPoll is load or pause
// (CostModel.PollFirst; files written before it existed lack it: pause, the default).
// TreeRadix and EagerRegion are settings of a job, not properties of the machine: they are
// not in the file.

// ModelFile is a parsed model file.
type ModelFile struct {
	Machine  string // MachineKey of the machine measured
	Measured string // when, RFC 3339
	Model    CostModel
	Source   map[string]string // field name -> "measured", "default", "derived: how"
}

// modelFields are the fields of a model file, in the order it lists them.
var modelFields = []string{"LatL3", "LatCrossL3", "LatSocket", "LatNet", "BWL3", "BWCrossL3", "BWSocket", "BWNet", "BWCombine", "FirstPoll"}

// optionalFields may be missing from a model file (written before they existed).
var optionalFields = map[string]bool{"FirstPoll": true}

// firstPollValue is FirstPoll as a model file writes it.
func firstPollValue(load bool) string {
	if load {
		return "load"
	}
	return "pause"
}

// ModelFields lists the machine's fields of a CostModel, as model files name them.
func ModelFields() []string { return append([]string(nil), modelFields...) }

func latField(m *CostModel, name string) *time.Duration {
	switch name {
	case "LatL3":
		return &m.LatL3
	case "LatCrossL3":
		return &m.LatCrossL3
	case "LatSocket":
		return &m.LatSocket
	case "LatNet":
		return &m.LatNet
	}
	return nil
}

func bwField(m *CostModel, name string) *int64 {
	switch name {
	case "BWL3":
		return &m.BWL3
	case "BWCrossL3":
		return &m.BWCrossL3
	case "BWSocket":
		return &m.BWSocket
	case "BWNet":
		return &m.BWNet
	case "BWCombine":
		return &m.BWCombine
	}
	return nil
}

// FieldValue is a model field's value as a model file writes it (42ns, 54000).
func FieldValue(m CostModel, name string) string {
	if p := latField(&m, name); p != nil {
		return p.String()
	}
	if p := bwField(&m, name); p != nil {
		return strconv.FormatInt(*p, 10)
	}
	if name == "FirstPoll" {
		return firstPollValue(m.PollFirst)
	}
	panic("topology.FieldValue: no field " + name)
}

// FormatModel writes f as a model file.
func FormatModel(f ModelFile) []byte {
	var b strings.Builder
	b.WriteString("# goshmem cost model, measured by shmemrun --calibrate or a node's leader after a job: field,\n")
	b.WriteString("# value (latencies as Go durations, bandwidths in MB/s), where it came from. Re-measure: shmemrun --calibrate.\n")
	fmt.Fprintf(&b, "machine %s\n", f.Machine)
	fmt.Fprintf(&b, "measured %s\n", f.Measured)
	for _, name := range modelFields {
		src := f.Source[name]
		if src == "" {
			src = "default"
		}
		fmt.Fprintf(&b, "%-10s %-8s %s\n", name, FieldValue(f.Model, name), src)
	}
	return []byte(b.String())
}

// ParseModel reads a model file; name (its path) prefixes every error with the line:
// "FILE:3: LatL3: bad duration "x"". The TreeRadix and EagerRegion of the result are
// DefaultCostModel's: the job sets its own.
func ParseModel(name string, data []byte) (ModelFile, error) {
	f := ModelFile{Model: DefaultCostModel(), Source: map[string]string{}}
	seen := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if prev, ok := seen[key]; ok {
			return ModelFile{}, errf("%s given twice (first on line %d)", key, prev)
		}
		seen[key] = i + 1
		switch key {
		case "machine":
			f.Machine = rest
			continue
		case "measured":
			f.Measured = rest
			continue
		}
		val, src, _ := strings.Cut(rest, " ")
		src = strings.TrimSpace(src)
		if val == "" {
			return ModelFile{}, errf("%s: no value", key)
		}
		if src == "" {
			return ModelFile{}, errf("%s %s: no source (measured, derived: ..., or default)", key, val)
		}
		if p := latField(&f.Model, key); p != nil {
			d, err := time.ParseDuration(val)
			if err != nil || d < 0 {
				return ModelFile{}, errf("%s: bad duration %q (want e.g. 47ns, 2us)", key, val)
			}
			*p = d
		} else if p := bwField(&f.Model, key); p != nil {
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 {
				return ModelFile{}, errf("%s: bad bandwidth %q (want MB/s, a positive integer)", key, val)
			}
			*p = n
		} else if key == "FirstPoll" {
			if val != "load" && val != "pause" {
				return ModelFile{}, errf("FirstPoll: bad value %q (want load or pause)", val)
			}
			f.Model.PollFirst = val == "load"
		} else {
			return ModelFile{}, errf("unknown field %q (want machine, measured, %s)", key, strings.Join(modelFields, ", "))
		}
		f.Source[key] = src
	}
	if f.Machine == "" {
		return ModelFile{}, fmt.Errorf("%s: no machine line", name)
	}
	for _, k := range modelFields {
		if _, ok := seen[k]; !ok && !optionalFields[k] {
			return ModelFile{}, fmt.Errorf("%s: no %s line", name, k)
		}
	}
	return f, nil
}

// ModelSummary is the model's fields on one line each with their source, for SHMEM_INFO
// and --dry-run.
func ModelSummary(m CostModel, source map[string]string) string {
	var b strings.Builder
	for _, name := range modelFields {
		src := source[name]
		if src == "" {
			src = "default"
		}
		fmt.Fprintf(&b, "  %-10s %-8s %s\n", name, FieldValue(m, name), src)
	}
	return b.String()
}

// MachineKeyOf is the key a machine's calibration is cached under: the CPU model, the
// shape of t, and the kernel. A change to any of them is a new machine.
func MachineKeyOf(cpuModel, kernel string, t *Topology) string {
	if cpuModel == "" {
		cpuModel = "unknown CPU"
	}
	if kernel == "" {
		kernel = "unknown kernel"
	}
	clean := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", "/")), " ") }
	return fmt.Sprintf("%s | %s, %s, %s, %s | %s", clean(cpuModel), plural(len(t.Packages), "socket"),
		plural(len(t.L3), "L3 domain"), plural(len(t.Cores), "core"), plural(t.Threads(), "CPU"), clean(kernel))
}

// KeyHash is a short stable hash of a key, for file names.
func KeyHash(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("%016x", h.Sum64())
}

// ModelFileName is the name of the model file of machine key in the cache directory. The
// "v2" is the file's format: a binary from before FirstPoll rejects that line, so files
// with it go under another name than theirs (model-HASH.txt), and a cache shared by both
// keeps working for each.
func ModelFileName(machine string) string { return "model-v2-" + KeyHash(machine) + ".txt" }

// cpuModel is the first "model name" of a /proc/cpuinfo (x86), else its "Hardware" or
// CPU implementer and part (arm64), else "".
func cpuModel(cpuinfo string) string {
	var impl, part string
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Hardware":
			if v != "" {
				return v
			}
		case "CPU implementer":
			if impl == "" {
				impl = v
			}
		case "CPU part":
			if part == "" {
				part = v
			}
		}
	}
	if impl != "" {
		return "arm implementer " + impl + " part " + part
	}
	return ""
}
