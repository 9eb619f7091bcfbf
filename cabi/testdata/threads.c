/* Thread levels and locks between threads. argv[1] is the level shmem_init_thread asks for
 * (an invalid one is an error); at SHMEM_THREAD_MULTIPLE, 4 threads of every PE increment a
 * counter on PE 0 under one lock, by a non-atomic get and put (TestThreads). */
#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define EACH 200

static long lock, counter;

static void *work(void *arg)
{
	long t = (long)arg;
	for (int i = 0; i < EACH; i++) {
		if ((t + i) % 4 == 0)
			while (shmem_test_lock(&lock) != 0)
				;
		else
			shmem_set_lock(&lock);
		long v = shmem_long_g(&counter, 0);
		sched_yield(); /* the PE's other threads try the lock now */
		shmem_long_p(&counter, v + 1, 0);
		shmem_clear_lock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int requested = argc > 1 ? atoi(argv[1]) : SHMEM_THREAD_MULTIPLE, provided = -1, queried = -1;
	if (shmem_init_thread(requested, &provided) != 0)
		return 1;
	shmem_query_thread(&queried);
	int me = shmem_my_pe(), npes = shmem_n_pes();
	printf("PE %d: requested %d, provided %d, queried %d\n", me, requested, provided, queried);
	if (provided == SHMEM_THREAD_MULTIPLE) {
		pthread_t th[THREADS];
		for (long t = 0; t < THREADS; t++)
			pthread_create(&th[t], NULL, work, (void *)t);
		for (int t = 0; t < THREADS; t++)
			pthread_join(th[t], NULL);
		shmem_barrier_all();
		if (me == 0)
			printf("counter %ld of %d\n", counter, npes * THREADS * EACH);
	}
	shmem_finalize();
	return 0;
}
