/* tests/c/rsockutil.h: what the rsocket programs (rsock_api.c, rsock_dgram.c, rsock_repoll.c, hostile_rsock.c)
 * share: PASS/FAIL reporting with counters, the hang watchdog's handler, IPv4 socket addresses, a connecting client
 * and a forked server. Include after the system headers (stdarg, stdio, string, unistd, arpa/inet) and
 * <rdma/rsocket.h>. */
#ifndef RSOCKUTIL_H
#define RSOCKUTIL_H

#define RSU_UNUSED __attribute__((unused))

static int passed, failed;
static const char *ip0, *ip1, *who = "client";
static RSU_UNUSED int stock;

static void check(const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s %s%s", ok ? "PASS" : "FAIL", name, ok ? " (" : ": ");
	vprintf(fmt, ap);
	printf("%s\n", ok ? ")" : "");
	va_end(ap);
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

/* SIGALRM's handler (the program hung past the alarm its caller set): prints "FAIL <who>-watchdog" and exits 2,
 * with async-signal-safe calls only (write, strlen, _exit): the signal may come inside printf or malloc. The programs
 * make stdout line-buffered, so no finished line is lost. */
static void on_alarm(int sig)
{
	static const char m[] = "-watchdog: hung past its time limit\n";

	(void)sig;
	if (write(1, "FAIL ", 5) < 0 || write(1, who, strlen(who)) < 0 || write(1, m, sizeof(m) - 1) < 0)
		_exit(3);
	_exit(2);
}

static struct sockaddr_in addr_of(const char *ip, int port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

/* A stream rsocket bound to ip1 and connected to ip0:port, retrying while refused (the server may be starting;
 * 50 attempts 200 ms apart); iomap > 0 sets RDMA_IOMAPSIZE first. The rsocket, or -1. */
static RSU_UNUSED int rs_connect(int port, int iomap)
{
	struct sockaddr_in dst = addr_of(ip0, port), src = addr_of(ip1, 0);

	for (int attempt = 0; attempt < 50; attempt++) {
		int rs = rsocket(AF_INET, SOCK_STREAM, 0);
		if (rs < 0)
			return -1;
		if (iomap)
			rsetsockopt(rs, SOL_RDMA, RDMA_IOMAPSIZE, &iomap, sizeof(iomap));
		if (!rbind(rs, (struct sockaddr *)&src, sizeof(src)) && !rconnect(rs, (struct sockaddr *)&dst, sizeof(dst)))
			return rs;
		rclose(rs);
		usleep(200000);
	}
	return -1;
}

/* Forks a server running fn(port) as "server" under a 120 s watchdog, exiting 1 if one of its checks failed; the
 * parent gets its pid. Fork before the parent touches an RDMA device (no verbs state crosses the fork). */
static RSU_UNUSED pid_t server(void (*fn)(int), int port)
{
	pid_t pid = fork();

	if (pid == 0) {
		who = "server";
		alarm(120);
		fn(port);
		fflush(stdout);
		_exit(failed ? 1 : 0);
	}
	return pid;
}

#endif
