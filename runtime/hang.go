package rt

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/goshmem/shmem/runtime/shm"
)

// Hang reports. With SHMEM_DEBUG=1 a wait that lasts SHMEM_DEBUG_TIMEOUT seconds ends the
// job: the first PE to notice says where it waits, which members of its collective have not
// arrived, and what every PE is doing, then exits the job with status 1. shmemrun's
// --timeout report describes the PEs the same way (PEActivity).

// debugMark publishes, with SHMEM_DEBUG, that this PE is in routine who over g, for the
// synchronizations that have no argument checks (barrier_all, sync, Init, Finalize, the
// allocator's): a hang report can then say who has not arrived. It reports whether it
// published, and then the caller ends the mark with debugLeave; inside a routine that
// published already (an allocation's barriers) it leaves that routine's record.
func debugMark(who string, g Group) bool {
	if !debug || atomic.LoadInt32(&obj.Slot(me).Coll.Active) == 1 {
		return false
	}
	publish(&obj.Slot(me).Coll, g, CollCall{Who: who, Root: -1})
	syncCalls++ // a synchronization between two uses of a pSync (see debugEnter)
	return true
}

// debugHang ends the job with a report once this PE has waited longer than hangAfter.
func debugHang(slot *shm.Slot) {
	if !debug || hangAfter <= 0 {
		return
	}
	since := atomic.LoadInt64(&slot.WaitSince)
	if since == 0 || time.Since(time.Unix(0, since)) < hangAfter {
		return
	}
	if !atomic.CompareAndSwapUint32(&hdr.HangReported, 0, 1) {
		return // another PE of my node reports; its GlobalExit ends this one
	}
	fmt.Fprint(os.Stderr, hangReport(me, time.Now()))
	if multiNode {
		// My node sees only its own PEs: give the other nodes' waiting PEs, which reach
		// their limit at about the same moment, time to report theirs before the job ends.
		time.Sleep(hangGrace)
	}
	GlobalExit(1)
}

// hangGrace is how long a hang report across nodes waits for the other nodes' reports.
const hangGrace = 2 * time.Second

// hangReport is the report of PE pe's hang.
func hangReport(pe int, now time.Time) string {
	var b strings.Builder
	s := obj.Slot(pe)
	var r shm.DebugRecord
	where := WaitName(atomic.LoadUint32(&s.WaitOp))
	var missing []int
	if tryReadRecord(&s.Coll, &r) && r.Active == 1 {
		where = RecordString(&r)
		// Only my node's slots are in my mapping: its members elsewhere are not judged.
		missing = slices.DeleteFunc(NotArrived(obj, &r, func(int) bool { return false }), func(q int) bool { return !local(q) })
	}
	fmt.Fprintf(&b, "shmem: SHMEM_DEBUG: PE %d", pe)
	if multiNode {
		fmt.Fprintf(&b, " on %s", Host(pe))
	}
	fmt.Fprintf(&b, " has waited %v in %s", waited(s, now), where)
	switch {
	case len(missing) > 0 && multiNode:
		fmt.Fprintf(&b, "; not arrived on this node: %s", peList(missing))
	case len(missing) > 0:
		fmt.Fprintf(&b, "; not arrived: %s", peList(missing))
	case multiNode:
		b.WriteString("; every member on this node has arrived")
	}
	b.WriteString("\n")
	const most = 64 // lines: a big job's report names the absent first
	order := slices.DeleteFunc(append(missing, allPEsBut(missing, npes)...), func(q int) bool { return !local(q) })
	for i, q := range order {
		if i == most {
			fmt.Fprintf(&b, "  ... and %d more PEs\n", len(order)-most)
			break
		}
		fmt.Fprintf(&b, "  PE %d (pid %d): %s\n", q, atomic.LoadInt32(&obj.Slot(q).Pid), PEActivity(obj, q, now))
	}
	if multiNode {
		nodes := otherNodes()
		for i, h := range nodes {
			if i == most {
				fmt.Fprintf(&b, "  ... and %d more nodes\n", len(nodes)-most)
				break
			}
			fmt.Fprintf(&b, "  %s on %s: another node; a PE of it that waits as long reports it\n", peRanges(h.pes), h.host)
		}
	}
	fmt.Fprintf(&b, "shmem: SHMEM_DEBUG: ending the job: a wait passed SHMEM_DEBUG_TIMEOUT=%d seconds (0: no limit)\n", int(hangAfter/time.Second))
	return b.String()
}

// otherNodes lists the other nodes of the job, each with its PEs, in the order of their
// lowest PE.
func otherNodes() []nodeList {
	var out []nodeList
	at := map[int32]int{}
	for pe := range npes {
		if local(pe) {
			continue
		}
		i, ok := at[nodeOf[pe]]
		if !ok {
			i = len(out)
			at[nodeOf[pe]] = i
			out = append(out, nodeList{host: Host(pe)})
		}
		out[i].pes = append(out[i].pes, pe)
	}
	return out
}

type nodeList struct {
	host string
	pes  []int
}

// peRanges is peList with runs of consecutive PEs as ranges ("PEs 4-7, 12"), at most 16
// of them named.
func peRanges(pes []int) string {
	var parts []string
	for i := 0; i < len(pes); {
		j := i
		for j+1 < len(pes) && pes[j+1] == pes[j]+1 {
			j++
		}
		if len(parts) == 16 {
			parts = append(parts, fmt.Sprintf("... (%d PEs in all)", len(pes)))
			break
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", pes[i], pes[j]))
		} else {
			parts = append(parts, strconv.Itoa(pes[i]))
		}
		i = j + 1
	}
	if len(pes) == 1 {
		return "PE " + parts[0]
	}
	return "PEs " + strings.Join(parts, ", ")
}

func allPEsBut(skip []int, n int) []int {
	out := make([]int, 0, n)
	for q := range n {
		if !containsInt(skip, q) {
			out = append(out, q)
		}
	}
	return out
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// peList is "PE 2" or "PEs 2, 5".
func peList(pes []int) string {
	s := make([]string, len(pes))
	for i, p := range pes {
		s[i] = strconv.Itoa(p)
	}
	if len(s) == 1 {
		return "PE " + s[0]
	}
	return "PEs " + strings.Join(s, ", ")
}

// waited is how long the wait recorded in s has lasted, or "?" when no wait is recorded.
func waited(s *shm.Slot, now time.Time) string {
	since := atomic.LoadInt64(&s.WaitSince)
	if since <= 0 {
		return "?"
	}
	return now.Sub(time.Unix(0, since)).Round(time.Millisecond).String()
}

// NotArrived lists the members of r's group that are not in the same call (their records
// name another routine or group, or none), or are in it but cannot proceed (stopped by a
// signal, or gone). exited reports PEs known to have exited.
func NotArrived(o *shm.Object, r *shm.DebugRecord, exited func(int) bool) []int {
	var missing []int
	for i := range int(r.Size) {
		pe := int(r.Start) + i*int(r.Stride)
		if pe < 0 || pe >= o.Layout.NPEs {
			continue
		}
		var q shm.DebugRecord
		ok := tryReadRecord(&o.Slot(pe).Coll, &q)
		if exited(pe) || !ok || q.Active == 0 || q.Routine != r.Routine || q.Start != r.Start || q.Stride != r.Stride || q.Size != r.Size ||
			atomic.LoadUint32(&o.Slot(pe).State) == shm.StateFinalized || cannotProceed(int(atomic.LoadInt32(&o.Slot(pe).Pid))) {
			missing = append(missing, pe)
		}
	}
	return missing
}

// tryReadRecord is readRecord that gives up on a record left half-written (its PE stopped
// or died while writing it).
func tryReadRecord(rec *shm.DebugRecord, out *shm.DebugRecord) bool {
	for range 1000 {
		s := atomic.LoadUint64(&rec.Seq)
		if s%2 == 0 {
			*out = *rec
			if atomic.LoadUint64(&rec.Seq) == s {
				return true
			}
		}
		shm.Pause()
	}
	return false
}

// PEActivity says what PE pe of the job is doing, from its slot and its process's state
// in /proc: not started, stopped by a signal, exited (after Finalize or not), waiting in a
// routine (its name and kind; the collective and its group with SHMEM_DEBUG) and for how
// long, or running outside the library's waits.
func PEActivity(o *shm.Object, pe int, now time.Time) string {
	s := o.Slot(pe)
	pid := int(atomic.LoadInt32(&s.Pid)) // the callers name it
	state := atomic.LoadUint32(&s.State)
	if pid == 0 {
		return "not started: has not called shmem.Init"
	}
	switch procState(pid) {
	case 0, 'Z', 'X':
		if state == shm.StateFinalized {
			return "exited after shmem.Finalize"
		}
		return "exited without shmem.Finalize"
	case 'T', 't':
		return "stopped by a signal"
	}
	if state == shm.StateNone {
		return "in shmem.Init, not yet joined"
	}
	if state == shm.StateFinalized {
		return "running after shmem.Finalize"
	}
	var r shm.DebugRecord
	in := ""
	if o.Header().Flags&shm.FlagDebug != 0 && tryReadRecord(&s.Coll, &r) && r.Active == 1 {
		in = RecordString(&r)
	}
	if op := atomic.LoadUint32(&s.WaitOp); op != WaitNone {
		if in == "" {
			in = WaitName(op)
			if who := waitWho(s); who != "" {
				in = who + " (" + in + ")"
			}
		}
		return fmt.Sprintf("waiting in %s for %s", in, waited(s, now))
	}
	if in != "" {
		return "in " + in + ", not waiting"
	}
	return "running outside the library's waits"
}

// WaitingInCollective is the barrier or collective routine PE pe of the job waits in (its
// kind when the name is not recorded), "" when it waits in none.
func WaitingInCollective(o *shm.Object, pe int) string {
	s := o.Slot(pe)
	op := atomic.LoadUint32(&s.WaitOp)
	if op != WaitBarrier && op != WaitCollective {
		return ""
	}
	if who := waitWho(s); who != "" {
		return who
	}
	return WaitName(op)
}

// cannotProceed reports whether process pid is stopped or gone.
func cannotProceed(pid int) bool {
	if pid == 0 {
		return false // not started: its record already says it is in no call
	}
	switch procState(pid) {
	case 0, 'Z', 'X', 'T', 't':
		return true
	}
	return false
}

// procState is the state letter of process pid in /proc (R, S, D, T, t, Z, X), or 0 when
// there is no such process.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}
