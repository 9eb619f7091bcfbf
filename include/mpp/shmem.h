/* mpp/shmem.h: where SGI's and Cray's SHMEM kept the header. OpenSHMEM 1.1 deprecated this
 * location; it stays, as in Open MPI's OSHMEM and OSSS, for the programs that include it. */
#include <shmem.h>
