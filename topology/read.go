package topology

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// CgroupFile is where a captured tree keeps the CPUs its process could use: the
// path, relative to the sysfs root, of the root cgroup's cpuset.cpus.effective
// under cgroup v2. In a captured tree this one file stands for both halves of the
// live mask — sched_getaffinity and the process's cgroup cpuset — so a capture
// from inside a container writes there the intersection of the two it saw.
const CgroupFile = "fs/cgroup/cpuset.cpus.effective"

// Read builds the Topology of the sysfs tree at root; "" means this machine's /sys.
//
// It reads, under root: devices/system/cpu/{present,online,offline,isolated};
// per CPU, topology/{physical_package_id,die_id,core_id,thread_siblings_list} and
// cache/index*/{level,type,size,shared_cpu_list}; devices/system/node/node*/{cpulist,distance}.
//
// Allowed is the online CPUs the job may use. For this machine's /sys it is the
// calling thread's sched_getaffinity mask intersected with the effective cpuset
// of the process's cgroup (v2 cpuset.cpus.effective, or v1 cpuset.effective_cpus).
// For any other root it is CgroupFile in the tree; without that file it is the
// online CPUs minus the isolated ones, which is what the kernel's default
// affinity gives a process.
//
// Where sysfs lacks a piece, Read assumes, and lists each assumption in Assumed:
//   - no present/online lists: the cpuN directories, or on this machine CPUs
//     0..runtime.NumCPU()-1 (the CPUs it can use, numbered from 0), all online;
//   - no topology directory for an online CPU: package 0, die 0, and a core of its
//     own (SMT siblings cannot be told apart without it);
//   - no die_id (arm64 kernels have none): one die per package;
//   - no node directories: one node 0 holding every CPU, distance 10;
//   - no cache directories: L1 and L2 private to each core and one L3 per
//     package; on this machine the sizes come from cpuid (their sharing cannot),
//     in a captured tree they are unknown (0);
//   - caches but no level-3 one for a CPU: its package is its L3 domain.
func Read(root string) (*Topology, error) {
	live := root == "" || filepath.Clean(root) == "/sys"
	if root == "" {
		root = "/sys"
	}
	r := sysfs{root: root}
	t := &Topology{Root: root, Live: live}
	if err := r.readCPUs(t); err != nil {
		return nil, err
	}
	if err := r.readCores(t); err != nil {
		return nil, err
	}
	if err := r.readNodes(t); err != nil {
		return nil, err
	}
	if err := r.readCaches(t); err != nil {
		return nil, err
	}
	if err := r.readAllowed(t); err != nil {
		return nil, err
	}
	return t, nil
}

type sysfs struct{ root string }

// text returns the trimmed content of a file under the root; ok is false when it
// does not exist.
func (r sysfs) text(rel string) (s string, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(r.root, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("topology.Read: %v", err)
	}
	return strings.TrimSpace(string(b)), true, nil
}

func (r sysfs) list(rel string) (s CPUSet, ok bool, err error) {
	text, ok, err := r.text(rel)
	if !ok || err != nil {
		return CPUSet{}, ok, err
	}
	s, err = ParseCPUSet(text)
	if err != nil {
		return CPUSet{}, false, fmt.Errorf("topology.Read: %s: %v", filepath.Join(r.root, rel), err)
	}
	return s, true, nil
}

func (r sysfs) int(rel string) (v int, ok bool, err error) {
	text, ok, err := r.text(rel)
	if !ok || err != nil {
		return 0, ok, err
	}
	v, err = strconv.Atoi(text)
	if err != nil {
		return 0, false, fmt.Errorf("topology.Read: %s: %q is not a number", filepath.Join(r.root, rel), text)
	}
	return v, true, nil
}

// numbered lists the N of the entries prefixN under dir, ascending.
func (r sysfs) numbered(dir, prefix string) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(r.root, dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("topology.Read: %v", err)
	}
	var out []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

const cpuDir = "devices/system/cpu"

func cpuPath(cpu int, rel string) string {
	return fmt.Sprintf("%s/cpu%d/%s", cpuDir, cpu, rel)
}

func (r sysfs) readCPUs(t *Topology) error {
	present, ok, err := r.list(cpuDir + "/present")
	if err != nil {
		return err
	}
	online, onlineOK, err := r.list(cpuDir + "/online")
	if err != nil {
		return err
	}
	offline, offlineOK, err := r.list(cpuDir + "/offline")
	if err != nil {
		return err
	}
	if !ok {
		present = online.Union(offline)
		if present.IsEmpty() {
			dirs, err := r.numbered(cpuDir, "cpu")
			if err != nil {
				return err
			}
			present = NewCPUSet(dirs...)
		}
		if present.IsEmpty() {
			if !t.Live {
				return fmt.Errorf("topology.Read: %s lists no CPUs", filepath.Join(r.root, cpuDir))
			}
			for c := 0; c < runtime.NumCPU(); c++ {
				present.Add(c)
			}
			t.assume("no CPU lists or directories in %s: CPUs 0-%d (runtime.NumCPU), all online", filepath.Join(r.root, cpuDir), runtime.NumCPU()-1)
		} else {
			t.assume("no %s/present: present CPUs are %s", cpuDir, present)
		}
	}
	if !onlineOK {
		// cpuN/online is "0" for a CPU taken offline; CPUs that cannot go offline
		// (often cpu0) have no such file.
		for _, c := range present.CPUs() {
			v, ok, err := r.int(cpuPath(c, "online"))
			if err != nil {
				return err
			}
			if !ok || v == 1 {
				online.Add(c)
			}
		}
		if !offlineOK {
			t.assume("no %s/online: online CPUs are %s (cpuN/online)", cpuDir, online)
		}
	}
	online = online.Intersect(present)
	if offlineOK {
		offline = offline.Intersect(present)
	} else {
		offline = present.Difference(online)
	}
	isolated, _, err := r.list(cpuDir + "/isolated")
	if err != nil {
		return err
	}
	t.Online, t.Offline, t.Isolated = online, offline, isolated.Intersect(present)
	if online.IsEmpty() {
		return fmt.Errorf("topology.Read: %s: no online CPU", filepath.Join(r.root, cpuDir))
	}
	for _, c := range present.CPUs() {
		t.CPUs = append(t.CPUs, CPU{ID: c, Core: -1, Package: -1, Die: -1, Node: -1, L3: -1, Online: online.Has(c)})
	}
	return nil
}

// readCores fills packages, dies and cores. A core is the set of its thread
// siblings; without thread_siblings_list it is (package, die, core_id).
func (r sysfs) readCores(t *Topology) error {
	type dieKey struct{ pkg, die int }
	coreKey := map[string]int{} // key -> index in t.Cores, built in CPU order
	dieIdx := map[dieKey]int{}
	var noTopo, noDie []int
	for i := range t.CPUs {
		c := &t.CPUs[i]
		if !c.Online {
			continue
		}
		pkg, hasPkg, err := r.int(cpuPath(c.ID, "topology/physical_package_id"))
		if err != nil {
			return err
		}
		die, hasDie, err := r.int(cpuPath(c.ID, "topology/die_id"))
		if err != nil {
			return err
		}
		coreID, hasCore, err := r.int(cpuPath(c.ID, "topology/core_id"))
		if err != nil {
			return err
		}
		sib, hasSib, err := r.list(cpuPath(c.ID, "topology/thread_siblings_list"))
		if err != nil {
			return err
		}
		if !hasPkg && !hasCore && !hasSib {
			noTopo = append(noTopo, c.ID)
		}
		if pkg < 0 {
			pkg = 0
		}
		if !hasDie || die < 0 {
			if hasPkg {
				noDie = append(noDie, c.ID)
			}
			die = 0
		}
		var key string
		switch {
		case hasSib:
			key = "s" + sib.Intersect(t.Online).String()
		case hasCore:
			key = fmt.Sprintf("c%d/%d/%d", pkg, die, coreID)
		default:
			key = fmt.Sprintf("cpu%d", c.ID)
			coreID = c.ID
		}
		dk := dieKey{pkg, die}
		d, ok := dieIdx[dk]
		if !ok {
			d = len(t.Dies)
			dieIdx[dk] = d
			t.Dies = append(t.Dies, Die{Index: d, Package: pkg, DieID: die})
		}
		t.Dies[d].CPUs.Add(c.ID)
		k, ok := coreKey[key]
		if !ok {
			k = len(t.Cores)
			coreKey[key] = k
			t.Cores = append(t.Cores, Core{Index: k, CoreID: coreID, Package: pkg, Die: d})
		}
		t.Cores[k].CPUs.Add(c.ID)
		c.Package, c.Die, c.Core = pkg, d, k
		p := slices.IndexFunc(t.Packages, func(p Package) bool { return p.ID == pkg })
		if p < 0 {
			p = len(t.Packages)
			t.Packages = append(t.Packages, Package{ID: pkg})
		}
		t.Packages[p].CPUs.Add(c.ID)
	}
	slices.SortFunc(t.Packages, func(a, b Package) int { return cmp.Compare(a.ID, b.ID) })
	if len(noTopo) > 0 {
		t.assume("no topology directory for CPUs %s: package 0, die 0, each CPU its own core", NewCPUSet(noTopo...))
	}
	if len(noDie) > 0 {
		t.assume("no die_id for CPUs %s: one die per package", NewCPUSet(noDie...))
	}
	return nil
}

const nodeDir = "devices/system/node"

func (r sysfs) readNodes(t *Topology) error {
	ids, err := r.numbered(nodeDir, "node")
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		t.Nodes = []Node{{ID: 0, CPUs: t.Online, Distance: []int{10}}}
		t.assume("no %s: one node 0 holding every CPU", nodeDir)
	}
	for _, id := range ids {
		cpus, _, err := r.list(fmt.Sprintf("%s/node%d/cpulist", nodeDir, id))
		if err != nil {
			return err
		}
		n := Node{ID: id, CPUs: cpus.Intersect(t.Online)}
		text, ok, err := r.text(fmt.Sprintf("%s/node%d/distance", nodeDir, id))
		if err != nil {
			return err
		}
		if ok {
			for _, f := range strings.Fields(text) {
				d, err := strconv.Atoi(f)
				if err != nil {
					return fmt.Errorf("topology.Read: %s/node%d/distance: %q is not a number", filepath.Join(r.root, nodeDir), id, f)
				}
				n.Distance = append(n.Distance, d)
			}
		}
		t.Nodes = append(t.Nodes, n)
	}
	var noDist []int
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if len(n.Distance) != len(t.Nodes) {
			// The kernel writes one distance per online node; anything else means
			// a partial capture: fall back to local/remote.
			noDist = append(noDist, n.ID)
			n.Distance = make([]int, len(t.Nodes))
			for j := range n.Distance {
				n.Distance[j] = 20
			}
			n.Distance[i] = 10
		}
	}
	if len(noDist) > 0 {
		t.assume("no usable distance row for nodes %v: 10 local, 20 remote", noDist)
	}
	var orphans []int
	for i := range t.CPUs {
		c := &t.CPUs[i]
		if !c.Online {
			continue
		}
		for _, n := range t.Nodes {
			if n.CPUs.Has(c.ID) {
				c.Node = n.ID
				break
			}
		}
		if c.Node < 0 {
			c.Node = t.Nodes[0].ID
			t.Nodes[0].CPUs.Add(c.ID)
			orphans = append(orphans, c.ID)
		}
	}
	if len(orphans) > 0 {
		t.assume("CPUs %s in no node's cpulist: placed in node %d", NewCPUSet(orphans...), t.Nodes[0].ID)
	}
	for i := range t.Cores {
		t.Cores[i].Node = t.CPUs[t.cpuIndex(t.Cores[i].CPUs.First())].Node
	}
	return nil
}

func (r sysfs) readCaches(t *Topology) error {
	type key struct {
		level int
		typ   string
		cpus  string
	}
	seen := map[key]int{}
	l3 := map[string]int{}
	var noL3 []int
	sawCache := false
	for i := range t.CPUs {
		c := &t.CPUs[i]
		if !c.Online {
			continue
		}
		idx, err := r.numbered(cpuPath(c.ID, "cache"), "index")
		if err != nil {
			return err
		}
		for _, k := range idx {
			dir := cpuPath(c.ID, fmt.Sprintf("cache/index%d/", k))
			level, ok, err := r.int(dir + "level")
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			typ, _, err := r.text(dir + "type")
			if err != nil {
				return err
			}
			shared, ok, err := r.list(dir + "shared_cpu_list")
			if err != nil {
				return err
			}
			shared = shared.Intersect(t.Online)
			if !ok || shared.IsEmpty() {
				shared = NewCPUSet(c.ID)
			}
			sizeText, _, err := r.text(dir + "size")
			if err != nil {
				return err
			}
			size, err := parseSize(sizeText)
			if err != nil {
				return fmt.Errorf("topology.Read: %s: %v", filepath.Join(r.root, dir+"size"), err)
			}
			sawCache = true
			kk := key{level, typ, shared.String()}
			if _, ok := seen[kk]; !ok {
				seen[kk] = len(t.Caches)
				t.Caches = append(t.Caches, Cache{Level: level, Type: typ, Size: size, CPUs: shared})
			}
			if level == 3 && typ != "Instruction" && c.L3 < 0 {
				d, ok := l3[kk.cpus]
				if !ok {
					d = len(t.L3)
					l3[kk.cpus] = d
					t.L3 = append(t.L3, Cache{Level: 3, Type: typ, Size: size, CPUs: shared})
				}
				c.L3 = d
			}
		}
		if c.L3 < 0 {
			noL3 = append(noL3, c.ID)
		}
	}
	if !sawCache {
		r.assumeCaches(t)
	}
	// A CPU without an L3 of its own shares its package's.
	for _, id := range noL3 {
		c := &t.CPUs[t.cpuIndex(id)]
		key := fmt.Sprintf("package %d", c.Package)
		d, ok := l3[key]
		if !ok {
			d = len(t.L3)
			l3[key] = d
			var size int64
			if t.Live && !sawCache && cpuid.CPU.Cache.L3 > 0 {
				size = int64(cpuid.CPU.Cache.L3)
			}
			pkg := t.Packages[slices.IndexFunc(t.Packages, func(p Package) bool { return p.ID == c.Package })]
			t.L3 = append(t.L3, Cache{Level: 3, Type: "Unified", Size: size, CPUs: pkg.CPUs, Assumed: true})
			if !sawCache {
				t.Caches = append(t.Caches, t.L3[d])
			}
		}
		c.L3 = d
	}
	if sawCache && len(noL3) > 0 {
		t.assume("no level-3 cache for CPUs %s: each package is their L3 domain", NewCPUSet(noL3...))
	}
	slices.SortStableFunc(t.Caches, func(a, b Cache) int {
		return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(a.Type, b.Type), cmp.Compare(a.CPUs.First(), b.CPUs.First()))
	})
	for i := range t.Cores {
		t.Cores[i].L3 = t.CPUs[t.cpuIndex(t.Cores[i].CPUs.First())].L3
	}
	return nil
}

// assumeCaches models the caches of a tree that has none: L1 and L2 per core and
// (later, in readCaches) an L3 per package.
func (r sysfs) assumeCaches(t *Topology) {
	var l1d, l1i, l2 int64
	from := "sizes unknown"
	if t.Live {
		l1d, l1i, l2 = int64(max(cpuid.CPU.Cache.L1D, 0)), int64(max(cpuid.CPU.Cache.L1I, 0)), int64(max(cpuid.CPU.Cache.L2, 0))
		from = "sizes from cpuid"
	}
	for _, core := range t.Cores {
		t.Caches = append(t.Caches,
			Cache{Level: 1, Type: "Data", Size: l1d, CPUs: core.CPUs, Assumed: true},
			Cache{Level: 1, Type: "Instruction", Size: l1i, CPUs: core.CPUs, Assumed: true},
			Cache{Level: 2, Type: "Unified", Size: l2, CPUs: core.CPUs, Assumed: true})
	}
	t.assume("no cache directories: L1 and L2 private to each core, one L3 per package, %s", from)
}

// parseSize reads a sysfs cache size: "32K", "1024K", "32768K" (also M, G, or bytes).
func parseSize(text string) (int64, error) {
	if text == "" {
		return 0, nil
	}
	mult := int64(1)
	switch text[len(text)-1] {
	case 'K', 'k':
		mult = 1 << 10
	case 'M', 'm':
		mult = 1 << 20
	case 'G', 'g':
		mult = 1 << 30
	}
	if mult != 1 {
		text = text[:len(text)-1]
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a cache size", text)
	}
	return v * mult, nil
}

func (r sysfs) readAllowed(t *Topology) error {
	if t.Live {
		allowed, from, err := liveAllowed()
		if err != nil {
			return err
		}
		t.Allowed, t.AllowedFrom = allowed.Intersect(t.Online), from
	} else {
		cg, ok, err := r.list(CgroupFile)
		if err != nil {
			return err
		}
		if ok {
			t.Allowed, t.AllowedFrom = cg.Intersect(t.Online), CgroupFile
		} else {
			t.Allowed, t.AllowedFrom = t.Online.Difference(t.Isolated), "online CPUs minus isolated (no "+CgroupFile+")"
		}
	}
	if t.Allowed.IsEmpty() {
		return fmt.Errorf("topology.Read: no online CPU is allowed (%s)", t.AllowedFrom)
	}
	return nil
}
