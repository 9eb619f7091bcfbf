package settings

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	v, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Size("SHMEM_SYMMETRIC_SIZE"); got != 256<<20 {
		t.Errorf("default heap = %d", got)
	}
	if v.Bool("SHMEM_DEBUG") || v.String("SHMEM_REDUCE_ALGORITHM") != "auto" || v.Int("SHMEM_COLL_RADIX") != 4 {
		t.Errorf("defaults wrong: %v", v.raw)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"1": 1, "4K": 4096, "64kb": 64 << 10, "512M": 512 << 20, "1G": 1 << 30, "2GiB": 2 << 30, "1T": 1 << 40} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1", "1.5G", "12Q", "99999999999T"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestBadValues(t *testing.T) {
	for _, c := range []struct{ name, val, want string }{
		{"SHMEM_REDUCE_ALGORITHM", "bogus", "valid values are auto, linear, tree, ring"},
		{"SHMEM_SYMMETRIC_SIZE", "lots", "SHMEM_SYMMETRIC_SIZE"},
		{"SHMEM_DEBUG", "maybe", "SHMEM_DEBUG"},
		{"SHMEM_COLL_RADIX", "-3", "non-negative"},
	} {
		_, err := Parse(env(map[string]string{c.name: c.val}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: err %v, want mention of %q", c.name, c.val, err, c.want)
		}
	}
	v, err := Parse(env(map[string]string{"SHMEM_BARRIER_ALGORITHM": "Dissem", "SHMEM_INFO": "yes"}))
	if err != nil || v.String("SHMEM_BARRIER_ALGORITHM") != "dissem" || !v.Bool("SHMEM_INFO") {
		t.Errorf("case-insensitive values: %v %v", v.raw, err)
	}
}

// The README's table is generated from Table; this keeps them in step.
func TestReadmeTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("no README")
	}
	if !strings.Contains(string(b), Markdown()) {
		t.Errorf("README.md's environment table differs from settings.Markdown(); regenerate it with `go run ./cmd/shmemrun --help-env-markdown`")
	}
}

// Seconds counts seconds as a duration and does not overflow at the largest counts.
func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		val  string
		want time.Duration
	}{
		{"", 10 * time.Second}, // SHMEM_DEBUG_TIMEOUT's default
		{"0", 0},
		{"5", 5 * time.Second},
		{"9223372036854775807", time.Duration(math.MaxInt64/int64(time.Second)) * time.Second},
	} {
		m := map[string]string{}
		if c.val != "" {
			m["SHMEM_DEBUG_TIMEOUT"] = c.val
		}
		v, err := Parse(env(m))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Seconds("SHMEM_DEBUG_TIMEOUT"); got != c.want || got < 0 {
			t.Errorf("SHMEM_DEBUG_TIMEOUT=%q: Seconds %v, want %v", c.val, got, c.want)
		}
	}
}
