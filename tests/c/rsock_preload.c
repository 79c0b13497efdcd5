/* A plain TCP client/server (no RDMA calls) for running under rdma-core's librspreload.so, which turns its socket
 * calls into rsockets. The data is a known pattern, checked byte for byte by the receiver; the server answers with
 * the number of bytes it verified, which the client checks too. Exit 0 only when everything matched.
 *
 *   rsock_preload server ADDR PORT BYTES      accepts one connection, receives and verifies BYTES, replies
 *   rsock_preload client ADDR PORT BYTES      connects (retrying while refused), sends BYTES, reads the reply
 *
 * It uses what ordinary programs use: setsockopt(SO_REUSEADDR, TCP_NODELAY), poll(), getpeername(),
 * getsockname(), send() in odd-sized pieces and recv() into a small buffer. Built without -lrdmacm (see
 * tests/c/compile.sh) so that librspreload's librdmacm is the one LD_LIBRARY_PATH selects.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned char pattern(uint64_t i)
{
	return (unsigned char)((i * 131u + (i >> 11) * 7u + 5u) & 0xff);
}

static int die(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	return 1;
}

static int recv_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = recv(fd, (char *)buf + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin, peer;
	socklen_t plen = sizeof(peer);
	unsigned char buf[7000];
	uint64_t bytes, done = 0, reply = 0;
	int fd, c, one = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: %s server|client ADDR PORT BYTES\n", argv[0]);
		return 2;
	}
	bytes = strtoull(argv[4], NULL, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
		return 2;

	if (!strcmp(argv[1], "server")) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return die("socket");
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
			return die("setsockopt SO_REUSEADDR");
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 4))
			return die("bind/listen");
		printf("listening on %s:%s\n", argv[2], argv[3]);
		fflush(stdout);
		c = accept(fd, (struct sockaddr *)&peer, &plen);
		if (c < 0)
			return die("accept");
		printf("accepted %s:%u\n", inet_ntoa(peer.sin_addr), ntohs(peer.sin_port));
		while (done < bytes) {
			struct pollfd p = { .fd = c, .events = POLLIN };
			if (poll(&p, 1, 20000) != 1)
				return die("poll");
			ssize_t n = recv(c, buf, sizeof(buf), 0);
			if (n <= 0) {
				printf("FAIL recv: %zd after %llu bytes: %s\n", n, (unsigned long long)done,
				       strerror(errno));
				return 1;
			}
			for (ssize_t i = 0; i < n; i++, done++) {
				if (buf[i] != pattern(done)) {
					printf("FAIL data: byte %llu is %u, expected %u\n", (unsigned long long)done,
					       buf[i], pattern(done));
					return 1;
				}
			}
		}
		reply = done;
		if (send(c, &reply, sizeof(reply), 0) != sizeof(reply))
			return die("send reply");
		/* Wait for the client's close: end of stream. */
		if (recv(c, buf, 1, 0) != 0)
			return die("end of stream");
		printf("verified %llu bytes\n", (unsigned long long)done);
		close(c);
		close(fd);
		return 0;
	}

	for (int attempt = 0;; attempt++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return die("socket");
		if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			break;
		if (attempt == 50)
			return die("connect");
		close(fd);
		usleep(200000);
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return die("setsockopt TCP_NODELAY");
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) || peer.sin_port != sin.sin_port)
		return die("getpeername");
	plen = sizeof(peer);
	if (getsockname(fd, (struct sockaddr *)&peer, &plen) || peer.sin_family != AF_INET)
		return die("getsockname");
	size_t piece = 1;
	while (done < bytes) {
		size_t n = piece;
		if (n > bytes - done)
			n = (size_t)(bytes - done);
		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(done + i);
		ssize_t s = send(fd, buf, n, 0);
		if (s <= 0)
			return die("send");
		done += (uint64_t)s;
		piece = piece * 3 + 1;
		if (piece > sizeof(buf))
			piece = 1 + piece % 1000;
	}
	if (recv_all(fd, &reply, sizeof(reply)))
		return die("recv reply");
	if (reply != bytes) {
		printf("FAIL reply: server verified %llu of %llu bytes\n", (unsigned long long)reply,
		       (unsigned long long)bytes);
		return 1;
	}
	printf("sent %llu bytes, server verified %llu\n", (unsigned long long)done, (unsigned long long)reply);
	close(fd);
	return 0;
}
