/* See cabi.h: the job as the C fast path sees it, zero until shmem_init publishes it. */
#include "cabi.h"

struct goshmem_fastpath goshmem_fp;
