// The generic names from C++ (overloads; C has _Generic): a put, a fetch-add on a
// context, a wait and a team reduction, at 2 or more PEs. TestCXXOverloads runs it.
#include <shmem.h>
#include <cstdio>

int main() {
	shmem_init();
	int me = shmem_my_pe(), n = shmem_n_pes();
	double *d = (double *)shmem_calloc(1, sizeof(double));
	unsigned long *ctr = (unsigned long *)shmem_calloc(1, sizeof(unsigned long));
	long *flag = (long *)shmem_calloc(1, sizeof(long));
	long *sum = (long *)shmem_calloc(2, sizeof(long));
	double x = 1.5 * me;
	shmem_put(d, &x, 1, (me + 1) % n);
	unsigned long before = shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, ctr, 1UL, 0);
	shmem_quiet();
	shmem_barrier_all();
	shmem_atomic_set(flag, 1L, (me + 1) % n);
	shmem_wait_until(flag, SHMEM_CMP_EQ, 1L);
	sum[0] = me;
	shmem_sync(SHMEM_TEAM_WORLD);
	shmem_sum_reduce(SHMEM_TEAM_WORLD, &sum[1], &sum[0], 1);
	int ok = *d == 1.5 * ((me + n - 1) % n) && before < (unsigned long)n && sum[1] == (long)n * (n - 1) / 2;
	shmem_barrier_all();
	if (me == 0) ok = ok && *ctr == (unsigned long)n;
	std::printf("PE %d: overloads %s\n", me, ok ? "ok" : "wrong");
	shmem_finalize();
	return !ok;
}
