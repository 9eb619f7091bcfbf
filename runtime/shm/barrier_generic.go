//go:build !((amd64 || arm64) && !purego)

package shm

import "sync/atomic"

var fenceWord atomic.Uint64

// FenceFull orders earlier loads and stores before later ones. Without assembly it relies
// on a sequentially consistent read-modify-write, which is a full barrier on the
// architectures Go supports with LSE-style atomics and at least a release-acquire pair
// elsewhere.
func FenceFull() { fenceWord.Add(1) }

// FenceStore orders earlier stores before later stores.
func FenceStore() { fenceWord.Add(1) }

// Pause is a spin-wait hint; without assembly there is none.
func Pause() {}

// StoreRelease stores v at p with at least release order.
func StoreRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
