package rt

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
)

// Mail (engine.c "Mail"): a network phase's message kept at its receiver, by sender and
// channel, until the receiver takes it, so the sender needs no sign that the receiver is
// ready: a broadcast's root returns once its message is sent, where it waited a hop for
// its child's "ready". Leaders may then be many calls apart, so data that may still be
// unread never goes into another leader's words or scratch without a handshake; mail
// queues instead (netReduceRD). A channel is a word of the network area, its symmetric
// address the key: each call's area (a team's two alternate, a pSync is the user's) keeps
// its messages apart, and a sender's messages on one channel are taken in the order sent
// (one endpoint, in order, as netExactCounts assumes).

// netMailable reports whether n bytes travel as one message (GOSHMEM_NET_EAGER).
func netMailable(n uintptr) bool { return netEagerMax > 0 && n <= netEagerMax }

// mail sends n bytes from src to PE pe on channel i of the area.
func (a area) mail(i int, src unsafe.Pointer, n uintptr, pe int) {
	netT.(mailer).Mail(pe, segOffset(unsafe.Pointer(a.word(i))), src, n)
}

// take waits for PE from's message on channel i of my area and returns its bytes, valid
// until netFreeMail; a message of another size than want means the PEs passed different
// sizes to the collective.
func (a area) take(who string, i, from int, want uintptr) unsafe.Pointer {
	p, n := a.awaitMail(i, from, nil)
	if n != want {
		netFreeMail(p)
		panic(fmt.Sprintf("%s: PE %d (on %s) sent %d bytes where PE %d expects %d: every PE must pass the same size", who, from, Host(from), n, me, want))
	}
	return p
}

// awaitMail waits for PE from's message on channel i of my area and returns its bytes
// (free them with netFreeMail). stalled, when not nil, runs every 1024 empty polls (a
// caller's deadline).
func (a area) awaitMail(i, from int, stalled func()) (p unsafe.Pointer, n uintptr) {
	key := segOffset(unsafe.Pointer(a.word(i)))
	var ok bool
	if netPolled() { // polled in the engine (engine.c "Polled waits")
		polls := 0
		poll := func() bool {
			lockNet()
			p, n, ok = engine.PollMail(from, key, netPolls)
			unlockNet()
			if polls++; !ok && stalled != nil && polls%(1024/netPolls) == 0 {
				stalled()
			}
			return ok
		}
		if !poll() {
			awaitSlow(WaitCollective, i, nil, func() bool { return ok }, poll)
		}
		return p, n
	}
	count, seen := engine.MailCount(), ^uint64(0)
	polls := 0
	Await(WaitCollective, i, func() bool {
		if c := atomic.LoadUint64(count); c != seen { // else nothing came: no lock, no cgo call
			lockNet()
			p, n, ok = engine.TakeMail(from, key)
			unlockNet()
			if seen = c; ok {
				return true
			}
		}
		if polls++; stalled != nil && polls%1024 == 0 {
			stalled()
		}
		return false
	})
	return p, n
}

func netFreeMail(p unsafe.Pointer) {
	lockNet()
	engine.FreeMail(p)
	unlockNet()
}

// Broadcast mail is the one kind a sender can send without bound ahead of its receiver (a
// root that broadcasts in a loop, a receiver computing). Its queue at the receiver is
// bounded by credits: a leader has at most mailWindow such messages to a PE that PE has not
// taken; the receiver returns credits every mailWindow/2 it takes, adding them to its word
// in the sender's reserved part (ReservedCreditOffset), and a sender at the limit waits
// for them. Every PE makes the collective calls in the same order and a blocked sender has
// finished its earlier calls, so what its receiver needs to reach the message is never
// behind the block. The other mail is bounded by its call (a message per round or step).
const mailWindow = 64

var mailSent, mailTaken []uint64 // per PE: broadcast mail I sent it, took from it

func mailCreditsInit() {
	if multiNode {
		mailSent, mailTaken = make([]uint64, npes), make([]uint64, npes)
	}
}

// creditWord is the word of my reserved part that PE pe adds its credits to.
func creditWord(pe int) *uint64 {
	return (*uint64)(unsafe.Add(reserved(shm.ReservedCreditOffset), pe*8))
}

// mailCredited is mail within pe's window of broadcast mail.
func (a area) mailCredited(i int, src unsafe.Pointer, n uintptr, pe int) {
	w := creditWord(pe)
	if atomic.LoadUint64(&mailSent[pe])-atomic.LoadUint64(w) >= mailWindow {
		Await(WaitCollective, i, func() bool { return atomic.LoadUint64(&mailSent[pe])-atomic.LoadUint64(w) < mailWindow })
	}
	atomic.AddUint64(&mailSent[pe], 1)
	a.mail(i, src, n, pe)
}

// takeCredited is take for broadcast mail: it returns the sender credits every
// mailWindow/2 messages.
func (a area) takeCredited(who string, i, from int, want uintptr) unsafe.Pointer {
	p := a.take(who, i, from, want)
	if atomic.AddUint64(&mailTaken[from], 1)%(mailWindow/2) == 0 {
		netT.AMO(AMOFetchAdd|AMOPost|AMOSignal, 8, unsafe.Pointer(creditWord(me)), mailWindow/2, 0, from)
	}
	return p
}
