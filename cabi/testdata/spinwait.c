/* A PE that waits long, in shmem_long_wait_until and in shmem_barrier_all, while the other
 * sleeps: it prints how often its thread was switched out during each wait (its own
 * voluntary and involuntary context switches, from /proc/thread-self/status). A spinning
 * wait keeps its CPU; cabi's TestSpinWaitKeepsCPU bounds the counts. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long switches(void) {
	FILE *f = fopen("/proc/thread-self/status", "r");
	char line[256];
	long n = 0, v;
	if (f == NULL) return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 || sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1) n += v;
	fclose(f);
	return n;
}

int main(void) {
	shmem_init();
	long *flag = shmem_calloc(1, sizeof(long));
	int me = shmem_my_pe();
	shmem_barrier_all();
	long s0 = switches();
	if (me == 0) {
		usleep(300000);
		shmem_long_atomic_set(flag, 1, 1);
	} else {
		shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
	}
	long s1 = switches();
	if (me == 0) usleep(300000);
	shmem_barrier_all();
	long s2 = switches();
	if (me == 1) printf("PE 1: %ld switches in wait_until, %ld in barrier_all\n", s1 - s0, s2 - s1);
	shmem_finalize();
	return 0;
}
