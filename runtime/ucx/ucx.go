//go:build goshmem_ucx && cgo && linux

package ucx

/*
#cgo pkg-config: ucx pmix
#include <stdlib.h>
#include "engine.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// Compiled names the engine built in.
func Compiled() string { return "UCX " + C.GoString(C.gsx_version()) + " + PMIx" }

// Settings are the UCX settings Init makes where the user made none, as the process's
// environment holds them ("NAME=value ...").
func Settings() string {
	p := C.gsx_settings()
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}

func pmixErr(what string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s (%d)", what, C.GoString(C.gsx_pmix_error(rc)), int(rc))
}

func ucsErr(what string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", what, C.GoString(C.gsx_status(rc)))
}

// Job is what PMIx tells a PE about the job.
type Job struct {
	Rank, Size int
	Namespace  string
	LocalPeers []int // the PEs on this node, ascending (this PE among them)
}

// Boot joins the PMIx job (PMIx_Init) and reads its geometry.
func Boot() (*Job, error) {
	var rank, size C.uint32_t
	var ns [256]C.char
	if err := pmixErr("PMIx_Init", C.gsx_pmix_init(&rank, &size, &ns[0], C.size_t(len(ns)))); err != nil {
		return nil, err
	}
	var buf [1 << 16]C.char
	if err := pmixErr("PMIx_Get(PMIX_LOCAL_PEERS)", C.gsx_pmix_local_peers(&buf[0], C.size_t(len(buf)))); err != nil {
		return nil, err
	}
	j := &Job{Rank: int(rank), Size: int(size), Namespace: C.GoString(&ns[0])}
	for _, f := range strings.Split(C.GoString(&buf[0]), ",") {
		pe, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || pe < 0 || pe >= j.Size {
			return nil, fmt.Errorf("PMIX_LOCAL_PEERS %q: bad rank %q", C.GoString(&buf[0]), f)
		}
		j.LocalPeers = append(j.LocalPeers, pe)
	}
	return j, nil
}

// Publish stores value under key for every PE (PMIx_Put, global scope); Commit sends it.
func Publish(key string, value []byte) error {
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	var p unsafe.Pointer
	if len(value) > 0 {
		p = C.CBytes(value)
		defer C.free(p)
	}
	return pmixErr("PMIx_Put("+key+")", C.gsx_pmix_put(k, p, C.size_t(len(value))))
}

// Commit makes the published values visible at the next Exchange.
func Commit() error { return pmixErr("PMIx_Commit", C.gsx_pmix_commit()) }

// Exchange is a PMIx fence that collects every PE's published values: a barrier of the
// whole job, used at start-up only. waiting runs about once a second while it lasts, with
// the time waited so far.
func Exchange(waiting func(time.Duration)) error {
	switch rc := C.gsx_pmix_fence_start(); rc {
	case 1:
		return nil
	case 0:
	default:
		return pmixErr("PMIx_Fence_nb", rc)
	}
	start, next := time.Now(), time.Second
	var status C.int // one variable: its address goes to C at every poll
	// Polls 10 us apart at first, as a fence among a node's PEs takes, up to 1 ms.
	for pause := 10 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		if C.gsx_pmix_fence_poll(&status) != 0 {
			return pmixErr("PMIx_Fence", status)
		}
		time.Sleep(pause)
		if waited := time.Since(start); waited >= next {
			waiting(waited)
			next += time.Second
		}
	}
}

// Lookup is PE rank's value for key.
func Lookup(rank int, key string) ([]byte, error) {
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	var p unsafe.Pointer
	var n C.size_t
	if err := pmixErr(fmt.Sprintf("PMIx_Get(PE %d, %s)", rank, key), C.gsx_pmix_get(C.uint32_t(rank), k, &p, &n)); err != nil {
		return nil, err
	}
	defer C.free(p)
	return C.GoBytes(p, C.int(n)), nil
}

// Abort asks the launcher to end the whole job with status, printing msg.
func Abort(status int, msg string) {
	m := C.CString(msg)
	C.gsx_pmix_abort(C.int(status), m)
	C.free(unsafe.Pointer(m))
}

// Finalize leaves the PMIx job.
func Finalize() { C.gsx_pmix_finalize() }

// Init creates the UCP context and registers this PE's segment [seg, seg+n); with wakeup,
// every worker gets a wake-up descriptor (Arm, WaitEvent). A context with the feature costs
// each message the kernel's bookkeeping for it: UCX puts each transport's epoll set into
// the worker's, and every arrival is also reported through that outer set.
func Init(seg unsafe.Pointer, n uintptr, wakeup bool) error {
	return ucsErr("ucp_init/ucp_mem_map", C.gsx_init(seg, C.size_t(n), cbool(wakeup)))
}

// RKey is the packed remote key of this PE's segment.
func RKey() ([]byte, error) {
	var p unsafe.Pointer
	var n C.size_t
	if err := ucsErr("ucp_rkey_pack", C.gsx_rkey(&p, &n)); err != nil {
		return nil, err
	}
	defer C.free(p)
	return C.GoBytes(p, C.int(n)), nil
}

// SetYield makes the engine's waits yield the CPU between idle polls.
func SetYield(y bool) { C.gsx_set_yield(cbool(y)) }

// Failed is the first PE whose endpoint failed (its process ended, its node went away) and
// why, or -1.
func Failed() (int, error) {
	// No out-parameter: a Go variable whose address goes to C escapes, and the waits call
	// this every few thousand polls (a test counts allocations per call).
	pe := int(C.gsx_failed())
	if pe < 0 {
		return -1, nil
	}
	return pe, ucsErr("endpoint", C.gsx_failed_status())
}

// NoticeExit tells every PE on another node that PE me ends the job with status
// (shmem_global_exit), waiting up to 200 ms for the notices to leave.
func (w *Worker) NoticeExit(me, status int) { C.gsx_notice_exit(w.w, C.int(me), C.int(status)) }

// ExitNotice is the status of a global exit another node's PE announced, and that PE;
// status -1: none came.
func ExitNotice() (status, from int) { return int(C.gsx_exit_status()), int(C.gsx_exit_from()) }

// Cleanup releases the registration and the context.
func Cleanup() { C.gsx_fini() }

// Worker is a UCP worker with an endpoint and rkey per remote PE: the default context's, or
// a communication context's own. Its methods must not run concurrently (the caller locks).
type Worker struct {
	w  *C.gsx_worker
	fs *C.gsx_flush_state // read by Flushed
}

// NewWorker creates a worker for a job of npes PEs, with a wake-up descriptor when Init
// asked for them.
func NewWorker(npes int) (*Worker, error) {
	var w *C.gsx_worker
	if err := ucsErr("ucp_worker_create", C.gsx_worker_new(&w, C.int(npes))); err != nil {
		return nil, err
	}
	return &Worker{w, C.gsx_worker_flush_state(w)}, nil
}

// Flushed reports, without a call into the engine, whether Flush would find nothing to
// complete: nothing started since the last flush and every strided message answered. A
// quiet after the PE's own operations sees their marks (a goroutine of the PE set them
// with the worker locked); the handlers only add answers meanwhile.
func (w *Worker) Flushed() bool {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&w.fs.unflushed))) == 0 &&
		atomic.LoadUint64((*uint64)(unsafe.Pointer(&w.fs.am_done))) == atomic.LoadUint64((*uint64)(unsafe.Pointer(&w.fs.am_sent)))
}

// Address is the worker's address, for peers' endpoints.
func (w *Worker) Address() ([]byte, error) {
	var p unsafe.Pointer
	var n C.size_t
	if err := ucsErr("ucp_worker_get_address", C.gsx_worker_address(w.w, &p, &n)); err != nil {
		return nil, err
	}
	defer C.free(p)
	return C.GoBytes(p, C.int(n)), nil
}

// Connect makes the endpoint to PE pe from its worker address, rkey and segment base.
func (w *Worker) Connect(pe int, addr, rkey []byte, base uint64) error {
	a, r := C.CBytes(addr), C.CBytes(rkey)
	defer C.free(a)
	defer C.free(r)
	return ucsErr(fmt.Sprintf("ucp_ep_create(PE %d)", pe), C.gsx_connect(w.w, C.int(pe), a, r, C.uint64_t(base)))
}

// Put starts a put of n bytes from src to offset off of PE pe's segment. With waitLocal it
// returns once src may be reused (required for Go memory, which C must not keep);
// Flush completes it at the target.
func (w *Worker) Put(pe int, off uintptr, src unsafe.Pointer, n uintptr, waitLocal bool) error {
	return ucsErr("ucp_put_nbx", C.gsx_put(w.w, C.int(pe), C.uint64_t(off), src, C.size_t(n), cbool(waitLocal)))
}

// P puts the size (at most 8) low-order bytes of v to offset off of PE pe.
func (w *Worker) P(pe int, off uintptr, v uint64, size uintptr) error {
	return ucsErr("ucp_put_nbx", C.gsx_p(w.w, C.int(pe), C.uint64_t(off), C.uint64_t(v), C.size_t(size)))
}

// G gets the size (at most 8) bytes at offset off of PE pe as a word's low-order bytes.
func (w *Worker) G(pe int, off uintptr, size uintptr) (uint64, error) {
	r := C.gsx_g(w.w, C.int(pe), C.uint64_t(off), C.size_t(size))
	return uint64(r.old), ucsErr("ucp_get_nbx", r.status)
}

// Get copies n bytes from offset off of PE pe's segment to dst; without wait a Flush
// completes it.
func (w *Worker) Get(pe int, off uintptr, dst unsafe.Pointer, n uintptr, wait bool) error {
	return ucsErr("ucp_get_nbx", C.gsx_get(w.w, C.int(pe), C.uint64_t(off), dst, C.size_t(n), cbool(wait)))
}

// PutStrided puts n elements of size bytes (src every srcStride elements) to every
// dstStride-th element from offset off of PE pe, returning once the source may be reused
// (a Flush completes it).
func (w *Worker) PutStrided(pe int, off uintptr, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr) error {
	return ucsErr("ucp_put_nbx (strided)", C.gsx_iput(w.w, C.int(pe), C.uint64_t(off), C.size_t(uintptr(dstStride)*size), (*C.char)(src), C.size_t(uintptr(srcStride)*size), C.size_t(n), C.size_t(size)))
}

// GetStrided is PutStrided's mirror; it returns with dst complete.
func (w *Worker) GetStrided(pe int, off uintptr, srcStride int, dst unsafe.Pointer, dstStride, n int, size uintptr) error {
	return ucsErr("ucp_get_nbx (strided)", C.gsx_iget(w.w, C.int(pe), C.uint64_t(off), C.size_t(uintptr(srcStride)*size), (*C.char)(dst), C.size_t(uintptr(dstStride)*size), C.size_t(n), C.size_t(size)))
}

// AMO applies op (goshmem's AMO code: fetch, set, swap, compare-swap, fetch-add, and, or,
// xor) to the size-byte (4 or 8) word at offset off of PE pe. Without fetch, an add or a
// bitwise op is only started (a Flush completes it) and the result is 0; a signal (a
// collective's, which its receiver waits for) is one no Flush waits for.
func (w *Worker) AMO(pe int, off uintptr, op uint8, size uintptr, v, cond uint64, fetch bool, signal Signal) (uint64, error) {
	flags := C.int(0)
	if fetch {
		flags |= C.GSX_FETCH
	}
	switch signal {
	case SignalAlone:
		flags |= C.GSX_SIGNAL
	case SignalAfterData:
		flags |= C.GSX_SIGNAL | C.GSX_AFTER_DATA
	}
	r := C.gsx_amo(w.w, C.int(pe), C.uint64_t(off), C.int(op), C.int(size), C.uint64_t(v), C.uint64_t(cond), flags)
	return uint64(r.old), ucsErr("ucp_atomic_op_nbx", r.status)
}

// Signal says whether an AMO is a collective's signal, which its receiver waits for (no
// Flush does): alone, an add or set of 8 bytes travels as one message; after data the
// caller fenced it stays an atomic (a message might overtake RMA on another lane).
type Signal uint8

const (
	NotSignal Signal = iota
	SignalAlone
	SignalAfterData
)

// PutSignal copies n elements of size bytes, every srcStride elements from src, to every
// dstStride-th element from offset off of PE pe, then adds v to (add) or stores v into the
// 8-byte word at offset sig there, in one message: a collective's data and its signal. It
// returns at once (src may be reused); the receiver waits for the word.
func (w *Worker) PutSignal(pe int, off uintptr, dstStride int, src unsafe.Pointer, srcStride, n int, size, sig uintptr, add bool, v uint64) error {
	return ucsErr("ucp_am_send_nbx", C.gsx_put_signal(w.w, C.int(pe), C.uint64_t(off), C.size_t(uintptr(dstStride)*size), (*C.char)(src), C.size_t(uintptr(srcStride)*size), C.size_t(n), C.size_t(size), C.uint64_t(sig), cbool(add), C.uint64_t(v)))
}

// Mail sends n bytes from src to PE pe (I am PE from), kept there under key until taken
// (TakeMail): a collective's message its receiver may not be ready for. It returns at once
// (src may be reused).
func (w *Worker) Mail(pe, from int, key uintptr, src unsafe.Pointer, n uintptr) error {
	return ucsErr("ucp_am_send_nbx (mail)", C.gsx_mail(w.w, C.int(pe), C.int(from), C.uint64_t(key), src, C.size_t(n)))
}

// TakeMail unlinks the oldest message PE from sent this PE under key: its bytes, in C
// memory until FreeMail. ok is false when none has come (progress the worker).
func TakeMail(from int, key uintptr) (p unsafe.Pointer, n uintptr, ok bool) {
	m := C.gsx_mail_take(C.int(from), C.uint64_t(key))
	return m.data, uintptr(m.len), m.data != nil
}

// MailCount is the number of messages kept so far, an atomic counter: a receiver need
// only try TakeMail again once it moved.
var MailCount = (*uint64)(unsafe.Pointer(C.gsx_mail_count()))

// LockWanted is the counter of goroutines waiting for the worker's lock, which the polled
// waits (PollGE, SignalPollGE, PollMail) read to return early (atomic).
var LockWanted = (*uint32)(unsafe.Pointer(C.gsx_lock_wanted()))

// PollGE progresses the worker until the word w holds at least e, at most polls times
// (engine.c "Polled waits"); true once it does. w is memory outside Go's heap (the
// segment).
func (w *Worker) PollGE(word *uint64, e uint64, polls int) bool {
	return C.gsx_poll_ge(w.w, (*C.uint64_t)(unsafe.Pointer(word)), C.uint64_t(e), C.int(polls)) == 1
}

// SignalPollGE is PutSignal without data (a collective's signal: v added to, or stored
// into, the word at offset sig of PE pe), then PollGE.
func (w *Worker) SignalPollGE(pe int, sig uintptr, add bool, v uint64, word *uint64, e uint64, polls int) (bool, error) {
	r := C.gsx_signal_poll_ge(w.w, C.int(pe), C.uint64_t(sig), cbool(add), C.uint64_t(v), (*C.uint64_t)(unsafe.Pointer(word)), C.uint64_t(e), C.int(polls))
	if r < 0 {
		return false, ucsErr("ucp_am_send_nbx", r)
	}
	return r == 1, nil
}

// Outgoing is a message PollMail sends before it polls, Mail(To, From, Key, Src, N); none
// when To < 0.
type Outgoing struct {
	To, From int
	Key      uintptr
	Src      unsafe.Pointer
	N        uintptr
}

// PollMail frees done (a message TakeMail or PollMail returned, or nil), sends out, then
// progresses the worker until TakeMail(from, key) takes a message, at most polls times:
// one call where a collective's round would take three.
func (w *Worker) PollMail(done unsafe.Pointer, out Outgoing, from int, key uintptr, polls int) (p unsafe.Pointer, n uintptr, ok bool, err error) {
	m := C.gsx_mail_poll(w.w, done, C.int(out.To), C.int(out.From), C.uint64_t(out.Key), out.Src, C.size_t(out.N), C.int(from), C.uint64_t(key), C.int(polls))
	if m.status != 0 {
		return nil, 0, false, ucsErr("ucp_am_send_nbx (mail)", m.status)
	}
	return m.data, uintptr(m.len), m.data != nil, nil
}

// FreeMail releases a message TakeMail returned.
func FreeMail(p unsafe.Pointer) { C.gsx_mail_free(p) }

// Flush completes every operation the worker started (shmem_quiet).
func (w *Worker) Flush() error { return ucsErr("ucp_worker_flush_nbx", C.gsx_flush(w.w)) }

// FlushPEs completes the operations the worker started to the PEs pes only
// (shmem_pe_quiet): their endpoints' flushes.
func (w *Worker) FlushPEs(pes []int32) error {
	if len(pes) == 0 {
		return nil
	}
	return ucsErr("ucp_ep_flush_nbx", C.gsx_flush_pes(w.w, (*C.int)(unsafe.Pointer(&pes[0])), C.int(len(pes))))
}

// Fence orders the operations started before it before those started after it.
func (w *Worker) Fence() error { return ucsErr("ucp_worker_fence", C.gsx_fence(w.w)) }

// Progress serves pending events; it reports whether any were.
func (w *Worker) Progress() bool { return C.gsx_progress(w.w) != 0 }

// Arm prepares the wake-up descriptor; false means events are pending (progress first).
func (w *Worker) Arm() bool { return C.gsx_arm(w.w) == 0 }

// WaitEvent sleeps until the armed worker has an event or timeoutMS passes.
func (w *Worker) WaitEvent(timeoutMS int) { C.gsx_wait_event(w.w, C.int(timeoutMS)) }

// Transports describes the UCT transports carrying RMA and AMOs to pe.
func (w *Worker) Transports(pe int) string {
	p := C.gsx_ep_info(w.w, C.int(pe))
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}

// Close completes the worker's operations and releases it.
func (w *Worker) Close() { C.gsx_worker_free(w.w) }

// Workers counts the live workers: the default one and one per communication context.
func Workers() int { return int(C.gsx_workers()) }

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Launched reports whether a PMIx launcher started this process.
func Launched() bool { _, ok := os.LookupEnv("PMIX_NAMESPACE"); return ok }
