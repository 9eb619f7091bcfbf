package rt

import (
	"fmt"
	"math/bits"
	"os"
	"sync"
	"sync/atomic"

	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// The Auto policy: which algorithm each collective runs for a group and a message size.
// Every input (the group, the size, the settings every PE inherits from the launcher, the
// placement map in the control block) is the same on every PE, so every PE chooses alike.

// Alg names a collective algorithm; the names are the SHMEM_*_ALGORITHM values.
type Alg uint8

const (
	AlgAuto Alg = iota
	AlgLinear
	AlgTree
	AlgDissem
	AlgRing
	AlgDirect
	AlgPairwise
)

var algNames = [...]string{"auto", "linear", "tree", "dissem", "ring", "direct", "pairwise"}

func (a Alg) String() string { return algNames[a] }

func parseAlg(s string) Alg {
	for i, n := range algNames {
		if n == s {
			return Alg(i)
		}
	}
	panic("rt: unknown algorithm " + s) // settings.Parse has validated the value
}

// Overrides from the environment, and the crossovers.
var (
	forceBarrier, forceBcast, forceReduce, forceAlltoall, forceFcollect Alg
	collRadix                                                           = 4
	forceNetReduce, forceNetBcast, forceNetGather                       topology.Algorithm // "": auto
	collCrossover                                                       int                // PEs
	sizeCrossover                                                       int                // bytes
)

func algInit() error {
	forceBarrier = parseAlg(conf.String("SHMEM_BARRIER_ALGORITHM"))
	forceBcast = parseAlg(conf.String("SHMEM_BCAST_ALGORITHM"))
	forceReduce = parseAlg(conf.String("SHMEM_REDUCE_ALGORITHM"))
	forceAlltoall = parseAlg(conf.String("SHMEM_ALLTOALL_ALGORITHM"))
	forceFcollect = parseAlg(conf.String("SHMEM_FCOLLECT_ALGORITHM"))
	forceNetReduce = netForce("GOSHMEM_NET_REDUCE_ALGORITHM")
	forceNetBcast = netForce("GOSHMEM_NET_BCAST_ALGORITHM")
	forceNetGather = netForce("GOSHMEM_NET_COLLECT_ALGORITHM")
	collRadix = conf.Int("SHMEM_COLL_RADIX")
	if collRadix < 2 {
		return fmt.Errorf("SHMEM_COLL_RADIX=%d: the fan-out of a tree must be at least 2", collRadix)
	}
	collCrossover = conf.Int("SHMEM_COLL_CROSSOVER")
	sizeCrossover = int(conf.Size("SHMEM_COLL_SIZE_CROSSOVER"))
	return modelInit(os.LookupEnv)
}

// netForce is a network algorithm setting's value, "" for auto.
func netForce(name string) topology.Algorithm {
	if v := conf.String(name); v != "auto" {
		return topology.Algorithm(v)
	}
	return ""
}

// auto is the tuning table's verdict for coll over g at nbytes when a table matches the job
// and g is all of it, else the cost model's (the calibrated one when the launcher passed
// one, else the default), cached per group and power-of-two
// size class (the class's upper bound is what Choose prices, so the verdict does not
// depend on which size a PE happened to see first), then the crossover settings:
// SHMEM_COLL_CROSSOVER moves groups smaller than it to the linear algorithm and larger
// ones off it; SHMEM_COLL_SIZE_CROSSOVER moves reductions and fcollects to ring from that
// size and off it below.
func auto(coll topology.Collective, g Group, nbytes int) Alg {
	class := bits.Len(uint(max(nbytes, 1) - 1))
	k := verdictKey{coll, g, class}
	// A direct-mapped cache in front of the map: collectives ask on every call.
	slot := &verdictCache[(uint(g.Start)*31+uint(g.Stride)*7+uint(g.Size)*131+uint(coll)*17+uint(class))%uint(len(verdictCache))]
	if e := slot.Load(); e != nil && e.k == k {
		return e.a
	}
	if a, ok := verdicts.Load(k); ok {
		slot.Store(&verdictEntry{k, a.(Alg)})
		return a.(Alg)
	}
	pes := make([]topology.PEPlace, g.Size)
	for i := range pes {
		pes[i] = places[g.PE(i)]
	}
	v, _ := topology.ChooseTuned(coll, pes, 1<<class, costModel(), tableFor(g))
	a := parseAlg(string(v))
	if collCrossover > 0 {
		if g.Size < collCrossover {
			a = simpleAlg[coll]
		} else if a == simpleAlg[coll] {
			a = scalableAlg[coll]
		}
	}
	if sizeCrossover > 0 && (coll == topology.Reduce || coll == topology.FCollect) {
		if nbytes >= sizeCrossover {
			a = AlgRing
		} else if a == AlgRing {
			a = scalableAlg[coll]
			if coll == topology.FCollect {
				a = AlgLinear
			}
		}
	}
	verdicts.Store(k, a)
	slot.Store(&verdictEntry{k, a})
	return a
}

// costModel is the machine's model (calibrated or default) with this job's radix and eager
// region.
func costModel() topology.CostModel {
	m := machineModel
	m.TreeRadix = collRadix
	m.EagerRegion = (shm.SyncWords - wordEager) * 8
	return m
}

// The simple (linear) and the log-depth algorithm of each collective, for the crossovers.
var (
	simpleAlg = map[topology.Collective]Alg{topology.Barrier: AlgLinear, topology.Bcast: AlgLinear,
		topology.Reduce: AlgLinear, topology.FCollect: AlgLinear, topology.AllToAll: AlgDirect}
	scalableAlg = map[topology.Collective]Alg{topology.Barrier: AlgDissem, topology.Bcast: AlgTree,
		topology.Reduce: AlgTree, topology.FCollect: AlgRing, topology.AllToAll: AlgPairwise}
)

type verdictKey struct {
	coll  topology.Collective
	g     Group
	class int
}

var verdicts sync.Map // verdictKey -> Alg

type verdictEntry struct {
	k verdictKey
	a Alg
}

var verdictCache [256]atomic.Pointer[verdictEntry]

func chooseBarrier(g Group) Alg {
	if forceBarrier != AlgAuto {
		return forceBarrier
	}
	if sleepWait && g.Size > 2 {
		// PEs share CPUs: what costs is wake-ups, not cache lines, and the linear barrier
		// needs one per PE (see barrierLinear); the cost model prices cache lines.
		return AlgLinear
	}
	return auto(topology.Barrier, g, 0)
}

// choose is the override when there is one, else the Auto policy.
func choose(force Alg, coll topology.Collective, g Group, nbytes int) Alg {
	if force != AlgAuto {
		return force
	}
	return auto(coll, g, nbytes)
}

func chooseReduce(g Group, nbytes int) Alg { return choose(forceReduce, topology.Reduce, g, nbytes) }
func chooseBcast(g Group, nbytes int) Alg  { return choose(forceBcast, topology.Bcast, g, nbytes) }
func chooseAlltoall(g Group, nbytes int) Alg {
	return choose(forceAlltoall, topology.AllToAll, g, nbytes)
}
func chooseFcollect(g Group, nbytes int) Alg {
	return choose(forceFcollect, topology.FCollect, g, nbytes)
}
