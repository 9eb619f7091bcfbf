//go:build amd64 && !purego

package kernels

import "github.com/klauspost/cpuid/v2"

func archInit() {
	if cpuid.CPU.Supports(cpuid.AVX2) {
		impls[PathAVX2] = &impl{PathAVX2, &avx2Kernels, &stridedAVX2}
	}
	if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512DQ, cpuid.AVX512VL, cpuid.BMI2) {
		impls[PathAVX512] = &impl{PathAVX512, &avx512Kernels, &stridedAVX512}
	}
}
