//go:build linux && cgo

package main

import "C"

import (
	"fmt"
	"unsafe"

	"github.com/goshmem/shmem"
	rt "github.com/goshmem/shmem/runtime"
)

// Point-to-point synchronization: wait_until and test with their _all, _any, _some and
// _vector forms, for the 14 C types of the spec's table, which map onto the Go API's Sync
// types (zshmem.c passes the Go type's index in gen/tables.Types and the comparison value's
// bits). The test sets, their fairness and the waiting are the Go API's; its messages name
// the C routine (see cMessage). Indices are size_t, Go's int; status is int, Go's int32.

// syncFuncs are the routines for one element type (syncByType, zcabi.go, lists them).
type syncFuncs struct {
	size      uintptr
	waitUntil func(ivar unsafe.Pointer, cmp int32, v uint64)
	test      func(ivar unsafe.Pointer, cmp int32, v uint64) bool
	all       func(wait bool, s testSet) bool
	anyOf     func(wait bool, s testSet) int
	some      func(wait bool, s testSet, indices []int) int
}

// testSet is a call's arguments: the local ivars, the optional status mask, the comparison
// and either one value or, for the _vector forms, an array of them.
type testSet struct {
	ivars  unsafe.Pointer
	n      int
	status []int32
	cmp    shmem.Cmp
	v      uint64
	values unsafe.Pointer // non-nil: a _vector form
}

func syncFor[T shmem.Sync]() *syncFuncs {
	slices := func(s testSet) (ivars, values []T) {
		ivars = unsafe.Slice((*T)(s.ivars), s.n)
		if s.values != nil {
			values = unsafe.Slice((*T)(s.values), s.n)
		}
		return ivars, values
	}
	return &syncFuncs{
		size: unsafe.Sizeof(*new(T)),
		waitUntil: func(ivar unsafe.Pointer, cmp int32, v uint64) {
			shmem.WaitUntil((*T)(ivar), shmem.Cmp(cmp), T(v))
		},
		test: func(ivar unsafe.Pointer, cmp int32, v uint64) bool {
			return shmem.Test((*T)(ivar), shmem.Cmp(cmp), T(v))
		},
		all: func(wait bool, s testSet) bool {
			iv, vals := slices(s)
			switch {
			case wait && vals != nil:
				shmem.WaitUntilAllVector(iv, s.status, s.cmp, vals)
			case wait:
				shmem.WaitUntilAll(iv, s.status, s.cmp, T(s.v))
			case vals != nil:
				return shmem.TestAllVector(iv, s.status, s.cmp, vals)
			default:
				return shmem.TestAll(iv, s.status, s.cmp, T(s.v))
			}
			return true
		},
		anyOf: func(wait bool, s testSet) int {
			iv, vals := slices(s)
			switch {
			case wait && vals != nil:
				return shmem.WaitUntilAnyVector(iv, s.status, s.cmp, vals)
			case wait:
				return shmem.WaitUntilAny(iv, s.status, s.cmp, T(s.v))
			case vals != nil:
				return shmem.TestAnyVector(iv, s.status, s.cmp, vals)
			}
			return shmem.TestAny(iv, s.status, s.cmp, T(s.v))
		},
		some: func(wait bool, s testSet, indices []int) int {
			iv, vals := slices(s)
			switch {
			case wait && vals != nil:
				return shmem.WaitUntilSomeVector(iv, indices, s.status, s.cmp, vals)
			case wait:
				return shmem.WaitUntilSome(iv, indices, s.status, s.cmp, T(s.v))
			case vals != nil:
				return shmem.TestSomeVector(iv, indices, s.status, s.cmp, vals)
			}
			return shmem.TestSome(iv, indices, s.status, s.cmp, T(s.v))
		},
	}
}

func syncType(who string, ti int32) *syncFuncs {
	if uint32(ti) < uint32(len(syncByType)) && syncByType[ti] != nil {
		return syncByType[ti]
	}
	panic(fmt.Sprintf("%s: type %d has no synchronization routines", who, ti))
}

// newTestSet checks and translates a call's arrays.
func newTestSet(who string, f *syncFuncs, ivars unsafe.Pointer, nelems uintptr, status unsafe.Pointer, cmp int32, v uint64, values unsafe.Pointer, vector int32) testSet {
	n := count(who, nelems)
	s := testSet{ivars: symCheck(who, "ivars", ivars, rt.Bytes(who, "ivars", n, f.size)), n: n, cmp: shmem.Cmp(cmp), v: v}
	if status != nil {
		s.status = unsafe.Slice((*int32)(status), n)
	}
	if vector != 0 {
		if values == nil && n > 0 {
			panic(who + ": cmp_values is a null pointer")
		}
		s.values = values
	}
	return s
}

//export goshmem_wait_until
func goshmem_wait_until(r, ti int32, ivar unsafe.Pointer, cmp int32, value uint64) {
	defer catch(r)
	who := name(r)
	f := syncType(who, ti)
	f.waitUntil(symCheck(who, "ivar", ivar, f.size), cmp, value)
}

//export goshmem_test
func goshmem_test(r, ti int32, ivar unsafe.Pointer, cmp int32, value uint64) int32 {
	defer catch(r)
	who := name(r)
	f := syncType(who, ti)
	return b2i(f.test(symCheck(who, "ivar", ivar, f.size), cmp, value))
}

// goshmem_all is wait_until_all (wait != 0) and test_all, and their _vector forms
// (vector != 0, values holding cmp_values).
//
//export goshmem_all
func goshmem_all(r, ti, wait int32, ivars unsafe.Pointer, nelems uintptr, status unsafe.Pointer, cmp int32, value uint64, values unsafe.Pointer, vector int32) int32 {
	defer catch(r)
	who := name(r)
	f := syncType(who, ti)
	return b2i(f.all(wait != 0, newTestSet(who, f, ivars, nelems, status, cmp, value, values, vector)))
}

// goshmem_any is wait_until_any and test_any: an index, or SIZE_MAX for none.
//
//export goshmem_any
func goshmem_any(r, ti, wait int32, ivars unsafe.Pointer, nelems uintptr, status unsafe.Pointer, cmp int32, value uint64, values unsafe.Pointer, vector int32) uintptr {
	defer catch(r)
	who := name(r)
	f := syncType(who, ti)
	return uintptr(f.anyOf(wait != 0, newTestSet(who, f, ivars, nelems, status, cmp, value, values, vector)))
}

// goshmem_some is wait_until_some and test_some: the number of indices written.
//
//export goshmem_some
func goshmem_some(r, ti, wait int32, ivars unsafe.Pointer, nelems uintptr, indices, status unsafe.Pointer, cmp int32, value uint64, values unsafe.Pointer, vector int32) uintptr {
	defer catch(r)
	who := name(r)
	f := syncType(who, ti)
	s := newTestSet(who, f, ivars, nelems, status, cmp, value, values, vector)
	if indices == nil && s.n > 0 {
		panic(who + ": indices is a null pointer")
	}
	return uintptr(f.some(wait != 0, s, unsafe.Slice((*int)(indices), s.n)))
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
