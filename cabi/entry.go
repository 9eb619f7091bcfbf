//go:build linux && cgo

package main

// #include <stdio.h>
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	rt "github.com/goshmem/shmem/runtime"
)

// Every exported function takes the calling C routine's number first (zroutines.go lists
// the names, zshmem.c passes them) and defers catch: a Go panic becomes one line naming the
// C routine, "panic: shmem_putmem: PE 9 out of range [0,8)", which is the line the launcher
// reports, and the PE exits with status 2 instead of printing a cgo traceback.

// name is routine r's C name.
func name(r int32) string {
	if uint32(r) < uint32(len(routineNames)) {
		return routineNames[r]
	}
	return "libgoshmem"
}

// catch is deferred by every entry point that can panic.
func catch(r int32) {
	if v := recover(); v != nil {
		die(name(r), v)
	}
}

// die prints the panic's message as C's routine name says it and ends the PE. C's stdio
// buffers are flushed first so the program's own output is not lost.
func die(who string, v any) {
	C.fflush(nil)
	os.Stderr.WriteString("panic: " + cMessage(who, v) + "\n")
	os.Exit(2)
}

// cMessage is a panic value as a message about C routine who. Messages of the engine
// already start with who; those of the Go API start with its name ("shmem.TestSome: ..."),
// which becomes who; anything else (a runtime error: a bad pointer, say) gets who in front.
func cMessage(who string, v any) string {
	var s string
	switch e := v.(type) {
	case runtime.Error:
		s = "runtime error: " + strings.TrimPrefix(e.Error(), "runtime error: ")
	case error:
		s = e.Error()
	case string:
		s = e
	default:
		s = fmt.Sprint(v)
	}
	switch {
	case strings.HasPrefix(s, who+":"):
	case strings.HasPrefix(s, "shmem."):
		if i := strings.Index(s, ": "); i > 0 && !strings.Contains(s[:i], " ") {
			s = who + s[i:]
		} else {
			s = who + ": " + s
		}
	default:
		s = who + ": " + s
	}
	return goNames.Replace(s)
}

// goNames maps the Go API's names that messages mention onto the C API's.
var goNames = strings.NewReplacer(
	"shmem.Init", "shmem_init",
	"shmem.Finalize", "shmem_finalize",
	"shmem.Malloc", "shmem_malloc",
	"SyncValue", "SHMEM_SYNC_VALUE",
	"ReduceMinWrkDataSize", "SHMEM_REDUCE_MIN_WRKDATA_SIZE",
	"dst and src overlap", "dest and source overlap",
	": dst holds ", ": dest holds ",
)

// warned holds the routines that have reported a failure (by the message's routine name).
var warned sync.Map

// warn reports a condition a correct program can meet (the heap is exhausted) for a
// routine whose C form can only return NULL or an error code: once per routine, as a
// program probing the heap's size fails on purpose, or every time under SHMEM_DEBUG.
func warn(err error) {
	msg := goNames.Replace(err.Error())
	routine, _, _ := strings.Cut(msg, ":")
	if _, seen := warned.LoadOrStore(routine, true); seen && !rt.Debug() {
		return
	}
	if !rt.Debug() {
		msg += " (reported once; SHMEM_DEBUG=1 reports every failure)"
	}
	C.fflush(nil)
	os.Stderr.WriteString("libgoshmem: " + msg + "\n")
}
