package shmem_test

import (
	"fmt"
	"math"
	"syscall"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// ctxTeam is the team the context tests work on: the odd PEs from 3 PEs on (so team PE
// numbers differ from world ones), else a split holding every PE (a team context whose
// team is the world's PEs but not the world team). Non-members get TeamInvalid.
func ctxTeam(t *testing.T, n int) shmem.Team {
	t.Helper()
	start, stride, size := 0, 1, n
	if n >= 3 {
		start, stride, size = 1, 2, n/2
	}
	team, err := shmem.TeamWorld().SplitStrided(start, stride, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	return team
}

// Every RMA routine on a team context, over every kind of element type, against a serial
// model: each member writes its successor in the team (team numbering) and reads it back.
func TestCtxRMA(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		team := ctxTeam(t, n)
		ctx := shmem.CtxInvalid
		if team.Valid() {
			var err error
			if ctx, err = team.CreateCtx(shmem.CtxPrivate | shmem.CtxSerialized); err != nil {
				t.Fatal(err)
			}
			if ctx.Team().NPEs() != team.NPEs() || ctx.Options() != shmem.CtxPrivate|shmem.CtxSerialized {
				t.Fatalf("context's team has %d PEs, options %#x", ctx.Team().NPEs(), ctx.Options())
			}
		}
		ctxRMA(t, ctx, team, func(i int) int8 { return int8(i*7 - 100) })
		ctxRMA(t, ctx, team, func(i int) uint16 { return uint16(i * 1001) })
		ctxRMA(t, ctx, team, func(i int) int32 { return int32(-i * 99991) })
		ctxRMA(t, ctx, team, func(i int) uint64 { return uint64(i) << 40 })
		ctxRMA(t, ctx, team, func(i int) float32 { return float32(i) / 3 })
		ctxRMA(t, ctx, team, func(i int) float64 { return math.Sqrt(float64(i)) })
		ctxRMA(t, ctx, team, func(i int) complex128 { return complex(float64(i), -1) })
		ctxRMA(t, ctx, team, func(i int) [3]byte { return [3]byte{byte(i), 1, 2} })
		ctx.Destroy()
		if team.Valid() {
			team.Destroy()
		}
		shmem.BarrierAll()
	})
}

func ctxRMA[T comparable](t *testing.T, ctx shmem.Ctx, team shmem.Team, val func(i int) T) {
	t.Helper()
	const k = 13
	put := mustAlloc[T](t, 4*k)    // Put, PutNBI, IPut (stride 2 over 2k)
	sig := mustAlloc[uint64](t, 2) // PutSignal's and PutSignalNBI's
	scal := mustAlloc[T](t, 1)     // P
	shmem.BarrierAll()
	if !ctx.Valid() {
		shmem.BarrierAll()
		shmem.BarrierAll()
		return
	}
	tme, tn := team.MyPE(), team.NPEs()
	peer := (tme + 1) % tn
	src := make([]T, 2*k)
	for i := range src {
		src[i] = val(tme*1000 + i)
	}
	shmem.CtxPut(ctx, put[:k], src[:k], peer)
	shmem.CtxPutNBI(ctx, put[k:2*k], src[k:2*k], peer)
	shmem.CtxIPut(ctx, put[2*k:], src, 2, 1, k, peer) // src[0..k) to every other element
	shmem.CtxP(ctx, &scal[0], val(tme), peer)
	shmem.CtxPutSignal(ctx, put[:1], src[:1], &sig[0], 5, shmem.SignalSet, peer)
	shmem.CtxPutSignalNBI(ctx, put[:1], src[:1], &sig[1], 7, shmem.SignalAdd, peer)
	ctx.Fence()
	ctx.Quiet()
	shmem.BarrierAll()
	from := (tme + tn - 1) % tn
	for i := range 2 * k {
		if want := val(from*1000 + i); put[i] != want {
			t.Fatalf("%T: put[%d] = %v from team PE %d, want %v", want, i, put[i], from, want)
		}
	}
	for i := range k {
		if want := val(from*1000 + i); put[2*k+2*i] != want {
			t.Fatalf("%T: iput element %d = %v, want %v", want, i, put[2*k+2*i], want)
		}
	}
	if scal[0] != val(from) || sig[0] != 5 || sig[1] != 7 {
		t.Fatalf("%T: p %v (want %v), signals %d %d (want 5 7)", scal[0], scal[0], val(from), sig[0], sig[1])
	}
	// Read the successor's copies back: what this PE put there.
	got := make([]T, 2*k)
	shmem.CtxGet(ctx, got[:k], put[:k], peer)
	shmem.CtxGetNBI(ctx, got[k:], put[k:2*k], peer)
	ctx.Quiet()
	for i := range got {
		if got[i] != src[i] {
			t.Fatalf("%T: get[%d] = %v, want %v", got[i], i, got[i], src[i])
		}
	}
	strided := make([]T, 2*k)
	shmem.CtxIGet(ctx, strided, put[2*k:], 2, 2, k, peer)
	for i := range k {
		if strided[2*i] != src[i] {
			t.Fatalf("%T: iget element %d = %v, want %v", src[i], i, strided[2*i], src[i])
		}
	}
	if g := shmem.CtxG(ctx, &scal[0], peer); g != val(tme) {
		t.Fatalf("%T: g = %v, want %v", g, g, val(tme))
	}
	shmem.BarrierAll()
}

// Every atomic on a team context, for every type of its set, against a serial model: all
// members update team PE 0's word, so the final value and the fetched values are exact.
func TestCtxAMO(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		team := ctxTeam(t, n)
		ctx := shmem.CtxInvalid
		if team.Valid() {
			var err error
			if ctx, err = team.CreateCtx(0); err != nil {
				t.Fatal(err)
			}
		}
		ctxAMO[int32](t, ctx, team)
		ctxAMO[int64](t, ctx, team)
		ctxAMO[uint32](t, ctx, team)
		ctxAMO[uint64](t, ctx, team)
		ctxAMO[int](t, ctx, team)
		ctxAMO[uint](t, ctx, team)
		ctxAMO[uintptr](t, ctx, team)
		ctxExt[float32](t, ctx, team, 1.5)
		ctxExt[float64](t, ctx, team, -math.Pi)
		ctxBitwise[int8](t, ctx, team)
		ctxBitwise[uint16](t, ctx, team)
		ctxBitwise[int32](t, ctx, team)
		ctxBitwise[uint64](t, ctx, team)
		ctxBitwise[uintptr](t, ctx, team)
		ctx.Destroy()
		if team.Valid() {
			team.Destroy()
		}
	})
}

// world is team PE 0's number in the world.
func world(team shmem.Team, pe int) int { return team.TranslatePE(pe, shmem.TeamWorld()) }

func ctxAMO[T shmem.AMO](t *testing.T, ctx shmem.Ctx, team shmem.Team) {
	t.Helper()
	x := mustAlloc[T](t, 4) // add, inc, compare-swap token, swap
	shmem.BarrierAll()
	if ctx.Valid() {
		tme, tn := team.MyPE(), team.NPEs()
		for i := range 10 {
			v := T(tme*10 + i + 1)
			shmem.CtxAtomicFetchAdd(ctx, &x[0], v, 0)
			shmem.CtxAtomicAdd(ctx, &x[0], v, 0)
			shmem.CtxAtomicFetchInc(ctx, &x[1], 0)
			shmem.CtxAtomicInc(ctx, &x[1], 0)
		}
		// A token passed along the team by compare-and-swap: each member waits for its turn.
		for shmem.CtxAtomicCompareSwap(ctx, &x[2], T(tme), T(tme+1), 0) != T(tme) {
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) // the holder may need this CPU
		}
		shmem.CtxAtomicSwap(ctx, &x[3], T(tme+1), 0)
		shmem.BarrierAll()
		if tme == 0 {
			var want T
			for p := range tn {
				for i := range 10 {
					want += 2 * T(p*10+i+1)
				}
			}
			if x[0] != want || x[1] != T(20*tn) || x[2] != T(tn) {
				t.Fatalf("%T: sum %v (want %v), incs %v (want %v), token %v (want %v)", want, x[0], want, x[1], 20*tn, x[2], tn)
			}
			if shmem.CtxAtomicFetch(ctx, &x[3], 0) < 1 {
				t.Fatalf("%T: swap left %v", x[3], x[3])
			}
		}
		if world(team, 0) < 0 {
			t.Fatal("team PE 0 is not in the world")
		}
	} else {
		shmem.BarrierAll()
	}
	shmem.BarrierAll()
}

func ctxExt[T shmem.ExtAMO](t *testing.T, ctx shmem.Ctx, team shmem.Team, a T) {
	t.Helper()
	x := mustAlloc[T](t, 1)
	shmem.BarrierAll()
	if ctx.Valid() && team.MyPE() == 0 {
		peer := team.NPEs() - 1
		shmem.CtxAtomicSet(ctx, &x[0], a, peer)
		if v := shmem.CtxAtomicSwap(ctx, &x[0], a+1, peer); v != a {
			t.Fatalf("%T swap old %v, want %v", v, v, a)
		}
		if v := shmem.CtxAtomicFetch(ctx, &x[0], peer); v != a+1 {
			t.Fatalf("%T fetch %v, want %v", v, v, a+1)
		}
	}
	shmem.BarrierAll()
}

func ctxBitwise[T shmem.Bitwise](t *testing.T, ctx shmem.Ctx, team shmem.Team) {
	t.Helper()
	x := mustAlloc[T](t, 3)
	shmem.BarrierAll()
	if ctx.Valid() {
		// Member i owns bit i%8 of team PE 0's word: or, and, xor from all members at once.
		tme := team.MyPE()
		bit := T(1) << (tme % 8)
		shmem.CtxAtomicFetchOr(ctx, &x[0], bit, 0)
		shmem.CtxAtomicOr(ctx, &x[1], bit, 0)
		shmem.CtxAtomicFetchXor(ctx, &x[2], bit, 0)
		shmem.BarrierAll()
		shmem.CtxAtomicAnd(ctx, &x[1], ^bit, 0)
		shmem.CtxAtomicFetchAnd(ctx, &x[0], ^T(0), 0)
		shmem.CtxAtomicXor(ctx, &x[2], bit, 0)
		shmem.BarrierAll()
		if tme == 0 {
			var all T
			for p := range team.NPEs() {
				all |= T(1) << (p % 8)
			}
			if x[0] != all || x[1] != 0 || x[2] != 0 {
				t.Fatalf("%T: or %v (want %v), and %v, xor %v (want 0 0)", all, x[0], all, x[1], x[2])
			}
		}
	} else {
		shmem.BarrierAll()
		shmem.BarrierAll()
	}
	shmem.BarrierAll()
}

// Operations on CtxInvalid do nothing; a destroyed context, a PE outside the context's team
// and destroying the default context are errors naming the routine.
func TestCtxInvalidAndErrors(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		x := mustAlloc[int64](t, 2)
		shmem.CtxPut(shmem.CtxInvalid, x, []int64{1, 2}, 0)
		shmem.CtxP(shmem.CtxInvalid, &x[0], 3, 0)
		shmem.CtxAtomicAdd(shmem.CtxInvalid, &x[0], 3, 0)
		if v := shmem.CtxAtomicFetchAdd(shmem.CtxInvalid, &x[0], 3, 0); v != 0 {
			t.Fatalf("fetch-add on CtxInvalid returned %d", v)
		}
		if v := shmem.CtxG(shmem.CtxInvalid, &x[0], 0); v != 0 {
			t.Fatalf("g on CtxInvalid returned %d", v)
		}
		shmem.CtxInvalid.Quiet()
		shmem.CtxInvalid.Destroy()
		if shmem.CtxInvalid.Team().Valid() {
			t.Fatal("CtxInvalid has a team")
		}
		shmem.BarrierAll()
		if x[0] != 0 || x[1] != 0 {
			t.Fatalf("operations on CtxInvalid wrote %v", x)
		}
		shmem.BarrierAll()
		if shmem.CtxDefault.Team().NPEs() != n {
			t.Fatal("the default context's team is not the world")
		}
		ctx, err := shmem.CtxCreate(shmem.CtxNostore)
		if err != nil {
			t.Fatal(err)
		}
		shmem.CtxP(ctx, &x[1], int64(me), (me+1)%n)
		ctx.Quiet()
		wantPanic(t, "shmem.CtxPut: PE -1 out of range", func() { shmem.CtxPut(ctx, x, x, -1) })
		ctx.Destroy()
		wantPanic(t, "shmem.CtxP: context was destroyed", func() { shmem.CtxP(ctx, &x[0], 1, 0) })
		wantPanic(t, "the default context cannot be destroyed", func() { shmem.CtxDefault.Destroy() })
		one, err := shmem.TeamWorld().SplitStrided(0, 1, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if one.Valid() {
			c, err := one.CreateCtx(0)
			if err != nil {
				t.Fatal(err)
			}
			wantPanic(t, "shmem.CtxAtomicInc: PE 1 out of range [0,1)", func() { shmem.CtxAtomicInc(c, &x[0], 1) })
			c.Destroy()
			one.Destroy()
		}
		if _, err := shmem.TeamInvalid.CreateCtx(0); err == nil {
			t.Fatal("a context on TeamInvalid")
		}
		shmem.BarrierAll()
		if x[1] != int64((me+n-1)%n) {
			t.Fatalf("p on a world context: %d", x[1])
		}
		shmem.BarrierAll()
	})
}

// OpenSHMEM 1.6 in Go: block-strided IBPut and IBGet (default and team context) against a
// serial model, Signal, TeamPtr and TeamNode.
func TestOpenSHMEM16(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		next, prev := (me+1)%n, (me+n-1)%n
		x := mustAlloc[int32](t, 32)
		sig := mustAlloc[uint64](t, 2)
		for i := range x {
			x[i] = -1
		}
		shmem.BarrierAll()
		src := make([]int32, 8)
		for i := range src {
			src[i] = int32(me*100 + i)
		}
		// Blocks of 2 from src every 3 elements to x every 4: x[0,1] x[4,5] x[8,9] <- src[0,1] src[3,4] src[6,7].
		shmem.IBPut(x, src, 4, 3, 2, 3, next)
		shmem.CtxIBPut(shmem.CtxDefault, x[16:], src, 2, 1, 1, 4, next) // IPut's shape: x[16], x[18], ...
		shmem.Signal(&sig[0], 5, shmem.SignalSet, next)
		shmem.Signal(&sig[1], 2, shmem.SignalAdd, 0)
		shmem.Quiet()
		shmem.BarrierAll()
		model := make([]int32, 32)
		for i := range model {
			model[i] = -1
		}
		for b := range 3 {
			for k := range 2 {
				model[4*b+k] = int32(prev*100 + 3*b + k)
			}
		}
		for i := range 4 {
			model[16+2*i] = int32(prev*100 + i)
		}
		for i := range x {
			if x[i] != model[i] {
				t.Fatalf("x[%d] = %d, want %d (all: %v)", i, x[i], model[i], x)
			}
		}
		if sig[0] != 5 || me == 0 && sig[1] != uint64(2*n) {
			t.Fatalf("signals %v", sig)
		}
		back := make([]int32, 6)
		shmem.IBGet(back, x, 3, 4, 2, 2, next) // back[0,1] back[3,4] <- x[0,1] x[4,5] on next
		if back[0] != int32(me*100) || back[1] != int32(me*100+1) || back[2] != 0 || back[3] != int32(me*100+3) || back[4] != int32(me*100+4) {
			t.Fatalf("IBGet: %v", back)
		}
		wantPanic(t, "shmem.IBPut: dst has 32 elements, 3 blocks of 2 at stride 16 need 34", func() { shmem.IBPut(x, src, 16, 1, 2, 3, next) })
		wantPanic(t, "shmem.IBGet: src stride 0 must be at least 1", func() { shmem.IBGet(back, x, 1, 0, 1, 1, next) })
		wantPanic(t, "shmem.Signal: invalid signal operation 9", func() { shmem.Signal(&sig[0], 1, 9, next) })
		if p := shmem.TeamPtr(shmem.TeamWorld(), &x[0], next); p != shmem.Ptr(&x[0], next) {
			t.Fatal("TeamPtr on the world is not Ptr")
		}
		if shmem.TeamPtr(shmem.TeamInvalid, &x[0], 0) != nil {
			t.Fatal("TeamPtr on TeamInvalid is not nil")
		}
		if node, sh := shmem.TeamNode(), shmem.TeamShared(); node.NPEs() != sh.NPEs() || node.MyPE() != sh.MyPE() || !shmemtest.MultiNode() && node.NPEs() != n {
			t.Fatalf("TeamNode: %d of %d", node.MyPE(), node.NPEs())
		}
		if major, minor := shmem.InfoGetVersion(); major != 1 || minor != 6 {
			t.Fatalf("InfoGetVersion: %d.%d, want 1.6", major, minor)
		}
		shmem.BarrierAll()
	})
}

// PEQuiet completes a put towards the PEs named (a flag after it carries the data's
// arrival), on the default context and a team context, whose PE numbers are the team's;
// a PE out of range panics naming it; sessions record their hints and change nothing.
func TestPEQuietAndSessions(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		next, prev := (me+1)%n, (me+n-1)%n
		x := mustAlloc[int64](t, 4)
		sig := mustAlloc[uint64](t, 2)
		shmem.P(&x[0], int64(me+100), next)
		shmem.PEQuiet(next, prev, next)
		shmem.PEQuiet()
		shmem.Signal(&sig[0], 1, shmem.SignalSet, next)
		shmem.SignalWaitUntil(&sig[0], shmem.CmpEQ, 1)
		if x[0] != int64(prev+100) {
			t.Fatalf("after PEQuiet and a signal: %d, want %d", x[0], prev+100)
		}
		// A team in reverse order: team PE i is world PE n-1-i.
		rev, err := shmem.TeamWorld().SplitStrided(n-1, -1, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := rev.CreateCtx(shmem.CtxPrivate)
		if err != nil {
			t.Fatal(err)
		}
		// A non-blocking put on the context, completed by its PEQuiet, then the flag on the
		// default context: across nodes another UCX worker, which nothing orders after the
		// context's put but PEQuiet.
		tnext := (rev.MyPE() + 1) % n // world PE prev
		big := mustAlloc[int64](t, 1<<16)
		src := make([]int64, len(big))
		for i := range src {
			src[i] = int64(me*1000 + i)
		}
		shmem.BarrierAll()
		shmem.CtxP(ctx, &x[1], int64(me+200), tnext)
		shmem.CtxPutNBI(ctx, big, src, tnext)
		ctx.PEQuiet(tnext)
		shmem.Signal(&sig[1], 1, shmem.SignalSet, prev)
		shmem.SignalWaitUntil(&sig[1], shmem.CmpEQ, 1)
		if x[1] != int64(next+200) {
			t.Fatalf("team context: %d, want %d", x[1], next+200)
		}
		for i, v := range big {
			if v != int64(next*1000+i) {
				t.Fatalf("PutNBI completed by PEQuiet: element %d = %d, want %d", i, v, next*1000+i)
			}
		}
		wantPanic(t, fmt.Sprintf("shmem.PEQuiet: pes[1] = %d: PE out of range [0,%d)", n, n), func() { shmem.PEQuiet(0, n) })
		wantPanic(t, "shmem.Ctx.PEQuiet: pes[0] = -1: PE out of range", func() { ctx.PEQuiet(-1) })
		shmem.CtxInvalid.PEQuiet(-5) // nothing, not even a check

		// Sessions.
		if active, _, _ := ctx.Session(); active {
			t.Fatal("a session before SessionStart")
		}
		ctx.SessionStart(shmem.CtxSessionBatch, &shmem.CtxSessionConfig{TotalOps: 100}, shmem.CtxSessionTotalOps)
		ctx.SessionStart(0, nil, 0)
		for range 10 {
			shmem.CtxAtomicAdd(ctx, &x[2], 1, tnext)
		}
		if active, opts, cfg := ctx.Session(); !active || opts != shmem.CtxSessionBatch || cfg.TotalOps != 100 {
			t.Fatalf("session: %v %v %+v", active, opts, cfg)
		}
		ctx.SessionStop()
		ctx.SessionStop()
		if active, opts, cfg := ctx.Session(); active || opts != 0 || cfg.TotalOps != 0 {
			t.Fatalf("after SessionStop: %v %v %+v", active, opts, cfg)
		}
		shmem.CtxDefault.SessionStart(shmem.CtxSessionBatch, nil, 0)
		if _, _, cfg := shmem.CtxDefault.Session(); cfg.TotalOps != ^uint64(0) {
			t.Fatalf("default TotalOps %d", cfg.TotalOps)
		}
		shmem.CtxDefault.SessionStop()
		shmem.CtxInvalid.SessionStart(shmem.CtxSessionBatch, nil, shmem.CtxSessionTotalOps)
		wantPanic(t, "shmem.Ctx.SessionStart: unknown options 0x8", func() { ctx.SessionStart(8, nil, 0) })
		wantPanic(t, "shmem.Ctx.SessionStart: config is nil", func() { ctx.SessionStart(0, nil, shmem.CtxSessionTotalOps) })
		ctx.Destroy()
		shmem.BarrierAll()
		if x[2] != 10 {
			t.Fatalf("atomics in a session: %d, want 10", x[2])
		}
		rev.Destroy()
		shmem.BarrierAll()
	})
}
