/* mpp/shmemx.h: shmemx.h at the header's pre-1.1 location (see mpp/shmem.h). */
#include <shmemx.h>
