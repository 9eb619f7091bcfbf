/*
 * osu_peer: the OpenSHMEM 1.4 side of goshmem's benchmark method.
 *
 * It measures exactly what bench/FORMAT.md defines (operations, batches, sizes,
 * sample loop, medians, JSON lines) so that its numbers can be set beside those of
 * goshmem's Go suite, bench/osu. Written against Open MPI 4.1's OSHMEM; only the
 * OpenSHMEM 1.4 API is used, so the 1.5 operations (test_some, wait_until_some)
 * are reported as unavailable.
 *
 * Build: oshcc -O2 -o osu_peer osu_peer.c
 * Run:   oshrun -np 2 --bind-to core --map-by core ./osu_peer [flags]   (see run.sh)
 */
#define _GNU_SOURCE
#include <shmem.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IMPL "oshmem"
#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define SMALL_LIMIT (64 * KIB) /* batch and default-iteration threshold, in bytes */
#define WINDOW 64              /* messages per window in put_bw, get_bw, put_nbi_rate */
#define MAX_IVARS 1024         /* largest test_some / wait_until_some set */

/* Which PEs run an operation, and so which PEs' medians the -f columns cover. */
enum active { ACTIVE_PE0, ACTIVE_PAIR, ACTIVE_ALL };

/* The extra rate a row reports besides us. */
enum metric { METRIC_NONE, METRIC_MBPS, METRIC_MOPS };

/* Families choose the default -i/-x (bench/FORMAT.md, "Defaults"). */
enum family { FAM_RMA, FAM_BW, FAM_RATE, FAM_ATOMIC, FAM_SYNC, FAM_COLL, FAM_PROGRESS };

struct op {
    const char *name;
    enum family family;
    const char *unit;   /* "B" or "elems" */
    size_t min, max;    /* default size range; -m narrows or widens it, never past max */
    int fixed;          /* one size only; -m does not apply */
    size_t elem_bytes;  /* bytes per element (1 for RMA) */
    enum active active;
    enum metric metric;
    int nmsg;           /* messages per operation for mops/mbps: WINDOW or 1 */
    const char *title;  /* the table's header line */
    const char *na;     /* non-NULL: the reason the operation cannot be measured here */
    void (*run)(size_t size, int batch);
};

/* ---- state shared by the operations ---- */

static int me, npes;
static char *buf_a, *buf_b;       /* symmetric: source and destination of RMA and collectives */
static size_t buf_bytes;
static void *pwrk[2];             /* symmetric reduction work arrays, alternated */
static long *psync[2];            /* symmetric pSync arrays, alternated */
static long *amo_target;          /* symmetric: the atomics' target word (on PE 1) */
static long *ping, *pong;         /* symmetric: pingpong flags */
static double *medians;           /* symmetric: each PE's median, gathered on PE 0 */
static unsigned long coll_calls;  /* selects the pSync/pWrk pair */
static long pingpong_seq;         /* the value of the next round trip, same on both PEs */
static volatile long sink;        /* keeps fetched values alive */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---- RMA ---- */

static void run_put(size_t n, int batch)
{
    if (me != 0) return;
    for (int b = 0; b < batch; b++) {
        shmem_putmem(buf_b, buf_a, n, 1);
        shmem_quiet();
    }
}

static void run_get(size_t n, int batch)
{
    if (me != 0) return;
    for (int b = 0; b < batch; b++)
        shmem_getmem(buf_b, buf_a, n, 1);
}

static void run_put_bw(size_t n, int batch)
{
    if (me != 0) return;
    for (int b = 0; b < batch; b++) {
        for (int w = 0; w < WINDOW; w++)
            shmem_putmem_nbi(buf_b, buf_a, n, 1);
        shmem_quiet();
    }
}

static void run_get_bw(size_t n, int batch)
{
    if (me != 0) return;
    for (int b = 0; b < batch; b++) {
        for (int w = 0; w < WINDOW; w++)
            shmem_getmem_nbi(buf_b, buf_a, n, 1);
        shmem_quiet();
    }
}

static void run_put_nbi_rate(size_t n, int batch)
{
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++) {
        /* distinct 8-byte slots, so no implementation can merge the messages */
        for (int w = 0; w < WINDOW; w++)
            shmem_putmem_nbi(buf_b + 8 * w, buf_a, 8, 1);
        shmem_quiet();
    }
}

/* ---- atomics: long on PE 1, issued by PE 0 ---- */

static void run_atomic_fetch_add(size_t n, int batch)
{
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++)
        sink = shmem_long_atomic_fetch_add(amo_target, 1, 1);
}

static void run_atomic_add(size_t n, int batch)
{
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++)
        shmem_long_atomic_add(amo_target, 1, 1);
    shmem_quiet(); /* a non-fetching AMO is complete only after quiet */
}

static void run_atomic_compare_swap(size_t n, int batch)
{
    /* The expected value is carried from call to call: only PE 0 writes the word while
       this operation runs, so every call after the first one (a warm-up) succeeds. */
    static long expect;
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++) {
        long got = shmem_long_atomic_compare_swap(amo_target, expect, expect + 1, 1);
        expect = got == expect ? expect + 1 : got;
    }
}

static void run_atomic_swap(size_t n, int batch)
{
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++)
        sink = shmem_long_atomic_swap(amo_target, (long)b, 1);
}

static void run_atomic_set(size_t n, int batch)
{
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++)
        shmem_long_atomic_set(amo_target, (long)b, 1);
    shmem_quiet(); /* a non-fetching AMO is complete only after quiet */
}

static void run_atomic_fetch(size_t n, int batch)
{
    (void)n;
    if (me != 0) return;
    for (int b = 0; b < batch; b++)
        sink = shmem_long_atomic_fetch(amo_target, 1);
}

/* ---- synchronization ---- */

static void run_barrier(size_t n, int batch)
{
    (void)n;
    for (int b = 0; b < batch; b++)
        shmem_barrier_all();
}

static void run_pingpong(size_t n, int batch)
{
    (void)n;
    if (me > 1) return;
    for (int b = 0; b < batch; b++) {
        long v = ++pingpong_seq;
        if (me == 0) {
            shmem_long_p(ping, v, 1);
            shmem_quiet();
            shmem_long_wait_until(pong, SHMEM_CMP_GE, v);
        } else {
            shmem_long_wait_until(ping, SHMEM_CMP_GE, v);
            shmem_long_p(pong, v, 0);
            shmem_quiet();
        }
    }
}

/* progress: PE 1 computes for PROGRESS_COMPUTE_US without calling the library; PE 0 waits
 * PROGRESS_DELAY_US, then times an 8-byte put and quiet to PE 1 (self_timed_us), which
 * completes only if PE 1's side of the transport makes progress without PE 1's help. */
#define PROGRESS_COMPUTE_US 300000.0
#define PROGRESS_DELAY_US 30000.0
static double self_timed_us;
static volatile unsigned long compute_sink;

static void run_progress(size_t n, int batch)
{
    (void)n;
    for (int b = 0; b < batch; b++) {
        if (me == 0) {
            struct timespec d = {0, (long)(PROGRESS_DELAY_US * 1000)};
            nanosleep(&d, NULL);
            double t0 = now_us();
            shmem_putmem(buf_b, buf_a, 8, 1);
            shmem_quiet();
            self_timed_us += now_us() - t0;
        } else if (me == 1) {
            unsigned long x = compute_sink | 1;
            for (double t0 = now_us(); now_us() - t0 < PROGRESS_COMPUTE_US;)
                for (int i = 0; i < 1000; i++)
                    x = x * 6364136223846793005UL + 1442695040888963407UL;
            compute_sink = x;
        }
    }
}

/* ---- collectives: active set of all PEs, pSync and pWrk alternated ---- */

#define ALL_PES 0, 0, npes

/* next_sync hands out the pSync (and pWrk) of the next collective call. */
static long *next_sync(void **wrk)
{
    int k = coll_calls++ & 1;
    if (wrk) *wrk = pwrk[k];
    return psync[k];
}

static void run_broadcast64(size_t n, int batch)
{
    for (int b = 0; b < batch; b++) {
        long *ps = next_sync(NULL);
        shmem_broadcast64(buf_b, buf_a, n, 0, ALL_PES, ps);
    }
}

static void run_collect64(size_t n, int batch)
{
    for (int b = 0; b < batch; b++) {
        long *ps = next_sync(NULL);
        shmem_collect64(buf_b, buf_a, n, ALL_PES, ps);
    }
}

static void run_fcollect64(size_t n, int batch)
{
    for (int b = 0; b < batch; b++) {
        long *ps = next_sync(NULL);
        shmem_fcollect64(buf_b, buf_a, n, ALL_PES, ps);
    }
}

#define REDUCTION(fname, ctype, call)                                               \
    static void fname(size_t n, int batch)                                           \
    {                                                                                \
        for (int b = 0; b < batch; b++) {                                            \
            void *wrk;                                                               \
            long *ps = next_sync(&wrk);                                              \
            call((ctype *)buf_b, (const ctype *)buf_a, (int)n, ALL_PES, wrk, ps);    \
        }                                                                            \
    }

REDUCTION(run_reduce_int_sum, int, shmem_int_sum_to_all)
REDUCTION(run_reduce_long_sum, long, shmem_long_sum_to_all)
REDUCTION(run_reduce_double_sum, double, shmem_double_sum_to_all)
REDUCTION(run_reduce_long_or, long, shmem_long_or_to_all)
REDUCTION(run_reduce_int_min, int, shmem_int_min_to_all)

#define A2AS_STRIDE 2 /* dst and sst of alltoalls64 */

static void run_alltoall64(size_t n, int batch)
{
    for (int b = 0; b < batch; b++) {
        long *ps = next_sync(NULL);
        shmem_alltoall64(buf_b, buf_a, n, ALL_PES, ps);
    }
}

static void run_alltoalls64(size_t n, int batch)
{
    for (int b = 0; b < batch; b++) {
        long *ps = next_sync(NULL);
        shmem_alltoalls64(buf_b, buf_a, A2AS_STRIDE, A2AS_STRIDE, n, ALL_PES, ps);
    }
}

#define NA_15 "OpenSHMEM 1.5 routine; Open MPI 4.1's OSHMEM implements 1.4"
#define NA_16 "OpenSHMEM 1.6 routine; Open MPI 4.1's OSHMEM implements 1.4"

static const struct op ops[] = {
    {"put", FAM_RMA, "B", 8, 16 * MIB, 0, 1, ACTIVE_PE0, METRIC_NONE, 1,
     "shmem_putmem + shmem_quiet, PE 0 -> PE 1", NULL, run_put},
    {"get", FAM_RMA, "B", 8, 16 * MIB, 0, 1, ACTIVE_PE0, METRIC_NONE, 1,
     "shmem_getmem, PE 0 <- PE 1", NULL, run_get},
    {"put_bw", FAM_BW, "B", 8, 16 * MIB, 0, 1, ACTIVE_PE0, METRIC_MBPS, WINDOW,
     "64 x shmem_putmem_nbi + shmem_quiet, PE 0 -> PE 1", NULL, run_put_bw},
    {"get_bw", FAM_BW, "B", 8, 16 * MIB, 0, 1, ACTIVE_PE0, METRIC_MBPS, WINDOW,
     "64 x shmem_getmem_nbi + shmem_quiet, PE 0 <- PE 1", NULL, run_get_bw},
    {"put_nbi_rate", FAM_RATE, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, WINDOW,
     "64 x 8-byte shmem_putmem_nbi + shmem_quiet, PE 0 -> PE 1", NULL, run_put_nbi_rate},
    {"atomic_fetch_add", FAM_ATOMIC, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, 1,
     "shmem_long_atomic_fetch_add on PE 1", NULL, run_atomic_fetch_add},
    {"atomic_add", FAM_ATOMIC, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, 1,
     "shmem_long_atomic_add on PE 1 (one shmem_quiet per batch)", NULL, run_atomic_add},
    {"atomic_compare_swap", FAM_ATOMIC, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, 1,
     "shmem_long_atomic_compare_swap on PE 1 (succeeding)", NULL, run_atomic_compare_swap},
    {"atomic_swap", FAM_ATOMIC, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, 1,
     "shmem_long_atomic_swap on PE 1", NULL, run_atomic_swap},
    {"atomic_set", FAM_ATOMIC, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, 1,
     "shmem_long_atomic_set on PE 1 (one shmem_quiet per batch)", NULL, run_atomic_set},
    {"atomic_fetch", FAM_ATOMIC, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_MOPS, 1,
     "shmem_long_atomic_fetch on PE 1", NULL, run_atomic_fetch},
    {"barrier", FAM_SYNC, "B", 0, 0, 1, 1, ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_barrier_all", NULL, run_barrier},
    {"pingpong", FAM_SYNC, "B", 8, 8, 1, 1, ACTIVE_PAIR, METRIC_NONE, 1,
     "shmem_long_p + shmem_quiet / shmem_long_wait_until round trip, PE 0 <-> PE 1", NULL,
     run_pingpong},
    {"test_some", FAM_SYNC, "elems", 1, MAX_IVARS, 0, 8, ACTIVE_PAIR, METRIC_NONE, 1,
     "shmem_long_test_some round trip, PE 0 <-> PE 1", NA_15, NULL},
    {"wait_until_some", FAM_SYNC, "elems", 1, MAX_IVARS, 0, 8, ACTIVE_PAIR, METRIC_NONE, 1,
     "shmem_long_wait_until_some round trip, PE 0 <-> PE 1", NA_15, NULL},
    {"progress", FAM_PROGRESS, "B", 8, 8, 1, 1, ACTIVE_PE0, METRIC_NONE, 1,
     "shmem_putmem + shmem_quiet, PE 0 -> PE 1 while PE 1 computes for 300 ms", NULL, run_progress},
    {"broadcast64", FAM_COLL, "elems", 1, MIB / 8, 0, 8, ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_broadcast64 from PE 0, all PEs", NULL, run_broadcast64},
    {"collect64", FAM_COLL, "elems", 1, MIB / 8, 0, 8, ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_collect64, all PEs", NULL, run_collect64},
    {"fcollect64", FAM_COLL, "elems", 1, MIB / 8, 0, 8, ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_fcollect64, all PEs", NULL, run_fcollect64},
    {"reduce_int_sum", FAM_COLL, "elems", 1, MIB, 0, sizeof(int), ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_int_sum_to_all, all PEs", NULL, run_reduce_int_sum},
    {"reduce_long_sum", FAM_COLL, "elems", 1, MIB, 0, sizeof(long), ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_long_sum_to_all, all PEs", NULL, run_reduce_long_sum},
    {"reduce_double_sum", FAM_COLL, "elems", 1, MIB, 0, sizeof(double), ACTIVE_ALL, METRIC_NONE,
     1, "shmem_double_sum_to_all, all PEs", NULL, run_reduce_double_sum},
    {"reduce_long_or", FAM_COLL, "elems", 1, MIB, 0, sizeof(long), ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_long_or_to_all, all PEs", NULL, run_reduce_long_or},
    {"reduce_int_min", FAM_COLL, "elems", 1, MIB, 0, sizeof(int), ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_int_min_to_all, all PEs", NULL, run_reduce_int_min},
    {"inscan_long_sum", FAM_COLL, "elems", 1, MIB, 0, sizeof(long), ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_long_sum_inscan over SHMEM_TEAM_WORLD, all PEs", NA_16, NULL},
    {"alltoall64", FAM_COLL, "elems", 1, 64 * KIB, 0, 8, ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_alltoall64, all PEs", NULL, run_alltoall64},
    {"alltoalls64", FAM_COLL, "elems", 1, 64 * KIB, 0, 8, ACTIVE_ALL, METRIC_NONE, 1,
     "shmem_alltoalls64, dst = sst = 2, all PEs", NULL, run_alltoalls64},
};
#define NOPS (sizeof ops / sizeof ops[0])

/* The batch of an operation at a size (bench/FORMAT.md, "Operations"). */
static int op_batch(const struct op *o, size_t size)
{
    size_t bytes = size * o->elem_bytes;
    switch (o->family) {
    case FAM_RMA: return bytes <= SMALL_LIMIT ? 100 : 1;
    case FAM_BW: return bytes <= SMALL_LIMIT ? 10 : 1; /* windows */
    case FAM_RATE: return 10;                           /* windows */
    case FAM_ATOMIC:
    case FAM_SYNC: return 100;
    case FAM_COLL:
    case FAM_PROGRESS: return 1;
    }
    return 1;
}

/* Default samples and warm-up samples (bench/FORMAT.md, "Defaults"). */
static void op_default_iters(const struct op *o, size_t size, int *iters, int *warmup)
{
    int large = size * o->elem_bytes > SMALL_LIMIT;
    switch (o->family) {
    case FAM_PROGRESS: /* each sample takes 300 ms */
        *iters = 10;
        *warmup = 1;
        return;
    case FAM_BW:
        *iters = large ? 20 : 200;
        *warmup = large ? 2 : 20;
        return;
    case FAM_COLL:
        *iters = large ? 50 : 500;
        *warmup = large ? 5 : 50;
        return;
    default:
        *iters = large ? 100 : 500;
        *warmup = large ? 10 : 50;
        return;
    }
}

/* Bytes of buf_a and of buf_b an operation needs at a size. */
static size_t op_buffer_bytes(const struct op *o, size_t size)
{
    size_t n = size * o->elem_bytes;
    if (strcmp(o->name, "put_nbi_rate") == 0) return 8 * WINDOW;
    if (strncmp(o->name, "collect", 7) == 0 || strncmp(o->name, "fcollect", 8) == 0 ||
        strcmp(o->name, "alltoall64") == 0)
        return n * (size_t)npes;
    if (strcmp(o->name, "alltoalls64") == 0) return n * (size_t)npes * A2AS_STRIDE;
    return n;
}

/* ---- options ---- */

struct options {
    size_t min, max;
    int have_range;
    int iters, warmup; /* -1: the op's default */
    int full, json;
    int selected[NOPS];
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: osu_peer [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [--json] [-o OP,...]\n"
            "  -m MIN:MAX  sizes (bytes for RMA, elements per PE for collectives), doubling from MIN;\n"
            "              MIN: or :MAX leave the other end at the operation's default\n"
            "  -i N        timed samples per size (default: per operation family)\n"
            "  -x N        warm-up samples per size (default: per operation family)\n"
            "  -f          also report min/max/avg over PEs of each PE's median\n"
            "  --json      JSON lines on stdout (bench/FORMAT.md) instead of the table\n"
            "  -o OPS      comma-separated operations; default all:\n   ");
    for (size_t i = 0; i < NOPS; i++) fprintf(f, " %s", ops[i].name);
    fprintf(f, "\n");
}

/* parse_size reads a byte or element count with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-') return -1;
    switch (*end) {
    case 'k': case 'K': v *= KIB; end++; break;
    case 'm': case 'M': v *= MIB; end++; break;
    case 'g': case 'G': v *= KIB * MIB; end++; break;
    }
    if (*end != '\0') return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_range(const char *arg, struct options *opt)
{
    char tmp[128];
    if (strlen(arg) >= sizeof tmp) return -1;
    strcpy(tmp, arg);
    char *colon = strchr(tmp, ':');
    opt->min = 0;
    opt->max = SIZE_MAX;
    if (colon == NULL) return parse_size(tmp, &opt->max);
    *colon = '\0';
    if (tmp[0] != '\0' && parse_size(tmp, &opt->min) != 0) return -1;
    if (colon[1] != '\0' && parse_size(colon + 1, &opt->max) != 0) return -1;
    if (opt->min > opt->max) return -1;
    return 0;
}

/* parse_count reads a count in [least, 1e8]. */
static int parse_count(const char *s, int least, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < least || v > 100000000) return -1;
    *out = (int)v;
    return 0;
}

static int parse_ops(const char *arg, struct options *opt)
{
    char *list = strdup(arg), *save = NULL;
    int n = 0;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < NOPS; i++)
            if (strcmp(name, ops[i].name) == 0) break;
        if (i == NOPS) {
            if (me == 0) fprintf(stderr, "osu_peer: -o: unknown operation %s\n", name);
            free(list);
            return -1;
        }
        opt->selected[i] = 1;
        n++;
    }
    free(list);
    if (n == 0 && me == 0) fprintf(stderr, "osu_peer: -o: empty operation list\n");
    return n == 0 ? -1 : 0;
}

/* parse_options returns 0 to run, 1 for -h, -1 on a bad flag (all PEs see the same argv). */
static int parse_options(int argc, char **argv, struct options *opt)
{
    static const struct option longs[] = {
        {"json", no_argument, NULL, 'J'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c, any_op = 0;
    memset(opt, 0, sizeof *opt);
    opt->iters = opt->warmup = -1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:i:x:fo:h", longs, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (parse_range(optarg, opt) != 0) {
                if (me == 0) fprintf(stderr, "osu_peer: -m: bad size range \"%s\"\n", optarg);
                return -1;
            }
            opt->have_range = 1;
            break;
        case 'i':
            if (parse_count(optarg, 1, &opt->iters) != 0) {
                if (me == 0) fprintf(stderr, "osu_peer: -i: bad iteration count \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'x':
            if (parse_count(optarg, 0, &opt->warmup) != 0) {
                if (me == 0) fprintf(stderr, "osu_peer: -x: bad warm-up count \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'f': opt->full = 1; break;
        case 'J': opt->json = 1; break;
        case 'o':
            if (parse_ops(optarg, opt) != 0) return -1;
            any_op = 1;
            break;
        case 'h': return 1;
        case ':':
            if (me == 0) fprintf(stderr, "osu_peer: -%c needs an argument\n", optopt);
            return -1;
        default:
            if (me == 0) fprintf(stderr, "osu_peer: unknown flag %s\n", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        if (me == 0) fprintf(stderr, "osu_peer: unexpected argument %s\n", argv[optind]);
        return -1;
    }
    if (!any_op)
        for (size_t i = 0; i < NOPS; i++) opt->selected[i] = 1;
    return 0;
}

/* ---- sizes ---- */

/* op_sizes fills out[] with the sizes of an operation under the options; returns the count. */
static int op_sizes(const struct op *o, const struct options *opt, size_t *out, int cap)
{
    size_t lo = o->min, hi = o->max;
    if (!o->fixed && opt->have_range) {
        if (opt->min > 0) lo = opt->min;
        if (opt->max != SIZE_MAX) hi = opt->max < o->max ? opt->max : o->max;
    }
    int n = 0;
    if (o->fixed) {
        out[n++] = o->min;
        return n;
    }
    if (lo == 0) lo = 1;
    for (size_t s = lo; s <= hi && n < cap; s *= 2) out[n++] = s;
    return n;
}

/* ---- measurement ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median of n samples, sorting them; the mean of the two middle ones when n is even */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int is_active(const struct op *o, int pe)
{
    switch (o->active) {
    case ACTIVE_PE0: return pe == 0;
    case ACTIVE_PAIR: return pe <= 1;
    case ACTIVE_ALL: return 1;
    }
    return 0;
}

struct result {
    double us, us_min, us_max, us_avg;
    int iters, batch;
};

static void measure(const struct op *o, size_t size, int iters, int warmup, struct result *r)
{
    int batch = op_batch(o, size);
    double *samples = malloc(sizeof(double) * (size_t)iters);
    if (samples == NULL) {
        fprintf(stderr, "osu_peer: measure: out of memory for %d samples\n", iters);
        shmem_global_exit(1);
    }
    for (int s = 0; s < warmup + iters; s++) {
        shmem_barrier_all();
        self_timed_us = 0;
        double t0 = now_us();
        o->run(size, batch);
        double t1 = now_us();
        if (o->family == FAM_PROGRESS) t1 = t0 + self_timed_us; /* the put's time, not the wait */
        if (s >= warmup) samples[s - warmup] = (t1 - t0) / batch;
    }
    double med = median(samples, iters);
    free(samples);

    shmem_double_p(&medians[me], med, 0);
    shmem_barrier_all(); /* completes the puts */
    if (me == 0) {
        r->us_min = r->us_max = med;
        double sum = 0;
        int n = 0;
        for (int pe = 0; pe < npes; pe++) {
            if (!is_active(o, pe)) continue;
            double m = medians[pe];
            if (m < r->us_min) r->us_min = m;
            if (m > r->us_max) r->us_max = m;
            sum += m;
            n++;
        }
        r->us_avg = sum / n;
        r->us = r->us_avg; /* OSU's average latency: the mean of the active PEs' medians */
        r->iters = iters;
        r->batch = batch;
    }
    shmem_barrier_all(); /* PE 0 has read medians[] before the next measurement writes it */
}

/* ---- output ---- */

static void print_header(const struct op *o, const struct options *opt)
{
    printf("# %s: %s, %d PEs\n", o->name, o->title, npes);
    if (o->na) return;
    printf("# %-12s %16s", o->unit[0] == 'B' ? "Size" : "Elements", "Latency (us)");
    if (o->metric == METRIC_MBPS) printf(" %18s", "Bandwidth (MB/s)");
    if (o->metric == METRIC_MOPS) printf(" %18s", "Rate (Mops/s)");
    if (opt->full) printf(" %12s %12s %12s %12s", "Min (us)", "Max (us)", "Avg (us)", "Iterations");
    printf("\n");
}

static double rate_of(const struct op *o, size_t size, double us)
{
    if (o->metric == METRIC_MBPS) return (double)size * o->nmsg / us; /* bytes/us = MB/s */
    return o->nmsg / us;                                              /* msgs/us = Mops/s */
}

static void print_row(const struct op *o, size_t size, const struct result *r,
                      const struct options *opt)
{
    if (opt->json) {
        printf("{\"impl\":\"" IMPL "\",\"op\":\"%s\",\"size\":%zu,\"unit\":\"%s\",\"npes\":%d",
               o->name, size, o->unit, npes);
        if (o->na) {
            printf(",\"na\":\"%s\"}\n", o->na);
        } else {
            printf(",\"iters\":%d,\"batch\":%d,\"us\":%.6g", r->iters, r->batch, r->us);
            if (opt->full)
                printf(",\"us_min\":%.6g,\"us_max\":%.6g,\"us_avg\":%.6g", r->us_min, r->us_max,
                       r->us_avg);
            if (o->metric == METRIC_MBPS) printf(",\"mbps\":%.6g", rate_of(o, size, r->us));
            if (o->metric == METRIC_MOPS) printf(",\"mops\":%.6g", rate_of(o, size, r->us));
            printf("}\n");
        }
    } else if (o->na) {
        printf("  %-12zu %16s\n", size, "n/a");
    } else {
        printf("  %-12zu %16.3f", size, r->us);
        if (o->metric != METRIC_NONE) printf(" %18.2f", rate_of(o, size, r->us));
        if (opt->full)
            printf(" %12.3f %12.3f %12.3f %12d", r->us_min, r->us_max, r->us_avg, r->iters);
        printf("\n");
    }
    fflush(stdout);
}

/* progress rewrites one stderr line per size on a terminal; elsewhere it writes a line per operation. */
static void progress(const struct op *o, size_t size, int first, int done, int total)
{
    if (me != 0) return;
    if (isatty(2))
        fprintf(stderr, "\r[" IMPL "] %3d/%d %-20s %10zu %s\033[K", done + 1, total, o->name, size,
                o->unit);
    else if (first)
        fprintf(stderr, "[" IMPL "] %d/%d %s\n", done + 1, total, o->name);
}

/* ---- setup ---- */

static void *sym_alloc(size_t bytes, const char *what)
{
    void *p = shmem_malloc(bytes ? bytes : 8);
    if (p == NULL) {
        if (me == 0)
            fprintf(stderr,
                    "osu_peer: shmem_malloc(%zu) for %s failed; raise SHMEM_SYMMETRIC_SIZE\n",
                    bytes, what);
        shmem_global_exit(1);
    }
    memset(p, 0, bytes ? bytes : 8);
    return p;
}

#define MAX_SIZES 64

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    struct options opt;
    int pr = parse_options(argc, argv, &opt);
    if (pr != 0) {
        if (me == 0) usage(pr > 0 ? stdout : stderr);
        shmem_finalize();
        return pr > 0 ? 0 : 2;
    }
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "osu_peer: needs at least 2 PEs, have %d\n", npes);
        shmem_finalize();
        return 2;
    }

    /* Size the symmetric buffers for the largest selected case, and count the rows. */
    size_t need = 8 * WINDOW, wrk_elems = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    int total = 0;
    for (size_t i = 0; i < NOPS; i++) {
        if (!opt.selected[i]) continue;
        size_t sizes[MAX_SIZES];
        int n = op_sizes(&ops[i], &opt, sizes, MAX_SIZES);
        total += n;
        for (int k = 0; k < n; k++) {
            size_t b = op_buffer_bytes(&ops[i], sizes[k]);
            if (b > need) need = b;
            if (ops[i].family == FAM_COLL && strncmp(ops[i].name, "reduce_", 7) == 0 &&
                sizes[k] / 2 + 1 > wrk_elems)
                wrk_elems = sizes[k] / 2 + 1;
        }
    }
    buf_bytes = need;
    buf_a = sym_alloc(buf_bytes, "the source buffer");
    buf_b = sym_alloc(buf_bytes, "the destination buffer");
    for (size_t i = 0; i < buf_bytes; i++) buf_a[i] = (char)(i * 7 + me);
    for (int k = 0; k < 2; k++) {
        pwrk[k] = sym_alloc(wrk_elems * 8, "pWrk");
        size_t nsync = SHMEM_REDUCE_SYNC_SIZE;
        if (SHMEM_BCAST_SYNC_SIZE > nsync) nsync = SHMEM_BCAST_SYNC_SIZE;
        if (SHMEM_COLLECT_SYNC_SIZE > nsync) nsync = SHMEM_COLLECT_SYNC_SIZE;
        if (SHMEM_ALLTOALL_SYNC_SIZE > nsync) nsync = SHMEM_ALLTOALL_SYNC_SIZE;
        if (SHMEM_ALLTOALLS_SYNC_SIZE > nsync) nsync = SHMEM_ALLTOALLS_SYNC_SIZE;
        psync[k] = sym_alloc(nsync * sizeof(long), "pSync");
        for (size_t j = 0; j < nsync; j++) psync[k][j] = SHMEM_SYNC_VALUE;
    }
    amo_target = sym_alloc(sizeof(long), "the atomics' target");
    ping = sym_alloc(sizeof(long), "the ping flag");
    pong = sym_alloc(sizeof(long), "the pong flag");
    medians = sym_alloc(sizeof(double) * (size_t)npes, "the medians");
    shmem_barrier_all();

    if (me == 0 && !opt.json)
        printf("# goshmem benchmark peer: Open MPI OSHMEM %d.%d (OpenSHMEM %d.%d), %d PEs\n",
               OSHMEM_MAJOR_VERSION, OSHMEM_MINOR_VERSION, SHMEM_MAJOR_VERSION,
               SHMEM_MINOR_VERSION, npes);

    int done = 0;
    for (size_t i = 0; i < NOPS; i++) {
        const struct op *o = &ops[i];
        if (!opt.selected[i]) continue;
        size_t sizes[MAX_SIZES];
        int n = op_sizes(o, &opt, sizes, MAX_SIZES);
        if (me == 0 && !opt.json) print_header(o, &opt);
        for (int k = 0; k < n; k++, done++) {
            struct result r = {0};
            if (o->na == NULL) {
                int iters, warmup;
                op_default_iters(o, sizes[k], &iters, &warmup);
                if (opt.iters >= 0) iters = opt.iters;
                if (opt.warmup >= 0) warmup = opt.warmup;
                progress(o, sizes[k], k == 0, done, total);
                measure(o, sizes[k], iters, warmup, &r);
            }
            if (me == 0) print_row(o, sizes[k], &r, &opt);
        }
        if (me == 0 && !opt.json) printf("\n");
    }
    if (me == 0 && isatty(2)) fprintf(stderr, "\r\033[K");

    shmem_barrier_all();
    shmem_free(medians);
    shmem_free(pong);
    shmem_free(ping);
    shmem_free(amo_target);
    for (int k = 0; k < 2; k++) {
        shmem_free(psync[k]);
        shmem_free(pwrk[k]);
    }
    shmem_free(buf_b);
    shmem_free(buf_a);
    shmem_finalize();
    return 0;
}
