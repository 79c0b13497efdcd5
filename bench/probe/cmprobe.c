/* cmprobe: times rdma_create_id / rdma_destroy_id one call at a time (issue 24's cmtime gap).
 *   cmprobe N [warm] [thread]
 * warm: one create+destroy before the timed loops; thread: a thread blocked in rdma_get_cm_event during the
 * destroy loop (as cmtime's client). Prints per-phase: first call, second, median, total, minor faults. */
#include <rdma/rdma_cma.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <valgrind/callgrind.h>

static double now_us(void) {
	struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static long minflt(void) { struct rusage r; getrusage(RUSAGE_SELF, &r); return r.ru_minflt; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static struct rdma_event_channel *ch;
static void *waiter(void *arg) { struct rdma_cm_event *e; (void)arg; while (!rdma_get_cm_event(ch, &e)) rdma_ack_cm_event(e); return NULL; }

static void report(const char *what, double *t, int n, double total, long flt) {
	double first = t[0], second = n > 1 ? t[1] : 0, slow = 0, sum = 0;
	int nslow = 0;
	char where[256] = "";
	for (int i = 0; i < n; i++) {
		sum += t[i];
		if (t[i] > 100) { nslow++; slow += t[i]; if (i && strlen(where) < 200) sprintf(where + strlen(where), " %d:%.0f", i, t[i]); }
	}
	qsort(t, n, sizeof *t, cmpd);
	printf("%-8s first %8.1f second %8.1f median %7.1f p90 %6.1f max %8.1f total %9.1f us/call %7.1f in-calls %7.1f minflt %ld slow(>100us, after the first) %d %.0f us at%s\n",
	       what, first, second, t[n / 2], t[n * 9 / 10], t[n - 1], total, total / n, sum / n, flt, nslow - (first > 100), slow - (first > 100 ? first : 0), where);
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 100, warm = 0, thr = 0;
	for (int i = 2; i < argc; i++) { if (!strcmp(argv[i], "warm")) warm = 1; if (!strcmp(argv[i], "thread")) thr = 1; }
	struct rdma_cm_id **ids = calloc(n, sizeof *ids);
	double *t = calloc(n, sizeof *t);
	ch = rdma_create_event_channel();
	if (!ch) { perror("channel"); return 1; }
	if (warm) { struct rdma_cm_id *w; if (rdma_create_id(ch, &w, NULL, RDMA_PS_TCP) || rdma_destroy_id(w)) { perror("warm"); return 1; } }
	long f0 = minflt(); double t0 = now_us();
	for (int i = 0; i < n; i++) {
		double a = now_us();
		CALLGRIND_DUMP_STATS_AT("before create");
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP)) { perror("create"); return 1; }
		CALLGRIND_DUMP_STATS_AT("create");
		t[i] = now_us() - a;
	}
	double tot = now_us() - t0; long f1 = minflt();
	report("create", t, n, tot, f1 - f0);
	pthread_t th;
	if (thr) { pthread_create(&th, NULL, waiter, NULL); struct timespec s = {0, 20000000}; nanosleep(&s, NULL); }
	f0 = minflt(); t0 = now_us();
	for (int i = 0; i < n; i++) {
		double a = now_us();
		CALLGRIND_DUMP_STATS_AT("before destroy");
		if (rdma_destroy_id(ids[i])) { perror("destroy"); return 1; }
		CALLGRIND_DUMP_STATS_AT("destroy");
		t[i] = now_us() - a;
	}
	tot = now_us() - t0; f1 = minflt();
	report("destroy", t, n, tot, f1 - f0);
	return 0;
}
