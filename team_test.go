package shmem_test

import (
	"strings"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

func TestTeams(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		w := shmem.TeamWorld()
		shared := n // on one node every PE shares memory (TestMultiNodeLayout checks the rest)
		if shmemtest.MultiNode() {
			shared = shmem.TeamShared().NPEs()
		}
		if w.MyPE() != me || w.NPEs() != n || shmem.TeamShared().NPEs() != shared {
			t.Fatalf("world %d/%d shared %d", w.MyPE(), w.NPEs(), shmem.TeamShared().NPEs())
		}
		// Even PEs, then the odd ones of the even ones' complement.
		even, err := w.SplitStrided(0, 2, (n+1)/2, nil)
		if err != nil {
			t.Fatal(err)
		}
		odd, err := w.SplitStrided(1, 2, n/2, nil)
		if n == 1 {
			if err == nil {
				t.Fatal("a team of 0 PEs was made")
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if me%2 == 0 {
			if !even.Valid() || even.MyPE() != me/2 || even.NPEs() != (n+1)/2 || odd.Valid() {
				t.Fatalf("even team: valid %v pe %d npes %d; odd valid %v", even.Valid(), even.MyPE(), even.NPEs(), odd.Valid())
			}
			if got := even.TranslatePE(even.MyPE(), w); got != me {
				t.Fatalf("TranslatePE to world = %d, want %d", got, me)
			}
			if got := w.TranslatePE(me+1, even); got != -1 {
				t.Fatalf("odd PE %d translated into the even team as %d", me+1, got)
			}
		} else if even.Valid() || !odd.Valid() || odd.MyPE() != me/2 {
			t.Fatalf("odd PE %d: even valid %v, odd pe %d", me, even.Valid(), odd.MyPE())
		}
		// Teams of a team: the even team's even members are the world's multiples of 4.
		if me%2 == 0 {
			sub, err := even.SplitStrided(0, 2, (even.NPEs()+1)/2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (me%4 == 0) != sub.Valid() || sub.Valid() && even.TranslatePE(sub.TranslatePE(sub.MyPE(), even), w) != me {
				t.Fatalf("sub-team of the even team wrong on PE %d", me)
			}
			if sub.Valid() {
				sub.Sync()
				sub.Destroy()
			}
			even.Sync()
			even.Destroy()
		} else {
			odd.Sync()
			odd.Destroy()
		}
		// A 2-D grid 2 wide: rows and columns.
		x, y, err := w.Split2D(2, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if x.MyPE() != me%2 || y.MyPE() != me/2 || y.NPEs() != (n-me%2+1)/2 {
			t.Fatalf("Split2D on PE %d: x %d/%d y %d/%d", me, x.MyPE(), x.NPEs(), y.MyPE(), y.NPEs())
		}
		for i := range x.NPEs() {
			if got := x.TranslatePE(i, w); got != me/2*2+i {
				t.Fatalf("row member %d is world %d", i, got)
			}
		}
		x.Sync()
		y.Sync()
		x.Destroy()
		y.Destroy()
		shmem.BarrierAll()
	})
}

// Team slots run out: the error names the routine; destroying teams frees them again.
func TestTeamSlotsExhausted(t *testing.T) {
	if !shmemtest.Run(t, 2) {
		return
	}
	initPE(t)
	w := shmem.TeamWorld()
	var teams []shmem.Team
	for {
		tm, err := w.SplitStrided(0, 1, 2, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "shmem.Team.SplitStrided: no free team slot") {
				t.Fatalf("error %v", err)
			}
			break
		}
		teams = append(teams, tm)
		if len(teams) > 100 {
			t.Fatal("team slots never run out")
		}
	}
	if len(teams) != 62 {
		t.Fatalf("%d teams before slots ran out, want 62", len(teams))
	}
	for _, tm := range teams {
		tm.Destroy()
	}
	if _, err := w.SplitStrided(0, 1, 2, nil); err != nil {
		t.Fatalf("after Destroy: %v", err)
	}
	if _, err := w.SplitStrided(1, 1, 5, nil); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("bad triplet: %v", err)
	}
	wantPanic(t, "predefined teams cannot be destroyed", func() { w.Destroy() })
	wantPanic(t, "invalid team", func() { shmem.TeamInvalid.Sync() })
}

// A negative stride (OpenSHMEM 1.6): the world in reverse order, numbered n-1-me, with a
// broadcast from its PE 0 (world PE n-1) and a reduction over it.
func TestSplitNegativeStride(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		rev, err := shmem.TeamWorld().SplitStrided(n-1, -1, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rev.MyPE() != n-1-me || rev.TranslatePE(0, shmem.TeamWorld()) != n-1 {
			t.Fatalf("reverse team: my number %d, its PE 0 is world PE %d", rev.MyPE(), rev.TranslatePE(0, shmem.TeamWorld()))
		}
		src := mustAlloc[int64](t, 2)
		dst := mustAlloc[int64](t, 2)
		src[0], src[1] = int64(me), int64(me*me)
		if err := shmem.Broadcast(rev, dst, src, 0); err != nil {
			t.Fatal(err)
		}
		if dst[0] != int64(n-1) || dst[1] != int64((n-1)*(n-1)) {
			t.Fatalf("broadcast from the reverse team's PE 0: %v", dst)
		}
		if err := shmem.SumReduce(rev, dst, src); err != nil {
			t.Fatal(err)
		}
		if want := int64(n * (n - 1) / 2); dst[0] != want {
			t.Fatalf("sum over the reverse team %d, want %d", dst[0], want)
		}
		if n > 1 {
			if _, err := shmem.TeamWorld().SplitStrided(0, -1, 2, nil); err == nil {
				t.Fatal("a split reaching PE -1 succeeded")
			}
		}
		rev.Destroy()
	})
}

// A team slot taken again by a team of another size: eager messages leave their data in a
// team's slots (only the flags are emptied), and slots sit at other offsets at another
// size, so a new team must not find the old data where its flags are. Every member checks
// every result of reductions, broadcasts and collects of every eager size, on both teams,
// and syncs the team before the next call writes dst again: the spec has every PE's dst
// ready before any PE calls (across nodes a leader in its next call puts into the others').
func TestTeamSlotReuseEager(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		src, dst := mustAlloc[int64](t, 256), mustAlloc[int64](t, 256*n)
		check := func(tm shmem.Team, round int) {
			tn, tme := tm.NPEs(), tm.MyPE()
			for _, k := range []int{1, 7, 32, 64, 100, 159} { // up to a whole slot at 2 PEs
				for i := range k {
					src[i] = int64(1000*round + 10*tme + i)
				}
				if err := shmem.SumReduce(tm, dst[:k], src[:k]); err != nil {
					t.Fatal(err)
				}
				for i := range k {
					want := int64(tn*(1000*round+i) + 10*tn*(tn-1)/2)
					if dst[i] != want {
						t.Fatalf("round %d, %d PEs, %d elements: sum[%d] = %d, want %d", round, tn, k, i, dst[i], want)
					}
				}
				tm.Sync()
				if err := shmem.Broadcast(tm, dst[:k], src[:k], tn-1); err != nil {
					t.Fatal(err)
				}
				if dst[k-1] != int64(1000*round+10*(tn-1)+k-1) {
					t.Fatalf("round %d, %d PEs, %d elements: broadcast gave %d", round, tn, k, dst[k-1])
				}
				tm.Sync()
				if err := shmem.FCollect(tm, dst[:k*tn], src[:k]); err != nil {
					t.Fatal(err)
				}
				for j := range tn {
					if got := dst[j*k]; got != int64(1000*round+10*j) {
						t.Fatalf("round %d, %d PEs, %d elements: block %d starts %d", round, tn, k, j, got)
					}
				}
				tm.Sync()
			}
		}
		for round, size := range []int{n, max(n-1, 1), n, 1} {
			tm, err := shmem.TeamWorld().SplitStrided(0, 1, size, nil)
			if err != nil {
				t.Fatal(err)
			}
			if me < size {
				check(tm, round+1)
				tm.Destroy()
			}
			shmem.BarrierAll()
		}
	})
}
