package shmem_test

import (
	"math/rand/v2"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// 10,000 rounds: in every round each PE puts a block to a random peer and raises a flag
// there; every PE can simulate every PE's choices (shared seeds), so it knows which of its
// mailbox slots fill in an epoch. It drains them with TestSome, WaitUntilSome or
// WaitUntilAny (by epoch) over random status masks, checking each block as its flag is seen.
func TestStressPutFlags(t *testing.T) {
	forSizes(t, func(t *testing.T, me, n int) {
		const window, words = 10, 16
		rounds := shmemtest.Iters(10_000)
		slots := n * window // slot s*window+k: from sender s, k-th round of the epoch
		box := mustAlloc[int64](t, slots*words)
		flags := mustAlloc[int64](t, slots)
		idx := make([]int, slots)
		status := make([]int32, slots)
		block := make([]int64, words)
		content := func(sender, round, i int) int64 { return int64(round)<<24 | int64(sender)<<12 | int64(i) }
		dest := func(sender, round int) int {
			return rand.New(rand.NewPCG(uint64(sender), uint64(round))).IntN(n)
		}
		for epoch := 0; epoch < rounds/window; epoch++ {
			for k := range window {
				r := epoch*window + k
				to := dest(me, r)
				for i := range block {
					block[i] = content(me, r, i)
				}
				s := me*window + k
				shmem.Put(box[s*words:(s+1)*words], block, to)
				shmem.Fence()
				if r%2 == 0 {
					shmem.AtomicSet(&flags[s], int64(r+1), to)
				} else {
					shmem.P(&flags[s], int64(r+1), to)
				}
			}
			// Which slots fill here, split into two random halves drained one after the other.
			rng := rand.New(rand.NewPCG(uint64(me), uint64(epoch)+1<<32))
			var expect [2][]int
			for s := range n {
				for k := range window {
					if dest(s, epoch*window+k) == me {
						h := rng.IntN(2)
						expect[h] = append(expect[h], s*window+k)
					}
				}
			}
			for h := range 2 {
				for i := range status {
					status[i] = 1
				}
				for _, s := range expect[h] {
					status[s] = 0
				}
				for left := len(expect[h]); left > 0; {
					var got []int
					switch epoch % 3 {
					case 0:
						got = idx[:shmem.TestSome(flags, idx, status, shmem.CmpNE, 0)]
					case 1:
						got = idx[:shmem.WaitUntilSome(flags, idx, status, shmem.CmpNE, 0)]
					case 2:
						got = []int{shmem.WaitUntilAny(flags, status, shmem.CmpNE, 0)}
					}
					for _, s := range got {
						if status[s] != 0 {
							t.Fatalf("epoch %d: index %d returned though excluded or done", epoch, s)
						}
						sender, k := s/window, s%window
						r := epoch*window + k
						if flags[s] != int64(r+1) {
							t.Fatalf("epoch %d slot %d: flag %d, want %d", epoch, s, flags[s], r+1)
						}
						for i := range words {
							if v := box[s*words+i]; v != content(sender, r, i) {
								t.Fatalf("epoch %d: block from PE %d round %d word %d = %#x, want %#x", epoch, sender, r, i, v, content(sender, r, i))
							}
						}
						status[s] = 1
						flags[s] = 0
						left--
					}
				}
			}
			shmem.BarrierAll() // senders reuse the slots only after they were drained
		}
	}, 2, 3, 8)
}
