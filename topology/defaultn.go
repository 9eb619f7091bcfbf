package topology

// DefaultNPEs is the number of PEs shmemrun starts when -n is absent, as mpirun's default
// slot count: one per slot of the usable CPUs (a core; a hardware thread when mapping or
// binding by hwthread, as Place counts them), or one per n slots under --map-by X:PE=n.
// Never less than one.
func DefaultNPEs(t *Topology, o Options) (int, error) {
	usable, err := usableCPUs(t, o.CPUList)
	if err != nil {
		return 0, err
	}
	p := placer{t: t, slot: UnitCore}
	if o.MapBy.Unit == UnitHWThread || (o.MapBy.PE == 0 && o.BindTo == UnitHWThread) {
		p.slot = UnitHWThread
	}
	n := p.slots(NewCPUSet(usable...))
	if o.MapBy.PE > 0 {
		n /= o.MapBy.PE
	}
	return max(n, 1), nil
}
