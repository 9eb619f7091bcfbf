package rt

import (
	"strings"
	"testing"
	"time"

	"github.com/goshmem/shmem/runtime/settings"
	"github.com/goshmem/shmem/topology"
)

func lookupOf(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// modelInit takes the model and the table the launcher passed, and names their files in
// its errors; without them, the default model and no table.
// pairPollFirst follows the model's FirstPoll unless GOSHMEM_FIRST_POLL says otherwise.
func TestModelInitFirstPoll(t *testing.T) {
	saved := conf
	defer func() { conf = saved; modelInit(lookupOf(nil)) }()
	load, pause := topology.DefaultCostModel(), topology.DefaultCostModel()
	load.PollFirst = true
	for _, c := range []struct {
		model   topology.CostModel
		setting string
		want    bool
	}{{load, "", true}, {pause, "", false}, {load, "pause", false}, {pause, "load", true}, {load, "auto", true}} {
		v, err := settings.Parse(lookupOf(map[string]string{"GOSHMEM_FIRST_POLL": c.setting}))
		if err != nil {
			t.Fatal(err)
		}
		conf = v
		text := string(topology.FormatModel(topology.ModelFile{Machine: "M", Measured: "now", Model: c.model}))
		if err := modelInit(lookupOf(map[string]string{EnvModel: text})); err != nil || pairPollFirst != c.want {
			t.Errorf("model PollFirst %v, GOSHMEM_FIRST_POLL=%q: pairPollFirst %v (%v), want %v", c.model.PollFirst, c.setting, pairPollFirst, err, c.want)
		}
	}
	if _, err := settings.Parse(lookupOf(map[string]string{"GOSHMEM_FIRST_POLL": "sometimes"})); err == nil {
		t.Error("GOSHMEM_FIRST_POLL=sometimes accepted")
	}
}

func TestModelInitSources(t *testing.T) {
	defer modelInit(lookupOf(nil))
	if err := modelInit(lookupOf(nil)); err != nil || machineModel != topology.DefaultCostModel() || tuning != nil || !strings.HasPrefix(modelSource, "default") {
		t.Fatalf("no launcher variables: %v %+v %v %q", err, machineModel, tuning, modelSource)
	}
	m := topology.DefaultCostModel()
	m.LatL3 = 123 * time.Nanosecond
	model := string(topology.FormatModel(topology.ModelFile{Machine: "M", Measured: "now", Model: m, Source: map[string]string{"LatL3": "measured"}}))
	table := "machine M\nlayout nodes=1 pes-per-node=2 placement=s0l0c0,s0l0c1\nbarrier any linear\n"
	err := modelInit(lookupOf(map[string]string{EnvModel: model, EnvModelFile: "/c/model.txt", EnvTable: table, EnvTableFile: "/c/t.txt"}))
	if err != nil || machineModel.LatL3 != 123*time.Nanosecond || modelSource != "calibrated /c/model.txt (measured now)" || modelFields["LatL3"] != "measured" {
		t.Errorf("calibrated: %v %v %q %v", err, machineModel.LatL3, modelSource, modelFields)
	}
	if tuning == nil || tuningSource != "/c/t.txt" || len(tuning.Rules) != 1 {
		t.Errorf("table: %+v from %q", tuning, tuningSource)
	}
	err = modelInit(lookupOf(map[string]string{EnvModel: strings.Replace(model, "123ns", "soon", 1), EnvModelFile: "/c/model.txt"}))
	if err == nil || !strings.HasPrefix(err.Error(), "cost model: /c/model.txt:5: LatL3: bad duration") {
		t.Errorf("malformed model: %v", err)
	}
	err = modelInit(lookupOf(map[string]string{EnvTable: table + "reduce 8 hypercube\n", EnvTableFile: "/c/t.txt"}))
	if err == nil || !strings.HasPrefix(err.Error(), "tuning table: /c/t.txt:4: reduce 8:") {
		t.Errorf("malformed table: %v", err)
	}
}
