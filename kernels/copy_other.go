//go:build purego || !amd64 || race

package kernels

// copyLarge is Copy from copyERMSMin bytes on: copy(), as there is no REP MOVSB kernel in
// this build. Under the race detector the kernel is left out so that Copy's reads and writes
// are seen, as copy()'s are (assembly is not instrumented). arm64 has no kernel: Go's memmove
// there already copies with paired 16-byte loads and stores, and there was no arm64 machine
// to measure an alternative on (only qemu, whose timings mean nothing).
func copyLarge(dst, src []byte) int {
	return copy(dst, src)
}
