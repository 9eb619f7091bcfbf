package rt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"github.com/goshmem/shmem/runtime/shm"
	"github.com/goshmem/shmem/topology"
)

// The network level of the cost model (LatNet, BWNet) is what the network phases' choices
// price. Until it is measured it is the default model's, an HPC fabric's (2 µs, 12 GB/s),
// which can be far from the network a job runs on (TCP between the fake nodes: ~15 µs and
// under 1 GB/s). shmemrun --tune measures it into its table; without one, the first job
// across nodes measures it when it ends: PE 0 times puts to a PE of another node while the
// other PEs wait in Finalize's last barrier, and writes the result into its node's model
// file, where PE 0 of every later job finds it (netModelInit hands it to the other nodes).

// MeasureNetBytes is the room MeasureNet needs at dst and src.
const MeasureNetBytes = 1 << 20

// MeasureNet times, from this PE, an 8-byte put and its quiet to PE far (on another node),
// 20 to a sample, and 4 puts of MeasureNetBytes and their quiet: LatNet is the put and its
// quiet, BWNet the large puts' rate, medians of samples (after one to warm up). dst is
// symmetric, src this PE's; far's engine must progress meanwhile (it waits in a barrier).
func MeasureNet(far, samples int, dst, src unsafe.Pointer) topology.NetLevel {
	t := transports[far]
	var lat, bw []float64
	for s := 0; s <= samples; s++ {
		t0 := time.Now()
		for range 20 {
			t.Put(dst, src, 8, far)
			t.Quiet()
		}
		d := time.Since(t0)
		t1 := time.Now()
		for range 4 {
			t.Put(dst, src, MeasureNetBytes, far)
		}
		t.Quiet()
		if s > 0 {
			lat = append(lat, float64(d.Nanoseconds())/20)
			bw = append(bw, 4*MeasureNetBytes/1e6/time.Since(t1).Seconds())
		}
	}
	median := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
	return topology.NetLevel{Lat: time.Duration(median(lat)), BW: max(1, int64(median(bw)))}
}

// netLevelAtExit says whether PE 0 measures the network level when the job ends (see
// above), and with which PE: the first on another node. It does when the job spans nodes,
// its network level is assumed (neither its node's model file nor a tuning table measured
// one) and its node's model file is in the cache, or is measured into it as this job ends,
// to keep the result in (not when the model came from elsewhere: GOSHMEM_COLL_MODEL).
func netLevelAtExit() (far int, ok bool) {
	if me != 0 || !multiNode || topology.NetLevelMeasured(modelFields) || !modelCached && calibrateAtExit == "" {
		return 0, false
	}
	for pe := range npes {
		if !local(pe) {
			return pe, true
		}
	}
	return 0, false
}

// measureNetAtExit is netLevelAtExit's measurement, from my scratch into far's (no
// collective uses them any more: every PE is past Finalize's first barrier).
func measureNetAtExit(far int) topology.NetLevel {
	scratch := reserved(shm.ReservedScratchOff)
	return MeasureNet(far, 5, scratch, scratch)
}

// writeNetLevel keeps n, measured to PE far, in my node's model file, for later jobs.
func writeNetLevel(n topology.NetLevel, far int) {
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "goshmem: PE %d (on %s): keeping the network level measured to PE %d (%v, %d MB/s): %v (shmemrun --tune measures one)\n", me, Host(me), far, n.Lat, n.BW, err)
	}
	dir, err := topology.CacheDir(os.Getenv)
	if err != nil {
		fail(err)
		return
	}
	t, err := topology.Read("")
	if err != nil {
		fail(err)
		return
	}
	machine := topology.MachineKey(t)
	path := filepath.Join(dir, topology.ModelFileName(machine))
	source := fmt.Sprintf("measured across nodes when a job ended (PE 0 on %s to PE %d on %s)", Host(0), far, Host(far))
	wrote, err := topology.WriteNetLevel(path, machine, n, source)
	if err == nil && !wrote {
		err = fmt.Errorf("no model of this machine in %s to add it to", dir)
	}
	if err != nil {
		fail(err)
	}
}
