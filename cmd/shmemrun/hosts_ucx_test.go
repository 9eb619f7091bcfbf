//go:build goshmem_ucx

package main

// builtWithUCX says whether this test binary has the many-node engine.
const builtWithUCX = true
