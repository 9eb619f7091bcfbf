/* oneclock: where a collective's time goes between its PEs, read on one clock.
 *
 * bench/osu times each PE's call on its own; a broadcast member's time then mixes the
 * root's sending, the network, the member's noticing, and how far apart the two left the
 * barrier before the call. Here every PE records, for each round, when it entered the
 * call (right after a shmem_barrier_all) and when it left it, on CLOCK_MONOTONIC, and PE 0
 * prints medians of each PE's call and of its entry and exit against PE 0's entry (PE 0
 * is the root). That takes one clock for all PEs: one machine, or fake nodes on one (the
 * network namespaces of scripts/fakenodes share the host's clock); across real nodes only
 * the `call` column means anything.
 *
 * Build with any OpenSHMEM's compiler wrapper (shmemcc, oshcc), so that one program
 * measures both: oneclock OP [ROUNDS], OP one of barrier, broadcast, reduce, fcollect
 * (one 8-byte element; reduce is a long sum over the world team's active set).
 * Output, one line per PE:
 *   oneclock OP pe=P rounds=R call_us=C entry_us=E exit_us=X
 * C: the median of PE P's call; E, X: the medians of its entry and exit minus PE 0's
 * entry in the same round (PE 0's entry_us is 0). The first tenth of the rounds is
 * warm-up. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROUNDS 1000000

static long pSync[2][SHMEM_REDUCE_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE : SHMEM_BCAST_SYNC_SIZE];
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long src[1];
static long dst[1];

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void die(const char *msg)
{
    fprintf(stderr, "oneclock: %s\n", msg);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3)
        die("usage: oneclock barrier|broadcast|reduce|fcollect [ROUNDS]");
    const char *op = argv[1];
    int kind = !strcmp(op, "barrier") ? 0 : !strcmp(op, "broadcast") ? 1 : !strcmp(op, "reduce") ? 2 : !strcmp(op, "fcollect") ? 3 : -1;
    if (kind < 0)
        die("OP: want barrier, broadcast, reduce or fcollect");
    long rounds = 4000;
    if (argc == 3) {
        char *end;
        rounds = strtol(argv[2], &end, 10);
        if (*end != '\0' || rounds < 10 || rounds > MAX_ROUNDS)
            die("ROUNDS: want a count in [10, 1000000]");
    }

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *fdst = shmem_malloc(npes * sizeof(long)); /* fcollect's result */
    double *enter = shmem_malloc(rounds * sizeof(double));
    double *leave = shmem_malloc(rounds * sizeof(double));
    if (fdst == NULL || enter == NULL || leave == NULL)
        die("shmem_malloc failed");
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof pSync[k] / sizeof pSync[k][0]; i++)
            pSync[k][i] = SHMEM_SYNC_VALUE;
    src[0] = me + 1;
    shmem_barrier_all();

    for (long i = 0; i < rounds; i++) {
        long *ps = pSync[i & 1]; /* the barrier in between makes either reusable; alternate anyway */
        shmem_barrier_all();
        enter[i] = now_us();
        switch (kind) {
        case 0:
            shmem_barrier_all();
            break;
        case 1:
            shmem_broadcast64(dst, src, 1, 0, 0, 0, npes, ps);
            break;
        case 2:
            shmem_long_sum_to_all(dst, src, 1, 0, 0, npes, pWrk, ps);
            break;
        case 3:
            shmem_fcollect64(fdst, src, 1, 0, 0, npes, ps);
            break;
        }
        leave[i] = now_us();
    }
    shmem_barrier_all();

    if (me == 0) {
        long warm = rounds / 10, n = rounds - warm;
        double *root = malloc(rounds * sizeof *root), *e = malloc(rounds * sizeof *e), *x = malloc(rounds * sizeof *x);
        double *c = malloc(n * sizeof *c), *de = malloc(n * sizeof *de), *dx = malloc(n * sizeof *dx);
        if (root == NULL || e == NULL || x == NULL || c == NULL || de == NULL || dx == NULL)
            die("out of memory");
        memcpy(root, enter, rounds * sizeof *root);
        for (int pe = 0; pe < npes; pe++) {
            shmem_getmem(e, enter, rounds * sizeof *e, pe);
            shmem_getmem(x, leave, rounds * sizeof *x, pe);
            for (long i = 0; i < n; i++) {
                c[i] = x[warm + i] - e[warm + i];
                de[i] = e[warm + i] - root[warm + i];
                dx[i] = x[warm + i] - root[warm + i];
            }
            printf("oneclock %s pe=%d rounds=%ld call_us=%.3f entry_us=%.3f exit_us=%.3f\n", op, pe, n,
                   median(c, n), median(de, n), median(dx, n));
        }
        free(root), free(e), free(x), free(c), free(de), free(dx);
    }
    shmem_barrier_all(); /* PE 0 has read the others' records */
    shmem_free(leave);
    shmem_free(enter);
    shmem_free(fdst);
    shmem_finalize();
    return 0;
}
