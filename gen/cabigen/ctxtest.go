package main

import (
	"bytes"
	"fmt"
)

// ctxTest is cabi/testdata/zctx.c: every context routine of every type of its family on a
// team context, against a serial model. testdata/ctx.c includes it and runs it at 1 to 8
// PEs on a context whose team numbers PEs differently from the world.
func (m *Model) ctxTest() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("/* %s */\n", header)
	p("%s", ctxTestMacros)
	var calls []string
	for _, c := range family(m.all, rmaTypes) {
		p("TEST_RMA(%s, %s)\n", c.Name, c.C)
		calls = append(calls, "test_rma_"+c.Name)
	}
	for _, c := range family(m.all, amoStdTypes) {
		p("TEST_AMO_STD(%s, %s)\n", c.Name, c.C)
		calls = append(calls, "test_amo_std_"+c.Name)
	}
	for _, c := range family(m.all, amoExtTypes) {
		p("TEST_AMO_EXT(%s, %s)\n", c.Name, c.C)
		calls = append(calls, "test_amo_ext_"+c.Name)
	}
	for _, c := range family(m.all, amoBitTypes) {
		p("TEST_AMO_BIT(%s, %s)\n", c.Name, c.C)
		calls = append(calls, "test_amo_bit_"+c.Name)
	}
	for _, s := range sizes {
		p("TEST_SIZED(%d)\n", s)
		calls = append(calls, fmt.Sprintf("test_sized_%d", s))
	}
	var scans []string
	for _, c := range family(m.all, scanTypes) {
		p("TEST_SCAN(%s, %s)\n", c.Name, c.C)
		scans = append(scans, "test_scan_"+c.Name)
	}
	p("\n/* Every test above on ctx; tme and tn: this PE's number in the context's team and its\n * size (ctx is SHMEM_CTX_INVALID on PEs outside it, which take part in the barriers only). */\n")
	p("static void ctx_typed_tests(shmem_ctx_t ctx, int tme, int tn)\n{\n")
	for _, c := range calls {
		p("\t%s(ctx, tme, tn);\n", c)
	}
	p("}\n")
	p("\n/* The scans of every type of their table on team (SHMEM_TEAM_INVALID on PEs outside it,\n * which take part in the allocations only); tme is this PE's number in it. */\n")
	p("static void scan_typed_tests(shmem_team_t team, int tme)\n{\n")
	for _, c := range scans {
		p("\t%s(team, tme);\n", c)
	}
	p("}\n")
	return b.Bytes()
}

// ctxTestMacros are the tests of one type (or one size), as C macros over TYPENAME and TYPE.
// Values are small integers, exact in every type. Failures end the job (ctx_fail).
const ctxTestMacros = `/* Context routines of every type against a serial model (included by ctx.c). */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define CTX_VAL(T, pe, i) ((T)(((pe) * 7 + (i)) % 50 + 1))

static void ctx_fail(const char *what, const char *type, int i)
{
	fprintf(stderr, "PE %d: %s %s, element %d: wrong\n", shmem_my_pe(), type, what, i);
	shmem_global_exit(1);
}

#define TEST_RMA(N, T) \
static void test_rma_##N(shmem_ctx_t ctx, int tme, int tn) \
{ \
	enum { K = 13 }; \
	T *buf = shmem_calloc(4 * K, sizeof(T)), *one = shmem_calloc(1, sizeof(T)); \
	uint64_t *sig = shmem_calloc(2, sizeof(uint64_t)); \
	T src[2 * K], got[2 * K]; \
	int peer = ctx ? (tme + 1) % tn : 0, from = ctx ? (tme + tn - 1) % tn : 0; \
	for (int i = 0; i < 2 * K; i++) \
		src[i] = CTX_VAL(T, tme, i); \
	if (ctx) { \
		shmem_ctx_##N##_put(ctx, buf, src, K, peer); \
		shmem_ctx_##N##_put_nbi(ctx, buf + K, src + K, K, peer); \
		shmem_ctx_##N##_iput(ctx, buf + 2 * K, src, 2, 1, K, peer); \
		shmem_ctx_##N##_p(ctx, one, CTX_VAL(T, tme, 99), peer); \
		shmem_ctx_##N##_put_signal(ctx, buf, src, 1, sig, 5, SHMEM_SIGNAL_SET, peer); \
		shmem_ctx_##N##_put_signal_nbi(ctx, buf, src, 1, sig + 1, 7, SHMEM_SIGNAL_ADD, peer); \
		shmem_ctx_quiet(ctx); \
	} \
	shmem_barrier_all(); \
	if (ctx) { \
		for (int i = 0; i < 2 * K; i++) \
			if (buf[i] != CTX_VAL(T, from, i)) \
				ctx_fail("put/put_nbi", #N, i); \
		for (int i = 0; i < K; i++) \
			if (buf[2 * K + 2 * i] != CTX_VAL(T, from, i)) \
				ctx_fail("iput", #N, i); \
		if (*one != CTX_VAL(T, from, 99)) \
			ctx_fail("p", #N, 0); \
		if (sig[0] != 5 || sig[1] != 7) \
			ctx_fail("put_signal", #N, 0); \
		shmem_ctx_##N##_get(ctx, got, buf, K, peer); \
		shmem_ctx_##N##_get_nbi(ctx, got + K, buf + K, K, peer); \
		shmem_ctx_quiet(ctx); \
		for (int i = 0; i < 2 * K; i++) \
			if (got[i] != src[i]) \
				ctx_fail("get/get_nbi", #N, i); \
		shmem_ctx_##N##_iget(ctx, got, buf + 2 * K, 1, 2, K, peer); \
		for (int i = 0; i < K; i++) \
			if (got[i] != src[i]) \
				ctx_fail("iget", #N, i); \
		if (shmem_ctx_##N##_g(ctx, one, peer) != CTX_VAL(T, tme, 99)) \
			ctx_fail("g", #N, 0); \
	} \
	shmem_barrier_all(); \
	shmem_free(sig); \
	shmem_free(one); \
	shmem_free(buf); \
}

/* Every member updates team PE 0's words: the totals are exact; a compare-and-swap token
 * visits the members in order. */
#define TEST_AMO_STD(N, T) \
static void test_amo_std_##N(shmem_ctx_t ctx, int tme, int tn) \
{ \
	T *x = shmem_calloc(4, sizeof(T)); \
	T f; \
	if (ctx) { \
		shmem_ctx_##N##_atomic_fetch_add(ctx, x, (T)(tme + 1), 0); \
		shmem_ctx_##N##_atomic_add(ctx, x, (T)(tme + 1), 0); \
		shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, &f, x, (T)(tme + 1), 0); \
		shmem_ctx_##N##_atomic_fetch_inc(ctx, x + 1, 0); \
		shmem_ctx_##N##_atomic_inc(ctx, x + 1, 0); \
		shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, &f, x + 1, 0); \
		while (shmem_ctx_##N##_atomic_compare_swap(ctx, x + 2, (T)tme, (T)(tme + 1), 0) != (T)tme) \
			sched_yield(); /* the token's holder may need this CPU */ \
		for (;;) { \
			shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, &f, x + 3, (T)tme, (T)(tme + 1), 0); \
			shmem_ctx_quiet(ctx); \
			if (f == (T)tme) \
				break; \
			sched_yield(); \
		} \
		shmem_ctx_quiet(ctx); \
	} \
	shmem_barrier_all(); \
	if (ctx && tme == 0) { \
		T sum = 0; \
		for (int p = 0; p < tn; p++) \
			sum += (T)(3 * (p + 1)); \
		if (x[0] != sum) \
			ctx_fail("fetch_add/add/fetch_add_nbi", #N, 0); \
		if (x[1] != (T)(3 * tn)) \
			ctx_fail("fetch_inc/inc/fetch_inc_nbi", #N, 1); \
		if (x[2] != (T)tn || x[3] != (T)tn) \
			ctx_fail("compare_swap/compare_swap_nbi", #N, 2); \
	} \
	shmem_barrier_all(); \
	shmem_free(x); \
}

/* Each member works on its successor's word, which nobody else touches. */
#define TEST_AMO_EXT(N, T) \
static void test_amo_ext_##N(shmem_ctx_t ctx, int tme, int tn) \
{ \
	T *x = shmem_calloc(1, sizeof(T)); \
	shmem_barrier_all(); \
	if (ctx) { \
		int peer = (tme + 1) % tn; \
		T f; \
		shmem_ctx_##N##_atomic_set(ctx, x, (T)3, peer); \
		if (shmem_ctx_##N##_atomic_fetch(ctx, x, peer) != (T)3) \
			ctx_fail("set/fetch", #N, 0); \
		if (shmem_ctx_##N##_atomic_swap(ctx, x, (T)5, peer) != (T)3) \
			ctx_fail("swap", #N, 0); \
		shmem_ctx_##N##_atomic_swap_nbi(ctx, &f, x, (T)9, peer); \
		shmem_ctx_quiet(ctx); \
		if (f != (T)5) \
			ctx_fail("swap_nbi", #N, 0); \
		shmem_ctx_##N##_atomic_fetch_nbi(ctx, &f, x, peer); \
		shmem_ctx_quiet(ctx); \
		if (f != (T)9) \
			ctx_fail("fetch_nbi", #N, 0); \
	} \
	shmem_barrier_all(); \
	shmem_free(x); \
}

/* Member i owns bit i % 8 of team PE 0's words. */
#define TEST_AMO_BIT(N, T) \
static void test_amo_bit_##N(shmem_ctx_t ctx, int tme, int tn) \
{ \
	T *x = shmem_calloc(3, sizeof(T)); \
	T bit = (T)1 << (tme % 8), f; \
	if (ctx) { \
		shmem_ctx_##N##_atomic_fetch_or(ctx, x, bit, 0); \
		shmem_ctx_##N##_atomic_or(ctx, x + 1, bit, 0); \
		shmem_ctx_##N##_atomic_fetch_xor_nbi(ctx, &f, x + 2, bit, 0); \
		shmem_ctx_quiet(ctx); \
	} \
	shmem_barrier_all(); \
	if (ctx) { \
		shmem_ctx_##N##_atomic_and(ctx, x + 1, (T)~bit, 0); \
		shmem_ctx_##N##_atomic_fetch_and(ctx, x, (T)~(T)0, 0); \
		shmem_ctx_##N##_atomic_fetch_and_nbi(ctx, &f, x, (T)~(T)0, 0); \
		shmem_ctx_##N##_atomic_fetch_or_nbi(ctx, &f, x, bit, 0); \
		shmem_ctx_##N##_atomic_fetch_xor(ctx, x + 2, bit, 0); \
		shmem_ctx_##N##_atomic_xor(ctx, x + 2, bit, 0); \
		shmem_ctx_##N##_atomic_xor(ctx, x + 2, bit, 0); \
		shmem_ctx_quiet(ctx); \
	} \
	shmem_barrier_all(); \
	if (ctx && tme == 0) { \
		T all = 0; \
		for (int p = 0; p < tn; p++) \
			all |= (T)1 << (p % 8); \
		if (x[0] != all || x[1] != 0 || x[2] != 0) \
			ctx_fail("and/or/xor", #N, 0); \
	} \
	shmem_barrier_all(); \
	shmem_free(x); \
}

#define TEST_SIZED(S) \
static void test_sized_##S(shmem_ctx_t ctx, int tme, int tn) \
{ \
	enum { K = 7, E = S / 8 }; \
	unsigned char *buf = shmem_calloc(4 * K * E, 1), src[2 * K * E], model[2 * K * E], got[2 * K * E]; \
	uint64_t *sig = shmem_calloc(2, sizeof(uint64_t)); \
	int peer = ctx ? (tme + 1) % tn : 0, from = ctx ? (tme + tn - 1) % tn : 0; \
	for (int i = 0; i < 2 * K * E; i++) { \
		src[i] = CTX_VAL(unsigned char, tme, i); \
		model[i] = CTX_VAL(unsigned char, from, i); \
	} \
	if (ctx) { \
		shmem_ctx_put##S(ctx, buf, src, K, peer); \
		shmem_ctx_put##S##_nbi(ctx, buf + K * E, src + K * E, K, peer); \
		shmem_ctx_iput##S(ctx, buf + 2 * K * E, src, 2, 1, K, peer); \
		shmem_ctx_put##S##_signal(ctx, buf, src, 1, sig, 3, SHMEM_SIGNAL_SET, peer); \
		shmem_ctx_put##S##_signal_nbi(ctx, buf, src, 1, sig + 1, 4, SHMEM_SIGNAL_ADD, peer); \
		shmem_ctx_quiet(ctx); \
	} \
	shmem_barrier_all(); \
	if (ctx) { \
		if (memcmp(buf, model, 2 * K * E) != 0) \
			ctx_fail("put/put_nbi", #S, 0); \
		for (int i = 0; i < K; i++) \
			if (memcmp(buf + 2 * K * E + 2 * i * E, model + i * E, E) != 0) \
				ctx_fail("iput", #S, i); \
		if (sig[0] != 3 || sig[1] != 4) \
			ctx_fail("put_signal", #S, 0); \
		shmem_ctx_get##S(ctx, got, buf, K, peer); \
		shmem_ctx_get##S##_nbi(ctx, got + K * E, buf + K * E, K, peer); \
		shmem_ctx_quiet(ctx); \
		if (memcmp(got, src, 2 * K * E) != 0) \
			ctx_fail("get/get_nbi", #S, 0); \
		shmem_ctx_iget##S(ctx, got, buf + 2 * K * E, 1, 2, K, peer); \
		if (memcmp(got, src, K * E) != 0) \
			ctx_fail("iget", #S, 0); \
	} \
	shmem_barrier_all(); \
	shmem_free(sig); \
	shmem_free(buf); \
}


/* Scans (OpenSHMEM 1.6) of one type on a team against the serial model, a loop over the
 * members in order in the type's own arithmetic (which wraps as the library's does): the
 * inclusive scan into another buffer, the exclusive one in place, the C11 selection. */
#define TEST_SCAN(N, T)                                                                      \
	static void test_scan_##N(shmem_team_t team, int tme)                                \
	{                                                                                    \
		enum { NE = 37 };                                                            \
		T *src = shmem_malloc(2 * NE * sizeof(T)), *dst = src + NE;                  \
		for (int i = 0; i < NE; i++)                                                 \
			src[i] = CTX_VAL(T, tme, i), dst[i] = (T)-1;                         \
		if (team != SHMEM_TEAM_INVALID) {                                            \
			if (shmem_##N##_sum_inscan(team, dst, src, NE) != 0)                 \
				ctx_fail("sum_inscan's result", #N, -1);                     \
			for (int i = 0; i < NE; i++) {                                       \
				T ref = 0;                                                   \
				for (int k = 0; k <= tme; k++)                               \
					ref = (T)(ref + CTX_VAL(T, k, i));                   \
				if (dst[i] != ref)                                           \
					ctx_fail("sum_inscan", #N, i);                       \
			}                                                                    \
			if (shmem_##N##_sum_exscan(team, src, src, NE) != 0)                 \
				ctx_fail("sum_exscan's result", #N, -1);                     \
			for (int i = 0; i < NE; i++) {                                       \
				T ref = 0;                                                   \
				for (int k = 0; k < tme; k++)                                \
					ref = (T)(ref + CTX_VAL(T, k, i));                   \
				if (src[i] != ref)                                           \
					ctx_fail("sum_exscan in place", #N, i);              \
			}                                                                    \
			if (shmem_##N##_sum_inscan(team, NULL, NULL, 0) != 0)                \
				ctx_fail("sum_inscan of nothing", #N, -1);                   \
		}                                                                            \
		shmem_barrier_all();                                                         \
		shmem_free(src);                                                             \
	}
`
