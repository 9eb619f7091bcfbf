/* See cabi.h: the cached answers of shmem_my_pe and shmem_n_pes. */
#include "cabi.h"

int goshmem_me = -1, goshmem_npes = -1;
