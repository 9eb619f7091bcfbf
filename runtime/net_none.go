//go:build !(goshmem_ucx && cgo && linux)

package rt

import "github.com/goshmem/shmem/runtime/shm"

// Without the multi-node engine a PMIx launch is refused: N one-PE jobs would each compute
// alone and report success.
func netAttach() (*shm.Object, int, error) { return nil, 0, errNoEngine }

func netStart() error { return nil }

// EngineWorkers counts the engine's live workers: none without the engine.
func EngineWorkers() int { return 0 }

// EngineServing reports whether the engine's progress goroutine runs: never without it.
func EngineServing() bool { return false }

// NetEngineBuilt reports whether the multi-node engine is built in.
func NetEngineBuilt() bool { return false }

// NetEngine names the multi-node engine built in.
func NetEngine() string { return "none (built without -tags goshmem_ucx: one node)" }

// netEngineSettings: no engine, no settings (SHMEM_INFO asks only across nodes).
func netEngineSettings() string { return "" }
