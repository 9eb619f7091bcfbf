package fakenodes

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Slurm is a Slurm cluster on the fake nodes (scripts/fakenodes/slurm): slurmctld on the
// first node, a slurmd on every node, munge for their authentication, and srun --mpi=pmix
// serving PMIx to the PEs, as on a real cluster.
//
//	s := fakenodes.RequireSlurm(t, 2)
//	r, err := s.Run(s.Command("srun", "-N2", "-n4", bin), time.Minute)
type Slurm struct {
	*Cluster
	Conf string // the slurm.conf srun, salloc and sinfo read (SLURM_CONF)
}

// RequireSlurm returns n fake nodes with a Slurm cluster on them, started if need be and
// kept for the other tests (the last user of the nodes stops a cluster the harness
// started), or skips t naming why: Slurm or munge not installed, which CI must have
// (GOSHMEM_FAKENODES=require fails instead).
func RequireSlurm(t testing.TB, n int) *Slurm {
	t.Helper()
	c := Require(t, n)
	cmd := exec.Command(filepath.Join(c.Scripts, "slurm"), "start", "--auto", strconv.Itoa(n))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			Skip(t, "no Slurm cluster on the fake nodes: %s", strings.TrimSpace(stderr.String()))
		}
		t.Fatalf("fakenodes.RequireSlurm: slurm start %d: %v\n%s%s", n, err, stdout.String(), stderr.String())
	}
	conf, ok := strings.CutPrefix(strings.TrimSpace(stdout.String()), "SLURM_CONF=")
	if !ok || !filepath.IsAbs(conf) {
		t.Fatalf("fakenodes.RequireSlurm: slurm start %d printed %q, want SLURM_CONF=/path", n, stdout.String())
	}
	return &Slurm{Cluster: c, Conf: conf}
}

// Command is name args (srun, salloc, sinfo, or a program calling them) run on the first
// node, the cluster's login node, with SLURM_CONF and this process's environment, which
// srun hands to every PE (--export=ALL, its default).
func (s *Slurm) Command(name string, args ...string) *exec.Cmd {
	cmd := s.OnNode(s.Nodes[0], name, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+s.Conf, envInside+"=1")
	return cmd
}
