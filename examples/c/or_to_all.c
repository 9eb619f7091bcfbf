/* The examples of SHMEM_OR(3) in C.
 *
 * Example 1, Fortran on the page: pSync is initialized once, before first use, and the
 * bitwise OR of foo is found across the even PEs (PE_start 0, logPE_stride 1). foo, fooor
 * and pWrk are static, as the page's COMMON block is: symmetric without shmem_malloc.
 *
 * Example 2: one call reducing three elements equals three one-element calls that
 * alternate two pWrk and pSync pairs, with no synchronization between the calls; here for
 * every type of the family (short, int, long, long long), across all PEs. */
#include <shmem.h>
#include <stdio.h>

#define NR 1
#define WRK(n) ((n) / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? (n) / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE)

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSync1[SHMEM_REDUCE_SYNC_SIZE], pSync2[SHMEM_REDUCE_SYNC_SIZE];
static long pWrk[WRK(NR)];
static long foo, fooor;

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

/* Example 2 for one type: source[i] has bit (pe + i) % width set on PE pe. */
#define EXAMPLE2(TYPE, NAME)                                                                     \
	static TYPE NAME##_target[3], NAME##_source[3], NAME##_single[3];                        \
	static TYPE NAME##_pwrk1[WRK(1)], NAME##_pwrk2[WRK(1)], NAME##_pwrk[WRK(3)];               \
	static void example2_##NAME(void)                                                        \
	{                                                                                        \
		int me = shmem_my_pe(), npes = shmem_n_pes(), width = 8 * (int)sizeof(TYPE) - 1; \
		for (int i = 0; i < 3; i++)                                                      \
			NAME##_source[i] = (TYPE)1 << ((me + i) % width);                        \
		shmem_barrier_all();                                                             \
		shmem_##NAME##_or_to_all(NAME##_target, NAME##_source, 3, 0, 0, npes, NAME##_pwrk, pSync); \
		shmem_##NAME##_or_to_all(&NAME##_single[0], &NAME##_source[0], 1, 0, 0, npes,    \
					 NAME##_pwrk1, pSync1);                                  \
		shmem_##NAME##_or_to_all(&NAME##_single[1], &NAME##_source[1], 1, 0, 0, npes,    \
					 NAME##_pwrk2, pSync2);                                  \
		shmem_##NAME##_or_to_all(&NAME##_single[2], &NAME##_source[2], 1, 0, 0, npes,    \
					 NAME##_pwrk1, pSync1);                                  \
		for (int i = 0; i < 3; i++) {                                                    \
			TYPE want = 0;                                                           \
			for (int pe = 0; pe < npes; pe++)                                        \
				want |= (TYPE)1 << ((pe + i) % width);                           \
			CHECK(NAME##_target[i] == want, #NAME " target[%d] = %lld, want %lld", i, \
			      (long long)NAME##_target[i], (long long)want);                     \
			CHECK(NAME##_single[i] == want, #NAME " single[%d] = %lld, want %lld", i, \
			      (long long)NAME##_single[i], (long long)want);                     \
		}                                                                                \
	}

EXAMPLE2(short, short)
EXAMPLE2(int, int)
EXAMPLE2(long, long)
EXAMPLE2(long long, longlong)

int main(void)
{
	shmem_init();
	int me = shmem_my_pe(), npes = shmem_n_pes();
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		pSync[i] = pSync1[i] = pSync2[i] = SHMEM_SYNC_VALUE;
	foo = 1L << me;
	shmem_barrier_all(); /* every PE's pSync is initialized */

	if (me % 2 == 0) {
		shmem_long_or_to_all(&fooor, &foo, NR, 0, 1, (npes + 1) / 2, pWrk, pSync);
		printf("Result on PE %d is %ld\n", me, fooor);
		long want = 0;
		for (int pe = 0; pe < npes; pe += 2)
			want |= 1L << pe;
		CHECK(fooor == want, "fooor = %#lx, want %#lx", fooor, want);
	}

	example2_short();
	example2_int();
	example2_long();
	example2_longlong();

	shmem_finalize();
	return errors != 0;
}
