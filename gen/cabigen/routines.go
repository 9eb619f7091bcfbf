package main

import (
	"fmt"
	"strings"

	"github.com/goshmem/shmem/gen/tables"
)

// Routine is one C routine, or one typed or sized family of them. Proto and Body are C with
// placeholders:
//
//	{N} TYPENAME   {T} C type   {TI} the Go type's index in tables.Types   {B} bits of T
//	{S} bits of a sized family's element   {SB} its bytes
//	{OP} the operation's name (sum)   {OPI} its index in tables.Ops (the kernels.Op value)
//	{R} the routine's number, which the Go side turns into its name for messages
//
// A typed family is Types (TYPENAMEs), a sized one Sizes; Generic names the C11 generic
// selection over the family's basic C types. NoGo is the body for C types without a Go type
// (long double), where Body needs one. {CTX} in a body is the communication context: the
// default one in the routine itself; Ctx says the routine also has a shmem_ctx_ form taking
// the context first (ctxTwin), which its generic selection accepts as an optional first
// argument.
type Routine struct {
	Proto, Body string
	Types       string
	Sizes       []int
	Generic     string
	NoGo        string
	Op          *tables.Op
	Ctx         bool
	Twin        bool // the context form of another routine
}

// ctxDefault is what {CTX} becomes in a routine without a context argument.
const ctxDefault = "SHMEM_CTX_DEFAULT"

// ctxTwin is r's shmem_ctx_ form: the name's shmem_ becomes shmem_ctx_, the context comes
// first, and the body passes it.
func ctxTwin(r Routine) Routine {
	i := strings.Index(r.Proto, "shmem_")
	open := strings.IndexByte(r.Proto, '(')
	args := r.Proto[open+1:]
	if strings.HasPrefix(args, "void)") {
		args = "shmem_ctx_t ctx)"
	} else {
		args = "shmem_ctx_t ctx, " + args
	}
	r.Proto = r.Proto[:i] + "shmem_ctx_" + r.Proto[i+len("shmem_"):open+1] + args
	r.Body = strings.ReplaceAll(r.Body, "{CTX}", "ctx")
	r.NoGo = strings.ReplaceAll(r.NoGo, "{CTX}", "ctx")
	r.Ctx, r.Twin = false, true
	return r
}

// withCtx marks routines as having a context form.
func withCtx(rs []Routine) []Routine {
	for i := range rs {
		rs[i].Ctx = true
	}
	return rs
}

// Section is a group of routines in the header, under a title.
type Section struct {
	Title    string
	Routines []Routine
}

// Func is one generated C function.
type Func struct {
	Name, Proto, Body string
	Type              *CType // of a typed family, else nil
}

func (r Routine) expand(all map[string]CType) ([]Func, error) {
	r.Body = strings.ReplaceAll(r.Body, "{CTX}", ctxDefault)
	r.NoGo = strings.ReplaceAll(r.NoGo, "{CTX}", ctxDefault)
	sub := func(s string, kv ...string) string {
		return strings.NewReplacer(kv...).Replace(s)
	}
	op := []string{}
	if r.Op != nil {
		idx := -1
		for i, o := range tables.Ops {
			if o.Name == r.Op.Name {
				idx = i
			}
		}
		op = []string{"{OP}", r.Op.Name, "{OPI}", fmt.Sprint(idx)}
	}
	mk := func(kv ...string) Func {
		kv = append(kv, op...)
		proto := sub(r.Proto, kv...)
		name := funcName(proto)
		return Func{Name: name, Proto: proto, Body: sub(r.Body, append(kv, "{R}", "R_"+name)...)}
	}
	switch {
	case r.Types != "":
		var fs []Func
		for _, c := range family(all, r.Types) {
			body := r.Body
			if c.Go == "" && r.NoGo != "" {
				body = r.NoGo
			}
			if c.TI == "" && strings.Contains(body, "{TI}") {
				return nil, fmt.Errorf("%s: %s has no Go type", r.Proto, c.Name)
			}
			rr := r
			rr.Body = body
			f := rr.mkTyped(c, op)
			f.Type = &c
			fs = append(fs, f)
		}
		return fs, nil
	case r.Sizes != nil:
		var fs []Func
		for _, s := range r.Sizes {
			fs = append(fs, mk("{S}", fmt.Sprint(s), "{SB}", fmt.Sprint(s/8)))
		}
		return fs, nil
	}
	return []Func{mk()}, nil
}

func (r Routine) mkTyped(c CType, op []string) Func {
	kv := append([]string{"{N}", c.Name, "{T}", c.C, "{TI}", c.TI, "{B}", fmt.Sprint(c.Size * 8)}, op...)
	proto := strings.NewReplacer(kv...).Replace(r.Proto)
	name := funcName(proto)
	body := strings.NewReplacer(append(kv, "{R}", "R_"+name)...).Replace(r.Body)
	return Func{Name: name, Proto: proto, Body: body}
}

// funcName is the identifier before the parameter list of a prototype.
func funcName(proto string) string {
	i := strings.IndexByte(proto, '(')
	f := strings.FieldsFunc(proto[:i], func(r rune) bool { return r == ' ' || r == '*' })
	return f[len(f)-1]
}

// params are a prototype's parameter names.
func params(proto string) []string {
	in := proto[strings.IndexByte(proto, '(')+1 : strings.LastIndexByte(proto, ')')]
	if strings.TrimSpace(in) == "void" {
		return nil
	}
	var names []string
	for _, p := range strings.Split(in, ",") {
		f := strings.FieldsFunc(p, func(r rune) bool { return r == ' ' || r == '*' })
		names = append(names, f[len(f)-1])
	}
	return names
}

var (
	sizes    = []int{8, 16, 32, 64, 128}
	words    = []int{32, 64}
	rmaNote  = "dest is symmetric; source is local; the _nbi forms complete before returning (shared memory)"
	someNote = "status may be NULL; indices must hold nelems; SIZE_MAX: none"
)

// sections lists every routine of shmem.h, in the header's order.
func sections() []Section {
	s := []Section{
		{"Library setup, exit and query", []Routine{
			{Proto: "void shmem_init(void)", Body: "goshmem_init({R});\n\tgoshmem_implicit_finalize();"},
			{Proto: "int shmem_init_thread(int requested, int *provided)", Body: "int level = goshmem_init_thread({R}, requested);\n\tgoshmem_implicit_finalize();\n\tif (provided)\n\t\t*provided = level;\n\treturn 0;"},
			{Proto: "void shmem_query_thread(int *provided)", Body: "*provided = goshmem_query_thread({R});"},
			{Proto: "void shmem_finalize(void)", Body: "goshmem_finalize({R});"},
			{Proto: "void shmem_global_exit(int status)", Body: "goshmem_global_exit({R}, status);"},
			{Proto: "int shmem_my_pe(void)", Body: "return goshmem_fp.npes ? goshmem_fp.me : goshmem_my_pe({R});"},
			{Proto: "int shmem_n_pes(void)", Body: "return goshmem_fp.npes ? goshmem_fp.npes : goshmem_n_pes({R});"},
			{Proto: "int shmem_pe_accessible(int pe)", Body: "return goshmem_pe_accessible({R}, pe);"},
			{Proto: "int shmem_addr_accessible(const void *addr, int pe)", Body: "return goshmem_addr_accessible({R}, (void *)addr, pe);"},
			{Proto: "void *shmem_ptr(const void *dest, int pe)", Body: "return goshmem_fast_ptr({R}, dest, pe);"},
			{Proto: "void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)", Body: "return goshmem_team_ptr({R}, (uintptr_t)team, (void *)dest, pe);"},
			{Proto: "void shmem_info_get_version(int *major, int *minor)", Body: "*major = SHMEM_MAJOR_VERSION;\n\t*minor = SHMEM_MINOR_VERSION;"},
			{Proto: "void shmem_pcontrol(const int level, ...)", Body: "(void)level; /* the profiling interface's: for tools that intercept it */"},
			{Proto: "void shmem_info_get_name(char *name)", Body: "strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);\n\tname[SHMEM_MAX_NAME_LEN - 1] = 0;"},
		}},
		{"Memory management (collective; NULL when the heap is exhausted, with the reason on stderr)", []Routine{
			{Proto: "void *shmem_malloc(size_t size)", Body: "return goshmem_malloc({R}, size, 0);"},
			{Proto: "void *shmem_malloc_with_hints(size_t size, long hints)", Body: "(void)hints;\n\treturn goshmem_malloc({R}, size, 0);"},
			{Proto: "void *shmem_calloc(size_t count, size_t size)", Body: "return goshmem_calloc({R}, count, size);"},
			// A zero alignment or one not a power of two: NULL, as Open MPI's OSHMEM (no action, so no barrier).
			{Proto: "void *shmem_align(size_t alignment, size_t size)", Body: "if (alignment == 0 || (alignment & (alignment - 1)))\n\t\treturn NULL;\n\treturn goshmem_malloc({R}, size, alignment);"},
			{Proto: "void *shmem_realloc(void *ptr, size_t size)", Body: "return goshmem_realloc({R}, ptr, size);"},
			{Proto: "void shmem_free(void *ptr)", Body: "goshmem_free({R}, ptr);"},
		}},
		{"Teams", []Routine{
			{Proto: "int shmem_team_my_pe(shmem_team_t team)", Body: "return goshmem_team_my_pe({R}, (uintptr_t)team);"},
			{Proto: "int shmem_team_n_pes(shmem_team_t team)", Body: "return goshmem_team_n_pes({R}, (uintptr_t)team);"},
			{Proto: "int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)", Body: "return goshmem_team_get_config({R}, (uintptr_t)team, config_mask, config);"},
			{Proto: "int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)", Body: "return goshmem_team_translate_pe({R}, (uintptr_t)src_team, src_pe, (uintptr_t)dest_team);"},
			{Proto: "int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)",
				Body: "return goshmem_team_split_strided({R}, (uintptr_t)parent_team, start, stride, size, (void *)config, config_mask, new_team);"},
			{Proto: "int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team)",
				Body: "return goshmem_team_split_2d({R}, (uintptr_t)parent_team, xrange, (void *)xaxis_config, xaxis_mask, xaxis_team, (void *)yaxis_config, yaxis_mask, yaxis_team);"},
			{Proto: "void shmem_team_destroy(shmem_team_t team)", Body: "goshmem_team_destroy({R}, (uintptr_t)team);"},
		}},
		{"Communication contexts (the options: SHMEM_CTX_SERIALIZED, _PRIVATE, _NOSTORE; every thread level is SHMEM_THREAD_MULTIPLE)", []Routine{
			{Proto: "int shmem_ctx_create(long options, shmem_ctx_t *ctx)", Body: "return goshmem_ctx_create({R}, (uintptr_t)SHMEM_TEAM_WORLD, options, (void **)ctx);"},
			{Proto: "int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)", Body: "return goshmem_ctx_create({R}, (uintptr_t)team, options, (void **)ctx);"},
			{Proto: "void shmem_ctx_destroy(shmem_ctx_t ctx)", Body: "goshmem_ctx_destroy({R}, ctx);"},
			{Proto: "int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)", Body: "return goshmem_ctx_get_team({R}, ctx, (uintptr_t *)team);"},
			// OpenSHMEM 1.6: sessions, hints recorded (see shmem.Ctx.SessionStart).
			{Proto: "void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config, long config_mask)", Body: "goshmem_ctx_session_start({R}, ctx, options, (void *)config, config_mask);"},
			{Proto: "void shmem_ctx_session_stop(shmem_ctx_t ctx)", Body: "goshmem_ctx_session_stop({R}, ctx);"},
		}},
		{"Remote memory access, typed: " + rmaNote, withCtx([]Routine{
			{Types: rmaTypes, Generic: "shmem_put", Proto: "void shmem_{N}_put({T} *dest, const {T} *source, size_t nelems, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, source, goshmem_nbytes({R}, nelems, sizeof({T})), pe);"},
			{Types: rmaTypes, Generic: "shmem_put_nbi", Proto: "void shmem_{N}_put_nbi({T} *dest, const {T} *source, size_t nelems, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, source, goshmem_nbytes({R}, nelems, sizeof({T})), pe);"},
			{Types: rmaTypes, Generic: "shmem_get", Proto: "void shmem_{N}_get({T} *dest, const {T} *source, size_t nelems, int pe)", Body: "goshmem_fast_get({R}, {CTX}, dest, source, goshmem_nbytes({R}, nelems, sizeof({T})), pe);"},
			{Types: rmaTypes, Generic: "shmem_get_nbi", Proto: "void shmem_{N}_get_nbi({T} *dest, const {T} *source, size_t nelems, int pe)", Body: "goshmem_fast_get({R}, {CTX}, dest, source, goshmem_nbytes({R}, nelems, sizeof({T})), pe);"},
			{Types: rmaTypes, Generic: "shmem_p", Proto: "void shmem_{N}_p({T} *dest, {T} value, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, &value, sizeof value, pe);"},
			{Types: rmaTypes, Generic: "shmem_g", Proto: "{T} shmem_{N}_g(const {T} *source, int pe)", Body: "{T} v = 0; /* SHMEM_CTX_INVALID: nothing is read */\n\tgoshmem_fast_get({R}, {CTX}, &v, source, sizeof v, pe);\n\treturn v;"},
			{Types: rmaTypes, Generic: "shmem_iput", Proto: "void shmem_{N}_iput({T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", Body: "goshmem_iput({R}, {CTX}, dest, (void *)source, dst, sst, nelems, sizeof({T}), pe);"},
			{Types: rmaTypes, Generic: "shmem_iget", Proto: "void shmem_{N}_iget({T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", Body: "goshmem_iget({R}, {CTX}, dest, (void *)source, dst, sst, nelems, sizeof({T}), pe);"},
			{Types: rmaTypes, Generic: "shmem_ibput", Proto: "void shmem_{N}_ibput({T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)", Body: "goshmem_ibput({R}, {CTX}, dest, (void *)source, dst, sst, bsize, nblocks, sizeof({T}), pe);"},
			{Types: rmaTypes, Generic: "shmem_ibget", Proto: "void shmem_{N}_ibget({T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)", Body: "goshmem_ibget({R}, {CTX}, dest, (void *)source, dst, sst, bsize, nblocks, sizeof({T}), pe);"},
			{Types: rmaTypes, Generic: "shmem_put_signal", Proto: "void shmem_{N}_put_signal({T} *dest, const {T} *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", Body: "goshmem_fast_put_signal({R}, {CTX}, dest, source, goshmem_nbytes({R}, nelems, sizeof({T})), sig_addr, signal, sig_op, pe);"},
			{Types: rmaTypes, Generic: "shmem_put_signal_nbi", Proto: "void shmem_{N}_put_signal_nbi({T} *dest, const {T} *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", Body: "goshmem_fast_put_signal({R}, {CTX}, dest, source, goshmem_nbytes({R}, nelems, sizeof({T})), sig_addr, signal, sig_op, pe);"},
		})},
		{"Remote memory access, sized and in bytes", append(withCtx([]Routine{
			{Sizes: sizes, Proto: "void shmem_put{S}(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, source, nelems * {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_put{S}_nbi(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, source, nelems * {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_get{S}(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_get({R}, {CTX}, dest, source, nelems * {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_get{S}_nbi(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_get({R}, {CTX}, dest, source, nelems * {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_iput{S}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", Body: "goshmem_iput({R}, {CTX}, dest, (void *)source, dst, sst, nelems, {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_iget{S}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", Body: "goshmem_iget({R}, {CTX}, dest, (void *)source, dst, sst, nelems, {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_ibput{S}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)", Body: "goshmem_ibput({R}, {CTX}, dest, (void *)source, dst, sst, bsize, nblocks, {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_ibget{S}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)", Body: "goshmem_ibget({R}, {CTX}, dest, (void *)source, dst, sst, bsize, nblocks, {SB}, pe);"},
			{Sizes: sizes, Proto: "void shmem_put{S}_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", Body: "goshmem_fast_put_signal({R}, {CTX}, dest, source, nelems * {SB}, sig_addr, signal, sig_op, pe);"},
			{Sizes: sizes, Proto: "void shmem_put{S}_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", Body: "goshmem_fast_put_signal({R}, {CTX}, dest, source, nelems * {SB}, sig_addr, signal, sig_op, pe);"},
			{Proto: "void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, source, nelems, pe);"},
			{Proto: "void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_put({R}, {CTX}, dest, source, nelems, pe);"},
			{Proto: "void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_get({R}, {CTX}, dest, source, nelems, pe);"},
			{Proto: "void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)", Body: "goshmem_fast_get({R}, {CTX}, dest, source, nelems, pe);"},
			{Proto: "void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", Body: "goshmem_fast_put_signal({R}, {CTX}, dest, source, nelems, sig_addr, signal, sig_op, pe);"},
			{Proto: "void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", Body: "goshmem_fast_put_signal({R}, {CTX}, dest, source, nelems, sig_addr, signal, sig_op, pe);"},
			// OpenSHMEM 1.6: a signal update without data.
			{Proto: "void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)", Body: "goshmem_fast_amo64({R}, {CTX}, GOSHMEM_AMO_FETCH_ADD | GOSHMEM_AMO_POST, sig_addr, signal, 0, pe);"},
			{Proto: "void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)", Body: "goshmem_fast_amo64({R}, {CTX}, GOSHMEM_AMO_SET | GOSHMEM_AMO_POST, sig_addr, signal, 0, pe);"},
		}),
			Routine{Proto: "uint64_t shmem_signal_fetch(const uint64_t *sig_addr)", Body: "return goshmem_fast_signal_fetch({R}, sig_addr);"},
			Routine{Proto: "uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)", Body: "return goshmem_signal_wait_until({R}, sig_addr, cmp, cmp_value);"},
		)},
		{"Atomic memory operations", withCtx(amoRoutines())},
		{"Point-to-point synchronization: " + someNote, syncRoutines()},
		{"Memory ordering", withCtx([]Routine{
			{Proto: "void shmem_quiet(void)", Body: "goshmem_fast_quiet({R}, {CTX});"},
			{Proto: "void shmem_fence(void)", Body: "goshmem_fast_fence({R}, {CTX});"},
			// OpenSHMEM 1.6: quiet towards some PEs only.
			{Proto: "void shmem_pe_quiet(const int *target_pes, size_t npes)", Body: "goshmem_pe_quiet({R}, {CTX}, (int32_t *)target_pes, npes);"},
		})},
		{"Distributed locking: lock is a symmetric long, 0 when free (a fair queue lock; clear_lock completes this PE's operations first)", []Routine{
			{Proto: "void shmem_set_lock(long *lock)", Body: "goshmem_lock({R}, GOSHMEM_LOCK_SET, lock);"},
			{Proto: "int shmem_test_lock(long *lock)", Body: "return goshmem_lock({R}, GOSHMEM_LOCK_TEST, lock);"},
			{Proto: "void shmem_clear_lock(long *lock)", Body: "goshmem_lock({R}, GOSHMEM_LOCK_CLEAR, lock);"},
		}},
		{"Barriers and synchronization", []Routine{
			{Proto: "void shmem_barrier_all(void)", Body: "if (!goshmem_fast_pair_sync({R}, 1))\n\t\tgoshmem_barrier_all({R});"},
			{Proto: "void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_barrier({R}, PE_start, logPE_stride, PE_size, pSync);"},
			{Proto: "void shmem_sync_all(void)", Body: "if (!goshmem_fast_pair_sync({R}, 0))\n\t\tgoshmem_sync_all({R});"},
			{Proto: "void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_barrier({R}, PE_start, logPE_stride, PE_size, pSync);"},
			{Proto: "int shmem_team_sync(shmem_team_t team)", Body: "return goshmem_team_sync({R}, (uintptr_t)team);"},
		}},
		{"Broadcast, collect, fcollect, alltoall(s): active sets", []Routine{
			{Sizes: words, Proto: "void shmem_broadcast{S}(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_broadcast_set({R}, dest, (void *)source, nelems * {SB}, PE_root, PE_start, logPE_stride, PE_size, pSync);"},
			{Sizes: words, Proto: "void shmem_collect{S}(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_collect_set({R}, dest, (void *)source, nelems * {SB}, 0, PE_start, logPE_stride, PE_size, pSync);"},
			{Sizes: words, Proto: "void shmem_fcollect{S}(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_collect_set({R}, dest, (void *)source, nelems * {SB}, 1, PE_start, logPE_stride, PE_size, pSync);"},
			{Sizes: words, Proto: "void shmem_alltoall{S}(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_alltoall_set({R}, dest, (void *)source, 1, 1, nelems, {SB}, PE_start, logPE_stride, PE_size, pSync);"},
			{Sizes: words, Proto: "void shmem_alltoalls{S}(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)", Body: "goshmem_alltoall_set({R}, dest, (void *)source, dst, sst, nelems, {SB}, PE_start, logPE_stride, PE_size, pSync);"},
		}},
		{"Broadcast, collect, fcollect, alltoall(s): teams", []Routine{
			{Types: rmaTypes, Generic: "shmem_broadcast", Proto: "int shmem_{N}_broadcast(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems, int PE_root)", Body: "return goshmem_broadcast_team({R}, (uintptr_t)team, dest, (void *)source, goshmem_nbytes({R}, nelems, sizeof({T})), PE_root);"},
			{Types: rmaTypes, Generic: "shmem_collect", Proto: "int shmem_{N}_collect(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)", Body: "return goshmem_collect_team({R}, (uintptr_t)team, dest, (void *)source, goshmem_nbytes({R}, nelems, sizeof({T})), 0);"},
			{Types: rmaTypes, Generic: "shmem_fcollect", Proto: "int shmem_{N}_fcollect(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)", Body: "return goshmem_collect_team({R}, (uintptr_t)team, dest, (void *)source, goshmem_nbytes({R}, nelems, sizeof({T})), 1);"},
			{Types: rmaTypes, Generic: "shmem_alltoall", Proto: "int shmem_{N}_alltoall(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)", Body: "return goshmem_alltoall_team({R}, (uintptr_t)team, dest, (void *)source, 1, 1, nelems, sizeof({T}));"},
			{Types: rmaTypes, Generic: "shmem_alltoalls", Proto: "int shmem_{N}_alltoalls(shmem_team_t team, {T} *dest, const {T} *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)", Body: "return goshmem_alltoall_team({R}, (uintptr_t)team, dest, (void *)source, dst, sst, nelems, sizeof({T}));"},
			{Proto: "int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)", Body: "return goshmem_broadcast_team({R}, (uintptr_t)team, dest, (void *)source, nelems, PE_root);"},
			{Proto: "int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)", Body: "return goshmem_collect_team({R}, (uintptr_t)team, dest, (void *)source, nelems, 0);"},
			{Proto: "int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)", Body: "return goshmem_collect_team({R}, (uintptr_t)team, dest, (void *)source, nelems, 1);"},
			{Proto: "int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)", Body: "return goshmem_alltoall_team({R}, (uintptr_t)team, dest, (void *)source, 1, 1, nelems, 1);"},
			{Proto: "int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)", Body: "return goshmem_alltoall_team({R}, (uintptr_t)team, dest, (void *)source, dst, sst, nelems, 1);"},
		}},
		{"Reductions: teams", reduceRoutines(false)},
		{"Scans (OpenSHMEM 1.6): prefix sums over a team, inclusive or exclusive", []Routine{
			{Types: scanTypes, Generic: "shmem_sum_inscan", Proto: "int shmem_{N}_sum_inscan(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)",
				Body: "return goshmem_scan({R}, {TI}, (uintptr_t)team, dest, (void *)source, nelems, 1);", NoGo: "return goshmem_ld_scan({R}, goshmem_ld_sum, team, dest, source, nelems, 1);"},
			{Types: scanTypes, Generic: "shmem_sum_exscan", Proto: "int shmem_{N}_sum_exscan(shmem_team_t team, {T} *dest, const {T} *source, size_t nelems)",
				Body: "return goshmem_scan({R}, {TI}, (uintptr_t)team, dest, (void *)source, nelems, 0);", NoGo: "return goshmem_ld_scan({R}, goshmem_ld_sum, team, dest, source, nelems, 0);"},
		}},
		{"Reductions: active sets (pWrk holds max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements)", reduceRoutines(true)},
		{"Deprecated", []Routine{
			// The cache routines of OpenSHMEM 1.0: no-ops (every PE's memory is coherent).
			{Proto: "void shmem_clear_cache_inv(void)", Body: "goshmem_check({R});"},
			{Proto: "void shmem_set_cache_inv(void)", Body: "goshmem_check({R});"},
			{Proto: "void shmem_clear_cache_line_inv(void *dest)", Body: "(void)dest;\n\tgoshmem_check({R});"},
			{Proto: "void shmem_set_cache_line_inv(void *dest)", Body: "(void)dest;\n\tgoshmem_check({R});"},
			{Proto: "void shmem_udcflush(void)", Body: "goshmem_check({R});"},
			{Proto: "void shmem_udcflush_line(void *dest)", Body: "(void)dest;\n\tgoshmem_check({R});"},
			{Proto: "void start_pes(int npes)", Body: "(void)npes;\n\tgoshmem_init({R});\n\tgoshmem_implicit_finalize();"},
			{Proto: "void *shmalloc(size_t size)", Body: "return goshmem_malloc({R}, size, 0);"},
			{Proto: "void shfree(void *ptr)", Body: "goshmem_free({R}, ptr);"},
			{Proto: "void *shrealloc(void *ptr, size_t size)", Body: "return goshmem_realloc({R}, ptr, size);"},
			{Proto: "void *shmemalign(size_t alignment, size_t size)", Body: "if (alignment == 0 || (alignment & (alignment - 1)))\n\t\treturn NULL;\n\treturn goshmem_malloc({R}, size, alignment);"},
			{Proto: "int _my_pe(void)", Body: "return goshmem_fp.npes ? goshmem_fp.me : goshmem_my_pe({R});"},
			{Proto: "int _num_pes(void)", Body: "return goshmem_fp.npes ? goshmem_fp.npes : goshmem_n_pes({R});"},
			{Types: deprecatedSyncTypes, Generic: "shmem_wait", Proto: "void shmem_{N}_wait({T} *ivar, {T} cmp_value)", Body: "if (goshmem_poll_{N}(ivar, SHMEM_CMP_NE, cmp_value, goshmem_wait_polls()) <= 0)\n\t\tgoshmem_wait_until({R}, {TI}, ivar, SHMEM_CMP_NE, (uint64_t)cmp_value);"},
			{Types: deprecatedAMOExtTypes, Generic: "shmem_swap", Proto: "{T} shmem_{N}_swap({T} *dest, {T} value, int pe)", Body: "return goshmem_from_{N}(goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_SWAP, dest, goshmem_bits_{N}(value), 0, pe));"},
			{Types: deprecatedAMOTypes, Generic: "shmem_cswap", Proto: "{T} shmem_{N}_cswap({T} *dest, {T} cond, {T} value, int pe)", Body: "return goshmem_from_{N}(goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_COMPARE_SWAP, dest, goshmem_bits_{N}(value), goshmem_bits_{N}(cond), pe));"},
			{Types: deprecatedAMOTypes, Generic: "shmem_finc", Proto: "{T} shmem_{N}_finc({T} *dest, int pe)", Body: "return goshmem_from_{N}(goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_FETCH_ADD, dest, 1, 0, pe));"},
			{Types: deprecatedAMOTypes, Generic: "shmem_inc", Proto: "void shmem_{N}_inc({T} *dest, int pe)", Body: "goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_FETCH_ADD | GOSHMEM_AMO_POST, dest, 1, 0, pe);"},
			{Types: deprecatedAMOTypes, Generic: "shmem_fadd", Proto: "{T} shmem_{N}_fadd({T} *dest, {T} value, int pe)", Body: "return goshmem_from_{N}(goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_FETCH_ADD, dest, goshmem_bits_{N}(value), 0, pe));"},
			{Types: deprecatedAMOTypes, Generic: "shmem_add", Proto: "void shmem_{N}_add({T} *dest, {T} value, int pe)", Body: "goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_FETCH_ADD | GOSHMEM_AMO_POST, dest, goshmem_bits_{N}(value), 0, pe);"},
			{Types: deprecatedAMOExtTypes, Generic: "shmem_fetch", Proto: "{T} shmem_{N}_fetch(const {T} *source, int pe)", Body: "return goshmem_from_{N}(goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_FETCH, (void *)source, 0, 0, pe));"},
			{Types: deprecatedAMOExtTypes, Generic: "shmem_set", Proto: "void shmem_{N}_set({T} *dest, {T} value, int pe)", Body: "goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_SET | GOSHMEM_AMO_POST, dest, goshmem_bits_{N}(value), 0, pe);"},
		}},
	}
	return s
}

// amoRoutines are the atomics: one machine operation each (GOSHMEM_AMO_*, cabi/cabi.h) on
// the value's bits, by size.
func amoRoutines() []Routine {
	amo := func(types, generic, proto, body string) Routine {
		return Routine{Types: types, Generic: generic, Proto: proto, Body: body}
	}
	call := func(op, dest, value, cond string) string {
		return fmt.Sprintf("goshmem_fast_amo{B}({R}, {CTX}, GOSHMEM_AMO_%s, %s, %s, %s, pe)", op, dest, value, cond)
	}
	ret := func(c string) string { return "return goshmem_from_{N}(" + c + ");" }
	nbi := func(c string) string { return "*fetch = goshmem_from_{N}(" + c + ");" }
	v := "goshmem_bits_{N}(value)"
	rs := []Routine{
		amo(amoExtTypes, "shmem_atomic_fetch", "{T} shmem_{N}_atomic_fetch(const {T} *source, int pe)", ret(call("FETCH", "(void *)source", "0", "0"))),
		amo(amoExtTypes, "shmem_atomic_fetch_nbi", "void shmem_{N}_atomic_fetch_nbi({T} *fetch, const {T} *source, int pe)", nbi(call("FETCH", "(void *)source", "0", "0"))),
		amo(amoExtTypes, "shmem_atomic_set", "void shmem_{N}_atomic_set({T} *dest, {T} value, int pe)", call("SET | GOSHMEM_AMO_POST", "dest", v, "0")+";"),
		amo(amoExtTypes, "shmem_atomic_swap", "{T} shmem_{N}_atomic_swap({T} *dest, {T} value, int pe)", ret(call("SWAP", "dest", v, "0"))),
		amo(amoExtTypes, "shmem_atomic_swap_nbi", "void shmem_{N}_atomic_swap_nbi({T} *fetch, {T} *dest, {T} value, int pe)", nbi(call("SWAP", "dest", v, "0"))),
		amo(amoStdTypes, "shmem_atomic_compare_swap", "{T} shmem_{N}_atomic_compare_swap({T} *dest, {T} cond, {T} value, int pe)", ret(call("COMPARE_SWAP", "dest", v, "goshmem_bits_{N}(cond)"))),
		amo(amoStdTypes, "shmem_atomic_compare_swap_nbi", "void shmem_{N}_atomic_compare_swap_nbi({T} *fetch, {T} *dest, {T} cond, {T} value, int pe)", nbi(call("COMPARE_SWAP", "dest", v, "goshmem_bits_{N}(cond)"))),
		amo(amoStdTypes, "shmem_atomic_fetch_inc", "{T} shmem_{N}_atomic_fetch_inc({T} *dest, int pe)", ret(call("FETCH_ADD", "dest", "1", "0"))),
		amo(amoStdTypes, "shmem_atomic_fetch_inc_nbi", "void shmem_{N}_atomic_fetch_inc_nbi({T} *fetch, {T} *dest, int pe)", nbi(call("FETCH_ADD", "dest", "1", "0"))),
		amo(amoStdTypes, "shmem_atomic_inc", "void shmem_{N}_atomic_inc({T} *dest, int pe)", call("FETCH_ADD | GOSHMEM_AMO_POST", "dest", "1", "0")+";"),
		amo(amoStdTypes, "shmem_atomic_fetch_add", "{T} shmem_{N}_atomic_fetch_add({T} *dest, {T} value, int pe)", ret(call("FETCH_ADD", "dest", v, "0"))),
		amo(amoStdTypes, "shmem_atomic_fetch_add_nbi", "void shmem_{N}_atomic_fetch_add_nbi({T} *fetch, {T} *dest, {T} value, int pe)", nbi(call("FETCH_ADD", "dest", v, "0"))),
		amo(amoStdTypes, "shmem_atomic_add", "void shmem_{N}_atomic_add({T} *dest, {T} value, int pe)", call("FETCH_ADD | GOSHMEM_AMO_POST", "dest", v, "0")+";"),
	}
	for _, op := range []string{"and", "or", "xor"} {
		up := strings.ToUpper(op)
		rs = append(rs,
			amo(amoBitTypes, "shmem_atomic_fetch_"+op, "{T} shmem_{N}_atomic_fetch_"+op+"({T} *dest, {T} value, int pe)", ret(call("FETCH_"+up, "dest", v, "0"))),
			amo(amoBitTypes, "shmem_atomic_fetch_"+op+"_nbi", "void shmem_{N}_atomic_fetch_"+op+"_nbi({T} *fetch, {T} *dest, {T} value, int pe)", nbi(call("FETCH_"+up, "dest", v, "0"))),
			amo(amoBitTypes, "shmem_atomic_"+op, "void shmem_{N}_atomic_"+op+"({T} *dest, {T} value, int pe)", call("FETCH_"+up+" | GOSHMEM_AMO_POST", "dest", v, "0")+";"),
		)
	}
	return rs
}

// syncRoutines are wait_until and test in all their forms; the comparison value travels as
// uint64_t bits, truncated to the type on the Go side.
func syncRoutines() []Routine {
	rs := []Routine{
		{Types: syncTypes, Generic: "shmem_wait_until", Proto: "void shmem_{N}_wait_until({T} *ivar, int cmp, {T} cmp_value)", Body: "if (goshmem_poll_{N}(ivar, cmp, cmp_value, goshmem_wait_polls()) <= 0)\n\t\tgoshmem_wait_until({R}, {TI}, ivar, cmp, (uint64_t)cmp_value);"},
		{Types: syncTypes, Generic: "shmem_test", Proto: "int shmem_{N}_test({T} *ivar, int cmp, {T} cmp_value)", Body: "int t = goshmem_poll_{N}(ivar, cmp, cmp_value, 0);\n\treturn goshmem_test_done(t) ? t : goshmem_test({R}, {TI}, ivar, cmp, (uint64_t)cmp_value);"},
	}
	for _, w := range []struct{ name, wait string }{{"wait_until", "1"}, {"test", "0"}} {
		for _, vec := range []bool{false, true} {
			suffix, value, args := "", "{T} cmp_value", "(uint64_t)cmp_value, NULL, 0"
			if vec {
				suffix, value, args = "_vector", "{T} *cmp_values", "0, cmp_values, 1"
			}
			allRet, all := "int", "return "
			if w.name == "wait_until" {
				allRet, all = "void", ""
			}
			rs = append(rs,
				Routine{Types: syncTypes, Generic: "shmem_" + w.name + "_all" + suffix,
					Proto: allRet + " shmem_{N}_" + w.name + "_all" + suffix + "({T} *ivars, size_t nelems, const int *status, int cmp, " + value + ")",
					Body:  all + "goshmem_all({R}, {TI}, " + w.wait + ", ivars, nelems, (void *)status, cmp, " + args + ");"},
				Routine{Types: syncTypes, Generic: "shmem_" + w.name + "_any" + suffix,
					Proto: "size_t shmem_{N}_" + w.name + "_any" + suffix + "({T} *ivars, size_t nelems, const int *status, int cmp, " + value + ")",
					Body:  "return goshmem_any({R}, {TI}, " + w.wait + ", ivars, nelems, (void *)status, cmp, " + args + ");"},
				Routine{Types: syncTypes, Generic: "shmem_" + w.name + "_some" + suffix,
					Proto: "size_t shmem_{N}_" + w.name + "_some" + suffix + "({T} *ivars, size_t nelems, size_t *indices, const int *status, int cmp, " + value + ")",
					Body:  "return goshmem_some({R}, {TI}, " + w.wait + ", ivars, nelems, indices, (void *)status, cmp, " + args + ");"},
			)
		}
	}
	return rs
}

// reduceRoutines are the reductions of every operation of tables.Ops over its family:
// the team form (toAll false) or the active-set form. long double's are longdouble.c's,
// with a combiner generated from the operation's expression.
func reduceRoutines(toAll bool) []Routine {
	var rs []Routine
	for i := range tables.Ops {
		op := &tables.Ops[i]
		r := Routine{Op: op, Types: reduceTypes(*op, toAll)}
		if toAll {
			r.Proto = "void shmem_{N}_{OP}_to_all({T} *dest, const {T} *source, int nreduce, int PE_start, int logPE_stride, int PE_size, {T} *pWrk, long *pSync)"
			r.Body = "goshmem_to_all({R}, {OPI}, {TI}, dest, (void *)source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync);"
			r.NoGo = "goshmem_ld_to_all({R}, goshmem_ld_{OP}, dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync);"
		} else {
			r.Generic = "shmem_{OP}_reduce"
			r.Proto = "int shmem_{N}_{OP}_reduce(shmem_team_t team, {T} *dest, const {T} *source, size_t nreduce)"
			r.Body = "return goshmem_reduce({R}, {OPI}, {TI}, (uintptr_t)team, dest, (void *)source, nreduce);"
			r.NoGo = "return goshmem_ld_reduce({R}, goshmem_ld_{OP}, team, dest, source, nreduce);"
		}
		r.Generic = strings.ReplaceAll(r.Generic, "{OP}", op.Name)
		rs = append(rs, r)
	}
	return rs
}
