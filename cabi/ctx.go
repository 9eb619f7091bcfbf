//go:build linux && cgo

package main

// #include <stdlib.h>
// #include "cabi.h"
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
)

// Communication contexts. A shmem_ctx_t points to a struct goshmem_ctx (cabi.h) that the C
// fast path reads (the team's PEs, whether the context lives) and whose id is the context's
// index here. SHMEM_CTX_DEFAULT points to goshmem_ctx_default, SHMEM_CTX_INVALID is null:
// every routine does nothing on it. A destroyed context's struct stays (live 0), so a later
// use is reported instead of reading freed memory.

var ctxs struct {
	mu sync.Mutex
	c  []*rt.Ctx // by id-1
}

// ctxOf is the engine's context of handle p: nil for SHMEM_CTX_INVALID. The default
// context is known by its id, 0, not by its address: a program linked with copy relocations
// has its own copy of goshmem_ctx_default, which SHMEM_CTX_DEFAULT points to.
func ctxOf(who string, p unsafe.Pointer) *rt.Ctx {
	if p == nil {
		return nil
	}
	id := uintptr((*C.struct_goshmem_ctx)(p).id)
	if id == 0 {
		return rt.DefaultCtx
	}
	ctxs.mu.Lock()
	defer ctxs.mu.Unlock()
	if id-1 >= uintptr(len(ctxs.c)) {
		rt.Check(who)
		panic(fmt.Sprintf("%s: context %p does not exist (not made by shmem_ctx_create or shmem_team_create_ctx)", who, p))
	}
	return ctxs.c[id-1]
}

// goshmem_ctx_create makes a context on team (a handle; SHMEM_TEAM_WORLD for
// shmem_ctx_create): 0, or non-zero with *ctx SHMEM_CTX_INVALID when team is
// SHMEM_TEAM_INVALID or the engine has no resources for another context (the reason on
// stderr).
//
//export goshmem_ctx_create
func goshmem_ctx_create(r int32, team uintptr, options int64, out *unsafe.Pointer) int32 {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if out == nil {
		panic(who + ": ctx is a null pointer")
	}
	*out = nil
	if team == 0 {
		return -1
	}
	t := teamOf(who, team)
	c, err := rt.NewCtx(who, t, rt.CtxOptions(options))
	if err != nil {
		warn(err)
		return 1
	}
	p := (*C.struct_goshmem_ctx)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_goshmem_ctx{}))))
	if p == nil {
		panic(who + ": out of memory")
	}
	ctxs.mu.Lock()
	ctxs.c = append(ctxs.c, c)
	id := len(ctxs.c)
	ctxs.mu.Unlock()
	*p = C.struct_goshmem_ctx{start: C.int(t.G.Start), stride: C.int(t.G.Stride), size: C.int(t.G.Size), live: 1, id: C.uintptr_t(id)}
	if !t.G.Strided() {
		p.size = 0 // a listed team (a node's PEs): C cannot translate its PEs, Go does
	}
	*out = unsafe.Pointer(p)
	return 0
}

// goshmem_ctx_destroy completes the context's operations and ends it; SHMEM_CTX_INVALID:
// nothing.
//
//export goshmem_ctx_destroy
func goshmem_ctx_destroy(r int32, ctx unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	c.Destroy(who)
	(*C.struct_goshmem_ctx)(ctx).live = 0
}

// goshmem_ctx_get_team stores the context's team: 0, or non-zero with SHMEM_TEAM_INVALID for
// SHMEM_CTX_INVALID.
//
//export goshmem_ctx_get_team
func goshmem_ctx_get_team(r int32, ctx unsafe.Pointer, team *uintptr) int32 {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if team == nil {
		panic(who + ": team is a null pointer")
	}
	*team = 0
	c := ctxOf(who, ctx)
	if c == nil {
		return -1
	}
	*team = handleOf(c.Team)
	if *team == 0 {
		return -1
	}
	return 0
}

// defaultCtx is the library's own goshmem_ctx_default (the tests' SHMEM_CTX_DEFAULT).
func defaultCtx() unsafe.Pointer { return unsafe.Pointer(&C.goshmem_ctx_default) }

// goshmem_ctx_session_start starts a session on ctx (OpenSHMEM 1.6), or ors options into
// the one started; config, when config_mask selects its total_ops, replaces that hint.
// SHMEM_CTX_INVALID: nothing.
//
//export goshmem_ctx_session_start
func goshmem_ctx_session_start(r int32, ctx unsafe.Pointer, options int64, config unsafe.Pointer, mask int64) {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	c := ctxOf(who, ctx)
	if c == nil {
		return
	}
	var total uint64
	if mask&rt.SessionTotalOps != 0 {
		if config == nil {
			panic(who + ": config is a null pointer, but config_mask selects its total_ops")
		}
		total = uint64((*C.shmem_ctx_session_config_t)(config).total_ops)
	}
	c.SessionStart(who, options, mask, total)
}

// goshmem_ctx_session_stop ends ctx's session; SHMEM_CTX_INVALID: nothing.
//
//export goshmem_ctx_session_stop
func goshmem_ctx_session_stop(r int32, ctx unsafe.Pointer) {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if c := ctxOf(who, ctx); c != nil {
		c.SessionStop(who)
	}
}
