//go:build !purego

#include "textflag.h"

// func FenceFull()
TEXT ·FenceFull(SB), NOSPLIT|NOFRAME, $0-0
	SFENCE          // drain non-temporal stores, which locked instructions do not order
	LOCK            // a locked read-modify-write orders every ordinary load and store
	ORQ $0, (SP)    // around it; it changes nothing (the return address, or 0), and costs
	RET             // a quarter of MFENCE on Zen 5 (7 ns against 27 ns measured)

// func FenceStore()
TEXT ·FenceStore(SB), NOSPLIT|NOFRAME, $0-0
	SFENCE // orders non-temporal stores too; ordinary stores are already in order
	RET

// func Pause()
TEXT ·Pause(SB), NOSPLIT|NOFRAME, $0-0
	PAUSE // spin-wait hint: saves power, yields the core to its SMT sibling
	RET

// func StoreRelease(p *uint64, v uint64)
TEXT ·StoreRelease(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, (AX) // x86 keeps stores in order: a plain store is a release store
	RET
