package main

import (
	"fmt"
	"strings"

	"github.com/goshmem/shmem/topology"
)

// place reads the machine (or the captured tree of --topology) and computes the PEs'
// bindings from the flags, setting o.n to its default when -n is absent; every placement
// error names its flag.
func place(o *options) (*topology.Topology, []topology.Binding, error) {
	t, err := topology.Read(o.topoDir)
	if err != nil {
		if o.topoDir != "" {
			return nil, nil, fmt.Errorf("--topology %s: %v", o.topoDir, err)
		}
		return nil, nil, err
	}
	var opts topology.Options
	opts.Oversubscribe = o.oversubscribe
	if o.mapBy != "" {
		if opts.MapBy, err = topology.ParseMapBy(o.mapBy); err != nil {
			return nil, nil, err
		}
	}
	if o.bindTo != "" {
		if opts.BindTo, err = topology.ParseBindTo(o.bindTo); err != nil {
			return nil, nil, err
		}
	}
	if o.cpuList != "" {
		if opts.CPUList, err = topology.ParseCPUList(o.cpuList); err != nil {
			return nil, nil, fmt.Errorf("--cpu-list %s: %v", o.cpuList, err)
		}
	}
	if !o.nSet {
		if o.n, err = topology.DefaultNPEs(t, opts); err != nil {
			return nil, nil, err
		}
	}
	bs, err := topology.Place(t, o.n, opts)
	if err != nil {
		return nil, nil, err
	}
	return t, bs, nil
}

// dryRun is what --dry-run prints: the machine, where each PE would run, how its waits
// would behave, where its memory would live, and what each collective would choose.
func dryRun(t *topology.Topology, bs []topology.Binding, sources string, m topology.CostModel, tbl *topology.Table) string {
	var b strings.Builder
	b.WriteString(topology.Summary(t))
	fmt.Fprintf(&b, "\nplacement of %d PEs:\n", len(bs))
	b.WriteString(topology.ReportBindings(bs))
	wait := "spin (each PE has a CPU of its own)"
	if topology.Oversubscribed(bs) {
		wait = "yield, then sleep on a futex (PEs share CPUs)"
	}
	fmt.Fprintf(&b, "waits: %s\n", wait)
	fmt.Fprintf(&b, "control block memory: %v\n", topology.ControlBlockPolicy(t, bs))
	for _, x := range bs {
		fmt.Fprintf(&b, "PE %d segment memory: %v\n", x.PE, topology.SegmentPolicy(t, x, bs))
	}
	b.WriteString("\n" + sources)
	fmt.Fprintf(&b, "collective algorithms over all %d PEs (auto):\n", len(bs))
	b.WriteString(topology.ChoiceTableTuned(topology.PlaceMap(bs), m, tbl))
	return b.String()
}
