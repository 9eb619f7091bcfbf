// Heap stress (a vendor suite's failure): allocate up to near the heap's size, realloc up and
// down, random sizes, free; contents and symmetry checked throughout. Run with
// SHMEM_SYMMETRIC_SIZE=256M: 253 MB must be allocatable.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB (1024L * 1024L)

static int me, npes;

static void fail(const char *what, long a, long b) {
	printf("PE %d: %s (%ld, %ld)\n", me, what, a, b);
	fflush(stdout);
	shmem_global_exit(1);
}

// fill writes a pattern of seed over n bytes; check verifies its first n bytes.
static void fill(unsigned char *p, size_t n, unsigned seed) {
	for (size_t i = 0; i < n; i += 4093) p[i] = (unsigned char)(seed + i / 4093);
	if (n) p[n - 1] = (unsigned char)(seed * 7);
}
static void check(const unsigned char *p, size_t n, size_t full, unsigned seed, const char *what) {
	for (size_t i = 0; i < n && i < full - 1; i += 4093)
		if (p[i] != (unsigned char)(seed + i / 4093)) fail(what, (long)i, p[i]);
}

// symmetric checks every PE got the same offset from the heap's first block: each puts its
// offset into PE 0's table.
static long *table;
static char *base;
static void symmetric(void *p, const char *what) {
	long off = (char *)p - base;
	shmem_long_p(&table[me], off, 0);
	shmem_barrier_all();
	if (me == 0)
		for (int i = 1; i < npes; i++)
			if (table[i] != table[0]) fail(what, table[i], table[0]);
	shmem_barrier_all();
}

int main(void) {
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	table = shmem_calloc(npes, sizeof(long));
	base = (char *)table;

	// 253 MB in one block, then realloc'ed to 254 MB (in place) and back down.
	unsigned char *big = shmem_malloc(253 * MB);
	if (big == NULL) fail("shmem_malloc(253 MB) failed", 253, 0);
	symmetric(big, "253 MB not symmetric");
	fill(big, 253 * MB, 1);
	big = shmem_realloc(big, 254 * MB);
	if (big == NULL) fail("shmem_realloc to 254 MB failed", 254, 0);
	check(big, 253 * MB, 253 * MB, 1, "contents after growing to 254 MB");
	symmetric(big, "254 MB not symmetric");
	big = shmem_realloc(big, 16 * MB);
	if (big == NULL) fail("shmem_realloc to 16 MB failed", 16, 0);
	check(big, 16 * MB, 253 * MB, 1, "contents after shrinking to 16 MB");
	// The shrink gave its tail back: another 200 MB fits beside it.
	unsigned char *other = shmem_malloc(200 * MB);
	if (other == NULL) fail("the shrunk block's tail was not freed", 200, 0);
	symmetric(other, "200 MB not symmetric");
	shmem_free(other);
	shmem_free(big);

	// Random sizes (the same sequence on every PE: allocation is collective), about the
	// heap's size in total, realloc'ed up and down, freed at random; every block's contents
	// checked after every step, and a peer's copy of a block read back.
	enum { NB = 48 };
	unsigned char *blk[NB] = {0};
	size_t len[NB] = {0};
	unsigned seed[NB] = {0};
	srand(12345);
	for (int step = 0; step < 600; step++) {
		int i = rand() % NB, op = rand() % 4;
		size_t n = (size_t)(rand() % 12) * MB + (size_t)(rand() % 65536);
		if (op == 0 && blk[i] != NULL) {
			shmem_free(blk[i]);
			blk[i] = NULL, len[i] = 0;
		} else if (blk[i] == NULL) {
			unsigned char *p = shmem_malloc(n);
			if (p == NULL) continue; // the heap may be full: a correct outcome, on every PE alike
			blk[i] = p, len[i] = n, seed[i] = (unsigned)step * 31 + (unsigned)me;
			fill(p, n, seed[i]);
			symmetric(p, "random block not symmetric");
		} else {
			unsigned char *p = shmem_realloc(blk[i], n);
			if (p == NULL && n != 0) {
				check(blk[i], len[i], len[i], seed[i], "contents after a failed realloc");
				continue;
			}
			if (n == 0) { blk[i] = NULL, len[i] = 0; continue; }
			size_t keep = len[i] < n ? len[i] : n;
			check(p, keep, len[i], seed[i], "contents after realloc");
			blk[i] = p, len[i] = n;
			fill(p, n, seed[i]);
			symmetric(p, "realloc'ed block not symmetric");
		}
		for (int k = 0; k < NB; k++)
			if (blk[k]) check(blk[k], len[k], len[k], seed[k], "another block's contents");
	}
	// A peer's block holds the peer's pattern.
	for (int k = 0; k < NB; k++) {
		if (blk[k] == NULL || len[k] < 2) continue;
		int peer = (me + 1) % npes;
		unsigned char c;
		shmem_getmem(&c, blk[k], 1, peer);
		if (c != (unsigned char)(seed[k] - (unsigned)me + (unsigned)peer)) fail("peer's block", c, k);
		shmem_free(blk[k]);
	}
	// Everything is free again: the whole heap less the table is one block.
	unsigned char *all = shmem_malloc(255 * MB);
	if (all == NULL) fail("255 MB after freeing everything", 255, 0);
	shmem_free(all);
	shmem_barrier_all();
	if (me == 0) printf("heapstress: ok\n");
	shmem_finalize();
	return 0;
}
