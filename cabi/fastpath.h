/* The C fast path of the one-sided routines (included by zshmem.c only).
 *
 * A call into Go costs about 60 ns (cgo's callback path), several times an 8-byte put. So
 * puts, gets, p and g, put_signal, the atomics, quiet, fence, shmem_ptr, and wait_until and
 * test on a local variable do their common case here, in C, on what the Go part published
 * at shmem_init (goshmem_fp, cabi.h): they repeat what the engine (package rt) does on its
 * shared-memory transport. Each helper checks first, in C, that the engine would accept the
 * call: the PE runs, every PE is reached through shared memory (for a remote access),
 * 0 <= pe < npes, the symmetric range lies in the heap (a static variable's address
 * translated to its twin first, as static.go's sym does), atomics are naturally aligned,
 * local buffers are not null, the operation or comparison is valid. Anything else calls
 * the Go entry point with the same arguments, which reports the error exactly as before.
 *
 * Memory order is sync/atomic's: every atomic is sequentially consistent. After a write to
 * PE pe, when some waiter may sleep (goshmem_fp.ring), the poster does what rt.Notify and
 * rt.NotifyAtomic do: a full fence after plain stores, then a load of pe's sleeper count,
 * and only if it is non-zero a call into Go to ring pe's doorbell (goshmem_ring). */
#ifndef GOSHMEM_FASTPATH_H
#define GOSHMEM_FASTPATH_H

#include <string.h>

#include "_cgo_export.h"
#include "cabi.h"

#define GOSHMEM_SC __ATOMIC_SEQ_CST

/* Inlined at every call, whatever GCC's size heuristics say about ~1,000 callers: the
 * constant sizes and operations of the callers fold the helpers into a few instructions. */
#define GOSHMEM_INLINE static inline __attribute__((always_inline))

/* Polls a spinning PE makes in C before its wait goes to Go, which spins on, checks the job
 * and reports hangs (rt checks the job every 4096 polls too). */
#define GOSHMEM_SPIN_POLLS 4096

/* A full barrier, rt.Quiet's: SFENCE (for non-temporal stores) and a locked no-op on amd64,
 * a quarter of MFENCE's cost; DMB ISH on arm64. */
GOSHMEM_INLINE void goshmem_fence_full(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("sfence\n\tlock orq $0, (%%rsp)" ::: "memory", "cc");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb ish" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* A store barrier, rt.Fence's: SFENCE on amd64, DMB ISHST on arm64. */
GOSHMEM_INLINE void goshmem_fence_store(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("sfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb ishst" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* The spin-wait hint, shm.Pause's. */
GOSHMEM_INLINE void goshmem_pause(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* goshmem_fp_sym is the heap address the engine works on for the symmetric range [p, p+n):
 * a static variable's twin, or p; 0 unless the range lies in my heap (which is empty outside
 * shmem_init..shmem_finalize). */
GOSHMEM_INLINE uintptr_t goshmem_fp_sym(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	if (a - goshmem_fp.static_lo < goshmem_fp.static_size)
		a = goshmem_fp.static_twin + (a - goshmem_fp.static_lo);
	uintptr_t off = a - goshmem_fp.heap_lo;
	if (off >= goshmem_fp.heap_size || n > goshmem_fp.heap_size - off)
		return 0;
	return a;
}

/* goshmem_fp_remote is PE pe's copy of the symmetric range [p, p+n), or NULL when the fast
 * path does not apply. */
GOSHMEM_INLINE void *goshmem_fp_remote(const void *p, size_t n, int pe)
{
	if ((unsigned)pe >= (unsigned)goshmem_fp.npes || !goshmem_fp.direct && !(goshmem_fp.local && goshmem_fp.local[pe]))
		return NULL;
	uintptr_t a = goshmem_fp_sym(p, n);
	if (!a)
		return NULL;
	return (void *)(a + (intptr_t)(pe - goshmem_fp.me) * goshmem_fp.seg_size);
}

/* goshmem_fp_pe is the world number of PE pe of ctx's team, or -1, which fails every later
 * check, so the call goes to Go, which reports why (a PE outside the team, a destroyed
 * context). The default context's routines pass SHMEM_CTX_DEFAULT, a constant address: the
 * test folds away there. A null ctx (SHMEM_CTX_INVALID) never comes here. */
GOSHMEM_INLINE int goshmem_fp_pe(shmem_ctx_t ctx, int pe)
{
	if (ctx == SHMEM_CTX_DEFAULT)
		return pe;
	if ((unsigned)pe >= (unsigned)ctx->size || !ctx->live)
		return -1;
	return ctx->start + pe * ctx->stride;
}

/* goshmem_fp_target is goshmem_fp_remote for an atomic's size-byte target, NULL unless it
 * is naturally aligned (the twin of a static variable is aligned as the variable is). */
GOSHMEM_INLINE void *goshmem_fp_target(const void *p, size_t size, int pe)
{
	void *q = goshmem_fp_remote(p, size, pe);
	return (uintptr_t)q & (size - 1) ? NULL : q;
}

/* goshmem_fp_local is the address of a local symmetric variable of size bytes for waits
 * and tests, or NULL unless it lies in the heap naturally aligned. */
GOSHMEM_INLINE const void *goshmem_fp_local(const void *p, size_t size)
{
	uintptr_t a = goshmem_fp_sym(p, size);
	return a & (size - 1) ? NULL : (const void *)a;
}

/* After a sequentially consistent atomic write to PE pe (rt.NotifyAtomic): the write is
 * ordered before the load of pe's sleeper count, whose waiters register with a locked
 * increment before they check their condition, so one of the two sides sees the other. */
GOSHMEM_INLINE void goshmem_fp_notify_atomic(int r, int pe)
{
	if (goshmem_fp.ring) {
		const uint32_t *sleepers = (const uint32_t *)(goshmem_fp.sleepers + (intptr_t)(pe - goshmem_fp.me) * goshmem_fp.seg_size);
		if (__atomic_load_n(sleepers, GOSHMEM_SC))
			goshmem_ring(r, pe);
	}
}

/* After plain stores to PE pe (rt.Notify): a full fence orders them before the load. */
GOSHMEM_INLINE void goshmem_fp_notify(int r, int pe)
{
	if (goshmem_fp.ring) {
		goshmem_fence_full();
		goshmem_fp_notify_atomic(r, pe);
	}
}

/* Puts and gets copy as memmove does, as the engine's copy does (overlap included); a word,
 * the common scalar put, is one load and one store without a call. glibc ends its
 * non-temporal copy loops with SFENCE, so the bytes are ordered before a following flag or
 * signal as the engine's are. */
GOSHMEM_INLINE void goshmem_copy(void *dest, const void *source, size_t n)
{
	if (n == 8) {
		uint64_t w;
		memcpy(&w, source, 8);
		memcpy(dest, &w, 8);
		return;
	}
	memmove(dest, source, n);
}

/* nelems * size, the bytes of a typed routine's elements; when the product does not fit in
 * size_t (a count near SIZE_MAX would wrap to a small size that passes every check) the Go
 * side ends the PE with a message naming the routine. */
GOSHMEM_INLINE size_t goshmem_nbytes(int r, size_t nelems, size_t size)
{
	size_t b;
	if (__builtin_mul_overflow(nelems, size, &b))
		goshmem_overflow(r, nelems, size);
	return b;
}

/* Every routine of a context does nothing on SHMEM_CTX_INVALID (OpenSHMEM 1.5); the
 * default context's routines pass SHMEM_CTX_DEFAULT, where the test folds away. */
GOSHMEM_INLINE void goshmem_fast_put(int r, shmem_ctx_t ctx, void *dest, const void *source, size_t n, int pe)
{
	if (!ctx)
		return;
	int w = goshmem_fp_pe(ctx, pe);
	void *d = goshmem_fp_remote(dest, n, w);
	if (d && (source || n == 0)) {
		if (n) {
			goshmem_copy(d, source, n);
			goshmem_fp_notify(r, w);
		}
		return;
	}
	goshmem_put(r, ctx, dest, (void *)source, n, pe);
}

GOSHMEM_INLINE void goshmem_fast_get(int r, shmem_ctx_t ctx, void *dest, const void *source, size_t n, int pe)
{
	if (!ctx)
		return;
	const void *s = goshmem_fp_remote(source, n, goshmem_fp_pe(ctx, pe));
	if (s && (dest || n == 0)) {
		if (n)
			goshmem_copy(dest, s, n);
		return;
	}
	goshmem_get(r, ctx, dest, (void *)source, n, pe);
}

/* put_signal: the data, then the signal atomically; a PE that sees the signal sees the
 * data (the atomic is a full barrier on amd64 and a release on arm64). */
GOSHMEM_INLINE void goshmem_fast_put_signal(int r, shmem_ctx_t ctx, void *dest, const void *source, size_t n,
					   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	if (!ctx)
		return;
	int w = goshmem_fp_pe(ctx, pe);
	void *d = goshmem_fp_remote(dest, n, w);
	uint64_t *sig = goshmem_fp_target(sig_addr, sizeof *sig, w);
	if (d && sig && (source || n == 0) && (sig_op == SHMEM_SIGNAL_SET || sig_op == SHMEM_SIGNAL_ADD)) {
		if (n)
			goshmem_copy(d, source, n);
		if (sig_op == SHMEM_SIGNAL_SET)
			__atomic_store_n(sig, signal, GOSHMEM_SC);
		else
			__atomic_fetch_add(sig, signal, GOSHMEM_SC);
		goshmem_fp_notify_atomic(r, w);
		return;
	}
	goshmem_put_signal(r, ctx, dest, (void *)source, n, sig_addr, signal, sig_op, pe);
}

GOSHMEM_INLINE uint64_t goshmem_fast_signal_fetch(int r, const uint64_t *sig_addr)
{
	const uint64_t *sig = goshmem_fp_local(sig_addr, sizeof *sig);
	if (sig)
		return __atomic_load_n(sig, GOSHMEM_SC);
	return goshmem_signal_fetch(r, (void *)sig_addr);
}

/* The atomics' call into Go, out of line with six arguments (op, a constant 0..15 at every
 * generated call, packed with the routine number): seven would make every fast path set up a
 * stack frame for the rare call's stack argument. */
#define GOSHMEM_SLOW_AMO(B)                                                                      \
	static __attribute__((noinline, cold)) uint##B##_t goshmem_slow_amo##B(                       \
		int r_op, shmem_ctx_t ctx, void *dest, uint##B##_t value, uint##B##_t cond, int pe)     \
	{                                                                                            \
		return goshmem_amo##B(r_op >> 4, ctx, r_op & 15, dest, value, cond, pe);            \
	}
GOSHMEM_SLOW_AMO(32)
GOSHMEM_SLOW_AMO(64)
#undef GOSHMEM_SLOW_AMO

/* The atomics by size, as amo.go's goshmem_amo32 and goshmem_amo64: op is a constant
 * GOSHMEM_AMO_* at every call, so each inlined call is one operation. A compare-and-swap
 * that changes nothing and a fetch wake nobody. */
#define GOSHMEM_FAST_AMO(B)                                                                          \
	GOSHMEM_INLINE uint##B##_t goshmem_fast_amo##B(int r, shmem_ctx_t ctx, int op, void *dest,   \
						       uint##B##_t value, uint##B##_t cond, int pe)  \
	{                                                                                            \
		if (!ctx)                                                                            \
			return 0;                                                                    \
		int w = goshmem_fp_pe(ctx, pe);                                                      \
		uint##B##_t *p = goshmem_fp_target(dest, sizeof *p, w), old = 0;                     \
		if (!p && (unsigned)op < 16)                                                         \
			return goshmem_slow_amo##B(r << 4 | op, ctx, dest, value, cond, pe);         \
		if (!p)                                                                              \
			return goshmem_amo##B(r, ctx, op, dest, value, cond, pe);                    \
		switch (op & ~GOSHMEM_AMO_POST) { /* on shared memory every operation completes */   \
		case GOSHMEM_AMO_FETCH:                                                              \
			return __atomic_load_n(p, GOSHMEM_SC);                                       \
		case GOSHMEM_AMO_SET:                                                                \
			__atomic_store_n(p, value, GOSHMEM_SC);                                      \
			break;                                                                       \
		case GOSHMEM_AMO_SWAP:                                                               \
			old = __atomic_exchange_n(p, value, GOSHMEM_SC);                             \
			break;                                                                       \
		case GOSHMEM_AMO_COMPARE_SWAP:                                                       \
			old = cond;                                                                  \
			if (!__atomic_compare_exchange_n(p, &old, value, 0, GOSHMEM_SC, GOSHMEM_SC)) \
				return old;                                                          \
			break;                                                                       \
		case GOSHMEM_AMO_FETCH_ADD:                                                          \
			old = __atomic_fetch_add(p, value, GOSHMEM_SC);                              \
			break;                                                                       \
		case GOSHMEM_AMO_FETCH_AND:                                                          \
			old = __atomic_fetch_and(p, value, GOSHMEM_SC);                              \
			break;                                                                       \
		case GOSHMEM_AMO_FETCH_OR:                                                           \
			old = __atomic_fetch_or(p, value, GOSHMEM_SC);                               \
			break;                                                                       \
		case GOSHMEM_AMO_FETCH_XOR:                                                          \
			old = __atomic_fetch_xor(p, value, GOSHMEM_SC);                              \
			break;                                                                       \
		default: /* not an operation: Go reports it */                                       \
			return goshmem_amo##B(r, ctx, op, dest, value, cond, pe);                    \
		}                                                                                    \
		goshmem_fp_notify_atomic(r, w);                                                      \
		return old;                                                                          \
	}
GOSHMEM_FAST_AMO(32)
GOSHMEM_FAST_AMO(64)
#undef GOSHMEM_FAST_AMO

/* quiet and fence: on shared memory every put is complete when it returns; what remains is
 * the order in which other CPUs see them. */
GOSHMEM_INLINE int goshmem_fp_ctx_live(shmem_ctx_t ctx) { return ctx == SHMEM_CTX_DEFAULT || ctx->live; }

GOSHMEM_INLINE void goshmem_fast_quiet(int r, shmem_ctx_t ctx)
{
	if (!ctx)
		return;
	if (goshmem_fp.direct && goshmem_fp_ctx_live(ctx))
		goshmem_fence_full();
	else
		goshmem_quiet(r, ctx);
}

GOSHMEM_INLINE void goshmem_fast_fence(int r, shmem_ctx_t ctx)
{
	if (!ctx)
		return;
	if (goshmem_fp.direct && goshmem_fp_ctx_live(ctx))
		goshmem_fence_store();
	else
		goshmem_fence(r, ctx);
}

/* shmem_ptr: my own copy is the address itself (a static variable's, not its twin's);
 * anything else (not symmetric, not a PE: NULL; not running: the error) is Go's answer. */
GOSHMEM_INLINE void *goshmem_fast_ptr(int r, const void *dest, int pe)
{
	void *q = goshmem_fp_remote(dest, 1, pe);
	if (q)
		return pe == goshmem_fp.me ? (void *)dest : q;
	return goshmem_ptr(r, (void *)dest, pe);
}

/* shmem_barrier_all (fence set) and shmem_sync_all at 2 PEs on one node: rt's Team.pairSync
 * on the same words, with the same epochs, in the same order (the call count, its first
 * barrier's epoch, my flag in the one line every call uses, the other's awaited, loading
 * first when pair_poll_first and then pausing before each poll, the eager mark cleared), its
 * wait past the first polls in Go. 0: not this job, the call goes to Go.
 * Measured on a Zen 2 VM, cores apart (cabi's BenchmarkC): shmem_barrier_all through Go's
 * pairSync 0.29-0.35 us, here 0.15-0.19 (Go's own BarrierAll 0.11-0.14 in the same runs): the
 * cgo call sat between seeing the other's flag and storing the next one, the barrier's cycle. */
GOSHMEM_INLINE int goshmem_fast_pair_sync(int r, int fence)
{
	uint64_t *s = goshmem_fp.pair_sync;
	if (!s)
		return 0;
	if (fence)
		goshmem_fence_store(); /* rt.BarrierAll's: my stores before my arrival */
	uint64_t seq = ++s[0];
	uint64_t e = seq * 16 + 1;
	uint64_t *line = goshmem_fp.pair_line;
	__atomic_store_n(line + goshmem_fp.me, e, __ATOMIC_RELEASE);
	goshmem_fp_notify(r, goshmem_fp.pair_other);
	const uint64_t *other = line + (1 - goshmem_fp.me);
	int seen = goshmem_fp.pair_poll_first && __atomic_load_n(other, __ATOMIC_ACQUIRE) >= e;
	for (int i = 0; i < 64 && !seen; i++) {
		goshmem_pause();
		seen = __atomic_load_n(other, __ATOMIC_ACQUIRE) >= e;
	}
	if (!seen)
		goshmem_pair_wait(r, (void *)other, e);
	if (__atomic_load_n(&s[1], __ATOMIC_RELAXED))
		__atomic_store_n(&s[1], 0, __ATOMIC_RELEASE);
	return 1;
}

/* The polls a wait makes in C: a PE that yields and sleeps checks once and leaves the rest
 * (spin, yield, sleep on the doorbell) to Go. The per-type polls are zshmem.c's
 * goshmem_poll_TYPENAME. */
GOSHMEM_INLINE int goshmem_wait_polls(void) { return goshmem_fp.spin ? GOSHMEM_SPIN_POLLS : 0; }

/* goshmem_test_done says whether a test's fast path answered: it found the condition, or it
 * did not and this PE spins (a PE that sleeps yields in Go after a failed test, rt.Idle). */
GOSHMEM_INLINE int goshmem_test_done(int t) { return t > 0 || (t == 0 && goshmem_fp.spin); }

#endif
