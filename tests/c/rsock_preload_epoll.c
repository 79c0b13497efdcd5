/* A plain TCP server and client (no RDMA calls) driven by epoll, for running under rdma-core 65's librspreload.so,
 * which turns their sockets into rsockets and their epoll calls into repoll_create / repoll_ctl / repoll_wait. What
 * event-driven programs do: sockets made with SOCK_CLOEXEC (and SOCK_NONBLOCK), epoll_create1(EPOLL_CLOEXEC),
 * accept4(SOCK_NONBLOCK | SOCK_CLOEXEC), EPOLL_CTL_ADD / MOD / DEL with user data, non-blocking I/O until EAGAIN,
 * fewer events per epoll_wait than connections. The data is a known pattern per connection,
 * checked byte for byte; the server answers each connection with the number of bytes it verified. Exit 0 only when
 * everything matched.
 *
 *   rsock_preload_epoll server ADDR PORT CONNS BYTES   accepts CONNS connections, receives BYTES on each, replies
 *   rsock_preload_epoll client ADDR PORT CONNS BYTES   opens CONNS connections, sends BYTES on each, reads replies
 *
 * Built without -lrdmacm (tests/c/compile.sh), so that librspreload's librdmacm is the one LD_LIBRARY_PATH selects.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXC 8

static unsigned char pattern(unsigned conn, uint64_t i)
{
	return (unsigned char)((i * 131u + (i >> 11) * 7u + 5u + conn * 17u) & 0xff);
}

static int die(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	return 1;
}

/* An epoll_ctl that must fail with errno E. rdma-core 65's librspreload returns repoll_ctl's result, which is the
 * positive errno there (ours: -1 and errno, as epoll_ctl(2)); either is accepted. */
static int fails_with(int ret, int e)
{
	return (ret == -1 && errno == e) || ret == e;
}

struct conn {
	int fd;
	uint64_t done;	/* bytes sent or verified */
	int replied;	/* server: reply sent; client: reply read */
};

static int server(struct sockaddr_in *sin, unsigned nconn, uint64_t bytes)
{
	struct conn c[MAXC];
	struct epoll_event ev, evs[4];
	unsigned char buf[5000];
	unsigned accepted = 0, finished = 0;
	int one = 1;

	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0)
		return die("socket");
	if (setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		return die("setsockopt SO_REUSEADDR");
	if (bind(ls, (struct sockaddr *)sin, sizeof(*sin)) || listen(ls, MAXC))
		return die("bind/listen");
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return die("epoll_create1");
	ev.events = EPOLLIN;
	ev.data.u64 = 1000;	/* the listener */
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev))
		return die("epoll_ctl ADD listener");
	if (!fails_with(epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev), EEXIST))
		return die("epoll_ctl ADD twice (expected EEXIST)");
	printf("listening\n");
	fflush(stdout);
	while (finished < nconn) {
		int n = epoll_wait(ep, evs, 4, 20000);
		if (n <= 0) {
			printf("FAIL epoll_wait: %d (%s) with %u of %u connections finished\n", n,
			       n ? strerror(errno) : "timeout", finished, nconn);
			return 1;
		}
		for (int k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;
			if (id == 1000) {
				int fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0) {
					if (errno == EAGAIN)
						continue;
					return die("accept4");
				}
				int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
				if (fl < 0 || !(fl & O_NONBLOCK) || fdfl < 0 || !(fdfl & FD_CLOEXEC)) {
					printf("FAIL accept4 flags: F_GETFL %#x F_GETFD %#x\n", fl, fdfl);
					return 1;
				}
				if (accepted == nconn) {
					printf("FAIL accept: more than %u connections\n", nconn);
					return 1;
				}
				c[accepted] = (struct conn){.fd = fd};
				ev.events = EPOLLIN | EPOLLRDHUP;
				ev.data.u64 = accepted;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
					return die("epoll_ctl ADD connection");
				accepted++;
				continue;
			}
			if (id >= accepted) {
				printf("FAIL epoll_wait: event with unknown data %llu\n", (unsigned long long)id);
				return 1;
			}
			struct conn *x = &c[id];
			for (;;) {
				ssize_t r = recv(x->fd, buf, sizeof(buf), 0);
				if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
					break;
				if (r < 0)
					return die("recv");
				if (r == 0) {
					/* End of stream after the reply: done with this connection. */
					if (!x->replied) {
						printf("FAIL recv: end of stream on connection %llu after %llu bytes\n",
						       (unsigned long long)id, (unsigned long long)x->done);
						return 1;
					}
					if (epoll_ctl(ep, EPOLL_CTL_DEL, x->fd, NULL))
						return die("epoll_ctl DEL");
					close(x->fd);
					finished++;
					break;
				}
				for (ssize_t i = 0; i < r; i++, x->done++) {
					if (x->done >= bytes || buf[i] != pattern((unsigned)id, x->done)) {
						printf("FAIL data: connection %llu byte %llu is %u, expected %u\n",
						       (unsigned long long)id, (unsigned long long)x->done, buf[i],
						       pattern((unsigned)id, x->done));
						return 1;
					}
				}
				if (x->done == bytes && !x->replied) {
					uint64_t reply = x->done;
					if (send(x->fd, &reply, sizeof(reply), 0) != sizeof(reply))
						return die("send reply");
					x->replied = 1;
				}
			}
		}
	}
	/* The listener leaves the list first: rdma-core 65 refuses to close an instance with descriptors listed (ours
	 * and epoll(7) allow it: tests/c/rsock_repoll.c). */
	if (epoll_ctl(ep, EPOLL_CTL_DEL, ls, NULL))
		return die("epoll_ctl DEL listener");
	if (close(ep))
		return die("close epoll");
	close(ls);
	printf("verified %u connections of %llu bytes\n", nconn, (unsigned long long)bytes);
	return 0;
}

static int client(struct sockaddr_in *sin, unsigned nconn, uint64_t bytes)
{
	struct conn c[MAXC];
	struct epoll_event ev, evs[2];
	unsigned char buf[7000];
	unsigned finished = 0;

	for (unsigned i = 0; i < nconn; i++) {
		for (int attempt = 0;; attempt++) {
			c[i] = (struct conn){.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
			if (c[i].fd < 0)
				return die("socket");
			if (!connect(c[i].fd, (struct sockaddr *)sin, sizeof(*sin)))
				break;
			if (attempt == 50)
				return die("connect");
			close(c[i].fd);
			usleep(200000);
		}
		if (fcntl(c[i].fd, F_SETFL, fcntl(c[i].fd, F_GETFL) | O_NONBLOCK))
			return die("fcntl O_NONBLOCK");
	}
	int ep = epoll_create(4);
	if (ep < 0)
		return die("epoll_create");
	for (unsigned i = 0; i < nconn; i++) {
		ev.events = EPOLLOUT;
		ev.data.u64 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev))
			return die("epoll_ctl ADD");
	}
	int pfd[2];
	if (pipe(pfd))
		return die("pipe");
	if (!fails_with(epoll_ctl(ep, EPOLL_CTL_MOD, pfd[0], &ev), ENOENT))
		return die("epoll_ctl MOD of an unlisted descriptor (expected ENOENT)");
	close(pfd[0]);
	close(pfd[1]);
	while (finished < nconn) {
		/* At most 2 events at a time: more connections than that must all be served in turn. */
		int n = epoll_wait(ep, evs, 2, 20000);
		if (n <= 0) {
			printf("FAIL epoll_wait: %d (%s) with %u of %u connections finished\n", n,
			       n ? strerror(errno) : "timeout", finished, nconn);
			return 1;
		}
		for (int k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;
			if (id >= nconn) {
				printf("FAIL epoll_wait: event with unknown data %llu\n", (unsigned long long)id);
				return 1;
			}
			struct conn *x = &c[id];
			if (x->done < bytes) {
				if (!(evs[k].events & EPOLLOUT)) {
					printf("FAIL epoll_wait: events %#x while sending\n", evs[k].events);
					return 1;
				}
				/* Send until the window is full (EAGAIN) or everything is out. */
				while (x->done < bytes) {
					size_t len = sizeof(buf);
					if (len > bytes - x->done)
						len = (size_t)(bytes - x->done);
					for (size_t i = 0; i < len; i++)
						buf[i] = pattern((unsigned)id, x->done + i);
					ssize_t s = send(x->fd, buf, len, 0);
					if (s < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
						break;
					if (s <= 0)
						return die("send");
					x->done += (uint64_t)s;
				}
				if (x->done == bytes) {
					ev.events = EPOLLIN;
					ev.data.u64 = id;
					if (epoll_ctl(ep, EPOLL_CTL_MOD, x->fd, &ev))
						return die("epoll_ctl MOD");
				}
				continue;
			}
			uint64_t reply = 0;
			ssize_t r = recv(x->fd, &reply, sizeof(reply), 0);
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r != sizeof(reply) || reply != bytes) {
				printf("FAIL reply: connection %llu: %zd bytes, server verified %llu of %llu\n",
				       (unsigned long long)id, r, (unsigned long long)reply, (unsigned long long)bytes);
				return 1;
			}
			if (epoll_ctl(ep, EPOLL_CTL_DEL, x->fd, NULL))
				return die("epoll_ctl DEL");
			close(x->fd);
			finished++;
		}
	}
	if (close(ep))
		return die("close epoll");
	printf("sent %u connections of %llu bytes, all verified\n", nconn, (unsigned long long)bytes);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;

	if (argc != 6) {
		fprintf(stderr, "usage: %s server|client ADDR PORT CONNS BYTES\n", argv[0]);
		return 2;
	}
	unsigned nconn = (unsigned)atoi(argv[4]);
	uint64_t bytes = strtoull(argv[5], NULL, 0);
	if (nconn < 1 || nconn > MAXC || bytes < 1)
		return 2;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "server"))
		return server(&sin, nconn, bytes);
	return client(&sin, nconn, bytes);
}
