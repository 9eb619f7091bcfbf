// Command testsome is the shmem_test_some example of the OpenSHMEM 1.5 specification in
// Go: every PE puts N values to every PE, fences, and raises its flag on each; each PE then
// drains the flags with TestSome, summing each block as its flag arrives, checks the
// total and prints it. It exits with GlobalExit(1) on a wrong sum.
//
//	$ go run ./cmd/shmemrun -n 4 ./examples/testsome
//	PE 0 of 4: 4 blocks arrived, sum 79800 (correct)
//	PE 2 of 4: 4 blocks arrived, sum 79800 (correct)
//	...
package main

import (
	"fmt"
	"os"

	"github.com/goshmem/shmem"
)

const N = 100

func main() {
	if err := shmem.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mype, npes := shmem.MyPE(), shmem.NPEs()

	myData := make([]int32, N)
	allData, err := shmem.Malloc[int32](N * npes)
	check(err)
	flags, err := shmem.Calloc[int32](npes)
	check(err)
	indices := make([]int, npes)
	status := make([]int32, npes)

	for i := range myData {
		myData[i] = int32(mype*N + i)
	}
	for pe := range npes {
		shmem.PutNBI(allData[mype*N:(mype+1)*N], myData, pe)
	}
	shmem.Fence()
	for pe := range npes {
		shmem.AtomicSet(&flags[mype], 1, pe)
	}

	total := 0
	for completed := 0; completed < npes; {
		n := shmem.TestSome(flags, indices, status, shmem.CmpNE, 0)
		for _, idx := range indices[:n] {
			for _, v := range allData[idx*N : (idx+1)*N] {
				total += int(v)
			}
			status[idx] = 1
		}
		completed += n
		// Overlap some computation here.
	}

	if m := N*npes - 1; total != m*(m+1)/2 {
		fmt.Fprintf(os.Stderr, "PE %d: sum %d, want %d\n", mype, total, m*(m+1)/2)
		shmem.GlobalExit(1)
	}
	fmt.Printf("PE %d of %d: %d blocks arrived, sum %d (correct)\n", mype, npes, npes, total)
	shmem.Finalize()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		shmem.GlobalExit(1)
	}
}
