//go:build !goshmem_ucx

package main

// builtWithUCXTag: plain go test skips the multi-node test, which builds and launches
// three programs across fake nodes (minutes on a loaded machine).
const builtWithUCXTag = false
