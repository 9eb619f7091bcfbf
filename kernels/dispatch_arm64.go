//go:build arm64 && !purego

package kernels

// Advanced SIMD is part of every arm64 (ARMv8-A) CPU Go runs on.
func archInit() {
	impls[PathNEON] = &impl{path: PathNEON, comb: &neonKernels, strided: &stridedNEON, scan: &neonScans}
}
