package rt

import (
	"sync"
	"testing"
)

var initOnce sync.Once

// BenchmarkAwaitSpin is the spinning wait's cost per poll: a one-PE job (no CPU sharing,
// so waits spin) whose condition comes true on the 4096th poll. It isolates the loop from
// the cross-PE latency that a ping-pong on shared CPUs buries it in.
func BenchmarkAwaitSpin(b *testing.B) {
	initOnce.Do(func() {
		if err := Init(); err != nil {
			b.Fatal(err)
		}
	})
	if sleepWait {
		b.Skip("this job's waits sleep (GOSHMEM_WAIT=sleep)")
	}
	const polls = 4096
	b.ResetTimer()
	for range b.N {
		n := 0
		Await("test", WaitUntil, 0, func() bool { n++; return n >= polls })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/polls, "ns/poll")
}
