/* The examples of SHMEM_COMPLEXF_SUM_TO_ALL(3) in C.
 *
 * Example 1, Fortran on the page: pSync is initialized once, before first use, and the sum
 * of the integer (int) foo is found across the even PEs (PE_start 0, logPE_stride 1).
 * foo, foosum and pWrk are static, as the page's COMMON block is.
 *
 * Example 2: one call reducing three elements equals three one-element calls that
 * alternate two pWrk and pSync pairs, with no synchronization between the calls; here for
 * every type of the family (short, int, long, long long, float, double, long double, float
 * complex, double complex), across all PEs. The values are small integers, so every sum is
 * exact whatever the order of combination. */
#include <complex.h>
#include <shmem.h>
#include <stdio.h>

#define NR 1
#define WRK(n) ((n) / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? (n) / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE)

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSync1[SHMEM_REDUCE_SYNC_SIZE], pSync2[SHMEM_REDUCE_SYNC_SIZE];
static int pWrk[WRK(NR)];
static int foo, foosum;

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

/* PE pe's element i: real part pe + i - 2, imaginary part (complex types) 2 * pe - i. */
#define REAL(pe, i) ((pe) + (i) - 2)
#define IMAG(pe, i) (2 * (pe) - (i))

#define EXAMPLE2(TYPE, NAME, VALUE)                                                              \
	static TYPE NAME##_target[3], NAME##_single[3], NAME##_source[3];                        \
	static TYPE NAME##_pwrk1[WRK(1)], NAME##_pwrk2[WRK(1)], NAME##_pwrk[WRK(3)];               \
	static void example2_##NAME(void)                                                        \
	{                                                                                        \
		int me = shmem_my_pe(), npes = shmem_n_pes();                                    \
		for (int i = 0; i < 3; i++)                                                      \
			NAME##_source[i] = VALUE(me, i);                                         \
		shmem_barrier_all();                                                             \
		shmem_##NAME##_sum_to_all(NAME##_target, NAME##_source, 3, 0, 0, npes, NAME##_pwrk, pSync); \
		shmem_##NAME##_sum_to_all(&NAME##_single[0], &NAME##_source[0], 1, 0, 0, npes,   \
					  NAME##_pwrk1, pSync1);                                 \
		shmem_##NAME##_sum_to_all(&NAME##_single[1], &NAME##_source[1], 1, 0, 0, npes,   \
					  NAME##_pwrk2, pSync2);                                 \
		shmem_##NAME##_sum_to_all(&NAME##_single[2], &NAME##_source[2], 1, 0, 0, npes,   \
					  NAME##_pwrk1, pSync1);                                 \
		for (int i = 0; i < 3; i++) {                                                    \
			TYPE want = 0;                                                           \
			for (int pe = 0; pe < npes; pe++)                                        \
				want += VALUE(pe, i);                                            \
			CHECK(NAME##_target[i] == want, #NAME " target[%d] = %Lg%+Lgi, want %Lg%+Lgi", i, \
			      (long double)creall(NAME##_target[i]), (long double)cimagl(NAME##_target[i]), \
			      (long double)creall(want), (long double)cimagl(want));             \
			CHECK(NAME##_single[i] == want, #NAME " single[%d] = %Lg%+Lgi, want %Lg%+Lgi", i, \
			      (long double)creall(NAME##_single[i]), (long double)cimagl(NAME##_single[i]), \
			      (long double)creall(want), (long double)cimagl(want));             \
		}                                                                                \
	}

#define REALV(pe, i) REAL(pe, i)
#define CPLXF(pe, i) ((float)REAL(pe, i) + (float)IMAG(pe, i) * I)
#define CPLXD(pe, i) ((double)REAL(pe, i) + (double)IMAG(pe, i) * I)

EXAMPLE2(short, short, REALV)
EXAMPLE2(int, int, REALV)
EXAMPLE2(long, long, REALV)
EXAMPLE2(long long, longlong, REALV)
EXAMPLE2(float, float, REALV)
EXAMPLE2(double, double, REALV)
EXAMPLE2(long double, longdouble, REALV)
EXAMPLE2(float complex, complexf, CPLXF)
EXAMPLE2(double complex, complexd, CPLXD)

int main(void)
{
	shmem_init();
	int me = shmem_my_pe(), npes = shmem_n_pes();
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		pSync[i] = pSync1[i] = pSync2[i] = SHMEM_SYNC_VALUE;
	foo = me + 1;
	shmem_barrier_all(); /* every PE's pSync is initialized */

	if (me % 2 == 0) {
		shmem_int_sum_to_all(&foosum, &foo, NR, 0, 1, (npes + 1) / 2, pWrk, pSync);
		printf("Result on PE %d is %d\n", me, foosum);
		int want = 0;
		for (int pe = 0; pe < npes; pe += 2)
			want += pe + 1;
		CHECK(foosum == want, "foosum = %d, want %d", foosum, want);
	}

	example2_short();
	example2_int();
	example2_long();
	example2_longlong();
	example2_float();
	example2_double();
	example2_longdouble();
	example2_complexf();
	example2_complexd();

	shmem_finalize();
	return errors != 0;
}
