package shmem

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/goshmem/shmem/kernels"
	rt "github.com/goshmem/shmem/runtime"
)

// Cmp is a comparison of the point-to-point synchronization routines.
type Cmp int

// The comparisons, with the specification's values.
const (
	CmpEQ Cmp = iota // ==
	CmpNE            // !=
	CmpGT            // >
	CmpGE            // >=
	CmpLT            // <
	CmpLE            // <=
)

func (c Cmp) String() string {
	if c >= CmpEQ && c <= CmpLE {
		return [...]string{"==", "!=", ">", ">=", "<", "<="}[c]
	}
	return fmt.Sprintf("Cmp(%d)", int(c))
}

func (c Cmp) check(who string) {
	if c < CmpEQ || c > CmpLE {
		panic(fmt.Sprintf("%s: invalid comparison %d", who, int(c)))
	}
}

// WaitUntil waits until the local symmetric *ivar compares to v by cmp.
func WaitUntil[T Sync](ivar *T, cmp Cmp, v T) {
	const who = "shmem.WaitUntil"
	checkVar(who, ivar)
	cmp.check(who)
	rt.AwaitAnswer(who, rt.WaitUntil, 0, func() bool { return kernels.Holds(kernels.LoadAcquire(ivar), kernels.Cmp(cmp), v) })
}

// Test reports whether the local symmetric *ivar compares to v by cmp.
func Test[T Sync](ivar *T, cmp Cmp, v T) bool {
	const who = "shmem.Test"
	checkVar(who, ivar)
	cmp.check(who)
	return idleUnless(kernels.Holds(kernels.LoadAcquire(ivar), kernels.Cmp(cmp), v))
}

// idleUnless passes a test's result through, yielding the CPU first when the test found
// nothing (see rt.Idle).
func idleUnless(found bool) bool {
	if !found {
		rt.Idle()
	}
	return found
}

// idleUnlessIndex is idleUnless for an index (-1: none) or a count (0: none).
func idleUnlessIndex(i int, none int) int {
	if i == none {
		rt.Idle()
	}
	return i
}

func checkVar[T any](who string, p *T) {
	if p == nil {
		panic(who + ": nil ivar")
	}
	rt.LocalTarget(who, "ivar", unsafe.Pointer(p), unsafe.Sizeof(*p))
}

// A test set: the elements of ivars that status does not exclude (status[i] != 0 excludes
// element i; nil status excludes none), each compared with v, or with values[i] for the
// _Vector forms.
type testSet[T Sync] struct {
	who    string // the routine, for hang reports
	ivars  []T
	status []int32
	cmp    Cmp
	v      T
	values []T // non-nil for the vector forms
}

func newSet[T Sync](who string, ivars []T, status []int32, cmp Cmp, v T, values []T, vector bool) testSet[T] {
	rt.Check(who)
	cmp.check(who)
	if status != nil && len(status) < len(ivars) {
		panic(fmt.Sprintf("%s: status has %d elements, ivars %d", who, len(status), len(ivars)))
	}
	if vector && len(values) < len(ivars) {
		panic(fmt.Sprintf("%s: values has %d elements, ivars %d", who, len(values), len(ivars)))
	}
	if len(ivars) > 0 {
		rt.LocalTarget(who, "ivars", sliceAddr(ivars), unsafe.Sizeof(ivars[0]))
		rt.CheckSym(who, "ivars", sliceAddr(ivars), uintptr(len(ivars))*unsafe.Sizeof(ivars[0]))
	}
	return testSet[T]{who, ivars, status, cmp, v, values}
}

func (s *testSet[T]) in(i int) bool { return s.status == nil || s.status[i] == 0 }

func (s *testSet[T]) holds(i int) bool { return s.holdsBy(i, s.cmp) }

// holdsBy reports whether element i compares by cmp now: one atomic load.
func (s *testSet[T]) holdsBy(i int, cmp Cmp) bool {
	v := s.v
	if s.values != nil {
		v = s.values[i]
	}
	return kernels.Holds(kernels.LoadAcquire(&s.ivars[i]), kernels.Cmp(cmp), v)
}

func (s *testSet[T]) empty() bool {
	for i := range s.ivars {
		if s.in(i) {
			return false
		}
	}
	return true
}

// The scans below run kernels.ScanFirst and ScanSome: vector kernels that read each element
// once, atomically, with acquire order (kernels/scan.go has the argument); shmem.Cmp and
// kernels.Cmp share the specification's values.

// first returns the first element from index from on that is in the set and compares by
// cmp (s.cmp or its negation), or -1.
func (s *testSet[T]) first(from int, cmp kernels.Cmp) int {
	if from == len(s.ivars)-1 { // one element: the scalar test (see some)
		if s.in(from) && s.holdsBy(from, Cmp(cmp)) {
			return from
		}
		return -1
	}
	ivars, status, values := s.ivars[from:], s.status, s.values
	if status != nil {
		status = status[from:]
	}
	if values != nil {
		values = values[from:]
	}
	i := kernels.ScanFirst(ivars, status, cmp, s.v, values)
	if i >= 0 {
		i += from
	}
	return i
}

// all reports whether every element of the set holds now.
func (s *testSet[T]) all() bool {
	return s.first(0, kernels.Cmp(s.cmp).Negate()) < 0
}

// anyNext is where the next _Any scan of an array starts: one past the index it last
// returned, so an element that stays satisfied is returned within len(ivars) calls however
// many others are satisfied too. Arrays share slots by address hash; a collision only moves
// a start, never loses fairness for an array used on its own.
var anyNext [64]atomic.Uint32

// any returns a satisfied element or -1.
func (s *testSet[T]) any() int {
	n := len(s.ivars)
	if n == 0 {
		return -1
	}
	next := &anyNext[uintptr(sliceAddr(s.ivars))>>6%uintptr(len(anyNext))]
	start := int(next.Load() % uint32(n))
	cmp := kernels.Cmp(s.cmp)
	i := s.first(start, cmp)
	if i < 0 && start > 0 {
		head := *s
		head.ivars = s.ivars[:start]
		i = head.first(0, cmp)
	}
	if i >= 0 {
		next.Store(uint32(i + 1))
	}
	return i
}

// some writes every satisfied element's index to indices and returns how many there are.
//
// One element is tested without the kernel: the call costs more than the test, and
// WaitUntilSome's round trip on one ivar measured 0.399 µs this way, 0.424 through the
// kernel (the base: 0.393; bench/RESULTS.md).
func (s *testSet[T]) some(indices []int) int {
	if len(s.ivars) == 1 {
		if s.in(0) && s.holds(0) {
			indices[0] = 0
			return 1
		}
		return 0
	}
	return kernels.ScanSome(s.ivars, s.status, kernels.Cmp(s.cmp), s.v, s.values, indices)
}

func checkIndices(who string, indices []int, n int) {
	if len(indices) < n {
		panic(fmt.Sprintf("%s: indices has %d elements, ivars %d", who, len(indices), n))
	}
}

func (s *testSet[T]) waitAll() {
	// Each element in turn: once it has held, it is done (as the specification's
	// reference implementations do). A scan skips to the next element that does not hold.
	neg := kernels.Cmp(s.cmp).Negate()
	rt.Pause() // AwaitAnswer's pause: the first scan is the first poll
	for from := 0; from < len(s.ivars); {
		i := s.first(from, neg)
		if i < 0 {
			return
		}
		rt.Await(s.who, rt.WaitUntil, i, func() bool { return s.holds(i) })
		from = i + 1
	}
}

func (s *testSet[T]) waitAny() int {
	if s.empty() {
		return -1
	}
	r := -1
	rt.AwaitAnswer(s.who, rt.WaitUntil, -1, func() bool { r = s.any(); return r >= 0 })
	return r
}

func (s *testSet[T]) waitSome(indices []int) int {
	if s.empty() {
		return 0
	}
	c := 0
	rt.AwaitAnswer(s.who, rt.WaitUntil, -1, func() bool { c = s.some(indices); return c > 0 })
	return c
}

// WaitUntilAll waits until every element of the test set has compared to v by cmp.
func WaitUntilAll[T Sync](ivars []T, status []int32, cmp Cmp, v T) {
	s := newSet("shmem.WaitUntilAll", ivars, status, cmp, v, nil, false)
	s.waitAll()
}

// WaitUntilAny waits until some element of the test set compares to v by cmp and returns
// its index; -1 at once if the test set is empty.
func WaitUntilAny[T Sync](ivars []T, status []int32, cmp Cmp, v T) int {
	s := newSet("shmem.WaitUntilAny", ivars, status, cmp, v, nil, false)
	return s.waitAny()
}

// WaitUntilSome waits until at least one element of the test set compares to v by cmp,
// writes the indices of all that do to indices (len(indices) >= len(ivars)) and returns
// their count; 0 at once if the test set is empty.
func WaitUntilSome[T Sync](ivars []T, indices []int, status []int32, cmp Cmp, v T) int {
	const who = "shmem.WaitUntilSome"
	checkIndices(who, indices, len(ivars))
	s := newSet(who, ivars, status, cmp, v, nil, false)
	return s.waitSome(indices)
}

// WaitUntilAllVector is WaitUntilAll comparing element i with values[i].
func WaitUntilAllVector[T Sync](ivars []T, status []int32, cmp Cmp, values []T) {
	s := newSet("shmem.WaitUntilAllVector", ivars, status, cmp, *new(T), values, true)
	s.waitAll()
}

// WaitUntilAnyVector is WaitUntilAny comparing element i with values[i].
func WaitUntilAnyVector[T Sync](ivars []T, status []int32, cmp Cmp, values []T) int {
	s := newSet("shmem.WaitUntilAnyVector", ivars, status, cmp, *new(T), values, true)
	return s.waitAny()
}

// WaitUntilSomeVector is WaitUntilSome comparing element i with values[i].
func WaitUntilSomeVector[T Sync](ivars []T, indices []int, status []int32, cmp Cmp, values []T) int {
	const who = "shmem.WaitUntilSomeVector"
	checkIndices(who, indices, len(ivars))
	s := newSet(who, ivars, status, cmp, *new(T), values, true)
	return s.waitSome(indices)
}

// TestAll reports whether every element of the test set compares to v by cmp (true for an
// empty set).
func TestAll[T Sync](ivars []T, status []int32, cmp Cmp, v T) bool {
	s := newSet("shmem.TestAll", ivars, status, cmp, v, nil, false)
	return idleUnless(s.all())
}

// TestAny returns the index of an element of the test set that compares to v by cmp, or
// -1. Repeated calls eventually return every element that stays satisfied.
func TestAny[T Sync](ivars []T, status []int32, cmp Cmp, v T) int {
	s := newSet("shmem.TestAny", ivars, status, cmp, v, nil, false)
	return idleUnlessIndex(s.any(), -1)
}

// TestSome writes the indices of the test set's elements that compare to v by cmp to
// indices (len(indices) >= len(ivars)) and returns their count.
func TestSome[T Sync](ivars []T, indices []int, status []int32, cmp Cmp, v T) int {
	const who = "shmem.TestSome"
	checkIndices(who, indices, len(ivars))
	s := newSet(who, ivars, status, cmp, v, nil, false)
	return idleUnlessIndex(s.some(indices), 0)
}

// TestAllVector is TestAll comparing element i with values[i].
func TestAllVector[T Sync](ivars []T, status []int32, cmp Cmp, values []T) bool {
	s := newSet("shmem.TestAllVector", ivars, status, cmp, *new(T), values, true)
	return idleUnless(s.all())
}

// TestAnyVector is TestAny comparing element i with values[i].
func TestAnyVector[T Sync](ivars []T, status []int32, cmp Cmp, values []T) int {
	s := newSet("shmem.TestAnyVector", ivars, status, cmp, *new(T), values, true)
	return idleUnlessIndex(s.any(), -1)
}

// TestSomeVector is TestSome comparing element i with values[i].
func TestSomeVector[T Sync](ivars []T, indices []int, status []int32, cmp Cmp, values []T) int {
	const who = "shmem.TestSomeVector"
	checkIndices(who, indices, len(ivars))
	s := newSet(who, ivars, status, cmp, *new(T), values, true)
	return idleUnlessIndex(s.some(indices), 0)
}
