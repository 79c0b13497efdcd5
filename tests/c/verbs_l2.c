/* ibv_resolve_eth_l2_from_gid: what RoCE plug-ins (mlx5, ...) call to address an AH. Run on rxe0 towards rxe1's
 * GIDs, in one namespace (no other addresses exist here). rdma-core asks the kernel for the route to the destination
 * leaving by the source address's interface (veth0), then for that interface's own MAC (a local route), the MAC the
 * address encodes, or veth0's neighbour entry, probing with a datagram from the source address for up to 3 s:
 *   - the IPv6 link-local GID (index 0) encodes the peer's MAC: returned directly, VLAN id 0xffff;
 *   - a multicast IPv4 address (IPv4-mapped GID) gives 01:00:5e + its low 23 bits;
 *   - rxe0's own IPv4-mapped GID: a local route by veth0, so veth0's own MAC;
 *   - rxe1's IPv4-mapped GID is also this host's address, but veth0's route sends it on the wire (unicast), so it is
 *     veth0's neighbour entry for it: there is one when RoCE traffic between rxe0 and rxe1 went before (rxe's packets
 *     leave by veth0 and ARP), then it is veth1's MAC; without one, the probe datagram is routed to the local
 *     address through lo, nothing ever answers, and it is -EHOSTUNREACH after 3 s. The test sets both states itself
 *     (ip neigh; it runs as root in the guest): what earlier tests left must not decide the answer;
 *   - an address without a route (TEST-NET-1 192.0.2.1; the guest has no default route): the datagram cannot be
 *     sent, -EHOSTUNREACH at once;
 *   - a source GID index that does not exist: -EINVAL (ibv_query_gid's failure, returned as is).
 * Expected values measured with rdma-core 44 and 65 in the guest, the same on Linux 6.1 and 7.2 (CASE_LIBS=stock
 * re-checks them). */
#include "testutil.h"
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#define PROG "verbs_l2"

static int read_mac(const char *ibdev, uint8_t mac[6])
{
	char buf[64], ndev[64];
	unsigned int m[6];

	if (tu_read_sysfs(ndev, sizeof(ndev), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", ibdev) != 0)
		return -1;
	if (tu_read_sysfs(buf, sizeof(buf), "/sys/class/net/%s/address", ndev) != 0)
		return -1;
	if (sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = m[i];
	return 0;
}

/* The netdev of GID index gidx of ibdev's port 1, into ndev. */
static int gid_ndev(const char *ibdev, int gidx, char ndev[64])
{
	return tu_read_sysfs(ndev, 64, "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/%d", ibdev, gidx);
}

/* Runs the shell command made of fmt; its exit status (-1 when it could not run). */
static int sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static int resolve(struct ibv_context *ctx, int sgid_index, const union ibv_gid *dgid, uint8_t mac[6], uint16_t *vid)
{
	struct ibv_ah_attr a;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.is_global = 1;
	a.grh.sgid_index = sgid_index;
	a.grh.dgid = *dgid;
	memset(mac, 0, 6);
	*vid = 0x1234;
	return ibv_resolve_eth_l2_from_gid(ctx, &a, mac, vid);
}

int main(void)
{
	struct ibv_context *c0, *c1;
	union ibv_gid g0, g1;
	uint8_t mac[6], want[6];
	uint16_t vid;
	int r;

	tu_init();
	c0 = tu_open(tu_dev_name[0]);
	c1 = tu_open(tu_dev_name[1]);

	/* Link-local GIDs (index 0 on RoCE): the MAC is in the address. */
	if (ibv_query_gid(c1, 1, 0, &g1) || ibv_query_gid(c0, 1, 0, &g0))
		tu_abort(PROG, "query_gid", "GID 0 unreadable");
	CHECK("link-local-gids", g0.raw[0] == 0xfe && g0.raw[1] == 0x80 && g1.raw[0] == 0xfe, "GID 0 not link-local");
	r = resolve(c0, 0, &g1, mac, &vid);
	CHECK("link-local-ret", r == 0, "ret %d", r);
	CHECK("link-local-mac", read_mac(tu_dev_name[1], want) == 0 && !memcmp(mac, want, 6),
	      "got %02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	CHECK("link-local-vid", vid == 0xffff, "vid %#x (no VLAN: 0xffff)", vid);

	/* An IPv4 multicast group. */
	union ibv_gid mc = { .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 129, 2, 3 } };
	r = resolve(c0, tu_gid_index[0], &mc, mac, &vid);
	CHECK("mcast-v4", r == 0 && mac[0] == 0x01 && mac[1] == 0x00 && mac[2] == 0x5e && mac[3] == 0x01 &&
	      mac[4] == 0x02 && mac[5] == 0x03 && vid == 0xffff,
	      "ret %d mac %02x:%02x:%02x:%02x:%02x:%02x vid %#x", r, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], vid);

	/* rxe0's own IPv4-mapped GID: a local route, veth0's own MAC. */
	if (ibv_query_gid(c0, 1, tu_gid_index[0], &g0))
		tu_abort(PROG, "query_gid", "GID %d of %s unreadable", tu_gid_index[0], tu_dev_name[0]);
	r = resolve(c0, tu_gid_index[0], &g0, mac, &vid);
	CHECK("own-address", r == 0 && read_mac(tu_dev_name[0], want) == 0 && !memcmp(mac, want, 6) && vid == 0xffff,
	      "ret %d mac %02x:%02x:%02x:%02x:%02x:%02x vid %#x (rdma-core: 0, its own netdev's MAC, 0xffff)", r,
	      mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], vid);

	/* rxe1's IPv4-mapped GID: an address of this host that veth0's route sends on the wire. */
	char nd0[64], ip1[INET_ADDRSTRLEN], mac1[32];
	if (ibv_query_gid(c1, 1, tu_gid_index[1], &g1))
		tu_abort(PROG, "query_gid", "GID %d of %s unreadable", tu_gid_index[1], tu_dev_name[1]);
	if (gid_ndev(tu_dev_name[0], tu_gid_index[0], nd0) != 0 || read_mac(tu_dev_name[1], want) != 0 ||
	    !inet_ntop(AF_INET, &g1.raw[12], ip1, sizeof(ip1)))
		tu_abort(PROG, "netdevs", "netdev of %s or MAC of %s unreadable", tu_dev_name[0], tu_dev_name[1]);
	snprintf(mac1, sizeof(mac1), "%02x:%02x:%02x:%02x:%02x:%02x", want[0], want[1], want[2], want[3], want[4],
		 want[5]);

	/* Without a neighbour entry: the probe goes through lo and nobody answers (3 s). */
	sh("ip neigh del %s dev %s 2>/dev/null", ip1, nd0);
	r = resolve(c0, tu_gid_index[0], &g1, mac, &vid);
	CHECK("local-address-no-neigh", r == -EHOSTUNREACH && vid == 0x1234,
	      "ret %d vid %#x (rdma-core: -EHOSTUNREACH, vid untouched)", r, vid);

	/* With the entry RoCE traffic leaves (made here as ARP would make it): veth1's MAC. */
	int st = sh("ip neigh replace %s lladdr %s dev %s nud reachable", ip1, mac1, nd0);
	r = resolve(c0, tu_gid_index[0], &g1, mac, &vid);
	CHECK("local-address-neigh", st == 0 && r == 0 && !memcmp(mac, want, 6) && vid == 0xffff,
	      "ip neigh replace %s lladdr %s dev %s: %d; ret %d mac %02x:%02x:%02x:%02x:%02x:%02x vid %#x (rdma-core: 0, "
	      "the entry's MAC, 0xffff)", ip1, mac1, nd0, st, r, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], vid);
	sh("ip neigh del %s dev %s 2>/dev/null", ip1, nd0);

	/* No route: TEST-NET-1. */
	union ibv_gid nr = { .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 } };
	r = resolve(c0, tu_gid_index[0], &nr, mac, &vid);
	CHECK("no-route", r == -EHOSTUNREACH, "ret %d (rdma-core: -EHOSTUNREACH)", r);

	/* A source GID index beyond the table. */
	r = resolve(c0, 250, &g1, mac, &vid);
	CHECK("bad-sgid-index", r == -EINVAL, "ret %d (rdma-core: -EINVAL)", r);

	ibv_close_device(c0);
	ibv_close_device(c1);
	return tu_finish(PROG);
}
