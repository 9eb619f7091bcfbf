/* Implicit finalization: this program returns from main (or calls exit, with the status of
 * its argument) after shmem_init (start_pes with -DSTART_PES, as the OSU benchmarks up to
 * 5.x do) without shmem_finalize; with status 0 it ends normally. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
#ifdef START_PES
	start_pes(0);
#else
	shmem_init();
#endif
	long *x = shmem_calloc(1, sizeof(long));
	shmem_long_atomic_inc(x, 0);
	shmem_barrier_all();
	if (shmem_my_pe() == 0)
		printf("counted %ld\n", *x);
	if (argc > 1)
		exit(atoi(argv[1]));
	return 0;
}
