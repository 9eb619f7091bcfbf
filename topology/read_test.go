package topology

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

func TestReadCapturedTrees(t *testing.T) {
	for _, c := range []struct {
		tree                                     string
		sockets, nodes, cores, threads, l3, dies int
		online, offline, isolated, allowed       string
		// spot checks: a CPU and what it must be
		cpu                        int
		want                       CPU
		coreCPUs, l3CPUs, nodeCPUs string
		dist                       [2]int // distance from node 0 to the last node
		l3Size                     int64
		assumed                    string // a substring of an assumption, "" for none
	}{
		{tree: "zen5-vm-2c", sockets: 1, nodes: 1, cores: 2, threads: 2, l3: 1, dies: 1,
			online: "0-1", offline: "", isolated: "", allowed: "0-1",
			cpu: 1, want: CPU{ID: 1, Core: 1, Package: 0, Die: 0, Node: 0, L3: 0, Online: true},
			coreCPUs: "1", l3CPUs: "0-1", nodeCPUs: "0-1", dist: [2]int{10, 10}, l3Size: 0,
			assumed: "no cache directories"},
		{tree: "xeon-2s-28c-smt", sockets: 2, nodes: 2, cores: 56, threads: 112, l3: 2, dies: 2,
			online: "0-111", allowed: "0-111",
			// CPU 61 is the sibling of CPU 5: core 5 of socket 0.
			cpu: 61, want: CPU{ID: 61, Core: 5, Package: 0, Die: 0, Node: 0, L3: 0, Online: true},
			coreCPUs: "5,61", l3CPUs: "0-27,56-83", nodeCPUs: "0-27,56-83", dist: [2]int{10, 21}, l3Size: 39424 << 10},
		{tree: "epyc-2s-nps4", sockets: 2, nodes: 8, cores: 128, threads: 256, l3: 16, dies: 2,
			online: "0-255", allowed: "0-255",
			// CPU 200 is thread 1 of core 72: socket 1, CCD 9, node 4 (NPS4: two CCDs a node).
			cpu: 200, want: CPU{ID: 200, Core: 72, Package: 1, Die: 1, Node: 4, L3: 9, Online: true},
			coreCPUs: "72,200", l3CPUs: "72-79,200-207", nodeCPUs: "64-79,192-207", dist: [2]int{10, 32}, l3Size: 32 << 20},
		{tree: "laptop-1s-smt", sockets: 1, nodes: 1, cores: 4, threads: 8, l3: 1, dies: 1,
			online: "0-7", allowed: "0-7",
			cpu: 6, want: CPU{ID: 6, Core: 2, Package: 0, Die: 0, Node: 0, L3: 0, Online: true},
			coreCPUs: "2,6", l3CPUs: "0-7", nodeCPUs: "0-7", dist: [2]int{10, 10}, l3Size: 12 << 20},
		{tree: "laptop-1s-smt-cpuset", sockets: 1, nodes: 1, cores: 4, threads: 8, l3: 1, dies: 1,
			online: "0-7", allowed: "0-1,4-5",
			cpu: 5, want: CPU{ID: 5, Core: 1, Package: 0, Die: 0, Node: 0, L3: 0, Online: true},
			coreCPUs: "1,5", l3CPUs: "0-7", nodeCPUs: "0-7", dist: [2]int{10, 10}, l3Size: 12 << 20},
		{tree: "arm64-64c", sockets: 1, nodes: 1, cores: 64, threads: 64, l3: 1, dies: 1,
			online: "0-63", allowed: "0-63",
			cpu: 63, want: CPU{ID: 63, Core: 63, Package: 0, Die: 0, Node: 0, L3: 0, Online: true},
			coreCPUs: "63", l3CPUs: "0-63", nodeCPUs: "0-63", dist: [2]int{10, 10}, l3Size: 32 << 20,
			assumed: "no die_id"},
		{tree: "xeon-1s-8c-offline-isolated", sockets: 1, nodes: 1, cores: 7, threads: 14, l3: 1, dies: 1,
			online: "0-6,8-14", offline: "7,15", isolated: "2-3,10-11", allowed: "0-1,4-6,8-9,12-14",
			cpu: 15, want: CPU{ID: 15, Core: -1, Package: -1, Die: -1, Node: -1, L3: -1, Online: false},
			coreCPUs: "", l3CPUs: "0-6,8-14", nodeCPUs: "0-6,8-14", dist: [2]int{10, 10}, l3Size: 16 << 20},
	} {
		t.Run(c.tree, func(t *testing.T) {
			tp := readTree(t, c.tree)
			counts := [...]struct {
				what      string
				got, want int
			}{
				{"sockets", len(tp.Packages), c.sockets}, {"nodes", len(tp.Nodes), c.nodes},
				{"cores", len(tp.Cores), c.cores}, {"threads", tp.Threads(), c.threads},
				{"L3 domains", len(tp.L3), c.l3}, {"dies", len(tp.Dies), c.dies},
			}
			for _, n := range counts {
				if n.got != n.want {
					t.Errorf("%s: %d, want %d", n.what, n.got, n.want)
				}
			}
			for _, s := range []struct {
				what string
				got  CPUSet
				want string
			}{
				{"online", tp.Online, c.online}, {"offline", tp.Offline, c.offline},
				{"isolated", tp.Isolated, c.isolated}, {"allowed", tp.Allowed, c.allowed},
			} {
				if s.got.String() != s.want {
					t.Errorf("%s: %s, want %s", s.what, s.got, s.want)
				}
			}
			got, ok := tp.CPU(c.cpu)
			if !ok || got != c.want {
				t.Errorf("CPU(%d) = %+v, %v; want %+v", c.cpu, got, ok, c.want)
			}
			if got.Core >= 0 && tp.Cores[got.Core].CPUs.String() != c.coreCPUs {
				t.Errorf("core of CPU %d: %s, want %s", c.cpu, tp.Cores[got.Core].CPUs, c.coreCPUs)
			}
			l3 := max(got.L3, 0)
			if tp.L3[l3].CPUs.String() != c.l3CPUs || tp.L3[l3].Size != c.l3Size {
				t.Errorf("L3 %d: cpus %s size %d, want %s %d", l3, tp.L3[l3].CPUs, tp.L3[l3].Size, c.l3CPUs, c.l3Size)
			}
			if ni := tp.NodeIndex(max(got.Node, 0)); tp.Nodes[ni].CPUs.String() != c.nodeCPUs {
				t.Errorf("node of CPU %d: %s, want %s", c.cpu, tp.Nodes[ni].CPUs, c.nodeCPUs)
			}
			last := tp.Nodes[len(tp.Nodes)-1].ID
			if d := [2]int{tp.Distance(0, 0), tp.Distance(0, last)}; d != c.dist {
				t.Errorf("distances 0-0, 0-%d: %v, want %v", last, d, c.dist)
			}
			assumed := strings.Join(tp.Assumed, "; ")
			if (c.assumed == "") != (assumed == "") || !strings.Contains(assumed, c.assumed) {
				t.Errorf("assumed %q, want %q", assumed, c.assumed)
			}
			checkConsistent(t, tp)
		})
	}
}

// checkConsistent checks what holds on every machine: records agree with the
// lists, every online CPU is in exactly one core, L3, node and package, and the
// global indices are in order of lowest CPU.
func checkConsistent(t *testing.T, tp *Topology) {
	t.Helper()
	var cores, l3s, nodes, pkgs CPUSet
	for i, c := range tp.Cores {
		if c.Index != i || cores.Overlaps(c.CPUs) {
			t.Errorf("core %d: index %d or overlapping CPUs %s", i, c.Index, c.CPUs)
		}
		if i > 0 && c.CPUs.First() < tp.Cores[i-1].CPUs.First() {
			t.Errorf("core %d starts before core %d", i, i-1)
		}
		cores = cores.Union(c.CPUs)
	}
	for _, c := range tp.L3 {
		l3s = l3s.Union(c.CPUs)
	}
	for _, n := range tp.Nodes {
		if nodes.Overlaps(n.CPUs) || len(n.Distance) != len(tp.Nodes) {
			t.Errorf("node %d: overlapping CPUs or %d distances", n.ID, len(n.Distance))
		}
		nodes = nodes.Union(n.CPUs)
	}
	for _, p := range tp.Packages {
		pkgs = pkgs.Union(p.CPUs)
	}
	for what, s := range map[string]CPUSet{"cores": cores, "L3 domains": l3s, "nodes": nodes, "packages": pkgs} {
		if !s.Equal(tp.Online) {
			t.Errorf("%s cover %s, online is %s", what, s, tp.Online)
		}
	}
	for _, c := range tp.CPUs {
		if c.Online != tp.Online.Has(c.ID) {
			t.Errorf("CPU %d: Online %v disagrees with the online list", c.ID, c.Online)
		}
		if !c.Online {
			continue
		}
		if !tp.Cores[c.Core].CPUs.Has(c.ID) || !tp.L3[c.L3].CPUs.Has(c.ID) || !tp.Dies[c.Die].CPUs.Has(c.ID) ||
			!tp.Nodes[tp.NodeIndex(c.Node)].CPUs.Has(c.ID) {
			t.Errorf("CPU %d: record %+v disagrees with the objects", c.ID, c)
		}
	}
	if !tp.Allowed.IsSubsetOf(tp.Online) || tp.Allowed.IsEmpty() {
		t.Errorf("allowed %s not a non-empty subset of online %s", tp.Allowed, tp.Online)
	}
}

func TestReadThisMachine(t *testing.T) {
	tp, err := Read("")
	if err != nil {
		t.Fatal(err)
	}
	if !tp.Live || tp.Root != "/sys" {
		t.Errorf("Read(\"\"): Live %v Root %q", tp.Live, tp.Root)
	}
	aff, err := Affinity()
	if err != nil {
		t.Fatal(err)
	}
	if want := aff.Intersect(tp.Online); !tp.Allowed.IsSubsetOf(want) {
		t.Errorf("allowed %s is not within affinity ∩ online %s", tp.Allowed, want)
	}
	if tp.Allowed.Count() != runtime.NumCPU() {
		// runtime.NumCPU is the affinity mask's size at start-up.
		t.Errorf("allowed %s, runtime.NumCPU %d", tp.Allowed, runtime.NumCPU())
	}
	if !strings.HasPrefix(tp.AllowedFrom, "sched_getaffinity") {
		t.Errorf("AllowedFrom %q", tp.AllowedFrom)
	}
	checkConsistent(t, tp)
	// Where sysfs has no caches, their sizes are cpuid's (0 where it cannot tell).
	fromCPUID := map[string]int{"1Data": cpuid.CPU.Cache.L1D, "1Instruction": cpuid.CPU.Cache.L1I, "2Unified": cpuid.CPU.Cache.L2}
	for _, c := range tp.Caches {
		if want, ok := fromCPUID[strconv.Itoa(c.Level)+c.Type]; ok && c.Assumed && c.Size != int64(max(want, 0)) {
			t.Errorf("assumed L%d %s of %d bytes, cpuid says %d", c.Level, c.Type, c.Size, want)
		}
	}
}

// TestReadFallbacks reads trees that lack each piece in turn.
func TestReadFallbacks(t *testing.T) {
	write := func(t *testing.T, files map[string]string) string {
		root := t.TempDir()
		for name, text := range files {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	t.Run("bare cpu directories", func(t *testing.T) {
		root := write(t, map[string]string{
			"devices/system/cpu/cpu0/online": "1", "devices/system/cpu/cpu1/online": "0",
			"devices/system/cpu/cpu2/uevent": "",
		})
		tp, err := Read(root)
		if err != nil {
			t.Fatal(err)
		}
		if tp.Online.String() != "0,2" || tp.Offline.String() != "1" || len(tp.Cores) != 2 || len(tp.Nodes) != 1 || len(tp.L3) != 1 {
			t.Errorf("online %s offline %s, %d cores %d nodes %d L3", tp.Online, tp.Offline, len(tp.Cores), len(tp.Nodes), len(tp.L3))
		}
		all := strings.Join(tp.Assumed, "\n")
		for _, want := range []string{"no devices/system/cpu/present", "no topology directory for CPUs 0,2", "one node 0", "no cache directories"} {
			if !strings.Contains(all, want) {
				t.Errorf("assumptions lack %q:\n%s", want, all)
			}
		}
		checkConsistent(t, tp)
	})
	t.Run("caches without an L3", func(t *testing.T) {
		files := map[string]string{"devices/system/cpu/present": "0-1", "devices/system/cpu/online": "0-1"}
		for _, c := range []string{"0", "1"} {
			dir := "devices/system/cpu/cpu" + c + "/"
			files[dir+"topology/physical_package_id"] = "0"
			files[dir+"topology/thread_siblings_list"] = c
			files[dir+"cache/index0/level"] = "1"
			files[dir+"cache/index0/type"] = "Data"
			files[dir+"cache/index0/size"] = "64K"
			files[dir+"cache/index0/shared_cpu_list"] = c
			files[dir+"cache/index1/level"] = "2"
			files[dir+"cache/index1/type"] = "Unified"
			files[dir+"cache/index1/size"] = "1M"
			files[dir+"cache/index1/shared_cpu_list"] = "0-1"
		}
		tp, err := Read(write(t, files))
		if err != nil {
			t.Fatal(err)
		}
		if len(tp.L3) != 1 || !tp.L3[0].Assumed || tp.L3[0].CPUs.String() != "0-1" {
			t.Errorf("L3 %+v", tp.L3)
		}
		if len(tp.Caches) != 3 || tp.Caches[2].Size != 1<<20 {
			t.Errorf("caches %+v", tp.Caches)
		}
		if !strings.Contains(strings.Join(tp.Assumed, ";"), "no level-3 cache for CPUs 0-1") {
			t.Errorf("assumed %v", tp.Assumed)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for name, files := range map[string]map[string]string{
			"no CPUs":        {"devices/system/node/node0/cpulist": "0"},
			"bad online":     {"devices/system/cpu/online": "0-x"},
			"no CPU allowed": {"devices/system/cpu/online": "0-1", CgroupFile: "4-5"},
			"bad size": {"devices/system/cpu/online": "0", "devices/system/cpu/cpu0/cache/index0/level": "1",
				"devices/system/cpu/cpu0/cache/index0/size": "lots"},
		} {
			if _, err := Read(write(t, files)); err == nil || !strings.HasPrefix(err.Error(), "topology.Read") {
				t.Errorf("%s: error %v, want one from topology.Read", name, err)
			}
		}
	})
}
