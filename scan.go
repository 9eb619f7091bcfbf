package shmem

import (
	"github.com/goshmem/shmem/kernels"
	rt "github.com/goshmem/shmem/runtime"
)

// SumInScan sets dst on member i of team t to the sum of src over members 0 to i, element
// by element: an inclusive prefix sum (OpenSHMEM 1.6's shmem_TYPE_sum_inscan). Every member
// of t calls it with the same len(src); dst (at least len(src) elements) and src are
// symmetric, the same slice (in place) or disjoint. The sums are formed in member order,
// ((src_0 + src_1) + src_2) ..., so float results equal a serial loop's. The error is always
// nil (the C routine's int result): bad arguments, and an invalid team, panic naming the
// argument.
func SumInScan[T Arithmetic](t Team, dst, src []T) error {
	return teamScan("shmem.SumInScan", t, dst, src, true)
}

// SumExScan is SumInScan's exclusive form (shmem_TYPE_sum_exscan): dst on member i is the
// sum of src over members 0 to i-1, and zero on member 0. Every member of t calls it with
// the same len(src); dst and src are symmetric, the same slice or disjoint. The error is
// always nil: bad arguments, and an invalid team, panic naming the argument.
func SumExScan[T Arithmetic](t Team, dst, src []T) error {
	return teamScan("shmem.SumExScan", t, dst, src, false)
}

func teamScan[T kernels.Elem](who string, t Team, dst, src []T, inclusive bool) error {
	t.t.Check(who)
	n := checkReduce(who, dst, src)
	rt.ScanTeam(who, kernels.Sum, t.t, dst[:n], src, inclusive)
	return nil
}
