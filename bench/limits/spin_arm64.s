#include "textflag.h"

// func pause()
TEXT ·pause(SB), NOSPLIT|NOFRAME, $0-0
	YIELD
	RET

// func storeRelease(p *int64, v int64)
TEXT ·storeRelease(SB), NOSPLIT|NOFRAME, $0-16
	MOVD p+0(FP), R0
	MOVD v+8(FP), R1
	STLR R1, (R0)
	RET
