package rt

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// Team is a group of PEs with its own synchronization words: team slot Slot of every
// member's segment holds two sync areas, used by alternate collectives.
type Team struct {
	G         Group
	Me        int // my index in G
	Slot      int
	Config    TeamConfig
	destroyed bool
	barAlg    Alg  // the team's barrier algorithm, chosen at its first barrier
	pair      bool // set with barAlg: a whole synchronization is pairSync
	s         *teamSync
	own       teamSync // s of every team but the world team
}

// teamSync is a team's collective state that the C ABI's barrier fast path (cabi's
// fastpath.h) shares for the world team, whose teamSync lies in my reserved part
// (shm.ReservedWorldSyncOffset): C cannot keep a pointer to Go memory.
type teamSync struct {
	seq uint64 // collectives run on this team: picks the area
	// eagerSent: an eager message this PE sent on the team's areas (the world team's: or on
	// a pSync) since the team's last barrier may be unread (eagerFresh).
	eagerSent uint64 // 1: set; written with plain stores (a locked one drains the store buffer)
}

// newTeam is the team of group g in which I am member i, on team slot slot.
func newTeam(g Group, i, slot int, cfg TeamConfig) *Team {
	t := &Team{G: g, Me: i, Slot: slot, Config: cfg}
	t.s = &t.own
	return t
}

// barrier synchronizes the team on area a (one of its own), with the barrier algorithm
// chosen once: a barrier is a hand-off or two, and the choice's lookup costs a fair part
// of one.
func (t *Team) barrier(who string, a *area) {
	barrierAlg(who, t.G, t.Me, a, t.barrierChoice())
	t.eagerReset()
}

// barrierChoice is the team's barrier algorithm, chosen at the first call; t.pair is set
// with it.
func (t *Team) barrierChoice() Alg {
	if t.barAlg == AlgAuto {
		t.barAlg = chooseBarrier(t.G)
		// barrierDissem's pair case, known for every call: two members on one node (a
		// team area's epoch is never 0), and no debug marks to publish.
		t.pair = t.barAlg == AlgDissem && t.G.Size == 2 && !multiNode && !debug
	}
	return t.barAlg
}

// eagerReset ends a barrier of the team: every member entered, so each had read my earlier
// eager messages.
func (t *Team) eagerReset() {
	if atomic.LoadUint64(&t.s.eagerSent) != 0 {
		shm.StoreRelease(&t.s.eagerSent, 0)
	}
}

// pairSync is a whole synchronization of a team whose barrier is barrierPair (t.pair):
// next, barrierAlg's epoch step and barrierPair with nothing between. At 2 PEs the path from
// seeing the other's flag to storing the next one is the barrier's whole cycle, and the
// calls between (debug marks, the algorithm's switch, the pair test) cost more than their
// instructions: BarrierAll at 2 PEs, Zen 2 VM, 0.087 -> 0.072 us in its shared-cache
// placement (barrierPair's paused first polls took it to 0.050), 0.27 -> 0.11-0.16 us
// across cores, alternating runs.
//
// cabi's fastpath.h does the same for the world team in C (goshmem_fast_pair_sync, from
// CABIView's Pair fields): a change here is a change there.
func (t *Team) pairSync(who string) {
	a := t.next()
	a.epoch++
	barrierPair(who, t.G, t.Me, &a)
	t.eagerReset()
}

// TeamConfig is the spec's shmem_team_config_t.
type TeamConfig struct {
	NumContexts int
}

// Predefined team slots.
const (
	slotWorld = iota
	slotShared
	firstFreeSlot
)

var (
	World, Shared *Team
	teamMu        sync.Mutex
	teamFree      uint64 // bit s set: slot s is free on this PE
)

func teamsInit() {
	g := Group{Start: 0, Stride: 1, Size: npes}
	World = &Team{G: g, Me: me, Slot: slotWorld}
	World.s = (*teamSync)(reserved(shm.ReservedWorldSyncOffset))
	*World.s = teamSync{}
	// The shared team is the PEs of my node: every PE of a shmemrun job.
	sg := g
	if nodeOf != nil {
		sg = listGroup(nodePEs)
	}
	Shared = newTeam(sg, sg.Index(me), slotShared, TeamConfig{})
	teamFree = ^uint64(0) &^ (1<<firstFreeSlot - 1)
}

func teamArea(slot, parity int) area {
	return area{p: reserved(uintptr(shm.ReservedTeamsOffset + slot*shm.TeamAreaSize + parity*shm.SyncWords*8))}
}

// next is the sync area for the team's next collective.
func (t *Team) next() area {
	t.s.seq++
	a := teamArea(t.Slot, int(t.s.seq&1))
	a.epoch = t.s.seq * 16 // room for 15 barriers in one call, increasing in each area
	a.pairLine = teamArea(t.Slot, 0).p
	a.eagerSent = &t.s.eagerSent
	return a
}

// Check panics if t is not a usable team.
func (t *Team) Check(who string) {
	Check(who)
	if t == nil {
		panic(who + ": invalid team (shmem.TeamInvalid, or a split this PE is not in)")
	}
	if t.destroyed {
		panic(who + ": team was destroyed")
	}
}

// Sync synchronizes the team's members (shmem_team_sync).
func (t *Team) Sync(who string) {
	t.Check(who)
	if t.pair {
		t.pairSync(who)
		return
	}
	a := t.next()
	if debugMark(who, t.G) {
		defer debugLeave()
	}
	t.barrier(who, &a)
}

// SyncAll synchronizes every PE (shmem_sync_all).
func SyncAll() { World.Sync("shmem.SyncAll") }

// BarrierAll completes my outstanding puts and synchronizes every PE.
func BarrierAll() {
	if World != nil && World.pair { // nil before Init
		Check("shmem.BarrierAll")
		shm.FenceStore() // as barrierAll (World.pair: one node)
		World.pairSync("shmem.BarrierAll")
		return
	}
	barrierAll("shmem.BarrierAll")
}

// barrierAll is BarrierAll for routine who (the allocator's synchronizations).
func barrierAll(who string) {
	Check(who)
	if multiNode {
		Quiet()
	} else {
		// My stores must be visible before my arrival is: x86 keeps ordinary stores in
		// order, SFENCE adds the fast-string and non-temporal ones (a copy's), and
		// nothing needs the store-load order of Quiet's locked instruction, whose wait
		// for the store buffer is a cache-line transfer when the last barrier's flag
		// is still on its way.
		shm.FenceStore()
	}
	a := World.next()
	if debugMark(who, World.G) {
		defer debugLeave()
	}
	World.barrier(who, &a)
}

// Barrier is the active-set barrier on the user's pSync.
func Barrier(who string, g Group, i int, pSync unsafe.Pointer) {
	Quiet()
	if debug {
		debugEnter(area{p: pSync}, g, i, CollCall{Who: who, Root: -1, Barrier: true})
		defer debugLeave()
	}
	barrier(who, g, i, &area{p: pSync})
}

// allgatherWord gives every member of t the value each member passed, in team order.
func (t *Team) allgatherWord(who string, v uint64) []uint64 {
	if debugMark(who, t.G) {
		defer debugLeave()
	}
	a := t.next()
	if h := hierOf(t.G); h != nil {
		w := a.word(wordValue)
		atomic.StoreUint64(w, v)
		out := unsafe.Slice((*uint64)(reserved(shm.ReservedScratchOff)), t.G.Size)
		na := a.net()
		gatherHier(who, t.G, h, &a, &na, 0, netData, false, CollectArgs{Dst: unsafe.Pointer(&out[0]), Src: unsafe.Pointer(w), Bytes: 8, Fixed: true})
		atomic.StoreUint64(w, 0)
		return append([]uint64(nil), out...)
	}
	atomic.StoreUint64(a.word(wordValue), v)
	barrier(who, t.G, t.Me, &a)
	out := make([]uint64, t.G.Size)
	for j := range out {
		out[j] = atomic.LoadUint64((*uint64)(Remote(unsafe.Pointer(a.word(wordValue)), t.G.PE(j))))
	}
	barrier(who, t.G, t.Me, &a) // nobody overwrites the word before everyone has read it
	return out
}

// commonFreeSlots agrees with every member of parent on n team slots free on all of them.
func (parent *Team) commonFreeSlots(who string, n int) ([]int, error) {
	teamMu.Lock()
	mine := teamFree
	teamMu.Unlock()
	free := ^uint64(0)
	for _, m := range parent.allgatherWord(who, mine) {
		free &= m
	}
	slots := make([]int, 0, n)
	for ; free != 0 && len(slots) < n; free &= free - 1 {
		slots = append(slots, bits.TrailingZeros64(free))
	}
	if len(slots) < n {
		return nil, fmt.Errorf("%s: no free team slot common to the parent team's PEs (%d slots per PE; destroy unused teams)", who, shm.MaxTeams)
	}
	return slots, nil
}

// claim makes t's slot mine and clears its words. Words of a slot whose last team finished
// cleanly are already zero; clearing makes that independent of how it ended.
func claim(t *Team) {
	teamMu.Lock()
	teamFree &^= 1 << t.Slot
	teamMu.Unlock()
	clear(unsafe.Slice((*byte)(teamArea(t.Slot, 0).p), shm.TeamAreaSize))
}

// SplitStrided makes the team of parent members start, start+stride, ... (size of them; a
// negative stride counts down, as OpenSHMEM 1.6 allows), collectively over parent. PEs
// outside it get nil and no error.
func (parent *Team) SplitStrided(who string, start, stride, size int, cfg TeamConfig) (*Team, error) {
	parent.Check(who)
	n := parent.G.Size
	switch {
	case start < 0 || start >= n:
		return nil, fmt.Errorf("%s: start %d out of range [0,%d) of the parent team", who, start, n)
	case size < 1:
		return nil, fmt.Errorf("%s: size %d must be at least 1", who, size)
	case size > n:
		return nil, fmt.Errorf("%s: size %d out of range [1,%d] of the parent team", who, size, n)
	case size > 1 && (stride >= n || stride <= -n): // (size-1)*stride below cannot overflow
		return nil, fmt.Errorf("%s: stride %d out of range (-%d,%d) of the parent team", who, stride, n, n)
	case stride == 0 && size > 1:
		return nil, fmt.Errorf("%s: stride 0 with size %d: a stride is non-zero (negative: members in reverse order)", who, size)
	case start+(size-1)*stride >= n || start+(size-1)*stride < 0:
		return nil, fmt.Errorf("%s: (start %d, stride %d, size %d) reaches parent PE %d, out of range [0,%d)", who, start, stride, size, start+(size-1)*stride, n)
	}
	if size == 1 {
		stride = 1
	}
	slots, err := parent.commonFreeSlots(who, 1)
	if err != nil {
		return nil, err
	}
	g := parent.G.Sub(start, stride, size)
	var t *Team
	if i := g.Index(me); i >= 0 {
		t = newTeam(g, i, slots[0], cfg)
		claim(t)
	}
	pa := parent.next()
	barrier(who, parent.G, parent.Me, &pa) // cleared before anyone signals into it
	return t, nil
}

// Split2D splits parent into a grid xrange wide: xteam holds my row, yteam my column.
func (parent *Team) Split2D(who string, xrange int, xcfg, ycfg TeamConfig) (*Team, *Team, error) {
	parent.Check(who)
	n := parent.G.Size
	if xrange < 1 {
		return nil, nil, fmt.Errorf("%s: xrange %d must be at least 1", who, xrange)
	}
	xrange = min(xrange, n)
	slots, err := parent.commonFreeSlots(who, 2)
	if err != nil {
		return nil, nil, err
	}
	p := parent.Me
	x, y := p%xrange, p/xrange
	xg := parent.G.Sub(y*xrange, 1, min(xrange, n-y*xrange))
	yg := parent.G.Sub(x, xrange, (n-x+xrange-1)/xrange)
	xt := newTeam(xg, x, slots[0], xcfg)
	yt := newTeam(yg, y, slots[1], ycfg)
	claim(xt)
	claim(yt)
	pa := parent.next()
	barrier(who, parent.G, parent.Me, &pa)
	return xt, yt, nil
}

// Destroy synchronizes the team and frees its slot.
func (t *Team) Destroy(who string) {
	t.Check(who)
	if t == World || t == Shared {
		panic(who + ": the predefined teams cannot be destroyed")
	}
	a := t.next()
	barrier(who, t.G, t.Me, &a)
	t.destroyed = true
	teamMu.Lock()
	teamFree |= 1 << t.Slot
	teamMu.Unlock()
}

// Translate maps member pe of t to its number in dst, or -1.
func (t *Team) Translate(pe int, dst *Team) int {
	if t == nil || dst == nil || t.destroyed || dst.destroyed || pe < 0 || pe >= t.G.Size {
		return -1
	}
	return dst.G.Index(t.G.PE(pe))
}
