package rt

import (
	"fmt"
	"unsafe"
)

// AMOTarget checks an atomic's target (symmetric, naturally aligned, a valid PE) and returns
// its address on PE pe.
func AMOTarget(who string, p unsafe.Pointer, size uintptr, pe int) unsafe.Pointer {
	Check(who)
	CheckPE(who, pe)
	if uintptr(p)&(size-1) != 0 {
		panic(fmt.Sprintf("%s: target %#x is not %d-byte aligned", who, uintptr(p), size))
	}
	CheckSym(who, "dst", p, size)
	return Remote(p, pe)
}

// AMOTargetArg is AMOTarget for the argument named arg (PutSignal's sig) in messages.
func AMOTargetArg(who, arg string, p unsafe.Pointer, size uintptr, pe int) unsafe.Pointer {
	Check(who)
	CheckPE(who, pe)
	if uintptr(p)&(size-1) != 0 {
		panic(fmt.Sprintf("%s: %s %#x is not %d-byte aligned", who, arg, uintptr(p), size))
	}
	CheckSym(who, arg, p, size)
	return Remote(p, pe)
}

// LocalTarget checks a wait or test variable: symmetric and naturally aligned.
func LocalTarget(who, arg string, p unsafe.Pointer, size uintptr) {
	Check(who)
	if uintptr(p)&(size-1) != 0 {
		panic(fmt.Sprintf("%s: %s %#x is not %d-byte aligned", who, arg, uintptr(p), size))
	}
	CheckSym(who, arg, p, size)
}
