package rt

import (
	"math/bits"
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// netReduceRD combines the leaders' buf (one message's worth) into every leader's buf by
// recursive doubling: in round r each leader mails its partial result to leader me^2^r and
// combines the one it takes from it, so all leaders finish after log2(L) one-way latencies
// (the tree takes three per level: ready, up, down). Every leader combines the same
// operands pairwise, and the operations are commutative, so every leader ends with the
// same bits.
func netReduceRD[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	me := h.leadMe
	nb := uintptr(len(buf)) * unsafe.Sizeof(buf[0])
	for r, d := 0, 1; d < h.lead.Size; r, d = r+1, d*2 {
		pe := h.lead.PE(me ^ d)
		p := na.exchange(who, netSlots+r, unsafe.Pointer(unsafe.SliceData(buf)), nb, pe)
		combineAll(op, buf, [][]T{buf, unsafe.Slice((*T)(p), len(buf))})
		netFreeMail(p)
	}
}

// Network reductions: a tree; recursive doubling among a power of two of leaders (mail for
// one message's worth, netReduceRDLarge beyond; each round needs a word of its own, two for
// the large form); a ring (mail, one channel) when messages may carry data.
const (
	netRedTree = iota
	netRedRD
	netRedRDLarge
	netRedRing
)

var netRedNames = [...]topology.Algorithm{netRedTree: topology.NetTree, netRedRD: topology.NetRD, netRedRDLarge: topology.NetRD, netRedRing: topology.NetRing}

// netReduceAlg is the network reduction among L leaders of nbytes each, one message
// carrying up to eager bytes: force (GOSHMEM_NET_REDUCE_ALGORITHM) where it can run, else
// the one m prices cheapest (topology.NetChoose) among those that can.
func netReduceAlg(L int, nbytes, eager uintptr, m topology.CostModel, force topology.Algorithm) int {
	rounds := bits.Len(uint(L)) - 1
	mailable := eager > 0 && nbytes <= eager
	rd := L >= 2 && L&(L-1) == 0 && (mailable && rounds <= netSlotWords || !mailable && rounds <= netRDLargeRounds)
	can := func(a topology.Algorithm) bool {
		switch a {
		case topology.NetRD:
			return rd
		case topology.NetRing:
			return L >= 2 && eager > 0
		}
		return true
	}
	switch a := netPick(topology.Reduce, L, nbytes, m, force, can); {
	case a == topology.NetRD && mailable:
		return netRedRD
	case a == topology.NetRD:
		return netRedRDLarge
	case a == topology.NetRing:
		return netRedRing
	}
	return netRedTree
}

// chooseNetReduce is netReduceAlg for this job (its eager limit, the network model every
// PE shares, the override; netVerdict).
func chooseNetReduce(L int, nbytes uintptr) int {
	return netVerdict(topology.Reduce, L, nbytes, true, func(class uintptr) int {
		return netReduceAlg(L, class, netEagerMax, netCostModel(), forceNetReduce)
	})
}

// netRDLargeRounds is the most rounds (L up to 2^6 leaders) netReduceRDLarge has words for:
// a ready and a data word per round, in the payload words netReduceRD would use.
const netRDLargeRounds = netSlotWords / 2

// netReduceRDLarge is recursive doubling for vectors beyond the payload words: in round r
// each leader exchanges its whole partial result with leader me^2^r through the other's
// scratch, in chunks of one message each (GOSHMEM_NET_EAGER) with as many in flight as the
// scratch has slots; a leader offers its free slots (netSlots+2r), its partner sends a
// chunk into each with a signal (netSlots+2r+1) and it combines the chunks in order,
// offering each slot again. Both directions move at once and no result goes back down: the
// tree moved the vector up and then down, one after the other (a 4 MiB int sum across two
// nodes: 10.3 ms, OSHMEM 3.0). Each round has its own words: the next partner may offer
// its slots before the last one is done.
func netReduceRDLarge[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	me := h.leadMe
	esize := int(unsafe.Sizeof(buf[0]))
	step := max(min(max(int(netEagerMax), 4096), shm.ScratchSize/2)/esize, 1) // elements per chunk
	slots := shm.ScratchSize / (step * esize)
	scratch := reserved(shm.ReservedScratchOff)
	chunks := (len(buf) + step - 1) / step
	for r, d := 0, 1; d < h.lead.Size; r, d = r+1, d*2 {
		ready, data := netSlots+2*r, netSlots+2*r+1
		pe := h.lead.PE(me ^ d)
		na.signal(ready, pe, uint64(min(slots, chunks))) // my slots are free
		for i := range chunks {
			lo, hi := i*step, min((i+1)*step, len(buf))
			na.await(who, WaitCollective, ready, 1)
			slot := unsafe.Add(scratch, (i%slots)*step*esize)
			na.netPutSignal(slot, unsafe.Pointer(&buf[lo]), uintptr((hi-lo)*esize), data, pe)
			na.await(who, WaitCollective, data, 1)
			in := [2][]T{buf[lo:hi], unsafe.Slice((*T)(slot), hi-lo)}
			combineAll(op, buf[lo:hi], in[:])
			if i+slots < chunks {
				na.signal(ready, pe, 1) // the slot is free again
			}
		}
	}
}

// netReduceRing combines the leaders' buf into every leader's buf around the ring of
// leaders: a reduce-scatter (in step s each leader passes its successor its partial of
// chunk me-s and combines its predecessor's of chunk me-s-1 into its own), then an
// allgather of the finished chunks, 2(L-1) steps of n/L elements where recursive doubling
// moves all n in each of log2 L rounds. Chunks travel as mail in messages of up to
// GOSHMEM_NET_EAGER on one channel, taken in the order sent; a leader passes each message's
// worth on as soon as it has combined (or copied) it, so the steps overlap. Each chunk's
// result is computed by one leader and copied to the others: every leader has the same
// bits.
func netReduceRing[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	L, me := h.lead.Size, h.leadMe
	succ, pred := h.lead.PE((me+1)%L), h.lead.PE((me+L-1)%L)
	esize := unsafe.Sizeof(buf[0])
	step := max(int(netEagerMax/esize), 1) // elements per message
	send := func(s []T) {
		for lo := 0; lo < len(s); lo += step {
			hi := min(lo+step, len(s))
			na.mail(netSlots, unsafe.Pointer(&s[lo]), uintptr(hi-lo)*esize, succ)
		}
	}
	send(chunk(buf, me, L))
	steps := 2 * (L - 1)
	for s := range steps {
		c := (me - s - 1 + L) % L // reduce-scatter: my predecessor's partial of chunk me-s-1
		if s >= L-1 {
			c = (me - (s - (L - 1)) + L) % L // allgather: the finished chunk me-s'
		}
		part := chunk(buf, c, L)
		for lo := 0; lo < len(part); lo += step {
			hi := min(lo+step, len(part))
			p := na.take(who, netSlots, pred, uintptr(hi-lo)*esize)
			in := unsafe.Slice((*T)(p), hi-lo)
			if s < L-1 {
				combineAll(op, part[lo:hi], [][]T{part[lo:hi], in})
			} else {
				copy(part[lo:hi], in)
			}
			netFreeMail(p)
			if s < steps-1 { // my successor's next step is this piece (its last step none)
				send(part[lo:hi])
			}
		}
	}
}

// netReduce combines the leaders' buf (n elements each, in place) into every leader's buf:
// up a tree rooted at leader 0 through the parents' scratch, in chunks a parent's scratch
// holds for all its children, then the result down the same tree.
func netReduce[T kernels.Elem](who string, op kernels.Op, h *hier, na *area, buf []T) {
	L, me := h.lead.Size, h.leadMe
	k := collRadix
	parent, first, last := treeAt(me, 0, L, k)
	esize := int(unsafe.Sizeof(buf[0]))
	step := max(shm.ScratchSize/k/esize, 1) // elements per chunk: one scratch slot per child
	scratch := reserved(shm.ReservedScratchOff)
	slot := func(c int) unsafe.Pointer { return unsafe.Add(scratch, c*step*esize) } // child c's slot
	kids := last - first
	var ins [1 + 16][]T
	for lo := 0; lo < len(buf); lo += step {
		hi := min(lo+step, len(buf))
		if kids > 0 {
			for c := first; c < last; c++ { // my slots are free: the children may send
				na.signal(netReady, h.lead.PE(child(c, 0, L)), 1)
			}
			na.await(who, WaitCollective, netUp, uint64(kids))
			in := append(ins[:0], buf[lo:hi])
			for c := 0; c < kids; c++ {
				in = append(in, unsafe.Slice((*T)(slot(c)), hi-lo))
			}
			combineAll(op, buf[lo:hi], in)
		}
		if parent >= 0 {
			na.await(who, WaitCollective, netReady, 1)
			myRank := (me - 0 + L) % L
			c := myRank - (k*((myRank-1)/k) + 1) // my index among my parent's children
			pe := h.lead.PE(parent)
			na.netPutSignal(slot(c), unsafe.Pointer(&buf[lo]), uintptr((hi-lo)*esize), netUp, pe)
		}
	}
	// The result goes down the same tree, pushed: every child is in the call (it sent up).
	if parent >= 0 {
		na.await(who, WaitCollective, netDown, 1)
	}
	p := unsafe.Pointer(unsafe.SliceData(buf))
	for c := first; c < last; c++ {
		pe := h.lead.PE(child(c, 0, L))
		na.netPutSignal(p, p, uintptr(len(buf)*esize), netDown, pe)
	}
}
