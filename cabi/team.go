//go:build linux && cgo

package main

// #include "shmem.h"
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	rt "github.com/goshmem/shmem/runtime"
	"github.com/goshmem/shmem/runtime/shm"
)

// Teams. A shmem_team_t is a small number, not a pointer: SHMEM_TEAM_INVALID is 0,
// SHMEM_TEAM_WORLD 1, SHMEM_TEAM_SHARED 2, SHMEM_TEAM_NODE 3 (shmem.h), and teams made by
// splits get numbers
// from firstHandle on, reused after shmem_team_destroy. A split's new team on a PE that is
// not in it is SHMEM_TEAM_INVALID.

const (
	handleWorld  = 1
	handleShared = 2
	handleNode   = 3 // SHMEM_TEAM_NODE (OpenSHMEM 1.6): on one node, the shared team
	firstHandle  = 4
	// Every PE has at most shm.MaxTeams teams at once, the predefined ones included.
	numHandles = shm.MaxTeams
)

var teams struct {
	mu sync.Mutex // held by splits and destroys; lookups are lock-free
	h  [numHandles]atomic.Pointer[rt.Team]
}

// teamOf is the team of handle h; an invalid handle panics (after the not-initialized
// check, which says more).
func teamOf(who string, h uintptr) *rt.Team {
	switch h {
	case handleWorld:
		return rt.World
	case handleShared, handleNode:
		return rt.Shared
	}
	if i := h - firstHandle; i < numHandles {
		if t := teams.h[i].Load(); t != nil {
			return t
		}
	}
	rt.Check(who)
	if h == 0 {
		panic(who + ": invalid team (SHMEM_TEAM_INVALID, or a split this PE is not in)")
	}
	panic(fmt.Sprintf("%s: team %#x does not exist (destroyed, or never created)", who, h))
}

// newHandle records t and returns its handle (0 for a nil t).
func newHandle(who string, t *rt.Team) uintptr {
	if t == nil {
		return 0
	}
	teams.mu.Lock()
	defer teams.mu.Unlock()
	for i := range teams.h {
		if teams.h[i].Load() == nil {
			teams.h[i].Store(t)
			return uintptr(i) + firstHandle
		}
	}
	panic(fmt.Sprintf("%s: more than %d teams at once", who, numHandles))
}

// handleOf is team t's handle, 0 if it has none (destroyed).
func handleOf(t *rt.Team) uintptr {
	switch t {
	case rt.World:
		return handleWorld
	case rt.Shared:
		return handleShared
	}
	for i := range teams.h {
		if teams.h[i].Load() == t {
			return uintptr(i) + firstHandle
		}
	}
	return 0
}

// teamConfig reads a shmem_team_config_t (one int, num_contexts) when mask selects it.
func teamConfig(config unsafe.Pointer, mask int64) rt.TeamConfig {
	if config == nil || mask&C.SHMEM_TEAM_NUM_CONTEXTS == 0 {
		return rt.TeamConfig{}
	}
	return rt.TeamConfig{NumContexts: int(*(*int32)(config))}
}

//export goshmem_team_my_pe
func goshmem_team_my_pe(r int32, team uintptr) int32 {
	defer catch(r)
	if team == 0 {
		return -1
	}
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	return int32(t.Me)
}

//export goshmem_team_n_pes
func goshmem_team_n_pes(r int32, team uintptr) int32 {
	defer catch(r)
	if team == 0 {
		return -1
	}
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	return int32(t.G.Size)
}

//export goshmem_team_get_config
func goshmem_team_get_config(r int32, team uintptr, mask int64, config unsafe.Pointer) int32 {
	defer catch(r)
	if team == 0 {
		return -1
	}
	who := name(r)
	t := teamOf(who, team)
	t.Check(who)
	if config != nil && mask&C.SHMEM_TEAM_NUM_CONTEXTS != 0 {
		*(*int32)(config) = int32(t.Config.NumContexts)
	}
	return 0
}

//export goshmem_team_translate_pe
func goshmem_team_translate_pe(r int32, src uintptr, pe int32, dst uintptr) int32 {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if src == 0 || dst == 0 {
		return -1
	}
	return int32(teamOf(who, src).Translate(int(pe), teamOf(who, dst)))
}

// goshmem_team_split_strided returns 0, or -1 when the split cannot be made (an invalid
// triplet, no team slot free on every PE: the reason goes to stderr) or the parent is
// SHMEM_TEAM_INVALID; *new_team is then SHMEM_TEAM_INVALID.
//
//export goshmem_team_split_strided
func goshmem_team_split_strided(r int32, parent uintptr, start, stride, size int32, config unsafe.Pointer, mask int64, newTeam unsafe.Pointer) int32 {
	defer catch(r)
	who := name(r)
	*(*uintptr)(newTeam) = 0
	if parent == 0 {
		rt.Check(who)
		return -1
	}
	t, err := teamOf(who, parent).SplitStrided(who, int(start), int(stride), int(size), teamConfig(config, mask))
	if err != nil {
		warn(err)
		return -1
	}
	*(*uintptr)(newTeam) = newHandle(who, t)
	return 0
}

//export goshmem_team_split_2d
func goshmem_team_split_2d(r int32, parent uintptr, xrange int32, xconfig unsafe.Pointer, xmask int64, xteam unsafe.Pointer, yconfig unsafe.Pointer, ymask int64, yteam unsafe.Pointer) int32 {
	defer catch(r)
	who := name(r)
	*(*uintptr)(xteam), *(*uintptr)(yteam) = 0, 0
	if parent == 0 {
		rt.Check(who)
		return -1
	}
	x, y, err := teamOf(who, parent).Split2D(who, int(xrange), teamConfig(xconfig, xmask), teamConfig(yconfig, ymask))
	if err != nil {
		warn(err)
		return -1
	}
	*(*uintptr)(xteam) = newHandle(who, x)
	*(*uintptr)(yteam) = newHandle(who, y)
	return 0
}

//export goshmem_team_destroy
func goshmem_team_destroy(r int32, team uintptr) {
	defer catch(r)
	who := name(r)
	if team == 0 { // SHMEM_TEAM_INVALID: nothing to destroy
		rt.Check(who)
		return
	}
	t := teamOf(who, team)
	t.Destroy(who)
	teams.mu.Lock()
	teams.h[team-firstHandle].Store(nil)
	teams.mu.Unlock()
}

// goshmem_team_ptr is shmem_team_ptr: shmem_ptr of PE pe of team (NULL for
// SHMEM_TEAM_INVALID).
//
//export goshmem_team_ptr
func goshmem_team_ptr(r int32, team uintptr, dest unsafe.Pointer, pe int32) unsafe.Pointer {
	defer catch(r)
	who := name(r)
	rt.Check(who)
	if team == 0 {
		return nil
	}
	t := teamOf(who, team)
	t.Check(who)
	if pe < 0 || int(pe) >= t.G.Size {
		return nil
	}
	return goshmem_ptr(r, dest, int32(t.G.PE(int(pe))))
}
