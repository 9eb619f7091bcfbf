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

// StoreRelease stores v at p with release order and nothing stronger: a plain MOV on amd64
// (x86 stores are release stores; atomic.StoreUint64's XCHG also waits for the store
// buffer to drain, a cache-line transfer when the line is another core's), STLR on arm64.
// A flag whose writer need not wait for it to land (a barrier's, an eager message's) uses it.
//
//go:noescape
func StoreRelease(p *uint64, v uint64)

// Pause hints the CPU that this is a spin-wait loop: PAUSE on amd64, YIELD on arm64.
//
//go:noescape
func Pause()
