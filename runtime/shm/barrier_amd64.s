//go:build !purego

#include "textflag.h"

// func FenceFull()
TEXT ·FenceFull(SB), NOSPLIT|NOFRAME, $0-0
	MFENCE // loads and stores before it are globally visible before any after it
	RET

// func FenceStore()
TEXT ·FenceStore(SB), NOSPLIT|NOFRAME, $0-0
	SFENCE // orders non-temporal stores too; ordinary stores are already in order
	RET

// func Pause()
TEXT ·Pause(SB), NOSPLIT|NOFRAME, $0-0
	PAUSE // spin-wait hint: saves power, yields the core to its SMT sibling
	RET
