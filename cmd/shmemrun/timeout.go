package main

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// timeoutFlag is --timeout: a Go duration ("90s", "1m30s", "1500ms") or a bare number of
// seconds ("5", "2.5"), as timeout(1) takes it. 0 means none; a negative value is an error
// rather than silently no timeout.
type timeoutFlag struct{ d *time.Duration }

func (f timeoutFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return ""
	}
	return f.d.String()
}

func (f timeoutFlag) Set(s string) error {
	d, err := parseTimeout(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// parseTimeout is --timeout's value.
func parseTimeout(s string) (time.Duration, error) {
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0, fmt.Errorf("%s is not a number of seconds", s)
		}
		if secs > float64(1<<63-1)/float64(time.Second) {
			return 0, fmt.Errorf("%s seconds is too long", s)
		}
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%q is neither a duration (30s, 1m30s) nor a number of seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative: give a positive duration, or 0 for none", s)
	}
	return d, nil
}
