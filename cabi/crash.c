#define _GNU_SOURCE /* dladdr, REG_RIP */
/* Faults in the program's own code. A SIGSEGV, SIGBUS, SIGFPE or SIGILL reaches the Go
 * runtime's handler first; it forwards faults outside Go code to the handler installed
 * before it (for signals it would otherwise kill the process with). Through that forwarding
 * a backtrace stops in the Go runtime's frames (UCX's handler, installed when libucs loads,
 * printed only libgoshmem's forwarder), so the launcher could say no more than "killed by
 * SIGSEGV". This handler, installed by a constructor that runs before the Go runtime's,
 * writes one line naming the fault, its address and the instruction (file + offset, and
 * the symbol when the file exports it), then restores the default action: the process
 * ends by the signal, as it would have without the library. */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "cabi.h"

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

/* " on HOST" in a job across nodes, set by shmem_init (goshmem_fault_where_set). */
static char fault_where[80];

void goshmem_fault_where_set(const char *host)
{
	size_t n = strlen(host);
	if (n == 0 || n + 5 > sizeof fault_where)
		return;
	memcpy(fault_where, " on ", 4);
	memcpy(fault_where + 4, host, n + 1);
}

/* A line is built with these, not printf: they only copy into buf. */
struct line {
	char buf[1024];
	size_t n;
};

static void put(struct line *l, const char *s)
{
	while (*s != 0 && l->n < sizeof l->buf - 1)
		l->buf[l->n++] = *s++;
}

static void put_num(struct line *l, unsigned long v, int hex)
{
	char d[24];
	int i = 0;
	unsigned base = hex ? 16 : 10;
	do {
		d[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	if (hex)
		put(l, "0x");
	while (i > 0 && l->n < sizeof l->buf - 1)
		l->buf[l->n++] = d[--i];
}

static const char *fault_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	}
	return "signal";
}

/* The causes a fault's si_code names; others are left to sigaction(2). */
static const struct {
	int sig, code;
	const char *what;
} fault_causes[] = {
	{SIGSEGV, SEGV_MAPERR, "address not mapped"},
	{SIGSEGV, SEGV_ACCERR, "no permission for the access"},
	{SIGBUS, BUS_ADRALN, "misaligned address"},
	{SIGBUS, BUS_ADRERR, "no such physical address (past the end of a mapped file?)"},
	{SIGFPE, FPE_INTDIV, "integer division by zero"},
	{SIGFPE, FPE_INTOVF, "integer overflow"},
	{SIGILL, ILL_ILLOPC, "illegal opcode"},
	{SIGILL, ILL_PRVOPC, "privileged opcode"},
};

static const char *fault_cause(int sig, int code)
{
	if (code <= 0)
		return "sent by a process";
	for (size_t i = 0; i < sizeof fault_causes / sizeof fault_causes[0]; i++)
		if (fault_causes[i].sig == sig && fault_causes[i].code == code)
			return fault_causes[i].what;
	return "see sigaction(2)";
}

static unsigned long fault_pc(void *uc)
{
	ucontext_t *u = uc;
#if defined(__x86_64__)
	return (unsigned long)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (unsigned long)u->uc_mcontext.pc;
#else
	(void)u;
	return 0;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct line l = {.n = 0};
	put(&l, "goshmem: ");
	if (goshmem_fp.npes > 0) {
		put(&l, "PE ");
		put_num(&l, (unsigned long)goshmem_fp.me, 0);
		put(&l, fault_where);
		put(&l, " ");
	}
	put(&l, "(pid ");
	put_num(&l, (unsigned long)getpid(), 0);
	put(&l, "): ");
	put(&l, fault_name(sig));
	put(&l, " (");
	put(&l, fault_cause(sig, si->si_code));
	put(&l, ")");
	if (si->si_code > 0) {
		put(&l, " at address ");
		put_num(&l, (unsigned long)si->si_addr, 1);
	}
	unsigned long pc = si->si_code > 0 ? fault_pc(uc) : 0; /* a sent signal has no instruction */
	Dl_info di;
	int found = pc != 0 && dladdr((void *)pc, &di) != 0 && di.dli_fname != NULL;
	static char exe[512];
	if (found && di.dli_fname[0] == 0) {
		/* The executable's own map may carry no name: /proc/self/exe names it. */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		di.dli_fname = exe;
	}
	if (found && di.dli_fname[0] != 0) {
		/* addr2line takes a position-independent file's offsets, and a fixed-address
		 * executable's addresses. */
		const unsigned char *elf = di.dli_fbase;
		unsigned long off = pc - (elf[16] == 2 /* e_type ET_EXEC */ ? 0 : (unsigned long)di.dli_fbase);
		put(&l, ", in ");
		if (di.dli_sname != NULL) {
			put(&l, di.dli_sname);
			put(&l, "+");
			put_num(&l, pc - (unsigned long)di.dli_saddr, 1);
			put(&l, " of ");
		}
		put(&l, di.dli_fname);
		put(&l, "\ngoshmem: addr2line -f -e ");
		put(&l, di.dli_fname);
		put(&l, " ");
		put_num(&l, off, 1);
		put(&l, " names the function and line (of a -g build)");
	} else if (pc != 0) {
		put(&l, ", at pc ");
		put_num(&l, pc, 1);
	}
	put(&l, "\n");
	ssize_t w = write(STDERR_FILENO, l.buf, l.n);
	(void)w;
	/* The default action, and back to the instruction: it faults again and ends the
	 * process by the signal (a signal sent by kill is raised again). */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

/* Before the Go runtime's constructor (which has no priority, so runs after): Go then keeps
 * on_fault as the handler it forwards to. (In the static archive this object is linked
 * because shmem_init calls goshmem_fault_where_set.) */
__attribute__((constructor(101))) static void goshmem_install_fault_report(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
		sigaction(fault_signals[i], &sa, NULL);
}
