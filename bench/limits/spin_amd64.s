#include "textflag.h"

// func pause()
TEXT ·pause(SB), NOSPLIT|NOFRAME, $0-0
	PAUSE
	RET

// func storeRelease(p *int64, v int64)
// A plain MOV: x86 stores are release stores already, and unlike XCHG (what
// atomic.StoreInt64 compiles to) it does not wait for the store buffer to drain.
TEXT ·storeRelease(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, (AX)
	RET
