#define _DEFAULT_SOURCE /* on_exit */
/* Implicit finalization (deprecated since OpenSHMEM 1.2, still required): a program that
 * returns from main or calls exit(0) after shmem_init without shmem_finalize ends as if it
 * had called it. A non-zero status is a failure: the PE then leaves without the finalizing
 * barrier, which PEs that failed elsewhere would never reach, and the launcher reports it. */
#include <stdlib.h>

#include "_cgo_export.h"
#include "cabi.h"

static void goshmem_at_exit(int status, void *arg)
{
	(void)arg;
	if (status == 0 && goshmem_fp.npes)
		shmem_finalize();
}

void goshmem_implicit_finalize(void)
{
	static int registered;
	if (!__atomic_exchange_n(&registered, 1, __ATOMIC_SEQ_CST))
		on_exit(goshmem_at_exit, NULL);
}
