package kernels

// copyERMSMin is the length from which Copy runs REP MOVSB, on a path that has it. On the
// Zen 5 this was measured on (BenchmarkCopyERMSThreshold; bench/KERNELS.md, "Copy"), copy()
// is as fast or faster up to 16 KiB in some cases (data hot in L1, or the source coming from
// L3: 0.83-0.98x), the two tie at 24 KiB (0.94-1.09x for a cold source, 0.98-1.03x hot), and
// from 32 KiB, where hot source and destination together outgrow the 48 KiB L1, REP MOVSB is
// 1.03-1.9x copy() in every case.
const copyERMSMin = 32 << 10

// Copy copies min(len(dst), len(src)) bytes from src to dst and returns that count: the
// contract of copy(dst, src), overlapping slices included (Copy is then a memmove).
//
// It is copy() except on amd64 CPUs with ERMS, where copies of 32 KiB or more run REP MOVSB
// (bench/KERNELS.md has the numbers, measured on Zen 5): 1.2-1.3x copy() at 64-256 KiB. From
// 1 MiB, Go's memmove writes with non-temporal stores, which leave the destination in memory:
// the copy alone is faster than REP MOVSB's at 1-4 MiB (REP MOVSB 0.84-0.99x), but reading the
// destination afterwards, as the runtime does with what it puts, gets and gathers, is not:
// copy then read is 1.2-1.8x faster with REP MOVSB. Copy runs copy() instead when the slices
// overlap (REP MOVSB only copies forward) and when dst starts 1 to 63 bytes past src modulo
// 4 KiB (REP MOVSB is slow there). On amd64 CPUs without ERMS, copies of 1 MiB up to half the
// L3 run copy() in 512 KiB pieces, whose stores stay cached (copyChunked).
//
// On the generic path (Use(PathGeneric)), under -tags purego and with the race detector
// (which does not see into assembly), Copy is copy().
func Copy(dst, src []byte) int {
	// Small enough to inline: a short Copy is copy() and two compares (BenchmarkCopySmall).
	if len(dst) >= copyERMSMin && len(src) >= copyERMSMin {
		return copyLarge(dst, src)
	}
	return copy(dst, src)
}
