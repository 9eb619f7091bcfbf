/* The examples of SHMEM_FLOAT_MIN_TO_ALL(3) in C.
 *
 * Example 1, Fortran on the page: pSync is initialized once, before first use, and the
 * minimum of the real (double) foo is found across the even PEs (PE_start 0,
 * logPE_stride 1). foo, foomin and pWrk are static, as the page's COMMON block is.
 *
 * Example 2: one call reducing three elements equals three one-element calls that
 * alternate two pWrk and pSync pairs, with no synchronization between the calls; here for
 * every type of the family (short, int, long, long long, float, double, long double),
 * across all PEs, in place for the three-element call. */
#include <shmem.h>
#include <stdio.h>

#define NR 1
#define WRK(n) ((n) / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? (n) / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE)

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSync1[SHMEM_REDUCE_SYNC_SIZE], pSync2[SHMEM_REDUCE_SYNC_SIZE];
static double pWrk[WRK(NR)];
static double foo, foomin;

static int errors;

#define CHECK(cond, ...)                                   \
	do {                                               \
		if (!(cond)) {                             \
			printf("[%d] ERROR: ", shmem_my_pe()); \
			printf(__VA_ARGS__);               \
			printf("\n");                      \
			errors++;                          \
		}                                          \
	} while (0)

/* The value PE pe contributes to element i: distinct, some negative, exact in every type. */
#define VALUE(TYPE, pe, i) ((TYPE)((((pe) * 7 + (i) * 3) % 11) - 5))

#define EXAMPLE2(TYPE, NAME)                                                                     \
	static TYPE NAME##_data[3], NAME##_single[3], NAME##_source[3];                          \
	static TYPE NAME##_pwrk1[WRK(1)], NAME##_pwrk2[WRK(1)], NAME##_pwrk[WRK(3)];               \
	static void example2_##NAME(void)                                                        \
	{                                                                                        \
		int me = shmem_my_pe(), npes = shmem_n_pes();                                    \
		for (int i = 0; i < 3; i++)                                                      \
			NAME##_data[i] = NAME##_source[i] = VALUE(TYPE, me, i);                  \
		shmem_barrier_all();                                                             \
		shmem_##NAME##_min_to_all(NAME##_data, NAME##_data, 3, 0, 0, npes, NAME##_pwrk, pSync); \
		shmem_##NAME##_min_to_all(&NAME##_single[0], &NAME##_source[0], 1, 0, 0, npes,   \
					  NAME##_pwrk1, pSync1);                                 \
		shmem_##NAME##_min_to_all(&NAME##_single[1], &NAME##_source[1], 1, 0, 0, npes,   \
					  NAME##_pwrk2, pSync2);                                 \
		shmem_##NAME##_min_to_all(&NAME##_single[2], &NAME##_source[2], 1, 0, 0, npes,   \
					  NAME##_pwrk1, pSync1);                                 \
		for (int i = 0; i < 3; i++) {                                                    \
			TYPE want = VALUE(TYPE, 0, i);                                           \
			for (int pe = 1; pe < npes; pe++)                                        \
				if (VALUE(TYPE, pe, i) < want)                                   \
					want = VALUE(TYPE, pe, i);                               \
			CHECK(NAME##_data[i] == want, #NAME " in place [%d] = %Lg, want %Lg", i,   \
			      (long double)NAME##_data[i], (long double)want);                   \
			CHECK(NAME##_single[i] == want, #NAME " single[%d] = %Lg, want %Lg", i,    \
			      (long double)NAME##_single[i], (long double)want);                 \
		}                                                                                \
	}

EXAMPLE2(short, short)
EXAMPLE2(int, int)
EXAMPLE2(long, long)
EXAMPLE2(long long, longlong)
EXAMPLE2(float, float)
EXAMPLE2(double, double)
EXAMPLE2(long double, longdouble)

int main(void)
{
	shmem_init();
	int me = shmem_my_pe(), npes = shmem_n_pes();
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		pSync[i] = pSync1[i] = pSync2[i] = SHMEM_SYNC_VALUE;
	foo = 100.5 - 3.25 * me;
	shmem_barrier_all(); /* every PE's pSync is initialized */

	if (me % 2 == 0) {
		shmem_double_min_to_all(&foomin, &foo, NR, 0, 1, (npes + 1) / 2, pWrk, pSync);
		printf("Result on PE %d is %g\n", me, foomin);
		double want = 100.5 - 3.25 * ((npes - 1) / 2 * 2);
		CHECK(foomin == want, "foomin = %g, want %g", foomin, want);
	}

	example2_short();
	example2_int();
	example2_long();
	example2_longlong();
	example2_float();
	example2_double();
	example2_longdouble();

	shmem_finalize();
	return errors != 0;
}
