package rt

import (
	"strings"
	"testing"
)

// GOSHMEM_NET_PROGRESS: thread (the default, and any value the settings table let through
// other than calls) keeps the progress goroutine; calls drops it, and is refused where
// waits sleep, since a sleeping wait counts on that goroutine.
func TestNetProgressThread(t *testing.T) {
	for _, c := range []struct {
		setting   string
		sleepWait bool
		thread    bool
		err       string
	}{
		{"thread", false, true, ""},
		{"thread", true, true, ""},
		{"", false, true, ""},
		{"calls", false, false, ""},
		{"calls", true, false, "set GOSHMEM_WAIT=spin as well"},
	} {
		thread, err := netProgressThread(c.setting, c.sleepWait)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "GOSHMEM_NET_PROGRESS=calls") {
				t.Errorf("%q, sleepWait %v: error %v, want one naming GOSHMEM_NET_PROGRESS=calls and %q", c.setting, c.sleepWait, err, c.err)
			}
			continue
		}
		if err != nil || thread != c.thread {
			t.Errorf("%q, sleepWait %v: %v, %v; want %v", c.setting, c.sleepWait, thread, err, c.thread)
		}
	}
}
