package shmem_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

func addr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }

// Every PE must get the same offsets: each publishes its allocation addresses relative to
// the first one into PE 0's table, and PE 0 compares.
func TestMallocSymmetric(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		base := mustAlloc[byte](t, 1)
		sizes := []int{1, 7, 64, 65, 4096, 100_000, 3}
		table := mustAlloc[int64](t, n*len(sizes))
		var blocks [][]byte
		for k, sz := range sizes {
			b, err := shmem.Malloc[byte](sz)
			if err != nil {
				t.Fatal(err)
			}
			if addr(b)%64 != 0 {
				t.Fatalf("Malloc(%d) at %#x: not 64-byte aligned", sz, addr(b))
			}
			blocks = append(blocks, b)
			shmem.P(&table[me*len(sizes)+k], int64(addr(b)-addr(base)), 0)
		}
		a, err := shmem.Align[byte](4096, 10)
		if err != nil || addr(a)%4096 != 0 {
			t.Fatalf("Align(4096): %#x %v", addr(a), err)
		}
		shmem.BarrierAll()
		if me == 0 {
			for pe := 1; pe < n; pe++ {
				for k := range sizes {
					if table[pe*len(sizes)+k] != table[k] {
						t.Fatalf("allocation %d: PE %d at offset %d, PE 0 at %d", k, pe, table[pe*len(sizes)+k], table[k])
					}
				}
			}
		}
		// Free out of order, then allocate again: the same offsets again on every PE.
		shmem.Free(blocks[3])
		shmem.Free(blocks[1])
		c, _ := shmem.Malloc[byte](60)
		shmem.P(&table[me], int64(addr(c)-addr(base)), 0)
		shmem.BarrierAll()
		if me == 0 {
			for pe := 1; pe < n; pe++ {
				if table[pe] != table[0] {
					t.Fatalf("after frees: PE %d at offset %d, PE 0 at %d", pe, table[pe], table[0])
				}
			}
		}
		shmem.BarrierAll()
	}, 1, 3, 4)
}

// Calloc must zero memory that held data before; Realloc must keep contents.
func TestCallocRealloc(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		a, _ := shmem.Malloc[uint64](1000)
		for i := range a {
			a[i] = ^uint64(0)
		}
		shmem.Free(a)
		b := mustAlloc[uint64](t, 1000)
		for i, v := range b {
			if v != 0 {
				t.Fatalf("Calloc: element %d = %#x after reuse", i, v)
			}
		}
		for i := range b {
			b[i] = uint64(me*10000 + i)
		}
		blocker := mustAlloc[byte](t, 1) // forces the next growth to move
		b2, err := shmem.Realloc(b, 5000)
		if err != nil || len(b2) != 5000 {
			t.Fatalf("Realloc: len %d err %v", len(b2), err)
		}
		for i := range 1000 {
			if b2[i] != uint64(me*10000+i) {
				t.Fatalf("Realloc lost element %d: %d", i, b2[i])
			}
		}
		shmem.Free(blocker)
		b3, err := shmem.Realloc(b2, 6000) // grows in place into the freed space or moves
		if err != nil || b3[999] != uint64(me*10000+999) {
			t.Fatalf("second Realloc: %v", err)
		}
		// Peers see the moved block at the same place.
		shmem.P(&b3[5999], uint64(me), (me+1)%n)
		shmem.BarrierAll()
		if b3[5999] != uint64((me+n-1)%n) {
			t.Fatalf("remote write into a reallocated block: %d", b3[5999])
		}
		if z, err := shmem.Realloc(b3, 0); z != nil || err != nil {
			t.Fatalf("Realloc to 0: %v %v", z, err)
		}
	}, 1, 2, 3)
}

func TestHeapExhausted(t *testing.T) {
	if !shmemtest.Run(t, 2, shmemtest.Options{Env: []string{"SHMEM_SYMMETRIC_SIZE=4M"}}) {
		return
	}
	initPE(t)
	_, err := shmem.Malloc[byte](5 << 20)
	if err == nil || !strings.Contains(err.Error(), "SHMEM_SYMMETRIC_SIZE") || !strings.Contains(err.Error(), "4194304") {
		t.Fatalf("exhaustion error %v: want the heap size and SHMEM_SYMMETRIC_SIZE named", err)
	}
	// A failed allocation leaves the heap usable.
	if _, err := shmem.Malloc[byte](3 << 20); err != nil {
		t.Fatal(err)
	}
}

// Heap stress at the Go API: with SHMEM_SYMMETRIC_SIZE=256M a 253 MiB block fits, grows to
// 255 MiB in place and shrinks, its freed tail then holding another 200 MiB; blocks of
// random sizes resized up and down keep their contents and stay symmetric.
func TestHeapStress(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprint(n, "PE"), func(t *testing.T) {
			if !shmemtest.Run(t, n, shmemtest.Options{Env: []string{"SHMEM_SYMMETRIC_SIZE=256M"}}) {
				return
			}
			me, n := initPE(t)
			const mb = 1 << 20
			table := mustAlloc[int64](t, n)
			symmetric := func(b []byte, what string) {
				shmem.P(&table[me], int64(addr(b)-addr(table)), 0)
				shmem.BarrierAll()
				if me == 0 {
					for pe := range n {
						if table[pe] != table[0] {
							t.Fatalf("%s: PE %d at %d, PE 0 at %d", what, pe, table[pe], table[0])
						}
					}
				}
				shmem.BarrierAll()
			}
			big, err := shmem.Malloc[byte](253 * mb)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(big); i += 4096 {
				big[i] = byte(i >> 12)
			}
			if big, err = shmem.Realloc(big, 255*mb); err != nil {
				t.Fatal(err)
			}
			if big, err = shmem.Realloc(big, 8*mb); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(big); i += 4096 {
				if big[i] != byte(i>>12) {
					t.Fatalf("byte %d lost in realloc", i)
				}
			}
			more, err := shmem.Malloc[byte](200 * mb)
			if err != nil {
				t.Fatalf("the shrunk block's tail was not freed: %v", err)
			}
			symmetric(more, "200 MiB")
			shmem.Free(more)
			shmem.Free(big)

			r := rand.New(rand.NewPCG(7, 8)) // the same sequence on every PE
			blocks := make([][]byte, 24)
			for step := range 300 {
				i, sz := r.IntN(len(blocks)), r.IntN(24*mb)
				old := blocks[i]
				b, err := shmem.Realloc(old, sz)
				if err != nil {
					continue // full: every PE alike
				}
				for k := 0; k < min(len(old), sz); k += 4093 {
					if b[k] != byte(i+me+k) {
						t.Fatalf("step %d: block %d byte %d lost", step, i, k)
					}
				}
				for k := 0; k < sz; k += 4093 {
					b[k] = byte(i + me + k)
				}
				if sz > 0 {
					symmetric(b, fmt.Sprint("step ", step))
				}
				blocks[i] = b
			}
			for _, b := range blocks {
				shmem.Free(b)
			}
		})
	}
}

func TestMallocRefusesPointers(t *testing.T) {
	if !shmemtest.Run(t, 1) {
		return
	}
	initPE(t)
	type withPtr struct {
		N int
		P *int
	}
	wantPanic(t, "shmem.Malloc: shmem_test.withPtr holds a Go pointer (shmem_test.withPtr.P is a ptr)", func() { shmem.Malloc[withPtr](1) })
	wantPanic(t, "holds a Go pointer", func() { shmem.Calloc[string](1) })
	wantPanic(t, "holds a Go pointer", func() { shmem.Malloc[[4][]byte](1) })
	wantPanic(t, "negative element count", func() { shmem.Malloc[int](-1) })
	if s, err := shmem.Malloc[[2]struct{ A, B float64 }](3); err != nil || len(s) != 3 {
		t.Fatal("plain data refused", err)
	}
	s, _ := shmem.Malloc[int](4)
	shmem.Free(s)
	wantPanic(t, "shmem.Free", func() { shmem.Free(s) })
}
