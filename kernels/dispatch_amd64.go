//go:build amd64 && !purego

package kernels

import "github.com/klauspost/cpuid/v2"

func archInit() {
	// REP MOVSB needs no vector unit, but paths are what tests and benchmarks switch: both
	// vector paths carry it and the generic path is copy() (so a CPU with ERMS and no AVX2
	// copies with copy()). ERMS (enhanced REP MOVSB) is the flag by which the CPU says REP
	// MOVSB is a fast bulk copy; without it copy() stays. FSRM (fast short REP MOVSB) is not
	// checked: copies under copyERMSMin never reach the kernel. Only AMD Zen 5 was measured;
	// on Intel CPUs with ERMS and FSRM, Go's memmove itself copies 2 KiB or more with REP
	// MOVSQ when dst is 16-byte aligned (runtime/cpuflags_amd64.go), so Copy changes less.
	erms := cpuid.CPU.Supports(cpuid.ERMS)
	if cpuid.CPU.Supports(cpuid.AVX2) {
		impls[PathAVX2] = &impl{path: PathAVX2, comb: &avx2Kernels, strided: &stridedAVX2, scan: &avx2Scans, copyERMS: erms}
	}
	if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512DQ, cpuid.AVX512VL, cpuid.BMI2) {
		impls[PathAVX512] = &impl{path: PathAVX512, comb: &avx512Kernels, strided: &stridedAVX512, scan: &avx512Scans, copyERMS: erms}
	}
}
