package rt

import "fmt"

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
	collCrossover                                                       int // PEs
	sizeCrossover                                                       int // bytes
)

func algInit() error {
	forceBarrier = parseAlg(conf.String("SHMEM_BARRIER_ALGORITHM"))
	forceBcast = parseAlg(conf.String("SHMEM_BCAST_ALGORITHM"))
	forceReduce = parseAlg(conf.String("SHMEM_REDUCE_ALGORITHM"))
	forceAlltoall = parseAlg(conf.String("SHMEM_ALLTOALL_ALGORITHM"))
	forceFcollect = parseAlg(conf.String("SHMEM_FCOLLECT_ALGORITHM"))
	collRadix = conf.Int("SHMEM_COLL_RADIX")
	if collRadix < 2 {
		return fmt.Errorf("SHMEM_COLL_RADIX=%d: the fan-out of a tree must be at least 2", collRadix)
	}
	collCrossover = conf.Int("SHMEM_COLL_CROSSOVER")
	sizeCrossover = int(conf.Size("SHMEM_COLL_SIZE_CROSSOVER"))
	return nil
}

// Defaults where the settings leave a crossover to the policy.
const (
	defaultPECrossover   = 16       // from this many PEs, log-depth beats linear
	defaultSizeCrossover = 32 << 10 // from this many bytes, ring beats tree and linear
)

func peCrossover() int {
	if collCrossover > 0 {
		return collCrossover
	}
	return defaultPECrossover
}

func ringCrossover() int {
	if sizeCrossover > 0 {
		return sizeCrossover
	}
	return defaultSizeCrossover
}

func chooseBarrier(g Group) Alg {
	if forceBarrier != AlgAuto {
		return forceBarrier
	}
	if g.Size > 2 && g.Size < peCrossover() && sleepWait {
		// Sharing CPUs, each wait may cost a sleep: a linear barrier waits once per PE,
		// dissemination log2(n) times per PE.
		return AlgLinear
	}
	return AlgDissem
}

func chooseReduce(g Group, nbytes int) Alg {
	if forceReduce != AlgAuto {
		return forceReduce
	}
	switch {
	case nbytes >= ringCrossover():
		return AlgRing
	case g.Size >= peCrossover():
		return AlgTree
	}
	return AlgLinear
}

func chooseBcast(g Group, nbytes int) Alg {
	if forceBcast != AlgAuto {
		return forceBcast
	}
	if g.Size >= peCrossover() {
		return AlgTree
	}
	return AlgLinear
}

func chooseAlltoall(g Group, nbytes int) Alg {
	if forceAlltoall != AlgAuto {
		return forceAlltoall
	}
	if g.Size >= peCrossover() {
		return AlgPairwise
	}
	return AlgDirect
}

func chooseFcollect(g Group, nbytes int) Alg {
	if forceFcollect != AlgAuto {
		return forceFcollect
	}
	if nbytes*g.Size >= ringCrossover() && g.Size >= peCrossover() {
		return AlgRing
	}
	return AlgLinear
}
