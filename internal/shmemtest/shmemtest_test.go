package shmemtest

import (
	"slices"
	"testing"
)

func TestAcrossNodes(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		max   string
		want  []int
	}{
		{[]int{1, 2, 3, 4, 8}, "", []int{2, 3, 4, 8}},
		{[]int{1, 2, 3, 4, 8}, "2", []int{2}},
		{[]int{1, 2, 3, 4, 8}, "4", []int{2, 3, 4}},
		{[]int{1, 3}, "2", []int{3}},
		{[]int{1}, "4", nil},
		{[]int{8, 2}, "bad", []int{8, 2}},
	} {
		if got := acrossNodes(c.sizes, c.max); !slices.Equal(got, c.want) {
			t.Errorf("acrossNodes(%v, %q) = %v, want %v", c.sizes, c.max, got, c.want)
		}
	}
}
