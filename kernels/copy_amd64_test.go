//go:build !purego && !race

package kernels

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// The REP MOVSB kernel runs on every amd64 CPU (ERMS only makes it fast), so its wrapper is
// tested at every length, and with the overlap and distance checks in front of it, even on
// a CPU where no path uses it.
//
// copyChunked runs without a limit, so that its pieces are tested whatever the L3 (and on
// a CPU with ERMS, where Copy does not use it).
var archCopiers = []copier{{name: "copyERMS", run: copyERMS}, {name: "copyChunked", run: func(dst, src []byte) int {
	return copyChunked(dst, src, math.MaxInt)
}}}

// BenchmarkCopyERMSThreshold is where copyERMSMin comes from: the kernel (copyERMS, at any
// length) against copy() around the crossover, with the data hot (one dst, src pair, in L1
// while both fit) or cold (rotating through 1 or 8 MiB of pairs: from L2 or L3) on both or
// one side. Each iteration is a round of calls of copy() then of the kernel, timed apart;
// the metric erms/copy is the median over the rounds of copy()'s time over the kernel's (the
// kernel's speed in units of copy()'s), which load on the machine shifts far less than the
// two speeds themselves.
func BenchmarkCopyERMSThreshold(b *testing.B) {
	for _, n := range []int{4 << 10, 8 << 10, 16 << 10, 24 << 10, 32 << 10, 48 << 10} {
		for _, c := range []struct {
			name             string
			pool             int // bytes of each side's buffers
			coldDst, coldSrc bool
		}{{"hot", 0, false, false}, {"L2", 1 << 20, true, true}, {"L3", 8 << 20, true, true},
			{"colddst", 8 << 20, true, false}, {"coldsrc", 8 << 20, false, true}} {
			k := max(1, c.pool/n)
			hotD, hotS := aligned[byte](n), aligned[byte](n)
			ds, ss := make([][]byte, k), make([][]byte, k)
			for i := range ds {
				ds[i], ss[i] = hotD, hotS
				if c.coldDst {
					ds[i] = aligned[byte](n)
				}
				if c.coldSrc {
					ss[i] = aligned[byte](n)
				}
			}
			reps := max(1, (256<<10)/n) // a round of some 10 µs
			b.Run(fmt.Sprintf("%dKiB/%s", n>>10, c.name), func(b *testing.B) {
				var ratios []float64
				// Half a rotation apart, so that each finds its buffers as long untouched as
				// the other does.
				i, j := 0, k/2
				for b.Loop() {
					t0 := time.Now()
					for range reps {
						copy(ds[i], ss[i])
						if i++; i == k {
							i = 0
						}
					}
					t1 := time.Now()
					for range reps {
						copyERMS(ds[j], ss[j])
						if j++; j == k {
							j = 0
						}
					}
					t2 := time.Now()
					ratios = append(ratios, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "erms/copy")
			})
		}
	}
}
