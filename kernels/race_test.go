//go:build race

package kernels

// checkptr (on with -race) rejects misaligned element pointers: test aligned offsets only.
const raceEnabled = true
