//go:build purego || !amd64 || race

package kernels

// No copy kernel in this build: Copy on each path is all there is to test.
var archCopiers []copier
