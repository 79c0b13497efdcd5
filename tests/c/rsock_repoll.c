/* repoll_create / repoll_ctl / repoll_wait (RDMACM_1.5, rdma-core 65): epoll over rsockets and ordinary descriptors.
 * Run by tests/guest/cases/45-rsocket.sh in the Soft-RoCE guest (servers on RDMA_TEST_IP0, clients from
 * RDMA_TEST_IP1), with our libraries and, chrooted in a Debian sid root, with rdma-core 65's.
 *
 * A forked server is itself driven by repoll (a listener and its connections in one instance: accept, echo, hang-up);
 * the client checks the interest-list rules, timeouts, ordinary descriptors, an rsocket's EPOLLOUT and EPOLLIN, a
 * mixed list, a waiting thread woken by an EPOLL_CTL_ADD, hang-up at the peer's close, closing an instance.
 *
 * Where we answer differently from rdma-core 65 on purpose (docs/cm.md, "repoll"), a check accepts both and says
 * which it saw: errors are -1 with errno for us (epoll_ctl's convention), the positive errno for rdma-core; rclose of
 * an instance with descriptors listed closes it for us, is refused with the value EBUSY by rdma-core; EPOLLONESHOT
 * is honoured by us, ignored by rdma-core; a listed descriptor that was closed drops out for us, and is reported
 * with no event bits by rdma-core.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "rsockutil.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The error of a repoll call: -1 and errno (ours), or the positive errno it returned (rdma-core 65). */
static const char *conv;
static int err_of(int ret)
{
	if (ret == -1) {
		conv = "-1/errno";
		return errno;
	}
	if (ret > 0)
		conv = "positive errno (rdma-core 65)";
	return ret;
}

static int ctl(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = {.events = events, .data.u64 = data};

	return repoll_ctl(ep, op, fd, &ev);
}

/* ---- the server: a listener and its connections in one repoll instance --------------------------------------- */

static void echo_server(int port)
{
	struct sockaddr_in sin = addr_of(ip0, port);
	struct epoll_event evs[4];
	char buf[256];
	int one = 1, conns = 0, closed = 0;
	int ls = rsocket(AF_INET, SOCK_STREAM, 0);

	rsetsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || rbind(ls, (struct sockaddr *)&sin, sizeof(sin)) || rlisten(ls, 4)) {
		check("server-listen", 0, "%s", strerror(errno));
		return;
	}
	int ep = repoll_create(0);
	check("server-create", ep >= 0, "instance %d", ep);
	check("server-add-listener", ctl(ep, EPOLL_CTL_ADD, ls, EPOLLIN, 1000) == 0, "EPOLLIN");
	/* One connection, echoed until it closes. */
	while (closed < 1) {
		int n = repoll_wait(ep, evs, 4, 30000);
		if (n <= 0) {
			check("server-wait", 0, "repoll_wait: %d (%s)", n, n ? strerror(errno) : "timeout");
			return;
		}
		for (int k = 0; k < n; k++) {
			if (evs[k].data.u64 == 1000) {
				int c = raccept(ls, NULL, NULL);
				check("server-accept", c >= 0 && ctl(ep, EPOLL_CTL_ADD, c, EPOLLIN, (uint64_t)c) == 0,
				      "raccept %d after EPOLLIN on the listener", c);
				conns++;
				continue;
			}
			int c = (int)evs[k].data.u64;
			ssize_t r = rrecv(c, buf, sizeof(buf), MSG_DONTWAIT);
			if (r > 0) {
				if (rsend(c, buf, (size_t)r, 0) != r)
					check("server-echo", 0, "rsend: %s", strerror(errno));
			} else if (r == 0 || (r < 0 && errno != EAGAIN)) {
				ctl(ep, EPOLL_CTL_DEL, c, 0, 0);
				rclose(c);
				closed++;
			}
		}
	}
	check("server-served", conns == 1 && closed == 1, "%d connection echoed until its close", conns);
	int d = ctl(ep, EPOLL_CTL_DEL, ls, 0, 0);
	rclose(ls);
	int r = rclose(ep);
	check("server-close", d == 0 && r == 0, "EPOLL_CTL_DEL of the listener %d, rclose of the emptied instance %d", d, r);
}

/* ---- the client ------------------------------------------------------------------------------------------- */

static void rules(void)
{
	int p[2], e = repoll_create(EPOLL_CLOEXEC), e2;
	struct epoll_event evs[4];

	check("create", e >= 0, "instance %d", e);
	if (e < 0 || pipe(p))
		return;
	int r1 = err_of(ctl(e, EPOLL_CTL_ADD, -1, EPOLLIN, 0));
	int r2 = err_of(ctl(e, EPOLL_CTL_ADD, e, EPOLLIN, 0));
	int r3 = err_of(ctl(p[0], EPOLL_CTL_ADD, p[1], EPOLLIN, 0));
	int r4 = err_of(ctl(e, EPOLL_CTL_MOD, p[0], EPOLLIN, 0));
	int r5 = err_of(ctl(e, EPOLL_CTL_DEL, p[0], 0, 0));
	int r6 = ctl(e, EPOLL_CTL_ADD, p[0], EPOLLIN, 5);
	int r7 = err_of(ctl(e, EPOLL_CTL_ADD, p[0], EPOLLIN, 5));
	int r8 = err_of(ctl(e, 99, p[0], EPOLLIN, 5));
	check("ctl-errors",
	      r1 == EBADF && r2 == EINVAL && r3 == EINVAL && r4 == ENOENT && r5 == ENOENT && r6 == 0 && r7 == EEXIST &&
		      r8 == EINVAL,
	      "fd -1 %d, fd == epfd %d, not an instance %d, MOD/DEL unlisted %d/%d, ADD %d, again %d, bad op %d; as %s",
	      r1, r2, r3, r4, r5, r6, r7, r8, conv ? conv : "?");

	double t0 = now_ms();
	int n = repoll_wait(e, evs, 4, 0);
	int m = repoll_wait(e, evs, 4, 150);
	double dt = now_ms() - t0;
	check("wait-timeout", n == 0 && m == 0 && dt >= 140 && dt < 3000, "nothing ready: 0 at once, 0 after %.0f ms",
	      dt);
	if (write(p[1], "x", 1) != 1)
		return;
	n = repoll_wait(e, evs, 4, 1000);
	check("wait-pipe", n == 1 && evs[0].events == EPOLLIN && evs[0].data.u64 == 5, "%d event(s): %#x data %llu", n,
	      n > 0 ? evs[0].events : 0, n > 0 ? (unsigned long long)evs[0].data.u64 : 0ULL);
	/* Level-triggered: still ready until read. */
	n = repoll_wait(e, evs, 4, 0);
	check("level-triggered", n == 1, "reported again while unread: %d", n);

	/* EPOLLONESHOT: ours reports once until EPOLL_CTL_MOD; rdma-core 65 ignores the flag. */
	ctl(e, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLONESHOT, 6);
	n = repoll_wait(e, evs, 4, 0);
	m = repoll_wait(e, evs, 4, 0);
	check("oneshot", n == 1 && (m == 0 || m == 1), "%s", m == 0 ? "reported once (ours)" : "reported again (rdma-core 65)");

	/* A second instance, closed with a descriptor listed. */
	e2 = repoll_create(0);
	ctl(e2, EPOLL_CTL_ADD, p[1], EPOLLOUT, 9);
	int c = rclose(e2);
	if (c == EBUSY) { /* rdma-core 65 refuses: empty it first */
		ctl(e2, EPOLL_CTL_DEL, p[1], 0, 0);
		c = rclose(e2) == 0 ? EBUSY : -1;
	}
	check("close-listed", c == 0 || c == EBUSY, "%s",
	      c == 0 ? "closed (ours)" : "refused with EBUSY until emptied (rdma-core 65)");

	/* A listed descriptor closed: ours forgets it, rdma-core 65 reports it with no event bits. */
	ctl(e, EPOLL_CTL_MOD, p[0], EPOLLIN, 5);
	close(p[0]);
	close(p[1]);
	n = repoll_wait(e, evs, 4, 50);
	check("closed-descriptor", n == 0 || (n == 1 && evs[0].events == 0), "%s",
	      n == 0 ? "dropped (ours)" : "reported with no events (rdma-core 65)");
	if (n == 1)
		ctl(e, EPOLL_CTL_DEL, p[0], 0, 0);
	check("close", rclose(e) == 0, "rclose of an instance");
}

struct waiter {
	int ep, n;
	uint64_t data;
	double ms;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct epoll_event ev;
	double t0 = now_ms();

	w->n = repoll_wait(w->ep, &ev, 1, 10000);
	w->ms = now_ms() - t0;
	w->data = w->n == 1 ? ev.data.u64 : 0;
	return NULL;
}

/* A thread waiting on an empty instance sees a descriptor another thread adds, without waiting out its timeout. */
static void wake_on_ctl(void)
{
	int p[2];
	pthread_t t;
	struct waiter w = {.ep = repoll_create(0), .n = -2};

	if (w.ep < 0 || pipe(p) || write(p[1], "x", 1) != 1)
		return;
	pthread_create(&t, NULL, wait_thread, &w);
	usleep(300000);
	ctl(w.ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 77);
	pthread_join(t, NULL);
	check("wake-on-add", w.n == 1 && w.data == 77 && w.ms < 5000, "waiter got %d event(s) after %.0f ms", w.n, w.ms);
	ctl(w.ep, EPOLL_CTL_DEL, p[0], 0, 0);
	rclose(w.ep);
	close(p[0]);
	close(p[1]);
}

static void rsockets(int port)
{
	struct epoll_event evs[4];
	char buf[64];
	int rs = rs_connect(port, 0), p[2];

	check("connect", rs >= 0, "rsocket %d connected to the server", rs);
	if (rs < 0 || pipe(p))
		return;
	int e = repoll_create(0);
	ctl(e, EPOLL_CTL_ADD, rs, EPOLLOUT, 7);
	int n = repoll_wait(e, evs, 4, 5000);
	check("rsocket-out", n == 1 && (evs[0].events & EPOLLOUT) && evs[0].data.u64 == 7, "%d event(s): %#x", n,
	      n > 0 ? evs[0].events : 0);
	ctl(e, EPOLL_CTL_MOD, rs, EPOLLIN, 7);
	n = repoll_wait(e, evs, 4, 200);
	check("rsocket-in-idle", n == 0, "no data: %d", n);
	rsend(rs, "ping", 5, 0);
	double t0 = now_ms();
	n = repoll_wait(e, evs, 4, 10000);
	ssize_t r = n == 1 ? rrecv(rs, buf, sizeof(buf), 0) : -1;
	check("rsocket-in", n == 1 && evs[0].events == EPOLLIN && r == 5 && !strcmp(buf, "ping"),
	      "%d event(s) %#x after %.0f ms, then %zd bytes echoed", n, n > 0 ? evs[0].events : 0, now_ms() - t0, r);
	/* Mixed: the rsocket and a pipe, both ready. */
	if (write(p[1], "y", 1) != 1)
		return;
	ctl(e, EPOLL_CTL_ADD, p[0], EPOLLIN, 8);
	rsend(rs, "pong", 5, 0);
	/* The pipe is ready at once, the rsocket once the echo is back: wait for both, 10 s at most. */
	int seen = 0, waits = 0;
	t0 = now_ms();
	while (seen != 3 && now_ms() - t0 < 10000) {
		n = repoll_wait(e, evs, 4, 200);
		waits++;
		for (int k = 0; k < n; k++)
			seen |= evs[k].data.u64 == 7 ? 1 : evs[k].data.u64 == 8 ? 2 : 0;
	}
	check("mixed", seen == 3, "rsocket and pipe both reported (%#x) after %d waits, %.0f ms", seen, waits,
	      now_ms() - t0);
	rrecv(rs, buf, sizeof(buf), 0);
	ctl(e, EPOLL_CTL_DEL, p[0], 0, 0);
	/* The server closes when we shut down: EPOLLIN (end of stream) or EPOLLHUP. */
	rshutdown(rs, SHUT_WR);
	uint32_t got = 0;
	t0 = now_ms();
	while (!(got & (EPOLLIN | EPOLLHUP)) && now_ms() - t0 < 10000) {
		n = repoll_wait(e, evs, 4, 200);
		if (n > 0)
			got |= evs[0].events;
	}
	r = rrecv(rs, buf, sizeof(buf), 0);
	check("rsocket-hup", (got & (EPOLLIN | EPOLLHUP)) && r == 0, "events %#x, then rrecv %zd (end of stream)", got, r);
	ctl(e, EPOLL_CTL_DEL, rs, 0, 0);
	rclose(rs);
	rclose(e);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	int port = 7400 + (getpid() % 100) * 3;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ip0 = getenv("RDMA_TEST_IP0") ? getenv("RDMA_TEST_IP0") : "198.18.0.1";
	ip1 = getenv("RDMA_TEST_IP1") ? getenv("RDMA_TEST_IP1") : "198.18.0.2";
	/* RSOCK_TEST_LIBS=stock is rdma-core 44, which has no repoll (case 45 does not run this program then). */
	stock = getenv("RSOCK_TEST_LIBS") && !strcmp(getenv("RSOCK_TEST_LIBS"), "stock");
	if (stock)
		return 0;
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	/* The server first, before this process touches any RDMA device (no verbs state crosses a fork). */
	pid_t pid = server(echo_server, port);

	alarm(60);
	rules();
	alarm(60);
	wake_on_ctl();
	alarm(60);
	rsockets(port);

	int st = 0;
	waitpid(pid, &st, 0);
	check("server-exit", WIFEXITED(st) && WEXITSTATUS(st) == 0, "server exit status 0x%x", st);
	printf("rsock_repoll: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
