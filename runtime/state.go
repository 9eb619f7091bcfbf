package rt

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/runtime/settings"
	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// Environment handed to PEs by the launcher.
const (
	EnvFD = "GOSHMEM_FD" // descriptor of the shared object
	EnvPE = "GOSHMEM_PE" // this PE's number
)

// The PE's view of the job; set once by Init, read without locks afterwards.
var (
	obj       *shm.Object
	hdr       *shm.Header
	me, npes  int
	segSize   int     // bytes between a PE's segment and the next PE's
	heapLo    uintptr // my heap [heapLo, heapLo+heapSize)
	heapSize  uintptr
	heapAlign uintptr        // heapLo's alignment (shm.Layout.HeapAlign): the largest Align
	base      unsafe.Pointer // start of the mapping
	mySeg     unsafe.Pointer // start of my segment
	conf      settings.Values

	state atomic.Int32 // 0 before Init, 1 running, 2 finalized
	// runningNPEs is npes while this PE runs, else 0: one load answers "running, and pe is
	// a PE" on the hot paths (Ctx.PE).
	runningNPEs atomic.Int64
	initMu      sync.Mutex
	singlePE    bool // started without shmemrun
	pmixJob     bool // started by a PMIx launcher (net.go): each node reads its own cache
	mayWake     bool // some waiter may sleep on a futex: posters must ring doorbells
	sleepWait   bool // this PE's waits yield and sleep instead of spinning
)

const (
	stateNone = iota
	stateRunning
	stateFinalized
)

// Init maps the job's object (or creates a one-PE job when not started by shmemrun), joins
// the job and synchronizes with every other PE. Calling it again is a no-op.
func Init() error {
	initMu.Lock()
	defer initMu.Unlock()
	switch state.Load() {
	case stateRunning:
		return nil
	case stateFinalized:
		return fmt.Errorf("shmem.Init: called after shmem.Finalize")
	}
	c, err := settings.Parse(os.LookupEnv)
	if err != nil {
		return fmt.Errorf("shmem.Init: %w", err)
	}
	conf = c
	o, pe, err := attach()
	if err != nil {
		return fmt.Errorf("shmem.Init: %w", err)
	}
	obj, hdr = o, o.Header()
	me, npes = pe, int(hdr.NPEs)
	segSize = int(o.Layout.SegSize)
	heapLo, heapSize = o.Heap(me), o.Layout.HeapSize
	heapAlign = o.Layout.HeapAlign()
	base = unsafe.Pointer(&o.Mem[0])
	mySeg = unsafe.Add(base, int(o.Layout.SegOffset)+me*segSize)
	// Whether posters ring doorbells is a property of the job (the launcher sets it from the
	// placement, or from GOSHMEM_WAIT=sleep); a PE may still choose to spin.
	mayWake = hdr.Flags&shm.FlagSharedCPUs != 0
	sleepWait = mayWake && conf.String("GOSHMEM_WAIT") != "spin"
	if err := netStart(); err != nil {
		return fmt.Errorf("shmem.Init: multi-node engine: %w", err)
	}
	mailCreditsInit()
	if err := algInit(); err != nil {
		return fmt.Errorf("shmem.Init: %w", err)
	}
	debugInit()
	heapInit()
	placesInit()
	transportsInit()
	slot := o.Slot(me)
	atomic.StoreInt32(&slot.Pid, int32(os.Getpid())) // claimed by attach, but singlePE
	atomic.StoreUint32(&slot.State, shm.StateRunning)
	state.Store(stateRunning)
	runningNPEs.Store(int64(npes))
	if !singlePE {
		exitOnRequest()
	}
	teamsInit()
	if pmixJob {
		if err := nodeCacheInit(); err != nil {
			return fmt.Errorf("shmem.Init: %w", err)
		}
	}
	if err := netModelInit(); err != nil {
		return fmt.Errorf("shmem.Init: %w", err)
	}
	defaultCtxInit()
	World.Sync("shmem.Init")
	printInfo()
	return nil
}

// attach opens the launcher's object, or creates a single-PE one.
func attach() (*shm.Object, int, error) {
	fdStr, ok := os.LookupEnv(EnvFD)
	if _, pmix := os.LookupEnv(envPMIx); !ok && pmix {
		pmixJob = true
		return netAttach()
	}
	if !ok {
		asked, err := heapRequest()
		if err != nil {
			return nil, 0, err
		}
		l, err := shm.NewLayout(1, asked)
		if err != nil {
			return nil, 0, err
		}
		flags := uint32(0)
		if conf.String("GOSHMEM_WAIT") == "sleep" {
			flags |= shm.FlagSharedCPUs
		}
		o, err := shm.Create(l, flags, 0)
		singlePE = true
		return o, 0, err
	}
	fd, err := strconv.Atoi(fdStr)
	if err != nil || fd < 0 {
		return nil, 0, fmt.Errorf("%s=%q is not a descriptor", EnvFD, fdStr)
	}
	pe, err := strconv.Atoi(os.Getenv(EnvPE))
	if err != nil {
		return nil, 0, fmt.Errorf("%s=%q is not a PE number", EnvPE, os.Getenv(EnvPE))
	}
	o, err := shm.Open(fd, pe)
	if err != nil {
		return nil, 0, err
	}
	if err := claimSlot(o, pe); err != nil {
		o.Close()
		return nil, 0, err
	}
	// The descriptor is not needed by children this PE may start.
	syscallCloseOnExec(fd)
	return o, pe, nil
}

// claimSlot makes this process PE pe of the job, unless another process already is: a
// second process handed the same descriptor and PE number (a same-uid process can open
// /proc/<pid>/fd of a PE) must not join the job in that PE's place.
func claimSlot(o *shm.Object, pe int) error {
	slot := o.Slot(pe)
	if !atomic.CompareAndSwapInt32(&slot.Pid, 0, int32(os.Getpid())) {
		return fmt.Errorf("PE %d of this job is already attached by pid %d: a PE joins a job once", pe, atomic.LoadInt32(&slot.Pid))
	}
	return nil
}

// Finalize synchronizes with every PE and leaves the job; later calls are no-ops. The
// mapping stays until the process exits, so late remote reads by peers stay valid.
func Finalize() {
	initMu.Lock()
	defer initMu.Unlock()
	if state.Load() != stateRunning {
		return
	}
	Quiet()
	World.Sync("shmem.Finalize")
	var netLevel topology.NetLevel
	far, measureNet := netLevelAtExit()
	if engine != nil {
		// Past this barrier every PE is in Finalize: from the next one on, a PE that ends
		// is not lost.
		finalizing.Store(true)
		if measureNet {
			netLevel = measureNetAtExit(far) // the others wait in the barrier, progressing
		}
		World.Sync("shmem.Finalize")
	}
	atomic.StoreUint32(&obj.Slot(me).State, shm.StateFinalized)
	runningNPEs.Store(0)
	state.Store(stateFinalized)
	if engine != nil {
		engine.Finalize()
	}
	if calibrateAtExit != "" {
		calibrateNode()
	}
	if measureNet { // only in a job across nodes, which has the engine
		writeNetLevel(netLevel, far) // after calibrateNode: it adds to the node's model file
	}
}

// Running reports whether Init has run and Finalize has not.
func Running() bool { return state.Load() == stateRunning }

// Check panics unless the PE is between Init and Finalize; who names the routine.
func Check(who string) {
	if s := state.Load(); s != stateRunning {
		checkFail(who, s)
	}
}

func checkFail(who string, s int32) {
	if s == stateNone {
		panic(who + ": called before shmem.Init")
	}
	panic(who + ": called after shmem.Finalize")
}

// MyPE is this PE's number.
func MyPE() int { return me }

// NPEs is the number of PEs in the job.
func NPEs() int { return npes }

// HeapSize is the symmetric heap's size per PE in bytes.
func HeapSize() uintptr { return heapSize }

// CheckPE panics unless pe names a PE of the job.
func CheckPE(who string, pe int) {
	if uint(pe) >= uint(npes) {
		panic(fmt.Sprintf("%s: PE %d out of range [0,%d)", who, pe, npes))
	}
}
