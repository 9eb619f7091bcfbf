package rt

import (
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
