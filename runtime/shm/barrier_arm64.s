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
