// Command apiconst prints the Go API's constants that shmem.h defines, as NAME VALUE lines
// with C literals as values. gen/cabigen runs it, so the header's values are the Go API's.
package main

import (
	"fmt"
	"strconv"

	"github.com/goshmem/shmem"
	rt "github.com/goshmem/shmem/runtime"
)

func main() {
	for _, c := range []struct {
		name  string
		value any
	}{
		{"SHMEM_MAJOR_VERSION", rt.SpecMajor},
		{"SHMEM_MINOR_VERSION", rt.SpecMinor},
		{"SHMEM_VENDOR_STRING", rt.Vendor + " " + rt.Version},
		{"SHMEM_SYNC_VALUE", shmem.SyncValue},
		{"SHMEM_SYNC_SIZE", shmem.SyncSize},
		{"SHMEM_BARRIER_SYNC_SIZE", shmem.BarrierSyncSize},
		{"SHMEM_BCAST_SYNC_SIZE", shmem.BcastSyncSize},
		{"SHMEM_COLLECT_SYNC_SIZE", shmem.CollectSyncSize},
		{"SHMEM_REDUCE_SYNC_SIZE", shmem.ReduceSyncSize},
		{"SHMEM_ALLTOALL_SYNC_SIZE", shmem.AllToAllSyncSize},
		{"SHMEM_ALLTOALLS_SYNC_SIZE", shmem.AllToAllSSyncSize},
		{"SHMEM_REDUCE_MIN_WRKDATA_SIZE", shmem.ReduceMinWrkDataSize},
		{"SHMEM_CMP_EQ", int(shmem.CmpEQ)},
		{"SHMEM_CMP_NE", int(shmem.CmpNE)},
		{"SHMEM_CMP_GT", int(shmem.CmpGT)},
		{"SHMEM_CMP_GE", int(shmem.CmpGE)},
		{"SHMEM_CMP_LT", int(shmem.CmpLT)},
		{"SHMEM_CMP_LE", int(shmem.CmpLE)},
		{"SHMEM_SIGNAL_SET", int(shmem.SignalSet)},
		{"SHMEM_SIGNAL_ADD", int(shmem.SignalAdd)},
		{"SHMEM_CTX_SERIALIZED", cLong(int64(shmem.CtxSerialized))},
		{"SHMEM_CTX_PRIVATE", cLong(int64(shmem.CtxPrivate))},
		{"SHMEM_CTX_NOSTORE", cLong(int64(shmem.CtxNostore))},
		{"SHMEM_CTX_SESSION_BATCH", cLong(int64(shmem.CtxSessionBatch))},
		{"SHMEM_CTX_SESSION_TOTAL_OPS", cLong(int64(shmem.CtxSessionTotalOps))},
	} {
		switch v := c.value.(type) {
		case string:
			fmt.Println(c.name, strconv.Quote(v))
		default:
			fmt.Println(c.name, v)
		}
	}
}

// cLong is v as a C long literal (the options of shmem_ctx_create are longs).
type cLong int64

func (v cLong) String() string { return fmt.Sprintf("%dL", int64(v)) }
