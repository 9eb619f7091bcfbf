package topology

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// liveAllowed is the calling thread's affinity mask intersected with the
// effective cpuset of the process's cgroup, and a note of where it came from.
func liveAllowed() (CPUSet, string, error) {
	aff, err := Affinity()
	if err != nil {
		return CPUSet{}, "", err
	}
	from := "sched_getaffinity"
	file, cg, err := cgroupCpuset("/proc/self/mountinfo", "/proc/self/cgroup")
	if err != nil {
		return CPUSet{}, "", err
	}
	if file != "" {
		aff = aff.Intersect(cg)
		from += " ∩ " + file
	}
	return aff, from, nil
}

// CgroupAllowed is the online CPUs the process's cgroup lets it use, whatever its threads'
// affinity: where a pinned process may still run a probe (t is this machine's topology).
func CgroupAllowed(t *Topology) (CPUSet, error) {
	file, cg, err := cgroupCpuset("/proc/self/mountinfo", "/proc/self/cgroup")
	if err != nil {
		return CPUSet{}, err
	}
	if file == "" {
		return t.Online.Difference(t.Isolated), nil
	}
	return cg.Intersect(t.Online), nil
}

// Affinity is the calling thread's CPU affinity (sched_getaffinity), sized for
// any number of CPUs.
func Affinity() (CPUSet, error) {
	for n := 1024; n <= MaxCPU; n *= 2 {
		set := unix.NewCPUSet(n)
		err := unix.SchedGetaffinityDynamic(0, set)
		if errors.Is(err, unix.EINVAL) {
			continue // the kernel's mask is larger than ours
		}
		if err != nil {
			return CPUSet{}, fmt.Errorf("topology.Affinity: sched_getaffinity: %v", err)
		}
		var s CPUSet
		for c := 0; c < n; c++ {
			if set.IsSet(c) {
				s.Add(c)
			}
		}
		return s, nil
	}
	return CPUSet{}, fmt.Errorf("topology.Affinity: sched_getaffinity: mask larger than %d CPUs", MaxCPU)
}

// SetAffinity pins the calling OS thread to s (sched_setaffinity). The caller
// holds the thread with runtime.LockOSThread; children forked from it inherit s.
func SetAffinity(s CPUSet) error {
	if s.IsEmpty() {
		return errors.New("topology.SetAffinity: empty CPU set")
	}
	if err := unix.SchedSetaffinityDynamic(0, s.Unix()); err != nil {
		return fmt.Errorf("topology.SetAffinity %s: %v", s, err)
	}
	return nil
}

// Unix is s as the kernel's affinity mask type.
func (s CPUSet) Unix() unix.CPUSetDynamic {
	cpus := s.CPUs()
	n := 1
	if len(cpus) > 0 {
		n = cpus[len(cpus)-1] + 1
	}
	set := unix.NewCPUSet(n)
	for _, c := range cpus {
		set.Set(c)
	}
	return set
}

// cgroupCpuset finds the effective cpuset of the process's cgroup: under cgroup v2
// the nearest cpuset.cpus.effective from the process's cgroup up to the mount
// (the file is absent where the controller is not enabled), else the v1 cpuset
// hierarchy's cpuset.effective_cpus. file is "" when neither exists.
func cgroupCpuset(mountinfo, cgroup string) (file string, s CPUSet, err error) {
	mounts, err := readMounts(mountinfo)
	if err != nil {
		return "", CPUSet{}, err
	}
	paths, err := readCgroups(cgroup)
	if err != nil {
		return "", CPUSet{}, err
	}
	try := func(m mount, cgPath, name string, walkUp bool) (string, bool) {
		rel, ok := strings.CutPrefix(cgPath, m.root)
		if !ok {
			return "", false
		}
		dir := filepath.Join(m.point, rel)
		for {
			f := filepath.Join(dir, name)
			if _, err := os.Stat(f); err == nil {
				return f, true
			}
			if !walkUp || dir == m.point || !strings.HasPrefix(dir, m.point) {
				return "", false
			}
			dir = filepath.Dir(dir)
		}
	}
	for _, m := range mounts {
		var f string
		var ok bool
		switch {
		case m.fstype == "cgroup2" && paths.v2 != "":
			f, ok = try(m, paths.v2, "cpuset.cpus.effective", true)
		case m.fstype == "cgroup" && m.cpuset && paths.v1 != "":
			if f, ok = try(m, paths.v1, "cpuset.effective_cpus", false); !ok {
				f, ok = try(m, paths.v1, "cpuset.cpus", false)
			}
		}
		if !ok {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return "", CPUSet{}, fmt.Errorf("topology.Read: %v", err)
		}
		s, err := ParseCPUSet(string(b))
		if err != nil {
			return "", CPUSet{}, fmt.Errorf("topology.Read: %s: %v", f, err)
		}
		return f, s, nil
	}
	return "", CPUSet{}, nil
}

type mount struct {
	root, point, fstype string
	cpuset              bool // a v1 hierarchy holding the cpuset controller
}

// readMounts keeps the cgroup mounts of /proc/self/mountinfo, v2 first.
func readMounts(path string) ([]mount, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("topology.Read: %v", err)
	}
	defer f.Close()
	var v2, v1 []mount
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 1 {
			continue
		}
		m := mount{root: unescapeMount(a[3]), point: unescapeMount(a[4]), fstype: b[0]}
		switch m.fstype {
		case "cgroup2":
			v2 = append(v2, m)
		case "cgroup":
			if len(b) >= 3 && hasOption(b[2], "cpuset") {
				m.cpuset = true
				v1 = append(v1, m)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("topology.Read: %s: %v", path, err)
	}
	return append(v2, v1...), nil
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			v := 0
			okOct := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					okOct = false
					break
				}
				v = v*8 + int(c-'0')
			}
			if okOct {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

type cgroupPaths struct{ v2, v1 string }

// readCgroups reads /proc/self/cgroup: "0::/path" is v2, "N:cpuset[,...]:/path" v1.
func readCgroups(path string) (cgroupPaths, error) {
	var p cgroupPaths
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("topology.Read: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			p.v2 = parts[2]
		case hasOption(parts[1], "cpuset"):
			p.v1 = parts[2]
		}
	}
	return p, nil
}
