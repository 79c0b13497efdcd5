/* A hostile peer for rsockets (issue 25; guest case 58-hostile, docs/testing.md "Hostile peers").
 *
 *   hostile_rsock victim [SCENARIO...]   the rsockets under test: a stream listener (and, for the scenarios where
 *                                        the peer is the server, a connecting client) and a datagram rsocket, plus a
 *                                        healthy stream connection of its own moving data all along in two threads
 *   hostile_rsock liar SCENARIO PORT     the lying peer: speaks the rsocket wire itself over real RC and UD QPs with
 *                                        librdmacm and libibverbs verbs (never rsockets), one scenario per connection
 *   hostile_rsock list                   the scenario names, one a line
 *
 * The victim starts one liar per scenario (HOSTILE_LIAR: the program to run, default this one; HOSTILE_LIAR_LIBS:
 * the LD_LIBRARY_PATH it gets, e.g. rdma-core's, so that the liar does not depend on the libraries under test),
 * waits for what its rsocket does with the lie, bounded by HOSTILE_DEADLINE_MS (default 3000), and prints one line
 * per scenario:
 *
 *   SCEN <name> <outcome> | <what the liar saw>
 *
 * outcome: "error <ERRNO>" (a call failed: what an rsocket must answer a lie with), "eof after N B", "read N B
 * (K not as written)" (data delivered, some of it never written by the peer), "hang after N B" (nothing within
 * the deadline), "rejected" (the connection data was refused), "connect error <ERRNO>", "accepted" (a lying
 * connection data was taken), "dropped" (datagrams: the lie was not delivered, the next datagram was),
 * "delivered <N> B" (datagrams: the lie was), "no exchange" (datagrams never arrived at all). With
 * HOSTILE_EXPECT=ours (the default) each scenario is also a check: PASS when the outcome is what our rsockets
 * promise (docs/cm.md, "Peer input"): an error EPROTO or ECONNRESET on that socket, a refused connection, a dropped
 * datagram; and the healthy connection must still move its data at the end. HOSTILE_EXPECT=none only prints the
 * outcomes (rdma-core's run, one scenario per process: case 58 classifies crashes and hangs from outside).
 *
 * Addresses: RDMA_TEST_IP0 (the victim's, rxe0) and RDMA_TEST_IP1 (the liar's and the healthy client's, rxe1);
 * ports from HOSTILE_PORT (default 7900 + pid % 50 * 8). The liar uses RDMA_TEST_GID1 as the source GID index of
 * its UD address handle.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "rsockutil.h"

extern char **environ;

/* ---- the rsocket wire, as facts (rdma-core's rsocket.c; our rdmacm/src/rsocket/wire.rs) ---------------------- */

enum { OP_DATA = 0, OP_RSVD1 = 1, OP_WRITE = 2, OP_RSVD3 = 3, OP_SGL = 4, OP_RSVD5 = 5, OP_IOMAP_SGL = 6, OP_CTRL = 7 };
enum { CTRL_DISCONNECT = 0, CTRL_KEEPALIVE = 1, CTRL_SHUTDOWN = 2 };
#define MSG(op, data) (((uint32_t)(op) << 29) | ((uint32_t)(data) & 0x1FFFFFFF))
#define CONN_FLAG_IOMAP 2
#define UDP_TAG 0x55555555u
#define UDP_QKEY 0x01234567u

struct sge { uint64_t addr; uint32_t key, length; };   /* struct rs_sge, in the receiver's byte order */
struct iomap { uint64_t offset; struct sge sge; };     /* struct rs_iomap */

/* The 40 bytes of connection data (big-endian on the wire). */
struct cdata {
	uint8_t version, flags, iomap_size;
	uint16_t credits;
	struct sge tsgl, dbuf;
};

static void cd_put(uint8_t *b, const struct cdata *c)
{
	const struct sge *s[2] = { &c->tsgl, &c->dbuf };

	memset(b, 0, 40);
	b[0] = c->version;
	b[1] = c->flags;
	b[2] = (uint8_t)(c->credits >> 8);
	b[3] = (uint8_t)c->credits;
	b[7] = c->iomap_size;
	for (int i = 0; i < 2; i++) {
		uint64_t a = htobe64(s[i]->addr);
		uint32_t k = htobe32(s[i]->key), l = htobe32(s[i]->length);

		memcpy(b + 8 + 16 * i, &a, 8);
		memcpy(b + 16 + 16 * i, &k, 4);
		memcpy(b + 20 + 16 * i, &l, 4);
	}
}

static int cd_get(const void *p, int len, struct cdata *c)
{
	const uint8_t *b = p;
	struct sge *s[2] = { &c->tsgl, &c->dbuf };

	if (!p || len < 40)
		return -1;
	c->version = b[0];
	c->flags = b[1];
	c->credits = (uint16_t)(b[2] << 8 | b[3]);
	c->iomap_size = b[7];
	for (int i = 0; i < 2; i++) {
		uint64_t a;
		uint32_t k, l;

		memcpy(&a, b + 8 + 16 * i, 8);
		memcpy(&k, b + 16 + 16 * i, 4);
		memcpy(&l, b + 20 + 16 * i, 4);
		s[i]->addr = be64toh(a);
		s[i]->key = be32toh(k);
		s[i]->length = be32toh(l);
	}
	return 0;
}

/* ---- common --------------------------------------------------------------------------------------------------- */

static int base_port, deadline_ms = 3000;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *ename(int e)
{
	static char b[32];

	switch (e) {
	case EPROTO: return "EPROTO";
	case ECONNRESET: return "ECONNRESET";
	case EIO: return "EIO";
	case EPIPE: return "EPIPE";
	case EINVAL: return "EINVAL";
	case ENOTCONN: return "ENOTCONN";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EAGAIN: return "EAGAIN";
	case EBADF: return "EBADF";
	case ENODATA: return "ENODATA";
	default: snprintf(b, sizeof(b), "errno%d", e); return b;
	}
}

/* The bytes an honest writer of this program sends at stream offset i. */
static uint8_t pat(uint64_t i)
{
	return (uint8_t)('A' + i % 26);
}

/* ---- the scenarios ------------------------------------------------------------------------------------------ */

/* What the victim does with the connection the liar made: read; poll without reading first (the liar overruns
 * the credits), then read; send; riowrite; nothing (the handshake is the lie); connect to the liar (the liar is
 * the server), then read; datagrams. */
enum act { READ, POLLREAD, SEND, IOWRITE, HANDSHAKE, CONNECT, CONNECT_READ, DGRAM };

struct scen {
	const char *name;
	enum act act;
	const char *what;   /* the lie, for the table */
};

static const struct scen scens[] = {
	{ "data-past-buffer", READ, "a data message announcing 1 MB after writing 16 bytes" },
	{ "data-past-granted", READ, "three data messages of half the receive buffer each (1.5 buffers, 1 half granted)" },
	{ "data-unwritten", READ, "a data message of 1000 bytes with an RDMA write of none" },
	{ "data-short-write", READ, "a data message of 100 bytes with an RDMA write of 10" },
	{ "credits-huge", READ, "a credit grant 40000 messages ahead" },
	{ "credits-behind", READ, "a credit grant behind the send sequence (negative credits)" },
	{ "credits-29bit", READ, "a credit grant of 0x1FFFFFFF" },
	{ "credit-flood", READ, "300 credit grants that grant nothing" },
	{ "overrun-credits", POLLREAD, "8 data messages more than the credits granted" },
	{ "sgl-outside-buffer", SEND, "a target SGL entry pointing at another buffer of the peer" },
	{ "sgl-huge-length", SEND, "a target SGL entry of length 0xFFFFFFFF" },
	{ "sgl-wraps", SEND, "a target SGL entry whose address + length wraps around" },
	{ "sgl-bad-key", SEND, "a target SGL entry with another rkey than the receive buffer's" },
	{ "iomap-slot-past-table", READ, "an iomap announcement naming slot 1000 of a 4-slot table" },
	{ "iomap-entry-wraps", IOWRITE, "an iomap entry whose offset + length wraps around" },
	{ "iomap-past-mr", IOWRITE, "an iomap entry of 1 MB over a 4 KB registration, riowrite past it" },
	{ "op-reserved-1", READ, "a write with immediate of reserved operation 1, 10 bytes" },
	{ "op-write", READ, "a write with immediate of operation 2 (OP_WRITE, never sent with immediate)" },
	{ "op-reserved-5", READ, "a write with immediate of reserved operation 5, no data" },
	{ "ctrl-unknown", READ, "a control message of unknown code 77" },
	{ "shutdown-then-data", READ, "100 bytes, a shutdown, then 100 bytes more" },
	{ "disconnect-then-data", READ, "a disconnect, then 100 bytes" },
	{ "send-no-imm", READ, "a zero-length SEND without immediate data" },
	{ "conn-short", HANDSHAKE, "20 bytes of connection data in the REQ" },
	{ "conn-version-2", HANDSHAKE, "connection data of version 2" },
	{ "conn-sgl-1", HANDSHAKE, "a target SGL of 1 entry" },
	{ "conn-buf-wraps", HANDSHAKE, "a receive buffer at 2^64 - 100" },
	{ "rep-version-2", CONNECT, "the server answers with connection data of version 2" },
	{ "rep-sgl-0", CONNECT, "the server answers with a target SGL of 0 entries" },
	{ "client-data-past-buffer", CONNECT_READ, "as data-past-buffer, the rsocket being the client" },
	{ "client-credits-huge", CONNECT_READ, "as credits-huge, the rsocket being the client" },
	{ "udp-bad-tag", DGRAM, "an address-service message with a wrong tag" },
	{ "udp-bad-version", DGRAM, "an address-service message of version 6 from an IPv4 address" },
	{ "udp-truncated", DGRAM, "an address-service message of 9 bytes" },
	{ "udp-op-unknown", DGRAM, "an address-service message of operation 3" },
	{ "udp-qpn-zero", DGRAM, "an address-service datagram naming QP 0" },
	{ "udp-ctrl-data", DGRAM, "an address-service reply carrying 50 bytes" },
	{ "udp-forged-reply", DGRAM, "an address-service reply from an address the rsocket never wrote to" },
	{ "udp-oversize", DGRAM, "an address-service datagram of 4000 bytes" },
	{ "ud-bad-version", DGRAM, "a UD datagram whose header has version 5" },
	{ "ud-bad-length", DGRAM, "a UD datagram whose IPv4 header says length 24" },
	{ "ud-truncated", DGRAM, "a UD datagram of 5 bytes" },
};
#define NSCEN ((int)(sizeof(scens) / sizeof(scens[0])))

static const struct scen *find_scen(const char *n)
{
	for (int i = 0; i < NSCEN; i++)
		if (!strcmp(scens[i].name, n))
			return &scens[i];
	return NULL;
}

/* ---- the liar ------------------------------------------------------------------------------------------------ */

#define LQ 512          /* the liar's receive queue, and the credits it grants */
#define LRBUF 65536     /* its receive buffer */

struct liar {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id, *lid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *tmr, *rmr, *smr, *iomr;
	uint8_t *tgt, *rbuf, *sbuf, *io;
	struct cdata v;  /* the victim's connection data */
	uint64_t honest; /* bytes of honest data sent so far (their pattern offset) */
	int outstanding;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("liar: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

/* The next CM event within ms milliseconds (acknowledged; its type, status and private data copied). */
static int next_event(struct liar *l, int ms, enum rdma_cm_event_type *type, int *status, uint8_t *pdata, int *plen,
		      struct rdma_cm_id **id)
{
	struct pollfd p = { .fd = l->ec->fd, .events = POLLIN };
	struct rdma_cm_event *e;

	if (poll(&p, 1, ms) <= 0)
		return -1;
	if (rdma_get_cm_event(l->ec, &e))
		return -1;
	*type = e->event;
	if (status)
		*status = e->status;
	if (id)
		*id = e->id;
	if (plen) {
		*plen = e->param.conn.private_data ? e->param.conn.private_data_len : 0;
		if (*plen > 0)
			memcpy(pdata, e->param.conn.private_data, (size_t)*plen);
	}
	rdma_ack_cm_event(e);
	return 0;
}

static int wait_event(struct liar *l, enum rdma_cm_event_type want, int ms, uint8_t *pdata, int *plen)
{
	enum rdma_cm_event_type t;
	int st;

	if (next_event(l, ms, &t, &st, pdata, plen, NULL))
		return -1;
	if (t != want) {
		say("event %s (status %d), waited for %s", rdma_event_str(t), st, rdma_event_str(want));
		return (int)t + 1000;
	}
	return 0;
}

static void *reg(struct ibv_pd *pd, size_t len, struct ibv_mr **mr)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		return NULL;
	memset(p, 0, len);
	*mr = ibv_reg_mr(pd, p, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	return *mr ? p : NULL;
}

/* PD, CQ, RC QP on the id, buffers registered, LQ zero-length receives posted. */
static int liar_qp(struct liar *l, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a;

	l->pd = ibv_alloc_pd(id->verbs);
	l->cq = l->pd ? ibv_create_cq(id->verbs, 2048, NULL, NULL, 0) : NULL;
	if (!l->cq)
		return -1;
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = l->cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 512;
	a.cap.max_recv_wr = LQ;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = 64;
	if (rdma_create_qp(id, l->pd, &a))
		return -1;
	l->tgt = reg(l->pd, 4096, &l->tmr);
	l->rbuf = reg(l->pd, LRBUF, &l->rmr);
	l->sbuf = reg(l->pd, 1 << 20, &l->smr);
	l->io = reg(l->pd, 4096, &l->iomr);
	if (!l->tgt || !l->rbuf || !l->sbuf || !l->io)
		return -1;
	for (int i = 0; i < LQ; i++) {
		struct ibv_recv_wr wr = { .wr_id = 1ull << 63 }, *bad;

		if (ibv_post_recv(id->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/* The liar's own connection data: an honest one (the lies are in what follows), unless a scenario changes it. */
static struct cdata liar_cd(struct liar *l)
{
	struct cdata c = { .version = 1, .flags = CONN_FLAG_IOMAP, .credits = 64, .iomap_size = 4 };

	c.tsgl = (struct sge){ (uintptr_t)l->tgt, l->tmr->rkey, 2 };
	c.dbuf = (struct sge){ (uintptr_t)l->rbuf, l->rmr->rkey, LRBUF / 2 };
	return c;
}

/* Waits until every posted send completed; -1 when one failed (the victim broke the connection) or none came. */
static int drain(struct liar *l)
{
	uint64_t end = now_ms() + 5000;
	int failed = 0;

	while (l->outstanding > 0 && now_ms() < end) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(l->cq, 16, wc);

		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id >> 63)
				continue;  /* a receive: the victim's credits or data */
			l->outstanding--;
			if (wc[i].status != IBV_WC_SUCCESS)
				failed = 1;
		}
		if (n == 0)
			usleep(200);
	}
	return failed || l->outstanding ? -1 : 0;
}

/* Posts one write: with immediate data `imm` (host order) unless imm_on is 0, or a SEND (opcode send); len bytes
 * of the liar's send buffer, starting at sbuf offset `off`. Signalled; drained every 32. */
static int post(struct liar *l, int opcode, uint64_t raddr, uint32_t rkey, size_t off, uint32_t len, uint32_t imm)
{
	struct ibv_sge sg = { (uintptr_t)l->sbuf + off, len, l->smr->lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = len ? &sg : NULL;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = opcode;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(l->id->qp, &wr, &bad))
		return -1;
	if (++l->outstanding >= 32)
		return drain(l);
	return 0;
}

/* An RDMA write with immediate `imm` of len bytes at the victim's receive buffer offset `at`; honest bytes
 * (the pattern at the stream offset) unless `garbage`. */
static int wimm(struct liar *l, uint64_t at, uint32_t len, uint32_t imm)
{
	for (uint32_t i = 0; i < len; i++)
		l->sbuf[i] = pat(l->honest + i);
	l->honest += len;
	return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr + at, l->v.dbuf.key, 0, len, imm);
}

/* A plain RDMA write of `len` bytes of `data` at the victim's `raddr` (its target SGL or iomap table). */
static int wraw(struct liar *l, uint64_t raddr, const void *data, uint32_t len, int with_imm, uint32_t imm)
{
	memcpy(l->sbuf + 65536, data, len);
	return post(l, with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE, raddr, l->v.tsgl.key, 65536, len, imm);
}

/* The victim's iomap table. */
static uint64_t v_iomap(struct liar *l, int slot)
{
	return l->v.tsgl.addr + 16ull * l->v.tsgl.length + 24ull * (unsigned)slot;
}

/* The lies after the connection is up. */
static int lie(struct liar *l, const char *s)
{
	uint32_t half = l->v.dbuf.length;
	struct sge e;
	struct iomap m;
	int r = 0;

	if (!strcmp(s, "data-past-buffer") || !strcmp(s, "client-data-past-buffer"))
		return wimm(l, 0, 16, MSG(OP_DATA, 1 << 20));
	if (!strcmp(s, "data-past-granted")) {
		for (int i = 0; i < 3 && !r; i++)
			r = wimm(l, (uint64_t)(i % 2) * half, half, MSG(OP_DATA, half));
		return r;
	}
	if (!strcmp(s, "data-unwritten"))
		return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_DATA, 1000));
	if (!strcmp(s, "data-short-write"))
		return wimm(l, 0, 10, MSG(OP_DATA, 100));
	if (!strcmp(s, "credits-huge") || !strcmp(s, "client-credits-huge"))
		return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_SGL, 40000));
	if (!strcmp(s, "credits-behind"))
		return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_SGL, 0xFFFF));
	if (!strcmp(s, "credits-29bit"))
		return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_SGL, 0x1FFFFFFF));
	if (!strcmp(s, "credit-flood")) {
		for (int i = 0; i < 300 && !r; i++)
			r = post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_SGL, 64));
		return r;
	}
	if (!strcmp(s, "overrun-credits")) {
		for (int i = 0; i < l->v.credits + 8 && !r; i++)
			r = wimm(l, (uint64_t)i, 1, MSG(OP_DATA, 1));
		return r;
	}
	if (!strncmp(s, "sgl-", 4)) {
		if (!strcmp(s, "sgl-outside-buffer"))
			e = (struct sge){ (uintptr_t)l->io, l->iomr->rkey, 4096 };
		else if (!strcmp(s, "sgl-huge-length"))
			e = (struct sge){ (uintptr_t)l->rbuf, l->rmr->rkey, 0xFFFFFFFFu };
		else if (!strcmp(s, "sgl-wraps"))
			e = (struct sge){ UINT64_MAX - 100, l->rmr->rkey, 4096 };
		else
			e = (struct sge){ (uintptr_t)l->rbuf, l->rmr->rkey + 1, 4096 };
		/* Entry 0 is the one the victim writes into first; then a grant that brings it (credits unchanged). */
		return wraw(l, l->v.tsgl.addr, &e, sizeof(e), 1, MSG(OP_SGL, 64));
	}
	if (!strcmp(s, "iomap-slot-past-table")) {
		m = (struct iomap){ 0, { (uintptr_t)l->io, l->iomr->rkey, 4096 } };
		return wraw(l, v_iomap(l, 0), &m, sizeof(m), 1, MSG(OP_IOMAP_SGL, 1000));
	}
	if (!strcmp(s, "iomap-entry-wraps")) {
		m = (struct iomap){ UINT64_MAX - 10, { (uintptr_t)l->io, l->iomr->rkey, 100 } };
		return wraw(l, v_iomap(l, 0), &m, sizeof(m), 1, MSG(OP_IOMAP_SGL, 0));
	}
	if (!strcmp(s, "iomap-past-mr")) {
		m = (struct iomap){ 0, { (uintptr_t)l->io, l->iomr->rkey, 1 << 20 } };
		return wraw(l, v_iomap(l, 0), &m, sizeof(m), 1, MSG(OP_IOMAP_SGL, 0));
	}
	if (!strcmp(s, "op-reserved-1"))
		return wimm(l, 0, 10, MSG(OP_RSVD1, 10));
	if (!strcmp(s, "op-write"))
		return wimm(l, 0, 10, MSG(OP_WRITE, 10));
	if (!strcmp(s, "op-reserved-5"))
		return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_RSVD5, 0));
	if (!strcmp(s, "ctrl-unknown"))
		return post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_CTRL, 77));
	if (!strcmp(s, "shutdown-then-data")) {
		r = wimm(l, 0, 100, MSG(OP_DATA, 100));
		r = r ? r : post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0,
				 MSG(OP_CTRL, CTRL_SHUTDOWN));
		return r ? r : wimm(l, 100, 100, MSG(OP_DATA, 100));
	}
	if (!strcmp(s, "disconnect-then-data")) {
		r = post(l, IBV_WR_RDMA_WRITE_WITH_IMM, l->v.dbuf.addr, l->v.dbuf.key, 0, 0, MSG(OP_CTRL, CTRL_DISCONNECT));
		return r ? r : wimm(l, 0, 100, MSG(OP_DATA, 100));
	}
	if (!strcmp(s, "send-no-imm"))
		return post(l, IBV_WR_SEND, 0, 0, 0, 0, 0);
	return 0;
}

/* Stays until the victim disconnects (at most 8 s): the liar must not leave before the victim has judged. */
static void liar_wait_disconnect(struct liar *l, uint64_t t0)
{
	enum rdma_cm_event_type t;
	uint64_t end = now_ms() + 8000;

	while (now_ms() < end) {
		if (next_event(l, 100, &t, NULL, NULL, NULL, NULL))
			continue;
		if (t == RDMA_CM_EVENT_DISCONNECTED) {
			say("disconnected by the rsocket %llu ms after the lie", (unsigned long long)(now_ms() - t0));
			rdma_disconnect(l->id);
			return;
		}
	}
	say("no disconnect within 8 s");
}

/* What the rsocket wrote where it should not have: bytes of the liar's other buffer (never handed out as a
 * receive buffer; only lying SGL entries point at it). */
static void liar_check_io(struct liar *l)
{
	int n = 0;

	for (int i = 0; i < 4096; i++)
		n += l->io[i] != 0;
	if (n)
		say("the rsocket wrote %d bytes into a buffer it was never given", n);
}

static void liar_free(struct liar *l)
{
	if (l->id && l->id->qp)
		rdma_destroy_qp(l->id);
	if (l->tmr) ibv_dereg_mr(l->tmr);
	if (l->rmr) ibv_dereg_mr(l->rmr);
	if (l->smr) ibv_dereg_mr(l->smr);
	if (l->iomr) ibv_dereg_mr(l->iomr);
	if (l->cq) ibv_destroy_cq(l->cq);
	if (l->pd) ibv_dealloc_pd(l->pd);
	if (l->id) rdma_destroy_id(l->id);
	if (l->lid) rdma_destroy_id(l->lid);
	if (l->ec) rdma_destroy_event_channel(l->ec);
}

/* The liar as a client of the victim's listener (port). */
static int liar_client(struct liar *l, const char *s, int port)
{
	struct sockaddr_in src = addr_of(ip1, 0), dst = addr_of(ip0, port);
	struct rdma_conn_param p;
	uint8_t pd[256], mine[64];
	int plen = 0, r;
	uint64_t t0;

	if (rdma_create_id(l->ec, &l->id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(l->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) ||
	    wait_event(l, RDMA_CM_EVENT_ADDR_RESOLVED, 3000, NULL, NULL) || rdma_resolve_route(l->id, 2000) ||
	    wait_event(l, RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, NULL, NULL) || liar_qp(l, l->id)) {
		say("set-up failed: %s", strerror(errno));
		return 2;
	}
	struct cdata c = liar_cd(l);
	if (!strcmp(s, "conn-version-2"))
		c.version = 2;
	else if (!strcmp(s, "conn-sgl-1"))
		c.tsgl.length = 1;
	else if (!strcmp(s, "conn-buf-wraps"))
		c.dbuf.addr = UINT64_MAX - 100;
	cd_put(mine, &c);
	memset(&p, 0, sizeof(p));
	p.private_data = mine;
	p.private_data_len = !strcmp(s, "conn-short") ? 20 : 40;
	p.flow_control = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.responder_resources = p.initiator_depth = 1;
	if (rdma_connect(l->id, &p)) {
		say("rdma_connect: %s", strerror(errno));
		return 2;
	}
	r = wait_event(l, RDMA_CM_EVENT_ESTABLISHED, 5000, pd, &plen);
	if (r == RDMA_CM_EVENT_REJECTED + 1000) {
		say("rejected");
		return 0;
	}
	if (r) {
		say("no connection (%d)", r);
		return 2;
	}
	if (cd_get(pd, plen, &l->v)) {
		say("the rsocket's connection data is short (%d bytes)", plen);
		return 2;
	}
	t0 = now_ms();
	if (find_scen(s)->act == HANDSHAKE)
		say("accepted");
	else if (lie(l, s) || drain(l))
		say("the lie did not go through entirely (the rsocket broke the connection first)");
	else
		say("lie sent");
	liar_wait_disconnect(l, t0);
	liar_check_io(l);
	return 0;
}

/* The liar as the server the victim connects to (port, on ip1). */
static int liar_server(struct liar *l, const char *s, int port)
{
	struct sockaddr_in me = addr_of(ip1, port);
	struct rdma_conn_param p;
	enum rdma_cm_event_type t;
	struct rdma_cm_id *nid = NULL;
	uint8_t pd[256], mine[64];
	int plen = 0;
	uint64_t t0;

	if (rdma_create_id(l->ec, &l->lid, NULL, RDMA_PS_TCP) || rdma_bind_addr(l->lid, (struct sockaddr *)&me) ||
	    rdma_listen(l->lid, 2)) {
		say("listen failed: %s", strerror(errno));
		return 2;
	}
	printf("liar: listening\n");
	fflush(stdout);
	if (next_event(l, 8000, &t, NULL, pd, &plen, &nid) || t != RDMA_CM_EVENT_CONNECT_REQUEST) {
		say("no connection request");
		return 2;
	}
	l->id = nid;
	if (cd_get(pd, plen, &l->v) || liar_qp(l, nid)) {
		say("bad request or set-up failed");
		return 2;
	}
	struct cdata c = liar_cd(l);
	if (!strcmp(s, "rep-version-2"))
		c.version = 2;
	else if (!strcmp(s, "rep-sgl-0"))
		c.tsgl.length = 0;
	cd_put(mine, &c);
	memset(&p, 0, sizeof(p));
	p.private_data = mine;
	p.private_data_len = 40;
	p.flow_control = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.responder_resources = p.initiator_depth = 1;
	if (rdma_accept(nid, &p) || wait_event(l, RDMA_CM_EVENT_ESTABLISHED, 5000, NULL, NULL)) {
		say("accept failed");
		return 2;
	}
	t0 = now_ms();
	if (find_scen(s)->act == CONNECT)
		say("answered with its connection data");
	else if (lie(l, s) || drain(l))
		say("the lie did not go through entirely (the rsocket broke the connection first)");
	else
		say("lie sent");
	liar_wait_disconnect(l, t0);
	return 0;
}

/* ---- the datagram liar ---------------------------------------------------------------------------------------- */

struct ud_hdr { uint8_t b[28]; int len; };

static struct ud_hdr udp_hdr(uint8_t op, uint32_t qpn, const char *ip)
{
	struct ud_hdr h;
	uint32_t tag = htobe32(UDP_TAG), q = htobe32(qpn & 0xFFFFFF);

	memset(&h, 0, sizeof(h));
	memcpy(h.b, &tag, 4);
	h.b[4] = 4;
	h.b[5] = op;
	h.b[6] = 16;
	memcpy(h.b + 8, &q, 4);
	inet_pton(AF_INET, ip, h.b + 12);
	h.len = 16;
	return h;
}

/* A UDP message of header + data to the victim's datagram rsocket. */
static int udp_to(int fd, int port, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
	struct sockaddr_in dst = addr_of(ip0, port);
	uint8_t b[8192];

	memcpy(b, hdr, hlen);
	memcpy(b + hlen, data, dlen);
	return sendto(fd, b, hlen + dlen, 0, (struct sockaddr *)&dst, sizeof(dst)) == (ssize_t)(hlen + dlen) ? 0 : -1;
}

struct udliar {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;
	int udp, udp2;
	uint32_t vqpn;
};

/* A UD QP on an RDMA_PS_UDP id bound to ip1, and a UDP socket on ip1 (two: the second is a stranger). */
static int ud_setup(struct udliar *u)
{
	struct sockaddr_in me = addr_of(ip1, 0);
	struct ibv_qp_init_attr a;

	u->udp = socket(AF_INET, SOCK_DGRAM, 0);
	u->udp2 = socket(AF_INET, SOCK_DGRAM, 0);
	if (u->udp < 0 || u->udp2 < 0 || bind(u->udp, (struct sockaddr *)&me, sizeof(me)) ||
	    bind(u->udp2, (struct sockaddr *)&me, sizeof(me)))
		return -1;
	u->ec = rdma_create_event_channel();
	if (!u->ec || rdma_create_id(u->ec, &u->id, NULL, RDMA_PS_UDP) || rdma_bind_addr(u->id, (struct sockaddr *)&me))
		return -1;
	u->pd = ibv_alloc_pd(u->id->verbs);
	u->cq = u->pd ? ibv_create_cq(u->id->verbs, 64, NULL, NULL, 0) : NULL;
	if (!u->cq)
		return -1;
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = u->cq;
	a.qp_type = IBV_QPT_UD;
	a.cap.max_send_wr = a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	if (rdma_create_qp(u->id, u->pd, &a))
		return -1;
	u->buf = reg(u->pd, 8192, &u->mr);
	return u->buf ? 0 : -1;
}

/* The victim's address handle: resolved from ip1 to ip0 on a temporary id, with a GRH (RoCE). */
static int ud_ah(struct udliar *u)
{
	struct sockaddr_in s = addr_of(ip1, 0), d = addr_of(ip0, 0);
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *e;
	struct ibv_ah_attr a;
	int ok = 0;

	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_UDP))
		goto out;
	if (rdma_resolve_addr(id, (struct sockaddr *)&s, (struct sockaddr *)&d, 2000) || rdma_get_cm_event(ec, &e))
		goto out;
	ok = e->event == RDMA_CM_EVENT_ADDR_RESOLVED;
	rdma_ack_cm_event(e);
	if (!ok || rdma_resolve_route(id, 2000) || rdma_get_cm_event(ec, &e)) {
		ok = 0;
		goto out;
	}
	ok = e->event == RDMA_CM_EVENT_ROUTE_RESOLVED;
	rdma_ack_cm_event(e);
	if (!ok)
		goto out;
	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.grh.dgid = id->route.path_rec->dgid;
	a.grh.sgid_index = (uint8_t)atoi(getenv("RDMA_TEST_GID1") ? getenv("RDMA_TEST_GID1") : "1");
	a.grh.hop_limit = 64;
	a.port_num = u->id->port_num;
	u->ah = ibv_create_ah(u->pd, &a);
	ok = u->ah != NULL;
out:
	if (id)
		rdma_destroy_id(id);
	if (ec)
		rdma_destroy_event_channel(ec);
	return ok ? 0 : -1;
}

/* One UD send of len bytes of buf to the victim's QP. */
static int ud_send(struct udliar *u, const void *data, uint32_t len)
{
	struct ibv_sge sg = { (uintptr_t)u->buf, len, u->mr->lkey };
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	uint64_t end = now_ms() + 3000;

	memcpy(u->buf, data, len);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = u->ah;
	wr.wr.ud.remote_qpn = u->vqpn;
	wr.wr.ud.remote_qkey = UDP_QKEY;
	if (ibv_post_send(u->id->qp, &wr, &bad))
		return -1;
	while (now_ms() < end) {
		int n = ibv_poll_cq(u->cq, 1, &wc);

		if (n > 0)
			return wc.status == IBV_WC_SUCCESS ? 0 : -1;
		usleep(200);
	}
	return -1;
}

static int liar_dgram(const char *s, int port)
{
	struct udliar u;
	uint8_t data[4096], ds[8] = { 4, 8 };
	char ok[64];
	struct ud_hdr h;
	int r = 0;

	memset(&u, 0, sizeof(u));
	if (ud_setup(&u)) {
		say("set-up failed: %s", strerror(errno));
		return 2;
	}
	uint32_t qpn = u.id->qp->qp_num;
	snprintf(ok, sizeof(ok), "ok-%s", s);
	/* The liar's own source address in its ds_headers: ip1, the UDP socket's port. */
	{
		struct sockaddr_in me;
		socklen_t len = sizeof(me);

		getsockname(u.udp, (struct sockaddr *)&me, &len);
		memcpy(ds + 2, &me.sin_port, 2);
		memcpy(ds + 4, &me.sin_addr, 4);
	}
	if (!strncmp(s, "udp-", 4)) {
		h = udp_hdr(0, qpn, ip1);
		memset(data, 'X', sizeof(data));
		if (!strcmp(s, "udp-bad-tag"))
			h.b[0] = 0x54;
		else if (!strcmp(s, "udp-bad-version"))
			h.b[4] = 6;
		else if (!strcmp(s, "udp-truncated"))
			h.len = 9;
		else if (!strcmp(s, "udp-op-unknown"))
			h.b[5] = 3;
		else if (!strcmp(s, "udp-qpn-zero"))
			memset(h.b + 8, 0, 4);
		else if (!strcmp(s, "udp-ctrl-data"))
			h.b[5] = OP_CTRL;
		else if (!strcmp(s, "udp-forged-reply"))
			h.b[5] = OP_CTRL;
		int fd = !strcmp(s, "udp-forged-reply") ? u.udp2 : u.udp;
		size_t dlen = !strcmp(s, "udp-oversize") ? 4000 : !strcmp(s, "udp-truncated") || !strcmp(s, "udp-forged-reply") ? 0 : 50;
		r = udp_to(fd, port, h.b, (size_t)h.len, data, dlen);
		usleep(100000);
		h = udp_hdr(OP_DATA, qpn, ip1);
		r = r ? r : udp_to(u.udp, port, h.b, (size_t)h.len, ok, strlen(ok));
		say(r ? "sendto failed: %s" : "lie and datagram sent%s", r ? strerror(errno) : "");
		goto out;
	}
	/* UD: learn the victim's QP from its reply to an honest datagram, then lie over UD. */
	h = udp_hdr(OP_DATA, qpn, ip1);
	if (udp_to(u.udp, port, h.b, (size_t)h.len, "hello", 5)) {
		say("sendto failed: %s", strerror(errno));
		r = 2;
		goto out;
	}
	{
		struct pollfd p = { .fd = u.udp, .events = POLLIN };
		uint8_t rb[64];

		if (poll(&p, 1, 4000) <= 0 || recv(u.udp, rb, sizeof(rb), 0) < 16 || rb[5] != OP_CTRL) {
			say("no address-service reply from the rsocket");
			r = 2;
			goto out;
		}
		u.vqpn = be32toh(*(uint32_t *)(rb + 8)) & 0xFFFFFF;
	}
	if (ud_ah(&u)) {
		say("no address handle to the rsocket");
		r = 2;
		goto out;
	}
	memcpy(data, ds, 8);
	memset(data + 8, 'X', 100);
	if (!strcmp(s, "ud-bad-version"))
		data[0] = 5;
	else if (!strcmp(s, "ud-bad-length"))
		data[1] = 24;
	r = ud_send(&u, data, !strcmp(s, "ud-truncated") ? 5 : 108);
	usleep(100000);
	memcpy(data, ds, 8);
	memcpy(data + 8, ok, strlen(ok));
	r = r ? r : ud_send(&u, data, 8 + (uint32_t)strlen(ok));
	say(r ? "UD send failed" : "lie and datagram sent over UD (the rsocket's QP %u)", u.vqpn);
out:
	usleep(300000);
	if (u.ah) ibv_destroy_ah(u.ah);
	if (u.id && u.id->qp) rdma_destroy_qp(u.id);
	if (u.mr) ibv_dereg_mr(u.mr);
	if (u.cq) ibv_destroy_cq(u.cq);
	if (u.pd) ibv_dealloc_pd(u.pd);
	if (u.id) rdma_destroy_id(u.id);
	if (u.ec) rdma_destroy_event_channel(u.ec);
	if (u.udp >= 0) close(u.udp);
	if (u.udp2 >= 0) close(u.udp2);
	free(u.buf);
	return r;
}

static int liar_main(const char *s, int port)
{
	const struct scen *sc = find_scen(s);
	struct liar l;
	int r;

	if (!sc) {
		say("no scenario %s", s);
		return 2;
	}
	if (sc->act == DGRAM)
		return liar_dgram(s, port);
	memset(&l, 0, sizeof(l));
	l.ec = rdma_create_event_channel();
	if (!l.ec) {
		say("no event channel: %s", strerror(errno));
		return 2;
	}
	r = (sc->act == CONNECT || sc->act == CONNECT_READ) ? liar_server(&l, s, port) : liar_client(&l, s, port);
	liar_free(&l);
	free(l.tgt);
	free(l.rbuf);
	free(l.sbuf);
	free(l.io);
	return r;
}

/* ---- the victim ---------------------------------------------------------------------------------------------- */

static int expect_ours = 1;

/* -- the healthy connection: a client thread sends numbered blocks, a server thread echoes them back -- */

static volatile int healthy_stop;
static long long healthy_bytes;
static int healthy_err, healthy_lsock = -1;
static char healthy_why[160];

static int send_all(int s, const void *b, size_t n)
{
	for (size_t d = 0; d < n;) {
		ssize_t k = rsend(s, (const char *)b + d, n - d, 0);
		if (k <= 0)
			return -1;
		d += (size_t)k;
	}
	return 0;
}

static int recv_all(int s, void *b, size_t n)
{
	for (size_t d = 0; d < n;) {
		ssize_t k = rrecv(s, (char *)b + d, n - d, 0);
		if (k <= 0)
			return -1;
		d += (size_t)k;
	}
	return 0;
}

static void *healthy_server(void *arg)
{
	static char b[4096];
	int c = raccept(healthy_lsock, NULL, NULL);

	(void)arg;
	if (c < 0)
		return NULL;
	for (;;) {
		ssize_t n = rrecv(c, b, sizeof(b), 0);
		if (n <= 0 || send_all(c, b, (size_t)n))
			break;
	}
	rclose(c);
	return NULL;
}

static void *healthy_client(void *arg)
{
	struct sockaddr_in src = addr_of(ip1, 0), dst = addr_of(ip0, base_port + 1);
	static unsigned char out[4096], in[4096];
	int s = -1;
	unsigned seq = 0;

	(void)arg;
	for (int i = 0; i < 50 && s < 0; i++) {
		s = rsocket(AF_INET, SOCK_STREAM, 0);
		if (s >= 0 && (rbind(s, (struct sockaddr *)&src, sizeof(src)) ||
			       rconnect(s, (struct sockaddr *)&dst, sizeof(dst)))) {
			rclose(s);
			s = -1;
			usleep(100000);
		}
	}
	if (s < 0) {
		healthy_err = 1;
		snprintf(healthy_why, sizeof(healthy_why), "no connection: %s", strerror(errno));
		return NULL;
	}
	while (!healthy_stop) {
		for (size_t i = 0; i < sizeof(out); i++)
			out[i] = (unsigned char)(seq * 31 + i);
		if (send_all(s, out, sizeof(out)) || recv_all(s, in, sizeof(in))) {
			healthy_err = 1;
			snprintf(healthy_why, sizeof(healthy_why), "block %u: %s", seq, strerror(errno));
			break;
		}
		if (memcmp(in, out, sizeof(out))) {
			healthy_err = 1;
			snprintf(healthy_why, sizeof(healthy_why), "block %u came back different", seq);
			break;
		}
		healthy_bytes += (long long)sizeof(out);
		seq++;
		usleep(2000);
	}
	rclose(s);
	return NULL;
}

/* -- one liar per scenario -- */

static pid_t spawn_liar(const char *scen, int port, int *outfd)
{
	const char *prog = getenv("HOSTILE_LIAR") ? getenv("HOSTILE_LIAR") : "/proc/self/exe";
	const char *libs = getenv("HOSTILE_LIAR_LIBS");
	char portb[16], libenv[512], *argv[] = { (char *)prog, "liar", (char *)scen, portb, NULL };
	char **env;
	int n = 0, p[2];
	posix_spawn_file_actions_t fa;
	pid_t pid;

	snprintf(portb, sizeof(portb), "%d", port);
	for (char **e = environ; *e; e++)
		n++;
	env = calloc((size_t)n + 2, sizeof(*env));
	n = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "LD_LIBRARY_PATH=", 16) && strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "ASAN_OPTIONS=", 13))
			env[n++] = *e;
	if (libs) {
		snprintf(libenv, sizeof(libenv), "LD_LIBRARY_PATH=%s", libs);
		env[n++] = libenv;
	}
	env[n] = NULL;
	if (pipe(p)) {
		free(env);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawn(&pid, prog, &fa, NULL, argv, env))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	free(env);
	*outfd = p[0];
	return pid;
}

/* Reads what the liar printed so far into buf (non-blocking appends). */
static void liar_read(int fd, char *buf, size_t cap)
{
	size_t len = strlen(buf);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (len + 1 < cap && poll(&p, 1, 0) > 0) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = 0;
	}
}

/* Waits for the liar to exit (at most ms), killing it after; collects its output. Returns its exit status. */
static int liar_reap(pid_t pid, int fd, char *buf, size_t cap, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	int st = 0;

	for (;;) {
		liar_read(fd, buf, cap);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			strncat(buf, "liar: killed (ran too long)\n", cap - strlen(buf) - 1);
			break;
		}
		usleep(20000);
	}
	liar_read(fd, buf, cap);
	close(fd);
	return st;
}

/* The victim's outcome for a connected stream rsocket c. */
static void judge_stream(int c, const char *scen, enum act act, char *out, size_t cap)
{
	static unsigned char buf[1 << 20];
	uint64_t end, got = 0, wrong = 0;
	int e = 0;

	/* Let the whole lie arrive before the rsocket looks (it would otherwise see part of it). */
	usleep(300000);
	end = now_ms() + (uint64_t)deadline_ms;
	if (act == POLLREAD) {
		/* Take completions in without reading (no credits go back): rpoll only, for a while. */
		uint64_t until = now_ms() + 1500;
		while (now_ms() < until) {
			struct pollfd p = { .fd = c, .events = POLLIN };
			if (rpoll(&p, 1, 100) < 0 || (p.revents & (POLLERR | POLLHUP)))
				break;
		}
	}
	if (act == SEND || act == IOWRITE) {
		memset(buf, 'v', 65536);
		for (int i = 0; now_ms() < end; i++) {
			ssize_t n;

			if (act == IOWRITE) {
				off_t at = !strcmp(scen, "iomap-entry-wraps") ? (off_t)(UINT64_MAX - 5) : 8192;
				size_t w = riowrite(c, buf, 4096, at, MSG_DONTWAIT);
				n = w == (size_t)-1 ? -1 : (ssize_t)w;
				if (n == 0) {
					snprintf(out, cap, "riowrite wrote nothing (no mapping found)");
					return;
				}
			} else {
				n = rsend(c, buf, 65536, MSG_DONTWAIT);
			}
			if (n < 0 && errno != EAGAIN) {
				snprintf(out, cap, "error %s after %llu B", ename(errno), (unsigned long long)got);
				return;
			}
			if (n > 0)
				got += (uint64_t)n;
			/* Also look for a failure the device reported (a remote access error comes back in a completion). */
			struct pollfd p = { .fd = c, .events = POLLIN | POLLOUT };
			rpoll(&p, 1, 50);
			if (p.revents & POLLERR) {
				int err = 0;
				socklen_t l = sizeof(err);
				rgetsockopt(c, SOL_SOCKET, SO_ERROR, &err, &l);
				ssize_t k = rrecv(c, buf + 65536, 16, MSG_DONTWAIT);
				e = k < 0 ? errno : 0;
				snprintf(out, cap, "error %s after %llu B (rrecv %zd %s)", ename(err ? err : e),
					 (unsigned long long)got, k, ename(e));
				return;
			}
			if (i > 200)
				break;
		}
		snprintf(out, cap, "%s %llu B, no error", act == IOWRITE ? "riowrote" : "sent", (unsigned long long)got);
		return;
	}
	while (now_ms() < end) {
		struct pollfd p = { .fd = c, .events = POLLIN };
		int left = (int)(end - now_ms());
		ssize_t n;

		if (rpoll(&p, 1, left > 0 ? left : 0) <= 0)
			continue;
		n = rrecv(c, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			/* Check against the pattern the liar writes (a stream offset per byte it wrote). */
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] != pat(got + (uint64_t)i))
					wrong++;
			got += (uint64_t)n;
			continue;
		}
		if (n == 0) {
			snprintf(out, cap, "eof after %llu B%s", (unsigned long long)got, wrong ? " (some not as written)" : "");
			return;
		}
		if (errno == EAGAIN)
			continue;
		snprintf(out, cap, "error %s after %llu B", ename(errno), (unsigned long long)got);
		return;
	}
	if (got)
		snprintf(out, cap, "read %llu B (%llu not as written), then nothing", (unsigned long long)got,
			 (unsigned long long)wrong);
	else
		snprintf(out, cap, "hang after 0 B");
}

/* A connection from the liar to listener l (non-blocking), within ms; -1 when none came. */
static int accept_within(int l, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;

	while (now_ms() < end) {
		struct pollfd p = { .fd = l, .events = POLLIN };
		int c;

		rpoll(&p, 1, 100);
		c = raccept(l, NULL, NULL);
		if (c >= 0)
			return c;
		if (errno != EAGAIN)
			usleep(50000);
	}
	return -1;
}

/* A connection to the liar listening on ip1:port: non-blocking rconnect, rpoll, SO_ERROR; retried while refused
 * (the liar may not listen yet). Returns the rsocket, or -1 with the final errno in *err. */
static int connect_liar(int port, int *err)
{
	struct sockaddr_in src = addr_of(ip0, 0), dst = addr_of(ip1, port);
	uint64_t end = now_ms() + 6000;

	*err = ETIMEDOUT;
	while (now_ms() < end) {
		int s = rsocket(AF_INET, SOCK_STREAM, 0), fl, e = 0;
		socklen_t l = sizeof(e);
		struct pollfd p;

		if (s < 0) {
			*err = errno;
			return -1;
		}
		fl = rfcntl(s, F_GETFL, 0);
		rfcntl(s, F_SETFL, fl | O_NONBLOCK);
		if (rbind(s, (struct sockaddr *)&src, sizeof(src))) {
			*err = errno;
			rclose(s);
			return -1;
		}
		if (rconnect(s, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS) {
			e = errno;
		} else {
			p = (struct pollfd){ .fd = s, .events = POLLOUT };
			if (rpoll(&p, 1, deadline_ms) <= 0)
				e = ETIMEDOUT;
			else if (rgetsockopt(s, SOL_SOCKET, SO_ERROR, &e, &l))
				e = errno;
		}
		if (!e) {
			rfcntl(s, F_SETFL, fl);
			return s;
		}
		rclose(s);
		*err = e;
		if (e != ECONNREFUSED)
			return -1;
		usleep(200000);
	}
	return -1;
}

/* The datagram outcome: datagrams read from d within the deadline until "ok-<scen>". */
static void judge_dgram(int d, const char *scen, char *out, size_t cap)
{
	char ok[64], b[4096];
	uint64_t end = now_ms() + (uint64_t)deadline_ms + 1000;
	int others = 0, hello = 0;
	size_t other_len = 0;

	snprintf(ok, sizeof(ok), "ok-%s", scen);
	while (now_ms() < end) {
		struct pollfd p = { .fd = d, .events = POLLIN };
		ssize_t n;

		if (rpoll(&p, 1, 100) <= 0)
			continue;
		n = rrecvfrom(d, b, sizeof(b), MSG_DONTWAIT, NULL, NULL);
		if (n < 0)
			continue;
		if ((size_t)n == strlen(ok) && !memcmp(b, ok, (size_t)n)) {
			if (others)
				snprintf(out, cap, "delivered %zu B of lies", other_len);
			else
				snprintf(out, cap, "dropped");
			return;
		}
		if (n == 5 && !memcmp(b, "hello", 5) && !hello) {
			hello = 1;
			continue;
		}
		others++;
		other_len += (size_t)n;
	}
	snprintf(out, cap, others ? "delivered %zu B of lies, then nothing" : "no exchange", other_len);
}

static int pass_outcome(const struct scen *s, const char *o)
{
	switch (s->act) {
	case HANDSHAKE:
		return !strcmp(o, "rejected");
	case CONNECT:
		return !strcmp(o, !strcmp(s->name, "rep-version-2") ? "connect error EOPNOTSUPP" : "connect error EPROTO");
	case DGRAM:
		return !strcmp(o, "dropped");
	default:
		return !strncmp(o, "error EPROTO", 12) || !strncmp(o, "error ECONNRESET", 16);
	}
}

static int victim_main(int argc, char **argv)
{
	struct sockaddr_in me = addr_of(ip0, base_port), hl = addr_of(ip0, base_port + 1), dm = addr_of(ip0, base_port + 2);
	int one = 1, four = 4, rq = 32, l, d, fl;
	pthread_t hs, hc;
	int nlist = argc > 0 ? argc : NSCEN;

	signal(SIGPIPE, SIG_IGN);
	who = "victim"; /* a hang: "FAIL victim-watchdog" */
	signal(SIGALRM, on_alarm);
	alarm((unsigned)(30 + nlist * 15));
	l = rsocket(AF_INET, SOCK_STREAM, 0);
	healthy_lsock = rsocket(AF_INET, SOCK_STREAM, 0);
	d = rsocket(AF_INET, SOCK_DGRAM, 0);
	if (l < 0 || healthy_lsock < 0 || d < 0) {
		check("setup", 0, "rsocket: %s", strerror(errno));
		return 1;
	}
	rsetsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	rsetsockopt(l, SOL_RDMA, RDMA_IOMAPSIZE, &four, sizeof(four));
	rsetsockopt(l, SOL_RDMA, RDMA_RQSIZE, &rq, sizeof(rq));
	rsetsockopt(healthy_lsock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rbind(l, (struct sockaddr *)&me, sizeof(me)) || rlisten(l, 4) ||
	    rbind(healthy_lsock, (struct sockaddr *)&hl, sizeof(hl)) || rlisten(healthy_lsock, 1) ||
	    rbind(d, (struct sockaddr *)&dm, sizeof(dm))) {
		check("setup", 0, "rbind/rlisten: %s", strerror(errno));
		return 1;
	}
	fl = rfcntl(l, F_GETFL, 0);
	rfcntl(l, F_SETFL, fl | O_NONBLOCK);
	pthread_create(&hs, NULL, healthy_server, NULL);
	pthread_create(&hc, NULL, healthy_client, NULL);

	for (int i = 0; i < nlist; i++) {
		const struct scen *s = argc > 0 ? find_scen(argv[i]) : &scens[i];
		char out[256] = "", lout[4096] = "", *nl;
		int lfd = -1, port = base_port, c = -1, e = 0, st;
		pid_t pid;

		if (!s) {
			check(argv[i], 0, "no such scenario");
			continue;
		}
		if (s->act == CONNECT || s->act == CONNECT_READ)
			port = base_port + 3 + (i % 4);
		else if (s->act == DGRAM)
			port = base_port + 2;
		pid = spawn_liar(s->name, port, &lfd);
		if (pid < 0) {
			check(s->name, 0, "cannot start the liar: %s", strerror(errno));
			continue;
		}
		switch (s->act) {
		case HANDSHAKE: {
			/* Until a connection comes out of raccept, or the liar says it was rejected or gave up. */
			uint64_t end = now_ms() + (uint64_t)deadline_ms + 3000;
			while (c < 0 && now_ms() < end && !strstr(lout, "liar: rejected") && !strstr(lout, "liar: no") &&
			       !strstr(lout, "failed")) {
				struct pollfd p = { .fd = l, .events = POLLIN };
				rpoll(&p, 1, 50);
				c = raccept(l, NULL, NULL);
				liar_read(lfd, lout, sizeof(lout));
			}
			snprintf(out, sizeof(out), c >= 0 ? "accepted" : strstr(lout, "liar: rejected") ? "rejected" : "no connection");
			break;
		}
		case CONNECT:
		case CONNECT_READ:
			c = connect_liar(port, &e);
			if (c < 0) {
				snprintf(out, sizeof(out), "connect error %s", ename(e));
			} else if (s->act == CONNECT) {
				snprintf(out, sizeof(out), "connected");
			} else {
				judge_stream(c, s->name, READ, out, sizeof(out));
			}
			break;
		case DGRAM:
			judge_dgram(d, s->name, out, sizeof(out));
			break;
		default:
			c = accept_within(l, 6000);
			if (c < 0) {
				snprintf(out, sizeof(out), "no connection: %s", strerror(errno));
				break;
			}
			judge_stream(c, s->name, s->act, out, sizeof(out));
			break;
		}
		if (c >= 0)
			rclose(c);
		if (pid > 0)
			st = liar_reap(pid, lfd, lout, sizeof(lout), 12000);
		(void)st;
		/* The liar's last line says what it saw. */
		while ((nl = strrchr(lout, '\n')) && nl[1] == 0)
			*nl = 0;
		nl = strrchr(lout, '\n');
		printf("SCEN %s %s | %s\n", s->name, out, nl ? nl + 1 : lout);
		fflush(stdout);
		if (expect_ours)
			check(s->name, pass_outcome(s, out), "%s (%s)", out, s->what);
	}

	/* The healthy connection moved data all along and still does. */
	long long before = healthy_bytes;
	uint64_t until = now_ms() + 2000;
	while (healthy_bytes == before && !healthy_err && now_ms() < until)
		usleep(20000);
	healthy_stop = 1;
	pthread_join(hc, NULL);
	pthread_join(hs, NULL);
	printf("SCEN healthy %s | %lld B echoed\n", healthy_err ? healthy_why : "kept working", healthy_bytes);
	if (expect_ours)
		check("healthy-connection", !healthy_err && healthy_bytes > before && before > 0,
		      "%lld B echoed during the scenarios, %lld more after%s%s", before, healthy_bytes - before,
		      healthy_err ? ": " : "", healthy_err ? healthy_why : "");
	rclose(l);
	rclose(healthy_lsock);
	rclose(d);
	printf("# hostile: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	ip0 = getenv("RDMA_TEST_IP0") ? getenv("RDMA_TEST_IP0") : "198.18.0.1";
	ip1 = getenv("RDMA_TEST_IP1") ? getenv("RDMA_TEST_IP1") : "198.18.0.2";
	base_port = getenv("HOSTILE_PORT") ? atoi(getenv("HOSTILE_PORT")) : 7900 + (getpid() % 50) * 8;
	if (getenv("HOSTILE_DEADLINE_MS"))
		deadline_ms = atoi(getenv("HOSTILE_DEADLINE_MS"));
	expect_ours = !getenv("HOSTILE_EXPECT") || strcmp(getenv("HOSTILE_EXPECT"), "none");
	if (argc >= 2 && !strcmp(argv[1], "list")) {
		for (int i = 0; i < NSCEN; i++)
			printf("%s\t%s\n", scens[i].name, scens[i].what);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "liar"))
		return liar_main(argv[2], atoi(argv[3]));
	if (argc >= 2 && !strcmp(argv[1], "victim"))
		return victim_main(argc - 2, argv + 2);
	fprintf(stderr, "usage: %s victim [SCENARIO...] | liar SCENARIO PORT | list\n", argv[0]);
	return 2;
}
