// The C loops the Go kernels are compared with, built by run.sh with gcc -O3 -march=native.
// Each kernel is dst[i] = op(dst[i], src[i]) over n elements (what kernels.Combine does);
// float min/max is the C reference dst < src ? dst : src. The rate is bytes of dst per
// second (one operand), as in the Go benchmarks' b.SetBytes; each row is the median of
// `reps` timings of at least 20 ms each.
//
// Output lines: <type> <op> <size> <MB/s>, and "copy <size> <MB/s>" for memcpy, and
// "strided32 ds=2,ss=2 <size> <MB/s>" for the strided loops.
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

#define KERNELS(T, NAME)                                                                       \
	NOINLINE void NAME##_sum(T *restrict d, const T *restrict s, size_t n) {                  \
		for (size_t i = 0; i < n; i++) d[i] = d[i] + s[i];                                    \
	}                                                                                          \
	NOINLINE void NAME##_prod(T *restrict d, const T *restrict s, size_t n) {                 \
		for (size_t i = 0; i < n; i++) d[i] = d[i] * s[i];                                    \
	}                                                                                          \
	NOINLINE void NAME##_min(T *restrict d, const T *restrict s, size_t n) {                  \
		for (size_t i = 0; i < n; i++) d[i] = d[i] < s[i] ? d[i] : s[i];                      \
	}                                                                                          \
	NOINLINE void NAME##_max(T *restrict d, const T *restrict s, size_t n) {                  \
		for (size_t i = 0; i < n; i++) d[i] = d[i] > s[i] ? d[i] : s[i];                      \
	}

#define BITWISE(T, NAME)                                                                       \
	NOINLINE void NAME##_and(T *restrict d, const T *restrict s, size_t n) {                  \
		for (size_t i = 0; i < n; i++) d[i] = d[i] & s[i];                                    \
	}                                                                                          \
	NOINLINE void NAME##_or(T *restrict d, const T *restrict s, size_t n) {                   \
		for (size_t i = 0; i < n; i++) d[i] = d[i] | s[i];                                    \
	}                                                                                          \
	NOINLINE void NAME##_xor(T *restrict d, const T *restrict s, size_t n) {                  \
		for (size_t i = 0; i < n; i++) d[i] = d[i] ^ s[i];                                    \
	}

KERNELS(int32_t, int32)
BITWISE(int32_t, int32)
KERNELS(float, float32)
KERNELS(int64_t, int64)
BITWISE(int64_t, int64)
KERNELS(double, float64)
KERNELS(int8_t, int8)
KERNELS(int16_t, int16)

NOINLINE void copy_bytes(void *restrict d, const void *restrict s, size_t n) { memcpy(d, s, n); }

NOINLINE void strided32(uint32_t *restrict d, size_t ds, const uint32_t *restrict s, size_t ss, size_t n) {
	for (size_t i = 0; i < n; i++) d[i * ds] = s[i * ss];
}
NOINLINE void strided64(uint64_t *restrict d, size_t ds, const uint64_t *restrict s, size_t ss, size_t n) {
	for (size_t i = 0; i < n; i++) d[i * ds] = s[i * ss];
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef void (*fn2)(void *, const void *, size_t);
enum { reps = 7 };

// measure times f over `bytes` of dst and returns the median MB/s.
#define MEASURE(CALL, bytes)                                                                   \
	({                                                                                         \
		double rates[reps];                                                                    \
		long iters = 1;                                                                        \
		for (;;) { /* calibrate to >= 20 ms */                                             \
			double t0 = now();                                                                 \
			for (long k = 0; k < iters; k++) { CALL; __asm__ volatile("" ::: "memory"); }      \
			if (now() - t0 >= 0.02) break;                                                     \
			iters *= 2;                                                                        \
		}                                                                                      \
		for (int r = 0; r < reps; r++) {                                                       \
			double t0 = now();                                                                 \
			for (long k = 0; k < iters; k++) { CALL; __asm__ volatile("" ::: "memory"); }      \
			rates[r] = (double)(bytes) * iters / (now() - t0) / 1e6;                           \
		}                                                                                      \
		qsort(rates, reps, sizeof rates[0], cmp);                                              \
		rates[reps / 2];                                                                       \
	})

static const struct { const char *name; size_t bytes; } sizes[] = {
	{"4KiB", 4 << 10}, {"256KiB", 256 << 10}, {"16MiB", 16 << 20}};

static void *alloc(size_t bytes) {
	void *p = aligned_alloc(64, bytes);
	memset(p, 1, bytes);
	return p;
}

#define RUN(T, NAME, OP)                                                                       \
	for (int z = 0; z < 3; z++) {                                                              \
		size_t b = sizes[z].bytes, n = b / sizeof(T);                                          \
		T *d = alloc(b), *s = alloc(b);                                                        \
		for (size_t i = 0; i < n; i++) { d[i] = (T)1; s[i] = (T)(i % 7 + 1); }                 \
		printf("%s %s %s %.0f\n", #NAME, #OP, sizes[z].name, MEASURE(NAME##_##OP(d, s, n), b)); \
		fflush(stdout);                                                                        \
		free(d);                                                                               \
		free(s);                                                                               \
	}

int main(void) {
	for (int z = 0; z < 3; z++) {
		size_t b = sizes[z].bytes;
		char *d = alloc(b), *s = alloc(b);
		printf("copy %s %.0f\n", sizes[z].name, MEASURE(copy_bytes(d, s, b), b));
		free(d);
		free(s);
	}
	RUN(int32_t, int32, sum) RUN(int32_t, int32, prod) RUN(int32_t, int32, min) RUN(int32_t, int32, max)
	RUN(int32_t, int32, and) RUN(int32_t, int32, or) RUN(int32_t, int32, xor)
	RUN(float, float32, sum) RUN(float, float32, prod) RUN(float, float32, min) RUN(float, float32, max)
	RUN(int64_t, int64, sum) RUN(int64_t, int64, prod) RUN(int64_t, int64, min) RUN(int64_t, int64, max)
	RUN(int64_t, int64, xor)
	RUN(double, float64, sum) RUN(double, float64, prod) RUN(double, float64, min) RUN(double, float64, max)
	RUN(int8_t, int8, sum) RUN(int8_t, int8, prod) RUN(int8_t, int8, min)
	RUN(int16_t, int16, sum) RUN(int16_t, int16, prod) RUN(int16_t, int16, min)
	static const size_t st[][2] = {{2, 2}, {1, 2}, {2, 1}, {3, 5}};
	for (int k = 0; k < 4; k++)
		for (int z = 0; z < 2; z++) {
			size_t ds = st[k][0], ss = st[k][1], b = sizes[z].bytes;
			size_t n32 = b / 4, n64 = b / 8;
			uint32_t *d = alloc(n32 * ds * 4), *s = alloc(n32 * ss * 4);
			printf("strided32 ds=%zu,ss=%zu %s %.0f\n", ds, ss, sizes[z].name, MEASURE(strided32(d, ds, s, ss, n32), b));
			printf("strided64 ds=%zu,ss=%zu %s %.0f\n", ds, ss, sizes[z].name,
			       MEASURE(strided64((uint64_t *)d, ds, (uint64_t *)s, ss, n64), b));
			free(d);
			free(s);
		}
	return 0;
}
