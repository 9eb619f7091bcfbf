/* Latency of C calls into libgoshmem, measured as internal/shmembench measures the Go API:
 * PE 0 calibrates an iteration count that every PE runs (batches of about 100 ms), then
 * every PE times 9 batches after a barrier each, and PE 0 prints the median and the extremes
 * per call: "name median min max" in ns. One-sided operations run on PE 0 towards PE 1. */
#define _POSIX_C_SOURCE 199309L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCHES 9
#define BATCH_NS 1e8

static int me;
static long ctl;
static long *dst, *ctr, *flag;
static long src = 42, seq;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* share makes PE 0's value every PE's. */
static long share(long v)
{
	if (me == 0)
		for (int pe = 0; pe < shmem_n_pes(); pe++)
			shmem_long_p(&ctl, v, pe);
	shmem_barrier_all();
	v = ctl;
	shmem_barrier_all();
	return v;
}

static double timed(void (*body)(long), long iters)
{
	shmem_barrier_all();
	double t0 = now();
	body(iters);
	return now() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void measure(const char *name, void (*body)(long))
{
	body(100); /* warm up */
	long iters = 1;
	for (;;) {
		double d = timed(body, iters);
		long next = iters;
		if (me == 0 && d < BATCH_NS) {
			next = (long)(iters * BATCH_NS / (d > 1000 ? d : 1000));
			if (next < 2 * iters)
				next = 2 * iters;
		}
		long v = share(next);
		if (v == iters)
			break;
		iters = v;
	}
	double ns[BATCHES];
	for (int b = 0; b < BATCHES; b++)
		ns[b] = timed(body, iters) / iters;
	qsort(ns, BATCHES, sizeof ns[0], cmp);
	shmem_barrier_all();
	if (me == 0)
		printf("%s %.2f %.2f %.2f\n", name, ns[BATCHES / 2], ns[0], ns[BATCHES - 1]);
}

/* One of the cheapest entry points: one C-to-Go call, a state check and a comparison. */
static void call(long n)
{
	for (long i = 0; i < n; i++)
		shmem_pe_accessible(1);
}

static void put8(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++)
			shmem_putmem(dst, &src, 8, 1);
}

static void put8_quiet(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++) {
			shmem_putmem(dst, &src, 8, 1);
			shmem_quiet();
		}
}

#ifdef SHMEM_CTX_DEFAULT
/* The same on a context of its own, and on a team context (PE numbers translated in C). */
static shmem_ctx_t ctx, team_ctx;

static void ctx_put8_quiet(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++) {
			shmem_ctx_putmem(ctx, dst, &src, 8, 1);
			shmem_ctx_quiet(ctx);
		}
}

static void team_ctx_put8_quiet(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++) {
			shmem_ctx_putmem(team_ctx, dst, &src, 8, 1);
			shmem_ctx_quiet(team_ctx);
		}
}
#endif

static void long_p(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++)
			shmem_long_p(dst, i, 1);
}

static void get8(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++)
			shmem_getmem(&src, dst, 8, 1);
}

static void fetch_add(long n)
{
	if (me == 0)
		for (long i = 0; i < n; i++)
			shmem_long_atomic_fetch_add(ctr, 1, 1);
}

static void barrier_all(long n)
{
	for (long i = 0; i < n; i++)
		shmem_barrier_all();
}

/* One round trip: PE 0 puts a flag to PE 1 and waits for PE 1's answer in its own memory. */
static void pingpong(long n)
{
	for (long i = 0; i < n; i++) {
		seq++;
		if (me == 0) {
			shmem_long_p(flag, seq, 1);
			shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
		} else {
			shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
			shmem_long_p(flag, seq, 0);
		}
	}
}

int main(void)
{
	shmem_init();
	me = shmem_my_pe();
	if (shmem_n_pes() != 2) {
		if (me == 0)
			fprintf(stderr, "bench: run with 2 PEs\n");
		shmem_global_exit(2);
	}
	dst = shmem_calloc(1, sizeof(long));
	ctr = shmem_calloc(1, sizeof(long));
	flag = shmem_calloc(1, sizeof(long));
	measure("call", call);
	measure("put8", put8);
	measure("put8_quiet", put8_quiet);
	measure("long_p", long_p);
	measure("get8", get8);
	measure("fetch_add", fetch_add);
	measure("barrier_all", barrier_all);
	measure("pingpong", pingpong);
#ifdef SHMEM_CTX_DEFAULT
	shmem_team_t team;
	shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &team);
	if (shmem_ctx_create(0, &ctx) != 0 || shmem_team_create_ctx(team, 0, &team_ctx) != 0)
		shmem_global_exit(2);
	measure("ctx_put8_quiet", ctx_put8_quiet);
	measure("team_ctx_put8_quiet", team_ctx_put8_quiet);
#endif
	shmem_finalize();
	return 0;
}
