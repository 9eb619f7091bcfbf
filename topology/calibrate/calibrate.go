package calibrate

import (
	"fmt"
	"math"
	"time"

	"github.com/goshmem/shmem/topology"
)

// Level is how far apart the two CPUs of a probe are, as the cost model's fields go.
type Level int

const (
	SameL3   Level = iota // two cores of one L3 domain
	CrossL3               // two L3 domains of one socket
	CrossSoc              // two sockets
	numLevels
)

var levelLat = [numLevels]string{"LatL3", "LatCrossL3", "LatSocket"}
var levelBW = [numLevels]string{"BWL3", "BWCrossL3", "BWSocket"}
var levelLack = [numLevels]string{
	"no two cores of one L3 domain are allowed",
	"no socket has two L3 domains with allowed cores",
	"only one socket has allowed cores",
}

// Pair is two CPUs on different cores at one level.
type Pair struct{ A, B int }

// Pairs picks, for each level the machine has among the allowed CPUs, the first two
// CPUs on different cores at that distance (hardware threads of one core share its
// caches, which no two PEs bound per core do). A level without such a pair is absent.
func Pairs(t *topology.Topology, allowed topology.CPUSet) map[Level]Pair {
	out := map[Level]Pair{}
	cpus := allowed.CPUs()
	for i, a := range cpus {
		for _, b := range cpus[i+1:] {
			if a >= len(t.CPUs) || b >= len(t.CPUs) {
				continue
			}
			x, y := t.CPUs[a], t.CPUs[b]
			if !x.Online || !y.Online || x.Core == y.Core {
				continue
			}
			var l Level
			switch {
			case x.Package != y.Package:
				l = CrossSoc
			case x.L3 >= 0 && x.L3 == y.L3:
				l = SameL3
			default:
				l = CrossL3
			}
			if _, ok := out[l]; !ok {
				out[l] = Pair{a, b}
			}
		}
	}
	return out
}

// Options tune how long calibration takes.
type Options struct {
	// Rounds of every probe; the model takes each probe's fastest round's median, because
	// other processes on the CPUs only ever make a round slower. 0: 5.
	Rounds int
}

// Measurement is what Measure saw at one level.
type Measurement struct {
	Pair     Pair
	HandOff  time.Duration // half the flag round trip
	ReadMBps float64       // reading 256 KiB the other CPU just wrote
	// A 2-PE barrier (PairBarrier) with its first poll after a pause and at once: which is
	// faster depends on the CPU (CostModel.PollFirst).
	PairPaused, PairLoaded time.Duration
}

// peerReadSize is what the cost model's bandwidths are priced at: larger than L2, so
// the data comes from the writer's L2 or the L3, as a collective's buffers do.
const peerReadSize = 256 << 10

// Measure runs the probes at every level Pairs finds and the combine rate on the first
// allowed CPU.
func Measure(t *topology.Topology, allowed topology.CPUSet, o Options) (map[Level]Measurement, float64, error) {
	rounds := o.Rounds
	if rounds <= 0 {
		rounds = 5
	}
	cpus := allowed.CPUs()
	if len(cpus) == 0 {
		return nil, 0, fmt.Errorf("calibrate: no CPU allowed")
	}
	out := map[Level]Measurement{}
	for l, p := range Pairs(t, allowed) {
		best := Measurement{Pair: p, HandOff: math.MaxInt64, PairPaused: math.MaxInt64, PairLoaded: math.MaxInt64}
		for range rounds {
			rt, err := FlagRoundTrip(p.A, p.B, 15, 200)
			if err != nil {
				return nil, 0, err
			}
			best.HandOff = min(best.HandOff, median(rt)/2)
			for _, paused := range []bool{true, false} {
				bt, err := PairBarrier(p.A, p.B, 15, 500, paused)
				if err != nil {
					return nil, 0, err
				}
				if paused {
					best.PairPaused = min(best.PairPaused, median(bt))
				} else {
					best.PairLoaded = min(best.PairLoaded, median(bt))
				}
			}
			bw, err := PeerRead(p.A, p.B, peerReadSize, 15)
			if err != nil {
				return nil, 0, err
			}
			best.ReadMBps = max(best.ReadMBps, median(bw))
		}
		out[l] = best
	}
	var combine float64
	for range rounds {
		c, err := CombineRate(cpus[0], 15)
		if err != nil {
			return nil, 0, err
		}
		combine = max(combine, median(c))
	}
	return out, combine, nil
}

// Model turns measurements into a model file for machine: measured levels as measured,
// each missing one derived from the nearest measured level by the default model's ratio
// between the two (and marked so), the network level the default's (calibrating it needs
// two nodes). With no level measured (one CPU allowed), the levels are the default's.
func Model(machine string, at time.Time, ms map[Level]Measurement, combineMBps float64) topology.ModelFile {
	def := topology.DefaultCostModel()
	defLat := [numLevels]time.Duration{def.LatL3, def.LatCrossL3, def.LatSocket}
	defBW := [numLevels]int64{def.BWL3, def.BWCrossL3, def.BWSocket}
	var lat [numLevels]time.Duration
	var bw [numLevels]int64
	src := map[string]string{}
	for l := range numLevels {
		if m, ok := ms[l]; ok {
			lat[l] = m.HandOff.Round(time.Nanosecond)
			bw[l] = roundMBps(m.ReadMBps)
			how := fmt.Sprintf("measured (CPUs %d,%d)", m.Pair.A, m.Pair.B)
			src[levelLat[l]], src[levelBW[l]] = how, how
		}
	}
	for l := range numLevels {
		if _, ok := ms[l]; ok {
			continue
		}
		from, ok := nearest(l, ms)
		if !ok {
			lat[l], bw[l] = defLat[l], defBW[l]
			src[levelLat[l]] = "default (one CPU allowed: nothing to measure between)"
			src[levelBW[l]] = src[levelLat[l]]
			continue
		}
		lat[l] = time.Duration(int64(lat[from]) * int64(defLat[l]) / max(int64(defLat[from]), 1))
		bw[l] = max(1, bw[from]*defBW[l]/max(defBW[from], 1))
		src[levelLat[l]] = fmt.Sprintf("derived: %s × %d/%d (%s)", levelLat[from], defLat[l].Nanoseconds(), defLat[from].Nanoseconds(), levelLack[l])
		src[levelBW[l]] = fmt.Sprintf("derived: %s × %d/%d (%s)", levelBW[from], defBW[l], defBW[from], levelLack[l])
	}
	m := def
	m.LatL3, m.LatCrossL3, m.LatSocket = lat[SameL3], lat[CrossL3], lat[CrossSoc]
	m.BWL3, m.BWCrossL3, m.BWSocket = bw[SameL3], bw[CrossL3], bw[CrossSoc]
	src["LatNet"] = "default (calibrated on one node; the first job across nodes measures it when it ends, as shmemrun --tune does)"
	src["BWNet"] = src["LatNet"]
	if combineMBps > 0 {
		m.BWCombine = roundMBps(combineMBps)
		src["BWCombine"] = "measured (int64 sum kernel in cache)"
	}
	m.PollFirst, src["FirstPoll"] = firstPoll(ms)
	return topology.ModelFile{Machine: machine, Measured: at.UTC().Format(time.RFC3339), Model: m, Source: src}
}

// firstPoll decides CostModel.PollFirst from the nearest level's 2-PE barriers: load at
// once only when that was clearly faster (5%), since pausing first is what the default
// model measured best (Zen 2); with nothing measured, the default.
func firstPoll(ms map[Level]Measurement) (bool, string) {
	for l := range numLevels {
		m, ok := ms[l]
		if !ok || m.PairPaused <= 0 || m.PairLoaded <= 0 {
			continue
		}
		load := m.PairLoaded*100 < m.PairPaused*95
		return load, fmt.Sprintf("measured (CPUs %d,%d: a 2-PE barrier %v loading first, %v pausing first)",
			m.Pair.A, m.Pair.B, m.PairLoaded.Round(time.Nanosecond), m.PairPaused.Round(time.Nanosecond))
	}
	return topology.DefaultCostModel().PollFirst, "default (no two CPUs to measure between)"
}

// nearest is the measured level closest to l, the nearer one first on a tie.
func nearest(l Level, ms map[Level]Measurement) (Level, bool) {
	for d := Level(1); d < numLevels; d++ {
		for _, c := range []Level{l - d, l + d} {
			if _, ok := ms[c]; ok && c >= 0 && c < numLevels {
				return c, true
			}
		}
	}
	return 0, false
}

// roundMBps keeps three significant digits: the measurement is not more precise, and the
// file stays readable.
func roundMBps(v float64) int64 {
	if v < 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-2)
	return max(1, int64(math.Round(v/p)*p))
}

// Run measures this machine (t read live, its allowed CPUs) and returns its model file.
func Run(t *topology.Topology, o Options) (topology.ModelFile, error) {
	ms, combine, err := Measure(t, t.Allowed, o)
	if err != nil {
		return topology.ModelFile{}, err
	}
	return Model(topology.MachineKey(t), time.Now(), ms, combine), nil
}
