/* Pre-1.1 programs: the header at mpp/shmem.h, the underscore spellings of the constants
 * (also _SHMEM_ALLTOALL(S)_SYNC_SIZE, which Open MPI's OSHMEM defines), start_pes, _my_pe,
 * _num_pes and shmalloc; and the extensions' headers, which the specification requires to
 * exist. Built with -Werror by TestLegacyNames, run at 2 PEs. */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <shmemx.h>
#include <stdio.h>

#define SAME(old, new) _Static_assert((old) == (new), #old " differs from " #new)
SAME(_SHMEM_SYNC_VALUE, SHMEM_SYNC_VALUE);
SAME(_SHMEM_BARRIER_SYNC_SIZE, SHMEM_BARRIER_SYNC_SIZE);
SAME(_SHMEM_BCAST_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE);
SAME(_SHMEM_COLLECT_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE);
SAME(_SHMEM_REDUCE_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE);
SAME(_SHMEM_ALLTOALL_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE);
SAME(_SHMEM_ALLTOALLS_SYNC_SIZE, SHMEM_ALLTOALLS_SYNC_SIZE);
SAME(_SHMEM_REDUCE_MIN_WRKDATA_SIZE, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
SAME(_SHMEM_CMP_EQ, SHMEM_CMP_EQ);
SAME(_SHMEM_CMP_GE, SHMEM_CMP_GE);
SAME(_SHMEM_MAJOR_VERSION, SHMEM_MAJOR_VERSION);

static long pSync[_SHMEM_ALLTOALL_SYNC_SIZE];

int main(void) {
	start_pes(0);
	for (int i = 0; i < _SHMEM_ALLTOALL_SYNC_SIZE; i++) pSync[i] = _SHMEM_SYNC_VALUE;
	int me = _my_pe(), n = _num_pes();
	long *src = shmalloc(n * sizeof(long)), *dst = shmalloc(n * sizeof(long));
	for (int i = 0; i < n; i++) src[i] = me * 100 + i;
	shmem_barrier_all();
	shmem_alltoall64(dst, src, 1, 0, 0, n, pSync);
	int ok = 1;
	for (int i = 0; i < n; i++) ok &= dst[i] == i * 100 + me;
	printf("PE %d of %d: alltoall %s\n", me, n, ok ? "ok" : "wrong");
	shfree(src);
	shfree(dst);
	return !ok;
}
