/*
 * ucx_limit: what raw UCX UCP allows between two PEs on two nodes, the limit column of
 * `bench/compare --nodes` (bench/FORMAT.md, "Across nodes"). Two processes under a PMIx
 * launcher (mpirun); rank 0 measures, rank 1 is the passive target and only progresses its
 * worker (over TCP a put, get or AMO is applied only while the target's worker runs), as
 * the suites' PE 1 does while it waits in the barrier. Each operation is measured twice:
 * with the target polling its worker (ucx_OP), and with the target asleep on the worker's
 * wake-up descriptor between requests (ucx_OP_sleep: ucp_worker_arm + poll). Polling is
 * faster on idle cores; on cores shared with other work a sleeping target is woken at once
 * while a polling one waits for its turn, so the limit is the faster of the two.
 *
 * Each process maps one buffer (ucp_mem_map of its own memory, as goshmem registers its
 * segment), publishes worker address, packed rkey and base through PMIx_Put/Commit/Fence,
 * and connects one endpoint to the other. The operations are the suites' own, with the
 * same sample loop (a sample is `batch` operations timed together, us = median of the
 * samples), but called straight on UCP:
 *   ucx_put 8 B        ucp_put_nbx + ucp_worker_flush_nbx          (put + quiet; the flush
 *                      with UCX_FLUSH_WORKER_EPS=n, as goshmem's, unless set; and
 *                      goshmem's TCP segments, UCX_TCP_TX_SEG_SIZE=64K and
 *                      UCX_TCP_RX_SEG_SIZE=256K, unless set)
 *   ucx_get 8 B        ucp_get_nbx, waited                          (get)
 *   ucx_fetch_add      ucp_atomic_op_nbx(ADD, reply buffer), waited (atomic_fetch_add)
 *   ucx_compare_swap   ucp_atomic_op_nbx(CSWAP), waited             (atomic_compare_swap)
 *   ucx_put_bw 1 MiB   64 x ucp_put_nbx (same dst), worker flush   (put_bw, us per window)
 * and each again with _sleep appended (the target asleep between requests). Three more need
 * rank 1 to answer, polling its worker and a flag in its own buffer (the suites' waits):
 *   ucx_pingpong 8 B   put + flush, wait for the answer's put + flush  (pingpong)
 *   ucx_barrier        an active message to the other, whose handler raises its flag, then
 *                      wait for the other's, both at once (a 2-PE barrier: one message each
 *                      way, the least one can be; the last row: rank 1 sends one round more)
 *   ucx_bcast 64 B     a broadcast root's part (broadcast64 of 8 elements): after a barrier
 *                      as above (not timed), one eager active message of 64 B behind a
 *                      16-byte header, until UCX may reuse the source; rank 1 takes it in its
 *                      handler and starts the next barrier. Only the send is timed, as the
 *                      suites time a call after a barrier.
 * Output: JSON lines of bench/FORMAT.md with impl "limit" on stdout (rank 0 only).
 *
 *   cc -O2 -o ucx_limit ucx_limit.c $(pkg-config --cflags --libs ucx pmix)
 *   mpirun -np 2 --host a:1,b:1 ./ucx_limit [-i SAMPLES] [--json]
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <ucp/api/ucp.h>

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KIB 1024
#define MIB (KIB * KIB)
#define WINDOW 64        /* messages per window of ucx_put_bw, as put_bw */
#define BW_SIZE (1 * MIB) /* the bandwidth row's message size */

/* The registered buffer: [0, BW_SIZE) source, [BW_SIZE, 2*BW_SIZE) destination, then the
 * 8-byte atomics' target, the target's mode word and the mode to send. */
#define OFF_SRC 0
#define OFF_DST BW_SIZE
#define OFF_AMO (2 * BW_SIZE)
#define OFF_MODE (2 * BW_SIZE + 64)
#define OFF_MODE_SRC (2 * BW_SIZE + 128)
#define OFF_PING (2 * BW_SIZE + 192) /* rank 1's flag in pingpong and barrier */
#define OFF_PONG (2 * BW_SIZE + 256) /* rank 0's flag */
#define OFF_SEQ (2 * BW_SIZE + 320)  /* the value to put */
#define OFF_BCAST (2 * BW_SIZE + 384) /* rank 1's count of broadcast messages taken */
#define OFF_BDATA (2 * BW_SIZE + 448) /* where rank 1 takes them (64 B) */
#define BUF_SIZE (2 * BW_SIZE + 512)
#define BCAST_SIZE 64

/* The target's modes, set by rank 0 with a put into its mode word. */
enum { MODE_POLL = 0, MODE_SLEEP = 1, MODE_STOP = 2, MODE_PONG = 3, MODE_BARRIER = 4, MODE_BCAST = 5 };

static ucp_worker_h worker;
static ucp_ep_h ep;
static ucp_rkey_h rkey;
static uint64_t rbase; /* the peer's buffer address */
static char *buf;
static pmix_proc_t me;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "ucx_limit: rank %u: %s: %s\n", me.rank, what, why);
    PMIx_Abort(1, what, NULL, 0);
    exit(1);
}

static void check(ucs_status_t st, const char *what)
{
    if (st != UCS_OK)
        die(what, ucs_status_string(st));
}

/* wait drives the worker until the request is done, then frees it. */
static void wait_req(ucs_status_ptr_t r, const char *what)
{
    if (r == NULL)
        return;
    if (UCS_PTR_IS_ERR(r))
        die(what, ucs_status_string(UCS_PTR_STATUS(r)));
    ucs_status_t st;
    while ((st = ucp_request_check_status(r)) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(r);
    check(st, what);
}

/* release lets a request complete on its own (its completion is awaited by a flush). */
static void release(ucs_status_ptr_t r, const char *what)
{
    if (r == NULL)
        return;
    if (UCS_PTR_IS_ERR(r))
        die(what, ucs_status_string(UCS_PTR_STATUS(r)));
    ucp_request_free(r);
}

static void flush(void)
{
    ucp_request_param_t p = {0};
    wait_req(ucp_worker_flush_nbx(worker, &p), "ucp_worker_flush_nbx");
}

static void put(size_t off_src, size_t off_dst, size_t n)
{
    ucp_request_param_t p = {0};
    release(ucp_put_nbx(ep, buf + off_src, n, rbase + off_dst, rkey, &p), "ucp_put_nbx");
}

static void op_put8(void)
{
    put(OFF_SRC, OFF_DST, 8);
    flush();
}

static void op_get8(void)
{
    ucp_request_param_t p = {0};
    wait_req(ucp_get_nbx(ep, buf + OFF_DST, 8, rbase + OFF_SRC, rkey, &p), "ucp_get_nbx");
}

static void amo(ucp_atomic_op_t op, uint64_t *value, uint64_t *reply)
{
    ucp_request_param_t p = {0};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.datatype = ucp_dt_make_contig(8);
    p.reply_buffer = reply;
    wait_req(ucp_atomic_op_nbx(ep, op, value, 1, rbase + OFF_AMO, rkey, &p), "ucp_atomic_op_nbx");
}

static void op_fetch_add(void)
{
    uint64_t one = 1, old;
    amo(UCP_ATOMIC_OP_ADD, &one, &old);
}

static uint64_t cswap_expect; /* the target's value, so that every compare-swap succeeds */

static void op_compare_swap(void)
{
    uint64_t desired = cswap_expect + 1, reply = cswap_expect;
    amo(UCP_ATOMIC_OP_CSWAP, &desired, &reply);
    cswap_expect = reply == cswap_expect ? desired : reply;
}

static void op_put_bw(void)
{
    for (int w = 0; w < WINDOW; w++)
        put(OFF_SRC, OFF_DST, BW_SIZE);
    flush();
}

/* The active rows: round seq is complete on a rank when its flag reaches seq. */
static uint64_t seq;

static void await_flag(size_t off, uint64_t v)
{
    while (__atomic_load_n((uint64_t *)(buf + off), __ATOMIC_ACQUIRE) < v)
        ucp_worker_progress(worker);
}

/* await_in_mode is await_flag on rank 1, which also leaves when rank 0 changes the mode. */
static void await_in_mode(size_t off, uint64_t v, uint64_t m)
{
    volatile uint64_t *mode = (volatile uint64_t *)(buf + OFF_MODE);
    while (*mode == m && __atomic_load_n((uint64_t *)(buf + off), __ATOMIC_ACQUIRE) < v)
        ucp_worker_progress(worker);
}

static void put_seq(size_t off_dst)
{
    *(uint64_t *)(buf + OFF_SEQ) = seq;
    put(OFF_SEQ, off_dst, 8);
    flush();
}

/* The barrier's message: its handler raises the receiver's own flag (rank 0's is OFF_PONG,
 * rank 1's OFF_PING). */
#define AM_RAISE 1

static ucs_status_t on_raise(void *arg, const void *header, size_t hlen, void *data, size_t len,
                             const ucp_am_recv_param_t *param)
{
    (void)arg, (void)header, (void)hlen, (void)data, (void)len, (void)param;
    __atomic_add_fetch((uint64_t *)(buf + (me.rank == 0 ? OFF_PONG : OFF_PING)), 1, __ATOMIC_RELEASE);
    return UCS_OK;
}

/* The broadcast row's message: its handler copies the data and counts it (rank 1). */
#define AM_BCAST 2

static ucs_status_t on_bcast(void *arg, const void *header, size_t hlen, void *data, size_t len,
                             const ucp_am_recv_param_t *param)
{
    (void)arg, (void)header, (void)hlen, (void)param;
    memcpy(buf + OFF_BDATA, data, len < BCAST_SIZE ? len : BCAST_SIZE);
    __atomic_add_fetch((uint64_t *)(buf + OFF_BCAST), 1, __ATOMIC_RELEASE);
    return UCS_OK;
}

static void raise_other(void)
{
    ucp_request_param_t p = {0};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, AM_RAISE, NULL, 0, NULL, 0, &p);
    wait_req(r, "ucp_am_send_nbx"); /* local completion: nothing to keep */
}

/* Rank 0's side; rank 1 runs the mirror image in its MODE_PONG / MODE_BARRIER loop. */
static void op_pingpong(void)
{
    seq++;
    put_seq(OFF_PING);
    await_flag(OFF_PONG, seq);
}

static void op_barrier(void)
{
    seq++;
    raise_other();
    await_flag(OFF_PONG, seq);
}

static double now_us(void);

/* untimed_us is the time a row's operation spent on what the suites do not time (the
 * barrier before a broadcast); measure takes it off. */
static double untimed_us;

static void op_bcast(void)
{
    double t0 = now_us();
    op_barrier();
    untimed_us += now_us() - t0;
    struct {
        uint64_t key, from;
    } hdr = {OFF_BDATA, 0};
    ucp_request_param_t p = {0};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, AM_BCAST, &hdr, sizeof hdr, buf + OFF_SRC, BCAST_SIZE, &p);
    wait_req(r, "ucp_am_send_nbx"); /* until the source may be reused, as a broadcast root */
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct test {
    const char *op;
    size_t size;
    int batch, iters, warmup;
    enum { RATE_NONE, RATE_MBPS, RATE_MOPS } rate;
    void (*run)(void);
    int active; /* the target's mode while measured (MODE_PONG, MODE_BARRIER), 0: passive */
};

static void measure(const struct test *t, const char *suffix, int iters_override)
{
    int iters = iters_override > 0 ? iters_override : t->iters;
    int warmup = iters_override > 0 ? (iters_override + 9) / 10 : t->warmup;
    double *s = calloc(iters, sizeof *s);
    if (s == NULL)
        die("calloc", "out of memory");
    for (int k = 0; k < warmup + iters; k++) {
        untimed_us = 0;
        double t0 = now_us();
        for (int b = 0; b < t->batch; b++)
            t->run();
        double d = (now_us() - t0 - untimed_us) / t->batch;
        if (k >= warmup)
            s[k - warmup] = d;
    }
    qsort(s, iters, sizeof *s, cmp_double);
    double us = iters % 2 ? s[iters / 2] : (s[iters / 2 - 1] + s[iters / 2]) / 2;
    free(s);
    printf("{\"impl\":\"limit\",\"op\":\"%s%s\",\"size\":%zu,\"unit\":\"B\",\"npes\":2,\"iters\":%d,\"batch\":%d,\"us\":%.6g",
           t->op, suffix, t->size, iters, t->batch, us);
    if (t->rate == RATE_MBPS)
        printf(",\"mbps\":%.6g", (double)WINDOW * t->size / us);
    else if (t->rate == RATE_MOPS)
        printf(",\"mops\":%.6g", 1 / us);
    printf("}\n");
    fflush(stdout);
}

static const struct test tests[] = {
    {"ucx_put", 8, 100, 200, 20, RATE_NONE, op_put8, 0},
    {"ucx_get", 8, 100, 200, 20, RATE_NONE, op_get8, 0},
    {"ucx_fetch_add", 8, 100, 200, 20, RATE_MOPS, op_fetch_add, 0},
    {"ucx_compare_swap", 8, 100, 200, 20, RATE_MOPS, op_compare_swap, 0},
    {"ucx_put_bw", BW_SIZE, 1, 20, 2, RATE_MBPS, op_put_bw, 0},
    {"ucx_pingpong", 8, 100, 200, 20, RATE_NONE, op_pingpong, MODE_PONG},
    {"ucx_bcast", BCAST_SIZE, 100, 200, 20, RATE_NONE, op_bcast, MODE_BCAST},
    {"ucx_barrier", 0, 100, 200, 20, RATE_NONE, op_barrier, MODE_BARRIER},
};

/* set_mode puts a mode into the target's mode word (rank 0). */
static void set_mode(uint64_t m)
{
    *(uint64_t *)(buf + OFF_MODE_SRC) = m;
    put(OFF_MODE_SRC, OFF_MODE, 8);
    flush();
}

/* publish puts a byte string under key for the other rank. */
static void publish(const char *key, void *p, size_t n)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = p;
    v.data.bo.size = n;
    if (PMIx_Put(PMIX_GLOBAL, key, &v) != PMIX_SUCCESS)
        die("PMIx_Put", key);
}

/* fetch gets the peer's byte string under key (a copy the caller frees). */
static void *fetch(const pmix_proc_t *peer, const char *key, size_t *n)
{
    pmix_value_t *v;
    if (PMIx_Get(peer, key, NULL, 0, &v) != PMIX_SUCCESS || v->type != PMIX_BYTE_OBJECT)
        die("PMIx_Get", key);
    void *p = malloc(v->data.bo.size);
    if (p == NULL)
        die("malloc", "out of memory");
    memcpy(p, v->data.bo.bytes, v->data.bo.size);
    *n = v->data.bo.size;
    PMIX_VALUE_RELEASE(v);
    return p;
}

static volatile int fence_done;
static pmix_status_t fence_status;

static void fence_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    fence_status = status;
    fence_done = 1;
}

/* fence is PMIx_Fence across both ranks, collecting the published data when collect is
 * set. With progress set it keeps the UCX worker running until the fence completes: the
 * peer may still wait for this side's acknowledgement of its last operation (over TCP the
 * target's worker sends it), and blocking here would hang both. */
static void fence(int collect, int progress)
{
    pmix_info_t info;
    bool flag = collect != 0;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    fence_done = 0;
    if (PMIx_Fence_nb(NULL, 0, &info, 1, fence_cb, NULL) != PMIX_SUCCESS)
        die("PMIx_Fence_nb", "failed");
    while (!fence_done)
        if (progress)
            ucp_worker_progress(worker);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (fence_status != PMIX_SUCCESS)
        die("PMIx_Fence_nb", PMIx_Error_string(fence_status));
    PMIX_INFO_DESTRUCT(&info);
}

int main(int argc, char **argv)
{
    int iters = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            continue; /* JSON is the only output; accepted for the suites' command line */
        if (strcmp(argv[i], "-i") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end != 0 || v < 1 || v > 1000000) {
                fprintf(stderr, "ucx_limit: -i: want a count in [1,1000000], have %s\n", argv[i]);
                return 2;
            }
            iters = (int)v;
            continue;
        }
        fprintf(stderr, "usage: ucx_limit [-i SAMPLES] [--json] (under a PMIx launcher, 2 ranks)\n");
        return 2;
    }
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "ucx_limit: PMIx_Init failed: start it with mpirun -np 2\n");
        return 1;
    }
    pmix_proc_t wild, peer;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
        die("PMIx_Get", PMIX_JOB_SIZE);
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (size != 2)
        die("job size", "want exactly 2 ranks, one per node");
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);

    /* A worker flush that waits for the worker's outstanding requests only, without
     * flushing each endpoint (over TCP a zero-length put and its acknowledgement more per
     * flush), as goshmem's quiet does (runtime/ucx/engine.c, ucx_defaults); still remote
     * completion. The user's setting wins. */
    setenv("UCX_FLUSH_WORKER_EPS", "n", 0);
    /* goshmem's TCP segments (ucx_defaults): large puts in 64K messages, read 256K at a
     * time, instead of UCX's 8K and 64K. The user's settings win. */
    setenv("UCX_TCP_TX_SEG_SIZE", "64K", 0);
    setenv("UCX_TCP_RX_SEG_SIZE", "256K", 0);
    ucp_params_t params = {0};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    ucp_context_h ctx;
    check(ucp_init(&params, NULL, &ctx), "ucp_init");
    ucp_worker_params_t wp = {0};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    check(ucp_worker_create(ctx, &wp, &worker), "ucp_worker_create");
    ucp_am_handler_param_t hp = {0};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB;
    hp.id = AM_RAISE;
    hp.cb = on_raise;
    check(ucp_worker_set_am_recv_handler(worker, &hp), "ucp_worker_set_am_recv_handler");
    hp.id = AM_BCAST;
    hp.cb = on_bcast;
    check(ucp_worker_set_am_recv_handler(worker, &hp), "ucp_worker_set_am_recv_handler");

    if (posix_memalign((void **)&buf, 4096, BUF_SIZE) != 0)
        die("posix_memalign", "out of memory");
    memset(buf, 0, BUF_SIZE);
    for (size_t i = 0; i < BW_SIZE; i++)
        buf[OFF_SRC + i] = (char)(i * 7 + me.rank);
    ucp_mem_map_params_t mp = {0};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = buf;
    mp.length = BUF_SIZE;
    ucp_mem_h mem;
    check(ucp_mem_map(ctx, &mp, &mem), "ucp_mem_map");
    void *rkey_buf;
    size_t rkey_len;
    check(ucp_rkey_pack(ctx, mem, &rkey_buf, &rkey_len), "ucp_rkey_pack");
    ucp_address_t *addr;
    size_t addr_len;
    check(ucp_worker_get_address(worker, &addr, &addr_len), "ucp_worker_get_address");
    uint64_t base = (uint64_t)(uintptr_t)buf;
    publish("gs.limit.addr", addr, addr_len);
    publish("gs.limit.rkey", rkey_buf, rkey_len);
    publish("gs.limit.base", &base, sizeof base);
    if (PMIx_Commit() != PMIX_SUCCESS)
        die("PMIx_Commit", "failed");
    fence(1, 0);

    size_t n;
    void *peer_addr = fetch(&peer, "gs.limit.addr", &n);
    void *peer_rkey = fetch(&peer, "gs.limit.rkey", &n);
    uint64_t *peer_base = fetch(&peer, "gs.limit.base", &n);
    if (n != sizeof *peer_base)
        die("PMIx_Get", "gs.limit.base has the wrong size");
    rbase = *peer_base;
    ucp_ep_params_t ep_params = {0};
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep_params.address = peer_addr;
    check(ucp_ep_create(worker, &ep_params, &ep), "ucp_ep_create");
    check(ucp_ep_rkey_unpack(ep, peer_rkey, &rkey), "ucp_ep_rkey_unpack");

    volatile uint64_t *mode = (volatile uint64_t *)(buf + OFF_MODE);
    if (me.rank == 0) {
        size_t ntests = sizeof tests / sizeof tests[0];
        for (size_t i = 0; i < ntests; i++) {
            fprintf(stderr, "[limit] %zu/%zu %s\n", i + 1, ntests, tests[i].op);
            if (tests[i].active) {
                /* Rank 1 answers every round until the mode changes. Both ranks count
                 * rounds on across the active rows: a put carries the round's number, an
                 * add raises the flag by one, so each flag equals the last round. */
                set_mode(tests[i].active);
                measure(&tests[i], "", iters);
                if (tests[i].active == MODE_BCAST)
                    /* Rank 1 starts one barrier more after the last message: complete it
                     * before the mode changes, or the next row's rounds would start offset
                     * by one (a round trip each instead of a message each way at once). */
                    op_barrier();
                set_mode(MODE_POLL);
                continue;
            }
            set_mode(MODE_POLL);
            measure(&tests[i], "", iters);
            set_mode(MODE_SLEEP);
            measure(&tests[i], "_sleep", iters);
        }
        set_mode(MODE_STOP);
    } else {
        int efd;
        check(ucp_worker_get_efd(worker, &efd), "ucp_worker_get_efd");
        for (uint64_t m; (m = *mode) != MODE_STOP;) {
            if (m == MODE_POLL) {
                ucp_worker_progress(worker);
                continue;
            }
            if (m == MODE_PONG) {
                /* Answer round seq+1 once it arrives; leave when rank 0 changes the mode. */
                uint64_t next = seq + 1;
                while (*mode == m) {
                    if (__atomic_load_n((uint64_t *)(buf + OFF_PING), __ATOMIC_ACQUIRE) < next) {
                        ucp_worker_progress(worker);
                        continue;
                    }
                    seq = next++;
                    put_seq(OFF_PONG);
                }
                continue;
            }
            if (m == MODE_BARRIER || m == MODE_BCAST) {
                /* A barrier: send round seq+1's message at once, then wait for rank 0's; the
                 * round after the last one is sent too (MODE_BARRIER: its message is never
                 * awaited, this row is the last; MODE_BCAST: rank 0 completes it before it
                 * changes the mode). In MODE_BCAST each round is followed by the broadcast's
                 * message. */
                uint64_t taken = *(volatile uint64_t *)(buf + OFF_BCAST);
                while (*mode == m) {
                    raise_other();
                    seq++;
                    await_in_mode(OFF_PING, seq, m);
                    if (m == MODE_BCAST)
                        await_in_mode(OFF_BCAST, ++taken, m);
                }
                continue;
            }
            while (ucp_worker_progress(worker) != 0)
                ;
            ucs_status_t st = ucp_worker_arm(worker);
            if (st == UCS_ERR_BUSY)
                continue; /* events came in meanwhile */
            check(st, "ucp_worker_arm");
            struct pollfd pfd = {.fd = efd, .events = POLLIN};
            poll(&pfd, 1, 100);
        }
    }
    fence(0, 1); /* neither side tears down while the other still needs it */

    ucp_rkey_destroy(rkey);
    /* A flushing close; the peer closing at the same time may reset the connection first,
     * which is no error here: every measurement is done (the fence above). */
    ucp_request_param_t cp = {0};
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &cp);
    if (r != NULL && !UCS_PTR_IS_ERR(r)) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS)
            ucp_worker_progress(worker);
        ucp_request_free(r);
    }
    ucp_worker_release_address(worker, addr);
    ucp_rkey_buffer_release(rkey_buf);
    ucp_mem_unmap(ctx, mem);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    free(peer_addr);
    free(peer_rkey);
    free(peer_base);
    free(buf);
    PMIx_Finalize(NULL, 0);
    return 0;
}
