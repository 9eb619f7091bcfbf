/* A tour of the C API at any number of PEs: every family through at least one typed form and
 * its generic selection, on heap and static symmetric data. Each check prints what went wrong;
 * the exit status is 1 if any failed. */
#include <complex.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
static int me, npes;

#define CHECK(cond, ...)                                           \
	do {                                                       \
		if (!(cond)) {                                     \
			printf("[%d] %s:%d: ", me, __FILE__, __LINE__); \
			printf(__VA_ARGS__);                       \
			printf("\n");                              \
			errors++;                                  \
		}                                                  \
	} while (0)

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSyncA[SHMEM_SYNC_SIZE], pSyncB[SHMEM_SYNC_SIZE]; /* SHMEM_SYNC_SIZE: any collective */
static long s_long[8];
static long double s_ld[4];
static char s_chars[16];
static short s_flag;
static long s_counter;
static uint64_t s_sig;
static long pWrkL[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static long double pWrkLD[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static int pWrkI[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static int local_only; /* symmetric too (static), used as the non-heap address check */
static long s_init[4] = {11, 22, 33, 44}; /* initialized data (.data), not .bss */

static int right(void) { return (me + 1) % npes; }
static int left(void) { return (me + npes - 1) % npes; }

static void setup(void)
{
	int major, minor;
	char name[SHMEM_MAX_NAME_LEN];
	shmem_info_get_version(&major, &minor);
	CHECK(major == 1 && minor == 6 && SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6, "version %d.%d", major, minor);
	shmem_info_get_name(name);
	CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name %s", name);
	CHECK(shmem_pe_accessible(npes - 1) && !shmem_pe_accessible(npes), "pe_accessible");
	int stack = 0;
	CHECK(shmem_addr_accessible(s_long, right()), "static data not accessible");
	CHECK(!shmem_addr_accessible(&stack, right()), "the stack is accessible");
	CHECK(shmem_ptr(&stack, right()) == NULL, "shmem_ptr of the stack");
	CHECK(shmem_ptr(&local_only, me) == &local_only, "shmem_ptr of my own static");
	CHECK(s_init[0] == 11 && s_init[3] == 44, "initialized static data changed at shmem_init");
	CHECK(shmem_long_g(&s_init[2], right()) == 33, "g of initialized static data");
	shmem_barrier_all();
	if (me == 0)
		s_init[1] = -22;
	shmem_barrier_all();
	CHECK(shmem_long_g(&s_init[1], 0) == -22, "g of static data PE 0 stored to");
	int provided = -1;
	shmem_query_thread(&provided);
	CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);
}

static void memory(void)
{
	long *a = shmem_malloc(10 * sizeof(long));
	int *z = shmem_calloc(1000, sizeof(int));
	void *al = shmem_align(4096, 100);
	CHECK(a && z && al, "allocation failed");
	CHECK(((uintptr_t)al & 4095) == 0, "shmem_align: %p", al);
	int nonzero = 0;
	for (int i = 0; i < 1000; i++)
		nonzero += z[i] != 0;
	CHECK(nonzero == 0, "shmem_calloc: %d non-zero ints", nonzero);
	for (int i = 0; i < 10; i++)
		a[i] = me * 100 + i;
	a = shmem_realloc(a, 100000 * sizeof(long));
	CHECK(a != NULL, "shmem_realloc failed");
	for (int i = 0; i < 10; i++)
		CHECK(a[i] == me * 100 + i, "realloc lost a[%d] = %ld", i, a[i]);
	CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0)");
	shmem_free(al);
	shmem_free(z);
	shmem_free(a);
}

static void rma(void)
{
	long *h = shmem_malloc(8 * sizeof(long));
	double *d = shmem_malloc(4 * sizeof(double));
	long double *ld = shmem_malloc(4 * sizeof(long double));
	uint32_t *w32 = shmem_malloc(16 * sizeof(uint32_t));
	uint64_t *w64 = shmem_malloc(16 * sizeof(uint64_t));
	char *bytes = shmem_malloc(64);
	long src[8];
	for (int i = 0; i < 8; i++)
		src[i] = me * 1000 + i;
	double dsrc[4] = {me + 0.5, me + 1.5, me + 2.5, me + 3.5};
	long double ldsrc[4] = {me / 3.0L, 1.0L / 7, -me, 1e300L * 1e300L};
	shmem_barrier_all();

	shmem_put(h, src, 8, right());              /* generic: shmem_long_put */
	shmem_double_put_nbi(d, dsrc, 4, right());  /* typed */
	shmem_put(ld, ldsrc, 4, right());           /* long double */
	shmem_put(s_long, src, 8, right());         /* static target */
	shmem_put(s_ld, ldsrc, 4, right());
	shmem_char_put(s_chars, "abcdefghijklmno", 16, right());
	shmem_quiet();
	shmem_barrier_all();
	for (int i = 0; i < 8; i++) {
		CHECK(h[i] == left() * 1000 + i, "put: h[%d] = %ld", i, h[i]);
		CHECK(s_long[i] == left() * 1000 + i, "put to static: s_long[%d] = %ld", i, s_long[i]);
	}
	for (int i = 0; i < 4; i++) {
		CHECK(d[i] == left() + i + 0.5, "put_nbi: d[%d] = %g", i, d[i]);
		long double want[4] = {left() / 3.0L, 1.0L / 7, -left(), 1e300L * 1e300L};
		CHECK(ld[i] == want[i] && s_ld[i] == want[i], "long double put [%d]: %Lg %Lg", i, ld[i], s_ld[i]);
	}
	CHECK(strcmp(s_chars, "abcdefghijklmno") == 0, "char put: %s", s_chars);

	/* get, g and p, from the left neighbour's heap and static data */
	long got[8];
	shmem_get(got, s_long, 8, left());
	for (int i = 0; i < 8; i++)
		CHECK(got[i] == (left() + npes - 1) % npes * 1000 + i, "get static: got[%d] = %ld", i, got[i]);
	const long *ch = h;
	CHECK(shmem_g(ch, left()) == (left() + npes - 1) % npes * 1000, "g of a const pointer");
	CHECK(shmem_longdouble_g(&ld[2], me) == -left(), "long double g");
	shmem_barrier_all();
	shmem_p(&h[0], (long)me, right());
	shmem_double_p(&d[0], -1.0 * me, right());
	shmem_barrier_all();
	CHECK(h[0] == left() && d[0] == -1.0 * left(), "p: %ld %g", h[0], d[0]);

	/* strided: every other element of src into every third of the peer's w32 */
	uint32_t s32[16];
	for (int i = 0; i < 16; i++)
		s32[i] = 100 * me + i;
	memset(w32, 0, 16 * sizeof *w32);
	shmem_barrier_all();
	shmem_uint32_iput(w32, s32, 3, 2, 5, right());
	shmem_barrier_all();
	for (int i = 0; i < 5; i++)
		CHECK(w32[3 * i] == 100u * left() + 2 * i, "iput: w32[%d] = %u", 3 * i, w32[3 * i]);
	CHECK(w32[1] == 0, "iput wrote between strides");
	uint64_t g64[4] = {0};
	for (int i = 0; i < 16; i++)
		w64[i] = 10 * me + i;
	shmem_barrier_all();
	shmem_iget64(g64, w64, 1, 4, 4, left());
	for (int i = 0; i < 4; i++)
		CHECK(g64[i] == 10u * left() + 4 * i, "iget64: g64[%d] = %lu", i, (unsigned long)g64[i]);

	/* sized and byte forms */
	shmem_barrier_all();
	shmem_put32(w32, s32, 16, right());
	shmem_putmem(bytes, "0123456789", 11, right());
	shmem_put128(w64, src, 4, right());
	shmem_barrier_all();
	CHECK(w32[15] == 100u * left() + 15, "put32");
	CHECK(strcmp(bytes, "0123456789") == 0, "putmem: %s", bytes);
	CHECK(w64[7] == (uint64_t)(left() * 1000 + 7), "put128");
	char back[11];
	shmem_getmem(back, bytes, 11, right());
	CHECK(strcmp(back, "0123456789") == 0, "getmem");

	/* shmem_ptr: a direct store into the right neighbour's heap, when it shares my node's
	 * memory (else NULL: a put) */
	shmem_barrier_all();
	long *peer = shmem_ptr(h, right());
	int near = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right(), SHMEM_TEAM_SHARED) >= 0;
	CHECK((peer != NULL) == near, "shmem_ptr of the heap: %p, the PE shares my node: %d", (void *)peer, near);
	if (peer)
		peer[7] = -me;
	else
		shmem_long_p(&h[7], -me, right());
	shmem_barrier_all();
	CHECK(h[7] == -left(), "store through shmem_ptr: %ld", h[7]);

	shmem_barrier_all();
	shmem_free(bytes);
	shmem_free(w64);
	shmem_free(w32);
	shmem_free(ld);
	shmem_free(d);
	shmem_free(h);
}

static void signals(void)
{
	long *data = shmem_calloc(4, sizeof(long));
	long src[4] = {me, me, me, me};
	s_sig = 0;
	shmem_barrier_all();
	/* every PE adds 1 to PE 0's static signal after putting its data */
	shmem_long_put_signal(data, src, 1, &s_sig, 1, SHMEM_SIGNAL_ADD, 0);
	if (me == 0) {
		uint64_t v = shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, npes);
		CHECK(v == (uint64_t)npes && shmem_signal_fetch(&s_sig) == (uint64_t)npes, "signal %lu", (unsigned long)v);
	}
	shmem_barrier_all();
	shmem_putmem_signal(data, src, sizeof src, &s_sig, 1000, SHMEM_SIGNAL_SET, right());
	shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, 1000); /* not npes: PE 0's value so far */
	CHECK(data[3] == left(), "data before signal: %ld", data[3]);
	shmem_barrier_all();
	shmem_free(data);
}

static void atomics(void)
{
	long *ctr = shmem_calloc(4, sizeof(long));
	uint64_t *bits = shmem_calloc(1, sizeof(uint64_t));
	int *ints = shmem_calloc(4, sizeof(int));
	double *dv = shmem_calloc(1, sizeof(double));
	s_counter = 0;
	shmem_barrier_all();
	long old = shmem_atomic_fetch_add(&ctr[0], 10, 0);
	CHECK(old % 10 == 0 && old < 10L * npes, "fetch_add returned %ld", old);
	shmem_long_atomic_inc(&ctr[1], 0);
	shmem_atomic_add(&s_counter, 2, 0); /* static target */
	shmem_int_atomic_fetch_inc(&ints[0], 0);
	shmem_uint64_atomic_fetch_or(bits, (uint64_t)1 << me, 0);
	shmem_long_finc(&ctr[2], 0); /* deprecated spelling */
	shmem_barrier_all();
	if (me == 0) {
		CHECK(ctr[0] == 10L * npes && ctr[1] == npes && ctr[2] == npes, "counters %ld %ld %ld", ctr[0], ctr[1], ctr[2]);
		CHECK(s_counter == 2L * npes, "static counter %ld", s_counter);
		CHECK(ints[0] == npes, "int counter %d", ints[0]);
		uint64_t want = npes == 64 ? ~0ull : (1ull << npes) - 1;
		CHECK(*bits == want, "or bits %#lx", (unsigned long)*bits);
	}
	shmem_barrier_all();
	/* every PE xors its bit back out */
	shmem_uint64_atomic_xor(bits, (uint64_t)1 << me, 0);
	shmem_barrier_all();
	CHECK(shmem_uint64_atomic_fetch(bits, 0) == 0, "xor");
	/* compare_swap: exactly one PE wins */
	long won = shmem_atomic_compare_swap(&ctr[3], 0, me + 1, 0) == 0;
	shmem_barrier_all();
	long winners = shmem_long_atomic_fetch_add(&ctr[0], won, 0);
	(void)winners;
	shmem_barrier_all();
	CHECK(shmem_atomic_fetch(&ctr[0], 0) == 10L * npes + 1, "one compare_swap wins: %ld", ctr[0]);
	/* swap, set and fetch on a double, and an nbi fetch */
	if (me == 0)
		shmem_atomic_set(dv, 2.5, 0);
	shmem_barrier_all();
	double seen = shmem_atomic_fetch(dv, 0);
	CHECK(seen == 2.5, "double fetch %g", seen);
	shmem_barrier_all();
	double prev = shmem_double_atomic_swap(dv, (double)me, 0);
	CHECK(prev == 2.5 || (prev >= 0 && prev < npes), "double swap returned %g", prev);
	int f = -1;
	shmem_int_atomic_fetch_nbi(&f, &ints[0], 0);
	shmem_quiet();
	CHECK(f == npes, "fetch_nbi %d", f);
	shmem_barrier_all();
	shmem_free(dv);
	shmem_free(ints);
	shmem_free(bits);
	shmem_free(ctr);
}

static void synchronization(void)
{
	int *flags = shmem_calloc(npes, sizeof(int));
	long *lflags = shmem_calloc(npes, sizeof(long));
	size_t idx[64];
	int status[64] = {0};
	s_flag = 0;
	shmem_barrier_all();
	/* every PE raises its flag everywhere */
	for (int pe = 0; pe < npes; pe++) {
		shmem_atomic_set(&flags[me], 1, pe);
		shmem_long_atomic_set(&lflags[me], (long)me + 1, pe);
	}
	shmem_int_wait_until_all(flags, npes, NULL, SHMEM_CMP_EQ, 1);
	CHECK(shmem_test_all(flags, npes, NULL, SHMEM_CMP_EQ, 1), "test_all");
	size_t n = shmem_test_some(lflags, npes, idx, status, SHMEM_CMP_GT, 0);
	n = n ? n : shmem_long_wait_until_some(lflags, npes, idx, status, SHMEM_CMP_GT, 0);
	CHECK(n >= 1 && n <= (size_t)npes, "some: %zu", n);
	shmem_long_wait_until_all(lflags, npes, NULL, SHMEM_CMP_GT, 0);
	CHECK(shmem_long_test_some(lflags, npes, idx, NULL, SHMEM_CMP_GT, 0) == (size_t)npes, "test_some all");
	/* vector forms: element i against i + 1 */
	long want[64];
	for (int i = 0; i < npes; i++)
		want[i] = i + 1;
	shmem_long_wait_until_all_vector(lflags, npes, NULL, SHMEM_CMP_EQ, want);
	CHECK(shmem_long_test_any_vector(lflags, npes, NULL, SHMEM_CMP_NE, want) == SIZE_MAX, "test_any_vector");
	/* masked out entirely: empty test sets */
	for (int i = 0; i < npes; i++)
		status[i] = 1;
	CHECK(shmem_int_wait_until_any(flags, npes, status, SHMEM_CMP_EQ, 1) == SIZE_MAX, "empty wait_until_any");
	CHECK(shmem_int_test_some(flags, npes, idx, status, SHMEM_CMP_EQ, 1) == 0, "empty test_some");
	/* a 16-bit static flag, raised by the left neighbour */
	shmem_barrier_all();
	shmem_p(&s_flag, (short)-3, right());
	shmem_wait_until(&s_flag, SHMEM_CMP_EQ, -3);
	CHECK(shmem_short_test(&s_flag, SHMEM_CMP_LT, 0), "short test");
	shmem_barrier_all();
	shmem_free(lflags);
	shmem_free(flags);
}

static void collectives(void)
{
	int64_t *b = shmem_calloc(8, sizeof(int64_t));
	int32_t *c = shmem_calloc(8 * npes, sizeof(int32_t));
	int64_t *fc = shmem_calloc(2 * npes, sizeof(int64_t));
	int32_t *a2a = shmem_calloc(npes, sizeof(int32_t));
	int32_t *a2a_src = shmem_calloc(npes, sizeof(int32_t));
	for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
		pSyncA[i] = pSyncB[i] = SHMEM_SYNC_VALUE;
	for (int i = 0; i < 8; i++)
		b[i] = me == 0 ? 42 + i : -1;
	shmem_barrier_all();
	shmem_broadcast64(b, b, 8, 0, 0, 0, npes, pSyncA);
	for (int i = 0; i < 8; i++)
		CHECK(b[i] == 42 + i, "broadcast64: b[%d] = %ld", i, (long)b[i]);
	/* collect32: PE i contributes i + 1 elements */
	int32_t mine[8];
	for (int i = 0; i <= me && i < 8; i++)
		mine[i] = me;
	int32_t *msrc = shmem_malloc(8 * sizeof(int32_t));
	memcpy(msrc, mine, sizeof mine);
	shmem_barrier_all();
	shmem_collect32(c, msrc, me < 8 ? me + 1 : 8, 0, 0, npes, pSyncB);
	int k = 0;
	for (int pe = 0; pe < npes; pe++)
		for (int i = 0; i <= pe && i < 8; i++, k++)
			CHECK(c[k] == pe, "collect32: c[%d] = %d", k, c[k]);
	int64_t two[2] = {me, -me};
	int64_t *fsrc = shmem_malloc(sizeof two);
	memcpy(fsrc, two, sizeof two);
	shmem_barrier_all();
	shmem_fcollect64(fc, fsrc, 2, 0, 0, npes, pSyncA);
	for (int pe = 0; pe < npes; pe++)
		CHECK(fc[2 * pe] == pe && fc[2 * pe + 1] == -pe, "fcollect64 at %d", pe);
	for (int pe = 0; pe < npes; pe++)
		a2a_src[pe] = me * 100 + pe;
	shmem_barrier_all();
	shmem_alltoall32(a2a, a2a_src, 1, 0, 0, npes, pSyncB);
	for (int pe = 0; pe < npes; pe++)
		CHECK(a2a[pe] == pe * 100 + me, "alltoall32: [%d] = %d", pe, a2a[pe]);

	/* active-set barrier and reductions over the even PEs, on static pSync and pWrk; the
	 * three calls alternate two pSync arrays, as back-to-back collectives must */
	if (me % 2 == 0) {
		int size = (npes + 1) / 2;
		shmem_barrier(0, 1, size, pSyncA);
		static long v, r;
		v = me + 1;
		shmem_long_max_to_all(&r, &v, 1, 0, 1, size, pWrkL, pSync);
		CHECK(r == (size - 1) * 2 + 1, "max_to_all over evens: %ld", r);
		static long double lv, lr;
		lv = 0.5L + me;
		shmem_longdouble_sum_to_all(&lr, &lv, 1, 0, 1, size, pWrkLD, pSyncA);
		long double lwant = 0;
		for (int pe = 0; pe < npes; pe += 2)
			lwant += 0.5L + pe;
		CHECK(lr == lwant, "longdouble sum_to_all: %Lg, want %Lg", lr, lwant);
	}
	static int xi[3];
	for (int i = 0; i < 3; i++)
		xi[i] = me + i;
	shmem_barrier_all();
	shmem_int_xor_to_all(xi, xi, 3, 0, 0, npes, pWrkI, pSync); /* in place */
	for (int i = 0; i < 3; i++) {
		int w = 0;
		for (int pe = 0; pe < npes; pe++)
			w ^= pe + i;
		CHECK(xi[i] == w, "xor_to_all in place [%d] = %d, want %d", i, xi[i], w);
	}
	shmem_barrier_all();
	shmem_free(fsrc);
	shmem_free(msrc);
	shmem_free(a2a_src);
	shmem_free(a2a);
	shmem_free(fc);
	shmem_free(c);
	shmem_free(b);
}

static void teams(void)
{
	/* Under shmemrun every PE shares memory; under a PMIx launcher the shared team is the node's. */
	int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
	CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && (getenv("PMIX_NAMESPACE") ? shared >= 1 && shared <= npes : shared == npes), "world and shared");
	CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED), SHMEM_TEAM_WORLD) == me, "me in the shared team");
	CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "invalid team's my_pe");
	shmem_team_t evens;
	shmem_team_config_t cfg = {.num_contexts = 2};
	int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &evens);
	CHECK(rc == 0, "split_strided: %d", rc);
	CHECK((evens == SHMEM_TEAM_INVALID) == (me % 2 != 0), "split membership");
	double *dd = shmem_malloc(4 * sizeof(double));
	long double *ldd = shmem_malloc(2 * sizeof(long double));
	double complex *zz = shmem_malloc(2 * sizeof(double complex));
	int *ii = shmem_malloc(4 * npes * sizeof(int));
	int *jj = shmem_malloc(4 * npes * sizeof(int));
	if (evens != SHMEM_TEAM_INVALID) {
		int tme = shmem_team_my_pe(evens), tn = shmem_team_n_pes(evens);
		CHECK(tme == me / 2 && tn == (npes + 1) / 2, "team pe %d of %d", tme, tn);
		CHECK(shmem_team_translate_pe(evens, tme, SHMEM_TEAM_WORLD) == me, "translate");
		shmem_team_config_t got = {0};
		CHECK(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 2, "config %d", got.num_contexts);
		for (int i = 0; i < 4; i++)
			dd[i] = tme * 10.0 + i;
		shmem_max_reduce(evens, dd, dd, 4); /* generic, in place */
		for (int i = 0; i < 4; i++)
			CHECK(dd[i] == (tn - 1) * 10.0 + i, "team max_reduce [%d] = %g", i, dd[i]);
		ldd[0] = 2.0L;
		ldd[1] = tme + 1;
		shmem_longdouble_prod_reduce(evens, ldd, ldd, 2);
		long double fact = 1;
		for (int i = 1; i <= tn; i++)
			fact *= i;
		CHECK(ldd[0] == (long double)(1 << tn) && ldd[1] == fact, "longdouble prod_reduce %Lg %Lg", ldd[0], ldd[1]);
		zz[0] = tme + 2.0 * tme * I;
		shmem_complexd_sum_reduce(evens, &zz[1], &zz[0], 1);
		double s = tn * (tn - 1) / 2.0;
		CHECK(creal(zz[1]) == s && cimag(zz[1]) == 2 * s, "complexd sum_reduce");
		/* team broadcast, fcollect and alltoall */
		for (int i = 0; i < 4 * tn; i++)
			ii[i] = tme == 1 % tn ? 7 * i : -1;
		shmem_int_broadcast(evens, jj, ii, 4, 1 % tn);
		for (int i = 0; i < 4; i++)
			CHECK(jj[i] == 7 * i, "team broadcast [%d] = %d", i, jj[i]);
		shmem_team_sync(evens);
		for (int i = 0; i < 4 * tn; i++)
			ii[i] = tme * 1000 + i;
		shmem_int_alltoall(evens, jj, ii, 4);
		for (int p = 0; p < tn; p++)
			for (int i = 0; i < 4; i++)
				CHECK(jj[4 * p + i] == p * 1000 + 4 * tme + i, "team alltoall");
		shmem_team_sync(evens);
		shmem_fcollectmem(evens, jj, ii, 2 * sizeof(int));
		for (int p = 0; p < tn; p++)
			CHECK(jj[2 * p] == p * 1000, "team fcollectmem");
		shmem_team_destroy(evens);
	}
	shmem_team_t xt, yt;
	rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt);
	CHECK(rc == 0 && shmem_team_n_pes(xt) == (npes - me / 2 * 2 < 2 ? 1 : 2), "split_2d x: %d", shmem_team_n_pes(xt));
	CHECK(shmem_team_my_pe(yt) == me / 2, "split_2d y: %d", shmem_team_my_pe(yt));
	long one = 1, sum = 0;
	long *onep = shmem_malloc(sizeof(long)), *sump = shmem_malloc(sizeof(long));
	*onep = one;
	shmem_long_sum_reduce(yt, sump, onep, 1);
	sum = *sump;
	CHECK(sum == shmem_team_n_pes(yt), "sum over the column: %ld", sum);
	shmem_team_destroy(xt);
	shmem_team_destroy(yt);
	shmem_free(sump);
	shmem_free(onep);
	shmem_free(jj);
	shmem_free(ii);
	shmem_free(zz);
	shmem_free(ldd);
	shmem_free(dd);
}

int main(void)
{
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		pSync[i] = SHMEM_SYNC_VALUE;
	shmem_barrier_all();
	setup();
	memory();
	rma();
	signals();
	atomics();
	synchronization();
	collectives();
	teams();
	shmem_finalize();
	if (errors)
		printf("[%d] %d checks failed\n", me, errors);
	return errors != 0;
}
