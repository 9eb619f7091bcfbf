//go:build goshmem_ucx

package main

// builtWithUCXTag: the multi-node test runs (go test -tags goshmem_ucx, as .ci/multinode).
const builtWithUCXTag = true
