package rt

import (
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// Eager messages: a small message travels inside the receiver's sync area. The words from
// wordEager on are split into one slot per other member; a sender writes its data into its
// slot at the receiver and then raises the slot's flag (data length + 1) with a release
// store, so a single cache-line transfer carries both, where a put then a signal would cost
// two transfers and a barrier more. The receiver copies the data out and zeroes the slot,
// so the area holds SyncValue again when the call returns. A sender writes a slot only once
// the receiver has emptied it: most collectives return only after every member entered, so
// a sender reaching the next call on the same area finds the slot empty already, but an
// eager broadcast's root returns at once (bcastEager) and may come back before the member
// has read its last message.

// eagerSlotWords is each slot's size (its flag first), a whole number of cache lines.
func eagerSlotWords(g Group) int {
	if g.Size < 2 {
		return 0
	}
	return (shm.SyncWords - wordEager) / (g.Size - 1) / 8 * 8
}

// eagerCap is how many bytes one eager message to a member of g may carry.
func eagerCap(g Group) int {
	if w := eagerSlotWords(g); w > 0 {
		return (w - 1) * 8
	}
	return 0
}

// eagerSlot is the first word of the slot that member from writes into at member to.
func eagerSlot(g Group, to, from int) int {
	return wordEager + (from-to-1+g.Size)%g.Size*eagerSlotWords(g)
}

// eagerFresh reports whether every slot I write on a is known empty, so that this call's
// eager messages need not check (a read of the receiver's line, the cost of a hand-off):
// no eager message of mine on an area of a's scope is younger than the scope's last
// barrier, which every member entered after reading it. Active-set calls count the world
// team's barriers; the spec already has the user keep a pSync unused until every PE left
// its previous call, and this keeps the programs that only alternate two pSyncs safe as long as
// they do not also run the world team's collectives from another goroutine at once.
func (a area) eagerFresh() bool { return a.eagerSent != nil && atomic.LoadUint64(a.eagerSent) == 0 }

// eagerSentNow records that this call sent eager messages on a (after sending them: a
// barrier completing meanwhile must not hide them). A plain store: an atomic one (XCHG)
// would wait for the messages' stores to reach the receiver, a hand-off (measured: the
// root of an 8-byte broadcast took 0.18 us with it, as a put and a quiet does).
func (a area) eagerSentNow() {
	if a.eagerSent != nil && atomic.LoadUint64(a.eagerSent) == 0 {
		shm.StoreRelease(a.eagerSent, 1)
	}
}

// eagerSend delivers data (at most eagerCap bytes) from member me to member to; fresh is
// eagerFresh's verdict taken before the call's first message.
func (a area) eagerSend(who string, g Group, me, to int, data []byte, fresh bool) {
	pe := g.PE(to)
	slot := eagerSlot(g, to, me)
	flag := (*uint64)(Remote(unsafe.Pointer(a.word(slot)), pe))
	if !fresh {
		flag = a.slotFlag(who, slot, pe)
	}
	if len(data) > 0 {
		copy(bytes(Remote(unsafe.Pointer(a.word(slot+1)), pe), uintptr(len(data))), data)
	}
	shm.StoreRelease(flag, uint64(len(data))+1) // after the data: x86 keeps stores in order, STLR on arm64
	Notify(pe)
}

// slotFlag is the flag of slot at PE pe, once the receiver has emptied the slot.
func (a area) slotFlag(who string, slot, pe int) *uint64 {
	flag := (*uint64)(Remote(unsafe.Pointer(a.word(slot)), pe))
	if atomic.LoadUint64(flag) != 0 {
		Await(who, WaitCollective, slot, func() bool { return atomic.LoadUint64(flag) == 0 })
	}
	return flag
}

// rendezvous marks a flag that announces a message too large for its slot: the receiver
// copies it from the sender's own buffer and acknowledges (wordEagerAck).
const rendezvous = 1 << 62

// announce tells member to that member me has n bytes for it, to be read from my buffer.
func (a area) announce(who string, g Group, me, to int, n uintptr) {
	pe := g.PE(to)
	atomic.StoreUint64(a.slotFlag(who, eagerSlot(g, to, me), pe), rendezvous|uint64(n))
	NotifyAtomic(pe)
}

// eagerRecv waits for member from's message to me and returns it, in place in my slot.
func (a area) eagerRecv(who string, g Group, me, from int) []byte {
	msg, _, _ := a.recv(who, g, me, from)
	return msg
}

// recv waits for member from's flag: an eager message (returned in place) or an
// announcement of n bytes to read from the sender's buffer (eager false).
func (a area) recv(who string, g Group, me, from int) (msg []byte, n uintptr, eager bool) {
	slot := eagerSlot(g, me, from)
	flag := a.word(slot)
	Await(who, WaitCollective, slot, func() bool { return atomic.LoadUint64(flag) != 0 })
	f := atomic.LoadUint64(flag)
	if f&rendezvous != 0 {
		return nil, uintptr(f &^ rendezvous), false
	}
	return bytes(unsafe.Pointer(a.word(slot+1)), uintptr(f-1)), uintptr(f - 1), true
}

// eagerDone empties the slot of member from's message, whose data was msg; the sender may
// be waiting for the slot to empty (slotFlag). Only a pSync must hold SyncValue in every
// word again: on a team's area the flag is enough (claim clears a team's words when it
// takes the slot, so data left behind never meets another slot layout), and not writing
// the data saves the lines' transfer back to this core, which the sender's next message
// pays for (SumReduce of 1 KiB on a 2-PE team, linear, Intel Xeon VM: 0.71-0.76 us
// clearing, 0.63-0.67 not).
func (a area) eagerDone(g Group, me, from int, msg []byte) {
	if a.epoch == 0 {
		clear(msg)
	}
	shm.StoreRelease(a.word(eagerSlot(g, me, from)), 0)
	Notify(g.PE(from))
}

// asBytes is the memory of s.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return bytes(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))*unsafe.Sizeof(s[0]))
}

// fromBytes views b as []T.
func fromBytes[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(T)))
}
