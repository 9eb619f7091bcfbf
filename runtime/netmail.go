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
	return a.sendTake(who, i, nil, 0, -1, from, want)
}

// exchange mails n bytes from src to PE pe on channel i of the area and takes pe's message
// on the same channel (take): a round of recursive doubling, one call into the engine.
func (a area) exchange(who string, i int, src unsafe.Pointer, n uintptr, pe int) unsafe.Pointer {
	return a.sendTake(who, i, src, n, pe, pe, n)
}

// sendTake is take, after mailing n bytes from src to PE to on channel i when to >= 0.
func (a area) sendTake(who string, i int, src unsafe.Pointer, n uintptr, to, from int, want uintptr) unsafe.Pointer {
	out := mailOut{to: -1}
	if to >= 0 {
		out = mailOut{to: to, key: segOffset(unsafe.Pointer(a.word(i))), src: src, n: n}
	}
	p, n := a.awaitMail(who, i, out, from, nil)
	if n != want {
		netFreeMail(p)
		panic(fmt.Sprintf("%s: PE %d (on %s) sent %d bytes where PE %d expects %d: every PE must pass the same size", who, from, Host(from), n, me, want))
	}
	return p
}

// awaitMail waits for PE from's message on channel i of my area and returns its bytes
// (free them with netFreeMail), after sending out when out.to >= 0. stalled, when not nil,
// runs every 1024 empty polls (a caller's deadline).
func (a area) awaitMail(who string, i int, out mailOut, from int, stalled func()) (p unsafe.Pointer, n uintptr) {
	key := segOffset(unsafe.Pointer(a.word(i)))
	var ok bool
	if netPolled() { // polled in the engine (engine.c "Polled waits")
		if p, n, ok = netPollMail(out, from, key); ok { // no closure (a heap object) until here
			return p, n
		}
		polls := 0
		poll := func() bool {
			p, n, ok = netPollMail(mailOut{to: -1}, from, key)
			if polls++; !ok && stalled != nil && polls%(1024/netPolls) == 0 {
				stalled()
			}
			return ok
		}
		awaitSlow(who, WaitCollective, i, nil, func() bool { return ok }, poll)
		return p, n
	}
	if out.to >= 0 {
		netT.(mailer).Mail(out.to, out.key, out.src, out.n)
	}
	count, seen := engine.MailCount(), ^uint64(0)
	polls := 0
	Await(who, WaitCollective, i, func() bool {
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

// netPollMail is one mail poll in the engine: it frees mailDone, sends out when out.to >= 0,
// then polls for PE from's message under key.
func netPollMail(out mailOut, from int, key uintptr) (unsafe.Pointer, uintptr, bool) {
	lockNet()
	p, n, ok := engine.PollMail(mailDone, out, from, key, netPolls)
	mailDone = nil
	unlockNet()
	return p, n, ok
}

// netFreeMail releases a message taken. It is kept until the next mail poll frees it, in
// the same call into the engine (one call less per message); a message already waiting
// there is freed now.
func netFreeMail(p unsafe.Pointer) {
	lockNet()
	if mailDone != nil {
		engine.FreeMail(mailDone)
	}
	mailDone = p
	unlockNet()
}

// mailDone is the message netFreeMail released last, under netMu.
var mailDone unsafe.Pointer

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
func (a area) mailCredited(who string, i int, src unsafe.Pointer, n uintptr, pe int) {
	w := creditWord(pe)
	if atomic.LoadUint64(&mailSent[pe])-atomic.LoadUint64(w) >= mailWindow {
		Await(who, WaitCollective, i, func() bool { return atomic.LoadUint64(&mailSent[pe])-atomic.LoadUint64(w) < mailWindow })
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
