/* OpenSHMEM 1.5 and 1.6 from C: communication contexts (every context routine of every type,
 * zctx.c, generated, on a team context whose PE numbers differ from the world's; the C11
 * selections with and without a context; the management routines; SHMEM_CTX_INVALID; static
 * data), locks, the profiling interface (this program intercepts shmem_barrier_all), the
 * 1.6 routines (shmem_team_ptr, SHMEM_TEAM_NODE, shmem_ibput/ibget, shmem_signal_add/set,
 * shmem_pe_quiet, sessions, and the scans of every type, zctx.c, on a team and the world),
 * the C11 forms shmem_sync(team) and shmem_and_reduce on int, the deprecated spellings.
 * Passes at any number of PEs. */
#include <pshmem.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "zctx.c"

static long counter; /* static data is symmetric */

/* The profiling interface: this definition replaces the library's weak shmem_barrier_all. */
static int barriers;
void shmem_barrier_all(void)
{
	barriers++;
	pshmem_barrier_all();
}
static long static_lock;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "PE %d: line %d: %s\n", shmem_my_pe(), __LINE__, #cond); \
			shmem_global_exit(1);                                                \
		}                                                                            \
	} while (0)

static void contexts(int me, int n)
{
	/* The odd PEs from 3 PEs on: team PE i is world PE 2i+1. */
	int start = n >= 3 ? 1 : 0, stride = n >= 3 ? 2 : 1, size = n >= 3 ? n / 2 : n;
	shmem_team_t team;
	CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &team) == 0);
	shmem_ctx_t ctx = SHMEM_CTX_INVALID;
	if (team != SHMEM_TEAM_INVALID) {
		CHECK(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID);
		shmem_team_t got;
		CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == team);
	} else {
		shmem_ctx_t none = SHMEM_CTX_DEFAULT;
		CHECK(shmem_team_create_ctx(team, 0, &none) != 0 && none == SHMEM_CTX_INVALID);
	}
	ctx_typed_tests(ctx, shmem_team_my_pe(team), shmem_team_n_pes(team));
	scan_typed_tests(team, shmem_team_my_pe(team));
	scan_typed_tests(SHMEM_TEAM_WORLD, me);
	if (ctx != SHMEM_CTX_INVALID) { /* quiet towards some of the team's PEs, by team number */
		int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
		int tpes[2] = {(tme + 1) % tn, 0};
		shmem_ctx_pe_quiet(ctx, tpes, 2);
	}
	shmem_ctx_destroy(ctx);
	shmem_team_destroy(team);
	shmem_team_destroy(SHMEM_TEAM_INVALID); /* nothing */

	/* A world context, the default one, and the C11 forms with and without a context. */
	shmem_ctx_t w;
	CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE, &w) == 0);
	shmem_team_t wt;
	CHECK(shmem_ctx_get_team(w, &wt) == 0 && wt == SHMEM_TEAM_WORLD);
	CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &wt) == 0 && wt == SHMEM_TEAM_WORLD);
	long *x = shmem_calloc(8, sizeof(long));
	int next = (me + 1) % n, prev = (me + n - 1) % n;
	shmem_p(w, &x[0], (long)me, next);
	shmem_p(&x[1], (long)me + 1, next);
	shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &x[2], (long)me + 2, next);
	shmem_atomic_add(w, &x[3], 1L, 0);
	shmem_atomic_inc(&x[3], 0);
	shmem_ctx_long_atomic_inc(SHMEM_CTX_DEFAULT, &x[3], 0);
	shmem_ctx_long_atomic_inc(w, &counter, 0);
	long src[2] = {me * 10L, me * 10L + 1};
	shmem_put(w, &x[4], src, 2, next);
	shmem_ctx_putmem_signal(w, &x[6], src, sizeof(long), (uint64_t *)&x[7], 1, SHMEM_SIGNAL_ADD, next);
	shmem_ctx_fence(w);
	shmem_ctx_quiet(w);
	shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
	shmem_barrier_all();
	CHECK(x[0] == prev && x[1] == prev + 1 && x[2] == prev + 2);
	CHECK(x[4] == prev * 10L && x[5] == prev * 10L + 1 && x[6] == prev * 10L && x[7] == 1);
	if (me == 0)
		CHECK(x[3] == 3L * n && counter == n);
	long g[2];
	shmem_get(w, g, &x[4], 2, next);
	shmem_ctx_getmem_nbi(w, &g[1], &x[0], sizeof(long), next);
	shmem_ctx_quiet(w);
	CHECK(g[0] == me * 10L && g[1] == me);
	CHECK(shmem_g(w, &x[1], next) == me + 1 && shmem_atomic_fetch(w, &x[2], next) == me + 2);
	shmem_barrier_all();

	/* SHMEM_CTX_INVALID: nothing happens. */
	shmem_ctx_long_p(SHMEM_CTX_INVALID, &x[0], 99, next);
	shmem_ctx_putmem(SHMEM_CTX_INVALID, &x[0], src, sizeof(long), next);
	CHECK(shmem_ctx_long_atomic_fetch_add(SHMEM_CTX_INVALID, &x[0], 5, next) == 0);
	CHECK(shmem_ctx_int_g(SHMEM_CTX_INVALID, (int *)&x[0], next) == 0);
	shmem_ctx_quiet(SHMEM_CTX_INVALID);
	shmem_ctx_fence(SHMEM_CTX_INVALID);
	shmem_ctx_destroy(SHMEM_CTX_INVALID);
	shmem_team_t none = SHMEM_TEAM_WORLD;
	CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &none) != 0 && none == SHMEM_TEAM_INVALID);
	shmem_barrier_all();
	CHECK(x[0] == prev);
	shmem_ctx_destroy(w);
	shmem_free(x);
}

/* Locks: every PE increments counters on the last PE by get and put under a lock (one
 * static, one on the heap); the totals are exact only under mutual exclusion. */
static void locks(int me, int n)
{
	enum { EACH = 300 };
	long *heap_lock = shmem_calloc(1, sizeof(long)), *ctr = shmem_calloc(2, sizeof(long));
	int last = n - 1;
	for (int i = 0; i < EACH; i++) {
		long *l = i % 2 ? heap_lock : &static_lock;
		if (i % 7 == 0)
			while (shmem_test_lock(l))
				;
		else
			shmem_set_lock(l);
		long v = shmem_long_g(&ctr[i % 2], last);
		if (i % 5 == 0)
			sched_yield(); /* another PE on this CPU runs inside the window */
		shmem_long_p(&ctr[i % 2], v + 1, last);
		shmem_clear_lock(l);
	}
	shmem_barrier_all();
	if (me == last)
		CHECK(ctr[0] == (long)n * EACH / 2 && ctr[1] == (long)n * EACH / 2);
	CHECK(static_lock == 0 && *heap_lock == 0);
	shmem_barrier_all();
	shmem_free(ctr);
	shmem_free(heap_lock);
}

/* OpenSHMEM 1.6's routines, the C11 forms and the deprecated spellings. */
static void newer(int me, int n)
{
	int next = (me + 1) % n, prev = (me + n - 1) % n;
	long *x = shmalloc(32 * sizeof(long));
	CHECK(x != NULL);
	for (int i = 0; i < 32; i++)
		x[i] = -1;
	uint64_t *sig = shmemalign(64, 4 * sizeof(uint64_t));
	CHECK(sig != NULL && (uintptr_t)sig % 64 == 0);
	sig[0] = sig[1] = sig[2] = sig[3] = 0;
	CHECK(shmem_align(0, 8) == NULL && shmem_align(3, 8) == NULL); /* as Open MPI's OSHMEM */
	shmem_barrier_all();

	/* shmem_team_ptr, SHMEM_TEAM_NODE */
	CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, x, 0) == NULL);
	CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, next) == shmem_ptr(x, next));
	/* The node's team: every PE on one node; across nodes, the PEs of mine. */
	int nn = shmem_team_n_pes(SHMEM_TEAM_NODE), nme = shmem_team_my_pe(SHMEM_TEAM_NODE);
	CHECK(nn == shmem_team_n_pes(SHMEM_TEAM_SHARED) && nme == shmem_team_my_pe(SHMEM_TEAM_SHARED));
	CHECK(nn >= 1 && nn <= n && nme >= 0 && nme < nn);
	int nprev = shmem_team_translate_pe(SHMEM_TEAM_NODE, (nme + nn - 1) % nn, SHMEM_TEAM_WORLD);
	long *peer = shmem_team_ptr(SHMEM_TEAM_NODE, &x[31], (nme + 1) % nn);
	CHECK(peer != NULL);
	*peer = me;

	/* Block-strided: 3 blocks of 2 from source stride 2 to dest stride 3, typed, sized, on a
	 * context; then back. */
	long src[6] = {me * 100L, me * 100L + 1, me * 100L + 2, me * 100L + 3, me * 100L + 4, me * 100L + 5};
	shmem_long_ibput(x, src, 3, 2, 2, 3, next);          /* x[0,1], x[3,4], x[6,7] <- src[0,1], src[2,3], src[4,5] */
	shmem_ibput64(&x[10], src, 4, 1, 1, 3, next);        /* x[10], x[14], x[18] <- src[0], src[1], src[2] */
	shmem_ibput(SHMEM_CTX_DEFAULT, &x[20], src, 2, 2, 1, 3, next); /* x[20], x[22], x[24] <- src[0], src[2], src[4] */
	shmem_signal_set(&sig[0], 7, next);
	shmem_signal_add(&sig[1], 1, 0);
	shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig[2], 2, 0);
	shmem_quiet();
	shmem_barrier_all();
	long p = prev * 100L;
	CHECK(x[0] == p && x[1] == p + 1 && x[2] == -1 && x[3] == p + 2 && x[4] == p + 3 && x[5] == -1);
	CHECK(x[6] == p + 4 && x[7] == p + 5 && x[8] == -1);
	CHECK(x[10] == p && x[11] == -1 && x[14] == p + 1 && x[18] == p + 2 && x[19] == -1);
	CHECK(x[20] == p && x[21] == -1 && x[22] == p + 2 && x[24] == p + 4);
	CHECK(x[31] == nprev && sig[0] == 7);
	if (me == 0)
		CHECK(sig[1] == (uint64_t)n && sig[2] == 2 * (uint64_t)n);
	long back[9] = {0};
	shmem_ibget(back, x, 3, 3, 2, 3, next); /* back[0,1], [3,4], [6,7] <- x[0,1], x[3,4], x[6,7] on next */
	CHECK(back[0] == me * 100L && back[1] == me * 100L + 1 && back[2] == 0 && back[3] == me * 100L + 2);
	CHECK(back[7] == me * 100L + 5 && back[8] == 0);
	shmem_ctx_long_ibget(SHMEM_CTX_DEFAULT, back, &x[10], 1, 4, 1, 3, next);
	CHECK(back[0] == me * 100L && back[1] == me * 100L + 1 && back[2] == me * 100L + 2);

	/* shmem_pe_quiet: a put to the next PE, completed towards it only, then a flag behind
	 * it; npes 0 ignores target_pes; SHMEM_CTX_INVALID does nothing. */
	int targets[3] = {next, prev, next};
	shmem_long_p(&x[28], me + 1000L, next);
	shmem_pe_quiet(targets, 3);
	shmem_pe_quiet(NULL, 0);
	shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, &targets[1], 1);
	shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, targets, 3);
	shmem_signal_set(&sig[3], 1, next);
	shmem_signal_wait_until(&sig[3], SHMEM_CMP_EQ, 1);
	CHECK(x[28] == prev + 1000L);

	/* Sessions: hints; the operations inside behave as outside. */
	shmem_ctx_session_config_t cfg = {.total_ops = 64};
	shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
	shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, NULL, 0); /* or'ed into the started one */
	for (int i = 0; i < 64; i++)
		shmem_long_atomic_add(&x[29], 1, next);
	shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
	shmem_ctx_session_stop(SHMEM_CTX_DEFAULT); /* stopped already: nothing */
	shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
	shmem_ctx_session_stop(SHMEM_CTX_INVALID);
	shmem_barrier_all();
	CHECK(x[29] == -1 + 64);

	/* C11 scans over the basic types. */
	long *ls = shmem_malloc(2 * sizeof(long));
	double *ds = shmem_malloc(2 * sizeof(double));
	ls[0] = me + 1, ds[0] = 0.5 * me;
	CHECK(shmem_sum_inscan(SHMEM_TEAM_WORLD, &ls[1], &ls[0], 1) == 0 && ls[1] == (long)(me + 1) * (me + 2) / 2);
	CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, &ds[1], &ds[0], 1) == 0 && ds[1] == 0.25 * me * (me - 1));
	shmem_free(ds);
	shmem_free(ls);

	/* C11: shmem_sync(team) beside the active-set form; a bitwise reduction on int. */
	CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
	int *bits = shmem_calloc(2, sizeof(int));
	bits[0] = 1 << (me % 16);
	CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, &bits[1], &bits[0], 1) == 0);
	int want = 0;
	for (int i = 0; i < n; i++)
		want |= 1 << (i % 16);
	CHECK(bits[1] == want);
	shmem_free(bits);

	/* Zero-length collectives take NULL buffers; a team in reverse order (a negative stride). */
	CHECK(shmem_collectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
	CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
	CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0);
	CHECK(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
	CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
	shmem_team_t rev;
	CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev) == 0);
	CHECK(shmem_team_my_pe(rev) == n - 1 - me);
	shmem_ctx_t rctx;
	CHECK(shmem_team_create_ctx(rev, 0, &rctx) == 0);
	shmem_ctx_long_p(rctx, &x[30], (long)me, 0); /* team PE 0 is world PE n-1 */
	shmem_ctx_quiet(rctx);
	shmem_ctx_destroy(rctx);
	shmem_team_destroy(rev);
	shmem_barrier_all();
	if (me == n - 1)
		CHECK(x[30] >= 0 && x[30] < n);

	/* The deprecated cache routines do nothing; pcontrol is for tools. */
	shmem_clear_cache_inv();
	shmem_set_cache_inv();
	shmem_set_cache_line_inv(x);
	shmem_clear_cache_line_inv(x);
	shmem_udcflush();
	shmem_udcflush_line(x);
	shmem_pcontrol(1);
	shmem_barrier_all();
	shfree(sig);
	x = shrealloc(x, 64 * sizeof(long));
	CHECK(x != NULL && x[0] == p);
	shfree(x);
}

int main(void)
{
	shmem_init();
	int me = shmem_my_pe(), n = shmem_n_pes();
	contexts(me, n);
	locks(me, n);
	newer(me, n);
	barriers = 0;
	shmem_barrier_all();
	CHECK(barriers == 1); /* the program's own shmem_barrier_all ran */
	shmem_barrier_all();
	if (me == 0)
		printf("ctx: ok at %d PEs\n", n);
	shmem_finalize();
	return 0;
}
