// Package ucx is goshmem's multi-node engine: PMIx (served by mpirun, prterun or
// srun --mpi=pmix) bootstraps the job, UCX UCP moves the data between nodes. It is built
// only with the tag goshmem_ucx (and cgo, on Linux); without it the runtime stays pure Go
// and single-node. The runtime (package rt) adapts it to its Transport seam.
//
// Addresses are byte offsets into the target PE's segment, which every PE registers once
// (ucp_mem_map) and publishes with its worker's address through PMIx.
package ucx
