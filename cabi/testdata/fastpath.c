/* The C fast path of the one-sided routines (cabi/fastpath.h) at any number of PEs: puts and
 * gets of every size on heap and static data, the atomics of every type against a serial
 * model with every PE contending, shmem_ptr, fence and quiet ordering, the valid calls the
 * fast path leaves to Go (empty ranges, a stack address in shmem_ptr), and waiters woken by
 * every kind of post, which when waits sleep (the tests' default: PEs share CPUs) exercises
 * the doorbell. Each check prints what went wrong; the exit status is 1 if any failed. */
#define _POSIX_C_SOURCE 199309L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int errors;
static int me, npes;

#define CHECK(cond, ...)                                                                            \
	do {                                                                                        \
		if (!(cond)) {                                                                      \
			printf("[%d] %s:%d: ", me, __FILE__, __LINE__);                             \
			printf(__VA_ARGS__);                                                        \
			printf("\n");                                                               \
			errors++;                                                                   \
		}                                                                                   \
	} while (0)

#define K 64 /* operations per PE and word in the atomics' tests */

/* Static symmetric data: every fast path translates these addresses to their heap twins. */
static unsigned char s_bytes[3 << 16];
static long s_long[16];
static long s_counter;
static int s_icounter;
static uint32_t s_bits32;
static uint64_t s_bits64;
static long s_flag;
static short s_short_flag;
static int s_int_flag;
static long s_fetched[K];

static int right(void) { return (me + 1) % npes; }
static int left(void) { return (me + npes - 1) % npes; }

static unsigned char pattern(int pe, size_t i, int salt) { return (unsigned char)(pe * 31 + i * 7 + salt); }

/* Puts and gets of every length class (empty, a word, odd lengths, beyond glibc's small-copy
 * paths) to the right neighbour and back, on heap and static data. */
static void rma(void)
{
	static const size_t lens[] = {0, 1, 7, 8, 9, 16, 63, 64, 100, 4096, 65537, 3 << 16};
	unsigned char *heap = shmem_malloc(3 << 16);
	unsigned char *src = malloc(3 << 16), *back = malloc(3 << 16);
	CHECK(heap && src && back, "allocation failed");
	for (int salt = 0; salt < 2; salt++) {
		unsigned char *dest = salt ? s_bytes : heap; /* salt 1: static data */
		for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
			size_t n = lens[l];
			memset(dest, 0xee, 3 << 16);
			for (size_t i = 0; i < n; i++)
				src[i] = pattern(me, i, salt);
			shmem_barrier_all();
			shmem_putmem(dest, src, n, right());
			shmem_barrier_all();
			size_t bad = n;
			for (size_t i = 0; i < n && bad == n; i++)
				if (dest[i] != pattern(left(), i, salt))
					bad = i;
			CHECK(bad == n, "%s putmem of %zu bytes from PE %d: byte %zu differs", salt ? "static" : "heap", n, left(), bad);
			CHECK(n == 3 << 16 || dest[n] == 0xee, "putmem of %zu bytes wrote past its end", n);
			memset(back, 0, n);
			shmem_getmem(back, dest, n, right());
			CHECK(n == 0 || memcmp(back, src, n) == 0, "getmem of %zu bytes from PE %d returned other bytes", n, right());
			shmem_barrier_all();
		}
	}

	/* Typed, sized and scalar forms, the _nbi ones, and a put to myself. */
	long *hl = shmem_calloc(16, sizeof(long));
	long vals[16], got[16];
	for (int i = 0; i < 16; i++)
		vals[i] = me * 1000 + i;
	shmem_long_put(hl, vals, 4, right());
	shmem_long_put_nbi(hl + 4, vals + 4, 4, right());
	shmem_put64(s_long, vals, 8, right());
	shmem_put32_nbi(s_long + 8, vals, 4, right()); /* 4 x 32 bits: vals[0..1]'s bytes */
	shmem_long_p(hl + 8, -me, right());
	shmem_p(hl + 9, (long)me + 7, right());
	shmem_put(hl + 10, vals + 10, 2, me);
	shmem_quiet();
	shmem_barrier_all();
	for (int i = 0; i < 8; i++)
		CHECK(hl[i] == left() * 1000 + i && s_long[i] == left() * 1000 + i, "typed put %d: %ld %ld", i, hl[i], s_long[i]);
	CHECK(s_long[8] == left() * 1000 && s_long[9] == left() * 1000 + 1, "put32_nbi: %ld %ld", s_long[8], s_long[9]);
	CHECK(hl[8] == -left() && hl[9] == left() + 7, "p: %ld %ld", hl[8], hl[9]);
	CHECK(hl[10] == me * 1000 + 10 && hl[11] == me * 1000 + 11, "put to myself: %ld %ld", hl[10], hl[11]);
	CHECK(shmem_long_g(hl + 9, right()) == me + 7, "g of a heap word");
	CHECK(shmem_g(&s_long[3], right()) == me * 1000 + 3, "g of a static word");
	CHECK(shmem_short_g((short *)hl, me) == (short)(left() * 1000), "short g");
	shmem_long_get(got, s_long, 8, right());
	shmem_long_get_nbi(got + 8, hl, 4, left());
	shmem_quiet();
	CHECK(got[0] == me * 1000 && got[7] == me * 1000 + 7, "get of static data: %ld %ld", got[0], got[7]);
	CHECK(got[8] == (left() + npes - 1) % npes * 1000, "get_nbi of heap data: %ld", got[8]);
	long double ld = 1.5L * me, ldr = 0;
	long double *hld = shmem_calloc(2, sizeof(long double));
	shmem_longdouble_p(hld, ld, right());
	shmem_barrier_all();
	ldr = shmem_longdouble_g(hld, me);
	CHECK(ldr == 1.5L * left(), "long double p and g: %Lf", ldr);
	double d = shmem_double_g((double *)hl, me); /* any bits: only that it returns */
	(void)d;

	/* Valid calls the fast path leaves to Go: empty ranges anywhere, any pointers. */
	int stack = 0;
	shmem_putmem(NULL, NULL, 0, right());
	shmem_getmem(&stack, &stack, 0, right());
	shmem_long_put(hl, NULL, 0, right());
	CHECK(stack == 0, "an empty get wrote");
	CHECK(shmem_ptr(&stack, right()) == NULL, "shmem_ptr of the stack");
	CHECK(shmem_ptr(hl, npes) == NULL && shmem_ptr(hl, -1) == NULL, "shmem_ptr of a PE out of range");

	/* shmem_ptr: my own copy is the address itself; a peer's is writable in place. */
	CHECK(shmem_ptr(hl, me) == hl && shmem_ptr(&s_long[2], me) == &s_long[2], "shmem_ptr of my own data");
	long *peer = shmem_ptr(&s_long[12], right());
	long *peerh = shmem_ptr(hl + 12, right());
	CHECK(peer && peerh, "shmem_ptr of a peer's data is NULL");
	shmem_barrier_all();
	if (peer && peerh) {
		*peer = 4242 + me;
		*peerh = 2424 + me;
	}
	shmem_barrier_all();
	CHECK(s_long[12] == 4242 + left() && hl[12] == 2424 + left(), "a store through shmem_ptr: %ld %ld", s_long[12], hl[12]);
	shmem_barrier_all();
	shmem_free(hld);
	shmem_free(hl);
	shmem_free(heap);
	free(src);
	free(back);
}

/* fence and quiet order puts to a PE before later ones: the data, then the flag. */
static void ordering(void)
{
	enum { ROUNDS = 50, WORDS = 512 };
	long *data = shmem_calloc(WORDS, sizeof(long)), *flag = shmem_calloc(1, sizeof(long));
	long buf[WORDS];
	for (long r = 1; r <= ROUNDS; r++) {
		for (int i = 0; i < WORDS; i++)
			buf[i] = r * WORDS + i;
		shmem_long_put(data, buf, WORDS, right());
		if (r & 1)
			shmem_fence();
		else
			shmem_quiet();
		shmem_long_p(flag, r, right());
		shmem_long_wait_until(flag, SHMEM_CMP_EQ, r);
		int bad = -1;
		for (int i = 0; i < WORDS && bad < 0; i++)
			if (data[i] != r * WORDS + i)
				bad = i;
		CHECK(bad < 0, "round %ld: word %d is %ld after the flag", r, bad, bad < 0 ? 0 : data[bad]);
		shmem_barrier_all(); /* nobody overwrites data before its owner has checked it */
	}
	shmem_free(flag);
	shmem_free(data);
}

/* mark counts values v in [0, n) into seen; out-of-range or repeated values are errors. */
static int mark(unsigned char *seen, long n, long v)
{
	if (v < 0 || v >= n || seen[v])
		return 0;
	seen[v] = 1;
	return 1;
}

/* The standard atomics of one type, every PE on PE 0's words (and on every PE's for the
 * additions), against the serial model: the final values, and the fetched old values
 * (fetch_inc and compare-and-swap hand out each count once; swap's olds and the final value
 * are exactly the values swapped in, and the initial 0). */
#define STD_AMO_TEST(N, T)                                                                          \
	static void std_##N(void)                                                                   \
	{                                                                                           \
		T *w = shmem_calloc(8, sizeof(T));                                                  \
		T *log = shmem_calloc(3 * K, sizeof(T));                                            \
		T *all = malloc(3 * K * npes * sizeof(T));                                          \
		unsigned char *seen = calloc(K * npes + 1, 1);                                      \
		shmem_barrier_all();                                                                \
		for (int k = 0; k < K; k++) {                                                       \
			for (int pe = 0; pe < npes; pe++) {                                         \
				T o = shmem_##N##_atomic_fetch_add(&w[0], (T)(me + 1), pe);         \
				(void)o;                                                            \
				shmem_##N##_atomic_add(&w[1], (T)(me + 1), pe);                     \
				shmem_##N##_atomic_inc(&w[2], pe);                                  \
			}                                                                           \
			log[k] = shmem_##N##_atomic_fetch_inc(&w[3], 0);                            \
			T old = shmem_##N##_atomic_fetch(&w[4], 0);                                 \
			for (;;) {                                                                  \
				T got = shmem_##N##_atomic_compare_swap(&w[4], old, (T)(old + 1), 0); \
				if (got == old)                                                     \
					break;                                                      \
				old = got;                                                          \
			}                                                                           \
			log[K + k] = old;                                                           \
			log[2 * K + k] = shmem_##N##_atomic_swap(&w[5], (T)(1 + me * K + k), 0);    \
			shmem_##N##_atomic_set(&w[6 + (k & 1)], (T)(me + 1), right());              \
		}                                                                                   \
		shmem_barrier_all();                                                                \
		T sum = (T)(K * (long)npes * (npes + 1) / 2);                                       \
		CHECK(w[0] == sum && w[1] == sum, #N " fetch_add/add: %ld %ld, want %ld", (long)w[0], (long)w[1], (long)sum); \
		CHECK(w[2] == (T)(K * npes), #N " inc: %ld", (long)w[2]);                           \
		CHECK(w[6] == (T)(left() + 1) && w[7] == (T)(left() + 1), #N " set: %ld %ld", (long)w[6], (long)w[7]); \
		CHECK(shmem_##N##_atomic_fetch(&w[6], right()) == (T)(me + 1), #N " fetch from PE %d", right()); \
		if (me == 0) {                                                                      \
			CHECK(w[3] == (T)(K * npes) && w[4] == (T)(K * npes), #N " fetch_inc/compare_swap: %ld %ld", (long)w[3], (long)w[4]); \
			for (int pe = 0; pe < npes; pe++)                                           \
				shmem_getmem(all + 3 * K * pe, log, 3 * K * sizeof(T), pe);         \
			for (int op = 0; op < 3; op++) {                                            \
				memset(seen, 0, K * npes + 1);                                      \
				int ok = op < 2 || mark(seen, K * npes + 1, (long)w[5]);            \
				for (int pe = 0; pe < npes; pe++)                                   \
					for (int k = 0; k < K; k++)                                 \
						ok &= mark(seen, K * npes + 1, (long)all[3 * K * pe + op * K + k]); \
				CHECK(ok, #N " %s: the old values are not each count once", (const char *[]){"fetch_inc", "compare_swap", "swap"}[op]); \
			}                                                                           \
		}                                                                                   \
		shmem_barrier_all();                                                                \
		free(seen);                                                                         \
		free(all);                                                                          \
		shmem_free(log);                                                                    \
		shmem_free(w);                                                                      \
	}

/* The bitwise atomics of one type: every PE sets, clears and flips its own bits of PE 0's
 * words; the olds a PE fetches show its own bit as it left it. */
#define BIT_AMO_TEST(N, T)                                                                          \
	static void bit_##N(void)                                                                   \
	{                                                                                           \
		T *w = shmem_calloc(6, sizeof(T));                                                  \
		w[1] = w[4] = (T)~(T)0;                                                             \
		shmem_barrier_all();                                                                \
		T bit = (T)((T)1 << (me % (8 * sizeof(T)))), all = 0, flips = 0;                    \
		for (int pe = 0; pe < npes; pe++)                                                   \
			all |= (T)((T)1 << (pe % (8 * sizeof(T))));                                 \
		T flip = (T)(0x9E3779B97F4A7C15ull * (unsigned)(me + 1));                           \
		for (int pe = 0; pe < npes; pe++)                                                   \
			flips ^= (T)(0x9E3779B97F4A7C15ull * (unsigned)(pe + 1));                   \
		T o = shmem_##N##_atomic_fetch_or(&w[0], bit, 0);                                   \
		CHECK(npes > 8 * (int)sizeof(T) || !(o & bit), #N " fetch_or: my bit was set before"); \
		o = shmem_##N##_atomic_fetch_and(&w[1], (T)~bit, 0);                                \
		CHECK(o & bit, #N " fetch_and: my bit was clear before");                           \
		for (int k = 0; k < 3; k++)                                                         \
			o = shmem_##N##_atomic_fetch_xor(&w[2], flip, 0);                           \
		shmem_##N##_atomic_or(&w[3], bit, 0);                                               \
		shmem_##N##_atomic_and(&w[4], (T)~bit, 0);                                          \
		shmem_##N##_atomic_xor(&w[5], flip, 0);                                             \
		shmem_barrier_all();                                                                \
		if (me == 0) {                                                                      \
			CHECK(w[0] == all && w[3] == all, #N " or: %#llx %#llx", (unsigned long long)w[0], (unsigned long long)w[3]); \
			CHECK(w[1] == (T)~all && w[4] == (T)~all, #N " and: %#llx %#llx", (unsigned long long)w[1], (unsigned long long)w[4]); \
			CHECK(w[2] == flips && w[5] == flips, #N " xor: %#llx %#llx", (unsigned long long)w[2], (unsigned long long)w[5]); \
		}                                                                                   \
		shmem_barrier_all();                                                                \
		shmem_free(w);                                                                      \
	}

/* fetch, set and swap of the floating types: every PE swaps its values into PE 0's word. */
#define EXT_AMO_TEST(N, T)                                                                          \
	static void ext_##N(void)                                                                   \
	{                                                                                           \
		T *w = shmem_calloc(2, sizeof(T));                                                  \
		T *log = shmem_calloc(K, sizeof(T));                                                \
		shmem_barrier_all();                                                                \
		for (int k = 0; k < K; k++)                                                         \
			log[k] = shmem_##N##_atomic_swap(&w[0], (T)(1 + me * K + k) + (T)0.25, 0);  \
		shmem_##N##_atomic_set(&w[1], (T)me + (T)0.5, right());                             \
		shmem_barrier_all();                                                                \
		CHECK(w[1] == (T)left() + (T)0.5, #N " set: %g", (double)w[1]);                     \
		CHECK(shmem_##N##_atomic_fetch(&w[1], right()) == (T)me + (T)0.5, #N " fetch");     \
		if (me == 0) {                                                                      \
			unsigned char *seen = calloc(K * npes + 1, 1);                              \
			int ok = mark(seen, K * npes + 1, (long)w[0]);                              \
			for (int pe = 0; pe < npes; pe++)                                           \
				for (int k = 0; k < K; k++)                                         \
					ok &= mark(seen, K * npes + 1, (long)shmem_##N##_g(&log[k], pe)); \
			CHECK(ok, #N " swap: the old values are not each value once");              \
			free(seen);                                                                 \
		}                                                                                   \
		shmem_barrier_all();                                                                \
		shmem_free(log);                                                                    \
		shmem_free(w);                                                                      \
	}

STD_AMO_TEST(int, int)
STD_AMO_TEST(long, long)
STD_AMO_TEST(longlong, long long)
STD_AMO_TEST(uint, unsigned int)
STD_AMO_TEST(ulong, unsigned long)
STD_AMO_TEST(ulonglong, unsigned long long)
STD_AMO_TEST(int32, int32_t)
STD_AMO_TEST(int64, int64_t)
STD_AMO_TEST(uint32, uint32_t)
STD_AMO_TEST(uint64, uint64_t)
STD_AMO_TEST(size, size_t)
STD_AMO_TEST(ptrdiff, ptrdiff_t)
BIT_AMO_TEST(uint, unsigned int)
BIT_AMO_TEST(ulong, unsigned long)
BIT_AMO_TEST(ulonglong, unsigned long long)
BIT_AMO_TEST(int32, int32_t)
BIT_AMO_TEST(int64, int64_t)
BIT_AMO_TEST(uint32, uint32_t)
BIT_AMO_TEST(uint64, uint64_t)
EXT_AMO_TEST(float, float)
EXT_AMO_TEST(double, double)

/* Atomics on static data, 4 and 8 bytes, every PE on PE 0's variables. */
static void static_atomics(void)
{
	for (int k = 0; k < K; k++) {
		s_fetched[k] = shmem_long_atomic_fetch_inc(&s_counter, 0);
		shmem_int_atomic_add(&s_icounter, 2, 0);
	}
	shmem_uint32_atomic_or(&s_bits32, (uint32_t)1 << (me % 32), 0);
	shmem_uint64_atomic_fetch_xor(&s_bits64, (uint64_t)1 << (me % 64), 0);
	shmem_barrier_all();
	if (me == 0) {
		CHECK(s_counter == K * npes && s_icounter == 2 * K * npes, "static counters: %ld %d", s_counter, s_icounter);
		uint32_t b32 = 0;
		uint64_t b64 = 0;
		for (int pe = 0; pe < npes; pe++) {
			b32 |= (uint32_t)1 << (pe % 32);
			b64 ^= (uint64_t)1 << (pe % 64);
		}
		CHECK(s_bits32 == b32 && s_bits64 == b64, "static bits: %#x %#llx", s_bits32, (unsigned long long)s_bits64);
		unsigned char *seen = calloc(K * npes, 1);
		int ok = 1;
		for (int pe = 0; pe < npes; pe++)
			for (int k = 0; k < K; k++)
				ok &= mark(seen, K * npes, shmem_long_g(&s_fetched[k], pe));
		CHECK(ok, "static fetch_inc: the old values are not each count once");
		free(seen);
	}
	shmem_barrier_all();
}

static void nap(void)
{
	/* Longer than a waiter yields before it sleeps on its doorbell (1 ms, runtime/wait.go). */
	struct timespec t = {0, 3 * 1000 * 1000};
	nanosleep(&t, NULL);
}

/* Waiters woken by every kind of post: pairs of PEs take turns, each kind in both
 * directions, the poster first naps so a waiter that sleeps is asleep. A post that forgot
 * the doorbell would leave the waiter to its futex timeout; one that forgot the write would
 * hang the test. Before a PE's round r its flags hold r-1, for the posts that add one. */
static void wakeups(void)
{
	enum { POSTS = 12, ROUNDS = 2 * POSTS };
	long *hflag = shmem_calloc(1, sizeof(long)), *hdata = shmem_calloc(64, sizeof(long));
	uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t));
	int partner = me ^ 1;
	long data[64], sig_round = 0;
	for (int i = 0; i < 64; i++)
		data[i] = i + me;
	s_flag = *hflag = (me & 1) ? 0 : 1; /* odd PEs wait first, in round 1 */
	shmem_barrier_all();
	for (long r = 1; partner < npes && r <= ROUNDS; r++) {
		int post = (int)((r - 1) / 2 % POSTS);
		if ((me & 1) != (r & 1)) {
			nap();
			switch (post) {
			case 0:
				shmem_long_p(&s_flag, r, partner);
				break;
			case 1:
				shmem_putmem(hflag, &r, sizeof r, partner);
				break;
			case 2:
				shmem_long_atomic_set(&s_flag, r, partner);
				break;
			case 3:
				shmem_long_atomic_add(hflag, 1, partner);
				break;
			case 4:
				shmem_long_atomic_fetch_inc(&s_flag, partner);
				break;
			case 5:
				shmem_long_atomic_swap(hflag, r, partner);
				break;
			case 6:
				shmem_long_atomic_compare_swap(&s_flag, r - 1, r, partner);
				break;
			case 7:
				shmem_putmem_signal(hdata, data, sizeof data, hsig, (uint64_t)r, SHMEM_SIGNAL_SET, partner);
				break;
			case 8:
				shmem_short_p(&s_short_flag, (short)r, partner);
				break;
			case 9:
				shmem_int_put(&s_int_flag, (int[]){(int)r}, 1, partner);
				break;
			case 10:
				shmem_put64(hflag, &r, 1, partner);
				break;
			case 11:
				shmem_long_atomic_fetch_add(&s_flag, 1, partner);
				break;
			}
			continue;
		}
		switch (post) {
		case 0:
		case 2:
		case 4:
		case 6:
		case 11:
			shmem_long_wait_until(&s_flag, SHMEM_CMP_EQ, r);
			break;
		case 1:
		case 3:
		case 5:
			while (!shmem_long_test(hflag, SHMEM_CMP_GE, r)) /* a failed test yields (in Go) */
				;
			CHECK(*hflag == r, "flag %ld in round %ld", *hflag, r);
			break;
		case 7:
			shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, (uint64_t)r);
			CHECK(hdata[0] == partner && hdata[63] == 63 + partner, "put_signal: the data is not there with the signal");
			sig_round = r;
			break;
		case 8:
			shmem_short_wait_until(&s_short_flag, SHMEM_CMP_EQ, (short)r);
			break;
		case 9:
			shmem_int_wait_until(&s_int_flag, SHMEM_CMP_GE, (int)r);
			break;
		case 10:
			shmem_long_wait(hflag, r - 1); /* deprecated: until it is not r-1 */
			CHECK(*hflag == r, "put64 flag %ld in round %ld", *hflag, r);
			break;
		}
		/* Ready for my next round, r+2, before my next post lets the partner go on. */
		s_flag = *hflag = r + 1;
		shmem_quiet();
	}
	shmem_barrier_all();
	uint64_t sig = shmem_signal_fetch(hsig);
	CHECK(sig == (uint64_t)sig_round, "signal_fetch: %llu, want %ld", (unsigned long long)sig, sig_round);
	shmem_barrier_all();
	shmem_free(hsig);
	shmem_free(hdata);
	shmem_free(hflag);
}

int main(void)
{
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	rma();
	ordering();
	std_int();
	std_long();
	std_longlong();
	std_uint();
	std_ulong();
	std_ulonglong();
	std_int32();
	std_int64();
	std_uint32();
	std_uint64();
	std_size();
	std_ptrdiff();
	bit_uint();
	bit_ulong();
	bit_ulonglong();
	bit_int32();
	bit_int64();
	bit_uint32();
	bit_uint64();
	ext_float();
	ext_double();
	static_atomics();
	wakeups();
	shmem_finalize();
	if (errors)
		printf("[%d] %d checks failed\n", me, errors);
	return errors != 0;
}
