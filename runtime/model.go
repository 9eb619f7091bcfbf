package rt

import (
	"fmt"
	"os"
	"sync"

	"github.com/goshmem/shmem/topology"
)

// Where auto's inputs come from. shmemrun resolves them once per job and hands every PE
// the same bytes in its environment: the calibrated model of this machine (the cache
// file's text) and the tuning table matching the job (or the one SHMEM_COLL_TUNING names).
// Passing the text rather than a path means every PE parses identical input even while
// another shmemrun --calibrate or --tune rewrites the cache, so every PE chooses alike;
// the control block would do as well but would tie the shared layout to a text format.
// A PE started by another launcher reads SHMEM_COLL_TUNING itself (a file the user
// named, which nothing of ours rewrites) and uses the default model.
const (
	EnvModel     = "GOSHMEM_COLL_MODEL"      // a model file's text (topology.ParseModel)
	EnvModelFile = "GOSHMEM_COLL_MODEL_FILE" // where it was read, for messages and SHMEM_INFO
	EnvTable     = "GOSHMEM_COLL_TABLE"      // a tuning table's text (topology.ParseTable)
	EnvTableFile = "GOSHMEM_COLL_TABLE_FILE" // where it was read
)

var (
	machineModel = topology.DefaultCostModel()
	modelSource  = "default (topology.DefaultCostModel: no calibration passed by the launcher)"
	modelFields  map[string]string // field -> where its value came from

	tuning       *topology.Table // nil: none
	tuningSource string          // the table's file
	tuningOnce   sync.Once
	tuningUse    *topology.Table // tuning, when it matches the job's layout
	tuningNote   string          // why tuning is not used
)

// modelInit reads the model and the table the launcher passed (or SHMEM_COLL_TUNING).
func modelInit(lookup func(string) (string, bool)) error {
	machineModel, modelFields = topology.DefaultCostModel(), nil
	modelSource = "default (topology.DefaultCostModel: no calibration passed by the launcher)"
	tuning, tuningSource = nil, ""
	if text, ok := lookup(EnvModel); ok {
		name, _ := lookup(EnvModelFile)
		if name == "" {
			name = EnvModel
		}
		f, err := topology.ParseModel(name, []byte(text))
		if err != nil {
			return fmt.Errorf("cost model: %w", err)
		}
		machineModel, modelFields = f.Model, f.Source
		modelSource = fmt.Sprintf("calibrated %s (measured %s)", name, f.Measured)
	}
	text, ok := lookup(EnvTable)
	name, _ := lookup(EnvTableFile)
	if !ok {
		file := conf.Text("SHMEM_COLL_TUNING")
		if file == "" {
			return nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("SHMEM_COLL_TUNING: %w", err)
		}
		text, name = string(b), file
	}
	if name == "" {
		name = EnvTable
	}
	t, err := topology.ParseTable(name, []byte(text))
	if err != nil {
		return fmt.Errorf("tuning table: %w", err)
	}
	tuning, tuningSource = t, name
	return nil
}

// jobLayout is the job's layout as a tuning table keys it: the nodes, and my node's PEs'
// placement.
func jobLayout() topology.Layout {
	nodes := 1
	var mine []topology.PEPlace
	if multiNode {
		seen := map[int32]bool{}
		for _, n := range nodeOf {
			seen[n] = true
		}
		nodes = len(seen)
	}
	for pe := range npes {
		if local(pe) {
			mine = append(mine, places[pe])
		}
	}
	return topology.LayoutOf(mine, nodes)
}

// tableFor is the tuning table auto consults for g: the job's, when it matches the job's
// layout and g is every PE of a one-node job (the table was measured over those; a
// node phase of a composed collective is a different group).
func tableFor(g Group) *topology.Table {
	tuningOnce.Do(func() {
		if tuning == nil {
			return
		}
		if l := jobLayout(); l != tuning.Layout {
			tuningNote = fmt.Sprintf("not used: it was tuned for %s, this job is %s (shmemrun --tune -n %d with this job's placement flags writes one)", tuning.Layout, l, npes)
			return
		}
		tuningUse = tuning
	})
	if tuningUse == nil || multiNode || g.Start != 0 || g.Stride != 1 || g.Size != npes {
		return nil
	}
	return tuningUse
}

// modelInfo describes auto's sources for SHMEM_INFO.
func modelInfo() string {
	tableFor(Group{})
	s := ""
	switch {
	case tuning == nil:
		s += "goshmem: tuning table: none (shmemrun --tune writes one)\n"
	case tuningUse == nil:
		s += fmt.Sprintf("goshmem: tuning table: %s %s\n", tuningSource, tuningNote)
	default:
		s += fmt.Sprintf("goshmem: tuning table: %s (%s)\n", tuningSource, tuning.Layout)
	}
	s += "goshmem: cost model: " + modelSource + "\n"
	return s + topology.ModelSummary(machineModel, modelFields)
}
