/* LD_PRELOAD interposer for the ibv_cmd_* comparison: plays the uverbs kernel on one fake fd.
 *
 * - write() on the fake fd: the command is logged (hex, the response pointer replaced by its place: an offset in
 *   the driver's fixed-address arena, or LOCAL for a library's own buffer); the queued reply (or zeros) is copied to
 *   the response address within the command's out_words, synchronously, and the write succeeds (or fails with a
 *   queued errno after writing the reply).
 * - ioctl(RDMA_VERBS_IOCTL) on the fake fd: logged likewise (attribute data that points outside the arena masked,
 *   inline driver data compared on its length only);
 *   answered with the queued reply (new object ids, output bytes, UVERBS_ATTR_F_VALID_OUTPUT) or, when none is
 *   queued, ENOTTY ("no ioctl framework", so rdma-core takes its write fallback); ENOTTY-answered ioctls are logged
 *   with an `X` (a probe the comparison ignores).
 * - our library's device discovery: NETLINK_RDMA sockets fail (EPROTONOSUPPORT), so it reads the fake sysfs tree
 *   of $SYSFS_PATH, and /dev/infiniband/uverbs* exists as /dev/null.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include "cmds.h"

static int fake_fd = -1, fake_fd2 = -1;
static uintptr_t arena_lo, arena_hi;
static FILE *logf_;

static unsigned char wr_resp[4096];
static size_t wr_len;
static int wr_queued, wr_err;
static struct pc_ioctl_out io_outs[16];
static int io_n = -1;

#define REAL(ret, name, args) \
	static ret(*real_##name) args; \
	if (!real_##name) \
		real_##name = (ret(*) args)dlsym(RTLD_NEXT, #name)

void plugcmd_start(int fd, void *arena, size_t len, const char *log)
{
	fake_fd = fd;
	arena_lo = (uintptr_t)arena;
	arena_hi = arena_lo + len;
	logf_ = fopen(log, "w");
	if (!logf_)
		abort();
	setvbuf(logf_, NULL, _IOLBF, 0);
}

void plugcmd_add_fd(int fd)
{
	fake_fd2 = fd;
}

void plugcmd_mark(const char *label)
{
	fprintf(logf_, "== %s\n", label);
}

void plugcmd_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(logf_, fmt, ap);
	va_end(ap);
	fputc('\n', logf_);
}

void plugcmd_write_reply(const void *resp, size_t len)
{
	memcpy(wr_resp, resp, len);
	wr_len = len;
	wr_queued = 1;
	wr_err = 0;
}

void plugcmd_write_fail(const void *resp, size_t len, int err)
{
	plugcmd_write_reply(resp, len);
	wr_err = err;
}

void plugcmd_ioctl_reply(const struct pc_ioctl_out *outs, int n)
{
	memcpy(io_outs, outs, n * sizeof(*outs));
	io_n = n;
}

static void where(char *out, size_t n, uint64_t v)
{
	if (v >= arena_lo && v < arena_hi)
		snprintf(out, n, "A+%#lx", (unsigned long)(v - arena_lo));
	else if (v == 0)
		snprintf(out, n, "0");
	else
		snprintf(out, n, "LOCAL");
}

static void hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(logf_, "%02x", p[i]);
}

static ssize_t fake_write(const void *buf, size_t count)
{
	const unsigned char *b = buf;
	struct ib_uverbs_cmd_hdr h;
	uint64_t response = 0;
	size_t out = 0;
	int ex, has_resp;
	char w[32];

	if (count < sizeof(h))
		return errno = EINVAL, -1;
	memcpy(&h, b, sizeof(h));
	ex = !!(h.command & IB_USER_VERBS_CMD_FLAG_EXTENDED);
	if (ex) {
		struct ib_uverbs_ex_cmd_hdr x;

		memcpy(&x, b + 8, sizeof(x));
		response = x.response;
		out = ((size_t)h.out_words + x.provider_out_words) * 8;
		has_resp = 1;
	} else {
		has_resp = h.out_words > 0 && count >= 16;
		if (has_resp)
			memcpy(&response, b + 8, 8);
		out = (size_t)h.out_words * 4;
	}
	fprintf(logf_, "W %zu ", count);
	if (has_resp) {
		where(w, sizeof(w), response);
		hex(b, 8);
		fprintf(logf_, " <%s> ", w);
		hex(b + 16, count - 16);
	} else {
		hex(b, count);
	}
	fputc('\n', logf_);
	if (response && out) {
		memset((void *)(uintptr_t)response, 0, out);
		if (wr_queued)
			memcpy((void *)(uintptr_t)response, wr_resp, wr_len < out ? wr_len : out);
	}
	wr_queued = 0;
	if (wr_err) {
		errno = wr_err;
		wr_err = 0;
		return -1;
	}
	return count;
}

static int fake_ioctl(unsigned long req, void *arg)
{
	struct ib_uverbs_ioctl_hdr *h = arg;
	char w[32];
	int n;

	if (req != RDMA_VERBS_IOCTL)
		return errno = ENOTTY, -1;
	/* rdma-core's probe for write-through-ioctl at context set-up: always "no ioctl framework". */
	if (h->object_id == UVERBS_OBJECT_DEVICE && h->method_id == UVERBS_METHOD_INVOKE_WRITE) {
		fprintf(logf_, "X invoke-write probe\n");
		return errno = ENOTTY, -1;
	}
	fprintf(logf_, "%s len=%u obj=%u method=%u n=%u drv=%u r1=%lu r2=%u", io_n < 0 ? "X" : "I", h->length,
		h->object_id, h->method_id, h->num_attrs, h->driver_id, (unsigned long)h->reserved1, h->reserved2);
	for (int i = 0; i < h->num_attrs; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];
		uint64_t d = a->data;

		/* Inline driver data: only its `len` bytes count (the kernel reads no more; rdma-core leaves the rest
		 * of the pointer it inlined from in the upper bytes). */
		if (a->attr_id == UVERBS_ATTR_UHW_IN && a->len < 8)
			d &= (1ull << (8 * a->len)) - 1;
		if (d >= arena_lo && d < arena_hi)
			where(w, sizeof(w), d);
		else if (d > 0xffffffffull)
			snprintf(w, sizeof(w), "PTR");
		else
			snprintf(w, sizeof(w), "%#lx", (unsigned long)d);
		fprintf(logf_, " [id=%#x len=%u fl=%#x ad=%#x %s]", a->attr_id, a->len, a->flags, a->attr_data.reserved, w);
	}
	fputc('\n', logf_);
	if (io_n < 0)
		return errno = ENOTTY, -1;
	n = io_n;
	io_n = -1;
	for (int i = 0; i < h->num_attrs; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];

		for (int j = 0; j < n; j++) {
			if (io_outs[j].attr_id != a->attr_id)
				continue;
			if (io_outs[j].len == 0) {
				a->data = io_outs[j].value;
			} else {
				memcpy((void *)(uintptr_t)a->data, &io_outs[j].value,
				       io_outs[j].len < a->len ? io_outs[j].len : a->len);
				a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
			}
		}
	}
	return 0;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	REAL(ssize_t, write, (int, const void *, size_t));
	if (fd >= 0 && (fd == fake_fd || fd == fake_fd2))
		return fake_write(buf, count);
	return real_write(fd, buf, count);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	REAL(int, ioctl, (int, unsigned long, ...));
	if (fd >= 0 && (fd == fake_fd || fd == fake_fd2))
		return fake_ioctl(req, arg);
	return real_ioctl(fd, req, arg);
}

int socket(int domain, int type, int protocol)
{
	REAL(int, socket, (int, int, int));
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA)
		return errno = EPROTONOSUPPORT, -1;
	return real_socket(domain, type, protocol);
}

/* /dev/infiniband/... exists (as /dev/null) for discovery. */
static const char *dev_path(const char *p)
{
	return p && !strncmp(p, "/dev/infiniband/", 16) ? "/dev/null" : p;
}

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
	REAL(int, statx, (int, const char *, int, unsigned int, struct statx *));
	return real_statx(dirfd, dev_path(path), flags, mask, buf);
}

int stat(const char *path, struct stat *buf)
{
	REAL(int, stat, (const char *, struct stat *));
	return real_stat(dev_path(path), buf);
}

int stat64(const char *path, struct stat64 *buf)
{
	REAL(int, stat64, (const char *, struct stat64 *));
	return real_stat64(dev_path(path), buf);
}

int access(const char *path, int mode)
{
	REAL(int, access, (const char *, int));
	return real_access(dev_path(path), mode);
}
