/* ibv_resolve_eth_l2_from_gid: what RoCE plug-ins (mlx5, ...) call to address an AH. Run on rxe0 towards rxe1's
 * GIDs, in one namespace (no other addresses exist here):
 *   - the IPv6 link-local GID (index 0) encodes the peer's MAC: returned directly, VLAN id 0xffff;
 *   - a multicast IPv4 address (IPv4-mapped GID) gives 01:00:5e + its low 23 bits;
 *   - rxe1's IPv4-mapped GID is this host's own address: rdma-core answers -EHOSTUNREACH (measured);
 *   - a source GID index that does not exist: -EINVAL (ibv_query_gid's failure, returned as is).
 * Expected values measured with rdma-core 44 in the guest (CASE_LIBS=stock re-checks them). */
#include "testutil.h"
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

	/* rxe1's IPv4-mapped GID: an address of this host. */
	if (ibv_query_gid(c1, 1, tu_gid_index[1], &g1))
		tu_abort(PROG, "query_gid", "GID %d of %s unreadable", tu_gid_index[1], tu_dev_name[1]);
	r = resolve(c0, tu_gid_index[0], &g1, mac, &vid);
	/* Kernel difference (rdma-core asks the kernel's routes and neighbours over netlink): up to 6.12 rdma-core 44
	 * answers -EHOSTUNREACH, on sid's 7.2 it answers 0 (measured with rdma-core 44 in the 7.2 guest). */
	if (tu_kernel_ge(7, 2))
		CHECK("local-address", r == 0, "ret %d (rdma-core on 7.2: 0)", r);
	else
		CHECK("local-address", r == -EHOSTUNREACH, "ret %d (rdma-core: -EHOSTUNREACH)", r);

	/* A source GID index beyond the table. */
	r = resolve(c0, 250, &g1, mac, &vid);
	CHECK("bad-sgid-index", r == -EINVAL, "ret %d (rdma-core: -EINVAL)", r);

	ibv_close_device(c0);
	ibv_close_device(c1);
	return tu_finish(PROG);
}
