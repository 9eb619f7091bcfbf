package shmem_test

import (
	"hash/fnv"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// TestSoak runs a mixed workload at 8 PEs (oversubscribed here): puts with flags, AMOs on
// random PEs, waits, and every collective over random active sets and teams, each result
// checked against its serial reference. It runs 10 s (2 s with -short); GOSHMEM_SOAK sets
// the duration, e.g. an hour:
//
//	GOSHMEM_SOAK=1h go test -run TestSoak -timeout 2h .
func TestSoak(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	if s := os.Getenv("GOSHMEM_SOAK"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatalf("GOSHMEM_SOAK=%q: %v", s, err)
		}
	}
	if !shmemtest.Run(t, 8, shmemtest.Options{Timeout: d + 5*time.Minute}) {
		return
	}
	me, n := initPE(t)
	c := &collCase{rng: rand.New(rand.NewPCG(2026, 12)), me: me, n: n}
	c.pSync[0] = mustAlloc[int64](t, shmem.SyncSize)
	c.pSync[1] = mustAlloc[int64](t, shmem.SyncSize)
	kinds := append(append([]func(*testing.T, *collCase){}, reduceTypes...),
		alltoallCase[int64](false), alltoallCase[float32](true), bcastCase[int64], bcastCase[uint32],
		collectCase[int64], collectCase[uint32], soakPutFlags, soakAMO)
	more := mustAlloc[int32](t, 1)
	end := time.Now().Add(d)
	sum := fnv.New64a()
	rounds := 0
	for ; ; rounds++ {
		// PE 0 decides, for everyone, whether to go on: a team broadcast each round.
		if me == 0 {
			more[0] = 0
			if time.Now().Before(end) {
				more[0] = 1
			}
		}
		if err := shmem.Broadcast(shmem.TeamWorld(), more, more, 0); err != nil {
			t.Fatal(err)
		}
		if more[0] == 0 {
			break
		}
		c.trial = rounds
		k := c.rng.IntN(len(kinds))
		kinds[k](t, c)
		sum.Write([]byte{byte(k)})
	}
	// Every PE ran the same sequence of cases: compare the fingerprints of the sequence.
	fp := mustAlloc[uint64](t, n)
	mine := mustAlloc[uint64](t, 1)
	mine[0] = sum.Sum64()
	shmem.FCollect(shmem.TeamWorld(), fp, mine)
	for pe, v := range fp {
		if v != fp[0] {
			t.Fatalf("PE %d ran another sequence of cases than PE 0", pe)
		}
	}
	if me == 0 {
		t.Logf("soak: %d rounds in %v at %d PEs", rounds, d, n)
	}
}

// soakPutFlags: each PE puts a block to a random peer and raises a flag there with an AMO;
// every PE waits for the flags of the blocks it receives and checks them.
func soakPutFlags(t *testing.T, c *collCase) {
	const words = 32
	box := mustAlloc[int64](t, c.n*words)
	flags := mustAlloc[int64](t, c.n)
	dest := make([]int, c.n)
	for pe := range dest {
		dest[pe] = c.rng.IntN(c.n)
	}
	block := make([]int64, words)
	for i := range block {
		block[i] = int64(c.trial)<<20 | int64(c.me)<<10 | int64(i)
	}
	shmem.Put(box[c.me*words:(c.me+1)*words], block, dest[c.me])
	shmem.Fence()
	shmem.AtomicSet(&flags[c.me], int64(c.trial+1), dest[c.me])
	status := make([]int32, c.n)
	for pe, d := range dest {
		if d != c.me {
			status[pe] = 1
		}
	}
	shmem.WaitUntilAll(flags, status, shmem.CmpEQ, int64(c.trial+1))
	for pe, d := range dest {
		if d != c.me {
			continue
		}
		for i := range words {
			if v := box[pe*words+i]; v != int64(c.trial)<<20|int64(pe)<<10|int64(i) {
				t.Fatalf("round %d: block from PE %d word %d = %#x", c.trial, pe, i, v)
			}
		}
	}
	shmem.BarrierAll()
	shmem.Free(flags)
	shmem.Free(box)
}

// soakAMO: every PE adds to counters on random PEs; the owners check the totals.
func soakAMO(t *testing.T, c *collCase) {
	ctr := mustAlloc[uint64](t, 1)
	want := uint64(0)
	for pe := range c.n {
		target, v := c.rng.IntN(c.n), uint64(c.rng.IntN(1000))
		if pe == c.me {
			shmem.AtomicFetchAdd(&ctr[0], v, target)
		}
		if target == c.me {
			want += v
		}
	}
	shmem.BarrierAll()
	if ctr[0] != want {
		t.Fatalf("round %d: counter %d, want %d", c.trial, ctr[0], want)
	}
	shmem.BarrierAll()
	shmem.Free(ctr)
}
