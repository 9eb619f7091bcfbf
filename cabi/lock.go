//go:build linux && cgo

package main

// #include "cabi.h"
import "C"

import (
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// goshmem_lock is shmem_set_lock, shmem_test_lock (0: taken, 1: not) and shmem_clear_lock
// on the symmetric long at lock (rt's queue lock).
//
//export goshmem_lock
func goshmem_lock(r, op int32, lock unsafe.Pointer) int32 {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if lock == nil {
		panic(who + ": lock is a null pointer")
	}
	p := symCheck(who, "lock", lock, 8)
	switch op {
	case C.GOSHMEM_LOCK_SET:
		rt.SetLock(who, p)
	case C.GOSHMEM_LOCK_TEST:
		if !rt.TestLock(who, p) {
			return 1
		}
	default:
		rt.ClearLock(who, p)
	}
	return 0
}
