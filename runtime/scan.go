package rt

import (
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	"github.com/goshmem/shmem/runtime/shm"
)

// Scans (OpenSHMEM 1.6's shmem_TYPENAME_sum_inscan and _exscan): on member i of a team,
// dst = src_0 op ... op src_i (inclusive) or src_0 op ... op src_{i-1} (exclusive; zero on
// member 0), element by element.
//
// scanChain passes the running prefix down the members in order: member i waits for
// member i-1's prefix P_{i-1}, gets it from i-1's collective scratch (shared memory on my
// node, a get through the engine from another), acknowledges it, forms P_i = P_{i-1} op
// src_i in its own scratch for member i+1, and writes dst. From a member on another node a
// prefix that fits a message comes as mail instead (scanMails): one hop, no get, no
// acknowledgement. A vector larger than the scratch goes in chunks, which pipeline along
// the chain. Its latency grows with the team (one hop per member), which suits a prefix,
// whose last member depends on every other. The
// combination order is member order, ((s_0 op s_1) op s_2) ..., so float results equal a
// serial loop's.

// ScanTeam is the scan of src into dst over team t, inclusive or exclusive.
func ScanTeam[T kernels.Elem](who string, op kernels.Op, t *Team, dst, src []T, inclusive bool) {
	t.Check(who)
	scanChain(who, op, t.G, t.Me, t.next(), dst, src, inclusive)
}

func scanChain[T kernels.Elem](who string, op kernels.Op, g Group, me int, a area, dst, src []T, inclusive bool) {
	if debug {
		c := reduceCall(who, op, dst, src)
		if !inclusive {
			c.Extra += 1 << 8
		}
		debugEnter(a, g, me, c)
		defer debugLeave()
	}
	n := len(src)
	if n == 0 {
		return
	}
	esize := int(unsafe.Sizeof(src[0]))
	step := max(shm.ScratchSize/esize, 1)
	mine := unsafe.Slice((*T)(reserved(shm.ReservedScratchOff)), min(step, n)) // my prefix, for the next member
	var prev []T                                                               // the previous member's prefix, fetched
	var buf *[]byte
	if me > 0 {
		prev, buf = getScratch[T](min(step, n))
		defer putScratch(buf)
	}
	last := me == g.Size-1
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		s, d, p, m := src[lo:hi], dst[lo:hi], prev[:0], mine[:hi-lo]
		nb := uintptr((hi - lo) * esize)
		var mail unsafe.Pointer // the previous member's prefix, mailed
		if me > 0 {
			from := g.PE(me - 1)
			if scanMails(from, nb) {
				mail = a.takeCredited(who, wordUp, from, nb)
				p = unsafe.Slice((*T)(mail), hi-lo)
			} else {
				a.await(who, WaitCollective, wordUp, 1)
				p = prev[:hi-lo]
				transports[from].Get(unsafe.Pointer(unsafe.SliceData(p)), unsafe.Pointer(unsafe.SliceData(m)), nb, from)
				a.signal(wordAck, from, 1) // its scratch is free for its next chunk
			}
		}
		switch {
		case me == 0 && !last:
			copy(m, s)
		case me > 0 && !last:
			kernels.Combine3(op, m, p, s)
		}
		// dst last: it may be src (in place), which the prefix above has read.
		switch {
		case inclusive && me == 0:
			copy(d, s)
		case inclusive && last:
			kernels.Combine3(op, d, p, s)
		case inclusive:
			copy(d, m)
		case me == 0:
			clear(d)
		default:
			copy(d, p)
		}
		if mail != nil {
			netFreeMail(mail)
		}
		if last {
			continue
		}
		if next := g.PE(me + 1); scanMails(next, nb) {
			a.mailCredited(who, wordUp, unsafe.Pointer(unsafe.SliceData(m)), nb, next) // sent: m is mine again
		} else {
			a.signal(wordUp, next, 1)
			a.await(who, WaitCollective, wordAck, 1) // the next member has my prefix
		}
	}
}

// scanMails says whether a prefix chunk of n bytes goes to or comes from PE pe as mail: pe
// is on another node, where a signal and a get would take a hop and a round trip where
// one message takes a hop, and the chunk fits a message. Mail lets a member run ahead of
// its successor by whole calls (the first member waits for nobody), so it is broadcast
// mail, bounded by credits.
func scanMails(pe int, n uintptr) bool { return !local(pe) && netMailable(n) }
