//go:build !amd64.v3

package kernels

const refFuses = false
