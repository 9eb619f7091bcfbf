package rt

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/goshmem/shmem/topology"
)

type netVerdictKey struct {
	coll           topology.Collective
	leaders, class int
	mailable       bool
}

var netVerdicts sync.Map // netVerdictKey -> netRed*, netBcast*

// netVerdictCache is a direct-mapped cache in front of netVerdicts, as verdictCache is.
var netVerdictCache [64]atomic.Pointer[netVerdictEntry]

type netVerdictEntry struct {
	k netVerdictKey
	a int
}

func (k netVerdictKey) slot() *atomic.Pointer[netVerdictEntry] {
	return &netVerdictCache[(uint(k.coll)*17+uint(k.leaders)*31+uint(k.class)*7)%uint(len(netVerdictCache))]
}

// cached is k's verdict, if one was stored.
func (k netVerdictKey) cached() (int, bool) {
	if e := k.slot().Load(); e != nil && e.k == k {
		return e.a, true
	}
	if v, ok := netVerdicts.Load(k); ok {
		k.slot().Store(&netVerdictEntry{k, v.(int)})
		return v.(int), true
	}
	return 0, false
}

func (k netVerdictKey) store(a int) {
	netVerdicts.Store(k, a)
	k.slot().Store(&netVerdictEntry{k, a})
}

// netPick is the network algorithm of coll among L leaders at nbytes: force (a
// GOSHMEM_NET_*_ALGORITHM) where can says it runs, else the one m prices cheapest among
// those that can.
func netPick(coll topology.Collective, L int, nbytes uintptr, m topology.CostModel, force topology.Algorithm, can func(topology.Algorithm) bool) topology.Algorithm {
	if force != "" && can(force) {
		return force
	}
	a, _ := topology.NetChoose(coll, L, int64(min(nbytes, math.MaxInt64)), m, can)
	return a
}

// netVerdict is alg's verdict for coll among L leaders at nbytes, for this job, cached per
// leader count, size class and, when byMail, whether the data fits a message: alg prices
// the class's upper bound (as auto does), kept on nbytes' side of the message limit.
func netVerdict(coll topology.Collective, L int, nbytes uintptr, byMail bool, alg func(class uintptr) int) int {
	k := netVerdictKey{coll, L, bits.Len64(uint64(max(nbytes, 1) - 1)), byMail && netMailable(nbytes)}
	if v, ok := k.cached(); ok {
		return v
	}
	class := uintptr(1) << k.class
	if byMail {
		if k.mailable {
			class = min(class, netEagerMax)
		} else {
			class = max(class, netEagerMax+1)
		}
	}
	a := alg(class)
	k.store(a)
	return a
}
