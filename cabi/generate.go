//go:build linux && cgo

package main

// The header include/shmem.h, the C entry points zshmem.c and the Go tables zcabi.go are
// generated from gen/tables by gen/cabigen:
//go:generate go run -C ../gen ./cabigen -root ..
