//go:build linux && cgo

package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	rt "github.com/goshmem/shmem/runtime"
)

// The post bit reaches the runtime as rt.AMOPost; codes out of range are refused with the
// routine's name.
func TestAMOOp(t *testing.T) {
	if got := amoOp("x", amoFetchAdd|amoPost); got != rt.AMOFetchAdd|rt.AMOPost {
		t.Errorf("fetch-add | post: %#x", got)
	}
	if got := amoOp("x", amoCompareSwap); got != rt.AMOCompareSwap {
		t.Errorf("compare-swap: %#x", got)
	}
	for _, op := range []int32{-1, 2 * amoPost, 3 * amoPost, 1 << 20} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "shmem_x: unknown atomic operation") {
					t.Errorf("op %d: %v", op, r)
				}
			}()
			amoOp("shmem_x", op)
		}()
	}
}

// Every generated atomic that returns nothing posts its operation (across nodes it is only
// started, and quiet completes it); every one that returns or stores a value does not. A
// non-fetching add that waited for its answer took a network round trip per call (OSU's
// osu_oshm_atomics: shmem_int_add 11 us across two nodes, OSHMEM 3 us).
func TestAMOPosted(t *testing.T) {
	b, err := os.ReadFile("zshmem.c")
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?m)^(\w[\w ]*?\**)\s*(pshmem_\w+|pstart_pes)\(([^)]*)\)\n\{\n((?:.*\n)*?)\}\n`)
	var posted, fetching int
	for _, m := range fn.FindAllStringSubmatch(string(b), -1) {
		ret, name, body := strings.TrimSpace(m[1]), m[2], m[4]
		if !strings.Contains(body, "goshmem_fast_amo") {
			continue
		}
		post := strings.Contains(body, "GOSHMEM_AMO_POST")
		result := ret != "void" || strings.Contains(body, "*fetch =")
		switch {
		case result && post:
			t.Errorf("%s returns the old value but posts its operation", name)
		case !result && !post:
			t.Errorf("%s returns nothing but waits for its operation's answer", name)
		case post:
			posted++
		default:
			fetching++
		}
	}
	if posted < 100 || fetching < 100 {
		t.Errorf("%d posting and %d fetching atomics found in zshmem.c: the pattern misses them", posted, fetching)
	}
}
