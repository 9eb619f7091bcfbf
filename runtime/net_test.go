package rt

import (
	"strings"
	"testing"
	"time"
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

// The resting progress goroutine's sleep doubles while it finds the PE inside the library,
// up to serveTickMax, and drops to serveTick when it finds the PE outside: a PE that starts
// computing is looked at within serveTickMax + serveTick.
func TestNextServeTick(t *testing.T) {
	ms := time.Millisecond
	last := time.Duration(0)
	for i, c := range []struct {
		inside bool
		want   time.Duration
	}{
		{true, ms}, {true, 2 * ms}, {true, 4 * ms}, {true, 4 * ms}, {false, ms}, {true, 2 * ms}, {false, ms}, {false, ms},
	} {
		if last = nextServeTick(last, c.inside); last != c.want {
			t.Fatalf("look %d (inside %v): sleep %v, want %v", i, c.inside, last, c.want)
		}
	}
	if serveTickMax+serveTick+servePollEvery >= 10*ms {
		t.Errorf("a computing PE is served after up to %v: over the 10 ms allowed", serveTickMax+serveTick+servePollEvery)
	}
}
