//go:build amd64 && !purego

package kernels

// scanAVX512Min is the fewest elements the AVX-512 scans run in assembly: below it the Go
// reference is as fast (a call into assembly and the masks cost a few ns).
const scanAVX512Min = 4
