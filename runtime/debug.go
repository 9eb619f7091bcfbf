package rt

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// SHMEM_DEBUG=1: cross-PE argument checks and hang reports.

var (
	debug     bool
	hangAfter time.Duration // a wait this long ends the job with a report (debug only; 0: never)
)

func debugInit() {
	debug = conf.Bool("SHMEM_DEBUG")
	hangAfter = conf.Seconds("SHMEM_DEBUG_TIMEOUT")
}

// Debug reports whether SHMEM_DEBUG is on.
func Debug() bool { return debug }

// DebugAgree checks, in debug mode, that every PE passed the same value for a collective
// allocation's argument; a PE that disagrees reports its value and PE 0's and ends the job.
// The Go API checks element counts with it before the engine checks bytes, so a message
// speaks in the caller's units.
func DebugAgree(who, what string, v uint64) {
	if !debug {
		return
	}
	vals := World.allgatherWord(who, v)
	bad := false
	for _, x := range vals {
		bad = bad || x != vals[0]
	}
	if !bad {
		return
	}
	// Each PE that differs from PE 0 reports; the others wait for the job to end, so no
	// report is cut short by a silent PE ending the job first.
	if vals[me] != vals[0] {
		debugFail(fmt.Sprintf("%s: SHMEM_DEBUG: PEs passed different %s: PE 0 passed %d, PE %d passed %d", who, what, vals[0], me, vals[me]))
	}
	for {
		checkJob()
		time.Sleep(time.Millisecond)
	}
}

// Cross-PE checks of collective calls (SHMEM_DEBUG=1). At entry every member publishes its
// arguments in its slot, the members meet on two reserved words of the call's sync area,
// and each compares its record with member 0's; a second meeting keeps member 0's record
// until all have compared. A meeting that takes too long is diagnosed from the records:
// which members are elsewhere, in which routine over which PEs.

// CollCall is what a collective's arguments must agree on.
type CollCall struct {
	Who      string
	N        int64 // -1: may differ between members (collect)
	Root     int64
	Dst, Src unsafe.Pointer
	Extra    int64
	Barrier  bool // an active-set barrier: the next call may reuse its pSync
}

// debugMeetAfter bounds a debug meeting before it is diagnosed as a mismatch.
var debugMeetAfter = 5 * time.Second

func heapOffset(p unsafe.Pointer) int64 {
	if p == nil || !InHeap(p, 1) {
		return -1
	}
	return int64(Offset(p))
}

// pSync reuse (SHMEM_DEBUG). A pSync may serve a collective only once every PE of the
// active set has left the previous collective that used it: a barrier or another
// synchronizing call must come between, or calls alternate two pSync arrays (a barrier is
// that synchronization: after one, its pSync may serve the next call). Each PE counts its synchronizing calls (collectives, barriers,
// syncs, the allocator's) and remembers the last pSync and its call's count.
var (
	syncCalls uint64
	lastPSync struct {
		p       unsafe.Pointer
		call    uint64
		who     string
		barrier bool
	}
)

// debugEnter runs the checks of one collective call over g (I am member me) on area a: the
// members meet on words of their own (not the pSync, which may be the thing misused),
// compare their arguments with member 0's, check that their pSync holds SyncValue (no
// member has signalled into it yet: none has left the first meeting's release), and meet
// again.
func debugEnter(a area, g Group, me int, c CollCall) {
	if nodePhases.Load() > 0 {
		return // a node phase of a collective across nodes: the whole call was checked
	}
	syncCalls++
	if a.epoch == 0 {
		if lastPSync.p == a.p && lastPSync.call == syncCalls-1 && !lastPSync.barrier {
			debugFail(fmt.Sprintf("%s: SHMEM_DEBUG: pSync (heap offset %d) was used by the previous call, %s, with no barrier or other synchronization between: "+
				"a pSync may be reused only after every PE of the active set has left the call that used it; put a barrier between the calls, or alternate two pSync arrays",
				c.Who, heapOffset(a.p), lastPSync.who))
		}
		lastPSync.p, lastPSync.call, lastPSync.who, lastPSync.barrier = a.p, syncCalls, c.Who, c.Barrier
	}
	rec := &obj.Slot(MyPE()).Coll
	publish(rec, g, c)
	if h := hierOf(g); h != nil {
		debugAcrossNodes(g, h, me, c, rec)
		return
	}
	debugMeet(g, me, c)
	if me != 0 {
		var r0 shm.DebugRecord
		readRecord(&obj.Slot(g.PE(0)).Coll, &r0)
		var mine shm.DebugRecord
		readRecord(rec, &mine)
		if msg := recordDiff(c.Who, g.PE(0), &r0, MyPE(), &mine); msg != "" {
			debugFail(msg)
		}
	}
	for i := range shm.SyncWords {
		if a.epoch != 0 {
			break // a team's own words: they hold epochs, not the user's initialization
		}
		if v := atomic.LoadUint64(a.word(i)); v != shm.SyncValue {
			debugFail(fmt.Sprintf("%s: SHMEM_DEBUG: PE %d: pSync[%d] = %d on entry: every pSync element must hold SyncValue (%d) before the call: initialize it so before the first call, "+
				"and reuse a pSync only after every PE of the active set has left the previous call that used it (a barrier between, or two pSync arrays in turn)",
				c.Who, MyPE(), i, int64(v), shm.SyncValue))
		}
	}
	debugMeet(g, me, c)
}

// debugAcrossNodes checks a call over a group spanning nodes: member 0's record reaches
// the members on other nodes as mail (their nodes cannot read its slot), who compare it
// with theirs; the members on member 0's node meet and compare through shared memory as in
// a one-node call. A member whose mail does not come within debugMeetAfter reports where it
// waited.
func debugAcrossNodes(g Group, h *hier, me int, c CollCall, rec *shm.DebugRecord) {
	dbg := area{p: reserved(shm.ReservedDebugOffset)}
	pe0 := g.PE(0)
	var mine shm.DebugRecord
	readRecord(rec, &mine)
	if me == 0 {
		for j := 1; j < g.Size; j++ {
			if pe := g.PE(j); !local(pe) {
				dbg.mail(debugMailWord, unsafe.Pointer(&mine), unsafe.Sizeof(mine), pe)
			}
		}
	}
	if local(pe0) { // h.loc's member 0 is pe0
		debugMeet(h.loc, h.locMe, c)
		if me != 0 {
			var r0 shm.DebugRecord
			readRecord(&obj.Slot(pe0).Coll, &r0)
			if msg := recordDiff(c.Who, pe0, &r0, MyPE(), &mine); msg != "" {
				debugFail(msg)
			}
		}
		debugMeet(h.loc, h.locMe, c) // member 0's record stays until all compared
		return
	}
	deadline := time.Now().Add(debugMeetAfter)
	p, n := dbg.awaitMail(c.Who, debugMailWord, mailOut{to: -1}, pe0, func() {
		if time.Now().After(deadline) {
			debugFail(fmt.Sprintf("%s: SHMEM_DEBUG: PE %d (on %s) has waited %v for PE %d (on %s), member 0 of %s, to enter the call: it is elsewhere (another collective, or finished)",
				c.Who, MyPE(), Host(MyPE()), debugMeetAfter, pe0, Host(pe0), g))
		}
	})
	var r0 shm.DebugRecord
	if n == unsafe.Sizeof(r0) {
		r0 = *(*shm.DebugRecord)(p)
	}
	netFreeMail(p)
	if n != unsafe.Sizeof(r0) {
		debugFail(fmt.Sprintf("%s: SHMEM_DEBUG: a record of %d bytes came from PE %d: a PE of another goshmem build?", c.Who, n, pe0))
	}
	if msg := recordDiff(c.Who, pe0, &r0, MyPE(), &mine); msg != "" {
		debugFail(msg)
	}
}

// debugMailWord names the channel of debugAcrossNodes' records: a word of the reserved
// debug words of every PE that no meeting uses.
const debugMailWord = 2

// debugLeave marks the end of the call in the record.
func debugLeave() {
	if debug && nodePhases.Load() == 0 {
		atomic.StoreInt32(&obj.Slot(MyPE()).Coll.Active, 0)
	}
}

func publish(rec *shm.DebugRecord, g Group, c CollCall) {
	seq := atomic.AddUint64(&rec.Seq, 1) // odd: writing
	putName(rec.Routine[:], c.Who)
	rec.Start, rec.Stride, rec.Size = int32(g.PE(0)), int32(g.Stride), int32(g.Size)
	if !g.Strided() {
		rec.Stride = -1 // a listed group (a node's PEs): reports name its first PE and size
	}
	rec.N, rec.Root, rec.Extra = c.N, c.Root, c.Extra
	rec.Dst, rec.Src = heapOffset(c.Dst), heapOffset(c.Src)
	atomic.StoreInt32(&rec.Active, 1)
	atomic.StoreUint64(&rec.Seq, seq+1)
}

// readRecord copies a peer's record consistently (retrying while the owner writes it).
func readRecord(rec *shm.DebugRecord, out *shm.DebugRecord) {
	for {
		s := atomic.LoadUint64(&rec.Seq)
		if s%2 == 0 {
			*out = *rec
			if atomic.LoadUint64(&rec.Seq) == s {
				return
			}
		}
		shm.Pause()
	}
}

// RecordString describes a record for reports.
func RecordString(r *shm.DebugRecord) string {
	name := nameOf(r.Routine[:])
	if name == "" || r.Size < 1 {
		return "no collective yet"
	}
	return fmt.Sprintf("%s over %s", name, Group{Start: int(r.Start), Stride: int(r.Stride), Size: int(r.Size)})
}

// putName writes a routine's name into a field of shared memory (a debug record's, a
// slot's), NUL-padded and truncated to the field; nameOf reads it back.
func putName(b []byte, s string) {
	clear(b)
	copy(b, s)
}

func nameOf(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// String lists a group's PEs compactly: "PEs 0..7", "PEs 1,3,5".
func (g Group) String() string {
	if g.Stride == 1 {
		return fmt.Sprintf("PEs %d..%d", g.Start, g.Start+g.Size-1)
	}
	pes := make([]string, g.Size)
	for i := range pes {
		pes[i] = strconv.Itoa(g.PE(i))
	}
	return "PEs " + strings.Join(pes, ",")
}

func recordDiff(who string, pe0 int, r0 *shm.DebugRecord, pe int, r *shm.DebugRecord) string {
	diff := func(what string, a, b int64) string {
		return fmt.Sprintf("%s: SHMEM_DEBUG: PEs passed different %s: PE %d passed %d, PE %d passed %d", who, what, pe0, a, pe, b)
	}
	switch {
	case r0.Routine != r.Routine || r0.Start != r.Start || r0.Stride != r.Stride || r0.Size != r.Size:
		return fmt.Sprintf("%s: SHMEM_DEBUG: PE %d is in %s, PE %d in %s", who, pe0, RecordString(r0), pe, RecordString(r))
	case r0.N != r.N:
		return diff("element counts", r0.N, r.N)
	case r0.Root != r.Root:
		return diff("roots", r0.Root, r.Root)
	case r0.Extra != r.Extra:
		return diff("strides or operations", r0.Extra, r.Extra)
	case r0.Dst != r.Dst:
		return diff("dst arrays (symmetric heap offsets)", r0.Dst, r.Dst)
	case r0.Src != r.Src:
		return diff("src arrays (symmetric heap offsets)", r0.Src, r.Src)
	}
	return ""
}

// debugMeet is a linear barrier of the group on two words of each PE's reserved segment
// part (shm.ReservedDebugOffset), bounded by debugMeetAfter; past it the members' records
// tell what went wrong. A PE is in one collective at a time, so member 0's words count
// only its group's arrivals.
func debugMeet(g Group, me int, c CollCall) {
	a := area{p: reserved(shm.ReservedDebugOffset)}
	deadline := time.Now().Add(debugMeetAfter)
	await := func(word int, n uint64) {
		w := a.word(word)
		polls := 0
		Await(c.Who, WaitCollective, word, func() bool {
			if atomic.LoadUint64(w) >= n {
				return true
			}
			if polls++; polls%1024 == 0 && time.Now().After(deadline) {
				debugFail(diagnose(g, c))
			}
			return false
		})
		atomic.AddUint64(w, -n)
	}
	if me != 0 {
		a.signal(0, g.PE(0), 1)
		await(1, 1)
		return
	}
	await(0, uint64(g.Size-1))
	for j := 1; j < g.Size; j++ {
		a.signal(1, g.PE(j), 1)
	}
}

// diagnose says, from the records, which members are not in this call.
func diagnose(g Group, c CollCall) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: SHMEM_DEBUG: PE %d has waited %v for %s to enter; the members are elsewhere:", c.Who, MyPE(), debugMeetAfter, g)
	var mine shm.DebugRecord
	readRecord(&obj.Slot(MyPE()).Coll, &mine)
	for i := range g.Size {
		pe := g.PE(i)
		var r shm.DebugRecord
		readRecord(&obj.Slot(pe).Coll, &r)
		switch {
		case atomic.LoadUint32(&obj.Slot(pe).State) != shm.StateRunning:
			fmt.Fprintf(&b, "\n  PE %d: not running (exited or finalized)", pe)
		case r.Active == 0:
			fmt.Fprintf(&b, "\n  PE %d: not in a collective", pe)
		case r.Routine != mine.Routine || r.Start != mine.Start || r.Stride != mine.Stride || r.Size != mine.Size:
			fmt.Fprintf(&b, "\n  PE %d: in %s", pe, RecordString(&r))
		}
	}
	return b.String()
}

// debugFail reports a failed check and ends the job.
func debugFail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	GlobalExit(1)
}
