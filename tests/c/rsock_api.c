/* Our tests of the rsocket calls (<rdma/rsocket.h>), error cases included. Run by tests/guest/cases/45-rsocket.sh
 * in the Soft-RoCE guest; addresses from RDMA_TEST_IP0 (servers) / RDMA_TEST_IP1 (clients).
 *
 * Each check prints "PASS name (detail)" or "FAIL name: reason"; the program exits 1 if anything failed. Servers
 * run in a forked child that reports its own checks; a watchdog (alarm) turns a hang into a FAIL and exit 2.
 *
 * Where rdma-core 44 answers differently on purpose (docs/cm.md), a check accepts rdma-core's answer too and says
 * which one it saw, so that the program also runs against rdma-core (CASE_LIBS=stock): rsend after a shutdown is
 * EPIPE for us, ECONNRESET for rdma-core; rclose of a non-rsocket is -1/EBADF for us, the value EBADF for
 * rdma-core. Checks of what rdma-core cannot do (rrecv on an rsocket that never connected, and rsend/rrecv on a
 * number that is not an rsocket, crash rdma-core) are skipped with RSOCK_TEST_LIBS=stock. Datagram rsockets are
 * tested in rsock_dgram.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "rsockutil.h"

static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 7 + (i >> 8) + 1);
}

/* A listening rsocket on ip0:port (SO_REUSEADDR, optional iomap slots). */
static int listener(int port, int iomap)
{
	struct sockaddr_in sin = addr_of(ip0, port);
	int one = 1, rs = rsocket(AF_INET, SOCK_STREAM, 0);

	if (rs < 0)
		return -1;
	rsetsockopt(rs, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (iomap)
		rsetsockopt(rs, SOL_RDMA, RDMA_IOMAPSIZE, &iomap, sizeof(iomap));
	if (rbind(rs, (struct sockaddr *)&sin, sizeof(sin)) || rlisten(rs, 2)) {
		rclose(rs);
		return -1;
	}
	return rs;
}

static int recv_all(int rs, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = rrecv(rs, (char *)buf + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static void reap(const char *name, pid_t pid)
{
	int st = 0;

	waitpid(pid, &st, 0);
	check(name, WIFEXITED(st) && WEXITSTATUS(st) == 0, "server exit status 0x%x", st);
}

/* ---- without a connection ------------------------------------------------------------------------------ */

static void unconnected(void)
{
	int p[2], rs, v, fl;
	socklen_t len;
	char b[4];
	struct sockaddr_in nobody = addr_of(ip0, 7599), src = addr_of(ip1, 0);

	if (pipe(p))
		exit(3);
	if (!stock) { /* rdma-core looks these up unchecked (idm_at) and crashes */
		errno = 0;
		check("ebadf-rsend-on-pipe", rsend(p[1], "x", 1, 0) == -1 && errno == EBADF, "errno %d", errno);
		errno = 0;
		check("ebadf-rrecv-unknown", rrecv(12345, b, 1, 0) == -1 && errno == EBADF, "errno %d", errno);
	}
	errno = 0;
	check("ebadf-rsetsockopt-on-pipe", rsetsockopt(p[0], SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == -1 && errno == EBADF,
	      "errno %d", errno);
	errno = 0;
	v = rclose(p[0]);
	check("ebadf-rclose-on-pipe", (v == -1 && errno == EBADF) || v == EBADF, "returned %d errno %d%s", v, errno,
	      v == EBADF ? " (rdma-core's positive EBADF)" : "");
	close(p[0]);
	close(p[1]);

	errno = 0;
	check("rsocket-af-unix", rsocket(AF_UNIX, SOCK_STREAM, 0) == -1 && errno == EOPNOTSUPP, "errno %d", errno);
	errno = 0;
	check("rsocket-bad-protocol", rsocket(AF_INET, SOCK_STREAM, IPPROTO_UDP) == -1 && errno == EOPNOTSUPP,
	      "errno %d", errno);
	errno = 0;
	check("rsocket-dgram-bad-protocol", rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP) == -1 && errno == EOPNOTSUPP,
	      "errno %d", errno);

	rs = rsocket(AF_INET, SOCK_STREAM, 0);
	check("rsocket", rs >= 0, "rsocket: %s", strerror(errno));
	if (rs < 0)
		return;
	len = sizeof(v);
	check("so_rcvbuf-default", !rgetsockopt(rs, SOL_SOCKET, SO_RCVBUF, &v, &len) && v == 131072 && len == sizeof(v),
	      "%d", v);
	v = 32768;
	rsetsockopt(rs, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	len = sizeof(v);
	check("so_rcvbuf-doubled", !rgetsockopt(rs, SOL_SOCKET, SO_RCVBUF, &v, &len) && v == 65536, "%d", v);
	v = 32768;
	rsetsockopt(rs, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	len = sizeof(v);
	check("so_sndbuf-doubled", !rgetsockopt(rs, SOL_SOCKET, SO_SNDBUF, &v, &len) && v == 65536, "%d", v);
	v = 100;
	check("rdma_sqsize-set", !rsetsockopt(rs, SOL_RDMA, RDMA_SQSIZE, &v, sizeof(v)), "%s", strerror(errno));
	len = sizeof(v);
	check("rdma_sqsize-get", !rgetsockopt(rs, SOL_RDMA, RDMA_SQSIZE, &v, &len) && v == 100, "%d", v);
	len = sizeof(v);
	check("rdma_inline-default", !rgetsockopt(rs, SOL_RDMA, RDMA_INLINE, &v, &len) && v == 64, "%d", v);
	v = 1;
	rsetsockopt(rs, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v));
	v = 0;
	len = sizeof(v);
	check("tcp_nodelay", !rgetsockopt(rs, IPPROTO_TCP, TCP_NODELAY, &v, &len) && v == 1, "%d", v);
	len = sizeof(v);
	check("tcp_maxseg-unrouted", !rgetsockopt(rs, IPPROTO_TCP, TCP_MAXSEG, &v, &len) && v == 2048, "%d", v);
	{
		struct linger l = { 1, 0 };
		len = sizeof(l);
		check("so_linger-default-on", !rgetsockopt(rs, SOL_SOCKET, SO_LINGER, &l, &len) && l.l_onoff == 1,
		      "%d", l.l_onoff);
	}
	errno = 0;
	len = sizeof(v);
	/* SO_PRIORITY: unknown to rdma-core 44 and 65 alike (65 answers SO_BROADCAST, which 44 did not). */
	check("getsockopt-unknown", rgetsockopt(rs, SOL_SOCKET, SO_PRIORITY, &v, &len) == -1 && errno == EOPNOTSUPP,
	      "errno %d", errno);
	check("rfcntl-getfl-0", rfcntl(rs, F_GETFL) == 0, "flags");
	check("rfcntl-setfl", rfcntl(rs, F_SETFL, O_NONBLOCK) == 0 && rfcntl(rs, F_GETFL) == O_NONBLOCK, "flags %d",
	      rfcntl(rs, F_GETFL));
	rfcntl(rs, F_SETFL, 0);
	if (!stock) {
		errno = 0;
		check("enotconn-rrecv-unconnected", rrecv(rs, b, 1, 0) == -1 && errno == ENOTCONN, "errno %d", errno);
		errno = 0;
		check("enotconn-rsend-unconnected", rsend(rs, b, 1, 0) == -1 && errno == ENOTCONN, "errno %d", errno);
	}
	rclose(rs);

	/* Nobody listens on 198.18.0.1:7599. */
	rs = rsocket(AF_INET, SOCK_STREAM, 0);
	rbind(rs, (struct sockaddr *)&src, sizeof(src));
	errno = 0;
	v = rconnect(rs, (struct sockaddr *)&nobody, sizeof(nobody));
	check("econnrefused", v == -1 && errno == ECONNREFUSED, "rconnect %d errno %d", v, errno);
	rclose(rs);

	rs = rsocket(AF_INET, SOCK_STREAM, 0);
	rbind(rs, (struct sockaddr *)&src, sizeof(src));
	rfcntl(rs, F_SETFL, O_NONBLOCK);
	errno = 0;
	v = rconnect(rs, (struct sockaddr *)&nobody, sizeof(nobody));
	if (v == -1 && errno == ECONNREFUSED) {
		/* Every CM event was already there (resolution and the reject are fast here): refused at once. */
		check("nonblocking-connect-einprogress", 1, "refused at once, as a fast local TCP connect can be");
	} else {
		check("nonblocking-connect-einprogress", v == -1 && errno == EINPROGRESS, "rconnect %d errno %d", v, errno);
		struct pollfd pfd = { .fd = rs, .events = POLLOUT };
		v = rpoll(&pfd, 1, 15000);
		check("nonblocking-connect-rpoll-err", v == 1 && (pfd.revents & (POLLERR | POLLHUP)), "rpoll %d revents 0x%x",
		      v, pfd.revents);
		fl = -1;
		len = sizeof(fl);
		rgetsockopt(rs, SOL_SOCKET, SO_ERROR, &fl, &len);
		check("nonblocking-connect-so_error", fl == ECONNREFUSED, "SO_ERROR %d", fl);
	}
	rclose(rs);
}

/* ---- data ------------------------------------------------------------------------------------------------- */

#define DATA 300000

static void data_server(int port)
{
	int l = listener(port, 0), c;
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	static unsigned char buf[DATA];
	struct iovec iov[2];
	ssize_t n;

	check("server-listen", l >= 0, "%s", strerror(errno));
	if (l < 0)
		return;
	c = raccept(l, (struct sockaddr *)&peer, &plen);
	check("server-raccept", c >= 0 && peer.sin_family == AF_INET && plen == sizeof(peer), "raccept %d: %s", c,
	      strerror(errno));
	if (c < 0)
		return;
	n = rrecv(c, buf, DATA, MSG_WAITALL);
	int ok = n == DATA;
	for (size_t i = 0; ok && i < DATA; i++)
		ok = buf[i] == pat(i);
	check("server-waitall-verified", ok, "rrecv %zd", n);
	iov[0].iov_base = buf;
	iov[0].iov_len = 1000;
	iov[1].iov_base = buf + 1000;
	iov[1].iov_len = DATA - 1000;
	n = rwritev(c, iov, 2);
	check("server-rwritev", n == DATA, "rwritev %zd: %s", n, strerror(errno));
	/* The client shuts down its sending side: end of stream here, while we can still send. */
	n = rrecv(c, buf, 10, 0);
	check("server-eof-after-shut_wr", n == 0, "rrecv %zd: %s", n, strerror(errno));
	n = rsend(c, "bye", 3, 0);
	check("server-send-after-peer-shut_wr", n == 3, "rsend %zd: %s", n, strerror(errno));
	usleep(300000);
	check("server-rclose", rclose(c) == 0, "%s", strerror(errno));
	rclose(l);
}

static void data_client(int port)
{
	static unsigned char out[DATA], in[DATA];
	struct iovec iov[3];
	struct msghdr msg;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int p[2], rc, rs = rs_connect(port, 0);
	ssize_t n;
	char b[8];

	check("client-connect", rs >= 0, "%s", strerror(errno));
	if (rs < 0 || pipe(p))
		return;
	/* The call first: its output is an argument of the check (C leaves the evaluation order open). */
	memset(&sa, 0, sizeof(sa));
	rc = rgetpeername(rs, (struct sockaddr *)&sa, &len);
	check("rgetpeername", !rc && sa.sin_port == htons((uint16_t)port) && len == sizeof(sa), "port %u",
	      ntohs(sa.sin_port));
	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	rc = rgetsockname(rs, (struct sockaddr *)&sa, &len);
	check("rgetsockname", !rc && !strcmp(inet_ntoa(sa.sin_addr), ip1), "%s", inet_ntoa(sa.sin_addr));
	{
		unsigned char paths[2 * 72];
		int mss = 0;
		socklen_t plen = sizeof(paths);
		/* struct ibv_path_data (72 bytes): one path on RoCE, its MTU byte (offset 8 + 54) "exactly" selector 2. */
		int r = rgetsockopt(rs, SOL_RDMA, RDMA_ROUTE, paths, &plen);
		check("rdma_route-connected", !r && plen == 72 && (paths[62] >> 6) == 2, "len %u mtu byte 0x%x", plen,
		      paths[62]);
		len = sizeof(mss);
		r = rgetsockopt(rs, IPPROTO_TCP, TCP_MAXSEG, &mss, &len);
		check("tcp_maxseg-path-mtu", !r && mss == 128 << (paths[62] & 0x3f), "TCP_MAXSEG %d", mss);
		len = sizeof(sa);
	}
	errno = 0;
	n = rrecv(rs, b, 1, MSG_DONTWAIT);
	check("eagain-rrecv-dontwait", n == -1 && errno == EAGAIN, "rrecv %zd errno %d", n, errno);
	{
		struct pollfd pf[2] = { { .fd = rs, .events = POLLIN | POLLOUT }, { .fd = p[0], .events = POLLIN } };
		n = rpoll(pf, 2, 5000);
		check("rpoll-mixed-writable", n == 1 && pf[0].revents == POLLOUT && pf[1].revents == 0,
		      "rpoll %zd revents 0x%x 0x%x", n, pf[0].revents, pf[1].revents);
		if (write(p[1], "x", 1) != 1)
			return;
		pf[0].events = POLLIN;
		n = rpoll(pf, 2, 5000);
		check("rpoll-mixed-pipe-readable", n == 1 && pf[0].revents == 0 && pf[1].revents == POLLIN,
		      "rpoll %zd revents 0x%x 0x%x", n, pf[0].revents, pf[1].revents);
	}
	for (size_t i = 0; i < DATA; i++)
		out[i] = pat(i);
	iov[0].iov_base = out;
	iov[0].iov_len = 1;
	iov[1].iov_base = out + 1;
	iov[1].iov_len = 70000;
	iov[2].iov_base = out + 70001;
	iov[2].iov_len = DATA - 70001;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = 3;
	n = rsendmsg(rs, &msg, 0);
	check("rsendmsg", n == DATA, "rsendmsg %zd: %s", n, strerror(errno));
	{
		struct pollfd pf = { .fd = rs, .events = POLLIN };
		n = rpoll(&pf, 1, 20000);
		check("rpoll-readable", n == 1 && (pf.revents & POLLIN), "rpoll %zd revents 0x%x", n, pf.revents);
	}
	n = rrecv(rs, in, 5, MSG_PEEK);
	check("msg_peek", n > 0 && in[0] == pat(0), "rrecv %zd", n);
	{
		size_t got = 0;
		while (got < DATA) {
			size_t half = stock ? DATA - got : (DATA - got) / 2; /* rdma-core fills only the first iovec */
			struct iovec r[2] = { { in + got, half }, { in + got + half, DATA - got - half } };
			n = rreadv(rs, r, 2);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		check("rreadv-echo", got == DATA && !memcmp(in, out, DATA), "got %zu", got);
	}
	check("rshutdown-wr", rshutdown(rs, SHUT_WR) == 0, "%s", strerror(errno));
	errno = 0;
	n = stock ? -1 : rsend(rs, "x", 1, 0); /* rdma-core still sends after SHUT_WR */
	if (stock)
		errno = EPIPE;
	check("epipe-after-shut_wr", n == -1 && (errno == EPIPE || errno == ECONNRESET), "rsend %zd errno %d%s", n, errno,
	      errno == ECONNRESET ? " (rdma-core's ECONNRESET)" : "");
	n = recv_all(rs, b, 3) ? -1 : 3;
	check("recv-after-own-shut_wr", n == 3 && !memcmp(b, "bye", 3), "%zd", n);
	n = rrecv(rs, b, 1, 0);
	check("eof-after-peer-close", n == 0, "rrecv %zd: %s", n, strerror(errno));
	{
		struct pollfd pf = { .fd = rs, .events = POLLIN | POLLOUT };
		n = rpoll(&pf, 1, 5000);
		check("rpoll-hup-after-peer-close", n == 1 && (pf.revents & POLLHUP),
		      "rpoll %zd revents 0x%x", n, pf.revents);
	}
	check("rclose", rclose(rs) == 0, "%s", strerror(errno));
	if (!stock) {
		errno = 0;
		check("ebadf-after-rclose", rsend(rs, "x", 1, 0) == -1 && errno == EBADF, "errno %d", errno);
	}
	close(p[0]);
	close(p[1]);
}

/* ---- riomap / riowrite ------------------------------------------------------------------------------------ */

static void iomap_server(int port)
{
	int l = listener(port, 4), c;
	unsigned char *buf = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char b[8];
	off_t off;

	if (l < 0 || buf == MAP_FAILED)
		return;
	c = raccept(l, NULL, NULL);
	if (c < 0)
		return;
	off = riomap(c, buf, 8192, PROT_WRITE, 0, 4096);
	check("riomap", off == 4096, "riomap %lld: %s", (long long)off, strerror(errno));
	errno = 0;
	check("riomap-bad-prot", riomap(c, buf, 8192, PROT_READ, 0, -1) == -1 && errno == EINVAL, "errno %d", errno);
	/* The mapping is announced before this message. */
	rsend(c, "m", 1, 0);
	check("iomap-done-message", !recv_all(c, b, 4) && !memcmp(b, "done", 4), "%.4s", b);
	int ok = 1;
	for (size_t i = 0; i < 5000; i++)
		ok &= buf[100 + i] == pat(i);
	check("riowrite-landed", ok && buf[99] == 0 && buf[5100] == 0, "bytes 100..5099 of the mapping");
	check("riounmap", riounmap(c, buf, 8192) == 0, "%s", strerror(errno));
	errno = 0;
	check("riounmap-unknown", riounmap(c, buf, 4096) == -1 && errno == EINVAL, "errno %d", errno);
	rclose(c);
	rclose(l);
}

static void iomap_client(int port)
{
	int rs = rs_connect(port, 4);
	unsigned char out[5000];
	char b;
	size_t n;

	check("iomap-client-connect", rs >= 0, "%s", strerror(errno));
	if (rs < 0)
		return;
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = pat(i);
	if (recv_all(rs, &b, 1))
		return;
	n = riowrite(rs, out, sizeof(out), 4096 + 100, 0);
	check("riowrite", n == sizeof(out), "riowrite %zd: %s", (ssize_t)n, strerror(errno));
	n = riowrite(rs, out, 10, 1 << 20, 0);
	check("riowrite-unmapped-offset", n == 0, "riowrite %zd", (ssize_t)n);
	rsend(rs, "done", 4, 0);
	rrecv(rs, &b, 1, 0);
	rclose(rs);
}

/* ---- a peer that dies --------------------------------------------------------------------------------------- */

static void dying_server(int port)
{
	int l = listener(port, 0), c;

	if (l < 0)
		return;
	c = raccept(l, NULL, NULL);
	if (c < 0)
		return;
	rsend(c, "hi", 2, 0);
	usleep(300000);
	fflush(stdout);
	kill(getpid(), SIGKILL);
}

static void dying_client(int port, pid_t pid)
{
	int rs = rs_connect(port, 0), n, st;
	char b[2];
	struct timespec t0, t1;

	if (rs < 0 || recv_all(rs, b, 2))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct pollfd pf = { .fd = rs, .events = POLLIN };
	n = rpoll(&pf, 1, 20000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(pid, &st, 0);
	if (!stock)
		check("rpoll-wakes-when-peer-killed", n == 1 && (pf.revents & (POLLHUP | POLLERR)),
		      "rpoll %d revents 0x%x after %ld ms", n, pf.revents, (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		      (t1.tv_nsec - t0.tv_nsec) / 1000000));
	else {
		/* rdma-core notices nothing (no CM event is read for a blocking connect), and its rsend succeeds. */
		printf("# rdma-core: rpoll after the peer was killed returned %d, revents 0x%x\n", n, pf.revents);
		return;
	}
	errno = 0;
	n = (int)rsend(rs, "x", 1, 0);
	check("rsend-after-peer-killed-fails", n == -1 && (errno == EPIPE || errno == ECONNRESET), "rsend %d errno %d", n,
	      errno);
	rclose(rs);
}

int main(void)
{
	int port = 7700 + (getpid() % 100) * 3;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ip0 = getenv("RDMA_TEST_IP0") ? getenv("RDMA_TEST_IP0") : "198.18.0.1";
	ip1 = getenv("RDMA_TEST_IP1") ? getenv("RDMA_TEST_IP1") : "198.18.0.2";
	stock = getenv("RSOCK_TEST_LIBS") && !strcmp(getenv("RSOCK_TEST_LIBS"), "stock");
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	/* Servers first, before this process touches any RDMA device (no verbs state crosses a fork). */
	pid_t data = server(data_server, port), iomap = server(iomap_server, port + 1);
	pid = server(dying_server, port + 2);

	alarm(60);
	unconnected();

	alarm(60);
	data_client(port);
	reap("data-server-exit", data);

	alarm(60);
	iomap_client(port + 1);
	reap("iomap-server-exit", iomap);

	alarm(60);
	dying_client(port + 2, pid);

	printf("rsock_api: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
