/* Programmer errors and run-time conditions, one per case named by argv[1]: the library
 * must report each with a message that names the C routine and the argument. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static long s_word;
char big_static_data[32 << 20]; /* with SHMEM_SYMMETRIC_SIZE=16M the static data does not fit */

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	if (strcmp(c, "before-init") == 0)
		return shmem_my_pe();
	shmem_init();
	int npes = shmem_n_pes();
	long *heap = shmem_calloc(16, sizeof(long));
	long local = 0;
	printf("case %s on PE %d\n", c, shmem_my_pe());
	if (strcmp(c, "pe") == 0)
		shmem_putmem(heap, &local, sizeof local, npes + 7);
	else if (strcmp(c, "stack") == 0)
		shmem_long_put(&local, heap, 1, 0);
	else if (strcmp(c, "cmp") == 0)
		shmem_long_wait_until(heap, 42, 0);
	else if (strcmp(c, "align") == 0)
		shmem_long_atomic_add((long *)((char *)heap + 4), 1, 0);
	else if (strcmp(c, "team") == 0)
		shmem_team_sync((shmem_team_t)99);
	else if (strcmp(c, "null") == 0)
		shmem_putmem(heap, NULL, 8, 0);
	else if (strcmp(c, "static-overrun") == 0)
		shmem_long_get(heap, &s_word, 1 << 30, 0);
	else if (strcmp(c, "active-set") == 0)
		shmem_barrier(0, 0, npes + 1, heap);
	else if (strcmp(c, "static-too-big") == 0)
		big_static_data[0] = 1; /* not reached: shmem_init fails */
	else if (strcmp(c, "exhausted") == 0) {
		void *p = shmem_malloc((size_t)1 << 46);
		printf("shmem_malloc returned %s\n", p ? "memory" : "NULL");
	} else if (strcmp(c, "global-exit") == 0) {
		printf("exiting with 3\n");
		shmem_global_exit(3);
	}
	shmem_finalize();
	if (strcmp(c, "after-finalize") == 0)
		return shmem_my_pe();
	return 0;
}
