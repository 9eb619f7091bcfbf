package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goshmem/shmem/internal/fakenodes"
)

// Built once per test binary: the launcher as its own process (signals go to it) and the
// PE program of the reliability tests.
var (
	buildOnce             sync.Once
	shmemrunBin, testprog string
	buildDir              string
	buildErr              error
)

// TestMain removes the binaries' directory: `go test` leaves nothing in the temporary
// directory behind (issue 13.9), and says so if it cannot.
func TestMain(m *testing.M) {
	// Jobs started here calibrate the cost model on their first run: into a directory of
	// the test's, not the user's cache.
	cache, err := os.MkdirTemp("", "shmemrun-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("GOSHMEM_CACHE", cache)
	// fakenodes.Main: the multi-node tests share one set of fake nodes and one Slurm
	// cluster, instead of each starting (and, the harness's, removing) its own.
	code := fakenodes.Main(m)
	os.RemoveAll(cache)
	if buildDir != "" {
		if err := os.RemoveAll(buildDir); err != nil {
			fmt.Fprintf(os.Stderr, "removing %s: %v\n", buildDir, err)
			code = 1
		}
	}
	os.Exit(code)
}

func binaries(t *testing.T) (string, string) {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "shmemrun-test-")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		shmemrunBin, testprog = filepath.Join(dir, "shmemrun"), filepath.Join(dir, "testprog")
		for _, b := range [][2]string{{shmemrunBin, "."}, {testprog, "../../internal/testprog"}} {
			if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
				buildErr = err
				t.Log(string(out))
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return shmemrunBin, testprog
}

// waitPIDs waits until n PEs have written their pids into dir.
func waitPIDs(t *testing.T, dir string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var pids []int
		for pe := range n {
			b, err := os.ReadFile(filepath.Join(dir, "pe"+strconv.Itoa(pe)))
			if err != nil {
				break
			}
			p, err := strconv.Atoi(string(b))
			if err != nil || p <= 0 { // never signal pid 0 or -1: that is a whole group
				t.Fatalf("PE %d wrote pid %q", pe, b)
			}
			pids = append(pids, p)
		}
		if len(pids) == n {
			return pids
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the PEs did not start")
	return nil
}

// gone reports whether pid no longer runs (gone, or a zombie no one has reaped yet).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func allGone(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, p := range pids {
		for !gone(p) {
			if time.Now().After(deadline) {
				t.Fatalf("PE pid %d still runs %v after the job ended", p, within)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func shmFiles(t *testing.T) []string {
	t.Helper()
	es, _ := os.ReadDir("/dev/shm")
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// SIGTERM, SIGINT and SIGHUP sent to shmemrun reach every PE, and shmemrun exits with
// 128+signal.
func TestSignalsReachPEs(t *testing.T) {
	run, prog := binaries(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(run, "-n", "3", prog, "-pids", dir, "notify")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := waitPIDs(t, dir, 3)
			time.Sleep(100 * time.Millisecond) // the PEs are past their barrier, waiting
			cmd.Process.Signal(sig)
			cmd.Wait()
			if st := cmd.ProcessState.ExitCode(); st != 128+int(sig) {
				t.Fatalf("shmemrun exit status %d, want %d\n%s", st, 128+int(sig), errb.String())
			}
			for pe := range 3 {
				b, err := os.ReadFile(filepath.Join(dir, "sig"+strconv.Itoa(pe)))
				if err != nil || !strings.Contains(string(b), strings.SplitN(sig.String(), " ", 2)[0]) {
					t.Errorf("PE %d did not get %v (%q, %v)", pe, sig, b, err)
				}
			}
			allGone(t, pids, 2*time.Second)
		})
	}
}

// A PE that ignores SIGINT keeps running after the first; the second kills the job at once.
func TestSecondInterruptKills(t *testing.T) {
	run, prog := binaries(t)
	dir := t.TempDir()
	cmd := exec.Command(run, "-n", "2", prog, "-pids", dir, "ignoreint")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPIDs(t, dir, 2)
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	if gone(pids[0]) {
		t.Fatal("a PE that ignores SIGINT died on the first one")
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("the second SIGINT took %v to end the job (the grace period is 1s: it should not wait for it)", d)
	}
	if st := cmd.ProcessState.ExitCode(); st != 130 {
		t.Fatalf("exit status %d, want 130", st)
	}
	allGone(t, pids, 2*time.Second)
}

// If shmemrun itself is killed, its PEs die with it (parent-death signal), and nothing is
// left in /dev/shm (the heap is a memfd).
func TestLauncherKilled(t *testing.T) {
	run, prog := binaries(t)
	before := shmFiles(t)
	dir := t.TempDir()
	cmd := exec.Command(run, "-n", "3", prog, "-pids", dir, "barrier")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPIDs(t, dir, 3)
	cmd.Process.Kill()
	cmd.Wait()
	allGone(t, pids, 2*time.Second)
	if after := shmFiles(t); len(after) != len(before) {
		t.Fatalf("/dev/shm changed: %v -> %v", before, after)
	}
}

// Killing a random PE in the middle of collectives, 50 times: every time shmemrun reports
// the PE, exits 137 within 2 s, and leaves no process and nothing in /dev/shm behind.
func TestKillRandomPE(t *testing.T) {
	run, prog := binaries(t)
	before := shmFiles(t)
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for r := range rounds {
		dir := t.TempDir()
		n := 2 + rng.IntN(4)
		cmd := exec.Command(run, "-n", strconv.Itoa(n), prog, "-pids", dir, "loop")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pids := waitPIDs(t, dir, n)
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		victim := rng.IntN(n)
		syscall.Kill(pids[victim], syscall.SIGKILL)
		start := time.Now()
		cmd.Wait()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("round %d: the job took %v to end after PE %d was killed", r, d, victim)
		}
		if st := cmd.ProcessState.ExitCode(); st != 137 || !strings.Contains(errb.String(), "PE "+strconv.Itoa(victim)+" (pid "+strconv.Itoa(pids[victim])+") killed by SIGKILL") {
			t.Fatalf("round %d: status %d, stderr:\n%s", r, st, errb.String())
		}
		allGone(t, pids, 2*time.Second)
	}
	if after := shmFiles(t); len(after) != len(before) {
		t.Fatalf("/dev/shm changed: %v -> %v", before, after)
	}
}

// --timeout with SHMEM_DEBUG=1 says where each PE waits, in which collective, and which PEs
// have not arrived; without it, in which routine.
func TestTimeoutReport(t *testing.T) {
	run, prog := binaries(t)
	dir := t.TempDir()
	cmd := exec.Command(run, "-n", "3", "--timeout", "1.5", prog, "-pids", dir, "barrier")
	cmd.Env = append(os.Environ(), "SHMEM_DEBUG=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Run()
	out := errb.String()
	if st := cmd.ProcessState.ExitCode(); st != 124 {
		t.Fatalf("status %d, want 124\n%s", st, out)
	}
	for _, want := range []string{"--timeout 1.5s expired", "waiting in shmem.Barrier over PEs 0..2", "not arrived: PE 2", "PE 2 (pid "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// Without SHMEM_DEBUG the report still names the routine each PE waits in: PEs in
	// different calls (a program that broke a collective's rules) show as such.
	cmd = exec.Command(run, "-n", "3", "--timeout", "1.5", prog, "othercoll")
	errb.Reset()
	cmd.Stderr = &errb
	cmd.Run()
	out = errb.String()
	if st := cmd.ProcessState.ExitCode(); st != 124 {
		t.Fatalf("othercoll: status %d, want 124\n%s", st, out)
	}
	for _, want := range []string{"): waiting in shmem.Barrier (barrier) for ", "): waiting in shmem.BarrierAll (barrier) for ",
		"shmemrun: the PEs wait in different collectives (shmem.BarrierAll, shmem.Barrier): every PE must call the same collectives in the same order"} {
		if !strings.Contains(out, want) {
			t.Errorf("othercoll: report lacks %q:\n%s", want, out)
		}
	}
}

// A PE's last line arrives even without its newline, and before the report of its panic.
func TestPartialLineNotLost(t *testing.T) {
	_, prog := binaries(t)
	var out, errb bytes.Buffer
	st := run([]string{"-n", "2", "--tag-output", prog, "partial"}, &out, &errb)
	if st == 0 || !strings.Contains(out.String(), "[PE 1] half a line from PE 1\n") || !strings.Contains(errb.String(), "panic: after a partial line") {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out.String(), errb.String())
	}
}

// Standard input goes to PE 0; the others read end-of-file at once.
func TestStdinToPE0(t *testing.T) {
	run, prog := binaries(t)
	cmd := exec.Command(run, "-n", "3", prog, "stdin")
	cmd.Stdin = strings.NewReader("alpha\nbeta\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"PE 0 read: alpha", "PE 0 read: beta", "PE 1 read 0 bytes", "PE 2 read 0 bytes"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// Every line reaches a reader that starts reading only seconds after the PEs finished
// (issue 13.1: the relay gave up 2 s after the last PE exited, status 0, lines lost).
func TestSlowReaderGetsEverything(t *testing.T) {
	run, prog := binaries(t)
	checkLines(t, slowRead(t, exec.Command(run, "-n", "2", prog, "lines"), 3500*time.Millisecond))
}

// slowRead starts cmd, reads its stdout only after delay (the PEs are done long before),
// checks that the job ended with status 0, and returns what it read.
func slowRead(t *testing.T, cmd *exec.Cmd, delay time.Duration) []byte {
	t.Helper()
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill() // the test fails below, instead of hanging
		}
	}()
	time.Sleep(delay)
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if st := cmd.ProcessState.ExitCode(); st != 0 {
		t.Fatalf("status %d", st)
	}
	return b
}

// checkLines checks that every line of testprog's "lines" mode, 2 PEs, arrived.
func checkLines(t *testing.T, b []byte) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2400 {
		t.Fatalf("%d lines delivered, want 2400", len(lines))
	}
	for pe := range 2 {
		if !strings.Contains(string(b), fmt.Sprintf("PE %d line 1199 ", pe)) {
			t.Errorf("PE %d's last line is missing", pe)
		}
	}
}

// A line without a newline far longer than any buffer is relayed whole, in bounded memory
// (issue 13.2: it was buffered whole, 2.6 GB of launcher memory for 1 GB of output).
func TestLongLineBoundedMemory(t *testing.T) {
	run, prog := binaries(t)
	cmd := exec.Command(run, "-n", "2", "--tag-output", prog, "longline")
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var n, xs int64
	var head []byte
	buf := make([]byte, 1<<20)
	for {
		k, err := r.Read(buf)
		if len(head) < 16 {
			head = append(head, buf[:min(k, 16)]...)
		}
		xs += int64(bytes.Count(buf[:k], []byte("x")))
		n += int64(k)
		if err != nil {
			break
		}
	}
	cmd.Wait()
	const size = 128 << 20
	if st := cmd.ProcessState.ExitCode(); st != 0 || xs != size || n != size+int64(len("[PE 0] \n")) || !bytes.HasPrefix(head, []byte("[PE 0] xxx")) {
		t.Fatalf("status %d, %d bytes with %d of the %d written, starting %q", st, n, xs, size, head)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if rss > 64<<20 {
		t.Fatalf("shmemrun's peak RSS was %d MiB relaying a %d MiB line", rss>>20, size>>20)
	}
	t.Logf("peak RSS of shmemrun: %d MiB", rss>>20)
}

// A child a PE leaves behind, holding the PE's stdout, does not hold the job: shmemrun
// delivers the PEs' output to a slow reader and ends (issue 13.3), rather than lose lines
// (the 2 s drain deadline) or wait for end-of-file (the child's whole life, 60 s here).
func TestChildDoesNotHoldJob(t *testing.T) {
	run, prog := binaries(t)
	dir := t.TempDir()
	start := time.Now()
	checkLines(t, slowRead(t, exec.Command(run, "-n", "2", prog, "-pids", dir, "child"), 3500*time.Millisecond))
	if b, err := os.ReadFile(filepath.Join(dir, "child")); err == nil {
		if pid, _ := strconv.Atoi(string(b)); pid > 0 {
			if gone(pid) {
				t.Errorf("the PE's child (pid %d) was ended; it should be left alone", pid)
			}
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("shmemrun took %v: it waited for the PE's child", d)
	}
}

// A SIGSEGV, SIGBUS or SIGQUIT sent to a PE by another process is reported with its cause
// (issue 13.9: the report said only "exited with status 2").
func TestSentSignalReported(t *testing.T) {
	run, prog := binaries(t)
	for _, sig := range []syscall.Signal{syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(run, "-n", "3", prog, "-pids", dir, "barrier")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := waitPIDs(t, dir, 3)
			syscall.Kill(pids[1], sig)
			cmd.Wait()
			want := fmt.Sprintf("shmemrun: PE 1 (pid %d) exited with status 2: %s: ", pids[1], unix.SignalName(sig))
			if st := cmd.ProcessState.ExitCode(); st != 2 || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "(sent by another process, not a fault of the PE)") {
				t.Fatalf("status %d, want 2 and %q in stderr:\n%s", st, want, errb.String())
			}
			allGone(t, pids, 2*time.Second)
		})
	}
}

// With SHMEM_DEBUG=1 a wait longer than SHMEM_DEBUG_TIMEOUT ends the job with status 1 and
// a report: where the PE waits, which members of its call have not arrived, and what every
// PE is doing (issue 13.6: the wait printed one line and went on forever).
func TestDebugHangReport(t *testing.T) {
	run, prog := binaries(t)
	for _, c := range []struct {
		mode string
		stop bool // SIGSTOP the last PE once the PEs have started
		want []string
	}{
		{"barrier", false, []string{"in shmem.Barrier over PEs 0..2; not arrived: PE 2", "PE 2 (pid ", "): running outside the library's waits"}},
		{"barrier", true, []string{" over PEs 0..2; not arrived: PE 2", "): stopped by a signal"}}, // in Calloc or Barrier
		{"late", false, []string{"in shmem.Init over PEs 0..2; not arrived: PE 2", "PE 2 (pid 0): not started: has not called shmem.Init"}},
		{"finalize", false, []string{"in shmem.Finalize over PEs 0..2; not arrived: PE 2", "): waiting in shmem.Finalize over PEs 0..2 for "}},
		{"othercoll", false, []string{"): waiting in shmem.Barrier over PEs 1..2 for ", "): waiting in shmem.BarrierAll over PEs 0..2 for "}},
	} {
		t.Run(fmt.Sprintf("%s/stop=%v", c.mode, c.stop), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(run, "-n", "3", prog, "-pids", dir, c.mode)
			cmd.Env = append(os.Environ(), "SHMEM_DEBUG=1", "SHMEM_DEBUG_TIMEOUT=2", "GOSHMEM_TEST_NPES=3")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if c.stop {
				pids := waitPIDs(t, dir, 3)
				syscall.Kill(pids[2], syscall.SIGSTOP)
				defer syscall.Kill(pids[2], syscall.SIGKILL)
			}
			done := make(chan struct{})
			go func() {
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					cmd.Process.Signal(syscall.SIGTERM) // the test fails below instead of hanging
				}
			}()
			cmd.Wait()
			close(done)
			out := errb.String()
			if st := cmd.ProcessState.ExitCode(); st != 1 || !strings.Contains(out, "shmem: SHMEM_DEBUG: PE ") || !strings.Contains(out, "ending the job: a wait passed SHMEM_DEBUG_TIMEOUT=2 seconds") {
				t.Fatalf("status %d, want 1 and a hang report:\n%s", st, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, out)
				}
			}
			checkDurations(t, out)
		})
	}
}

// checkDurations fails when a report's duration is not one a test could have waited
// (a report once said "498938h": a wait's start was read after it was cleared).
func checkDurations(t *testing.T, out string) {
	t.Helper()
	for _, f := range strings.Fields(out) {
		f = strings.TrimRight(f, ";,")
		if d, err := time.ParseDuration(f); err == nil && f != "0" && d > 5*time.Minute {
			t.Errorf("implausible duration %s in:\n%s", f, out)
		}
	}
}

// --timeout's report lists every PE, also those that already finalized and exited
// (issue 14.7, with 13.6's report).
func TestTimeoutReportListsExitedPEs(t *testing.T) {
	run, prog := binaries(t)
	cmd := exec.Command(run, "-n", "3", "--timeout", "3", prog, "afterfinalize")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Run()
	out := errb.String()
	if st := cmd.ProcessState.ExitCode(); st != 124 {
		t.Fatalf("status %d, want 124\n%s", st, out)
	}
	for _, want := range []string{"--timeout 3s expired", "PE 0 (pid ", "running after shmem.Finalize", "PE 1 (pid ", "PE 2 (pid ", "exited after shmem.Finalize with status 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	checkDurations(t, out)
}
