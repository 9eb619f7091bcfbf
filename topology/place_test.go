package topology

import (
	"strconv"
	"strings"
	"testing"
)

// jobFlags parses the placement part of a shmemrun command line: "-n 4 --map-by
// socket --bind-to core --cpu-list 0-3 --oversubscribe".
func jobFlags(t testing.TB, line string) (int, Options, error) {
	t.Helper()
	var o Options
	n := 0
	f := strings.Fields(line)
	for i := 0; i < len(f); i++ {
		arg := func() string {
			i++
			if i == len(f) {
				t.Fatalf("%q: %s needs a value", line, f[i-1])
			}
			return f[i]
		}
		var err error
		switch f[i] {
		case "-n":
			if n, err = strconv.Atoi(arg()); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		case "--map-by":
			o.MapBy, err = ParseMapBy(arg())
		case "--bind-to":
			o.BindTo, err = ParseBindTo(arg())
		case "--cpu-list":
			v := arg()
			if o.CPUList, err = ParseCPUList(v); err != nil {
				err = &flagError{"--cpu-list " + v + ": " + err.Error()}
			}
		case "--oversubscribe":
			o.Oversubscribe = true
		default:
			t.Fatalf("%q: unknown flag %s", line, f[i])
		}
		if err != nil {
			return 0, Options{}, err
		}
	}
	return n, o, nil
}

type flagError struct{ s string }

func (e *flagError) Error() string { return e.s }

func placeLine(t testing.TB, tp *Topology, line string) ([]Binding, error) {
	t.Helper()
	n, o, err := jobFlags(t, line)
	if err != nil {
		return nil, err
	}
	return Place(tp, n, o)
}

func TestPlace(t *testing.T) {
	for _, c := range []struct {
		tree, flags string
		want        []string // the first bindings, in String form
		over        bool     // Oversubscribed
	}{
		// Defaults: one core each while there are enough cores, unbound past that.
		{"zen5-vm-2c", "-n 2", []string{"PE 0: socket 0 numa 0 core 0 cpus 0", "PE 1: socket 0 numa 0 core 1 cpus 1"}, false},
		{"zen5-vm-2c", "-n 3", []string{"PE 0: unbound", "PE 1: unbound", "PE 2: unbound"}, true},
		{"zen5-vm-2c", "-n 4 --bind-to core --oversubscribe", []string{"PE 0: socket 0 numa 0 core 0 cpus 0", "PE 1: socket 0 numa 0 core 1 cpus 1", "PE 2: socket 0 numa 0 core 0 cpus 0"}, true},
		{"xeon-2s-28c-smt", "-n 3", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,56", "PE 1: socket 0 numa 0 core 1 cpus 1,57", "PE 2: socket 0 numa 0 core 2 cpus 2,58"}, false},
		{"xeon-2s-28c-smt", "-n 56", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,56"}, false},
		{"xeon-2s-28c-smt", "-n 57", []string{"PE 0: unbound"}, false}, // 112 threads: each PE can still have one
		// Round-robin over sockets, a core each, in turn.
		{"xeon-2s-28c-smt", "-n 4 --map-by socket", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,56", "PE 1: socket 1 numa 1 core 28 cpus 28,84", "PE 2: socket 0 numa 0 core 1 cpus 1,57", "PE 3: socket 1 numa 1 core 29 cpus 29,85"}, false},
		{"xeon-2s-28c-smt", "-n 3 --map-by socket --bind-to socket", []string{"PE 0: socket 0 numa 0 cpus 0-27,56-83", "PE 1: socket 1 numa 1 cpus 28-55,84-111", "PE 2: socket 0 numa 0 cpus 0-27,56-83"}, false},
		{"xeon-2s-28c-smt", "-n 2 --bind-to numa", []string{"PE 0: socket 0 numa 0 cpus 0-27,56-83", "PE 1: socket 0 numa 0 cpus 0-27,56-83"}, false},
		// hwthread: siblings are adjacent in topology order.
		{"xeon-2s-28c-smt", "-n 3 --map-by hwthread", []string{"PE 0: socket 0 numa 0 core 0 cpus 0", "PE 1: socket 0 numa 0 core 0 cpus 56", "PE 2: socket 0 numa 0 core 1 cpus 1"}, false},
		{"xeon-2s-28c-smt", "-n 2 --bind-to hwthread", []string{"PE 0: socket 0 numa 0 core 0 cpus 0", "PE 1: socket 0 numa 0 core 1 cpus 1"}, false},
		{"xeon-2s-28c-smt", "-n 2 --map-by core:PE=2", []string{"PE 0: socket 0 numa 0 cpus 0-1,56-57", "PE 1: socket 0 numa 0 cpus 2-3,58-59"}, false},
		{"xeon-2s-28c-smt", "-n 2 --map-by socket:PE=28", []string{"PE 0: socket 0 numa 0 cpus 0-27,56-83", "PE 1: socket 1 numa 1 cpus 28-55,84-111"}, false},
		{"xeon-2s-28c-smt", "-n 2 --map-by hwthread:PE=2", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,56", "PE 1: socket 0 numa 0 core 1 cpus 1,57"}, false},
		// PE=n under core fills a socket before the next, never straddling one.
		{"xeon-2s-28c-smt", "-n 3 --map-by core:PE=20 --oversubscribe", []string{"PE 0: socket 0 numa 0 cpus 0-19,56-75", "PE 1: socket 1 numa 1 cpus 28-47,84-103", "PE 2: socket 0 numa 0 cpus 0-19,56-75"}, false},
		// EPYC: one PE per CCD, per node; core PEs bound to their CCD.
		{"epyc-2s-nps4", "-n 3 --map-by l3cache", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,128", "PE 1: socket 0 numa 0 core 8 cpus 8,136", "PE 2: socket 0 numa 1 core 16 cpus 16,144"}, false},
		{"epyc-2s-nps4", "-n 3 --map-by numa --bind-to l3cache", []string{"PE 0: socket 0 numa 0 cpus 0-7,128-135", "PE 1: socket 0 numa 1 cpus 16-23,144-151", "PE 2: socket 0 numa 2 cpus 32-39,160-167"}, false},
		{"epyc-2s-nps4", "-n 10 --map-by numa --bind-to l3cache", []string{"PE 8: socket 0 numa 0 cpus 8-15,136-143"}, false},
		{"epyc-2s-nps4", "-n 2 --map-by socket --bind-to numa", []string{"PE 0: socket 0 numa 0 cpus 0-15,128-143", "PE 1: socket 1 numa 4 cpus 64-79,192-207"}, false},
		{"epyc-2s-nps4", "-n 2 --map-by numa:PE=4", []string{"PE 0: socket 0 numa 0 cpus 0-3,128-131", "PE 1: socket 0 numa 1 cpus 16-19,144-147"}, false},
		{"epyc-2s-nps4", "-n 2 --map-by numa:PE=4 --bind-to none", []string{"PE 0: unbound", "PE 1: unbound"}, false},
		// A cgroup-limited container: only cores 0 and 1 (CPUs 0,1,4,5).
		{"laptop-1s-smt-cpuset", "-n 2", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,4", "PE 1: socket 0 numa 0 core 1 cpus 1,5"}, false},
		{"laptop-1s-smt-cpuset", "-n 4 --map-by hwthread", []string{"PE 0: socket 0 numa 0 core 0 cpus 0", "PE 1: socket 0 numa 0 core 0 cpus 4", "PE 2: socket 0 numa 0 core 1 cpus 1", "PE 3: socket 0 numa 0 core 1 cpus 5"}, false},
		{"laptop-1s-smt-cpuset", "-n 5", []string{"PE 0: unbound"}, true},
		// --cpu-list orders and restricts; an unbound job still stays inside it.
		{"laptop-1s-smt", "-n 3 --cpu-list 6,3,0", []string{"PE 0: socket 0 numa 0 core 2 cpus 6", "PE 1: socket 0 numa 0 core 3 cpus 3", "PE 2: socket 0 numa 0 core 0 cpus 0"}, false},
		// Two PEs on one core's two threads: unbound by default (one core), confined to the list.
		{"laptop-1s-smt", "-n 2 --cpu-list 0,4", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,4", "PE 1: socket 0 numa 0 core 0 cpus 0,4"}, false},
		{"laptop-1s-smt", "-n 2 --cpu-list 0,4 --bind-to hwthread", []string{"PE 0: socket 0 numa 0 core 0 cpus 0", "PE 1: socket 0 numa 0 core 0 cpus 4"}, false},
		{"laptop-1s-smt", "-n 3 --cpu-list 0-1 --bind-to none", []string{"PE 0: socket 0 numa 0 cpus 0-1", "PE 2: socket 0 numa 0 cpus 0-1"}, true},
		{"arm64-64c", "-n 64", []string{"PE 63: socket 0 numa 0 core 63 cpus 63"}, false},
		{"arm64-64c", "-n 2 --map-by socket:PE=32", []string{"PE 0: socket 0 numa 0 cpus 0-31", "PE 1: socket 0 numa 0 cpus 32-63"}, false},
		// Offline core 7 and isolated CPUs 2-3,10-11 are not used by default.
		{"xeon-1s-8c-offline-isolated", "-n 5", []string{"PE 0: socket 0 numa 0 core 0 cpus 0,8", "PE 1: socket 0 numa 0 core 1 cpus 1,9", "PE 2: socket 0 numa 0 core 4 cpus 4,12", "PE 3: socket 0 numa 0 core 5 cpus 5,13", "PE 4: socket 0 numa 0 core 6 cpus 6,14"}, false},
		{"xeon-1s-8c-offline-isolated", "-n 6", []string{"PE 5: unbound"}, false},
	} {
		bs, err := placeLine(t, readTree(t, c.tree), c.flags)
		if err != nil {
			t.Errorf("%s %s: %v", c.tree, c.flags, err)
			continue
		}
		n, _, _ := jobFlags(t, c.flags)
		if len(bs) != n {
			t.Errorf("%s %s: %d bindings", c.tree, c.flags, len(bs))
		}
		got := map[int]string{}
		for _, b := range bs {
			got[b.PE] = b.String()
		}
		for _, w := range c.want {
			pe, _ := strconv.Atoi(strings.TrimPrefix(w[:strings.Index(w, ":")], "PE "))
			if got[pe] != w {
				t.Errorf("%s %s: %q, want %q", c.tree, c.flags, got[pe], w)
			}
		}
		if o := Oversubscribed(bs); o != c.over {
			t.Errorf("%s %s: Oversubscribed %v, want %v", c.tree, c.flags, o, c.over)
		}
	}
}

func TestPlaceErrors(t *testing.T) {
	for _, c := range []struct{ tree, flags, want string }{
		{"zen5-vm-2c", "-n 8 --bind-to core", "--bind-to core: 8 PEs but only 2 cores (add --oversubscribe)"},
		{"zen5-vm-2c", "-n 0", "-n 0: a job needs at least one PE"},
		{"zen5-vm-2c", "-n -3", "-n -3: a job needs at least one PE"},
		{"zen5-vm-2c", "-n 3 --map-by hwthread --bind-to hwthread", "--bind-to hwthread: 3 PEs but only 2 hardware threads (add --oversubscribe)"},
		{"xeon-2s-28c-smt", "-n 3 --map-by core:PE=20", "--map-by core:PE=20: 3 PEs of 20 cores each, but the sockets hold only 2 such groups (add --oversubscribe)"},
		{"zen5-vm-2c", "-n 2 --map-by core:PE=2", "--map-by core:PE=2: 2 PEs of 2 cores each, but the sockets hold only 1 such group (add --oversubscribe)"},
		{"zen5-vm-2c", "-n 1 --map-by core:PE=3", "--map-by core:PE=3: PE=3 is larger than a socket (the largest has 2 cores usable)"},
		{"xeon-2s-28c-smt", "-n 1 --map-by socket:PE=29", "--map-by socket:PE=29: PE=29 is larger than socket 0 (28 cores usable)"},
		{"xeon-2s-28c-smt", "-n 1 --map-by core:PE=29", "--map-by core:PE=29: PE=29 is larger than a socket (the largest has 28 cores usable)"},
		{"xeon-2s-28c-smt", "-n 3 --map-by socket:PE=20", "--map-by socket:PE=20: 2 PEs on socket 0 need 40 cores but it has only 28 (add --oversubscribe)"},
		{"xeon-2s-28c-smt", "-n 2 --map-by core:PE=2 --bind-to socket", "--bind-to socket: conflicts with --map-by core:PE=2, which binds each PE to its own 2 cores (leave --bind-to out, or use --bind-to none)"},
		{"xeon-2s-28c-smt", "-n 60 --bind-to socket", "--bind-to socket: 60 PEs but only 56 cores (add --oversubscribe)"},
		{"xeon-2s-28c-smt", "-n 113 --bind-to hwthread", "--bind-to hwthread: 113 PEs but only 112 hardware threads (add --oversubscribe)"},
		{"epyc-2s-nps4", "-n 1 --map-by numa:PE=17", "--map-by numa:PE=17: PE=17 is larger than numa 0 (16 cores usable)"},
		{"epyc-2s-nps4", "-n 20 --map-by l3cache:PE=8", "--map-by l3cache:PE=8: 2 PEs on l3cache 0 need 16 cores but it has only 8 (add --oversubscribe)"},
		// Uneven objects from a --cpu-list: the small socket runs out first.
		{"xeon-2s-28c-smt", "-n 4 --map-by socket --cpu-list 0-2,28", "--map-by socket: 2 PEs on socket 1, which has only 1 core (add --oversubscribe)"},
		// The PEs of socket 0 alternate between its nodes; node 0 has one core.
		{"epyc-2s-nps4", "-n 4 --map-by socket --bind-to numa --cpu-list 0,16-18", "--bind-to numa: 2 PEs on numa 0, which has only 1 core (add --oversubscribe)"},
		{"laptop-1s-smt-cpuset", "-n 1 --cpu-list 2", "--cpu-list 2: CPU 2 is not allowed to this process (allowed: 0-1,4-5, from fs/cgroup/cpuset.cpus.effective)"},
		{"xeon-1s-8c-offline-isolated", "-n 1 --cpu-list 0,7", "--cpu-list 0,7: CPU 7 is offline (online: 0-6,8-14)"},
		{"xeon-1s-8c-offline-isolated", "-n 1 --cpu-list 3", "--cpu-list 3: CPU 3 is isolated and not allowed to this process (allowed: 0-1,4-6,8-9,12-14)"},
		{"xeon-1s-8c-offline-isolated", "-n 1 --cpu-list 16", "--cpu-list 16: CPU 16 does not exist (present: 0-15)"},
		{"zen5-vm-2c", "-n 1 --cpu-list 0,0", "--cpu-list 0,0: CPU 0 listed twice in \"0,0\""},
		{"zen5-vm-2c", "-n 1 --map-by board", `--map-by board: unknown unit "board" (want core, hwthread, l3cache, numa or socket, optionally :PE=n)`},
		{"zen5-vm-2c", "-n 1 --map-by none", `--map-by none: unknown unit "none" (want core, hwthread, l3cache, numa or socket, optionally :PE=n)`},
		{"zen5-vm-2c", "-n 1 --map-by core:span", `--map-by core:span: unknown modifier "span" (want PE=n)`},
		{"zen5-vm-2c", "-n 1 --map-by core:PE=0", "--map-by core:PE=0: PE=0 is not a positive number of CPUs"},
		{"zen5-vm-2c", "-n 1 --map-by core:PE=x", "--map-by core:PE=x: PE=x is not a positive number of CPUs"},
		{"zen5-vm-2c", "-n 1 --bind-to board", "--bind-to board: unknown unit (want none, hwthread, core, l3cache, numa or socket)"},
	} {
		_, err := placeLine(t, readTree(t, c.tree), c.flags)
		want, prefix := c.want, false
		if w, ok := strings.CutSuffix(want, "... "); ok {
			want, prefix = w, true
		}
		if err == nil || (prefix && !strings.HasPrefix(err.Error(), want)) || (!prefix && err.Error() != want) {
			t.Errorf("%s %s:\n got %v\nwant %s", c.tree, c.flags, err, c.want)
		}
	}
	// With --oversubscribe the same requests succeed; the PEs share CPUs only
	// when there are more of them than CPUs.
	for _, c := range []struct {
		tree, flags string
		over        bool
	}{
		{"zen5-vm-2c", "-n 8 --bind-to core --oversubscribe", true},
		{"zen5-vm-2c", "-n 3 --map-by hwthread --bind-to hwthread --oversubscribe", true},
		{"zen5-vm-2c", "-n 2 --map-by core:PE=2 --oversubscribe", false},
		{"xeon-2s-28c-smt", "-n 3 --map-by socket:PE=20 --oversubscribe", false},
		// Round-robin puts two PEs on socket 1's single CPU, or on node 0's.
		{"xeon-2s-28c-smt", "-n 4 --map-by socket --cpu-list 0-2,28 --oversubscribe", true},
		{"epyc-2s-nps4", "-n 4 --map-by socket --bind-to numa --cpu-list 0,16-18 --oversubscribe", true},
		{"epyc-2s-nps4", "-n 2 --map-by socket --bind-to numa --cpu-list 0,16-18 --oversubscribe", false},
	} {
		bs, err := placeLine(t, readTree(t, c.tree), c.flags)
		if err != nil || Oversubscribed(bs) != c.over {
			t.Errorf("%s %s: %v, oversubscribed %v, want %v", c.tree, c.flags, err, err == nil && Oversubscribed(bs), c.over)
		}
	}
}

// TestPlaceInvariants checks, on every tree and a range of flags, what every
// placement must satisfy: one binding per PE in order, bound CPUs allowed, and
// the fields naming exactly the objects that hold the CPUs.
func TestPlaceInvariants(t *testing.T) {
	flags := []string{"", "--map-by socket", "--map-by numa", "--map-by l3cache", "--map-by hwthread",
		"--bind-to socket", "--bind-to numa", "--bind-to l3cache", "--bind-to hwthread", "--map-by core:PE=2",
		"--map-by numa:PE=2", "--bind-to none"}
	for _, tree := range trees {
		tp := readTree(t, tree)
		for _, n := range []int{1, 2, 3, len(tp.Cores)} {
			for _, f := range flags {
				line := "-n " + strconv.Itoa(n) + " --oversubscribe " + f
				bs, err := placeLine(t, tp, line)
				if err != nil {
					t.Errorf("%s %s: %v", tree, line, err)
					continue
				}
				for i, b := range bs {
					if b.PE != i || b.CPUs.IsEmpty() || !b.CPUs.IsSubsetOf(tp.Allowed) {
						t.Errorf("%s %s: %+v", tree, line, b)
					}
					p := placer{t: tp}
					if b.Socket != p.common(b.CPUs, UnitSocket) || b.NUMA != p.common(b.CPUs, UnitNUMA) ||
						b.L3 != p.common(b.CPUs, UnitL3) || b.Core != p.common(b.CPUs, UnitCore) {
						t.Errorf("%s %s: fields of %+v", tree, line, b)
					}
				}
			}
		}
	}
}

func TestOversubscribed(t *testing.T) {
	b := func(cpus string) Binding { return Binding{CPUs: MustParseCPUSet(cpus), Bound: true} }
	for _, c := range []struct {
		bs   []Binding
		want bool
	}{
		{[]Binding{b("0"), b("1")}, false},
		{[]Binding{b("0"), b("0")}, true},
		{[]Binding{b("0-1"), b("0-1")}, false},
		{[]Binding{b("0-1"), b("0-1"), b("0-1")}, true},
		// Greedy would give PE 0 CPU 0 and leave PE 1 nothing; a matching finds 1 then 0.
		{[]Binding{b("0-1"), b("0")}, false},
		{[]Binding{b("0-1"), b("0"), b("1")}, true},
		{[]Binding{b("0-3"), b("0-3"), b("2"), b("3")}, false},
		{nil, false},
	} {
		if got := Oversubscribed(c.bs); got != c.want {
			t.Errorf("Oversubscribed(%v) = %v, want %v", c.bs, got, c.want)
		}
	}
}

func TestParseFlagValuesRoundTrip(t *testing.T) {
	for _, s := range []string{"core", "hwthread", "l3cache", "numa", "socket", "core:PE=2", "socket:PE=28"} {
		m, err := ParseMapBy(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseMapBy(%q) = %v, %v", s, m, err)
		}
	}
	if m, err := ParseMapBy("numa:pe=3"); err != nil || m != (MapBy{UnitNUMA, 3}) {
		t.Errorf("ParseMapBy(numa:pe=3) = %v, %v", m, err)
	}
	for _, s := range []string{"none", "hwthread", "core", "l3cache", "numa", "socket"} {
		u, err := ParseBindTo(s)
		if err != nil || u.String() != s {
			t.Errorf("ParseBindTo(%q) = %v, %v", s, u, err)
		}
	}
}
