package rt

// Quiet completes every put, AMO and store this PE issued before it: on shared memory the
// copies are done when the calls return, so what remains is visibility order, a full
// barrier (SFENCE and a locked no-op on amd64, DMB ISH on arm64). In a multi-node job it
// also waits until the engine has completed them at their targets. It is the default
// context's (Ctx.Quiet), whose remote part is the engine's transport.
func Quiet() { DefaultCtx.Quiet() }

// Fence orders this PE's puts to each PE before its later puts to that PE: a store barrier
// (SFENCE on amd64, which also covers non-temporal stores; DMB ISHST on arm64), and the
// engine's fence in a multi-node job (the default context's, Ctx.Fence).
func Fence() { DefaultCtx.Fence() }
