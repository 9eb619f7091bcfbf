package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The cache: each machine's calibrated cost model and its tuning tables, one directory per
// user (GOSHMEM_CACHE, else os.UserCacheDir()/goshmem), files named by the machine key's
// hash (and the layout's, for tables) with the full key inside. shmemrun reads it for the
// jobs it starts on one node; the PEs of a job started by a PMIx launcher read it on each
// node (runtime/model.go).

// CacheOff is GOSHMEM_CACHE's value that turns the cache off: every job runs on the
// default model (and SHMEM_COLL_TUNING's table, if named).
const CacheOff = "none"

// CacheDir is the cache directory (getenv reads GOSHMEM_CACHE), or "" with the reason
// when there is none.
func CacheDir(getenv func(string) string) (string, error) {
	if d := getenv("GOSHMEM_CACHE"); d != "" {
		if d == CacheOff {
			return "", errors.New("GOSHMEM_CACHE=none")
		}
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (%v; GOSHMEM_CACHE names one)", err)
	}
	return filepath.Join(d, "goshmem"), nil
}

// Cached is a file read from the cache: its text, where, and the parsed model or table.
type Cached struct {
	Text  []byte
	Path  string
	Model ModelFile
	Table *Table
}

// ReadCachedModel reads machine's model file from dir. ok is false when there is none, or
// it is unreadable, malformed or of another machine (why says which).
func ReadCachedModel(dir, machine string) (c Cached, ok bool, why string) {
	c.Path = filepath.Join(dir, ModelFileName(machine))
	b, err := os.ReadFile(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, "no calibration of this machine in " + dir
	}
	if err != nil {
		return c, false, err.Error()
	}
	f, err := ParseModel(c.Path, b)
	if err != nil {
		return c, false, err.Error()
	}
	if f.Machine != machine {
		return c, false, fmt.Sprintf("%s is of machine %q, this is %q", c.Path, f.Machine, machine)
	}
	c.Text, c.Model = b, f
	return c, true, ""
}

// ReadCachedTable reads the table of machine and layout l from dir: ok is false when there
// is none; err says why a file that is there cannot serve (unreadable, malformed, or of
// another machine or layout).
func ReadCachedTable(dir, machine string, l Layout) (c Cached, ok bool, err error) {
	c.Path = filepath.Join(dir, TableFileName(machine, l))
	b, err := os.ReadFile(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	t, err := ParseTable(c.Path, b)
	if err == nil && (t.Machine != machine || t.Layout != l) {
		err = fmt.Errorf("%s: tuned for %s on %q, not this job's %s on %q", c.Path, t.Layout, t.Machine, l, machine)
	}
	if err != nil {
		return c, false, err
	}
	c.Text, c.Table = b, t
	return c, true, nil
}

// WriteCacheFile writes a cache file through a temporary file and a rename, so a reader
// (a job starting, another node sharing the directory) sees the old file or the new, never
// half of one.
func WriteCacheFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// The network level of a model file (LatNet, BWNet) is measured apart from the rest: the
// rest by calibrating a node (shmemrun --calibrate, a node leader after its first job), the
// network level by the first job across nodes (PE 0, when its job ends). Each writer keeps
// what the other measured, under a lock on the file: the nodes of a cluster may share one
// cache directory and write at once.
var netFields = []string{"LatNet", "BWNet"}

// WriteNodeModel writes f, a node's calibration, to path, keeping the network level of the
// model file there when it is of f's machine and measured; it returns what it wrote.
func WriteNodeModel(path string, f ModelFile) (ModelFile, error) {
	err := withCacheLock(path, func() error {
		if old, ok := readModelFile(path); ok && old.Machine == f.Machine && NetLevelMeasured(old.Source) {
			f.Source = maps.Clone(f.Source)
			if f.Source == nil {
				f.Source = map[string]string{}
			}
			f.Model.LatNet, f.Model.BWNet = old.Model.LatNet, old.Model.BWNet
			for _, k := range netFields {
				f.Source[k] = old.Source[k]
			}
		}
		return WriteCacheFile(path, FormatModel(f))
	})
	return f, err
}

// WriteNetLevel puts the network level n, measured as source says, into the model file of
// machine at path, keeping its other fields. Without a model of that machine there it
// writes nothing and returns false: the node's calibration comes first.
func WriteNetLevel(path, machine string, n NetLevel, source string) (bool, error) {
	wrote := false
	err := withCacheLock(path, func() error {
		f, ok := readModelFile(path)
		if !ok || f.Machine != machine {
			return nil
		}
		f.Model.LatNet, f.Model.BWNet = n.Lat, n.BW
		for _, k := range netFields {
			f.Source[k] = source
		}
		wrote = true
		return WriteCacheFile(path, FormatModel(f))
	})
	return wrote, err
}

func readModelFile(path string) (ModelFile, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return ModelFile{}, false
	}
	f, err := ParseModel(path, b)
	return f, err == nil
}

func isDefault(source string) bool { return source == "" || strings.HasPrefix(source, "default") }

// NetLevelMeasured reports whether a model's sources say its network level was measured
// (by a job across nodes or shmemrun --tune), not assumed.
func NetLevelMeasured(source map[string]string) bool { return !isDefault(source["LatNet"]) }

// withCacheLock runs f holding an exclusive flock on a lock file beside path (.lock-NAME).
func withCacheLock(path string, f func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	l, err := os.OpenFile(filepath.Join(filepath.Dir(path), ".lock-"+filepath.Base(path)), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("locking %s: %w", l.Name(), err)
	}
	return f()
}
