//go:build goshmem_ucx && cgo && linux

package rt

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/runtime/ucx"
	"github.com/goshmem/shmem/topology"
)

// Keys of the start-up exchange (PMIx_Put / PMIx_Get).
const (
	keyHost   = "goshmem.host"   // the PE's host name
	keyMemfd  = "goshmem.memfd"  // a node leader's pid and memfd, for /proc/<pid>/fd/<fd>
	keyWorker = "goshmem.worker" // the default worker's address
	keyRKey   = "goshmem.rkey"   // the packed rkey of the PE's segment
	keyBase   = "goshmem.base"   // the segment's address in the PE's mapping
)

// netAttach joins a job started by a PMIx launcher: the node's lowest PE creates the node's
// memfd (one segment per PE of the job, so symmetric addresses translate as under
// shmemrun; other nodes' segments are never touched and cost no memory), the others open it
// through /proc/<leader pid>/fd.
func netAttach() (*shm.Object, int, error) {
	job, err := ucx.Boot()
	if err != nil {
		return nil, 0, err
	}
	me := job.Rank
	sort.Ints(job.LocalPeers)
	leader := job.LocalPeers[0]
	host, _ := os.Hostname()
	startTimeoutReport(me, host)
	if err := ucx.Publish(keyHost, []byte(host)); err != nil {
		return nil, 0, err
	}
	// Where the node's PEs run, when goshmem places them (GOSHMEM_BIND_TO).
	bs, err := nodeBindings(len(job.LocalPeers))
	if err != nil {
		return nil, 0, err
	}
	var o *shm.Object
	if me == leader {
		asked, err := heapRequest()
		if err != nil {
			return nil, 0, err
		}
		l, err := shm.NewLayout(job.Size, asked)
		if err != nil {
			return nil, 0, err
		}
		flags := uint32(0)
		var cpus unix.CPUSet
		switch {
		case conf.String("GOSHMEM_WAIT") == "sleep",
			bs != nil && topology.Oversubscribed(bs),
			bs == nil && unix.SchedGetaffinity(0, &cpus) == nil && len(job.LocalPeers) > cpus.Count():
			flags |= shm.FlagSharedCPUs // more PEs on this node than CPUs to run them
		}
		if o, err = shm.Create(l, flags, me); err != nil {
			return nil, 0, err
		}
		if err := serveMemfd(fdSocket(job, leader), o.Fd, len(job.LocalPeers)-1); err != nil {
			return nil, 0, err
		}
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], uint64(os.Getpid()))
		binary.LittleEndian.PutUint64(b[8:], uint64(o.Fd))
		if err := ucx.Publish(keyMemfd, b[:]); err != nil {
			return nil, 0, err
		}
	}
	if err := ucx.Commit(); err != nil {
		return nil, 0, err
	}
	if err := initExchange(me, host); err != nil {
		return nil, 0, err
	}
	if me != leader {
		b, err := ucx.Lookup(leader, keyMemfd)
		if err != nil || len(b) != 16 {
			return nil, 0, fmt.Errorf("the node's memfd from PE %d: %v", leader, err)
		}
		path := "/proc/" + strconv.FormatUint(binary.LittleEndian.Uint64(b), 10) + "/fd/" + strconv.FormatUint(binary.LittleEndian.Uint64(b[8:]), 10)
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if os.Getenv("GOSHMEM_TEST_MEMFD_SOCKET") == "1" && err == nil { // tests force the fallback
			unix.Close(fd)
			fd, err = -1, fmt.Errorf("GOSHMEM_TEST_MEMFD_SOCKET=1")
		}
		if err != nil { // /proc refused (ptrace rules): the leader hands it over instead
			var err2 error
			if fd, err2 = receiveMemfd(fdSocket(job, leader)); err2 != nil {
				return nil, 0, fmt.Errorf("the node's memfd from PE %d: open %s: %v; from its socket: %w", leader, path, err, err2)
			}
		}
		if o, err = shm.Open(fd, me); err != nil {
			return nil, 0, err
		}
	}
	if err := claimSlot(o, me); err != nil {
		return nil, 0, err
	}
	if bs != nil {
		if err := bindSelf(o, me, bs[slices.Index(job.LocalPeers, me)]); err != nil {
			return nil, 0, err
		}
	}
	leaders := make([]int, job.Size)
	hosts := make([]string, job.Size)
	for pe := range job.Size {
		h, err := ucx.Lookup(pe, keyHost)
		if err != nil {
			return nil, 0, err
		}
		hosts[pe] = string(h)
		leaders[pe] = -1
	}
	// A node is the set of PEs PMIx calls local to each other; its leader its lowest PE.
	// Other nodes' sets are named by their host names (one set per host).
	first := map[string]int{}
	for pe := range job.Size {
		if _, ok := first[hosts[pe]]; !ok {
			first[hosts[pe]] = pe
		}
		leaders[pe] = first[hosts[pe]]
	}
	for _, pe := range job.LocalPeers {
		leaders[pe] = leader
	}
	setNodesFor(me, leaders, hosts)
	return o, me, nil
}

// initExchange is a start-up fence (ucx.Exchange): it waits for every PE of the job, and a
// PE that ended before shmem_init keeps the others in it until the launcher's own timeout
// (srun without --kill-on-bad-exit: Slurm's PMIx timeout, minutes). So PE 0 says why it
// waits after initWarnAfter, and GOSHMEM_INIT_TIMEOUT, when set, ends the job.
func initExchange(pe int, host string) error {
	limit := conf.Seconds("GOSHMEM_INIT_TIMEOUT")
	warned := false
	return ucx.Exchange(func(waited time.Duration) {
		if pe == 0 && !warned && waited >= initWarnAfter {
			warned = true
			fmt.Fprintf(os.Stderr, "goshmem: PE 0 on %s: shmem_init has waited %v for the job's other PEs to reach it: "+
				"one that ended before shmem_init keeps the others waiting until the launcher's timeout "+
				"(srun --kill-on-bad-exit ends such a job at once; GOSHMEM_INIT_TIMEOUT=seconds ends it sooner)\n", host, waited.Round(time.Second))
		}
		if limit > 0 && waited >= limit {
			msg := fmt.Sprintf("goshmem: PE %d on %s: the job's PEs did not all reach shmem_init within GOSHMEM_INIT_TIMEOUT=%d s (did one end before it?); PE %d ends the job",
				pe, host, int(limit/time.Second), pe)
			fmt.Fprintln(os.Stderr, msg)
			abortThen(func() { ucx.Abort(1, msg) }, 1)
		}
	})
}

// initWarnAfter is how long PE 0 waits in a start-up fence before it says so.
const initWarnAfter = 30 * time.Second

// fdSocket is the abstract Unix socket where a node leader hands out the node's memfd
// (abstract sockets belong to the network namespace: one node's).
func fdSocket(job *ucx.Job, leader int) string {
	return "@goshmem." + job.Namespace + "." + strconv.Itoa(leader)
}

// serveMemfd hands fd (SCM_RIGHTS) to up to n PEs of the node that connect to name: those
// for which /proc/<pid>/fd is closed.
func serveMemfd(name string, fd, n int) error {
	if n == 0 {
		return nil
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return fmt.Errorf("listen on %s for the node's PEs: %w", name, err)
	}
	go func() {
		defer l.Close()
		for range n {
			c, err := l.AcceptUnix()
			if err != nil {
				return
			}
			c.WriteMsgUnix([]byte{1}, unix.UnixRights(fd), nil)
			c.Close()
		}
	}()
	return nil
}

// receiveMemfd gets the node's memfd from its leader's socket.
func receiveMemfd(name string) (int, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return -1, err
	}
	defer c.Close()
	b, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := c.ReadMsgUnix(b, oob)
	if err != nil {
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("no descriptor in the leader's message (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, fmt.Errorf("no descriptor in the leader's message (%v)", err)
	}
	unix.CloseOnExec(fds[0])
	return fds[0], nil
}

// setNodesFor is setNodes before Init has set me.
func setNodesFor(pe int, leaders []int, hosts []string) {
	me = pe
	setNodes(leaders, hosts)
}

// ucxEngine is the engine of a multi-node job: one UCP context, this PE's segment registered
// once, the default worker with an endpoint per PE on another node.
type ucxEngine struct {
	w     *ucx.Worker
	addrs [][]byte // every PE's default worker address, packed rkey, segment base
	rkeys [][]byte
	bases []uint64
}

// netStart registers my segment, exchanges the engine's addresses and connects to every PE
// on another node. A one-node job started by a PMIx launcher needs none of it.
func netStart() error {
	if nodeOf == nil {
		return nil // not started by a PMIx launcher
	}
	nodeJoined.Store(true) // the node's object and PEs are set: timeout reports cover them
	if !multiNode {
		engine = &ucxEngine{} // PMIx only: Abort and Finalize
		return nil
	}
	mode, err := netServeMode(conf.String("GOSHMEM_NET_PROGRESS"), sleepWait)
	if err != nil {
		return err
	}
	netServing = mode
	if err := ucx.Init(mySeg, uintptr(segSize), mode == serveWakeup); err != nil {
		return err
	}
	ucx.SetYield(sleepWait)
	w, err := ucx.NewWorker(npes)
	if err != nil {
		return err
	}
	addr, err := w.Address()
	if err != nil {
		return err
	}
	rkey, err := ucx.RKey()
	if err != nil {
		return err
	}
	// The base travels with GOSHMEM_NET_EAGER: both ends of a network phase split data into
	// messages by it, so PEs that disagree would wait for signals never sent.
	netEagerMax = uintptr(conf.Size("GOSHMEM_NET_EAGER"))
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], uint64(uintptr(mySeg)))
	binary.LittleEndian.PutUint64(b[8:], uint64(netEagerMax))
	for _, kv := range []struct {
		k string
		v []byte
	}{{keyWorker, addr}, {keyRKey, rkey}, {keyBase, b[:]}} {
		if err := ucx.Publish(kv.k, kv.v); err != nil {
			return err
		}
	}
	if err := ucx.Commit(); err != nil {
		return err
	}
	if err := initExchange(me, Host(me)); err != nil {
		return err
	}
	e := &ucxEngine{w: w, addrs: make([][]byte, npes), rkeys: make([][]byte, npes), bases: make([]uint64, npes)}
	for pe := range npes {
		if local(pe) {
			continue
		}
		if e.addrs[pe], err = ucx.Lookup(pe, keyWorker); err != nil {
			return err
		}
		if e.rkeys[pe], err = ucx.Lookup(pe, keyRKey); err != nil {
			return err
		}
		base, err := ucx.Lookup(pe, keyBase)
		if err != nil || len(base) != 16 {
			return fmt.Errorf("segment base of PE %d: %v", pe, err)
		}
		e.bases[pe] = binary.LittleEndian.Uint64(base)
		if v := binary.LittleEndian.Uint64(base[8:]); v != uint64(netEagerMax) {
			return fmt.Errorf("GOSHMEM_NET_EAGER is %d on PE %d (%s) but %d on PE %d (%s): set it the same for every PE", netEagerMax, me, Host(me), v, pe, Host(pe))
		}
		if err := w.Connect(pe, e.addrs[pe], e.rkeys[pe], e.bases[pe]); err != nil {
			return err
		}
	}
	engine = e
	netWanted = ucx.LockWanted
	netT = &ucxTransport{w: w}
	newRemoteCtx = e.NewContext // each communication context gets a worker of its own
	// Two Ps at least. The progress goroutine must run while the PE computes: with a single P
	// it would wait for the computing goroutine's preemption (10 ms). Without it too: a PE
	// pinned to one CPU gets one P, which sysmon hands to any runnable goroutine while the
	// PE's is in a call into the engine, and that goroutine then queues for it on return
	// (with GOSHMEM_NET_PROGRESS=calls and one P, put+quiet and get across fake nodes took
	// 12-13 us instead of 9 in one job out of three).
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	if mode == serveCalls {
		return nil // the PE's own calls progress the worker
	}
	serving.Store(true)
	go e.serve(mode)
	return nil
}

func (e *ucxEngine) Progress() bool { return e.w.Progress() }

func (e *ucxEngine) Check() {
	if pe, err := ucx.Failed(); pe >= 0 {
		lostPE(pe, fmt.Sprintf("its connection failed: %v", err))
	}
	for _, pe := range nodePEs {
		if pe == me {
			continue
		}
		s := obj.Slot(pe)
		if pid := atomic.LoadInt32(&s.Pid); pid > 0 && atomic.LoadUint32(&s.State) == shm.StateRunning && unix.Kill(int(pid), 0) == unix.ESRCH {
			lostPE(pe, "process "+strconv.Itoa(int(pid))+" is gone")
		}
	}
}

func (e *ucxEngine) Abort(status int, msg string) { ucx.Abort(status, msg) }

func (e *ucxEngine) NoticeExit(status int) {
	lockNet()
	e.w.NoticeExit(me, status)
	unlockNet()
}

func (e *ucxEngine) ExitNotice() (int, int) { return ucx.ExitNotice() }

func (e *ucxEngine) TakeMail(from int, key uintptr) (unsafe.Pointer, uintptr, bool) {
	return ucx.TakeMail(from, key)
}

func (e *ucxEngine) FreeMail(p unsafe.Pointer) { ucx.FreeMail(p) }

func (e *ucxEngine) MailCount() *uint64 { return ucx.MailCount }

func (e *ucxEngine) PollGE(w *uint64, v uint64, polls int) bool { return e.w.PollGE(w, v, polls) }

func (e *ucxEngine) SignalPollGE(pe int, sig unsafe.Pointer, add bool, v uint64, w *uint64, x uint64, polls int) bool {
	ok, err := e.w.SignalPollGE(pe, segOffset(sig), add, v, w, x, polls)
	if err != nil {
		netFail("signal", pe, err)
	}
	return ok
}

func (e *ucxEngine) PollMail(done unsafe.Pointer, out mailOut, from int, key uintptr, polls int) (unsafe.Pointer, uintptr, bool) {
	o := ucx.Outgoing{To: out.to, From: me, Key: out.key, Src: out.src, N: out.n}
	p, n, ok, err := e.w.PollMail(done, o, from, key, polls)
	if err != nil { // only a send fails
		netFail("collective message", out.to, err)
	}
	return p, n, ok
}

// Finalize flushes the default worker and ends the progress goroutine: nothing calls into
// UCX after it. A C program returns from main after shmem_finalize, and exit runs UCX's
// library destructors, which free the table of its event handlers; a progress from this
// goroutine meanwhile aborted the process inside UCX ("failed to modify 16 event handler
// ... No such element", once in five CI runs of the C contexts test across nodes).
func (e *ucxEngine) Finalize() {
	if e.w != nil {
		netMu.Lock()
		e.w.Flush()
		netStopped = true
		netMu.Unlock()
	}
	ucx.Finalize()
}

func (e *ucxEngine) NewContext() (Transport, error) {
	if e.w == nil {
		return nil, nil // one node: a context needs no engine resources
	}
	// The engine links every worker into the list its waits progress: the worker must not
	// change under another goroutine's progress.
	lockNet()
	defer unlockNet()
	w, err := ucx.NewWorker(npes)
	if err != nil {
		return nil, err
	}
	for pe := range npes {
		if e.addrs[pe] != nil {
			if err := w.Connect(pe, e.addrs[pe], e.rkeys[pe], e.bases[pe]); err != nil {
				w.Close()
				return nil, err
			}
		}
	}
	return &ucxTransport{w: w}, nil
}

// serve applies the requests other nodes aim at this PE while it computes: it sleeps on
// the worker's wake-up descriptor (serveWakeup) or for a tick (servePoll) between rounds,
// and is parked while the PE waits inside the library (the wait progresses the worker
// itself). Events may complete puts into memory a local waiter sleeps on, so it rings my
// doorbell after serving any.
func (e *ucxEngine) serve(mode netServe) {
	defer serving.Store(false)
	for {
		waitLibIdle()
		netMu.Lock()
		if netStopped {
			netMu.Unlock()
			return
		}
		served := false
		for e.w.Progress() {
			served = true
		}
		armed := mode == serveWakeup && e.w.Arm()
		netMu.Unlock()
		if served {
			e.Check()
		}
		if served && mayWake {
			seg := obj.SegHeader(me)
			atomic.AddUint32(&seg.Bell, 1)
			shm.FutexWake(&seg.Bell, 1<<30)
		}
		switch {
		case armed:
			e.w.WaitEvent(100)
		case mode == servePoll:
			time.Sleep(servePollEvery)
		}
	}
}

// ucxTransport reaches PEs on other nodes through one worker. Source and destination
// buffers may be Go memory, which C must not keep unless it is pinned: puts wait until the
// source may be reused (a Quiet completes them at the target), gets complete before
// returning; the non-blocking forms pin their Go buffer and return at once.
type ucxTransport struct {
	w *ucx.Worker
	// pins holds the Go buffers of non-blocking operations started and not yet completed:
	// C may keep a pointer to Go memory only while it is pinned. Quiet unpins them.
	pins    runtime.Pinner
	pending bool
}

func (t *ucxTransport) Put(dst, src unsafe.Pointer, n uintptr, pe int) {
	lockNet()
	err := t.w.Put(pe, segOffset(dst), src, n, true)
	unlockNet()
	if err != nil {
		netFail("put", pe, err)
	}
}

func (t *ucxTransport) PutValue(dst unsafe.Pointer, v uint64, size uintptr, pe int) {
	lockNet()
	err := t.w.P(pe, segOffset(dst), v, size)
	unlockNet()
	if err != nil {
		netFail("p", pe, err)
	}
}

func (t *ucxTransport) GetValue(src unsafe.Pointer, size uintptr, pe int) uint64 {
	lockNet()
	v, err := t.w.G(pe, segOffset(src), size)
	unlockNet()
	if err != nil {
		netFail("g", pe, err)
	}
	return v
}

func (t *ucxTransport) Get(dst, src unsafe.Pointer, n uintptr, pe int) {
	lockNet()
	err := t.w.Get(pe, segOffset(src), dst, n, true)
	unlockNet()
	if err != nil {
		netFail("get", pe, err)
	}
}

// PutNBI starts a put whose source the caller leaves alone until Quiet.
func (t *ucxTransport) PutNBI(dst, src unsafe.Pointer, n uintptr, pe int) {
	lockNet()
	t.pins.Pin(src) // nothing for C memory or the symmetric heap
	t.pending = true
	err := t.w.Put(pe, segOffset(dst), src, n, false)
	unlockNet()
	if err != nil {
		netFail("put", pe, err)
	}
}

// GetNBI starts a get; dst holds the data after Quiet.
func (t *ucxTransport) GetNBI(dst, src unsafe.Pointer, n uintptr, pe int) {
	lockNet()
	t.pins.Pin(dst)
	t.pending = true
	err := t.w.Get(pe, segOffset(src), dst, n, false)
	unlockNet()
	if err != nil {
		netFail("get", pe, err)
	}
}

// PutStrided sends one put when the destination is contiguous (the source packed); a
// strided one travels packed in messages its target scatters (engine.c, "Strided
// transfers"); GetStrided likewise.
func (t *ucxTransport) PutStrided(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, pe int) {
	lockNet()
	err := t.w.PutStrided(pe, segOffset(dst), dstStride, src, srcStride, n, size)
	unlockNet()
	if err != nil {
		netFail("iput", pe, err)
	}
}

func (t *ucxTransport) GetStrided(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, pe int) {
	lockNet()
	err := t.w.GetStrided(pe, segOffset(src), srcStride, dst, dstStride, n, size)
	unlockNet()
	if err != nil {
		netFail("iget", pe, err)
	}
}

func (t *ucxTransport) AMO(op AMOOp, size uintptr, p unsafe.Pointer, v, cond uint64, pe int) uint64 {
	fetch, signal := op&AMOPost == 0, ucx.NotSignal
	switch {
	case op&AMOAfterData != 0:
		signal = ucx.SignalAfterData
	case op&AMOSignal != 0:
		signal = ucx.SignalAlone
	}
	op &^= AMOPost | AMOSignal | AMOAfterData
	lockNet()
	defer unlockNet()
	if size >= 4 {
		old, err := t.w.AMO(pe, segOffset(p), uint8(op), size, v, cond, fetch, signal)
		if err != nil {
			netFail("atomic", pe, err)
		}
		return old
	}
	// 1- and 2-byte words: compare-and-swap on the aligned 32-bit container, as on shared
	// memory.
	off := segOffset(p) &^ 3
	shift := (uintptr(p) & 3) * 8
	mask := uint32(uint64(1)<<(size*8)-1) << shift
	w, err := t.w.AMO(pe, off, uint8(AMOFetch), 4, 0, 0, true, ucx.NotSignal)
	for err == nil {
		o := uint64((uint32(w) & mask) >> shift)
		x := applyBitwise(op, o, v)
		if op == AMOFetch {
			return o
		}
		nw := uint32(x)<<shift&mask | uint32(w)&^mask
		var got uint64
		if got, err = t.w.AMO(pe, off, uint8(AMOCompareSwap), 4, uint64(nw), w, true, ucx.NotSignal); err == nil && got == w {
			return o
		}
		w = got
	}
	netFail("atomic", pe, err)
	return 0
}

// PutSignal copies n elements of size bytes (every srcStride-th from src) to every
// dstStride-th element from the symmetric dst on pe and adds v to the word sig there, in
// one message (a collective's data and its signal).
func (t *ucxTransport) PutSignal(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, n int, size uintptr, sig unsafe.Pointer, v uint64, pe int) {
	lockNet()
	err := t.w.PutSignal(pe, segOffset(dst), dstStride, src, srcStride, n, size, segOffset(sig), true, v)
	unlockNet()
	if err != nil {
		netFail("put-signal", pe, err)
	}
}

// Mail sends n bytes from src to PE pe, kept there under key until it takes them.
func (t *ucxTransport) Mail(pe int, key uintptr, src unsafe.Pointer, n uintptr) {
	lockNet()
	err := t.w.Mail(pe, me, key, src, n)
	unlockNet()
	if err != nil {
		netFail("collective message", pe, err)
	}
}

// Close releases a context's worker (after its Quiet).
func (t *ucxTransport) Close() {
	lockNet()
	t.w.Close()
	unlockNet()
}

func (t *ucxTransport) Quiet() {
	if !t.pending && t.w.Flushed() { // a barrier's quiet, most often: no call into the engine
		return
	}
	lockNet()
	err := t.w.Flush()
	if t.pending && err == nil {
		t.pins.Unpin()
		t.pending = false
	}
	unlockNet()
	if err != nil {
		netFail("quiet", -1, err)
	}
}

// QuietPEs completes the operations started to the PEs pes (world numbers, all on other
// nodes) by flushing their endpoints on this transport's own worker. Pinned buffers stay
// pinned until the next full Quiet: operations to other PEs may still use them.
func (t *ucxTransport) QuietPEs(pes []int32) {
	lockNet()
	err := t.w.FlushPEs(pes)
	unlockNet()
	if err != nil {
		netFail("pe_quiet", -1, err)
	}
}

func (t *ucxTransport) Fence() {
	lockNet()
	err := t.w.Fence()
	unlockNet()
	if err != nil {
		netFail("fence", -1, err)
	}
}

// The progress goroutine runs (serving) until Finalize stops the engine (netStopped,
// under netMu).
var (
	serving    atomic.Bool
	netStopped bool
)

// EngineServing reports whether the progress goroutine runs: from Init to Finalize in a
// job across nodes (unless GOSHMEM_NET_PROGRESS=calls).
func EngineServing() bool { return serving.Load() }

// EngineWorkers counts the engine's live UCX workers (the default context's and one per
// other context); 0 in a one-node job.
func EngineWorkers() int {
	if engine == nil {
		return 0
	}
	lockNet()
	defer unlockNet()
	return ucx.Workers()
}

// NetEngineBuilt reports whether the multi-node engine is built in.
func NetEngineBuilt() bool { return true }

// netEngineSettings are the UCX settings in effect that the engine makes unless set.
func netEngineSettings() string { return ucx.Settings() }

// NetEngine names the multi-node engine built in.
func NetEngine() string { return ucx.Compiled() }
