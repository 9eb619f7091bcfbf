// Command testprog is a PE program for the launcher's reliability tests: each mode is one
// behaviour the launcher must handle.
//
//	testprog [-pids DIR] MODE
//
// Modes: barrier (every PE but the last enters a barrier, the last sleeps), loop
// (collectives in a loop until killed), notify (record the signals received in DIR),
// ignoreint (SIGINT ignored, then block), partial (write a line without its newline and
// panic), stdin (PE 0 echoes its standard input; the others report what they read), lines
// (1200 numbered lines per PE), longline (PE 0 writes 128 MiB without a newline), child
// (PE 0 leaves a child holding its stdout behind), late (the last PE never calls Init;
// GOSHMEM_TEST_NPES names it), finalize (the last PE never calls Finalize), othercoll (the
// last PE is in another barrier than the others), afterfinalize (PE 0 runs on after
// Finalize), where (each PE puts to every PE, checks what arrived and prints its host and
// its node's PE count).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/goshmem/shmem"
)

// lastPE is the number of the job's last PE, from shmemrun's environment, before Init.
func lastPE() int {
	n, _ := strconv.Atoi(os.Getenv("GOSHMEM_TEST_NPES"))
	return n - 1
}

func main() {
	pids := flag.String("pids", "", "directory to write this PE's pid into")
	flag.Parse()
	if flag.Arg(0) == "late" {
		// The last PE never calls Init: the others wait for it there. Its number comes
		// from shmemrun's environment, or a PMIx launcher's.
		rank := os.Getenv("GOSHMEM_PE")
		if rank == "" {
			rank = os.Getenv("PMIX_RANK")
		}
		if pe, _ := strconv.Atoi(rank); pe == lastPE() {
			time.Sleep(time.Hour)
		}
	}
	if err := shmem.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	me, n := shmem.MyPE(), shmem.NPEs()
	// notify's handlers are in place before the pid is written: the test signals once it
	// has read every pid, and a signal before Notify would kill the PE instead.
	var sigs chan os.Signal
	if flag.Arg(0) == "notify" {
		sigs = make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	}
	if *pids != "" {
		// Written aside and renamed, so a reader never sees a partial file.
		tmp := filepath.Join(*pids, ".pe"+strconv.Itoa(me))
		os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())), 0o644)
		os.Rename(tmp, filepath.Join(*pids, "pe"+strconv.Itoa(me)))
	}
	switch flag.Arg(0) {
	case "barrier":
		shmem.BarrierAll() // everyone has written its pid
		pSync, _ := shmem.Calloc[int64](shmem.BarrierSyncSize)
		if me == n-1 {
			time.Sleep(time.Hour)
		}
		shmem.Barrier(shmem.ActiveSet{Start: 0, Size: n}, pSync)
	case "loop":
		buf, _ := shmem.Calloc[int64](1024)
		dst, _ := shmem.Calloc[int64](1024)
		team := shmem.TeamWorld()
		for i := 0; ; i++ {
			shmem.SumReduce(team, dst, buf)
			shmem.Put(buf[:8], dst[:8], (me+1)%n)
			shmem.BarrierAll()
		}
	case "notify":
		shmem.BarrierAll()
		s := <-sigs
		os.WriteFile(filepath.Join(*pids, "sig"+strconv.Itoa(me)), []byte(s.String()), 0o644)
		os.Exit(0)
	case "ignoreint":
		signal.Ignore(syscall.SIGINT)
		shmem.BarrierAll()
		time.Sleep(time.Hour)
	case "partial":
		shmem.BarrierAll()
		if me == 1 {
			os.Stdout.WriteString("half a line from PE 1")
			panic("after a partial line")
		}
		time.Sleep(time.Hour)
	case "stdin":
		if me == 0 {
			sc := bufio.NewScanner(os.Stdin)
			for sc.Scan() {
				fmt.Println("PE 0 read:", sc.Text())
			}
		} else {
			b, _ := io.ReadAll(os.Stdin)
			fmt.Printf("PE %d read %d bytes\n", me, len(b))
		}
		shmem.Finalize()
	case "lines", "child":
		// Many numbered lines per PE, then a normal end: a slow reader must get them all.
		// In child mode PE 0 first starts a long-lived child that shares its stdout and
		// stderr, and records its pid: the job must not wait for the child.
		if me == 0 && flag.Arg(0) == "child" {
			c := exec.Command("sleep", "60")
			c.Stdout, c.Stderr = os.Stdout, os.Stderr
			if err := c.Start(); err != nil {
				panic(err)
			}
			os.WriteFile(filepath.Join(*pids, "child"), []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		}
		w := bufio.NewWriter(os.Stdout)
		for i := range 1200 {
			fmt.Fprintf(w, "PE %d line %d %s\n", me, i, "................................................................")
		}
		w.Flush()
		shmem.Finalize()
	case "longline":
		// PE 0 writes 128 MiB without a newline, in 1 MiB writes.
		if me == 0 {
			b := bytes.Repeat([]byte("x"), 1<<20)
			for range 128 {
				os.Stdout.Write(b)
			}
		}
		shmem.Finalize()
	case "finalize":
		// Every PE but the last enters Finalize; the last sleeps outside the library.
		if me == n-1 {
			time.Sleep(time.Hour)
		}
		shmem.Finalize()
	case "othercoll":
		// PEs 0 .. n-2 enter BarrierAll, the last PE a barrier over PEs n-2 and n-1.
		shmem.BarrierAll()
		pSync, _ := shmem.Calloc[int64](shmem.BarrierSyncSize)
		if me == n-1 {
			shmem.Barrier(shmem.ActiveSet{Start: n - 2, Size: 2}, pSync)
		}
		shmem.BarrierAll()
	case "bcastsizes":
		// PE 0 broadcasts two elements, every other PE expects one: the job must stop with
		// a message, not leave a PE with half a result.
		src, _ := shmem.Calloc[int64](2)
		dst, _ := shmem.Calloc[int64](2)
		m := 1
		if me == 0 {
			m = 2
		}
		shmem.Broadcast(shmem.TeamWorld(), dst[:m], src[:m], 0)
		shmem.Finalize()
	case "collectshort":
		// Every PE contributes 4 elements; PE 1's dst holds 7 of the 4n: it must stop the
		// job with a message before writing past its dst.
		src, _ := shmem.Calloc[int64](4)
		dst, _ := shmem.Calloc[int64](4 * n)
		d := dst
		if me == 1 {
			d = dst[:4*n-1]
		}
		shmem.Collect(shmem.TeamWorld(), d, src)
		shmem.Finalize()
	case "reducecounts":
		// The last PE reduces one element fewer than the others (SHMEM_DEBUG catches it).
		src, _ := shmem.Calloc[int64](4)
		dst, _ := shmem.Calloc[int64](4)
		m := 4
		if me == n-1 {
			m = 3
		}
		shmem.SumReduce(shmem.TeamWorld(), dst[:m], src[:m])
		shmem.Finalize()
	case "where":
		// Where the launcher put each PE and what the library made of it: a line per PE
		// with its host and the PEs sharing its node (the shared team), once a put from
		// every PE has arrived.
		host, _ := os.Hostname()
		got, _ := shmem.Calloc[int64](n)
		for pe := range n {
			shmem.P(&got[me], int64(me+1), pe)
		}
		shmem.BarrierAll()
		for pe := range n {
			if got[pe] != int64(pe+1) {
				fmt.Fprintf(os.Stderr, "PE %d on %s: PE %d's put holds %d, want %d\n", me, host, pe, got[pe], pe+1)
				os.Exit(1)
			}
		}
		fmt.Printf("PE %d of %d host %s shared %d\n", me, n, host, shmem.TeamShared().NPEs())
		shmem.Finalize()
	case "afterfinalize":
		// Every PE finalizes; PE 0 then keeps running, the others exit.
		shmem.Finalize()
		if me == 0 {
			time.Sleep(time.Hour)
		}
	default:
		fmt.Fprintln(os.Stderr, "testprog: unknown mode", flag.Arg(0))
		os.Exit(2)
	}
}
