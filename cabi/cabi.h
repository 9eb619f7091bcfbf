/* Declarations shared by libgoshmem's hand-written C (cstatic.c, longdouble.c), its
 * generated C (zshmem.c) and its Go part. Not installed: programs include shmem.h only. */
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

/* This PE's number and the job's size while the PE runs (between shmem_init and
 * shmem_finalize), else -1: shmem_my_pe and shmem_n_pes answer from them without a call
 * into Go, which they make (and which explains the error) only outside that span. Set by
 * setup.go; defined in query.c. */
extern int goshmem_me, goshmem_npes;

/* The executable's writable data segment and the part of it that can move into the
 * symmetric heap (see static.go). */
struct goshmem_segment {
	uintptr_t seg_lo, seg_hi; /* the writable PT_LOAD segment */
	uintptr_t lo, size;       /* what moves: page aligned, past the RELRO part; size 0: nothing */
	int linked_in;            /* libgoshmem's code is inside the executable (c-archive) */
};

void goshmem_data_segment(struct goshmem_segment *seg);
int goshmem_data_move(uintptr_t lo, uintptr_t size, void *twin, int fd, long off);

/* long double reductions, in C (longdouble.c). A combiner sets acc[i] = acc[i] op in[i];
 * zshmem.c generates one per operation from gen/tables.Ops. */
typedef void (*goshmem_ld_combiner)(long double *acc, const long double *in, size_t n);

void goshmem_ld_to_all(int r, goshmem_ld_combiner op, long double *dest, const long double *source,
		       int nreduce, int PE_start, int logPE_stride, int PE_size, long double *pWrk,
		       long *pSync);
int goshmem_ld_reduce(int r, goshmem_ld_combiner op, shmem_team_t team, long double *dest,
		      const long double *source, size_t nreduce);

#endif
