package topology

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCgroupCpuset(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v2 := filepath.Join(dir, "v2")
	v1 := filepath.Join(dir, "v1 cpuset") // a space, escaped in mountinfo
	mk("v2/job/cpuset.cpus.effective", "4-7\n")
	mk("v2/job/task/cgroup.procs", "") // no cpuset file: the parent's applies
	mk("v1 cpuset/docker/abc/cpuset.effective_cpus", "2-3\n")
	mountinfo := mk("mountinfo", "30 1 0:26 / "+v2+" rw,nosuid - cgroup2 cgroup2 rw\n"+
		"31 1 0:27 / "+strings.ReplaceAll(v1, " ", `\040`)+" rw - cgroup cgroup rw,cpuset\n"+
		"32 1 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n")
	for _, c := range []struct {
		name, cgroup, file, cpus string
	}{
		{"v2 walks up to the nearest file", "0::/job/task\n", v2 + "/job/cpuset.cpus.effective", "4-7"},
		{"v1 cpuset hierarchy", "5:cpuset:/docker/abc\n4:memory:/x\n", v1 + "/docker/abc/cpuset.effective_cpus", "2-3"},
		{"neither", "4:memory:/x\n", "", ""},
	} {
		cg := mk("cgroup-"+strings.ReplaceAll(c.name, " ", "_"), c.cgroup)
		file, set, err := cgroupCpuset(mountinfo, cg)
		if err != nil || file != c.file || set.String() != c.cpus {
			t.Errorf("%s: %q %s %v, want %q %s", c.name, file, set, err, c.file, c.cpus)
		}
	}
}
