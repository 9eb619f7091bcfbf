// The C half of package ucx: PMIx for the bootstrap, UCX UCP for the data. Kept small:
// each function is one engine step with its completion loop, so a Go call costs one cgo
// transition, not one per UCX call.
#include <stddef.h>
#include <stdint.h>

// PMIx
int gsx_pmix_init(uint32_t *rank, uint32_t *size, char *nspace, size_t nslen);
int gsx_pmix_local_peers(char *buf, size_t len);
int gsx_pmix_put(const char *key, const void *p, size_t n);
int gsx_pmix_commit(void);
int gsx_pmix_get(uint32_t rank, const char *key, void **p, size_t *n);
int gsx_pmix_fence_start(void);
int gsx_pmix_fence_poll(int *status);
void gsx_pmix_abort(int status, const char *msg);
void gsx_pmix_finalize(void);

// UCX
typedef struct gsx_worker gsx_worker;
// What a flush of a worker waits for, read by the Go side without a call (Worker.Flushed):
// strided messages sent and answered by their target (see "Strided transfers"), and
// whether operations a flush must complete were started since the last one (unflushed).
// Written only with the worker locked; am_done by the handlers its progress runs.
typedef struct { uint64_t am_sent, am_done, unflushed; } gsx_flush_state;
gsx_flush_state *gsx_worker_flush_state(gsx_worker *w);
int gsx_init(void *seg, size_t len, int wakeup);
char *gsx_settings(void); // the UCX settings gsx_init makes unless set, as now set (free it)
int gsx_rkey(void **p, size_t *n);
int gsx_worker_new(gsx_worker **w, int npes);
int gsx_worker_address(gsx_worker *w, void **p, size_t *n);
int gsx_failed(void);
int gsx_failed_status(void); // once gsx_failed is not -1
// gsx_notice_exit tells every PE with an endpoint that PE me ends the job with status
// (shmem_global_exit); gsx_exit_status is such a notice's status (-1: none came), from its PE.
void gsx_notice_exit(gsx_worker *w, int me, int status);
int gsx_exit_status(void);
int gsx_exit_from(void);
int gsx_connect(gsx_worker *w, int pe, const void *addr, const void *rkey, uint64_t base);
int gsx_put(gsx_worker *w, int pe, uint64_t off, const void *src, size_t n, int wait_local);
int gsx_get(gsx_worker *w, int pe, uint64_t off, void *dst, size_t n, int wait);
int gsx_iput(gsx_worker *w, int pe, uint64_t off, size_t dst_stride, const char *src, size_t src_stride, size_t n, size_t size);
int gsx_iget(gsx_worker *w, int pe, uint64_t off, size_t src_stride, char *dst, size_t dst_stride, size_t n, size_t size);
typedef struct { uint64_t old; int status; } gsx_result;
// gsx_amo's flags: GSX_SIGNAL a collective's signal (no flush waits for it; an add or set
// of 8 bytes travels as a message), GSX_AFTER_DATA one that follows data the caller fenced
// (an atomic: a message might overtake RMA on another lane).
enum { GSX_FETCH = 1, GSX_SIGNAL = 2, GSX_AFTER_DATA = 4 };
gsx_result gsx_amo(gsx_worker *w, int pe, uint64_t off, int op, int size, uint64_t v, uint64_t cond, int flags);
// gsx_put_signal sends n elements of size bytes, every src_stride bytes from src, to every
// dst_stride bytes from offset off of PE pe, then adds v to (add) or stores v into the
// word at offset sig there, in one message; the receiver waits for the word.
int gsx_put_signal(gsx_worker *w, int pe, uint64_t off, size_t dst_stride, const char *src, size_t src_stride, size_t n, size_t size, uint64_t sig, int add, uint64_t v);
// gsx_mail sends n bytes from src to PE pe as a message kept there until taken by sender
// (from, my PE) and key; gsx_mail_take unlinks the oldest such message and returns its
// bytes (NULL when none has come), to be released by gsx_mail_free.
int gsx_mail(gsx_worker *w, int pe, int from, uint64_t key, const void *src, size_t n);
typedef struct { void *data; size_t len; int status; } gsx_mail_msg; // by value: no Go pointer into C
gsx_mail_msg gsx_mail_take(int from, uint64_t key);
void gsx_mail_free(void *data);
uint64_t *gsx_mail_count(void); // messages kept so far (an atomic counter)
gsx_result gsx_g(gsx_worker *w, int pe, uint64_t off, size_t size);
int gsx_p(gsx_worker *w, int pe, uint64_t off, uint64_t v, size_t size);
void gsx_set_yield(int y);
int gsx_flush(gsx_worker *w);
int gsx_flush_pes(gsx_worker *w, const int *pes, int n);
int gsx_fence(gsx_worker *w);
int gsx_progress(gsx_worker *w);
// Polled waits: progress w up to polls times until the word holds at least e (1: it does),
// gsx_signal_poll_ge after sending a signal (as gsx_put_signal without data; a negative
// status if the send failed), gsx_mail_poll until it takes a message as gsx_mail_take,
// after freeing done (a message taken before, or NULL) and, when to >= 0, mailing n bytes
// from src to PE to under key_out as gsx_mail (a failed send: status, no message).
// A poll returns early while the counter gsx_lock_wanted points to is not 0 (goroutines
// waiting for the worker's lock on the Go side).
uint32_t *gsx_lock_wanted(void);
int gsx_poll_ge(gsx_worker *w, const uint64_t *word, uint64_t e, int polls);
int gsx_signal_poll_ge(gsx_worker *w, int pe, uint64_t sig, int add, uint64_t v, const uint64_t *word, uint64_t e, int polls);
gsx_mail_msg gsx_mail_poll(gsx_worker *w, void *done, int to, int me, uint64_t key_out, const void *src, size_t n, int from, uint64_t key, int polls);
int gsx_workers(void);
int gsx_arm(gsx_worker *w);
int gsx_efd(gsx_worker *w);
int gsx_wait_event(gsx_worker *w, int timeout_ms);
void gsx_worker_free(gsx_worker *w);
void gsx_fini(void);
const char *gsx_status(int s);
const char *gsx_pmix_error(int s);
const char *gsx_version(void);
char *gsx_ep_info(gsx_worker *w, int pe);
