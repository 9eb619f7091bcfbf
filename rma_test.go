package shmem_test

import (
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

const blockLen = 37 // odd on purpose: blocks are not multiples of a cache line

func TestPutGet(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		buf := mustAlloc[int64](t, n*blockLen)
		src := make([]int64, blockLen)
		for i := range src {
			src[i] = int64(me*1000 + i)
		}
		for pe := range n {
			shmem.Put(buf[me*blockLen:(me+1)*blockLen], src, pe)
		}
		shmem.BarrierAll()
		for s := range n {
			for i := range blockLen {
				if got, want := buf[s*blockLen+i], int64(s*1000+i); got != want {
					t.Fatalf("block from PE %d [%d] = %d, want %d", s, i, got, want)
				}
			}
		}
		// Get every peer's own block (which they put into themselves too).
		got := make([]int64, blockLen)
		for pe := range n {
			shmem.Get(got, buf[pe*blockLen:(pe+1)*blockLen], pe)
			for i, v := range got {
				if want := int64(pe*1000 + i); v != want {
					t.Fatalf("Get from PE %d [%d] = %d, want %d", pe, i, v, want)
				}
			}
		}
		shmem.BarrierAll()
	})
}

func TestPutNBIQuietAndScalars(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		type pair struct {
			A int32
			B float64
		}
		xs := mustAlloc[pair](t, n)
		bs := mustAlloc[byte](t, n)
		next := (me + 1) % n
		shmem.PutNBI(xs[me:me+1], []pair{{int32(me), float64(me) / 2}}, next)
		shmem.P(&bs[me], byte(200+me), next)
		shmem.Quiet()
		shmem.BarrierAll()
		prev := (me + n - 1) % n
		if xs[prev] != (pair{int32(prev), float64(prev) / 2}) || bs[prev] != byte(200+prev) {
			t.Fatalf("from PE %d: %+v %d", prev, xs[prev], bs[prev])
		}
		if g := shmem.G(&bs[me], next); g != byte(200+me) {
			t.Fatalf("G(&bs[%d], %d) = %d, want %d", me, next, g, 200+me)
		}
		if g := shmem.G(&xs[prev], me); g.A != int32(prev) {
			t.Fatalf("G of my own copy: %+v", g)
		}
		shmem.BarrierAll()
	})
}

func TestStrided(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const cnt = 50
		for _, st := range []struct{ dst, src int }{{1, 1}, {2, 1}, {1, 3}, {4, 2}} {
			d32 := mustAlloc[uint32](t, cnt*st.dst)
			d64 := mustAlloc[float64](t, cnt*st.dst)
			d16 := mustAlloc[int16](t, cnt*st.dst)
			s32 := make([]uint32, cnt*st.src)
			s64 := make([]float64, cnt*st.src)
			s16 := make([]int16, cnt*st.src)
			for i := range cnt {
				s32[i*st.src] = uint32(me<<16 | i)
				s64[i*st.src] = float64(me) + float64(i)/64
				s16[i*st.src] = int16(me*100 - i)
			}
			to := (me + 1) % n
			shmem.IPut(d32, s32, st.dst, st.src, cnt, to)
			shmem.IPut(d64, s64, st.dst, st.src, cnt, to)
			shmem.IPut(d16, s16, st.dst, st.src, cnt, to)
			shmem.BarrierAll()
			from := (me + n - 1) % n
			for i := range cnt * st.dst {
				w32, w64, w16 := uint32(0), 0.0, int16(0)
				if i%st.dst == 0 {
					k := i / st.dst
					w32, w64, w16 = uint32(from<<16|k), float64(from)+float64(k)/64, int16(from*100-k)
				}
				if d32[i] != w32 || d64[i] != w64 || d16[i] != w16 {
					t.Fatalf("strides %+v: element %d = %d %v %d, want %d %v %d", st, i, d32[i], d64[i], d16[i], w32, w64, w16)
				}
			}
			// IGet the same data back from the peer it was put to, as it was laid out at the source.
			back := make([]uint32, cnt*st.src)
			shmem.IGet(back, d32, st.src, st.dst, cnt, to)
			for i := range cnt {
				if back[i*st.src] != s32[i*st.src] {
					t.Fatalf("IGet strides %+v: [%d] = %#x, want %#x", st, i, back[i*st.src], s32[i*st.src])
				}
			}
			shmem.BarrierAll()
			shmem.Free(d16)
			shmem.Free(d64)
			shmem.Free(d32)
		}
		// Many elements to a strided destination (across nodes: several packed messages),
		// ordered before a flag by Fence alone: the flag's reader must see them all.
		const many = 9000
		d := mustAlloc[uint64](t, many*3)
		flag := mustAlloc[uint64](t, 1)
		src := make([]uint64, many)
		for i := range src {
			src[i] = uint64(me)<<32 | uint64(i)
		}
		shmem.BarrierAll()
		to, from := (me+1)%n, (me+n-1)%n
		shmem.IPut(d, src, 3, 1, many, to)
		shmem.Fence()
		shmem.P(&flag[0], 1, to)
		shmem.WaitUntil(&flag[0], shmem.CmpEQ, 1)
		for i := range many {
			if w := uint64(from)<<32 | uint64(i); d[3*i] != w || d[3*i+1] != 0 {
				t.Fatalf("IPut of %d at stride 3, after Fence and a flag: [%d] = %#x, [%d] = %#x, want %#x, 0", many, 3*i, d[3*i], 3*i+1, d[3*i+1], w)
			}
		}
		back := make([]uint64, many*2)
		shmem.IGet(back, d, 2, 3, many, to) // what I put there
		for i := range many {
			if back[2*i] != src[i] {
				t.Fatalf("IGet of %d at stride 3: [%d] = %#x, want %#x", many, i, back[2*i], src[i])
			}
		}
		shmem.BarrierAll()
		shmem.Free(flag)
		shmem.Free(d)
	})
}

func TestPutSignal(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const rounds = 200
		data := mustAlloc[int32](t, 64)
		sig := mustAlloc[uint64](t, 2)
		to, from := (me+1)%n, (me+n-1)%n
		src := make([]int32, 64)
		for r := 1; r <= rounds; r++ {
			for i := range src {
				src[i] = int32(r*1000 + me*64 + i)
			}
			// SignalSet with the round number, and SignalAdd of 1 on the second word.
			if r%2 == 0 {
				shmem.PutSignal(data, src, &sig[0], uint64(r), shmem.SignalSet, to)
			} else {
				shmem.PutSignalNBI(data, src, &sig[0], uint64(r), shmem.SignalSet, to)
			}
			got := shmem.SignalWaitUntil(&sig[0], shmem.CmpGE, uint64(r))
			if got != uint64(r) {
				t.Fatalf("round %d: signal %d", r, got)
			}
			for i, v := range data {
				if want := int32(r*1000 + from*64 + i); v != want {
					t.Fatalf("round %d: data[%d] = %d, want %d (data must be visible with its signal)", r, i, v, want)
				}
			}
			shmem.PutSignal(data[:0], src[:0], &sig[1], 1, shmem.SignalAdd, to)
			shmem.BarrierAll() // the sender may overwrite data only after it was checked
		}
		if got := shmem.SignalFetch(&sig[1]); got != rounds {
			t.Fatalf("SignalAdd total %d, want %d", got, rounds)
		}
	})
}

func TestPtr(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		xs := mustAlloc[int64](t, n)
		for pe := range n {
			if p := shmem.Ptr(&xs[me], pe); p != nil {
				*p = int64(me + 1)
			} else if shmemtest.MultiNode() { // on another node: TestMultiNodeLayout
				shmem.P(&xs[me], int64(me+1), pe)
			} else {
				t.Fatalf("Ptr to PE %d is nil", pe)
			}
		}
		shmem.BarrierAll()
		for pe := range n {
			if xs[pe] != int64(pe+1) {
				t.Fatalf("xs[%d] = %d", pe, xs[pe])
			}
		}
		if !shmem.AddrAccessible(&xs[0], n-1) || shmem.AddrAccessible(new(int64), 0) || shmem.PEAccessible(n) {
			t.Fatal("accessibility queries wrong")
		}
	}, 1, 3)
}
