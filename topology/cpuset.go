package topology

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU numbers a CPUSet accepts from text. The kernel's own limit
// (NR_CPUS) is 8192 on the largest distribution kernels; a number past it is a typo.
const MaxCPU = 1 << 16

// CPUSet is a set of CPU numbers. The zero value is the empty set. Methods that
// return a CPUSet never modify their receiver or argument; Add and Remove modify
// the receiver.
type CPUSet struct {
	w []uint64
}

// NewCPUSet returns the set holding cpus.
func NewCPUSet(cpus ...int) CPUSet {
	var s CPUSet
	for _, c := range cpus {
		s.Add(c)
	}
	return s
}

// ParseCPUSet parses the kernel's list form ("0,2,4-7", the form of sysfs *_list
// files and cpuset.cpus); an empty or all-blank string is the empty set.
func ParseCPUSet(text string) (CPUSet, error) {
	var s CPUSet
	cpus, err := parseList(text)
	if err != nil {
		return CPUSet{}, err
	}
	for _, c := range cpus {
		s.Add(c)
	}
	return s, nil
}

// MustParseCPUSet is ParseCPUSet for constants in tests and tables; it panics on bad text.
func MustParseCPUSet(text string) CPUSet {
	s, err := ParseCPUSet(text)
	if err != nil {
		panic(err)
	}
	return s
}

// ParseCPUList parses the list form keeping the order written and rejecting
// repeats: "--cpu-list 6,4,0-1" means 6, 4, 0, 1 in that order.
func ParseCPUList(text string) ([]int, error) {
	cpus, err := parseList(text)
	if err != nil {
		return nil, err
	}
	var seen CPUSet
	for _, c := range cpus {
		if seen.Has(c) {
			return nil, fmt.Errorf("CPU %d listed twice in %q", c, text)
		}
		seen.Add(c)
	}
	return cpus, nil
}

// parseList expands "0,2,4-7" (also "0-7:2", the kernel's stride form) in order.
func parseList(text string) ([]int, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	var out []int
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty item in CPU list %q", text)
		}
		span, strideText, hasStride := strings.Cut(item, ":")
		loText, hiText, isRange := strings.Cut(span, "-")
		lo, err := parseCPU(loText)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %v", text, err)
		}
		hi := lo
		if isRange {
			if hi, err = parseCPU(hiText); err != nil {
				return nil, fmt.Errorf("CPU list %q: %v", text, err)
			}
			if hi < lo {
				return nil, fmt.Errorf("CPU list %q: range %s runs backwards", text, span)
			}
		}
		stride := 1
		if hasStride {
			if !isRange {
				return nil, fmt.Errorf("CPU list %q: stride without a range in %q", text, item)
			}
			stride, err = strconv.Atoi(strideText)
			if err != nil || stride < 1 {
				return nil, fmt.Errorf("CPU list %q: bad stride %q", text, strideText)
			}
		}
		for c := lo; c <= hi; c += stride {
			out = append(out, c)
		}
	}
	return out, nil
}

func parseCPU(text string) (int, error) {
	c, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil {
		return 0, fmt.Errorf("%q is not a CPU number", text)
	}
	if c < 0 || c >= MaxCPU {
		return 0, fmt.Errorf("CPU %d out of range [0,%d)", c, MaxCPU)
	}
	return c, nil
}

// Add puts cpu in the set; a negative cpu is an error of the caller and panics.
func (s *CPUSet) Add(cpu int) {
	if cpu < 0 {
		panic("topology.CPUSet.Add: negative CPU " + strconv.Itoa(cpu))
	}
	i := cpu / 64
	if i >= len(s.w) {
		w := make([]uint64, i+1)
		copy(w, s.w)
		s.w = w
	}
	s.w[i] |= 1 << (cpu % 64)
}

// Remove takes cpu out of the set.
func (s *CPUSet) Remove(cpu int) {
	if cpu < 0 || cpu/64 >= len(s.w) {
		return
	}
	s.w[cpu/64] &^= 1 << (cpu % 64)
}

// Has reports whether cpu is in the set.
func (s CPUSet) Has(cpu int) bool {
	return cpu >= 0 && cpu/64 < len(s.w) && s.w[cpu/64]&(1<<(cpu%64)) != 0
}

// Count is the number of CPUs in the set.
func (s CPUSet) Count() int {
	n := 0
	for _, w := range s.w {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether the set holds no CPU.
func (s CPUSet) IsEmpty() bool {
	for _, w := range s.w {
		if w != 0 {
			return false
		}
	}
	return true
}

// First is the lowest CPU in the set, -1 for the empty set.
func (s CPUSet) First() int {
	for i, w := range s.w {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// CPUs lists the set in ascending order.
func (s CPUSet) CPUs() []int {
	out := make([]int, 0, s.Count())
	for i, w := range s.w {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &^= 1 << b
		}
	}
	return out
}

// Intersect is the set of CPUs in both s and o.
func (s CPUSet) Intersect(o CPUSet) CPUSet {
	n := min(len(s.w), len(o.w))
	w := make([]uint64, n)
	for i := range w {
		w[i] = s.w[i] & o.w[i]
	}
	return CPUSet{w}
}

// Union is the set of CPUs in s or o.
func (s CPUSet) Union(o CPUSet) CPUSet {
	a, b := s.w, o.w
	if len(a) < len(b) {
		a, b = b, a
	}
	w := append([]uint64(nil), a...)
	for i, x := range b {
		w[i] |= x
	}
	return CPUSet{w}
}

// Difference is the set of CPUs in s and not in o.
func (s CPUSet) Difference(o CPUSet) CPUSet {
	w := append([]uint64(nil), s.w...)
	for i := range w {
		if i < len(o.w) {
			w[i] &^= o.w[i]
		}
	}
	return CPUSet{w}
}

// IsSubsetOf reports whether every CPU of s is in o.
func (s CPUSet) IsSubsetOf(o CPUSet) bool {
	for i, w := range s.w {
		var x uint64
		if i < len(o.w) {
			x = o.w[i]
		}
		if w&^x != 0 {
			return false
		}
	}
	return true
}

// Overlaps reports whether s and o share a CPU.
func (s CPUSet) Overlaps(o CPUSet) bool {
	n := min(len(s.w), len(o.w))
	for i := 0; i < n; i++ {
		if s.w[i]&o.w[i] != 0 {
			return true
		}
	}
	return false
}

// Equal reports whether s and o hold the same CPUs.
func (s CPUSet) Equal(o CPUSet) bool {
	return s.IsSubsetOf(o) && o.IsSubsetOf(s)
}

// String is the kernel's list form, ascending with ranges: "0,2,4-7"; "" for the empty set.
func (s CPUSet) String() string { return orderedList(s.CPUs()) }

// MarshalText and UnmarshalText let a CPUSet be a flag.TextVar or a JSON string.
func (s CPUSet) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses the list form.
func (s *CPUSet) UnmarshalText(text []byte) error {
	v, err := ParseCPUSet(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
