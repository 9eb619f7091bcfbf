/* A PE whose own code faults: argv[1] is segv (a store through NULL in store_through),
 * fpe (an integer division by zero in divide), or raise (SIGSEGV sent by the process
 * itself); PE 1 faults, PE 0 waits in a barrier. TestFaultReport checks the report. */
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

__attribute__((noinline)) void store_through(int *p) { *p = 42; }
__attribute__((noinline)) int divide(int a, int b) { return a / b; }

int main(int argc, char **argv) {
	shmem_init();
	if (shmem_my_pe() == 1 && argc > 1) {
		/* argc - 2 is 0: a NULL and a zero the compiler cannot see. */
		if (strcmp(argv[1], "segv") == 0) store_through((int *)(uintptr_t)(argc - 2));
		if (strcmp(argv[1], "fpe") == 0) return divide(argc, argc - 2);
		if (strcmp(argv[1], "raise") == 0) raise(SIGSEGV);
	}
	shmem_barrier_all();
	shmem_finalize();
	return 0;
}
