/* Programmer errors and run-time conditions, one per case named by argv[1]: the library
 * must report each with a message that names the C routine and the argument. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long s_word;
static int s_int[2];
char big_static_data[32 << 20]; /* beside a 16M heap under shmemrun; through a wrapper script it does not fit in one */

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	long word = 0;
	if (strcmp(c, "before-init") == 0)
		return shmem_my_pe();
	if (strcmp(c, "put-before-init") == 0)
		shmem_putmem(&s_word, &word, sizeof word, 0);
	if (strcmp(c, "quiet-before-init") == 0)
		shmem_quiet();
	shmem_init();
	int npes = shmem_n_pes();
	long *heap = shmem_calloc(16, sizeof(long));
	long local = 0;
	int stack_int = 0;
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
	else if (strcmp(c, "p-pe") == 0)
		shmem_long_p(heap, 1, -1);
	else if (strcmp(c, "g-pe") == 0)
		local = shmem_int_g((int *)heap, npes);
	else if (strcmp(c, "amo-pe") == 0)
		local = shmem_long_atomic_fetch_add(&s_word, 1, npes);
	else if (strcmp(c, "amo-stack") == 0)
		local = shmem_int_atomic_fetch_inc(&stack_int, 0);
	else if (strcmp(c, "get-heap-end") == 0)
		shmem_getmem(&word, heap, (size_t)1 << 40, 0);
	else if (strcmp(c, "static-align") == 0)
		shmem_int_atomic_set((int *)((char *)&s_int[1] + 2), 1, 0);
	else if (strcmp(c, "test-stack") == 0)
		local = shmem_long_test(&local, SHMEM_CMP_EQ, 0);
	else if (strcmp(c, "test-cmp") == 0)
		local = shmem_int_test(&s_int[0], -1, 0);
	else if (strcmp(c, "collect-overlap") == 0) /* dest's 2 elements reach source: known only from the total */
		shmem_long_collect(SHMEM_TEAM_WORLD, heap, heap + 1, 1);
	else if (strcmp(c, "signal-op") == 0)
		shmem_putmem_signal(heap, &local, sizeof local, (uint64_t *)heap + 8, 1, 7, 0);
	else if (strcmp(c, "get-null") == 0)
		shmem_getmem(NULL, heap, 8, 0);
	else if (strcmp(c, "ctx-destroyed") == 0) {
		shmem_ctx_t ctx;
		shmem_ctx_create(0, &ctx);
		shmem_ctx_destroy(ctx);
		shmem_ctx_long_p(ctx, heap, 1, 0);
	} else if (strcmp(c, "ctx-team-pe") == 0) {
		shmem_team_t one;
		shmem_ctx_t ctx = SHMEM_CTX_INVALID;
		shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, 1, NULL, 0, &one);
		if (one != SHMEM_TEAM_INVALID)
			shmem_team_create_ctx(one, 0, &ctx);
		shmem_ctx_long_atomic_add(ctx, heap, 1, 1); /* PE 1 of a one-PE team; nothing on the others */
	} else if (strcmp(c, "ctx-default-destroy") == 0)
		shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
	else if (strcmp(c, "pe-quiet-pe") == 0) {
		int pes[2] = {0, npes};
		shmem_pe_quiet(pes, 2);
	} else if (strcmp(c, "pe-quiet-null") == 0)
		shmem_pe_quiet(NULL, 1);
	else if (strcmp(c, "pe-quiet-negative") == 0) {
		int pes[1] = {0};
		shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, pes, (size_t)-2);
	} else if (strcmp(c, "scan-team") == 0)
		shmem_long_sum_inscan(SHMEM_TEAM_INVALID, heap, heap, 1);
	else if (strcmp(c, "scan-overlap") == 0)
		shmem_long_sum_exscan(SHMEM_TEAM_WORLD, heap + 1, heap, 4);
	else if (strcmp(c, "session-options") == 0)
		shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 1L << 9, NULL, 0);
	else if (strcmp(c, "session-config") == 0)
		shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, SHMEM_CTX_SESSION_TOTAL_OPS);
	else if (strcmp(c, "to-all-outside") == 0) {
		/* PE 1 calls a reduction over the active set {PE 0}: nothing happens (Open MPI's way). */
		static int d[1], src[1] = {5}, w[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
		static long double ld[1], lsrc[1] = {2.5L}, lw[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
		static long ps[SHMEM_REDUCE_SYNC_SIZE], ps2[SHMEM_REDUCE_SYNC_SIZE];
		d[0] = -1;
		ld[0] = -1;
		shmem_int_sum_to_all(d, src, 1, 0, 0, 1, w, ps);
		shmem_longdouble_max_to_all(ld, lsrc, 1, 0, 0, 1, lw, ps2);
		printf("PE %d: dest %d %.1Lf\n", shmem_my_pe(), d[0], ld[0]);
	} else if (strcmp(c, "lock-stack") == 0)
		shmem_set_lock(&local);
	else if (strcmp(c, "static-too-big") == 0)
		big_static_data[0] = 1; /* through a wrapper script not reached: shmem_init fails */
	else if (strcmp(c, "exhausted") == 0) {
		void *p = shmem_malloc((size_t)1 << 46);
		printf("shmem_malloc returned %s\n", p ? "memory" : "NULL");
	} else if (strcmp(c, "probe-heap") == 0) {
		/* A program probing the heap's size: halve the request until one fits. */
		size_t size = (size_t)1 << 50;
		void *p;
		while ((p = shmem_malloc(size)) == NULL)
			size /= 2;
		printf("the heap holds %zu bytes\n", size);
		shmem_free(p);
	} else if (strcmp(c, "global-exit") == 0) {
		printf("exiting with 3\n");
		shmem_global_exit(3);
	} else if (strcmp(c, "global-exit-others") == 0) {
		/* PE 0's line stays in its stdio buffer (stdout is a pipe) while it computes
		 * outside the library; PE 1's global exit must not lose it. */
		if (shmem_my_pe() == 0) {
			printf("PE 0 buffered this line\n");
			for (;;)
				sleep(1);
		}
		sleep(1);
		shmem_global_exit(5);
	} else if (strcmp(c, "iput-stride") == 0) {
		shmem_long_iput(heap + 1, &local, PTRDIFF_MAX / 2 + 1, 1, 3, 0);
	} else if (strcmp(c, "iget-stride") == 0) {
		shmem_long_iget(&local, heap, PTRDIFF_MAX / 2 + 1, 1, 3, 0);
	} else if (strcmp(c, "put-count") == 0) {
		shmem_long_put(heap, &local, SIZE_MAX / 8 + 2, 0); /* 8 bytes once wrapped */
	} else if (strcmp(c, "alltoall-count") == 0) {
		shmem_long_alltoall(SHMEM_TEAM_WORLD, heap, heap + 8, (size_t)1 << 62);
	} else if (strcmp(c, "alloc-overflow") == 0) {
		/* Each must fail alike on every PE, with NULL and a message, and not hand out the
		 * next real allocation's address. */
		void *p[4] = {shmem_malloc(SIZE_MAX), shmem_malloc(-1 * sizeof(long)), shmem_realloc(heap, SIZE_MAX), shmem_align(64, SIZE_MAX)};
		void *next = shmem_malloc(64);
		for (int i = 0; i < 4; i++)
			printf("allocation %d: %s\n", i, p[i] == NULL ? "NULL" : p[i] == next ? "the next allocation's address" : "memory");
	} else if (strcmp(c, "global-exit-256") == 0) {
		shmem_global_exit(256);
	}
	shmem_finalize();
	if (strcmp(c, "after-finalize") == 0)
		return shmem_my_pe();
	if (strcmp(c, "amo-after-finalize") == 0)
		shmem_long_atomic_inc(&s_word, 0);
	if (strcmp(c, "fence-after-finalize") == 0)
		shmem_fence();
	if (strcmp(c, "ptr-after-finalize") == 0)
		return shmem_ptr(&s_word, 0) != NULL;
	return 0;
}
