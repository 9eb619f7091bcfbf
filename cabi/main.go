//go:build linux && cgo

// Command cabi is libgoshmem, goshmem's OpenSHMEM 1.6 C library, declared by
// include/shmem.h. Build it as a shared library or an archive:
//
//	go build -buildmode=c-shared  -o libgoshmem.so ./cabi
//	go build -buildmode=c-archive -o libgoshmem.a  ./cabi
//
// (cmd/shmemcc does this on first use and links C programs against it).
//
// Every C routine of the header is a small generated C function (zshmem.c) that calls one
// exported Go function of this package with a routine number: one cgo transition per call.
// The one-sided routines (puts, gets, atomics, quiet, fence, shmem_ptr, waits on a local
// variable) first do their common case in C, without a transition (fastpath.h, fastpath.go).
// The Go side works on the engine (package rt) with byte counts where it can; the routine
// number names the C routine in every panic and hang report. Typed families are generated
// from gen/tables by gen/cabigen; long double, which Go lacks, is reduced in C (longdouble.c).
// A C program's static data is made symmetric at shmem_init (static.go, cstatic.c).
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2
#include <stdio.h>
#include "shmem.h"
#include "cabi.h"
*/
import "C"

func main() {}
