package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Unit is a level of the machine that PEs are mapped over or bound to.
type Unit int

const (
	UnitUnset    Unit = iota // no flag given: Place picks the default
	UnitNone                 // --bind-to none
	UnitHWThread             // one hardware thread (a CPU)
	UnitCore
	UnitL3 // the CPUs sharing one L3 cache ("l3cache")
	UnitNUMA
	UnitSocket
)

var unitNames = [...]string{"", "none", "hwthread", "core", "l3cache", "numa", "socket"}

// String is the flag spelling: "hwthread", "core", "l3cache", "numa", "socket", "none".
func (u Unit) String() string {
	if u < 0 || int(u) >= len(unitNames) {
		return "Unit(" + strconv.Itoa(int(u)) + ")"
	}
	return unitNames[u]
}

// noun names n objects of the unit in a message: "core", "hardware threads".
func (u Unit) noun(n int) string {
	name := map[Unit]string{UnitHWThread: "hardware thread", UnitCore: "core", UnitL3: "L3 domain",
		UnitNUMA: "NUMA node", UnitSocket: "socket"}[u]
	if n != 1 {
		name += "s"
	}
	return name
}

// plural counts n objects of the unit: "2 cores".
func (u Unit) plural(n int) string { return strconv.Itoa(n) + " " + u.noun(n) }

// MapBy is a --map-by value: PEs go round-robin over the objects of Unit, and with
// PE > 0 each PE gets PE cores of its object (hardware threads under hwthread),
// as Open MPI's PE=n counts "CPUs".
type MapBy struct {
	Unit Unit
	PE   int
}

// String is the flag spelling: "core", "socket:PE=4".
func (m MapBy) String() string {
	u := m.Unit
	if u == UnitUnset {
		u = UnitCore
	}
	if m.PE > 0 {
		return fmt.Sprintf("%s:PE=%d", u, m.PE)
	}
	return u.String()
}

// ParseMapBy parses a --map-by value: core|hwthread|l3cache|numa|socket[:PE=n].
func ParseMapBy(s string) (MapBy, error) {
	name, mod, hasMod := strings.Cut(s, ":")
	u, ok := parseUnit(name)
	if !ok || u == UnitNone {
		return MapBy{}, fmt.Errorf("--map-by %s: unknown unit %q (want core, hwthread, l3cache, numa or socket, optionally :PE=n)", s, name)
	}
	m := MapBy{Unit: u}
	if hasMod {
		key, val, _ := strings.Cut(mod, "=")
		if !strings.EqualFold(key, "PE") {
			return MapBy{}, fmt.Errorf("--map-by %s: unknown modifier %q (want PE=n)", s, mod)
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return MapBy{}, fmt.Errorf("--map-by %s: PE=%s is not a positive number of CPUs", s, val)
		}
		m.PE = n
	}
	return m, nil
}

// ParseBindTo parses a --bind-to value: none|hwthread|core|l3cache|numa|socket.
func ParseBindTo(s string) (Unit, error) {
	u, ok := parseUnit(s)
	if !ok {
		return UnitUnset, fmt.Errorf("--bind-to %s: unknown unit (want none, hwthread, core, l3cache, numa or socket)", s)
	}
	return u, nil
}

func parseUnit(s string) (Unit, bool) {
	for u, name := range unitNames {
		if name != "" && name == s {
			return Unit(u), true
		}
	}
	return UnitUnset, false
}

// Options are the placement flags. The zero value is the default placement.
type Options struct {
	MapBy         MapBy // Unit UnitUnset: core
	BindTo        Unit  // UnitUnset: see Place
	CPUList       []int // --cpu-list: only these CPUs, in this order; nil: every allowed CPU
	Oversubscribe bool  // allow more PEs than binding slots
}

// Binding is where one PE runs.
type Binding struct {
	PE    int
	CPUs  CPUSet // the CPUs it may run on; when unbound, every CPU of the job
	Bound bool   // the launcher pins the PE to CPUs; false: affinity left as inherited
	// The objects that hold all of CPUs; -1 when CPUs span several.
	Socket, NUMA, L3, Core int
}

// String is the --report-bindings line: "PE 3: socket 1 numa 1 core 5 cpus 10,11";
// levels the CPUs span are left out; "PE 3: unbound" when not pinned.
func (b Binding) String() string {
	if !b.Bound {
		return fmt.Sprintf("PE %d: unbound", b.PE)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "PE %d:", b.PE)
	if b.Socket >= 0 {
		fmt.Fprintf(&s, " socket %d", b.Socket)
	}
	if b.NUMA >= 0 {
		fmt.Fprintf(&s, " numa %d", b.NUMA)
	}
	if b.Core >= 0 {
		fmt.Fprintf(&s, " core %d", b.Core)
	}
	fmt.Fprintf(&s, " cpus %s", b.CPUs)
	return s.String()
}

// ReportBindings is one String line per binding, each ending in a newline.
func ReportBindings(bs []Binding) string {
	var s strings.Builder
	for _, b := range bs {
		s.WriteString(b.String())
		s.WriteByte('\n')
	}
	return s.String()
}

// Place decides where each of n PEs runs. PEs go round-robin over the objects of
// --map-by (default core) in topology order (package, die, node, L3, core, CPU),
// or in --cpu-list order; each is bound to an object of --bind-to:
//   - bind-to finer than map-by (map-by socket, bind-to core): the PEs of one
//     mapped object take its bind-to objects in turn;
//   - bind-to as coarse or coarser (map-by core, bind-to socket): the PE is bound
//     to the whole object holding its mapped one;
//   - map-by X:PE=n: each PE is bound to its own n cores (hardware threads under
//     hwthread) of its object; under core and hwthread, consecutive ones within
//     one socket.
//
// Each PE needs a slot of its own — a core, or a hardware thread when mapping or
// binding by hwthread — and more PEs than slots (in all, or in one object) is an
// error unless Oversubscribe is set, in which case objects are reused in turn.
// The default, with neither flag, is --map-by core --bind-to core when n is at
// most the number of usable cores and no binding otherwise. Unbound PEs may run
// on every allowed CPU (Bound false: the launcher leaves their affinity alone),
// except under --cpu-list, which always confines the job: each unbound PE is
// then bound to the whole list.
//
// Errors name the flag and value, and are meant to be printed after "shmemrun: ".
func Place(t *Topology, n int, o Options) ([]Binding, error) {
	if n < 1 {
		return nil, fmt.Errorf("-n %d: a job needs at least one PE", n)
	}
	usable, err := usableCPUs(t, o.CPUList)
	if err != nil {
		return nil, err
	}
	jobSet := t.Allowed
	if o.CPUList != nil {
		jobSet = NewCPUSet(usable...)
	}
	p := placer{t: t, usable: usable, n: n, o: o, jobSet: jobSet}
	p.mapU = o.MapBy.Unit
	if p.mapU == UnitUnset {
		p.mapU = UnitCore
	}
	p.slot = UnitCore
	if p.mapU == UnitHWThread || (o.MapBy.PE == 0 && o.BindTo == UnitHWThread) {
		p.slot = UnitHWThread
	}
	p.bind = o.BindTo
	if o.MapBy.PE > 0 {
		if p.bind != UnitUnset && p.bind != UnitNone && p.bind != p.slot {
			return nil, fmt.Errorf("--bind-to %s: conflicts with --map-by %s, which binds each PE to its own %s (leave --bind-to out, or use --bind-to none)",
				p.bind, o.MapBy, p.slot.plural(o.MapBy.PE))
		}
		if p.bind == UnitUnset {
			p.bind = p.slot
		}
		return p.placePE()
	}
	if p.bind == UnitUnset {
		p.bind = UnitNone
		if n <= p.slots(jobSet) {
			p.bind = p.slot
		}
	}
	return p.placeRR()
}

// usableCPUs is the ordered list of CPUs placement may use: the --cpu-list, each
// checked, or the allowed CPUs in topology order.
func usableCPUs(t *Topology, list []int) ([]int, error) {
	if list == nil {
		cpus := t.Allowed.CPUs()
		slices.SortStableFunc(cpus, func(a, b int) int { return compareLogical(t, a, b) })
		return cpus, nil
	}
	text := orderedList(list)
	if len(list) == 0 {
		return nil, fmt.Errorf("--cpu-list: empty list")
	}
	var seen CPUSet
	for _, c := range list {
		rec, ok := t.CPU(c)
		switch {
		case c < 0 || !ok:
			return nil, fmt.Errorf("--cpu-list %s: CPU %d does not exist (present: %s)", text, c, t.Online.Union(t.Offline))
		case !rec.Online:
			return nil, fmt.Errorf("--cpu-list %s: CPU %d is offline (online: %s)", text, c, t.Online)
		case !t.Allowed.Has(c) && t.Isolated.Has(c):
			return nil, fmt.Errorf("--cpu-list %s: CPU %d is isolated and not allowed to this process (allowed: %s)", text, c, t.Allowed)
		case !t.Allowed.Has(c):
			return nil, fmt.Errorf("--cpu-list %s: CPU %d is not allowed to this process (allowed: %s, from %s)", text, c, t.Allowed, t.AllowedFrom)
		case seen.Has(c):
			return nil, fmt.Errorf("--cpu-list %s: CPU %d listed twice", text, c)
		}
		seen.Add(c)
	}
	return slices.Clone(list), nil
}

// compareLogical orders CPUs the way hwloc's logical numbering does: by package,
// die, node, L3, core, then CPU number, so SMT siblings are adjacent.
func compareLogical(t *Topology, a, b int) int {
	x, _ := t.CPU(a)
	y, _ := t.CPU(b)
	return cmp.Or(cmp.Compare(x.Package, y.Package), cmp.Compare(x.Die, y.Die), cmp.Compare(x.Node, y.Node),
		cmp.Compare(x.L3, y.L3), cmp.Compare(x.Core, y.Core), cmp.Compare(a, b))
}

// orderedList writes CPUs in the order given, joining ascending runs: "6,4,0-1".
func orderedList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			fmt.Fprintf(&b, "-%d", cpus[j])
		}
		i = j + 1
	}
	return b.String()
}

type placer struct {
	t      *Topology
	usable []int  // ordered
	jobSet CPUSet // CPUs an unbound PE may use
	n      int
	o      Options
	mapU   Unit
	bind   Unit
	slot   Unit // UnitCore or UnitHWThread
}

// key is the object of unit u holding cpu.
func (p *placer) key(u Unit, cpu int) int {
	c, _ := p.t.CPU(cpu)
	switch u {
	case UnitHWThread:
		return cpu
	case UnitCore:
		return c.Core
	case UnitL3:
		return c.L3
	case UnitNUMA:
		return c.Node
	case UnitSocket:
		return c.Package
	}
	panic("topology: no key for unit " + u.String())
}

// object is one object of a unit, restricted to usable CPUs, in usable order.
type object struct {
	id   int
	cpus []int
	set  CPUSet
}

// objects groups cpus (in order) by unit u, in order of first appearance.
func (p *placer) objects(u Unit, cpus []int) []object {
	var out []object
	at := map[int]int{}
	for _, c := range cpus {
		k := p.key(u, c)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, object{id: k})
		}
		out[i].cpus = append(out[i].cpus, c)
		out[i].set.Add(c)
	}
	return out
}

// slots counts the slots (cores or hardware threads) of s.
func (p *placer) slots(s CPUSet) int {
	if p.slot == UnitHWThread {
		return s.Count()
	}
	cores := map[int]bool{}
	for _, c := range s.CPUs() {
		cores[p.key(UnitCore, c)] = true
	}
	return len(cores)
}

func (p *placer) name(u Unit, id int) string {
	if u == UnitHWThread {
		return "hwthread " + strconv.Itoa(id)
	}
	return u.String() + " " + strconv.Itoa(id)
}

func (p *placer) binding(pe int, set CPUSet) Binding {
	b := Binding{PE: pe, CPUs: set, Bound: true, Socket: -1, NUMA: -1, L3: -1, Core: -1}
	if p.bind == UnitNone {
		b.CPUs = p.jobSet
		// Unbound PEs still stay inside a --cpu-list: the launcher confines them to it.
		b.Bound = p.o.CPUList != nil
	}
	b.Socket, b.NUMA, b.L3, b.Core = p.common(b.CPUs, UnitSocket), p.common(b.CPUs, UnitNUMA), p.common(b.CPUs, UnitL3), p.common(b.CPUs, UnitCore)
	return b
}

// common is the object of unit u holding every CPU of s, -1 if they span several.
func (p *placer) common(s CPUSet, u Unit) int {
	id := -1
	for i, c := range s.CPUs() {
		k := p.key(u, c)
		if i > 0 && k != id {
			return -1
		}
		id = k
	}
	return id
}

func (p *placer) placeRR() ([]Binding, error) {
	units := p.objects(p.mapU, p.usable)
	whole := map[int]CPUSet{} // each bind-to object, all its usable CPUs
	if p.bind != UnitNone {
		for _, w := range p.objects(p.bind, p.usable) {
			whole[w.id] = w.set
		}
	}
	out := make([]Binding, p.n)
	cursor := make([]int, len(units))
	perUnit := make([]int, len(units))
	for pe := range out {
		ui := pe % len(units)
		u := units[ui]
		perUnit[ui]++
		if p.bind == UnitNone {
			out[pe] = p.binding(pe, CPUSet{})
			continue
		}
		objs := p.objects(p.bind, u.cpus)
		finer := true
		for _, o := range objs {
			finer = finer && whole[o.id].IsSubsetOf(u.set)
		}
		var set CPUSet
		if finer {
			set = objs[cursor[ui]%len(objs)].set
			cursor[ui]++
		} else {
			for _, o := range objs {
				set = set.Union(whole[o.id])
			}
		}
		out[pe] = p.binding(pe, set)
	}
	if p.bind == UnitNone || p.o.Oversubscribe {
		return out, nil
	}
	if total := p.slots(p.jobSet); p.n > total {
		flag := "--bind-to " + p.bind.String()
		if p.o.BindTo == UnitUnset {
			flag = "--map-by " + p.mapU.String()
		}
		return nil, fmt.Errorf("%s: %d PEs but only %s (add --oversubscribe)", flag, p.n, p.slot.plural(total))
	}
	for i, u := range units {
		if have := p.slots(u.set); perUnit[i] > have {
			return nil, fmt.Errorf("--map-by %s: %d PEs on %s, which has only %s (add --oversubscribe)",
				p.mapU, perUnit[i], p.name(p.mapU, u.id), p.slot.plural(have))
		}
	}
	count := map[string]int{}
	for _, b := range out {
		count[b.CPUs.String()]++
	}
	for _, b := range out {
		if have := p.slots(b.CPUs); count[b.CPUs.String()] > have {
			return nil, fmt.Errorf("--bind-to %s: %d PEs on %s, which has only %s (add --oversubscribe)",
				p.bind, count[b.CPUs.String()], p.name(p.bind, p.key(p.bind, b.CPUs.First())), p.slot.plural(have))
		}
	}
	return out, nil
}

// placePE gives each PE PE=n slots of its own.
func (p *placer) placePE() ([]Binding, error) {
	need := p.o.MapBy.PE
	flag := "--map-by " + p.o.MapBy.String()
	fill := p.mapU == UnitCore || p.mapU == UnitHWThread
	cu := p.mapU
	if fill {
		cu = UnitSocket
	}
	containers := p.objects(cu, p.usable)
	slotsOf := make([][]object, len(containers))
	for i, c := range containers {
		slotsOf[i] = p.objects(p.slot, c.cpus)
	}
	out := make([]Binding, p.n)
	take := func(pe, ci, from int) {
		var set CPUSet
		for _, s := range slotsOf[ci][from : from+need] {
			set = set.Union(s.set)
		}
		out[pe] = p.binding(pe, set)
	}
	if fill {
		largest, groups := 0, 0
		for _, s := range slotsOf {
			largest = max(largest, len(s))
			groups += len(s) / need
		}
		if need > largest {
			return nil, fmt.Errorf("%s: PE=%d is larger than a socket (the largest has %s usable)", flag, need, p.slot.plural(largest))
		}
		ci, at := 0, 0
		for pe := range out {
			for at+need > len(slotsOf[ci]) {
				ci, at = ci+1, 0
				if ci == len(slotsOf) {
					if !p.o.Oversubscribe {
						return nil, fmt.Errorf("%s: %d PEs of %s each, but the sockets hold only %s (add --oversubscribe)",
							flag, p.n, p.slot.plural(need), plural(groups, "such group"))
					}
					ci = 0
				}
			}
			take(pe, ci, at)
			at += need
		}
		return out, nil
	}
	cursor := make([]int, len(containers))
	for pe := range out {
		ci := pe % len(containers)
		if have := len(slotsOf[ci]); need > have {
			return nil, fmt.Errorf("%s: PE=%d is larger than %s (%s usable)", flag, need, p.name(cu, containers[ci].id), p.slot.plural(have))
		}
		if cursor[ci]+need > len(slotsOf[ci]) {
			if !p.o.Oversubscribe {
				k := len(containers)
				pes := (p.n - ci + k - 1) / k
				return nil, fmt.Errorf("%s: %d PEs on %s need %s but it has only %d (add --oversubscribe)",
					flag, pes, p.name(cu, containers[ci].id), p.slot.plural(pes*need), len(slotsOf[ci]))
			}
			cursor[ci] = 0
		}
		take(pe, ci, cursor[ci])
		cursor[ci] += need
	}
	return out, nil
}

// Oversubscribed reports whether the PEs cannot each have a CPU of their own
// inside their bindings — whether some CPU must run two PEs — which decides the
// engine's wait: spin with PAUSE when false, yield and futex when true.
// It is an exact test (a bipartite matching of PEs to CPUs).
func Oversubscribed(bs []Binding) bool {
	var all CPUSet
	for _, b := range bs {
		all = all.Union(b.CPUs)
	}
	if len(bs) > all.Count() {
		return true
	}
	owner := map[int]int{} // CPU -> index of the binding holding it
	cpus := make([][]int, len(bs))
	for i, b := range bs {
		cpus[i] = b.CPUs.CPUs()
	}
	var try func(i int, seen map[int]bool) bool
	try = func(i int, seen map[int]bool) bool {
		for _, c := range cpus[i] {
			if seen[c] {
				continue
			}
			seen[c] = true
			j, taken := owner[c]
			if !taken || try(j, seen) {
				owner[c] = i
				return true
			}
		}
		return false
	}
	for i := range bs {
		// Greedy first: most placements match without augmenting.
		done := false
		for _, c := range cpus[i] {
			if _, taken := owner[c]; !taken {
				owner[c] = i
				done = true
				break
			}
		}
		if !done && !try(i, map[int]bool{}) {
			return true
		}
	}
	return false
}
