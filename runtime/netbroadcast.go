package rt

import (
	"unsafe"

	"github.com/goshmem/shmem/topology"
)

// netBroadcast gives every leader's symmetric dst the n bytes of leader root's buffer buf,
// down a tree rooted there. Data of one message goes as mail: a leader takes its parent's
// message into its dst and mails it on to its children, and the root returns once it sent
// its own (the broadcast's root is done when its source may be reused). Larger data is put
// straight into the child's dst: a leader tells its parent it is in the call (its dst may
// be written), and the parent, once it has the data, puts it there and raises the child's
// word; a leader's words are then written only by its parent and children, each in the call.
func netBroadcast(who string, h *hier, na *area, root int, dst, buf unsafe.Pointer, n uintptr) {
	L, me := h.lead.Size, h.leadMe
	parent, first, last := treeAt(me, root, L, collRadix)
	if netMailable(n) {
		if parent >= 0 {
			p := na.takeCredited(who, netDown, h.lead.PE(parent), n)
			copyBytes(dst, p, n)
			netFreeMail(p)
			buf = dst
		}
		for c := first; c < last; c++ {
			na.mailCredited(who, netDown, buf, n, h.lead.PE(child(c, root, L)))
		}
		return
	}
	if parent >= 0 {
		na.signal(netReady, h.lead.PE(parent), 1)
		na.await(who, WaitCollective, netDown, 1)
		buf = dst
	}
	if kids := last - first; kids > 0 {
		na.await(who, WaitCollective, netReady, uint64(kids))
	}
	for c := first; c < last; c++ {
		pe := h.lead.PE(child(c, root, L))
		na.netPutSignal(dst, buf, n, netDown, pe)
	}
}

// netBroadcastRing gives every leader's dst the n bytes of leader root's buf as a scatter
// and a ring, for large data among three or more leaders: the root mails each leader its
// chunk of n/L, then the chunks go round the ring of leaders from the root (each leader
// passes on every message's worth as soon as it has it; the root sends its successor the
// chunks it lacks, the last leader sends nothing). The root's link carries 2n(L-1)/L where
// the tree's sends k whole copies. All of it is broadcast mail (credits bound what the root
// may send ahead); a leader takes its scatter chunk first, then its predecessor's messages,
// in the order sent, on one channel.
func netBroadcastRing(who string, h *hier, na *area, root int, dst, buf unsafe.Pointer, n uintptr) {
	L := h.lead.Size
	r := (h.leadMe - root + L) % L // my rank from the root
	pe := func(rank int) int { return h.lead.PE((rank + root) % L) }
	step := max(netEagerMax, 1) // bytes per message (auto takes this path only with messages)
	// part is chunk c's bytes: the same split on every leader.
	part := func(c int) (off, size uintptr) {
		lo, hi := chunkBounds(n, c, L), chunkBounds(n, c+1, L)
		return lo, hi - lo
	}
	send := func(base unsafe.Pointer, c, to int) {
		off, size := part(c)
		for o := uintptr(0); o < size; o += step {
			na.mailCredited(who, netDown, unsafe.Add(base, off+o), min(step, size-o), to)
		}
	}
	if r == 0 {
		for c := 1; c < L; c++ {
			send(buf, c, pe(c))
		}
		for s := range L - 1 { // my successor's ring steps: chunks 0, L-1, ..., 2
			send(buf, (L-s)%L, pe(1))
		}
		return
	}
	take := func(c, from int, forward bool) {
		off, size := part(c)
		for o := uintptr(0); o < size; o += step {
			k := min(step, size-o)
			p := na.takeCredited(who, netDown, from, k)
			copyBytes(unsafe.Add(dst, off+o), p, k)
			netFreeMail(p)
			if forward {
				na.mailCredited(who, netDown, unsafe.Add(dst, off+o), k, pe(r+1))
			}
		}
	}
	last := r == L-1
	take(r, pe(0), !last)  // my chunk, passed on at once
	for s := range L - 1 { // step s brings chunk r-1-s: every chunk but mine
		take((r-1-s+L)%L, pe(r-1), !last && s < L-2) // passed on in step s+1
	}
}

// chunkBounds is where chunk c of L starts in n bytes (chunk L ends them), without the
// overflow of n*c.
func chunkBounds(n uintptr, c, L int) uintptr {
	q, rem := n/uintptr(L), n%uintptr(L)
	return q*uintptr(c) + rem*uintptr(c)/uintptr(L)
}

// Network broadcasts: a tree (mail up to a message, puts beyond), a scatter and a ring
// (mail in messages) when messages may carry data.
const (
	netBcastTree = iota
	netBcastRing
)

var netBcastNames = [...]topology.Algorithm{netBcastTree: topology.NetTree, netBcastRing: topology.NetRing}

// netBcastAlg is the network broadcast among L leaders of nbytes, one message carrying up
// to eager bytes: force (GOSHMEM_NET_BCAST_ALGORITHM) where it can run, else the one m
// prices cheapest.
func netBcastAlg(L int, nbytes, eager uintptr, m topology.CostModel, force topology.Algorithm) int {
	can := func(a topology.Algorithm) bool { return a != topology.NetRing || L >= 2 && eager > 0 }
	if netPick(topology.Bcast, L, nbytes, m, force, can) == topology.NetRing {
		return netBcastRing
	}
	return netBcastTree
}

// chooseNetBcast is netBcastAlg for this job (netVerdict; the tree and the ring each
// handle both sides of the message limit).
func chooseNetBcast(L int, nbytes uintptr) int {
	return netVerdict(topology.Bcast, L, nbytes, false, func(class uintptr) int {
		return netBcastAlg(L, class, netEagerMax, netCostModel(), forceNetBcast)
	})
}
