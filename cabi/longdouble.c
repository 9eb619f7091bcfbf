/* Reductions and scans of long double, which has no Go type, in C. They synchronize as the engine's
 * linear reduction does: a barrier (every member's source is ready), then each member reads
 * every member's source through its address on that member (shmem_ptr's translation; a
 * member on another node through the engine, a get) and combines them in member order,
 * ((s0 op s1) op s2) ..., then a barrier (no member changes its source before all have read
 * it). In place (dest == source) the result is combined
 * aside and copied into dest after the second barrier. The active-set form synchronizes on
 * the caller's pSync, the team form on the team's own words, as the Go API's do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "cabi.h"

struct ld_group {
	int r;               /* the calling routine */
	int size;            /* members */
	const int *pe;       /* their world PE numbers */
	shmem_team_t team;   /* the team form's team, or ... */
	int start, logstride; /* ... the active set and its pSync */
	long *pSync;
};

static void ld_barrier(const struct ld_group *g)
{
	if (g->pSync)
		goshmem_barrier(g->r, g->start, g->logstride, g->size, g->pSync);
	else
		goshmem_team_sync(g->r, (uintptr_t)g->team);
}

static void *ld_alloc(int r, size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fflush(NULL);
		fprintf(stderr, "panic: routine %d: out of memory (%zu bytes) for a long double reduction\n", r, n);
		exit(2);
	}
	return p;
}

static void ld_reduce(const struct ld_group *g, goshmem_ld_combiner op, long double *dest,
		      const long double *source, size_t n)
{
	size_t bytes = n * sizeof(long double);
	const long double **ins = ld_alloc(g->r, (size_t)g->size * sizeof *ins);
	for (int j = 0; j < g->size; j++)
		ins[j] = goshmem_peer(g->r, (void *)source, bytes, g->pe[j]);
	long double *out = dest == source ? ld_alloc(g->r, bytes) : dest;
	long double *far = NULL; /* a member's source fetched from another node */
	ld_barrier(g);
	for (int j = 0; j < g->size; j++) {
		const long double *in = ins[j];
		if (!in) {
			if (!far)
				far = ld_alloc(g->r, bytes);
			goshmem_get(g->r, SHMEM_CTX_DEFAULT, far, (void *)source, bytes, g->pe[j]);
			in = far;
		}
		if (j == 0)
			memcpy(out, in, bytes);
		else
			op(out, in, n);
	}
	ld_barrier(g);
	free(far);
	if (out != dest) {
		memcpy(dest, out, bytes);
		free(out);
	}
	free(ins);
}

void goshmem_ld_to_all(int r, goshmem_ld_combiner op, long double *dest, const long double *source,
		       int nreduce, int PE_start, int logPE_stride, int PE_size, long double *pWrk,
		       long *pSync)
{
	if (goshmem_check_to_all(r, dest, (void *)source, nreduce, sizeof(long double), PE_start,
				 logPE_stride, PE_size, pWrk, pSync) ||
	    nreduce == 0)
		return; /* not in the active set (nothing, as Open MPI's OSHMEM), or nothing to do */
	int *pe = ld_alloc(r, (size_t)PE_size * sizeof *pe);
	for (int j = 0; j < PE_size; j++)
		pe[j] = PE_start + (j << logPE_stride);
	struct ld_group g = {r, PE_size, pe, SHMEM_TEAM_INVALID, PE_start, logPE_stride, pSync};
	ld_reduce(&g, op, dest, source, (size_t)nreduce);
	free(pe);
}

int goshmem_ld_reduce(int r, goshmem_ld_combiner op, shmem_team_t team, long double *dest,
		      const long double *source, size_t nreduce)
{
	int size = goshmem_check_reduce(r, (uintptr_t)team, dest, (void *)source, nreduce,
					sizeof(long double));
	if (nreduce == 0)
		return 0;
	int *pe = ld_alloc(r, (size_t)size * sizeof *pe);
	for (int j = 0; j < size; j++)
		pe[j] = shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD);
	struct ld_group g = {r, size, pe, team, 0, 0, NULL};
	ld_reduce(&g, op, dest, source, nreduce);
	free(pe);
	return 0;
}

/* The scans (OpenSHMEM 1.6's shmem_longdouble_sum_inscan and _exscan) synchronize as the
 * reductions: a barrier, then member i reads the sources of members 0 to i (or i-1) and
 * adds them in member order, ((s0 + s1) + s2) ..., as the Go engine's scan does; a barrier.
 * Member 0's exclusive result is zero. */
int goshmem_ld_scan(int r, goshmem_ld_combiner sum, shmem_team_t team, long double *dest,
		    const long double *source, size_t nelems, int inclusive)
{
	int size = goshmem_check_reduce(r, (uintptr_t)team, dest, (void *)source, nelems,
					sizeof(long double));
	if (nelems == 0)
		return 0;
	int me = shmem_team_my_pe(team), last = inclusive ? me : me - 1;
	size_t bytes = nelems * sizeof(long double);
	long double *out = ld_alloc(r, bytes), *far = NULL;
	struct ld_group g = {r, size, NULL, team, 0, 0, NULL};
	ld_barrier(&g);
	memset(out, 0, bytes);
	for (int j = 0; j <= last; j++) {
		int pe = shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD);
		const long double *in = goshmem_peer(r, (void *)source, bytes, pe);
		if (!in) {
			if (!far)
				far = ld_alloc(r, bytes);
			goshmem_get(r, SHMEM_CTX_DEFAULT, far, (void *)source, bytes, pe);
			in = far;
		}
		if (j == 0)
			memcpy(out, in, bytes);
		else
			sum(out, in, nelems);
	}
	ld_barrier(&g);
	memcpy(dest, out, bytes);
	free(out);
	free(far);
	return 0;
}
