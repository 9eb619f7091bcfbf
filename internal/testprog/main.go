// Command testprog is a PE program for the launcher's reliability tests: each mode is one
// behaviour the launcher must handle.
//
//	testprog [-pids DIR] MODE
//
// Modes: barrier (every PE but the last enters a barrier, the last sleeps), loop
// (collectives in a loop until killed), notify (record the signals received in DIR),
// ignoreint (SIGINT ignored, then block), partial (write a line without its newline and
// panic), stdin (PE 0 echoes its standard input; the others report what they read).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/goshmem/shmem"
)

func main() {
	pids := flag.String("pids", "", "directory to write this PE's pid into")
	flag.Parse()
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
	default:
		fmt.Fprintln(os.Stderr, "testprog: unknown mode", flag.Arg(0))
		os.Exit(2)
	}
}
