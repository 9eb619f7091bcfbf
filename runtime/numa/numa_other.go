//go:build !linux

package numa

import (
	"errors"
	"fmt"
	"runtime"
)

// Mbind needs Linux.
func Mbind(addr, length uintptr, mode int, nodes []int, flags int) error {
	return fmt.Errorf("numa.Mbind: NUMA memory policy needs Linux, this is %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

// NodesOfPages needs Linux.
func NodesOfPages(addrs []uintptr) ([]int, error) {
	return nil, fmt.Errorf("numa.NodesOfPages: move_pages needs Linux, this is %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
