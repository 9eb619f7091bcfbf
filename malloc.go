package shmem

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Malloc allocates n elements of T on the symmetric heap of every PE: a collective call
// that every PE makes with the same n, returning at the same offset everywhere, aligned to
// at least 64 bytes. It ends with a barrier, so no PE writes a peer's copy before the peer
// has allocated it. T must hold no Go pointers (the garbage collector cannot see the heap).
// A heap too small for the request is an error on every PE, naming SHMEM_SYMMETRIC_SIZE.
func Malloc[T any](n int) ([]T, error) { return alloc[T]("shmem.Malloc", n, 0, false) }

// Calloc is Malloc with the memory zeroed, before the closing barrier: a peer may write into
// it as soon as Calloc returns anywhere.
func Calloc[T any](n int) ([]T, error) { return alloc[T]("shmem.Calloc", n, 0, true) }

// Align is Malloc with the block aligned to align bytes (a power of two).
func Align[T any](align uintptr, n int) ([]T, error) {
	return alloc[T]("shmem.Align", n, align, false)
}

func alloc[T any](who string, n int, align uintptr, zero bool) ([]T, error) {
	size := checkAlloc[T](who, n)
	rt.DebugAgree(who, "element counts", uint64(n))
	if align == 0 {
		align = unsafe.Alignof(*new(T))
	}
	p, err := rt.Malloc(who, size, align, zero)
	if err != nil || p == nil {
		return nil, err
	}
	return unsafe.Slice((*T)(p), n), nil
}

func checkAlloc[T any](who string, n int) uintptr {
	rt.Check(who)
	if n < 0 {
		panic(fmt.Sprintf("%s: negative element count %d", who, n))
	}
	checkNoPointers[T](who)
	size := sizeOf[T]()
	if size != 0 && uintptr(n) > ^uintptr(0)/size {
		panic(fmt.Sprintf("%s: %d elements of %d bytes overflow", who, n, size))
	}
	return uintptr(n) * size
}

// Free releases a block from Malloc, Calloc, Align or Realloc, on every PE, after a barrier.
// The slice must start where the allocation starts.
func Free[T any](s []T) {
	if cap(s) == 0 {
		rt.Check("shmem.Free")
		return
	}
	rt.Free("shmem.Free", sliceAddr(s[:1]))
}

// Realloc resizes a block to n elements on every PE, keeping its contents up to the smaller
// size, with barriers before and after. Realloc(nil, n) is Malloc; Realloc(s, 0) is Free.
func Realloc[T any](s []T, n int) ([]T, error) {
	size := checkAlloc[T]("shmem.Realloc", n)
	rt.DebugAgree("shmem.Realloc", "element counts", uint64(n))
	var p unsafe.Pointer
	if cap(s) > 0 {
		p = sliceAddr(s[:1])
	}
	q, err := rt.Realloc("shmem.Realloc", p, size)
	if err != nil {
		return s, err
	}
	if q == nil {
		return nil, nil
	}
	return unsafe.Slice((*T)(q), n), nil
}

var pointerFree sync.Map // reflect.Type -> string ("" when T holds no pointers)

// checkNoPointers panics if T can hold a Go pointer.
func checkNoPointers[T any](who string) {
	t := reflect.TypeFor[T]()
	v, ok := pointerFree.Load(t)
	if !ok {
		v, _ = pointerFree.LoadOrStore(t, pointerPath(t, t.String()))
	}
	if path := v.(string); path != "" {
		panic(fmt.Sprintf("%s: %v holds a Go pointer (%s); the symmetric heap is invisible to the garbage collector, so it may hold only plain data", who, t, path))
	}
}

// pointerPath names the first pointer-holding part of t, or "" if there is none.
func pointerPath(t reflect.Type, name string) string {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.Slice, reflect.String:
		return name + " is a " + t.Kind().String()
	case reflect.Array:
		if t.Len() == 0 {
			return ""
		}
		return pointerPath(t.Elem(), name+"[i]")
	case reflect.Struct:
		for i := range t.NumField() {
			if p := pointerPath(t.Field(i).Type, name+"."+t.Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}
