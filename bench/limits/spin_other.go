//go:build !amd64 && !arm64

package main

import "sync/atomic"

func pause() {}

func storeRelease(p *int64, v int64) { atomic.StoreInt64(p, v) }
