package kernels

// Regenerate every typed file (kernels/z*.go, kernels/asm/z*) from the tables in gen/tables:
//
//	go generate ./kernels/...
//
//go:generate go run -C ../gen ./kernelgen -root ..
