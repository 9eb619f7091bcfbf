// Package shmem is goshmem: an OpenSHMEM 1.6 runtime for Go programs, and through its C
// library (libgoshmem, shmemcc) for C and C++ programs.
//
// OpenSHMEM is a partitioned global address space model: a job is N processing elements
// (PEs), each a process running the same program, and each PE reads and writes the other
// PEs' symmetric memory directly (Put, Get, atomics) and joins collectives (barriers,
// broadcasts, reductions, alltoall). The launcher shmemrun starts the PEs on this machine,
// pinned to CPUs; they share one memory-mapped heap, so a put is a memmove into the peer's
// part of it and an atomic a sync/atomic operation on the peer's word.
//
//	func main() {
//		if err := shmem.Init(); err != nil {
//			log.Fatal(err)
//		}
//		defer shmem.Finalize()
//		me, n := shmem.MyPE(), shmem.NPEs()
//		x, _ := shmem.Calloc[int64](1)   // symmetric: one on every PE, same offset
//		shmem.P(&x[0], int64(me), (me+1)%n) // write my number into my right neighbour's x
//		shmem.BarrierAll()                 // every put done and visible
//		fmt.Printf("PE %d of %d got %d\n", me, n, x[0])
//	}
//
// Run it as 4 PEs with
//
//	go run github.com/goshmem/shmem/cmd/shmemrun -n 4 ./path/to/prog
//
// # Init and Finalize
//
// Init joins the job shmemrun started; a program started without shmemrun is a job of one
// PE. Every PE of a job calls Init, or none does (shmemrun runs any program, hostname
// included). After Init, MyPE and NPEs say who this PE is. Finalize synchronizes with
// every PE and leaves the job; call it before main returns. shmemrun ends the job and
// reports the PE when one exits after Init without Finalize while others run, exits
// non-zero or dies; GlobalExit(s) ends every PE at once with status s.
//
// # Symmetric memory
//
// Remote access works only on symmetric memory: memory that exists on every PE at the same
// offset of the symmetric heap. Malloc, Calloc, Align and Realloc allocate it, and Free
// releases it; they are collective (every PE calls them, in the same order, with the same
// count) and end with a barrier. The element type must hold no Go pointers, since the
// garbage collector does not see the heap. SHMEM_SYMMETRIC_SIZE sets the heap's size per PE
// (see shmemrun --help-env).
//
// Go global variables, stack variables and memory from make or new are NOT symmetric: the
// Go runtime places them where it likes on each PE. Passing them as a remote buffer panics
// ("dst is not symmetric memory (...; allocate it with shmem.Malloc)"); local source and
// destination buffers (Put's src, Get's dst) may be any memory. In C programs built with
// shmemcc, global and static variables are symmetric, as the specification requires: the
// library moves the program's data segment into the heap at shmem_init.
//
// # Remote memory access and contexts
//
// Put, Get, P, G, IPut, IGet, IBPut, IBGet, PutSignal and the Atomic* routines act on the
// symmetric memory of a PE; Quiet completes them and Fence orders them. They are the
// operations of the default communication context, CtxDefault. A Ctx made by CtxCreate or
// Team.CreateCtx is a separate stream of operations, which its own Quiet and Fence order:
//
//	ctx, err := shmem.CtxCreate(shmem.CtxPrivate)
//	shmem.CtxPut(ctx, dst, src, pe) // every routine with a type parameter: CtxXxx(ctx, ...)
//	ctx.Quiet()                     // the others are methods
//	ctx.Destroy()
//
// A context made from a team names PEs by their number in the team; operations on
// CtxInvalid do nothing. Give each goroutine that communicates a lot its own context
// (CtxPrivate when only it uses the context): its Quiet then waits for its own operations
// only. On one node every operation is complete when its call returns, so a context costs
// nothing and its Quiet is a memory barrier; across nodes each context has its own UCX
// worker, so contexts do not serialize on the network and a context's Quiet, Fence and
// PEQuiet flush that worker only. PEQuiet(pes...) completes the operations to some PEs only
// (OpenSHMEM 1.6); SessionStart and SessionStop mark a batch of operations on a context
// (hints: the rules of completion and ordering stay the same).
//
// # Locks
//
// SetLock, TestLock and ClearLock give mutual exclusion across PEs on a symmetric int64
// that is zero when free (Calloc it; every PE uses the same one): PEs get the lock in the
// order they asked for it (a queue lock, each waiter spinning on its own memory). ClearLock
// completes this PE's operations (a Quiet) before handing the lock on, so a PE that takes
// the lock sees what the previous holder wrote. A lock is not reentrant; TestLock takes it
// only if it is free and never waits.
//
// # Errors
//
// A programmer error panics with a message naming the routine and the argument
// ("shmem.Put: PE 9 out of range [0,8)"): a PE out of range, a buffer that is not
// symmetric or too short, a bad active set, pSync or team. A condition a correct program can
// meet is an error result: an exhausted heap (Malloc), a team split that cannot be made
// (no team slot free on every member, or a triplet outside the parent team). The team collectives' error results mirror the C routines' int results; they are
// nil here, since every failure of those calls is a programmer error. SHMEM_DEBUG=1 adds
// checks across PEs: that every PE passed the same counts, offsets and active sets to a
// collective or allocation, and reports of long waits.
//
// # Goroutines
//
// A PE is a process, not a goroutine: MyPE is the same in all of a PE's goroutines. After
// Init, any goroutine may call the API (as SHMEM_THREAD_MULTIPLE): puts, gets, atomics,
// waits and allocation are safe from many goroutines at once, and a wait sees a store made
// by another goroutine or another PE. Collective calls are calls of the PE: two of them on
// one team, or on one pSync, must not run at the same time.
//
// # Collectives
//
// Every collective is called by every PE of its team or active set, with the same
// arguments where the specification says so (counts, root, the set). Buffers (dst, src,
// pWrk, pSync) are symmetric; dst must not partly overlap src.
//
// The team forms (SumReduce(t, dst, src), Broadcast(t, ...), AllToAll(t, ...), the scans
// SumInScan and SumExScan of OpenSHMEM 1.6, ...) need nothing more. The active-set forms (SumToAll, Broadcast64, ...) take the specification's
// work arrays:
//
//   - pSync: at least the routine's *SyncSize elements (SyncSize covers every routine), each
//     holding SyncValue on every PE before its first use. They hold SyncValue again when the
//     call returns, but a PE may return before its peers are done with their pSync: do not
//     pass the same pSync to another collective until every PE of the set has returned from
//     this one (a barrier between them, or alternate between two pSync arrays, as the
//     specification requires).
//   - pWrk (reductions): at least max(len(src)/2+1, ReduceMinWrkDataSize) elements of the
//     element type.
//
// # More
//
// The README (running programs, shmemrun's flags and exit statuses, the environment, C
// programs) and docs/ARCHITECTURE.md (how the engine works) are in the repository;
// cabi/README.md describes the C library. The OpenSHMEM specification
// (http://openshmem.org) defines every routine's semantics.
package shmem
