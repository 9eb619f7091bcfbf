//go:build amd64 || arm64

package main

// pause is the spin-wait hint (PAUSE, YIELD): it lets the core that writes the line
// take it sooner, which is how a well-made wait loop polls.
func pause()

// storeRelease stores v at p with release order and nothing stronger.
//
//go:noescape
func storeRelease(p *int64, v int64)
