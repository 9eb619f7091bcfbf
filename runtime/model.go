package rt

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
	"github.com/goshmem/shmem/topology/calibrate"
)

// Where auto's inputs come from. shmemrun resolves them once per job and hands every PE
// the same bytes in its environment: the calibrated model of this machine (the cache
// file's text) and the tuning table matching the job (or the one SHMEM_COLL_TUNING names).
// Passing the text rather than a path means every PE parses identical input even while
// another shmemrun --calibrate or --tune rewrites the cache, so every PE chooses alike;
// the control block would do as well but would tie the shared layout to a text format.
// In a job a PMIx launcher started (mpirun, srun, shmemrun --hosts) each node is its own
// machine: the node's leader reads its machine's model and the table of the job's layout
// from its cache and hands its node's PEs the same bytes through its scratch
// (nodeCacheInit); PEs of one node must choose alike, those of different nodes need not
// (each node phase is among one node's PEs).
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
	pairPollFirst = machineModel.PollFirst
	switch conf.String("GOSHMEM_FIRST_POLL") {
	case "pause":
		pairPollFirst = false
	case "load":
		pairPollFirst = true
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

// JobLayout is the job's layout as a tuning table keys it (shmemrun --tune's timing jobs
// report it).
func JobLayout() topology.Layout { return jobLayout() }

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
// layout and g is what its timings were measured over: every PE of a one-node job; in a
// job across nodes, my node's PEs (the node phase of a collective over every PE, the part
// the timing jobs' SHMEM_*_ALGORITHM forced; the network phases are chosen by the model's
// network level, which the table brings).
func tableFor(g Group) *topology.Table {
	tuningOnce.Do(matchTable)
	if tuningUse == nil {
		return nil
	}
	if multiNode {
		if !sameMembers(g, Shared.G) {
			return nil
		}
	} else if g.Start != 0 || g.Stride != 1 || g.Size != npes {
		return nil
	}
	return tuningUse
}

// matchTable decides once whether the job's table fits its layout; a table measured across
// nodes brings the network level it measured into the model.
func matchTable() {
	if tuning == nil {
		return
	}
	if l := jobLayout(); l != tuning.Layout {
		how := fmt.Sprintf("shmemrun --tune -n %d with this job's placement flags", npes)
		if l.Nodes > 1 {
			how = fmt.Sprintf("shmemrun --tune --hosts with %d nodes x %d PEs and this job's placement flags", l.Nodes, l.PEsPerNode)
		}
		tuningNote = fmt.Sprintf("not used: it was tuned for %s, this job is %s (%s writes one)", tuning.Layout, l, how)
		return
	}
	tuningUse = tuning
	if n := tuning.Net; n.BW > 0 {
		machineModel.LatNet, machineModel.BWNet = n.Lat, n.BW
		if modelFields == nil {
			modelFields = map[string]string{}
		}
		modelFields["LatNet"] = "measured across nodes by shmemrun --tune (" + tuningSource + ")"
		modelFields["BWNet"] = modelFields["LatNet"]
	}
}

// sameMembers reports whether groups a and b list the same PEs in the same order.
func sameMembers(a, b Group) bool {
	if a.Size != b.Size {
		return false
	}
	for i := range a.Size {
		if a.PE(i) != b.PE(i) {
			return false
		}
	}
	return true
}

// nodeCacheInit gives a job a PMIx launcher started its node's model and table (see the
// top of this file), unless the launcher passed them: the node's leader reads its cache
// and writes the texts into its scratch, and every PE of the node parses those bytes
// between two node barriers. Nothing has chosen an algorithm yet (the barriers here are
// named, not chosen).
func nodeCacheInit() error {
	if _, ok := os.LookupEnv(EnvModel); ok {
		return nil
	}
	if _, ok := os.LookupEnv(EnvTable); ok {
		return nil
	}
	scratch := reserved(shm.ReservedScratchOff)
	leader := Shared.G.PE(0)
	if me == leader {
		writeTexts(scratch, shm.ScratchSize, leaderCacheTexts())
	}
	meet := func() {
		a := Shared.next()
		barrierDissem("shmem.Init", Shared.G, Shared.Me, &a)
	}
	meet()
	texts := readTexts(Remote(scratch, leader), shm.ScratchSize)
	meet() // the leader's scratch is free again once every PE has read it
	lookup := func(k string) (string, bool) {
		v, ok := texts[k]
		return v, ok && v != ""
	}
	if err := modelInit(lookup); err != nil {
		return err
	}
	if why := texts[envModelWhy]; why != "" {
		modelSource = "default (" + why + "; this node's leader measures one when the job ends, or shmemrun --calibrate on a node of this kind)"
	}
	return nil
}

// envModelWhy: the leader's texts also say why there is no model, for SHMEM_INFO.
const envModelWhy = "model-why"

// leaderCacheTexts is what the node leader finds in its cache for this machine and the
// job's layout, keyed as modelInit looks them up.
func leaderCacheTexts() map[string]string {
	out := map[string]string{}
	dir, err := topology.CacheDir(os.Getenv)
	if err != nil {
		out[envModelWhy] = err.Error()
		return out
	}
	t, err := topology.Read("")
	if err != nil {
		out[envModelWhy] = "reading this machine's topology: " + err.Error()
		return out
	}
	machine := topology.MachineKey(t)
	if c, ok, why := topology.ReadCachedModel(dir, machine); ok {
		out[EnvModel], out[EnvModelFile] = string(c.Text), c.Path
		modelCached = true
	} else {
		out[envModelWhy] = why
		calibrateAtExit = dir
	}
	if conf.Text("SHMEM_COLL_TUNING") != "" {
		return out // the user named one: modelInit reads it
	}
	c, ok, err := topology.ReadCachedTable(dir, machine, jobLayout())
	if err != nil {
		fmt.Fprintf(os.Stderr, "goshmem: PE %d (on %s): tuning table %v (ignored; shmemrun --tune rewrites it)\n", me, Host(me), err)
	}
	if ok {
		out[EnvTable], out[EnvTableFile] = string(c.Text), c.Path
	}
	return out
}

// nodeTextKeys are the texts nodeCacheInit hands around, in the order they are written.
var nodeTextKeys = []string{EnvModel, EnvModelFile, EnvTable, EnvTableFile, envModelWhy}

// writeTexts writes texts into p (n bytes) as a count and length-prefixed strings; texts
// that do not fit are left out (the PEs then run without them, alike).
func writeTexts(p unsafe.Pointer, n int, texts map[string]string) {
	buf := unsafe.Slice((*byte)(p), n)
	off := 0
	for _, k := range nodeTextKeys {
		v := texts[k]
		if off+8+len(v) > n-8 { // keep room for the terminator
			v = ""
		}
		binary.LittleEndian.PutUint64(buf[off:], uint64(len(v)))
		off += 8 + copy(buf[off+8:], v)
	}
}

// readTexts reads what writeTexts wrote at p.
func readTexts(p unsafe.Pointer, n int) map[string]string {
	buf := unsafe.Slice((*byte)(p), n)
	out := map[string]string{}
	off := 0
	for _, k := range nodeTextKeys {
		l := int(binary.LittleEndian.Uint64(buf[off:]))
		if l < 0 || l > n-off-8 {
			break // not ours: none
		}
		out[k] = string(buf[off+8 : off+8+l])
		off += 8 + l
	}
	return out
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

// The network phases' algorithms are chosen by every leader of a call alike, so they are
// priced with one network level for the whole job: PE 0's (its node's calibration or
// table), which netModelInit mails at Init to every PE on another node. Node levels stay
// each node's own.
var netLat, netBW = machineModel.LatNet, machineModel.BWNet

// netModel is what netModelInit mails: PE 0's network level and where it came from.
type netModel struct {
	Lat, BW int64 // ns, MB/s
}

// netModelInit takes PE 0's network level (see netLat); PEs on PE 0's node have it already.
func netModelInit() error {
	tuningOnce.Do(matchTable) // a table measured across nodes brings its network level
	netLat, netBW = machineModel.LatNet, machineModel.BWNet
	if !multiNode {
		return nil
	}
	ch := area{p: reserved(shm.ReservedDebugOffset)}
	mine := netModel{Lat: machineModel.LatNet.Nanoseconds(), BW: machineModel.BWNet}
	if me == 0 {
		for pe := 1; pe < npes; pe++ {
			if !local(pe) {
				ch.mail(netModelMailWord, unsafe.Pointer(&mine), unsafe.Sizeof(mine), pe)
			}
		}
		return nil
	}
	if local(0) {
		return nil
	}
	p := ch.take("shmem.Init", netModelMailWord, 0, unsafe.Sizeof(mine))
	got := *(*netModel)(p)
	netFreeMail(p)
	if got.BW <= 0 || got.Lat < 0 {
		return fmt.Errorf("PE 0's network model: latency %d ns, bandwidth %d MB/s", got.Lat, got.BW)
	}
	netLat, netBW = time.Duration(got.Lat), got.BW
	if netLat != machineModel.LatNet || netBW != machineModel.BWNet {
		modelFields = maps.Clone(modelFields)
		if modelFields == nil {
			modelFields = map[string]string{}
		}
		modelFields["LatNet"] = fmt.Sprintf("PE 0's (on %s; this node's: %v)", Host(0), machineModel.LatNet)
		modelFields["BWNet"] = fmt.Sprintf("PE 0's (on %s; this node's: %d MB/s)", Host(0), machineModel.BWNet)
		machineModel.LatNet, machineModel.BWNet = netLat, netBW
	}
	return nil
}

// netModelMailWord names the channel of netModelInit's message: a word of the reserved
// debug words no meeting and no SHMEM_DEBUG record uses (see debugMailWord).
const netModelMailWord = 3

// netCostModel is the model the network phases' choices price.
func netCostModel() topology.CostModel {
	m := costModel()
	m.LatNet, m.BWNet = netLat, netBW
	return m
}

// calibrateAtExit is the cache directory when this PE, a node's leader, found no model of
// its machine there: it measures one in Finalize, for the node's later jobs. shmemrun
// measures before a one-node job's PEs start, so nothing of ours runs on the CPUs being
// measured; in a job a PMIx launcher started the PEs are running already, and at the end of
// the job they are done (about 0.2 s, once per machine kind and cache directory).
var calibrateAtExit string

// modelCached: this PE, a node's leader, found its machine's model in the cache.
var modelCached bool

// calibrateNode measures this machine's model over the CPUs the process's cgroup allows (my
// own threads may be pinned to one) and writes it into the cache. Failures are reported:
// the next job runs on the default model again.
func calibrateNode() {
	dir := calibrateAtExit
	calibrateAtExit = ""
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "goshmem: PE %d (on %s): calibrating this node's cost model: %v (shmemrun --calibrate measures one)\n", me, Host(me), err)
	}
	t, err := topology.Read("")
	if err != nil {
		fail(err)
		return
	}
	allowed, err := topology.CgroupAllowed(t)
	if err != nil {
		fail(err)
		return
	}
	ms, combine, err := calibrate.Measure(t, allowed, calibrate.Options{})
	if err != nil {
		fail(err)
		return
	}
	f := calibrate.Model(topology.MachineKey(t), time.Now(), ms, combine)
	if _, err := topology.WriteNodeModel(filepath.Join(dir, topology.ModelFileName(f.Machine)), f); err != nil {
		fail(err)
	}
}
