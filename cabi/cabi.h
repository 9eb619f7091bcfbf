/* Declarations shared by libgoshmem's hand-written C (cstatic.c, longdouble.c, fastpath.h),
 * its generated C (zshmem.c) and its Go part. Not installed: programs include shmem.h only. */
#ifndef GOSHMEM_CABI_H
#define GOSHMEM_CABI_H

#include <stddef.h>
#include <stdint.h>
#include "shmem.h"

/* Operation codes of goshmem_amo32 and goshmem_amo64 (amo.go): one per machine operation. */
#define GOSHMEM_AMO_FETCH 0
#define GOSHMEM_AMO_SET 1
#define GOSHMEM_AMO_SWAP 2
#define GOSHMEM_AMO_COMPARE_SWAP 3
#define GOSHMEM_AMO_FETCH_ADD 4
#define GOSHMEM_AMO_FETCH_AND 5
#define GOSHMEM_AMO_FETCH_OR 6
#define GOSHMEM_AMO_FETCH_XOR 7
/* Or'ed into a code by the routines that return nothing (set, inc, add, and, or, xor, the
 * signal updates): on another node the operation is then only started, and quiet completes
 * it, where a fetch waits for the answer (a network round trip per call). */
#define GOSHMEM_AMO_POST 8

/* Operations of goshmem_lock (lock.go). */
#define GOSHMEM_LOCK_SET 0
#define GOSHMEM_LOCK_TEST 1
#define GOSHMEM_LOCK_CLEAR 2

/* What the C fast path (fastpath.h) knows of the job: written once by the Go part at
 * shmem_init (fastpath.go, from rt.CABI), read-only until shmem_finalize zeroes it again.
 * All zero outside that span: every check of the fast path then fails and the call goes to
 * Go, which reports "called before shmem_init" or "after shmem_finalize". Defined in
 * fastpath.c; hidden, so the library's code reaches it without the GOT. */
struct goshmem_fastpath {
	uintptr_t heap_lo, heap_size;     /* my symmetric heap [heap_lo, heap_lo+heap_size) */
	uintptr_t static_lo, static_size; /* the program's static data, moved into the heap... */
	uintptr_t static_twin;            /* ...at this address (static.go); size 0: none */
	intptr_t seg_size;                /* PE pe's copy of my heap address a: a + (pe-me)*seg_size */
	uintptr_t sleepers;               /* my doorbell's sleeper count (uint32_t), likewise */
	int me, npes;                     /* npes 0: not running (shmem_my_pe, shmem_n_pes ask Go) */
	int direct;                       /* every PE is reached through shared memory */
	const unsigned char *local;       /* else local[pe] != 0: PE pe is (multi-node job) */
	int ring;                         /* posters ring doorbells: some waiter may sleep */
	int spin;                         /* this PE's waits spin (they do not yield and sleep) */
	/* Not NULL when shmem_barrier_all and shmem_sync_all are rt's Team.pairSync (2 PEs on
	 * one node, the pair barrier): the world team's call count and eager mark (two words),
	 * the barrier's line on PE 0, the same for every call (my flag is word me, the other's
	 * word 1-me), the other PE, whether the wait loads before its first pause (rt.CABIView's
	 * Pair fields). */
	uint64_t *pair_sync;
	uint64_t *pair_line;
	int pair_other;
	int pair_poll_first;
};

extern struct goshmem_fastpath goshmem_fp __attribute__((visibility("hidden")));

/* crash.c: the host a fault report names (a job across nodes; shmem_init sets it). */
void goshmem_fault_where_set(const char *host) __attribute__((visibility("hidden")));

/* A communication context as C sees it (shmem_ctx_t points to one): its team's PEs in the
 * world, start + i*stride for i < size, and the Go side's number for it (0: the default
 * context, goshmem_ctx_default, fastpath.c, whose PE numbers are the world's as they are). Written by the Go part at creation; live is 0 after
 * shmem_ctx_destroy, so every later call goes to Go, which reports it. Not hidden: a program
 * linked without -fPIC copies goshmem_ctx_default into its own data, and SHMEM_CTX_DEFAULT
 * is that copy's address in the library too. */
struct goshmem_ctx {
	int start, stride, size;
	int live;
	uintptr_t id;
};

/* The executable's writable data segment and the part of it that can move into the
 * symmetric heap (see static.go). */
struct goshmem_segment {
	uintptr_t seg_lo, seg_hi; /* the writable PT_LOAD segment */
	uintptr_t lo, size;       /* what moves: page aligned, past the RELRO part; size 0: nothing */
	int linked_in;            /* libgoshmem's code is inside the executable (c-archive) */
};

void goshmem_data_segment(struct goshmem_segment *seg);
int goshmem_data_move(uintptr_t lo, uintptr_t size, void *twin, int fd, long off);

/* Registers implicit finalization at exit (finalize.c); shmem_init calls it. */
void goshmem_implicit_finalize(void);

/* long double reductions, in C (longdouble.c). A combiner sets acc[i] = acc[i] op in[i];
 * zshmem.c generates one per operation from gen/tables.Ops. */
typedef void (*goshmem_ld_combiner)(long double *acc, const long double *in, size_t n);

void goshmem_ld_to_all(int r, goshmem_ld_combiner op, long double *dest, const long double *source,
		       int nreduce, int PE_start, int logPE_stride, int PE_size, long double *pWrk,
		       long *pSync);
int goshmem_ld_reduce(int r, goshmem_ld_combiner op, shmem_team_t team, long double *dest,
		      const long double *source, size_t nreduce);
int goshmem_ld_scan(int r, goshmem_ld_combiner sum, shmem_team_t team, long double *dest,
		    const long double *source, size_t nelems, int inclusive);

#endif
