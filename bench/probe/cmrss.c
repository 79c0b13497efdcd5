/* cmrss: where the resident memory of N rdma_create_id goes (issue 24, the scale rows' resident step).
 *   cmrss N
 * One id made and destroyed first (as bench/objects.c -s cm), then N ids on one channel; prints the resident set
 * every N/10 ids and, per mapping of /proc/self/smaps, the Rss and AnonHugePages that changed over the N creates. */
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXMAP 512
struct map { char name[160]; long rss, thp; };

static int snap(struct map *m)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int n = -1;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < MAXMAP - 1) {
		long v;
		if (sscanf(line, "Rss: %ld kB", &v) == 1 && n >= 0)
			m[n].rss = v;
		else if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1 && n >= 0)
			m[n].thp = v;
		else if ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')) {
			n++;
			line[strcspn(line, "\n")] = 0;
			snprintf(m[n].name, sizeof(m[n].name), "%.159s", line);
			m[n].rss = m[n].thp = 0;
		}
	}
	fclose(f);
	return n + 1;
}

/* statm's resident count (what bench/objects.c read) and smaps_rollup's Rss (a page-table walk), in kB */
static long rss_kb(long *exact)
{
	long pages = 0, res = 0, v;
	char line[256];
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) { if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0; fclose(f); }
	*exact = -1;
	if ((f = fopen("/proc/self/smaps_rollup", "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Rss: %ld kB", &v) == 1)
				*exact = v;
		fclose(f);
	}
	return res * 4;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, i, j, na, nb;
	static struct map a[MAXMAP], b[MAXMAP];
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id **ids = calloc(n, sizeof(*ids)), *first;
	if (!ch || !ids || rdma_create_id(ch, &first, NULL, RDMA_PS_TCP) || rdma_destroy_id(first)) {
		perror("setup");
		return 1;
	}
	na = snap(a);
	long ex, st = rss_kb(&ex);
	printf("rss at 0: statm %ld kB, smaps_rollup %ld kB\n", st, ex);
	for (i = 0; i < n; i++) {
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP)) {
			perror("rdma_create_id");
			return 1;
		}
		if ((i + 1) % (n / 10 ? n / 10 : 1) == 0)
		{
			st = rss_kb(&ex);
			printf("rss at %d: statm %ld kB, smaps_rollup %ld kB\n", i + 1, st, ex);
		}
	}
	nb = snap(b);
	for (j = 0; j < nb; j++) {
		long ra = 0, ta = 0;
		for (i = 0; i < na; i++)
			if (!strcmp(a[i].name, b[j].name)) { ra = a[i].rss; ta = a[i].thp; break; }
		if (b[j].rss != ra || b[j].thp != ta)
			printf("%+6ld kB rss (%ld -> %ld), thp %ld -> %ld: %s\n", b[j].rss - ra, ra, b[j].rss, ta, b[j].thp, b[j].name);
	}
	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(ch);
	return 0;
}
