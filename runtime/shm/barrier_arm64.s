//go:build !purego

#include "textflag.h"

// func FenceFull()
TEXT ·FenceFull(SB), NOSPLIT|NOFRAME, $0-0
	DMB $0xb // DMB ISH: full barrier, inner shareable domain
	RET

// func FenceStore()
TEXT ·FenceStore(SB), NOSPLIT|NOFRAME, $0-0
	DMB $0xa // DMB ISHST: store-store barrier, inner shareable domain
	RET

// func Pause()
TEXT ·Pause(SB), NOSPLIT|NOFRAME, $0-0
	YIELD // spin-wait hint
	RET

// func StoreRelease(p *uint64, v uint64)
TEXT ·StoreRelease(SB), NOSPLIT|NOFRAME, $0-16
	MOVD p+0(FP), R0
	MOVD v+8(FP), R1
	STLR R1, (R0) // store-release
	RET
