package shmem_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The README's commands and Go code run as written: the set-up command and its output, the
// API program (at 1, 3 and 4 PEs, in a module of its own set up with the README's go mod
// commands), the C programs' commands and the installation (its prefix replaced by a
// temporary one), and shmemrun's flag and exit-status tables against --help. Not run: `go
// test ./...` (this suite itself), the benchmarks, the soak test and `go generate`, which
// CI runs.

// block is a fenced block of the README, with its language and the section it is in.
type block struct {
	lang, section, text string
}

func readmeBlocks(t *testing.T) []block {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	section := ""
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "## ") {
			section = strings.TrimPrefix(l, "## ")
		}
		if !strings.HasPrefix(l, "```") {
			continue
		}
		bl := block{lang: strings.TrimPrefix(l, "```"), section: section}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			bl.text += lines[i] + "\n"
		}
		out = append(out, bl)
	}
	return out
}

func findBlock(t *testing.T, blocks []block, section, lang string, nth int) block {
	t.Helper()
	for _, b := range blocks {
		if b.section == section && b.lang == lang {
			if nth == 0 {
				return b
			}
			nth--
		}
	}
	t.Fatalf("README: no %q block %d in %q", lang, nth, section)
	return block{}
}

// sh runs a README command block with bash -e in dir, with extra environment.
func sh(t *testing.T, dir string, env []string, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("README commands:\n%s\nfailed: %v\n%s", script, err, out.String())
		}
	case <-time.After(10 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("README commands:\n%s\ndid not finish in 10 minutes\n%s", script, out.String())
	}
	return out.String()
}

// commandLines drops comments and the lines skip matches from a shell block.
func commandLines(text string, skip func(string) bool) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l == "" || skip != nil && skip(l) {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func sortedLines(s string) []string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(ls)
	return ls
}

// Set-up: the first command prints what the README shows.
func TestReadmeSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example with go run")
	}
	blocks := readmeBlocks(t)
	cmds := strings.Split(commandLines(findBlock(t, blocks, "Set-up", "sh", 0).text, nil), "\n")
	if len(cmds) < 2 || !strings.HasPrefix(cmds[0], "go run ./cmd/shmemrun -n 4 ./examples/testsome") || !strings.HasPrefix(cmds[1], "go test ./...") {
		t.Fatalf("the set-up block changed: %q", cmds)
	}
	got := sh(t, ".", nil, strings.SplitN(cmds[0], "#", 2)[0])
	want := findBlock(t, blocks, "Set-up", "", 0).text
	if !slices.Equal(sortedLines(got), sortedLines(want)) {
		t.Errorf("the set-up command printed\n%s\nthe README shows\n%s", got, want)
	}
}

// The API program runs as written, in a module of its own made with the README's commands.
func TestReadmeGoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t)
	prog := findBlock(t, blocks, "The API at a glance", "go", 0).text
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "main.go"), []byte(prog), 0o644)
	sum, _ := os.ReadFile("go.sum") // the dependencies' sums: the module cache has them, no network
	os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644)
	setup := commandLines(findBlock(t, blocks, "The API at a glance", "sh", 0).text, nil)
	sh(t, mod, []string{"GOPROXY=off", "GOFLAGS=-mod=mod"}, "go mod init example.com/glance\n"+strings.ReplaceAll(setup, "/path/to/goshmem", root))

	shmemrun := filepath.Join(t.TempDir(), "shmemrun")
	if b, err := exec.Command("go", "build", "-o", shmemrun, "./cmd/shmemrun").CombinedOutput(); err != nil {
		t.Fatalf("building shmemrun: %v\n%s", err, b)
	}
	for _, n := range []int{1, 3, 4} {
		cmd := exec.Command(shmemrun, "-n", fmt.Sprint(n), "--oversubscribe", mod)
		cmd.Env = append(os.Environ(), "GOSHMEM_WAIT=sleep")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%d PEs: %v\n%s", n, err, out)
		}
		for me := range n {
			left, top := (me+n-1)%n, -1
			if me%2 == 0 {
				top = (n - 1) &^ 1 // the largest even PE: max over the even team of me+0
			}
			want := fmt.Sprintf("PE %d of %d: got %d from PE %d, sum %d, block from PE 0 [%d %d], even PEs' max %d\n",
				me, n, left, left, n*(n-1)/2, 2*me, 2*me+1, top)
			if !strings.Contains(string(out), want) {
				t.Errorf("%d PEs: no line %q in\n%s", n, want, out)
			}
		}
	}
}

// C programs: the wrapper's commands, and the installation with pkg-config.
func TestReadmeCPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds libgoshmem")
	}
	if _, err := exec.LookPath("pkg-config"); err != nil {
		t.Skip("no pkg-config")
	}
	blocks := readmeBlocks(t)
	// The commands write ./shmemcc and ./test_some, as they would for a user (.gitignore
	// lists them); files that were there before are left in place.
	for _, f := range []string{"shmemcc", "test_some"} {
		if _, err := os.Stat(f); os.IsNotExist(err) {
			t.Cleanup(func() { os.Remove(f) })
		}
	}
	env := []string{"GOSHMEM_CACHE=" + filepath.Join(t.TempDir(), "cache")}
	out := sh(t, ".", env, commandLines(findBlock(t, blocks, "C programs", "sh", 0).text, nil))
	if strings.Count(out, "of 4: 4 blocks arrived, sum 79800 (correct)\n") != 4 {
		t.Errorf("the C example did not print its 4 results:\n%s", out)
	}
	prefix := filepath.Join(t.TempDir(), "goshmem")
	install := strings.ReplaceAll(commandLines(findBlock(t, blocks, "C programs", "sh", 1).text, nil), "/opt/goshmem", prefix)
	if !strings.Contains(install, "pkg-config --cflags --libs goshmem") {
		t.Fatalf("the installation block changed:\n%s", install)
	}
	if out := sh(t, ".", env, install); strings.Count(out, "of 4: 4 blocks arrived, sum 79800 (correct)\n") != 4 {
		t.Errorf("the installed build did not print its 4 results:\n%s", out)
	}
}

// shmemrun's flag and exit-status tables say what --help says, in its spelling.
func TestReadmeShmemrunTables(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	sec := readme[strings.Index(readme, "## shmemrun"):]
	sec = sec[:strings.Index(sec[3:], "\n## ")+3]
	help, err := exec.Command("go", "run", "./cmd/shmemrun", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	flagRe := regexp.MustCompile(`(?m)^  (-{1,2}[a-z][a-z-]*)`)
	for _, m := range flagRe.FindAllStringSubmatch(string(help), -1) {
		if !strings.Contains(sec, "| `"+m[1]) && !strings.Contains(sec, ", `"+m[1]) {
			t.Errorf("the README's shmemrun table lacks %s as --help spells it", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`(-{1,2}[a-z][a-z-]*)").FindAllStringSubmatch(sec, -1) {
		if !strings.Contains(string(help), "  "+m[1]+" ") && !strings.Contains(string(help), ", "+m[1]) && !strings.Contains(string(help), "  "+m[1]+",") {
			t.Errorf("the README names %s, which --help does not list", m[1])
		}
	}
	statusRe := regexp.MustCompile(`(?m)^  (\d+\+?n?|s)\s{2,}`)
	for _, m := range statusRe.FindAllStringSubmatch(string(help), -1) {
		if !strings.Contains(sec, "| "+m[1]+" |") {
			t.Errorf("the README's exit statuses lack %s", m[1])
		}
	}
}
