//go:build goshmem_ucx && cgo && linux

#include "engine.h"
#include <pmix.h>
#include <ucp/api/ucp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

static pmix_proc_t self;

int gsx_pmix_init(uint32_t *rank, uint32_t *size, char *nspace, size_t nslen) {
	pmix_status_t rc = PMIx_Init(&self, NULL, 0);
	if (rc != PMIX_SUCCESS) return rc;
	pmix_proc_t wild;
	PMIX_LOAD_PROCID(&wild, self.nspace, PMIX_RANK_WILDCARD);
	pmix_value_t *v;
	if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) != PMIX_SUCCESS) return rc;
	*size = v->data.uint32;
	PMIX_VALUE_RELEASE(v);
	*rank = self.rank;
	snprintf(nspace, nslen, "%s", self.nspace);
	return 0;
}

// gsx_pmix_local_peers writes the comma-separated ranks on this node (PMIX_LOCAL_PEERS).
int gsx_pmix_local_peers(char *buf, size_t len) {
	pmix_proc_t wild;
	PMIX_LOAD_PROCID(&wild, self.nspace, PMIX_RANK_WILDCARD);
	pmix_value_t *v;
	pmix_status_t rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &v);
	if (rc != PMIX_SUCCESS) return rc;
	if (v->type != PMIX_STRING || strlen(v->data.string) >= len) { PMIX_VALUE_RELEASE(v); return -1; }
	snprintf(buf, len, "%s", v->data.string);
	PMIX_VALUE_RELEASE(v);
	return 0;
}

int gsx_pmix_put(const char *key, const void *p, size_t n) {
	pmix_value_t val;
	PMIX_VALUE_CONSTRUCT(&val);
	val.type = PMIX_BYTE_OBJECT;
	val.data.bo.bytes = (char *)p;
	val.data.bo.size = n;
	return PMIx_Put(PMIX_GLOBAL, key, &val);
}

int gsx_pmix_commit(void) { return PMIx_Commit(); }

// gsx_pmix_get returns a malloc'ed copy of rank's value for key in *p (the caller frees it).
int gsx_pmix_get(uint32_t rank, const char *key, void **p, size_t *n) {
	pmix_proc_t proc;
	PMIX_LOAD_PROCID(&proc, self.nspace, rank);
	pmix_value_t *v;
	pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &v);
	if (rc != PMIX_SUCCESS) return rc;
	if (v->type != PMIX_BYTE_OBJECT) { PMIX_VALUE_RELEASE(v); return PMIX_ERR_TYPE_MISMATCH; }
	*n = v->data.bo.size;
	*p = malloc(*n ? *n : 1);
	memcpy(*p, v->data.bo.bytes, *n);
	PMIX_VALUE_RELEASE(v);
	return 0;
}

// The start-up fence runs non-blocking, so that the Go side can say how long it waits (a
// PE that ended before shmem_init keeps the others in it until the launcher's own timeout).
static volatile int fence_done;
static volatile pmix_status_t fence_rc;
static pmix_info_t fence_info; // kept until the fence completes: it may still read it

static void fence_cb(pmix_status_t status, void *cbdata) {
	(void)cbdata;
	fence_rc = status;
	__atomic_store_n(&fence_done, 1, __ATOMIC_RELEASE);
}

// gsx_pmix_fence_start starts a fence collecting every PE's published values: 0 started,
// 1 already complete, else a PMIx error.
int gsx_pmix_fence_start(void) {
	bool collect = true;
	fence_done = 0;
	PMIX_INFO_LOAD(&fence_info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	pmix_status_t rc = PMIx_Fence_nb(NULL, 0, &fence_info, 1, fence_cb, NULL);
	if (rc == PMIX_OPERATION_SUCCEEDED) return 1;
	return rc == PMIX_SUCCESS ? 0 : rc;
}

// gsx_pmix_fence_poll: 0 while the fence runs; once it completed 1, its result in *status.
int gsx_pmix_fence_poll(int *status) {
	if (!__atomic_load_n(&fence_done, __ATOMIC_ACQUIRE)) return 0;
	*status = fence_rc;
	return 1;
}

void gsx_pmix_abort(int status, const char *msg) { PMIx_Abort(status, msg, NULL, 0); }
void gsx_pmix_finalize(void) { PMIx_Finalize(NULL, 0); }

// UCX: one context, one registration of this PE's segment, workers (the default one and one
// per communication context), each with an endpoint and an unpacked rkey per remote PE.

static ucp_context_h ctx;
static int wakeup; // UCP_FEATURE_WAKEUP: every worker has a wake-up descriptor
static ucp_mem_h memh;
static char *seg_base; // this PE's segment: the target of other PEs' strided messages
static size_t seg_len;

struct gsx_worker {
	ucp_worker_h w;
	int efd;
	int npes;
	ucp_ep_h *ep;
	ucp_rkey_h *rkey;
	uint64_t *base;
	uint64_t discard; // the reply of posted swaps nobody reads
	// What a flush waits for (engine.h). A collective's signals do not count as unflushed:
	// their receiver waits for them, and a barrier's quiet would otherwise wait a round
	// trip for the previous barrier's signal.
	gsx_flush_state fs;
	gsx_worker *next; // all workers, for progress_others
};

// The first worker made is the default one, the worker other PEs' requests reach; the
// others (one per communication context) are linked behind it. Every wait, and every
// progress of the default worker, progresses them all: the Go side's server is parked while
// the PE is in the library, and over TCP a context worker that nobody progresses stalls its
// peers (two PEs waiting on their contexts' flushes hung, and a PE that had read through a
// context no longer received the next barrier's signal until its context worker ran).
static gsx_worker *serving;

static unsigned send_answers(void);
static ucs_status_t set_handlers(gsx_worker *w);
static int wait_answered(gsx_worker *w);
static void free_mails(void);
static int prime(ucp_ep_h ep);

// progress progresses one worker, then sends the answers its handlers queued.
static unsigned progress(gsx_worker *w) { return ucp_worker_progress(w->w) + send_answers(); }

// progress_others progresses every worker but w; the number of events.
static unsigned progress_others(gsx_worker *w) {
	unsigned n = 0;
	for (gsx_worker *o = serving; o != NULL; o = o->next)
		if (o != w) n += progress(o);
	return n;
}

// UCX settings the engine makes where the user made none (the user's settings win), each
// for its reason; gsx_init sets them before UCX reads its configuration.
static const struct { const char *name, *value; } ucx_defaults[] = {
	// AMOs from every PE of a job must be atomic with each other: node-local PEs use CPU
	// atomics on the shared segment, so remote ones must too (a NIC's atomics are not
	// coherent with the CPU's).
	{"UCX_ATOMIC_MODE", "cpu"},
	// A worker flush (shmem_quiet) waits for the worker's own count of RMA and AMO requests
	// not yet completed remotely (over TCP a put or AMO travels as a message its target
	// answers once it applied it) and for every transport to complete what it has in
	// flight (a TCP put of the zero-copy kind stays in flight until its target's
	// acknowledgement): that is quiet's remote completion. UCX's default
	// (FLUSH_WORKER_EPS=y) also flushes each endpoint in turn, one per progress call, and
	// over TCP an endpoint's flush is a zero-length put its target must acknowledge: two
	// more messages per quiet, each costing its sender and receiver system calls and a
	// trip through the network stack. Measured on two fake nodes (TCP): 4 messages per put
	// + quiet instead of 2, and a P + Quiet / WaitUntil round trip took 45.5 us instead
	// of 35.5 us (Open MPI's OSHMEM, whose worker also has an endpoint to itself that the
	// walk flushes first, so that the answer often comes before the walk reaches the peer,
	// sent the extra put on half of its quiets: 40 us). The walk bounds a flush's time
	// when other threads keep posting on the worker (none does here: the Go side holds
	// the worker's lock through the whole quiet) or incoming messages keep it sending
	// (here only short answers, each done once written to its socket).
	// shmem_pe_quiet's endpoint flushes (gsx_flush_pes) are not affected.
	{"UCX_FLUSH_WORKER_EPS", "n"},
	// Over TCP UCX emulates RMA with active messages, and a put or a get's reply larger than
	// a send segment (UCX_TCP_TX_SEG_SIZE, 8K by default) travels as one message per
	// segment, each with its header and its own system calls; the receiver reads at most a
	// receive segment per call (UCX_TCP_RX_SEG_SIZE, 64K). Measured with bench/ucxlimit
	// across two fake nodes, 64 puts of 1 MiB and a flush: 87-93 ms with UCX's defaults,
	// 18 ms with these (3.6 GB/s); the small operations' latencies did not change. The
	// price is memory: a receive segment per connection whose message is still arriving
	// (256 KiB x the peers sending at once).
	{"UCX_TCP_TX_SEG_SIZE", "64K"},
	{"UCX_TCP_RX_SEG_SIZE", "256K"},
};

// gsx_settings returns (malloc'ed) the settings of ucx_defaults as the environment holds
// them, "NAME=value" separated by spaces ("NAME=" where unset): SHMEM_INFO's line.
char *gsx_settings(void) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t i = 0; i < sizeof ucx_defaults / sizeof ucx_defaults[0]; i++) {
		const char *v = getenv(ucx_defaults[i].name);
		fprintf(f, "%s%s=%s", i ? " " : "", ucx_defaults[i].name, v ? v : "");
	}
	fclose(f);
	return buf;
}

int gsx_init(void *seg, size_t len, int wake) {
	wakeup = wake;
	for (size_t i = 0; i < sizeof ucx_defaults / sizeof ucx_defaults[0]; i++)
		setenv(ucx_defaults[i].name, ucx_defaults[i].value, 0);
	ucp_config_t *cfg;
	ucs_status_t s = ucp_config_read(NULL, NULL, &cfg);
	if (s != UCS_OK) return s;
	ucp_params_t p;
	memset(&p, 0, sizeof p);
	p.field_mask = UCP_PARAM_FIELD_FEATURES;
	p.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | (wakeup ? UCP_FEATURE_WAKEUP : 0);
	s = ucp_init(&p, cfg, &ctx);
	ucp_config_release(cfg);
	if (s != UCS_OK) return s;
	seg_base = seg;
	seg_len = len;
	ucp_mem_map_params_t mp;
	memset(&mp, 0, sizeof mp);
	mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
	mp.address = seg;
	mp.length = len;
	mp.flags = UCP_MEM_MAP_NONBLOCK; // do not pin the whole heap up front on RDMA hardware
	return ucp_mem_map(ctx, &mp, &memh);
}

int gsx_rkey(void **p, size_t *n) {
	void *rk;
	ucs_status_t s = ucp_rkey_pack(ctx, memh, &rk, n);
	if (s != UCS_OK) return s;
	*p = malloc(*n);
	memcpy(*p, rk, *n);
	ucp_rkey_buffer_release(rk);
	return 0;
}

int gsx_worker_new(gsx_worker **out, int npes) {
	gsx_worker *w = calloc(1, sizeof *w);
	w->npes = npes;
	w->efd = -1;
	w->ep = calloc(npes, sizeof *w->ep);
	w->rkey = calloc(npes, sizeof *w->rkey);
	w->base = calloc(npes, sizeof *w->base);
	ucp_worker_params_t wp;
	memset(&wp, 0, sizeof wp);
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SERIALIZED; // goroutines take turns under the Go side's lock
	ucs_status_t s = ucp_worker_create(ctx, &wp, &w->w);
	if (s != UCS_OK) { free(w->ep); free(w->rkey); free(w->base); free(w); return s; }
	if (wakeup && (s = ucp_worker_get_efd(w->w, &w->efd)) != UCS_OK) return s;
	if ((s = set_handlers(w)) != UCS_OK) return s;
	if (serving == NULL) serving = w;
	else { w->next = serving->next; serving->next = w; }
	*out = w;
	return 0;
}

int gsx_worker_address(gsx_worker *w, void **p, size_t *n) {
	ucp_address_t *a;
	ucs_status_t s = ucp_worker_get_address(w->w, &a, n);
	if (s != UCS_OK) return s;
	*p = malloc(*n);
	memcpy(*p, a, *n);
	ucp_worker_release_address(w->w, a);
	return 0;
}

// The first PE whose endpoint failed (its process ended or its node went away), or -1.
static volatile int failed_pe = -1;
static volatile int failed_status;

static void ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status) {
	int pe = (int)(intptr_t)arg;
	if (__atomic_load_n(&failed_pe, __ATOMIC_ACQUIRE) < 0) {
		failed_status = status;
		__atomic_store_n(&failed_pe, pe, __ATOMIC_RELEASE);
	}
}

int gsx_failed(void) { return __atomic_load_n(&failed_pe, __ATOMIC_ACQUIRE); }
int gsx_failed_status(void) { return failed_status; }

int gsx_connect(gsx_worker *w, int pe, const void *addr, const void *rkey, uint64_t base) {
	ucp_ep_params_t ep;
	memset(&ep, 0, sizeof ep);
	ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.address = addr;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER; // a peer that ends is reported, not waited for
	ep.err_handler.cb = ep_failed;
	ep.err_handler.arg = (void *)(intptr_t)pe;
	ucs_status_t s = ucp_ep_create(w->w, &ep, &w->ep[pe]);
	if (s != UCS_OK) return s;
	w->base[pe] = base;
	if ((s = prime(w->ep[pe])) != UCS_OK) return s;
	return ucp_ep_rkey_unpack(w->ep[pe], rkey, &w->rkey[pe]);
}

static int yield_in_wait;

// gsx_set_yield makes waits yield the CPU between idle polls (PEs share CPUs: the peer that
// must answer may need this one).
void gsx_set_yield(int y) { yield_in_wait = y; }

// wait_step is one turn of a wait for w: every worker progressed, the CPU yielded when
// nothing happened and PEs share CPUs.
static void wait_step(gsx_worker *w) {
	if (progress(w) + progress_others(w) == 0 && yield_in_wait) sched_yield();
}

// wait completes a request, progressing the worker.
static int wait(gsx_worker *w, ucs_status_ptr_t r) {
	if (r == NULL) return 0;
	if (UCS_PTR_IS_ERR(r)) return UCS_PTR_STATUS(r);
	ucs_status_t s;
	do {
		wait_step(w);
		s = ucp_request_check_status(r);
	} while (s == UCS_INPROGRESS);
	ucp_request_free(r);
	return s;
}

// release hands a request back without waiting: the next flush completes it.
static int release(ucs_status_ptr_t r) {
	if (r == NULL) return 0;
	if (UCS_PTR_IS_ERR(r)) return UCS_PTR_STATUS(r);
	ucp_request_free(r);
	return 0;
}

static const ucp_request_param_t noparam;

// gsx_put starts a put; wait_local waits until src may be reused (the put's request), not
// for the remote side (a flush does that).
int gsx_put(gsx_worker *w, int pe, uint64_t off, const void *src, size_t n, int wait_local) {
	w->fs.unflushed = 1;
	ucs_status_ptr_t r = ucp_put_nbx(w->ep[pe], src, n, w->base[pe] + off, w->rkey[pe], &noparam);
	return wait_local ? wait(w, r) : release(r);
}

int gsx_get(gsx_worker *w, int pe, uint64_t off, void *dst, size_t n, int block) {
	if (!block) w->fs.unflushed = 1;
	ucs_status_ptr_t r = ucp_get_nbx(w->ep[pe], dst, n, w->base[pe] + off, w->rkey[pe], &noparam);
	return block ? wait(w, r) : release(r);
}

// gsx_amo: op is goshmem's AMO code (fetch, set, swap, cswap, fetch-add, and, or, xor).
// Without GSX_FETCH (and for ops UCX can post) the operation is only started; a flush
// completes it, unless it is a collective's signal (GSX_SIGNAL), which no flush waits for
// and which, alone, travels as a message (see "Signals").
gsx_result gsx_amo(gsx_worker *w, int pe, uint64_t off, int op, int size, uint64_t v, uint64_t cond, int flags) {
	int fetch = flags & GSX_FETCH;
	gsx_result res = {0, 0};
	if ((flags & GSX_SIGNAL) && !(flags & GSX_AFTER_DATA) && size == 8 && (op == 1 || op == 4)) {
		res.status = gsx_put_signal(w, pe, 0, 0, NULL, 0, 0, 0, off, op == 4, v); // a set or an add, alone
		return res;
	}
	static const ucp_atomic_op_t ops[] = {UCP_ATOMIC_OP_OR, UCP_ATOMIC_OP_SWAP, UCP_ATOMIC_OP_SWAP, UCP_ATOMIC_OP_CSWAP,
	                                      UCP_ATOMIC_OP_ADD, UCP_ATOMIC_OP_AND, UCP_ATOMIC_OP_OR, UCP_ATOMIC_OP_XOR};
	ucp_atomic_op_t o = ops[op];
	uint64_t x = op == 0 ? 0 : (op == 3 ? cond : v);
	uint32_t x32 = (uint32_t)x;
	uint64_t reply = v; // cswap's new value travels in the reply buffer
	uint32_t reply32 = (uint32_t)v;
	ucp_request_param_t p;
	memset(&p, 0, sizeof p);
	p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
	p.datatype = ucp_dt_make_contig(size);
	// Without fetch, add and the bitwise ops are posted; a set (a swap: UCX has no plain
	// atomic store) too, its reply going to a word nobody reads.
	int post = !fetch && o != UCP_ATOMIC_OP_CSWAP;
	if (post && o == UCP_ATOMIC_OP_SWAP) {
		p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
		p.reply_buffer = &w->discard;
	} else if (!post) {
		p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
		p.reply_buffer = size == 8 ? (void *)&reply : (void *)&reply32;
	}
	ucs_status_ptr_t r = ucp_atomic_op_nbx(w->ep[pe], o, size == 8 ? (void *)&x : (void *)&x32, 1, w->base[pe] + off, w->rkey[pe], &p);
	if (post) {
		if (!(flags & GSX_SIGNAL)) w->fs.unflushed = 1;
		res.status = release(r);
		return res;
	}
	res.status = wait(w, r);
	res.old = size == 8 ? reply : reply32;
	return res;
}

// gsx_g gets size bytes into a word (a scalar get).
gsx_result gsx_g(gsx_worker *w, int pe, uint64_t off, size_t size) {
	gsx_result res = {0, 0};
	res.status = gsx_get(w, pe, off, &res.old, size, 1);
	return res;
}

// gsx_p puts the size low bytes of v (a scalar put: no Go memory crosses into C).
int gsx_p(gsx_worker *w, int pe, uint64_t off, uint64_t v, size_t size) {
	return gsx_put(w, pe, off, &v, size, 1);
}

int gsx_flush(gsx_worker *w) {
	int s = 0;
	if (w->fs.unflushed) {
		s = wait(w, ucp_worker_flush_nbx(w->w, &noparam));
		if (s == 0) w->fs.unflushed = 0;
	}
	return s ? s : wait_answered(w);
}

// gsx_fence: a strided message is complete only when its target answers, which UCX's fence
// knows nothing of; so those still unanswered are waited for.
int gsx_fence(gsx_worker *w) {
	int s = wait_answered(w);
	return s ? s : ucp_worker_fence(w->w);
}

// gsx_flush_pes completes the worker's operations to the PEs pes only (shmem_pe_quiet):
// each endpoint's flush is started, in batches, then waited for; an endpoint not made (a
// PE of my node, reached through shared memory) has nothing to flush. Strided messages
// are waited for whichever PE they went to (their answers are counted per worker).
int gsx_flush_pes(gsx_worker *w, const int *pes, int n) {
	if (!w->fs.unflushed) return wait_answered(w);
	enum { batch = 64 };
	ucs_status_ptr_t r[batch];
	int rc = 0;
	for (int i = 0; i < n; i += batch) {
		int k = 0;
		for (int j = i; j < n && j < i + batch; j++) {
			if (pes[j] < 0 || pes[j] >= w->npes || w->ep[pes[j]] == NULL) continue;
			r[k++] = ucp_ep_flush_nbx(w->ep[pes[j]], &noparam);
		}
		for (int j = 0; j < k; j++) {
			int s = wait(w, r[j]);
			if (s != 0 && rc == 0) rc = s;
		}
	}
	return rc ? rc : wait_answered(w);
}
gsx_flush_state *gsx_worker_flush_state(gsx_worker *w) { return &w->fs; }

int gsx_workers(void) {
	int n = 0;
	for (gsx_worker *o = serving; o != NULL; o = o->next) n++;
	return n;
}

int gsx_progress(gsx_worker *w) { return progress(w) + (w == serving ? progress_others(w) : 0); }
int gsx_arm(gsx_worker *w) { return ucp_worker_arm(w->w); }
int gsx_efd(gsx_worker *w) { return w->efd; }

// gsx_wait_event sleeps until the worker has events (or timeout_ms); the caller armed it.
int gsx_wait_event(gsx_worker *w, int timeout_ms) {
	struct pollfd pfd = {.fd = w->efd, .events = POLLIN};
	return poll(&pfd, 1, timeout_ms);
}

void gsx_worker_free(gsx_worker *w) {
	wait_answered(w);
	wait(w, ucp_worker_flush_nbx(w->w, &noparam));
	// Signals and mail too, which a worker flush sees sent, not received (see
	// UCX_FLUSH_WORKER_EPS in ucx_defaults): the endpoints close next, so each is flushed
	// (over TCP a zero-length put acknowledged after everything sent before it).
	for (int pe = 0; pe < w->npes; pe++)
		if (w->ep[pe]) wait(w, ucp_ep_flush_nbx(w->ep[pe], &noparam));
	ucp_request_param_t p;
	memset(&p, 0, sizeof p);
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	p.flags = UCP_EP_CLOSE_FLAG_FORCE;
	for (int pe = 0; pe < w->npes; pe++) {
		if (w->rkey[pe]) ucp_rkey_destroy(w->rkey[pe]);
		if (w->ep[pe]) wait(w, ucp_ep_close_nbx(w->ep[pe], &p));
	}
	for (gsx_worker **o = &serving; *o != NULL; o = &(*o)->next)
		if (*o == w) { *o = w->next; break; }
	ucp_worker_destroy(w->w);
	free(w->ep); free(w->rkey); free(w->base); free(w);
}

void gsx_fini(void) {
	free_mails();
	ucp_mem_unmap(ctx, memh);
	ucp_cleanup(ctx);
}

const char *gsx_status(int s) { return ucs_status_string((ucs_status_t)s); }
const char *gsx_pmix_error(int s) { return PMIx_Error_string((pmix_status_t)s); }
const char *gsx_version(void) { return ucp_get_version_string(); }

char *gsx_ep_info(gsx_worker *w, int pe) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ucp_ep_print_info(w->ep[pe], f);
	fclose(f);
	return buf;
}

// Strided transfers. UCX's remote side is contiguous, so a strided destination (iput) or
// source (iget) would take one message per element. Instead the elements travel packed in
// active messages of up to AM_CHUNK bytes, and the target scatters (iput) or gathers (iget)
// them itself in the message's handler, which runs when its worker progresses (as RMA over
// TCP is applied). Completion is the target's answer: an iput is remotely complete, for
// quiet and fence, once its target sent AM_DONE (after writing the elements); an iget once
// the gathered elements arrived (AM_IGOT). The handlers only queue answers: sends from
// inside a handler would run in the progress context; progress() sends them after.
enum { AM_IPUT = 1, AM_IGET, AM_DONE, AM_IGOT, AM_SIGNAL, AM_MAIL, AM_FLAG, AM_EXIT, AM_PRIME };
#define AM_CHUNK 16384

typedef struct {
	uint64_t off, stride, n, size; // the target's elements: offset in its segment, byte stride
	uint64_t dst, dst_stride;     // iget: where the answer goes on the requester
} am_hdr;

// in_segment says whether n elements of size bytes every stride bytes from off lie in this
// PE's segment (a sender computed them from its own checked arguments; a target trusts no
// wire blindly).
static int in_segment(const am_hdr *h) {
	if (h->n == 0 || h->size == 0 || h->off > seg_len) return 0;
	uint64_t span;
	if (__builtin_mul_overflow(h->n - 1, h->stride, &span) || __builtin_add_overflow(span, h->size, &span)) return 0;
	return span <= seg_len - h->off;
}

static void scatter(char *dst, size_t stride, const char *src, size_t n, size_t size) {
	if (stride == size || n == 1) { memcpy(dst, src, n * size); return; }
	for (size_t i = 0; i < n; i++) memcpy(dst + i * stride, src + i * size, size);
}

static void gather(char *dst, const char *src, size_t stride, size_t n, size_t size) {
	if (stride == size || n == 1) { memcpy(dst, src, n * size); return; }
	for (size_t i = 0; i < n; i++) memcpy(dst + i * size, src + i * stride, size);
}

// An answer a handler queued: its endpoint (the requester's worker), id and header.
typedef struct { ucp_ep_h ep; unsigned id; am_hdr h; } answer;
static answer *answers;
static size_t nanswers, capanswers;
// answer_lost ends the job: an answer that cannot be queued or sent for want of memory
// would leave its requester waiting forever.
static void answer_lost(void) {
	fprintf(stderr, "goshmem: out of memory answering another PE's strided transfer\n");
	gsx_pmix_abort(1, "goshmem: out of memory answering another PE's strided transfer");
	abort();
}

static void queue_answer(ucp_ep_h ep, unsigned id, const am_hdr *h) {
	if (nanswers == capanswers) {
		size_t c = capanswers ? 2 * capanswers : 16;
		answer *a = realloc(answers, c * sizeof *a);
		if (a == NULL) answer_lost();
		answers = a;
		capanswers = c;
	}
	answers[nanswers++] = (answer){ep, id, *h};
}

// sent frees a message's buffer (its header and payload) once UCX is done with it.
static void sent(void *req, ucs_status_t status, void *buf) { free(buf); }

// send_block sends one eager message whose header (hlen bytes) and payload (len bytes)
// follow each other in buf, a malloc'ed block it takes over; reply asks UCX for the
// endpoint back to this worker.
static int send_block(ucp_ep_h ep, unsigned id, void *buf, size_t hlen, size_t len, int reply) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof p);
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	p.flags = UCP_AM_SEND_FLAG_EAGER | (reply ? UCP_AM_SEND_FLAG_REPLY : 0);
	p.cb.send = sent;
	p.user_data = buf;
	ucs_status_ptr_t r = ucp_am_send_nbx(ep, id, buf, hlen, len ? (char *)buf + hlen : NULL, len, &p);
	if (r == NULL) { free(buf); return 0; }
	if (UCS_PTR_IS_ERR(r)) { free(buf); return UCS_PTR_STATUS(r); }
	ucp_request_free(r); // completes later; sent() frees buf
	return 0;
}

// am_send sends a strided transfer's message: an am_hdr, then len bytes of payload.
static int am_send(ucp_ep_h ep, unsigned id, am_hdr *buf, size_t len, int reply) {
	return send_block(ep, id, buf, sizeof *buf, len, reply);
}

static unsigned send_answers(void) {
	unsigned n = 0;
	while (nanswers > 0) {
		answer a = answers[--nanswers];
		size_t len = a.id == AM_IGOT ? a.h.n * a.h.size : 0;
		am_hdr *buf = malloc(sizeof *buf + len);
		if (buf == NULL) answer_lost();
		*buf = a.h;
		if (a.id == AM_IGOT) // gathered now: a get's value is any from its call to its return
			gather((char *)(buf + 1), seg_base + a.h.off, a.h.stride, a.h.n, a.h.size);
		am_send(a.ep, a.id, buf, len, 0); // a failed send: the requester's endpoint failed
		n++;
	}
	return n;
}

static ucs_status_t on_iput(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	am_hdr h;
	memcpy(&h, header, sizeof h);
	if (hlen != sizeof h || !in_segment(&h) || len != h.n * h.size || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
		fprintf(stderr, "goshmem: a malformed strided put reached this PE (dropped)\n");
		return UCS_OK;
	}
	scatter(seg_base + h.off, h.stride, data, h.n, h.size);
	queue_answer(param->reply_ep, AM_DONE, &h);
	return UCS_OK;
}

static ucs_status_t on_iget(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	am_hdr h;
	memcpy(&h, header, sizeof h);
	if (hlen != sizeof h || !in_segment(&h) || (h.n > 1 && h.n * h.size > AM_CHUNK) || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
		fprintf(stderr, "goshmem: a malformed strided get reached this PE (dropped)\n");
		return UCS_OK;
	}
	queue_answer(param->reply_ep, AM_IGOT, &h);
	return UCS_OK;
}

static ucs_status_t on_done(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	((gsx_worker *)arg)->fs.am_done++;
	return UCS_OK;
}

static ucs_status_t on_igot(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	am_hdr h;
	memcpy(&h, header, sizeof h);
	if (hlen == sizeof h && len == h.n * h.size) // dst is this PE's own pointer, sent out by gsx_iget
		scatter((char *)(uintptr_t)h.dst, h.dst_stride, data, h.n, h.size);
	((gsx_worker *)arg)->fs.am_done++;
	return UCS_OK;
}

// Signals. A collective's signal is a message whose handler adds to (or sets) a word of
// the target's segment, after placing the data the message may carry (n elements of size
// bytes, every stride bytes from off: a strided destination is scattered there): one
// message one way, where an atomic over TCP takes a request and a reply, and data and its
// signal need no fence between them (the handler orders them). The receiver waits for the
// word, so no answer is needed: no quiet waits for a signal.
typedef struct {
	am_hdr d;          // the data: d.n elements of d.size bytes to d.off every d.stride
	uint64_t sig, v;   // then word sig (an offset, 8-byte aligned) gets v
	uint64_t add;      // added (1) or stored (0)
} sig_hdr;

// A signal without data is a flag_hdr alone (AM_FLAG): sig's offset with the add bit in
// its low bit (the word is 8-byte aligned), then v. Sent from the stack for immediate
// completion, as most short messages complete; one UCX cannot take at once goes as a
// sig_hdr (AM_SIGNAL) in a block of its own.
typedef struct { uint64_t sig_add, v; } flag_hdr;

// send_now sends one eager message straight from its header and payload (the caller's
// memory, the stack or Go's) if UCX can complete it at once: no block to allocate, copy and
// free on completion. Anything else (UCS_ERR_NO_RESOURCE most often: too long for a short
// message, or the endpoint is busy) is the caller's to send as a block.
static int send_now(gsx_worker *w, int pe, unsigned id, const void *hdr, size_t hlen, const void *data, size_t len) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof p);
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
	p.flags = UCP_AM_SEND_FLAG_EAGER;
	ucs_status_ptr_t r = ucp_am_send_nbx(w->ep[pe], id, hdr, hlen, len ? data : NULL, len, &p);
	if (r == NULL) return 0;
	if (!UCS_PTR_IS_ERR(r)) return wait(w, r); // not expected: the buffers stay in use until done
	return UCS_PTR_STATUS(r);
}

static int send_flag(gsx_worker *w, int pe, uint64_t sig, int add, uint64_t v) {
	flag_hdr h = {sig | (add != 0), v};
	return send_now(w, pe, AM_FLAG, &h, sizeof h, NULL, 0);
}

static ucs_status_t on_flag(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	flag_hdr h;
	memcpy(&h, header, hlen < sizeof h ? hlen : sizeof h);
	uint64_t sig = h.sig_add & ~(uint64_t)7;
	if (hlen != sizeof h || len != 0 || (h.sig_add & 6) != 0 || seg_len < 8 || sig > seg_len - 8) {
		fprintf(stderr, "goshmem: a malformed signal reached this PE (dropped)\n");
		return UCS_OK;
	}
	uint64_t *word = (uint64_t *)(seg_base + sig);
	if (h.sig_add & 1) __atomic_fetch_add(word, h.v, __ATOMIC_SEQ_CST);
	else __atomic_store_n(word, h.v, __ATOMIC_SEQ_CST);
	return UCS_OK;
}

int gsx_put_signal(gsx_worker *w, int pe, uint64_t off, size_t dst_stride, const char *src, size_t src_stride, size_t n, size_t size, uint64_t sig, int add, uint64_t v) {
	if ((n == 0 || size == 0) && send_flag(w, pe, sig, add, v) == 0)
		return 0; // else (most often UCS_ERR_NO_RESOURCE) the block's send below reports a failure
	size_t len;
	if (__builtin_mul_overflow(n, size, &len)) return UCS_ERR_INVALID_PARAM;
	if (len == 0) n = 0; // a signal alone (or an empty block): no data to place
	sig_hdr h = {.d = {.off = off, .stride = dst_stride, .n = n, .size = size}, .sig = sig, .v = v, .add = add != 0};
	if ((n <= 1 || src_stride == size) && send_now(w, pe, AM_SIGNAL, &h, sizeof h, src, len) == 0)
		return 0; // a contiguous source sent at once; else as a block (a failure reported there)
	sig_hdr *buf = malloc(sizeof *buf + len);
	if (buf == NULL) return UCS_ERR_NO_MEMORY;
	*buf = h;
	if (len) gather((char *)(buf + 1), src, src_stride, n, size);
	return send_block(w->ep[pe], AM_SIGNAL, buf, sizeof *buf, len, 0);
}

static ucs_status_t on_signal(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	sig_hdr h;
	memcpy(&h, header, hlen < sizeof h ? hlen : sizeof h);
	int ok = hlen == sizeof h && h.sig % 8 == 0 && h.sig <= seg_len - 8 &&
	         (h.d.n == 0 ? len == 0 : in_segment(&h.d) && len / h.d.n == h.d.size && len % h.d.n == 0);
	if (!ok) {
		fprintf(stderr, "goshmem: a malformed signal reached this PE (dropped)\n");
		return UCS_OK;
	}
	if (h.d.n) scatter(seg_base + h.d.off, h.d.stride, data, h.d.n, h.d.size);
	uint64_t *word = (uint64_t *)(seg_base + h.sig);
	if (h.add) __atomic_fetch_add(word, h.v, __ATOMIC_SEQ_CST);
	else __atomic_store_n(word, h.v, __ATOMIC_SEQ_CST);
	return UCS_OK;
}

// Mail. A network phase's message its receiver may not be ready for (the receiver of a
// broadcast may still read the last one's result where this one would land, a partner of a
// recursive doubling may still combine an earlier call's data): the handler keeps it, in
// arrival order, until the receiver takes it by sender and key (the symmetric address of
// the word that names the channel), MPI's unexpected-message queue in small. The sender
// needs no sign that the receiver is ready, so it returns once the message is sent.
typedef struct { uint64_t key; uint64_t from; } mail_hdr;
typedef struct mail {
	struct mail *next;
	uint64_t key, from;
	size_t len;
	char data[] __attribute__((aligned(16)));
} mail;
static mail *mails, **mails_end = &mails; // under the Go side's worker lock, as every handler
// mails_come counts the messages kept: a receiver polls it without the lock, and takes
// (gsx_mail_take, with the lock) only when it moved.
static uint64_t mails_come;
uint64_t *gsx_mail_count(void) { return &mails_come; }

int gsx_mail(gsx_worker *w, int pe, int from, uint64_t key, const void *src, size_t n) {
	mail_hdr h = {.key = key, .from = (uint64_t)from};
	if (send_now(w, pe, AM_MAIL, &h, sizeof h, src, n) == 0) return 0; // else as a block
	mail_hdr *buf = malloc(sizeof *buf + n);
	if (buf == NULL) return UCS_ERR_NO_MEMORY;
	*buf = h;
	if (n) memcpy(buf + 1, src, n);
	return send_block(w->ep[pe], AM_MAIL, buf, sizeof *buf, n, 0);
}

static ucs_status_t on_mail(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	mail_hdr h;
	if (hlen != sizeof h) {
		fprintf(stderr, "goshmem: a malformed collective message reached this PE (dropped)\n");
		return UCS_OK;
	}
	memcpy(&h, header, sizeof h);
	mail *m = malloc(sizeof *m + len);
	if (m == NULL) { // its receiver would wait forever
		fprintf(stderr, "goshmem: out of memory keeping another PE's collective message\n");
		gsx_pmix_abort(1, "goshmem: out of memory keeping another PE's collective message");
		abort();
	}
	*m = (mail){.key = h.key, .from = h.from, .len = len};
	if (len) memcpy(m->data, data, len);
	*mails_end = m;
	mails_end = &m->next;
	__atomic_add_fetch(&mails_come, 1, __ATOMIC_RELEASE);
	return UCS_OK;
}

gsx_mail_msg gsx_mail_take(int from, uint64_t key) {
	for (mail **p = &mails; *p != NULL; p = &(*p)->next) {
		mail *m = *p;
		if (m->from != (uint64_t)from || m->key != key) continue;
		*p = m->next;
		if (mails_end == &m->next) mails_end = p;
		return (gsx_mail_msg){m->data, m->len, 0};
	}
	return (gsx_mail_msg){NULL, 0, 0};
}

void gsx_mail_free(void *data) {
	if (data != NULL) free((char *)data - offsetof(mail, data));
}

// free_mails drops the messages nobody took (the job ends).
static void free_mails(void) {
	while (mails != NULL) {
		mail *m = mails;
		mails = m->next;
		free(m);
	}
	mails_end = &mails;
}

// Global exit notices (AM_EXIT). A PE in shmem_global_exit tells every PE on another node
// its status before it asks the launcher to end the job: the launcher's request travels
// through the node daemons, and a PE that sees the caller's connection fail first would
// otherwise end the job as a lost PE's, with status 1 (1 run in 5 of a test on fake nodes).
typedef struct { int32_t status, from; } exit_hdr;
static volatile int32_t exit_status = -1, exit_from = -1;

static ucs_status_t on_exit_notice(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	exit_hdr h;
	memcpy(&h, header, hlen < sizeof h ? hlen : sizeof h);
	if (hlen != sizeof h || h.status < 0 || h.status > 255) {
		fprintf(stderr, "goshmem: a malformed exit notice reached this PE (dropped)\n");
		return UCS_OK;
	}
	__atomic_store_n(&exit_from, h.from, __ATOMIC_RELAXED);
	__atomic_store_n(&exit_status, h.status, __ATOMIC_RELEASE);
	return UCS_OK;
}

int gsx_exit_status(void) { return __atomic_load_n(&exit_status, __ATOMIC_ACQUIRE); }
int gsx_exit_from(void) { return __atomic_load_n(&exit_from, __ATOMIC_RELAXED); }

void gsx_notice_exit(gsx_worker *w, int me, int status) {
	for (int pe = 0; pe < w->npes; pe++) {
		if (pe == me || w->ep[pe] == NULL) continue; // a PE of my node sees the shared exit request
		exit_hdr *h = malloc(sizeof *h);
		if (h == NULL) return;
		*h = (exit_hdr){status, me};
		send_block(w->ep[pe], AM_EXIT, h, sizeof *h, 0, 0); // a failed endpoint: that PE is gone
	}
	// Out of this PE before the launcher ends it, for at most 200 ms (a peer gone or stopped
	// must not hold the exit).
	ucs_status_ptr_t r = ucp_worker_flush_nbx(w->w, &noparam);
	if (r == NULL || UCS_PTR_IS_ERR(r)) return;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ucp_worker_progress(w->w);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (ucp_request_check_status(r) == UCS_INPROGRESS && (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
	ucp_request_free(r);
}

// Priming (AM_PRIME). Linux's TCP receiver acknowledges at once whenever more than its
// estimate of the sender's segment size arrived unacknowledged. The estimate starts at 536
// bytes and grows only when a segment at least that long arrives; our connections carry
// none before the program sends one (the job's start-up exchanges go through PMIx), so a
// barrier's flag and a 512-byte broadcast behind it were acknowledged at once, every time:
// across fake nodes, whose receive path runs in the sender's system call, the broadcast's
// root took 10.4 us where 6.5 with the estimate grown (Open MPI's OSHMEM grows it with its
// start-up exchanges over UCX). So every endpoint starts with one message of PRIME_LEN
// bytes, more than a segment of a standard Ethernet MTU, which its receiver drops (on
// other transports it is merely 2 KiB per endpoint at start). The kernel may later learn a
// smaller estimate from the program's own traffic.
#define PRIME_LEN 2048

static int prime(ucp_ep_h ep) {
	char *buf = calloc(1, PRIME_LEN);
	if (buf == NULL) return UCS_ERR_NO_MEMORY;
	return send_block(ep, AM_PRIME, buf, 0, PRIME_LEN, 0);
}

static ucs_status_t on_prime(void *arg, const void *header, size_t hlen, void *data, size_t len, const ucp_am_recv_param_t *param) {
	return UCS_OK;
}

static ucs_status_t set_handlers(gsx_worker *w) {
	static const ucp_am_recv_callback_t cbs[] = {[AM_IPUT] = on_iput, [AM_IGET] = on_iget, [AM_DONE] = on_done, [AM_IGOT] = on_igot, [AM_SIGNAL] = on_signal, [AM_MAIL] = on_mail, [AM_FLAG] = on_flag, [AM_EXIT] = on_exit_notice, [AM_PRIME] = on_prime};
	for (unsigned id = AM_IPUT; id <= AM_PRIME; id++) {
		ucp_am_handler_param_t p;
		memset(&p, 0, sizeof p);
		p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
		p.id = id;
		p.flags = UCP_AM_FLAG_WHOLE_MSG;
		p.cb = cbs[id];
		p.arg = w;
		ucs_status_t s = ucp_worker_set_am_recv_handler(w->w, &p);
		if (s != UCS_OK) return s;
	}
	return UCS_OK;
}

// wait_answered progresses until every strided message of w was answered; a failed peer
// ends the wait with an error instead of a hang.
static int wait_answered(gsx_worker *w) {
	while (w->fs.am_done != w->fs.am_sent) {
		wait_step(w);
		if (gsx_failed() >= 0) return failed_status ? failed_status : UCS_ERR_CONNECTION_RESET;
	}
	return 0;
}

// per_msg is the elements of size bytes one message carries.
static size_t per_msg(size_t size) { return size >= AM_CHUNK ? 1 : AM_CHUNK / size; }

// gsx_iput puts n elements of size bytes, every src_stride bytes from src, to every
// dst_stride bytes from off on PE pe. A contiguous destination takes one put (the source
// packed first when strided); a strided one goes packed in messages its target scatters.
// It returns once src may be reused; quiet completes it.
int gsx_iput(gsx_worker *w, int pe, uint64_t off, size_t dst_stride, const char *src, size_t src_stride, size_t n, size_t size) {
	if (dst_stride == size || n == 1) {
		if (src_stride == size || n == 1) return gsx_put(w, pe, off, src, n * size, 1);
		char *buf = malloc(n * size);
		if (buf == NULL) return UCS_ERR_NO_MEMORY;
		gather(buf, src, src_stride, n, size);
		int s = gsx_put(w, pe, off, buf, n * size, 1);
		free(buf);
		return s;
	}
	for (size_t i = 0, k = per_msg(size); i < n; i += k) {
		size_t m = n - i < k ? n - i : k;
		am_hdr *buf = malloc(sizeof *buf + m * size);
		if (buf == NULL) return UCS_ERR_NO_MEMORY;
		*buf = (am_hdr){.off = off + i * dst_stride, .stride = dst_stride, .n = m, .size = size};
		gather((char *)(buf + 1), src + i * src_stride, src_stride, m, size);
		int s = am_send(w->ep[pe], AM_IPUT, buf, m * size, 1);
		if (s) return s;
		w->fs.am_sent++;
	}
	return 0;
}

// gsx_iget is gsx_iput's mirror: a contiguous source takes one get (unpacked here), a
// strided one requests messages its target gathers; it returns with dst complete.
int gsx_iget(gsx_worker *w, int pe, uint64_t off, size_t src_stride, char *dst, size_t dst_stride, size_t n, size_t size) {
	if (src_stride == size || n == 1) {
		if (dst_stride == size || n == 1) return gsx_get(w, pe, off, dst, n * size, 1);
		char *buf = malloc(n * size);
		if (buf == NULL) return UCS_ERR_NO_MEMORY;
		int s = gsx_get(w, pe, off, buf, n * size, 1);
		if (s == 0) scatter(dst, dst_stride, buf, n, size);
		free(buf);
		return s;
	}
	for (size_t i = 0, k = per_msg(size); i < n; i += k) {
		size_t m = n - i < k ? n - i : k;
		am_hdr *buf = malloc(sizeof *buf);
		if (buf == NULL) return UCS_ERR_NO_MEMORY;
		*buf = (am_hdr){.off = off + i * src_stride, .stride = src_stride, .n = m, .size = size,
		                .dst = (uint64_t)(uintptr_t)(dst + i * dst_stride), .dst_stride = dst_stride};
		int s = am_send(w->ep[pe], AM_IGET, buf, 0, 1);
		if (s) return s;
		w->fs.am_sent++;
	}
	return wait_answered(w);
}

// Polled waits. A network wait whose condition is one word of this PE's memory reaching a
// value, or a kept message, is polled here between progress calls instead of from Go:
// each call into the engine from Go costs about 0.3 us right after the network stack ran
// (its caches cold), and a poll from Go pays one between a message's arrival and its
// waiter noticing (a 2-PE barrier across fake nodes took 0.35 us more with the poll in
// Go). Each returns after at most polls progress calls, so that the Go side keeps its
// checks (a lost peer, the job's end, hang reports) and its sleeping for long waits.

static int word_ge(const uint64_t *word, uint64_t e) { return __atomic_load_n(word, __ATOMIC_ACQUIRE) >= e; }

// lock_wanted counts the Go side's goroutines waiting for the worker's lock (another
// goroutine of the PE with an operation to start): a poll returns early for them.
static uint32_t lock_wanted;
uint32_t *gsx_lock_wanted(void) { return &lock_wanted; }
static int wanted(void) { return __atomic_load_n(&lock_wanted, __ATOMIC_RELAXED) != 0; }

int gsx_poll_ge(gsx_worker *w, const uint64_t *word, uint64_t e, int polls) {
	for (int i = 0; i < polls && !word_ge(word, e) && !wanted(); i++)
		gsx_progress(w);
	return word_ge(word, e);
}

int gsx_signal_poll_ge(gsx_worker *w, int pe, uint64_t sig, int add, uint64_t v, const uint64_t *word, uint64_t e, int polls) {
	int s = gsx_put_signal(w, pe, 0, 0, NULL, 0, 0, 0, sig, add, v);
	return s ? s : gsx_poll_ge(w, word, e, polls);
}

gsx_mail_msg gsx_mail_poll(gsx_worker *w, void *done, int to, int me, uint64_t key_out, const void *src, size_t n, int from, uint64_t key, int polls) {
	gsx_mail_free(done);
	if (to >= 0) {
		int s = gsx_mail(w, to, me, key_out, src, n);
		if (s) return (gsx_mail_msg){NULL, 0, s};
	}
	uint64_t seen = ~(uint64_t)0;
	for (int i = 0;; i++) {
		uint64_t c = __atomic_load_n(&mails_come, __ATOMIC_ACQUIRE);
		if (c != seen) { // else nothing came since the last look
			gsx_mail_msg m = gsx_mail_take(from, key);
			if (m.data != NULL) return m;
			seen = c;
		}
		if (i == polls || wanted()) return (gsx_mail_msg){NULL, 0, 0};
		gsx_progress(w);
	}
}

