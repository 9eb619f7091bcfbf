// Package shmem is an OpenSHMEM 1.5 runtime: programs started by shmemrun as N processing
// elements (PEs) share a symmetric heap, which each PE reads and writes on any other PE with
// one-sided puts, gets and atomics, synchronize with point-to-point waits, barriers and
// locks, and compute with collectives on teams or active sets.
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
// CtxInvalid do nothing.
//
// # Locks
//
// SetLock, TestLock and ClearLock give mutual exclusion across PEs on a symmetric int64
// that is zero when free; PEs get the lock in the order they asked for it (a queue lock).
//
// # Errors
//
// Programmer errors panic with a message naming the routine and the argument
// ("shmem.Put: PE 9 out of range [0,8)"); conditions a correct program can meet (an
// exhausted heap, no resources for another context) are errors.
package shmem
