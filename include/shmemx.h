/* shmemx.h: goshmem's extensions to OpenSHMEM. It has none: every routine goshmem provides
 * is the specification's, in shmem.h. The specification requires the file to exist, so
 * that programs that include it (for an implementation's extensions, behind their own
 * checks) build. */
#ifndef GOSHMEM_SHMEMX_H
#define GOSHMEM_SHMEMX_H
#include <shmem.h>
#endif
