/* pmixinfo: what a PMIx launcher tells a process, MPI-free. Prints one line:
 *   rank R size N host H localrank L localsize S peers P0,P1,... cpus C bind B
 * (C: the CPUs it may run on; B: $GOSHMEM_BIND_TO or "-").
 * Built and run by the fakenodes tests across fake nodes. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpus: Cpus_allowed_list of /proc/self/status, or "?" */
static void cpus(char *buf, size_t len) {
	char line[512];
	FILE *f = fopen("/proc/self/status", "r");
	snprintf(buf, len, "?");
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Cpus_allowed_list: %255s", buf) == 1)
			break;
	fclose(f);
}

static int get(pmix_proc_t *who, const char *key, pmix_value_t **v) {
	pmix_status_t rc = PMIx_Get(who, key, NULL, 0, v);
	if (rc != PMIX_SUCCESS) {
		fprintf(stderr, "pmixinfo: PMIx_Get(%s): %s\n", key, PMIx_Error_string(rc));
		return -1;
	}
	return 0;
}

int main(void) {
	pmix_proc_t me, job;
	pmix_value_t *size, *host, *lrank, *lsize, *peers;
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);
	if (rc != PMIX_SUCCESS) {
		fprintf(stderr, "pmixinfo: PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
	if (get(&job, PMIX_JOB_SIZE, &size) || get(&me, PMIX_HOSTNAME, &host) ||
	    get(&me, PMIX_LOCAL_RANK, &lrank) || get(&job, PMIX_LOCAL_SIZE, &lsize) ||
	    get(&job, PMIX_LOCAL_PEERS, &peers)) {
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	char cpu[256];
	const char *bind = getenv("GOSHMEM_BIND_TO");
	cpus(cpu, sizeof cpu);
	printf("rank %u size %u host %s localrank %u localsize %u peers %s cpus %s bind %s\n",
	       me.rank, size->data.uint32, host->data.string, (unsigned)lrank->data.uint16,
	       lsize->data.uint32, peers->data.string, cpu, bind && *bind ? bind : "-");
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
