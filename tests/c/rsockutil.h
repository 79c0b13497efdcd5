/* tests/c/rsockutil.h: what the rsocket conformance programs (rsock_api.c, rsock_dgram.c) share: PASS/FAIL
 * reporting with counters, the hang watchdog's handler and IPv4 socket addresses. Include after the system headers
 * (stdarg, stdio, string, unistd, arpa/inet). */
#ifndef RSOCKUTIL_H
#define RSOCKUTIL_H

static int passed, failed;
static const char *ip0, *ip1, *who = "client";
static int stock;

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

static void on_alarm(int sig)
{
	(void)sig;
	printf("FAIL %s-watchdog: hung (no progress for 60 s)\n", who);
	fflush(stdout);
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

#endif
