// Package rt is goshmem's engine (import it as rt: it must never shadow the standard
// library's runtime). It maps the job's shared object, translates symmetric addresses
// between PEs, allocates the symmetric heap, waits, and runs barriers, teams and
// collectives over the PEs' memory.
//
// Everything here works on addresses and bytes; the typed, generic API is package shmem.
// Routines panic with messages that name the public routine (passed in as `who`), so the
// panics read as the user's call.
package rt
