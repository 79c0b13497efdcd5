/*
 * ibv_stats.c - prints the verbs counters of running processes, as ibv_devinfo prints devices.
 *
 * A process using our libibverbs with RDMAV_STATS=1 in its environment keeps per context, QP, CQ and SRQ counters
 * (work requests posted, completions polled, error completions by status, doorbells, events) in a file of fixed
 * slots that it maps shared and removes at exit:
 *
 *     $RDMAV_STATS_DIR/rdma-core-rs-stats.<pid>        (default directory /dev/shm)
 *
 * This tool reads that file (docs/diagnostics.md, "Counters", describes the layout) and prints a snapshot: each
 * live context with its totals (its destroyed objects included), then each of its live QPs, CQs and SRQs with
 * their non-zero counters. The counters are updated with relaxed atomics while we read: a snapshot of a busy
 * process is a moment's view, each number exact but not all taken at the same instant.
 *
 * Usage
 *   ibv_stats [-d DIR] [PID...]      (no PID: every process with a counter file in DIR)
 *
 * Exit status: 0 when every process asked for was printed; 1 when one has no file (not running with
 * RDMAV_STATS=1, or gone) or its file is not a counter table of this version.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The layout (object::stats in the library): NSLOTS slots of 64 little-endian 64-bit words; slot 0 the header. */
#define NSLOTS 1024
#define SLOT_WORDS 64
#define MAGIC 0x31415453414d4452ULL /* "RDMASTA1" */
#define VERSION 1
#define W_KEY 0
#define W_KIND_ID 1
#define W_PARENT 2
#define W_NAME 3
#define W_COUNTERS 8
#define N_COUNTERS 12
#define W_STATUS 32
#define N_STATUS 32
#define KEY_FREED 1
#define NO_PARENT 0xffffffffu
#define FLAG_DOORBELLS 1u
#define C_DOORBELLS 5

enum { KIND_CONTEXT = 1, KIND_QP = 2, KIND_CQ = 3, KIND_SRQ = 4 };

static const char *const counter_names[N_COUNTERS] = {
	"send_wrs", "recv_wrs", "srq_recv_wrs", "post_calls", "post_errors", "doorbells",
	"poll_calls", "cqes", "err_cqes", "notify_calls", "comp_events", "async_events",
};

typedef uint64_t slot_t[SLOT_WORDS];

static uint32_t lo(uint64_t v) { return (uint32_t)v; }
static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }
static int live(const slot_t s) { return s[W_KEY] > KEY_FREED; }

static void print_counters(const uint64_t *c, const uint64_t *st, int doorbells, int all, const char *indent)
{
	for (int i = 0; i < N_COUNTERS; i++) {
		if (i == C_DOORBELLS && !doorbells) {
			if (all)
				printf("%s%-16s-  (a plug-in provider rings its own doorbells)\n", indent, "doorbells:");
			continue;
		}
		if (all || c[i])
			printf("%s%-16s%" PRIu64 "\n", indent, counter_names[i], c[i]);
	}
	for (int s = 1; s < N_STATUS; s++)
		if (st[s])
			printf("%swc_status %d (%s): %" PRIu64 "\n", indent, s, ibv_wc_status_str((enum ibv_wc_status)s),
			       st[s]);
}

/* Prints the counter file at PATH; 0 if it is one. */
static int print_file(const char *path)
{
	static slot_t t[NSLOTS];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		fprintf(stderr, "ibv_stats: %s: %s\n", path, strerror(errno));
		return 1;
	}
	ssize_t n = read(fd, t, sizeof(t));
	close(fd);
	if (n != (ssize_t)sizeof(t) || t[0][0] != MAGIC || t[0][1] != VERSION || t[0][2] != NSLOTS ||
	    t[0][3] != SLOT_WORDS * 8) {
		fprintf(stderr, "ibv_stats: %s: not a counter table of version %d\n", path, VERSION);
		return 1;
	}
	pid_t pid = (pid_t)t[0][4];
	int running = kill(pid, 0) == 0 || errno == EPERM;
	printf("pid %d%s (%s)\n", (int)pid, running ? "" : " [not running: stale file]", path);
	for (int c = 1; c < NSLOTS; c++) {
		if (!live(t[c]) || lo(t[c][W_KIND_ID]) != KIND_CONTEXT)
			continue;
		char name[17] = { 0 };
		memcpy(name, &t[c][W_NAME], 16);
		int doorbells = hi(t[c][W_PARENT]) & FLAG_DOORBELLS;
		uint64_t tot[N_COUNTERS] = { 0 }, st[N_STATUS] = { 0 };
		for (int i = 1; i < NSLOTS; i++) {
			if (!live(t[i]) || (i != c && lo(t[i][W_PARENT]) != (uint32_t)c))
				continue;
			for (int k = 0; k < N_COUNTERS; k++)
				tot[k] += t[i][W_COUNTERS + k];
			for (int k = 0; k < N_STATUS; k++)
				st[k] += t[i][W_STATUS + k];
		}
		printf("  context %d: %s\n", c, name);
		print_counters(tot, st, doorbells, 1, "\t");
		for (int i = 1; i < NSLOTS; i++) {
			if (i == c || !live(t[i]) || lo(t[i][W_PARENT]) != (uint32_t)c)
				continue;
			uint32_t kind = lo(t[i][W_KIND_ID]), id = hi(t[i][W_KIND_ID]);
			if (kind == KIND_QP)
				printf("    qp 0x%x:\n", id);
			else
				printf("    %s %u:\n", kind == KIND_CQ ? "cq" : kind == KIND_SRQ ? "srq" : "?", id);
			print_counters(&t[i][W_COUNTERS], &t[i][W_STATUS], doorbells, 0, "\t\t");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("RDMAV_STATS_DIR") ? getenv("RDMAV_STATS_DIR") : "/dev/shm";
	int opt, rc = 0;
	char path[4096];

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DIR] [PID...]\n", argv[0]);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (optind < argc) {
		for (int i = optind; i < argc; i++) {
			snprintf(path, sizeof(path), "%s/rdma-core-rs-stats.%s", dir, argv[i]);
			rc |= print_file(path);
		}
		return rc;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "ibv_stats: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	int found = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "rdma-core-rs-stats.", 19) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		rc |= print_file(path);
		found++;
	}
	closedir(d);
	if (!found)
		printf("no process with RDMAV_STATS=1 in %s\n", dir);
	return rc;
}
