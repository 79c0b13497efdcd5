/* Our tests of datagram rsockets (rsocket(AF_INET, SOCK_DGRAM, 0)), error cases included. Run by
 * tests/guest/cases/45-rsocket.sh in the Soft-RoCE guest; the echo server binds RDMA_TEST_IP0 (rxe0), the clients
 * RDMA_TEST_IP1 (rxe1), so that every datagram crosses rxe1 <-> rxe0.
 *
 * Each check prints "PASS name (detail)" or "FAIL name: reason"; the program exits 1 if anything failed. The echo
 * server runs in a forked child (before this process touches a device) and reports its own checks; a watchdog
 * (alarm) turns a hang into a FAIL and exit 2. Every receive waits in rpoll with a timeout first, so a lost
 * datagram is a FAIL, not a hang.
 *
 * The server answers "ADDR" with the address rrecvfrom gave it for the sender, "QUIT" by exiting, anything else
 * by echoing it back. That the traffic went over RDMA (not only the UDP sockets of the address service) is proven
 * by the rxe ports' sent_pkts counters (RDMA_TEST_DEV0/1, default rxe0/rxe1).
 *
 * rdma-core's datagram rsockets do not work on RoCE (its address handles have no GRH): with RSOCK_TEST_LIBS=stock
 * only that failure is checked (rconnect fails, ENOENT as measured with Debian's udpong).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "rsockutil.h"

/* Evaluates `call` (an int or ssize_t expression) and records errno before the check's detail is formatted (C leaves
 * the order in which a call's arguments are evaluated open). */
#define TRY(call)                \
	do {                     \
		errno = 0;       \
		r_ = (long)(call); \
		e_ = errno;      \
	} while (0)
static long r_;
static int e_;

static int same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
}

static const char *str_addr(const struct sockaddr_in *a)
{
	static char s[2][64];
	static int k;
	char ip[32];

	k ^= 1;
	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
	snprintf(s[k], sizeof(s[k]), "%s:%d", ip, ntohs(a->sin_port));
	return s[k];
}

static unsigned char pat(size_t i, int seed)
{
	return (unsigned char)(i * 7 + (size_t)seed * 13 + 1);
}

static void fill(unsigned char *b, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = pat(i, seed);
}

static int verify(const unsigned char *b, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		if (b[i] != pat(i, seed))
			return 0;
	return 1;
}

/* The rxe ports' sent packets, both devices. */
static long long pkts(void)
{
	const char *dev[2] = { getenv("RDMA_TEST_DEV0") ? getenv("RDMA_TEST_DEV0") : "rxe0",
			       getenv("RDMA_TEST_DEV1") ? getenv("RDMA_TEST_DEV1") : "rxe1" };
	long long sum = 0;

	for (int i = 0; i < 2; i++) {
		char path[256];
		long long v = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/sent_pkts", dev[i]);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%lld", &v) != 1)
				v = 0;
			fclose(f);
		}
		sum += v;
	}
	return sum;
}

/* One datagram within timeout_ms: rpoll for POLLIN, then a non-blocking rrecvfrom. -1 with errno on failure
 * (ETIMEDOUT when nothing came). */
static ssize_t recv_wait(int rs, void *buf, size_t len, struct sockaddr_in *from, int timeout_ms)
{
	struct pollfd p = { .fd = rs, .events = POLLIN };
	socklen_t flen = sizeof(*from);
	int n = rpoll(&p, 1, timeout_ms);

	if (n < 0)
		return -1;
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	return rrecvfrom(rs, buf, len, MSG_DONTWAIT, (struct sockaddr *)from, from ? &flen : NULL);
}

/* ---- the echo server ------------------------------------------------------------------------------------ */

static void echo_server(int port)
{
	struct sockaddr_in me = addr_of(ip0, port), name;
	socklen_t len = sizeof(name);
	static unsigned char buf[4096];
	int rs = rsocket(AF_INET, SOCK_DGRAM, 0), echoed = 0, v = 1 << 19;

	e_ = errno;
	check("server-rsocket", rs >= 0, "rsocket: %s", strerror(e_));
	if (rs < 0)
		return;
	rsetsockopt(rs, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	TRY(rbind(rs, (struct sockaddr *)&me, sizeof(me)));
	check("server-rbind", !r_, "%s", strerror(e_));
	TRY(rgetsockname(rs, (struct sockaddr *)&name, &len));
	check("server-rgetsockname", !r_ && same_addr(&name, &me), "%s", str_addr(&name));
	for (;;) {
		struct sockaddr_in from;
		ssize_t n = recv_wait(rs, buf, sizeof(buf), &from, 30000);

		if (n < 0) {
			check("server-recv", 0, "%s after %d echoes", strerror(errno), echoed);
			break;
		}
		if (n == 4 && !memcmp(buf, "QUIT", 4))
			break;
		if (n == 4 && !memcmp(buf, "ADDR", 4)) {
			memcpy(buf, &from, sizeof(from));
			n = sizeof(from);
		}
		if (rsendto(rs, buf, (size_t)n, 0, (struct sockaddr *)&from, sizeof(from)) != n) {
			check("server-rsendto", 0, "to %s: %s", str_addr(&from), strerror(errno));
			break;
		}
		echoed++;
	}
	check("server-done", echoed > 0, "%d datagrams echoed", echoed);
	TRY(rclose(rs));
	check("server-rclose", r_ == 0, "%s", strerror(e_));
}

/* ---- the clients ------------------------------------------------------------------------------------------ */

/* A datagram rsocket bound to ip1 (any port). */
static int bound_client(void)
{
	struct sockaddr_in src = addr_of(ip1, 0);
	int rs = rsocket(AF_INET, SOCK_DGRAM, 0);

	if (rs >= 0 && rbind(rs, (struct sockaddr *)&src, sizeof(src))) {
		rclose(rs);
		return -1;
	}
	return rs;
}

/* Sends `len` pattern bytes to the server and checks the echo: same bytes, from the server's address. */
static int round_trip(int rs, const struct sockaddr_in *srv, size_t len, int seed, int connected)
{
	static unsigned char out[4096], in[4096];
	struct sockaddr_in from;
	ssize_t n;

	fill(out, len, seed);
	n = connected ? rsend(rs, out, len, 0) : rsendto(rs, out, len, 0, (const struct sockaddr *)srv, sizeof(*srv));
	if (n != (ssize_t)len)
		return 0;
	memset(&from, 0, sizeof(from));
	n = recv_wait(rs, in, sizeof(in), &from, 5000);
	return n == (ssize_t)len && verify(in, len, seed) && same_addr(&from, srv);
}

static void clients(int port)
{
	struct sockaddr_in srv = addr_of(ip0, port), me, seen, from;
	socklen_t len = sizeof(me);
	unsigned char buf[4096];
	int rs, rs2, ok, i, v;
	long long before;
	ssize_t n;

	/* rsendto / rrecvfrom: the first datagram reaches the server through the address service, which is retried
	 * while the server starts. */
	TRY(bound_client());
	rs = (int)r_;
	check("rsocket-rbind", rs >= 0, "%s", strerror(e_));
	if (rs < 0)
		return;
	TRY(rgetsockname(rs, (struct sockaddr *)&me, &len));
	check("rgetsockname", !r_ && me.sin_port != 0 && me.sin_addr.s_addr == addr_of(ip1, 0).sin_addr.s_addr, "%s",
	      str_addr(&me));
	for (i = 0, ok = 0; i < 50 && !ok; i++)
		ok = round_trip(rs, &srv, 100, 1, 0);
	check("rsendto-rrecvfrom-first", ok, "after %d attempts", i);
	if (!ok)
		return;

	n = rsendto(rs, "ADDR", 4, 0, (struct sockaddr *)&srv, sizeof(srv));
	memset(&seen, 0, sizeof(seen));
	ok = n == 4 && recv_wait(rs, &seen, sizeof(seen), &from, 5000) == sizeof(seen);
	check("sender-address", ok && same_addr(&seen, &me) && same_addr(&from, &srv),
	      "the server saw %s, we are %s", str_addr(&seen), str_addr(&me));

	before = pkts();
	for (i = 0, ok = 1; i < 100 && ok; i++)
		ok = round_trip(rs, &srv, (size_t)(16 + i * 10), i, 0);
	check("rsendto-rrecvfrom-100", ok, "%d round trips of 16..1006 bytes verified%s", i, ok ? "" : " (last failed)");
	before = pkts() - before;
	check("over-rdma", before >= 200, "%lld rxe packets for 200 datagrams", before);

	/* Larger than the UD MTU allows (1024 on rxe over a 1500-byte Ethernet) but within a receive slot: through
	 * the UDP sockets. Larger than a slot: EMSGSIZE. */
	check("rsendto-1500", round_trip(rs, &srv, 1500, 7, 0), "1500 bytes echoed");
	check("rsendto-2040", round_trip(rs, &srv, 2040, 8, 0), "2040 bytes (2048 less the 8-byte header) echoed");
	TRY(rsendto(rs, buf, 2041, 0, (struct sockaddr *)&srv, sizeof(srv)));
	check("emsgsize", r_ == -1 && e_ == EMSGSIZE, "returned %ld errno %d", r_, e_);

	/* A datagram is read whole or its rest dropped; MSG_PEEK leaves it queued. */
	fill(buf, 300, 3);
	rsendto(rs, buf, 300, 0, (struct sockaddr *)&srv, sizeof(srv));
	{
		struct pollfd p = { .fd = rs, .events = POLLIN };
		unsigned char small[10], whole[400];

		ok = rpoll(&p, 1, 5000) == 1 && (p.revents & POLLIN);
		check("rpoll-pollin", ok, "revents 0x%x", p.revents);
		n = rrecv(rs, small, sizeof(small), MSG_PEEK);
		check("msg-peek", n == 10 && verify(small, 10, 3), "%zd", n);
		n = rrecv(rs, small, sizeof(small), 0);
		check("truncated", n == 10 && verify(small, 10, 3), "%zd", n);
		rsendto(rs, "ADDR", 4, 0, (struct sockaddr *)&srv, sizeof(srv));
		n = recv_wait(rs, whole, sizeof(whole), &from, 5000);
		check("rest-dropped", n == sizeof(struct sockaddr_in), "next datagram %zd bytes (the address answer)", n);
	}

	/* Non-blocking: MSG_DONTWAIT and O_NONBLOCK; rpoll with nothing queued; POLLOUT. */
	TRY(rrecvfrom(rs, buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL));
	check("eagain-dontwait", r_ == -1 && e_ == EAGAIN, "returned %ld errno %d", r_, e_);
	ok = rfcntl(rs, F_SETFL, O_NONBLOCK) == 0;
	v = rfcntl(rs, F_GETFL);
	check("rfcntl-nonblock", ok && (v & O_NONBLOCK), "flags 0x%x", v);
	TRY(rrecv(rs, buf, sizeof(buf), 0));
	check("eagain-o-nonblock", r_ == -1 && e_ == EAGAIN, "returned %ld errno %d", r_, e_);
	rfcntl(rs, F_SETFL, 0);
	{
		struct pollfd p = { .fd = rs, .events = POLLIN | POLLOUT };

		v = rpoll(&p, 1, 0);
		check("rpoll-pollout-only", v == 1 && p.revents == POLLOUT, "returned %d revents 0x%x", v, p.revents);
		p.events = POLLIN;
		v = rpoll(&p, 1, 100);
		check("rpoll-timeout", v == 0 && p.revents == 0, "returned %d revents 0x%x", v, p.revents);
	}
	{
		fd_set r;
		struct timeval tv = { 5, 0 };

		rsendto(rs, "ping", 4, 0, (struct sockaddr *)&srv, sizeof(srv));
		FD_ZERO(&r);
		FD_SET(rs, &r);
		v = rselect(rs + 1, &r, NULL, NULL, &tv);
		check("rselect-readable", v == 1 && FD_ISSET(rs, &r), "returned %d", v);
		n = rrecv(rs, buf, sizeof(buf), 0);
		check("rselect-then-rrecv", n == 4 && !memcmp(buf, "ping", 4), "%zd", n);
	}

	/* Options. */
	v = 1 << 16;
	TRY(rsetsockopt(rs, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	check("so_rcvbuf-after-qp", !r_, "%s", strerror(e_));
	len = sizeof(v);
	TRY(rgetsockopt(rs, SOL_SOCKET, SO_SNDBUF, &v, &len));
	check("so_sndbuf", !r_ && v > 0 && len == sizeof(v), "%d", v);
	v = 64;
	TRY(rsetsockopt(rs, SOL_RDMA, RDMA_SQSIZE, &v, sizeof(v)));
	check("sol_rdma-after-bind-einval", r_ == -1 && e_ == EINVAL, "returned %ld errno %d", r_, e_);
	TRY(rlisten(rs, 1));
	check("rlisten-eopnotsupp", r_ == -1 && e_ == EOPNOTSUPP, "returned %ld errno %d", r_, e_);

	/* rconnect + rsend / rrecv / rwritev / rreadv; rgetpeername. */
	rs2 = bound_client();
	TRY(rconnect(rs2, (struct sockaddr *)&srv, sizeof(srv)));
	check("rconnect", rs2 >= 0 && !r_, "%s", strerror(e_));
	len = sizeof(from);
	memset(&from, 0, sizeof(from));
	TRY(rgetpeername(rs2, (struct sockaddr *)&from, &len));
	check("rgetpeername", !r_ && same_addr(&from, &srv), "%s", str_addr(&from));
	for (i = 0, ok = 1; i < 20 && ok; i++)
		ok = round_trip(rs2, &srv, (size_t)(64 + i), 20 + i, 1);
	check("rsend-rrecv", ok, "%d round trips", i);
	{
		char a[3] = "abc", b[5] = "defgh", c[8] = { 0 };
		struct iovec out[2] = { { a, 3 }, { b, 5 } }, in[1] = { { c, 8 } };

		n = rwritev(rs2, out, 2);
		ok = n == 8 && rpoll(&(struct pollfd){ .fd = rs2, .events = POLLIN }, 1, 5000) == 1;
		n = ok ? rreadv(rs2, in, 1) : -1;
		check("rwritev-rreadv", ok && n == 8 && !memcmp(c, "abcdefgh", 8), "read %zd", n);
	}

	/* Bad input. */
	{
		int fresh = rsocket(AF_INET, SOCK_DGRAM, 0);

		TRY(rsend(fresh, "x", 1, 0));
		check("rsend-no-destination", r_ == -1 && e_ == EDESTADDRREQ, "returned %ld errno %d", r_, e_);
		TRY(rrecv(fresh, buf, 1, MSG_DONTWAIT));
		check("rrecv-unbound-einval", r_ == -1 && e_ == EINVAL, "returned %ld errno %d", r_, e_);
		TRY(rsendto(fresh, "x", 1, 0, (struct sockaddr *)&(struct sockaddr){ .sa_family = AF_UNIX },
			    sizeof(struct sockaddr)));
		check("rsendto-bad-family", r_ == -1 && e_ == EAFNOSUPPORT, "returned %ld errno %d", r_, e_);
		rclose(fresh);
		TRY(rsendto(fresh, "x", 1, 0, (struct sockaddr *)&srv, sizeof(srv)));
		check("ebadf-after-rclose", r_ == -1 && e_ == EBADF, "returned %ld errno %d", r_, e_);
	}

	rsend(rs2, "QUIT", 4, 0);
	ok = rclose(rs2) == 0;
	TRY(rclose(rs));
	check("rclose", ok && r_ == 0, "%s", strerror(e_));
}

/* rdma-core on RoCE: its datagram rsocket cannot make the address handle of its own QP (no GRH). */
static void stock_fails(int port)
{
	struct sockaddr_in srv = addr_of(ip0, port);
	int rs = rsocket(AF_INET, SOCK_DGRAM, 0);

	e_ = errno;
	check("stock-rsocket", rs >= 0, "%s", strerror(e_));
	TRY(rconnect(rs, (struct sockaddr *)&srv, sizeof(srv)));
	check("stock-rconnect-fails-on-roce", r_ == -1 && e_ == ENOENT, "returned %ld errno %d (%s)", r_, e_,
	      strerror(e_));
	rclose(rs);
}

int main(void)
{
	int port = 7800 + (getpid() % 100) * 3, st = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ip0 = getenv("RDMA_TEST_IP0") ? getenv("RDMA_TEST_IP0") : "198.18.0.1";
	ip1 = getenv("RDMA_TEST_IP1") ? getenv("RDMA_TEST_IP1") : "198.18.0.2";
	stock = getenv("RSOCK_TEST_LIBS") && !strcmp(getenv("RSOCK_TEST_LIBS"), "stock");
	signal(SIGALRM, on_alarm);

	if (stock) {
		alarm(60);
		stock_fails(port);
		printf("rsock_dgram: %d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}

	pid = fork();
	if (pid == 0) {
		who = "server";
		alarm(120);
		echo_server(port);
		fflush(stdout);
		_exit(failed ? 1 : 0);
	}
	alarm(100);
	clients(port);
	waitpid(pid, &st, 0);
	check("server-exit", WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	printf("rsock_dgram: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
