// Package sysfsgen writes synthetic sysfs trees of machines we do not have, holding
// exactly the files topology.Read reads, numbered the way Linux numbers those
// machines. The topology tests regenerate them into a temporary directory and
// compare with topology/testdata, so the captured trees stay reproducible:
//
//	go test ./topology -run TestSyntheticTrees -update
package sysfsgen

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Machine describes a machine as the kernel enumerates it. CPU numbers follow
// Linux on x86 and arm64 servers: first every core's thread 0 (package by package,
// core by core), then every core's thread 1, so siblings are N and N+cores.
type Machine struct {
	Name           string
	Packages       int
	CoresPerPkg    int
	ThreadsPerCore int
	NodesPerPkg    int // NUMA nodes per package (NPS4: 4), each a contiguous run of cores
	L3PerPkg       int // L3 domains per package (EPYC: one per CCD), each a contiguous run of cores
	CoreIDGap      int // Intel server core_id skips one number after every CoreIDGap cores; 0: contiguous
	NoDieID        bool
	DistSameSocket int // distance between nodes of one package
	DistCrossSock  int
	L1D, L1I, L2   string // sizes as sysfs writes them ("32K")
	L3             string
	Offline        []int  // CPUs taken offline (echo 0 > cpuN/online)
	Isolated       string // isolcpus= list
	Cgroup         string // the process's cpuset.cpus.effective; "" writes none
}

// Machines are the synthetic trees under topology/testdata.
var Machines = []Machine{
	{
		// Two Xeon Platinum 8280 (Cascade Lake, 28 cores, SMT): siblings N and N+56.
		Name: "xeon-2s-28c-smt", Packages: 2, CoresPerPkg: 28, ThreadsPerCore: 2,
		NodesPerPkg: 1, L3PerPkg: 1, CoreIDGap: 7, DistCrossSock: 21,
		L1D: "32K", L1I: "32K", L2: "1024K", L3: "39424K",
	},
	{
		// Two EPYC 7763 (Milan, 8 CCDs of 8 cores, SMT) in NPS4: two CCDs per node,
		// cores of a CCD contiguous, siblings N and N+128.
		Name: "epyc-2s-nps4", Packages: 2, CoresPerPkg: 64, ThreadsPerCore: 2,
		NodesPerPkg: 4, L3PerPkg: 8, DistSameSocket: 12, DistCrossSock: 32,
		L1D: "32K", L1I: "32K", L2: "512K", L3: "32768K",
	},
	{
		// A Core i7-1185G7 laptop (Tiger Lake, 4 cores, SMT): siblings N and N+4.
		Name: "laptop-1s-smt", Packages: 1, CoresPerPkg: 4, ThreadsPerCore: 2,
		NodesPerPkg: 1, L3PerPkg: 1,
		L1D: "48K", L1I: "32K", L2: "1280K", L3: "12288K",
	},
	{
		// The same laptop inside a container limited to cores 0 and 1.
		Name: "laptop-1s-smt-cpuset", Packages: 1, CoresPerPkg: 4, ThreadsPerCore: 2,
		NodesPerPkg: 1, L3PerPkg: 1, Cgroup: "0-1,4-5",
		L1D: "48K", L1I: "32K", L2: "1280K", L3: "12288K",
	},
	{
		// A Graviton2-class arm64 server (64 Neoverse N1 cores, no SMT, one node).
		// arm64 kernels write no die_id.
		Name: "arm64-64c", Packages: 1, CoresPerPkg: 64, ThreadsPerCore: 1,
		NodesPerPkg: 1, L3PerPkg: 1, NoDieID: true,
		L1D: "64K", L1I: "64K", L2: "1024K", L3: "32768K",
	},
	{
		// A Xeon E-2288G (8 cores, SMT) booted with isolcpus=2,3,10,11 and core 7
		// (CPUs 7 and 15) taken offline.
		Name: "xeon-1s-8c-offline-isolated", Packages: 1, CoresPerPkg: 8, ThreadsPerCore: 2,
		NodesPerPkg: 1, L3PerPkg: 1, Offline: []int{7, 15}, Isolated: "2-3,10-11",
		L1D: "32K", L1I: "32K", L2: "256K", L3: "16384K",
	},
}

func (m Machine) cpus() int { return m.Packages * m.CoresPerPkg * m.ThreadsPerCore }

// cpu is the number Linux gives thread th of core c of package p.
func (m Machine) cpu(p, c, th int) int {
	return th*m.Packages*m.CoresPerPkg + p*m.CoresPerPkg + c
}

// Write creates dir/<m.Name>, replacing what was there.
func Write(dir string, m Machine) error {
	root := filepath.Join(dir, m.Name)
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	files := m.Files()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(files[name]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Files maps each path under the tree (slash-separated) to its content.
func (m Machine) Files() map[string]string {
	f := m.lines()
	for name, text := range f {
		f[name] = text + "\n"
	}
	return f
}

// lines maps each path to its content without the final newline.
func (m Machine) lines() map[string]string {
	f := map[string]string{}
	n := m.cpus()
	offline := map[int]bool{}
	for _, c := range m.Offline {
		offline[c] = true
	}
	online := func(cpus []int) []int {
		return slices.DeleteFunc(cpus, func(c int) bool { return offline[c] })
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	f["devices/system/cpu/present"] = list(all)
	f["devices/system/cpu/online"] = list(online(slices.Clone(all)))
	f["devices/system/cpu/offline"] = list(m.Offline)
	f["devices/system/cpu/isolated"] = m.Isolated
	if m.Cgroup != "" {
		f["fs/cgroup/cpuset.cpus.effective"] = m.Cgroup
	}

	coresPerNode := m.CoresPerPkg / m.NodesPerPkg
	coresPerL3 := m.CoresPerPkg / m.L3PerPkg
	// threadsOf lists the CPUs of cores [lo,hi) of package p, ascending.
	threadsOf := func(p, lo, hi int) []int {
		var out []int
		for c := lo; c < hi; c++ {
			for th := 0; th < m.ThreadsPerCore; th++ {
				out = append(out, m.cpu(p, c, th))
			}
		}
		slices.Sort(out)
		return online(out)
	}
	nodes := m.Packages * m.NodesPerPkg
	for node := 0; node < nodes; node++ {
		p, k := node/m.NodesPerPkg, node%m.NodesPerPkg
		dir := fmt.Sprintf("devices/system/node/node%d/", node)
		f[dir+"cpulist"] = list(threadsOf(p, k*coresPerNode, (k+1)*coresPerNode))
		dist := make([]string, nodes)
		for o := range dist {
			switch {
			case o == node:
				dist[o] = "10"
			case o/m.NodesPerPkg == p:
				dist[o] = strconv.Itoa(m.DistSameSocket)
			default:
				dist[o] = strconv.Itoa(m.DistCrossSock)
			}
		}
		f[dir+"distance"] = strings.Join(dist, " ")
	}
	for p := 0; p < m.Packages; p++ {
		for c := 0; c < m.CoresPerPkg; c++ {
			siblings := threadsOf(p, c, c+1)
			l3 := c / coresPerL3
			l3CPUs := threadsOf(p, l3*coresPerL3, (l3+1)*coresPerL3)
			coreID := c
			if m.CoreIDGap > 0 {
				coreID = c + c/m.CoreIDGap
			}
			for th := 0; th < m.ThreadsPerCore; th++ {
				cpu := m.cpu(p, c, th)
				dir := fmt.Sprintf("devices/system/cpu/cpu%d/", cpu)
				if offline[cpu] {
					// An offline CPU keeps its directory and its online file; the
					// kernel removes its topology and cache entries.
					f[dir+"online"] = "0"
					continue
				}
				f[dir+"topology/physical_package_id"] = strconv.Itoa(p)
				if !m.NoDieID {
					f[dir+"topology/die_id"] = "0"
				}
				f[dir+"topology/core_id"] = strconv.Itoa(coreID)
				f[dir+"topology/thread_siblings_list"] = list(siblings)
				caches := []struct {
					level      int
					typ, size  string
					sharedCPUs []int
				}{
					{1, "Data", m.L1D, siblings},
					{1, "Instruction", m.L1I, siblings},
					{2, "Unified", m.L2, siblings},
					{3, "Unified", m.L3, l3CPUs},
				}
				for i, cc := range caches {
					idx := fmt.Sprintf("%scache/index%d/", dir, i)
					f[idx+"level"] = strconv.Itoa(cc.level)
					f[idx+"type"] = cc.typ
					f[idx+"size"] = cc.size
					f[idx+"shared_cpu_list"] = list(cc.sharedCPUs)
				}
			}
		}
	}
	return f
}

// list writes ascending CPUs in the kernel's list form.
func list(cpus []int) string {
	cpus = slices.Sorted(slices.Values(cpus))
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			fmt.Fprintf(&b, "-%d", cpus[j])
		}
		i = j + 1
	}
	return b.String()
}
