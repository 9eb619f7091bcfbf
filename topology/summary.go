package topology

import (
	"fmt"
	"strings"
)

// Summary describes t for SHMEM_INFO=1 and shmemrun --dry-run: the counts, each
// socket with its nodes and L3 domains, the distance matrix, the caches, the CPU
// states, and what Read had to assume.
func Summary(t *Topology) string {
	var b strings.Builder
	fmt.Fprintf(&b, "topology %s: %s, %s, %s, %s, %s\n", t.Root,
		plural(len(t.Packages), "socket"), plural(len(t.Nodes), "NUMA node"), plural(len(t.Cores), "core"),
		plural(t.Threads(), "hardware thread"), plural(len(t.L3), "L3 domain"))
	for _, p := range t.Packages {
		cores := 0
		for _, c := range t.Cores {
			if c.Package == p.ID {
				cores++
			}
		}
		var nodes, l3 []string
		for _, n := range t.Nodes {
			if n.CPUs.Overlaps(p.CPUs) {
				nodes = append(nodes, fmt.Sprint(n.ID))
			}
		}
		for i, c := range t.L3 {
			if c.CPUs.Overlaps(p.CPUs) {
				l3 = append(l3, fmt.Sprint(i))
			}
		}
		fmt.Fprintf(&b, "  socket %d: %s, %s, numa %s, L3 %s, cpus %s\n", p.ID, plural(cores, "core"),
			plural(p.CPUs.Count(), "thread"), strings.Join(nodes, ","), strings.Join(l3, ","), p.CPUs)
	}
	for _, n := range t.Nodes {
		var l3 []string
		for i, c := range t.L3 {
			if c.CPUs.Overlaps(n.CPUs) {
				l3 = append(l3, fmt.Sprint(i))
			}
		}
		cpus := n.CPUs.String()
		if cpus == "" {
			cpus = "none"
		}
		fmt.Fprintf(&b, "  numa %d: cpus %s, L3 %s, distances %s\n", n.ID, cpus, orNone(strings.Join(l3, ",")), ints(n.Distance))
	}
	for i, c := range t.L3 {
		note := ""
		if c.Assumed {
			note = " (assumed)"
		}
		fmt.Fprintf(&b, "  L3 %d: %s, cpus %s%s\n", i, sizeOrUnknown(c.Size), c.CPUs, note)
	}
	fmt.Fprintf(&b, "  caches: %s\n", cacheCounts(t.Caches))
	fmt.Fprintf(&b, "  online %s; offline %s; isolated %s\n", t.Online, orNone(t.Offline.String()), orNone(t.Isolated.String()))
	fmt.Fprintf(&b, "  allowed %s (%s, from %s)\n", t.Allowed, plural(t.Allowed.Count(), "CPU"), t.AllowedFrom)
	for _, a := range t.Assumed {
		fmt.Fprintf(&b, "  assumed: %s\n", a)
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func sizeOrUnknown(n int64) string {
	if n <= 0 {
		return "size unknown"
	}
	return fmtBytes(n)
}

// cacheCounts is "L1d 32 KiB ×56, L1i 32 KiB ×56, L2 1 MiB ×56, L3 38.5 MiB ×2".
func cacheCounts(cs []Cache) string {
	type key struct {
		name string
		size int64
	}
	var order []key
	count := map[key]int{}
	for _, c := range cs {
		name := fmt.Sprintf("L%d", c.Level)
		switch c.Type {
		case "Data":
			name += "d"
		case "Instruction":
			name += "i"
		}
		k := key{name, c.Size}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s %s ×%d", k.name, sizeOrUnknown(k.size), count[k]))
	}
	return orNone(strings.Join(parts, ", "))
}
