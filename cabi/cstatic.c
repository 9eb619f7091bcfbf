/* The C side of symmetric static data (see static.go): find the executable's writable data
 * segment, and move its pages into the symmetric heap. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cabi.h"

struct search {
	struct goshmem_segment *seg;
	uintptr_t probe; /* an address of libgoshmem's code */
};

static uintptr_t page_down(uintptr_t a, uintptr_t pg) { return a & ~(pg - 1); }
static uintptr_t page_up(uintptr_t a, uintptr_t pg) { return (a + pg - 1) & ~(pg - 1); }

/* The first object dl_iterate_phdr reports is the executable. */
static int executable(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct search *s = data;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = 0, hi = 0, relro_end = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			if (s->probe >= a && s->probe < a + ph->p_memsz)
				s->seg->linked_in = 1;
			/* The last writable segment is the data segment (.data and .bss). */
			if (ph->p_flags & PF_W) {
				lo = a;
				hi = a + ph->p_memsz;
			}
		} else if (ph->p_type == PT_GNU_RELRO) {
			relro_end = a + ph->p_memsz;
		}
	}
	s->seg->seg_lo = lo;
	s->seg->seg_hi = hi;
	if (hi > lo) {
		/* The loader made the RELRO pages read-only, up to the page holding its end. */
		uintptr_t start = page_down(lo, pg);
		if (relro_end > lo && relro_end <= hi)
			start = page_down(relro_end, pg);
		s->seg->lo = start;
		s->seg->size = page_up(hi, pg) - start;
	}
	return 1;
}

void goshmem_data_segment(struct goshmem_segment *seg)
{
	memset(seg, 0, sizeof *seg);
	struct search s = {seg, (uintptr_t)&goshmem_data_segment};
	dl_iterate_phdr(executable, &s);
}

static int page_is_zero(const unsigned char *p, uintptr_t n)
{
	const uint64_t *w = (const uint64_t *)p;
	for (uintptr_t i = 0; i < n / 8; i++)
		if (w[i])
			return 0;
	return 1;
}

/* goshmem_data_move copies [lo, lo+size) to twin, whose pages are the shared object's at
 * offset off, then maps those pages over lo: the variables keep their addresses and values.
 * The twin is fresh heap memory, all zero, so zero pages (most of .bss) are not copied.
 * Nothing else may write the program's static data meanwhile: shmem_init runs before the
 * program starts threads of its own, and the Go runtime's variables live in libgoshmem. It
 * returns 0 or an errno. */
int goshmem_data_move(uintptr_t lo, uintptr_t size, void *twin, int fd, long off)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (uintptr_t i = 0; i < size; i += pg)
		if (!page_is_zero((const unsigned char *)(lo + i), pg))
			memcpy((unsigned char *)twin + i, (const void *)(lo + i), pg);
	void *p = mmap((void *)lo, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off);
	return p == MAP_FAILED ? errno : 0;
}
