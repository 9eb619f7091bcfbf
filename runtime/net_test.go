package rt

import (
	"strings"
	"testing"
)

// GOSHMEM_NET_PROGRESS: auto (the default, and any value the settings table let through
// that names no mode) sleeps on the wake-up descriptor where waits sleep and polls where
// they spin; wakeup and poll are taken as they are; calls is refused where waits sleep,
// since a sleeping wait counts on the progress goroutine.
func TestNetServeMode(t *testing.T) {
	for _, c := range []struct {
		setting   string
		sleepWait bool
		want      netServe
		err       string
	}{
		{"auto", false, servePoll, ""},
		{"auto", true, serveWakeup, ""},
		{"", false, servePoll, ""},
		{"", true, serveWakeup, ""},
		{"wakeup", false, serveWakeup, ""},
		{"wakeup", true, serveWakeup, ""},
		{"poll", false, servePoll, ""},
		{"poll", true, servePoll, ""},
		{"calls", false, serveCalls, ""},
		{"calls", true, 0, "set GOSHMEM_WAIT=spin as well"},
	} {
		got, err := netServeMode(c.setting, c.sleepWait)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "GOSHMEM_NET_PROGRESS=calls") {
				t.Errorf("%q, sleepWait %v: error %v, want one naming GOSHMEM_NET_PROGRESS=calls and %q", c.setting, c.sleepWait, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q, sleepWait %v: %v, %v; want %v", c.setting, c.sleepWait, got, err, c.want)
		}
	}
}
