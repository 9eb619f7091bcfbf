//go:build amd64.v3

package kernels

// With GOAMD64=v3 the compiler fuses x*y+z in the reference's complex128 product.
const refFuses = true
