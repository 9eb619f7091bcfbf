package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/goshmem/shmem/gen/tables"
)

func model(t *testing.T) (*Model, map[string]Func) {
	t.Helper()
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Func{}
	for _, fs := range m.funcs {
		for _, f := range fs {
			byName[f.Name] = f
		}
	}
	return m, byName
}

// The routines the seeds name exist, with the seeds' signatures.
func TestSeedRoutines(t *testing.T) {
	_, fs := model(t)
	want := map[string]string{
		"shmem_int_or_to_all":         "void shmem_int_or_to_all(int *dest, const int *source, int nreduce, int PE_start, int logPE_stride, int PE_size, int *pWrk, long *pSync)",
		"shmem_longdouble_min_to_all": "void shmem_longdouble_min_to_all(long double *dest, const long double *source, int nreduce, int PE_start, int logPE_stride, int PE_size, long double *pWrk, long *pSync)",
		"shmem_complexf_sum_to_all":   "void shmem_complexf_sum_to_all(float _Complex *dest, const float _Complex *source, int nreduce, int PE_start, int logPE_stride, int PE_size, float _Complex *pWrk, long *pSync)",
		"shmem_alltoalls64":           "void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"shmem_size_test_some":        "size_t shmem_size_test_some(size_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, size_t cmp_value)",
	}
	for name, proto := range want {
		if f, ok := fs[name]; !ok || f.Proto != proto {
			t.Errorf("%s: got %q, want %q", name, f.Proto, proto)
		}
	}
	var names []string
	for _, n := range strings.Fields("short int long longlong") {
		names = append(names, "shmem_"+n+"_or_to_all")
	}
	for _, n := range strings.Fields("short int long longlong float double longdouble") {
		names = append(names, "shmem_"+n+"_min_to_all", "shmem_"+n+"_sum_to_all")
	}
	for _, n := range strings.Fields("short int long longlong ushort uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff") {
		names = append(names, "shmem_"+n+"_test_some")
	}
	names = append(names, "shmem_complexd_sum_to_all", "shmem_alltoall32", "shmem_alltoall64", "shmem_alltoalls32",
		"shmem_malloc", "shmem_calloc", "shmem_put_nbi", "shmem_fence", "shmem_barrier_all", "shmem_global_exit")
	m, _ := model(t)
	generics := map[string]bool{}
	for _, s := range m.sections {
		for _, r := range s.Routines {
			generics[r.Generic] = true
		}
	}
	for _, n := range names {
		if _, ok := fs[n]; !ok && !generics[n] {
			t.Errorf("%s is missing", n)
		}
	}
	for _, g := range []string{"shmem_test_some", "shmem_put_nbi", "shmem_atomic_set", "shmem_put", "shmem_wait_until", "shmem_sum_reduce"} {
		if !generics[g] {
			t.Errorf("no generic %s", g)
		}
	}
}

// long double has the reductions an ordered float type has, in C; the others call Go.
func TestLongDouble(t *testing.T) {
	_, fs := model(t)
	for _, op := range tables.Ops {
		for _, form := range []string{"to_all", "reduce"} {
			f, ok := fs["shmem_longdouble_"+op.Name+"_"+form]
			float := opHasKind(op, tables.Float)
			if ok != float {
				t.Errorf("%s %s: generated %v, want %v", op.Name, form, ok, float)
			}
			if ok && !strings.Contains(f.Body, "goshmem_ld_") {
				t.Errorf("%s: body %q does not reduce in C", f.Name, f.Body)
			}
		}
	}
}

// Each generic selection's keys are distinct basic C types (a typedef twice would not
// compile), and it covers every basic type of its family.
func TestGenerics(t *testing.T) {
	m, _ := model(t)
	for _, s := range m.sections {
		for _, r := range s.Routines {
			if r.Generic == "" {
				continue
			}
			g := m.generic(r)
			seen := map[string]bool{}
			for _, c := range family(m.all, r.Types) {
				if !c.Basic {
					continue
				}
				if seen[c.C] {
					t.Errorf("%s: %s twice", r.Generic, c.C)
				}
				seen[c.C] = true
				if !strings.Contains(g, c.C+": ") {
					t.Errorf("%s lacks %s", r.Generic, c.C)
				}
			}
		}
	}
}

// Every routine body names its own routine number, and no placeholder is left.
func TestBodies(t *testing.T) {
	_, fs := model(t)
	if len(fs) < 1000 {
		t.Errorf("only %d routines", len(fs))
	}
	for name, f := range fs {
		for _, p := range []string{"{N}", "{T}", "{TI}", "{B}", "{S}", "{SB}", "{R}", "{OP}", "{OPI}"} {
			if strings.Contains(f.Proto+f.Body, p) {
				t.Errorf("%s: placeholder %s left: %s %s", name, p, f.Proto, f.Body)
			}
		}
		if strings.Contains(f.Body, "goshmem_") && !strings.Contains(f.Body, "R_"+name) &&
			!strings.HasPrefix(name, "shmem_info_get") {
			t.Errorf("%s: body does not pass its routine number: %s", name, f.Body)
		}
	}
}

// The one-sided routines try the C fast path (cabi/fastpath.h, or the generated
// goshmem_poll_TYPENAME) before they call Go, every typed and sized form of them.
func TestFastPaths(t *testing.T) {
	m, fs := model(t)
	fast := regexp.MustCompile(`^(shmem_(\w+_)?(put|get)(8|16|32|64|128|mem)?(_nbi)?|shmem_\w+_(p|g)|shmem_(\w+_)?put(8|16|32|64|128|mem)?_signal(_nbi)?|shmem_signal_fetch|` +
		`shmem_\w+_atomic_\w+|shmem_(int|long|longlong|float|double)_(swap|cswap|finc|inc|fadd|add|fetch|set)|` +
		`shmem_quiet|shmem_fence|shmem_ptr|shmem_\w+_(wait_until|test|wait))$`)
	n := 0
	for name, f := range fs {
		if !fast.MatchString(name) || name == "shmem_signal_wait_until" { // waits in Go
			continue
		}
		n++
		if !strings.Contains(f.Body, "goshmem_fast_") && !strings.Contains(f.Body, "goshmem_poll_") {
			t.Errorf("%s has no fast path: %s", name, f.Body)
		}
	}
	if n < 500 { // the regular expression still names the families: 24 RMA types x 8 forms, 229 atomics, ...
		t.Errorf("only %d routines with a fast path", n)
	}
	src := string(m.csource())
	for _, c := range family(m.all, syncTypes) {
		if !strings.Contains(src, "GOSHMEM_INLINE int goshmem_poll_"+c.Name+"(const "+c.C+" *ivar") {
			t.Errorf("no poll helper for %s", c.C)
		}
	}
}
