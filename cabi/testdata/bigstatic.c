/* A program whose static data is large beside its heap (as OSU's osu_oshm_put_mr: 200 MB of
 * static buffer, then 200 MB of shmem_malloc at the default 256 MB heap): the heap keeps the
 * size SHMEM_SYMMETRIC_SIZE asks for, the static data comes beside it. It allocates argv[1]
 * bytes, then every PE writes its number into the last byte of its right neighbour's static
 * array and of its block, and checks what its left neighbour wrote. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define STATIC_BYTES (64 << 20)

static char big[STATIC_BYTES];

int main(int argc, char **argv)
{
	shmem_init();
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1 << 20;
	char *block = shmem_malloc(n);
	if (!block) {
		fprintf(stderr, "PE %d: shmem_malloc(%zu) failed\n", shmem_my_pe(), n);
		return 1;
	}
	int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;
	shmem_char_p(&big[STATIC_BYTES - 1], (char)(right + 1), right);
	shmem_char_p(&block[n - 1], (char)(right + 2), right);
	shmem_barrier_all();
	if (big[STATIC_BYTES - 1] != (char)(me + 1) || block[n - 1] != (char)(me + 2)) {
		fprintf(stderr, "PE %d: from PE %d got %d and %d\n", me, left, big[STATIC_BYTES - 1], block[n - 1]);
		return 1;
	}
	shmem_free(block);
	if (me == 0)
		printf("%d PEs: %zu bytes of heap beside %d of static data\n", npes, n, STATIC_BYTES);
	shmem_finalize();
	return 0;
}
