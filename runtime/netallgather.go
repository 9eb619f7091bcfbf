package rt

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/goshmem/shmem/topology"
)

// netAllgather gives every leader's dst every member's block (total bytes in all; off(i)
// and size(i) place member i's block), by the algorithm chooseNetGather picks: Bruck's
// rounds or a direct exchange. The node phase has placed my node's members' blocks in my
// dst. word is the call's word of the network area for the direct exchange (a call
// gathering twice uses two); callDst says dst is the call's own (the user made it ready
// before the call, as the one-node algorithms and SOS's assume), not scratch.
func netAllgather(who string, h *hier, na *area, word int, dst unsafe.Pointer, callDst bool, total uintptr, off, size func(i int) uintptr) {
	if chooseNetGather(h.lead.Size, total) == netGatherBruck {
		netAllgatherBruck(who, h, na, dst, off, size)
		return
	}
	netAllgatherDirect(who, h, na, word, dst, callDst, off, size)
}

// Network allgathers: direct (each leader sends its node's blocks to each other leader:
// L-1 messages, one hop) and Bruck (ceil(log2 L) rounds of one message carrying all a
// leader has: log2 L hops, in log2 L messages; mail only, so the whole result must fit a
// message).
const (
	netGatherDirect = iota
	netGatherBruck
)

var netGatherNames = [...]topology.Algorithm{netGatherDirect: topology.NetDirect, netGatherBruck: topology.NetBruck}

// netGatherAlg is the network allgather among L leaders of total bytes, one message
// carrying up to eager bytes: force (GOSHMEM_NET_COLLECT_ALGORITHM) where it can run,
// else the one m prices cheapest.
func netGatherAlg(L int, total, eager uintptr, m topology.CostModel, force topology.Algorithm) int {
	rounds := bits.Len(uint(max(L, 1) - 1))
	can := func(a topology.Algorithm) bool {
		return a != topology.NetBruck || eager > 0 && total <= eager && rounds <= netSlotWords
	}
	if netPick(topology.FCollect, L, total, m, force, can) == topology.NetBruck {
		return netGatherBruck
	}
	return netGatherDirect
}

// chooseNetGather is netGatherAlg for this job (netVerdict).
func chooseNetGather(L int, total uintptr) int {
	return netVerdict(topology.FCollect, L, total, true, func(class uintptr) int {
		return netGatherAlg(L, class, netEagerMax, netCostModel(), forceNetGather)
	})
}

// netAllgatherDirect: each leader sends every other leader its node's members' blocks,
// one message per run of consecutive members. When every run fits a message they go as
// mail, which its receiver copies into its own dst: no leader writes another's memory, so
// no barrier is needed. Otherwise they are put into the receivers' dst, each raising the
// receiver's word once its runs are there, after the leaders met (netBarrier) — skipped
// when dst is the call's own and there are two leaders, each run going with its signal in
// one message (netExactCounts): the receiver's dst needs no copy then.
func netAllgatherDirect(who string, h *hier, na *area, word int, dst unsafe.Pointer, callDst bool, off, size func(i int) uintptr) {
	L, me := h.lead.Size, h.leadMe
	_, eager := memberRuns(h, me, off, size, nil)
	// Each other leader signals once per run, or once after all of them (see below); every
	// leader decides alike, from all leaders' runs.
	var want uint64
	allEager := true
	for l := range L {
		runs, e := memberRuns(h, l, off, size, nil)
		allEager = allEager && e
		if l != me {
			if e {
				want += uint64(runs)
			} else {
				want++
			}
		}
	}
	if allEager && (L > 2 || !callDst) {
		for s := 1; s < L; s++ {
			to := h.lead.PE((me + s) % L)
			memberRuns(h, me, off, size, func(o, n uintptr) { na.mail(word, unsafe.Add(dst, o), n, to) })
		}
		for s := 1; s < L; s++ {
			l := (me - s + L) % L
			from := h.lead.PE(l)
			memberRuns(h, l, off, size, func(o, n uintptr) {
				p := na.take(who, word, from, n)
				copyBytes(unsafe.Add(dst, o), p, n)
				netFreeMail(p)
			})
		}
		return
	}
	if !allEager {
		netBarrier(who, h, na)
	}
	for s := 1; s < L; s++ {
		to := h.lead.PE((me + s) % L)
		memberRuns(h, me, off, size, func(o, n uintptr) {
			p := unsafe.Add(dst, o)
			if eager {
				na.netPutSignal(p, p, n, word, to)
			} else {
				netPut(p, p, n, to)
			}
		})
		if !eager {
			na.netSignalAfter(word, to)
		}
	}
	na.await(who, WaitCollective, word, want)
}

// netAllgatherBruck is Bruck's allgather among the leaders: in round k (d = 2^k) each
// leader mails the leader d before it the parts it has, those of the c = min(d, L-d)
// leaders from itself on (in leader, then member order, packed in one message), and
// unpacks into its dst the c parts from the leader d after it. After ceil(log2 L) rounds
// every leader has every part. Mail only: no leader writes another's memory, no barrier.
func netAllgatherBruck(who string, h *hier, na *area, dst unsafe.Pointer, off, size func(i int) uintptr) {
	L, me := h.lead.Size, h.leadMe
	bp := packBufs.Get().(*[]byte)
	defer packBufs.Put(bp)
	for k, d := 0, 1; d < L; k, d = k+1, 2*d {
		c := min(d, L-d)
		buf := (*bp)[:0]
		for l := range c {
			memberRuns(h, (me+l)%L, off, size, func(o, n uintptr) { buf = append(buf, bytes(unsafe.Add(dst, o), n)...) })
		}
		*bp = buf
		from, want := (me+d)%L, uintptr(0)
		for l := range c {
			memberRuns(h, (from+l)%L, off, size, func(_, n uintptr) { want += n })
		}
		p := na.sendTake(who, netSlots+k, unsafe.Pointer(unsafe.SliceData(buf)), uintptr(len(buf)), h.lead.PE((me-d+L)%L), h.lead.PE(from), want)
		at := uintptr(0)
		for l := range c {
			memberRuns(h, (from+l)%L, off, size, func(o, n uintptr) {
				copyBytes(unsafe.Add(dst, o), unsafe.Add(p, at), n)
				at += n
			})
		}
		netFreeMail(p)
	}
}

// packBufs are Bruck's message buffers (a leader's parts packed), reused across calls.
var packBufs = sync.Pool{New: func() any { return new([]byte) }}

// netExactCounts: a receiver that counts signals on a word of the network area counts
// only this call's when each of its senders sends it messages in order (one ordered
// stream: the one-message path, on one endpoint) and no other PE can send it a later
// call's. Without a barrier that holds only for a single sender per receiver: another
// sender may be calls ahead (a broadcast's root or a scan's member leaves before others
// enter), its later call's message then counted for this one, which lacked a block still
// under way from a third PE. So the network phases that skip their barrier
// (netAllgather, alltoallNet) do it with one far sender per receiver and messages only.

// memberRuns calls f (when not nil) with each run of consecutive blocks of the members of
// leader l's node (their offset in dst, their bytes: members numbered by node make one
// run, --map-by node one per member). It counts the runs, and says whether each is small
// enough to travel in one message with its signal (netPutSignal).
func memberRuns(h *hier, l int, off, size func(i int) uintptr, f func(off, n uintptr)) (runs int, eager bool) {
	eager = true
	n := len(h.leaderOf)
	for i := 0; i < n; {
		if h.leaderOf[i] != l {
			i++
			continue
		}
		j := i + 1
		for j < n && h.leaderOf[j] == l && off(j) == off(j-1)+size(j-1) {
			j++
		}
		bytes := off(j-1) + size(j-1) - off(i)
		if f != nil {
			f(off(i), bytes)
		}
		runs++
		eager = eager && bytes <= netEagerMax
		i = j
	}
	return runs, eager
}
