/* Each PE puts its number into its right neighbour's symmetric global; prints what it got. */
#include <stdio.h>
#include <shmem.h>

static int left = -1;

int main(void)
{
	shmem_init();
	int me = shmem_my_pe(), n = shmem_n_pes();
	shmem_int_p(&left, me, (me + 1) % n);
	shmem_barrier_all();
	printf("C: PE %d of %d has %d from its left\n", me, n, left);
	shmem_finalize();
	return left == (me + n - 1) % n ? 0 : 1;
}
