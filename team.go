package shmem

import (
	"fmt"

	rt "github.com/goshmem/shmem/runtime"
)

// Team is an ordered set of PEs with their own collective state (shmem_team_t). The zero
// Team is TeamInvalid.
type Team struct{ t *rt.Team }

// TeamConfig configures a new team (shmem_team_config_t).
type TeamConfig struct {
	NumContexts int
}

// TeamInvalid is the invalid team: a split's result on PEs outside the new team.
var TeamInvalid = Team{}

// TeamWorld is every PE of the job; TeamShared every PE that shares memory with this one
// (on one node, the world). Both are valid after Init.
func TeamWorld() Team  { rt.Check("shmem.TeamWorld"); return Team{rt.World} }
func TeamShared() Team { rt.Check("shmem.TeamShared"); return Team{rt.Shared} }

// TeamNode is every PE on this PE's node (OpenSHMEM 1.6's SHMEM_TEAM_NODE): on one node,
// TeamShared.
func TeamNode() Team { rt.Check("shmem.TeamNode"); return Team{rt.Shared} }

// TeamPtr is a direct pointer to the copy of the symmetric object *p on PE pe of team t
// (OpenSHMEM 1.6's shmem_team_ptr), or nil when that PE's memory is not reachable by loads
// and stores or t is TeamInvalid.
func TeamPtr[T any](t Team, p *T, pe int) *T {
	const who = "shmem.TeamPtr"
	rt.Check(who)
	if t.t == nil {
		return nil
	}
	t.t.Check(who)
	if pe < 0 || pe >= t.t.G.Size {
		panic(fmt.Sprintf("%s: PE %d out of range [0,%d) of the team", who, pe, t.t.G.Size))
	}
	return Ptr(p, t.t.G.PE(pe))
}

// Valid reports whether t is a team this PE belongs to.
func (t Team) Valid() bool { return t.t != nil }

// MyPE is this PE's number in t, or -1 for TeamInvalid.
func (t Team) MyPE() int {
	if t.t == nil {
		return -1
	}
	t.t.Check("shmem.Team.MyPE")
	return t.t.Me
}

// NPEs is the number of PEs in t, or -1 for TeamInvalid.
func (t Team) NPEs() int {
	if t.t == nil {
		return -1
	}
	t.t.Check("shmem.Team.NPEs")
	return t.t.G.Size
}

// Config is the configuration t was made with.
func (t Team) Config() TeamConfig {
	t.t.Check("shmem.Team.Config")
	return TeamConfig{NumContexts: t.t.Config.NumContexts}
}

// TranslatePE is the number in dst of the PE numbered pe in t, or -1 if it is not in dst.
func (t Team) TranslatePE(pe int, dst Team) int {
	rt.Check("shmem.Team.TranslatePE")
	return t.t.Translate(pe, dst.t)
}

// SplitStrided makes the team of t's members start, start+stride, ... (size of them). Every
// member of t calls it; members outside the new team get TeamInvalid and no error. An
// invalid triplet or the lack of a team slot free on every member is an error on all.
func (t Team) SplitStrided(start, stride, size int, cfg *TeamConfig) (Team, error) {
	nt, err := t.t.SplitStrided("shmem.Team.SplitStrided", start, stride, size, rtConfig(cfg))
	return Team{nt}, err
}

// Split2D arranges t's members in a grid xrange wide (the last row may be short): xteam is
// this PE's row, yteam its column. Every member of t calls it.
func (t Team) Split2D(xrange int, xcfg, ycfg *TeamConfig) (xteam, yteam Team, err error) {
	x, y, err := t.t.Split2D("shmem.Team.Split2D", xrange, rtConfig(xcfg), rtConfig(ycfg))
	return Team{x}, Team{y}, err
}

func rtConfig(c *TeamConfig) rt.TeamConfig {
	if c == nil {
		return rt.TeamConfig{}
	}
	return rt.TeamConfig{NumContexts: c.NumContexts}
}

// Sync waits until every member of t has called it (shmem_team_sync).
func (t Team) Sync() { t.t.Sync("shmem.Team.Sync") }

// Destroy synchronizes t's members and frees the team; every member calls it.
func (t Team) Destroy() { t.t.Destroy("shmem.Team.Destroy") }
