/* See cabi.h: the job as the C fast path sees it, zero until shmem_init publishes it. */
#include "cabi.h"

struct goshmem_fastpath goshmem_fp;

/* SHMEM_CTX_DEFAULT's target (shmem.h); its contents are never read. */
struct goshmem_ctx goshmem_ctx_default = {0, 1, 0, 1, 0};
