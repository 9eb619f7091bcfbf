//go:build (amd64 || arm64) && !purego

package shm

// FenceFull orders every earlier load and store of this thread before every later one, as
// seen by other CPUs: SFENCE then a locked no-op on amd64 (MFENCE's effect, at a quarter of
// its cost), DMB ISH on arm64. Quiet uses it.
//
//go:noescape
func FenceFull()

// FenceStore orders earlier stores before later stores: SFENCE on amd64 (x86 keeps ordinary
// stores in order; SFENCE also drains non-temporal ones), DMB ISHST on arm64. Fence uses it.
//
//go:noescape
func FenceStore()

// Pause hints the CPU that this is a spin-wait loop: PAUSE on amd64, YIELD on arm64.
//
//go:noescape
func Pause()
