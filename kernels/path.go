package kernels

import "fmt"

// Path is one implementation of the kernels.
type Path uint8

const (
	PathGeneric Path = iota // pure Go, every target
	PathAVX2                // amd64 with AVX2
	PathAVX512              // amd64 with AVX-512 F, BW, DQ, VL (and BMI2)
	PathNEON                // arm64
	numPaths
)

var pathNames = [numPaths]string{"generic", "avx2", "avx512", "neon"}

func (p Path) String() string {
	if p < numPaths {
		return pathNames[p]
	}
	return fmt.Sprintf("Path(%d)", uint8(p))
}

// impl is one path's kernels.
type impl struct {
	path Path
	comb *[numTypes][numOps]kernel
	// strided[0] for 4-byte, strided[1] for 8-byte elements.
	strided *[2]stridedKernels
	// scan: the wait/test family's scans, by scan class and comparison.
	scan *[numScanClasses][numCmps]scanKernel
	// copyERMS: Copy runs REP MOVSB from copyERMSMin bytes (amd64 paths on CPUs with ERMS).
	copyERMS bool
}

var (
	impls [numPaths]*impl // nil: not available on this CPU or build
	cur   *impl           // the path in use
)

var genericStrided [2]stridedKernels

func init() {
	impls[PathGeneric] = &impl{path: PathGeneric, comb: &genericKernels, strided: &genericStrided, scan: &genericScans}
	archInit() // registers the paths this CPU can run
	cur = impls[PathGeneric]
	for p := numPaths - 1; p > PathGeneric; p-- {
		if impls[p] != nil {
			cur = impls[p]
			break
		}
	}
}

// Paths lists the paths this CPU and build can run, generic first.
func Paths() []Path {
	var ps []Path
	for p, im := range impls {
		if im != nil {
			ps = append(ps, Path(p))
		}
	}
	return ps
}

// Current is the path in use.
func Current() Path { return cur.path }

// Use makes p the path in use, for tests and benchmarks, and returns a function that
// restores the previous one. It panics if p is not available. Not safe while other
// goroutines run kernels.
func Use(p Path) (restore func()) {
	if p >= numPaths || impls[p] == nil {
		panic(fmt.Sprintf("kernels.Use: path %v is not available (have %v)", p, Paths()))
	}
	prev := cur
	cur = impls[p]
	return func() { cur = prev }
}
