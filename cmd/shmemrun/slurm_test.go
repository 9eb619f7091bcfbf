package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goshmem/shmem/internal/fakenodes"
	"github.com/goshmem/shmem/runtime/launch"
)

// Slurm on fake nodes (scripts/fakenodes/slurm): srun --mpi=pmix starts goshmem programs
// itself, shmemrun runs them through srun inside an allocation, and a PE that fails ends
// the job instead of leaving the others waiting.

// The PE program of these tests: internal/testprog with the many-node engine, built once
// into the reliability tests' directory (TestMain removes it).
var (
	ucxProgOnce sync.Once
	ucxProg     string
	ucxProgErr  error
)

func slurmTestprog(t *testing.T) string {
	t.Helper()
	binaries(t) // makes buildDir
	ucxProgOnce.Do(func() {
		ucxProg = filepath.Join(buildDir, "testprog-ucx")
		if out, err := exec.Command("go", "build", "-tags", "goshmem_ucx", "-o", ucxProg, "../../internal/testprog").CombinedOutput(); err != nil {
			ucxProgErr = fmt.Errorf("go build -tags goshmem_ucx internal/testprog: %v\n%s", err, out)
		}
	})
	if ucxProgErr != nil {
		t.Fatal(ucxProgErr)
	}
	return ucxProg
}

// runSlurm runs name args on the login node; a job that does not end within a minute is
// killed (and the test fails saying so).
func runSlurm(t *testing.T, s *fakenodes.Slurm, name string, args ...string) *fakenodes.Result {
	t.Helper()
	r, err := s.Run(s.Command(name, args...), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.TimedOut {
		t.Fatalf("the job did not end:\n%v", r)
	}
	return r
}

// checkWhere reads testprog where's lines (every PE's put arrived, then "PE i of n host H
// shared S") and wants PE i on the i-th of hosts, sharing its node with the PEs hosts puts
// there.
func checkWhere(t *testing.T, r *fakenodes.Result, hosts string) {
	t.Helper()
	if r.ExitCode != 0 {
		t.Fatal(r)
	}
	want := strings.Fields(hosts)
	onHost := map[string]int{}
	for _, h := range want {
		onHost[h]++
	}
	got := make([]string, len(want))
	for _, l := range r.Lines() {
		var pe, n, shared int
		var host string
		if _, err := fmt.Sscanf(l, "PE %d of %d host %s shared %d", &pe, &n, &host, &shared); err != nil || n != len(want) || pe < 0 || pe >= n || got[pe] != "" {
			t.Fatalf("line %q (want %d PEs, each once): %v\n%v", l, len(want), err, r)
		}
		got[pe] = host
		if shared != onHost[host] {
			t.Errorf("PE %d on %s: %d PEs in its shared team, want %d", pe, host, shared, onHost[host])
		}
	}
	if strings.Join(got, " ") != hosts {
		t.Fatalf("PEs ran on %v, want %s\n%v", got, hosts, r)
	}
}

// srun --mpi=pmix across the nodes, as a user runs it: PMIx from Slurm's plugin tells each
// PE its rank and node, the PEs of a node share its memory, and every PE reaches every
// other.
func TestMultinodeSlurmSrun(t *testing.T) {
	s := fakenodes.RequireSlurm(t, 2)
	prog := slurmTestprog(t)
	for _, c := range []struct {
		args  []string
		hosts string
	}{
		{[]string{"-N2", "-n2"}, "gsn1 gsn2"},
		{[]string{"-N2", "-n4"}, "gsn1 gsn1 gsn2 gsn2"}, // srun's default: block
		{[]string{"-N2", "-n4", "--distribution=cyclic"}, "gsn1 gsn2 gsn1 gsn2"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runSlurm(t, s, "srun", append(append([]string{"--mpi=pmix"}, c.args...), prog, "where")...)
			checkWhere(t, r, c.hosts)
		})
	}
}

// shmemrun inside an allocation (salloc sets SLURM_JOB_ID): it runs srun --mpi=pmix, with
// SLURM_HOSTFILE placing the PEs as --dry-run says (one PE per node, and the shapes of
// placementCases that fit 2 nodes of 2 CPUs), or, without --hosts, where Slurm does.
func TestMultinodeSlurmShmemrun(t *testing.T) {
	s := fakenodes.RequireSlurm(t, 2)
	shmemrun, _ := binaries(t)
	prog := slurmTestprog(t)
	for _, c := range []struct {
		args  []string
		hosts string
	}{
		{[]string{"--hosts", "gsn1:1,gsn2:1"}, "gsn1 gsn2"},
		{[]string{"--hosts", "gsn1:2,gsn2:2"}, "gsn1 gsn1 gsn2 gsn2"},
		{[]string{"--hosts", "gsn1:2,gsn2:2", "-n", "3"}, "gsn1 gsn1 gsn2"},
		{[]string{"--hosts", "gsn1:2,gsn2:2", "--map-by", "node"}, "gsn1 gsn2 gsn1 gsn2"},
		{[]string{"--launcher", "srun", "-n", "4"}, "gsn1 gsn1 gsn2 gsn2"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			n := strconv.Itoa(len(strings.Fields(c.hosts)))
			args := append([]string{"-N2", "-n", n, shmemrun}, c.args...)
			r := runSlurm(t, s, "salloc", append(args, "--timeout", "50s", prog, "where")...)
			checkWhere(t, r, c.hosts)
		})
	}
}

// A PE that fails ends the whole job, with a message naming it, and leaves no PE behind:
// one that panics after Init (its peers notice it is gone and abort the job through PMIx),
// under srun and under shmemrun; and one that exits before Init (its peers wait in the
// start-up exchange, which only srun can end: shmemrun passes --kill-on-bad-exit).
func TestMultinodeSlurmFailingPE(t *testing.T) {
	s := fakenodes.RequireSlurm(t, 2)
	shmemrun, _ := binaries(t)
	prog := slurmTestprog(t)
	early := filepath.Join(t.TempDir(), "early")
	// Its pid is the PE's (exec), written before Init as testprog does after it.
	script := "#!/bin/sh\necho $$ >\"$2/pe$PMIX_RANK\"\n" +
		"if [ \"$PMIX_RANK\" = 1 ]; then echo \"PE 1 exits before Init\" >&2; exit 3; fi\nexec " + prog + " \"$@\"\n"
	if err := os.WriteFile(early, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		argv []string // the command; PIDS is the pids directory
		want []string
	}{
		{"srun panic", []string{"srun", "--mpi=pmix", "-N2", "-n2", prog, "-pids", "PIDS", "partial"},
			[]string{"panic: after a partial line", "goshmem: PE 1 on gsn2 ended before shmem_finalize"}},
		{"srun panic beside a PE of its node", []string{"srun", "--mpi=pmix", "-N2", "-n4", "--distribution=cyclic", prog, "-pids", "PIDS", "partial"},
			[]string{"panic: after a partial line", "goshmem: PE 1 on gsn2 ended before shmem_finalize"}},
		{"shmemrun panic", []string{"salloc", "-N2", "-n2", shmemrun, "--hosts", "gsn1:1,gsn2:1", "--timeout", "50s", prog, "-pids", "PIDS", "partial"},
			[]string{"panic: after a partial line", "goshmem: PE 1 on gsn2 ended before shmem_finalize"}},
		{"shmemrun exit before Init", []string{"salloc", "-N2", "-n2", shmemrun, "--hosts", "gsn1:1,gsn2:1", "--timeout", "50s", early, "-pids", "PIDS", "where"},
			[]string{"task 1: Exited with exit code 3"}}, // the script's own line may be lost: srun ends the step at once
		// srun alone lets the other PEs wait for a PE that ended before Init until Slurm's
		// PMIx timeout (minutes); GOSHMEM_INIT_TIMEOUT ends the job sooner, naming a PE.
		{"srun exit before Init, GOSHMEM_INIT_TIMEOUT", []string{"srun", "--mpi=pmix", "-N2", "-n2", "--export=ALL,GOSHMEM_INIT_TIMEOUT=5", early, "-pids", "PIDS", "where"},
			[]string{"task 1: Exited with exit code 3", "goshmem: PE 0 on gsn1: the job's PEs did not all reach shmem_init within GOSHMEM_INIT_TIMEOUT=5 s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pids := t.TempDir()
			argv := append([]string(nil), c.argv...)
			for i, a := range argv {
				if a == "PIDS" {
					argv[i] = pids
				}
			}
			r := runSlurm(t, s, argv[0], argv[1:]...)
			out := r.Stdout + r.Stderr
			if r.ExitCode == launch.StatusTimeout || strings.Contains(out, "--timeout 50s expired") {
				t.Fatalf("the job ended only at shmemrun's --timeout\n%v", r)
			}
			for _, w := range c.want {
				if r.ExitCode == 0 || !strings.Contains(out, w) {
					t.Fatalf("status %d, want non-zero and %q\n%v", r.ExitCode, w, r)
				}
			}
			// Every PE that started is gone once the launcher has returned.
			ents, _ := os.ReadDir(pids)
			for _, e := range ents {
				b, _ := os.ReadFile(filepath.Join(pids, e.Name()))
				if pid, err := strconv.Atoi(string(b)); err == nil && pid > 0 && !gone(pid) {
					t.Errorf("%s (pid %d) still runs after the job ended\n%v", e.Name(), pid, r)
				}
			}
		})
	}
}

// shmemrun --timeout through srun: srun passes SIGUSR2 on, and each node reports its PEs
// (TestMultinodeShmemrunTimeoutReport is the same through mpirun).
func TestMultinodeSlurmTimeoutReport(t *testing.T) {
	s := fakenodes.RequireSlurm(t, 2)
	shmemrun, _ := binaries(t)
	pids := t.TempDir()
	r := runSlurm(t, s, "salloc", "-N2", "-n4", shmemrun, "--hosts", "gsn1:2,gsn2:2", "--timeout", "8s", slurmTestprog(t), "-pids", pids, "barrier")
	out := r.Stdout + r.Stderr
	if r.ExitCode != launch.StatusTimeout {
		t.Errorf("status %d, want %d\n%v", r.ExitCode, launch.StatusTimeout, r)
	}
	for pe := range 4 {
		want := fmt.Sprintf("goshmem: PE %d on gsn%d (pid ", pe, pe/2+1)
		if !strings.Contains(out, want) {
			t.Errorf("no %q\n%v", want, r)
		}
	}
	if !strings.Contains(out, "): running outside the library's waits") || strings.Contains(out, "ended before shmem_finalize") {
		t.Errorf("want the last PE running outside the library and no PE reported failed\n%v", r)
	}
}
