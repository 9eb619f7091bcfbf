//go:build !linux

package numa

import (
	"errors"
	"runtime"
)

var errNotLinux = errors.New("NUMA memory policy needs Linux (mbind, move_pages); this is " + runtime.GOOS)

// Mbind needs Linux.
func Mbind(addr, length uintptr, mode int, nodes []int, flags int) error {
	return errors.New("numa.Mbind: " + errNotLinux.Error())
}

// NodesOfPages needs Linux.
func NodesOfPages(addrs []uintptr) ([]int, error) {
	return nil, errors.New("numa.NodesOfPages: " + errNotLinux.Error())
}
