package shmem_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmemtest"
)

// initPE joins the job in a PE; Finalize runs at the end of a passing test only, so a failing
// PE exits without it and the launcher ends the job instead of leaving peers waiting.
func initPE(t *testing.T) (me, n int) {
	t.Helper()
	if err := shmem.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			shmem.Finalize()
		}
	})
	return shmem.MyPE(), shmem.NPEs()
}

// forSizes runs body as a job of each PE count in shmemtest.Sizes (or sizes).
func forSizes(t *testing.T, body func(t *testing.T, me, n int), sizes ...int) {
	shmemtest.ForSizes(t, func(t *testing.T, n int) {
		if !shmemtest.Run(t, n) {
			return
		}
		me, npes := initPE(t)
		if npes != n {
			t.Fatalf("NPEs() = %d, want %d", npes, n)
		}
		body(t, me, npes)
	}, sizes...)
}

func mustAlloc[T any](t *testing.T, n int) []T {
	t.Helper()
	s, err := shmem.Calloc[T](n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantPanic checks that f panics with a message containing want.
func wantPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic; want one containing %q", want)
			return
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
			t.Errorf("panic %q; want one containing %q", msg, want)
		}
	}()
	f()
}
