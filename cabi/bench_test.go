//go:build linux && cgo

package main

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goshmem/shmem"
	"github.com/goshmem/shmem/internal/shmembench"
	"github.com/goshmem/shmem/internal/shmemtest"
	"github.com/goshmem/shmem/runtime/launch"
	"github.com/goshmem/shmem/topology"
)

// The same calls from C (testdata/bench.c through libgoshmem) and from Go (the Go API), on
// 2 PEs bound one per core and spinning in waits, shmemrun's default for 2 PEs here. Run
// them in one invocation so the ratios come from one machine state:
//
//	go test ./cabi -run '^$' -bench 'BenchmarkC$|BenchmarkGo$'

var benchCalls = []string{"call", "put8", "put8_quiet", "long_p", "get8", "fetch_add", "barrier_all", "pingpong"}

var cBench struct {
	once sync.Once
	res  map[string][3]float64
	err  string
}

func BenchmarkC(b *testing.B) {
	cBench.once.Do(func() { runCBench(b) })
	if cBench.err != "" {
		b.Fatal(cBench.err)
	}
	for _, name := range benchCalls {
		b.Run(name, func(b *testing.B) {
			r := cBench.res[name]
			b.ReportMetric(r[0], "ns/op")
			b.ReportMetric(r[1], "min-ns/op")
			b.ReportMetric(r[2], "max-ns/op")
		})
	}
}

func runCBench(b *testing.B) {
	exe := compile(b, "bench", "testdata/bench.c")
	topo, err := topology.Read("")
	if err != nil {
		b.Fatal(err)
	}
	bindings, err := topology.Place(topo, 2, topology.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	status, err := launch.Run(launch.Config{NPEs: 2, Prog: exe, Stdout: &stdout, Stderr: &stderr,
		Bindings: bindings, Topology: topo, Timeout: 5 * time.Minute})
	if err != nil || status != 0 {
		cBench.err = "bench.c: status " + strconv.Itoa(status) + " " + stdout.String() + stderr.String()
		return
	}
	cBench.res = map[string][3]float64{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		var r [3]float64
		for i := range r {
			r[i], _ = strconv.ParseFloat(f[1+i], 64)
		}
		cBench.res[f[0]] = r
	}
}

func BenchmarkGo(b *testing.B) {
	pinned := shmemtest.Options{Bind: true, Spin: true}
	oneSided := func(op func()) func() func(int) {
		return func() func(int) {
			return func(iters int) {
				if shmem.MyPE() == 0 {
					for range iters {
						op()
					}
				}
			}
		}
	}
	var dst, ctr, flag []int64
	src := []int64{42}
	alloc := func() {
		dst, ctr, flag = mustCalloc(1), mustCalloc(1), mustCalloc(1)
	}
	seq := int64(0)
	bodies := map[string]func() func(int){
		"call":       oneSided(func() { shmem.PEAccessible(1) }),
		"put8":       oneSided(func() { shmem.Put(dst, src, 1) }),
		"put8_quiet": oneSided(func() { shmem.Put(dst, src, 1); shmem.Quiet() }),
		"long_p":     oneSided(func() { shmem.P(&dst[0], 7, 1) }),
		"get8":       oneSided(func() { shmem.Get(src, dst, 1) }),
		"fetch_add":  oneSided(func() { shmem.AtomicFetchAdd(&ctr[0], 1, 1) }),
		"barrier_all": func() func(int) {
			return func(iters int) {
				for range iters {
					shmem.BarrierAll()
				}
			}
		},
		"pingpong": func() func(int) {
			return func(iters int) {
				me := shmem.MyPE()
				for range iters {
					seq++
					if me == 0 {
						shmem.P(&flag[0], seq, 1)
						shmem.WaitUntil(&flag[0], shmem.CmpEQ, seq)
					} else {
						shmem.WaitUntil(&flag[0], shmem.CmpEQ, seq)
						shmem.P(&flag[0], seq, 0)
					}
				}
			}
		},
	}
	for _, name := range benchCalls {
		b.Run(name, func(b *testing.B) {
			shmembench.Run(b, 2, pinned, func() func(int) {
				alloc()
				return bodies[name]()
			})
		})
	}
}

func mustCalloc(n int) []int64 {
	s, err := shmem.Calloc[int64](n)
	if err != nil {
		panic(err)
	}
	return s
}
