/* Conformance: devices, contexts, ports, GIDs, P_Keys, the string helpers, rate conversions, fork calls.
 * Checks each answer against sysfs (the kernel's own view) where sysfs has it. See testutil.h. */
#define _GNU_SOURCE
#include <net/if.h>
#include <inttypes.h>

#include "testutil.h"

#define PROG "verbs_device"

static struct ibv_device *find(struct ibv_device **list, int n, const char *name)
{
	for (int i = 0; i < n && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

/* sysfs "fe80:0000:0000:0000:5054:00ff:fe12:3456" -> 64-bit value in host order */
static int parse_guid(const char *s, uint64_t *out)
{
	unsigned p[4];

	if (sscanf(s, "%x:%x:%x:%x", &p[0], &p[1], &p[2], &p[3]) != 4)
		return -1;
	*out = ((uint64_t)p[0] << 48) | ((uint64_t)p[1] << 32) | ((uint64_t)p[2] << 16) | p[3];
	return 0;
}

static int parse_gid(const char *s, union ibv_gid *gid)
{
	unsigned p[8];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &p[0], &p[1], &p[2], &p[3], &p[4], &p[5], &p[6], &p[7]) != 8)
		return -1;
	for (int i = 0; i < 8; i++) {
		gid->raw[2 * i] = (uint8_t)(p[i] >> 8);
		gid->raw[2 * i + 1] = (uint8_t)p[i];
	}
	return 0;
}

static bool gid_is_zero(const union ibv_gid *g)
{
	static const union ibv_gid zero;

	return !memcmp(g, &zero, sizeof(zero));
}

static void strings(void)
{
	CHECK("node_type_str", !strcmp(ibv_node_type_str(IBV_NODE_CA), "InfiniBand channel adapter") &&
				       !strcmp(ibv_node_type_str(IBV_NODE_RNIC), "iWARP NIC") &&
				       !strcmp(ibv_node_type_str((enum ibv_node_type)99), "unknown"),
	      "got '%s' / '%s' / '%s'", ibv_node_type_str(IBV_NODE_CA), ibv_node_type_str(IBV_NODE_RNIC),
	      ibv_node_type_str((enum ibv_node_type)99));
	CHECK("port_state_str", !strcmp(ibv_port_state_str(IBV_PORT_ACTIVE), "active") &&
					!strcmp(ibv_port_state_str(IBV_PORT_DOWN), "down") &&
					!strcmp(ibv_port_state_str((enum ibv_port_state)42), "unknown"),
	      "got '%s' / '%s' / '%s'", ibv_port_state_str(IBV_PORT_ACTIVE), ibv_port_state_str(IBV_PORT_DOWN),
	      ibv_port_state_str((enum ibv_port_state)42));
	CHECK("event_type_str", !strcmp(ibv_event_type_str(IBV_EVENT_PORT_ERR), "port error") &&
					!strcmp(ibv_event_type_str(IBV_EVENT_SRQ_LIMIT_REACHED), "SRQ limit reached") &&
					!strcmp(ibv_event_type_str((enum ibv_event_type)1000), "unknown"),
	      "got '%s' / '%s' / '%s'", ibv_event_type_str(IBV_EVENT_PORT_ERR),
	      ibv_event_type_str(IBV_EVENT_SRQ_LIMIT_REACHED), ibv_event_type_str((enum ibv_event_type)1000));
	CHECK("wc_status_str", !strcmp(ibv_wc_status_str(IBV_WC_SUCCESS), "success") &&
				       !strcmp(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR), "Work Request Flushed Error") &&
				       !strcmp(ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR), "remote access error") &&
				       !strcmp(ibv_wc_status_str((enum ibv_wc_status)1000), "unknown"),
	      "got '%s' / '%s' / '%s' / '%s'", ibv_wc_status_str(IBV_WC_SUCCESS),
	      ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR), ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
	      ibv_wc_status_str((enum ibv_wc_status)1000));
}

static void rates(void)
{
	static const struct { enum ibv_rate rate; int mult, mbps; } t[] = {
		{ IBV_RATE_2_5_GBPS, 1, 2500 },	    { IBV_RATE_5_GBPS, 2, 5000 },
		{ IBV_RATE_10_GBPS, 4, 10000 },	    { IBV_RATE_20_GBPS, 8, 20000 },
		{ IBV_RATE_30_GBPS, 12, 30000 },    { IBV_RATE_40_GBPS, 16, 40000 },
		{ IBV_RATE_60_GBPS, 24, 60000 },    { IBV_RATE_80_GBPS, 32, 80000 },
		{ IBV_RATE_120_GBPS, 48, 120000 },  { IBV_RATE_14_GBPS, -1, 14062 },
		{ IBV_RATE_56_GBPS, -1, 56250 },    { IBV_RATE_112_GBPS, -1, 112500 },
		{ IBV_RATE_168_GBPS, -1, 168750 },  { IBV_RATE_25_GBPS, -1, 25781 },
		{ IBV_RATE_100_GBPS, -1, 103125 },  { IBV_RATE_200_GBPS, -1, 206250 },
		{ IBV_RATE_300_GBPS, -1, 309375 },  { IBV_RATE_28_GBPS, 11, 28125 },
		{ IBV_RATE_50_GBPS, 20, 53125 },    { IBV_RATE_400_GBPS, 160, 425000 },
		{ IBV_RATE_600_GBPS, 240, 637500 }, { IBV_RATE_800_GBPS, 320, 850000 },
		{ IBV_RATE_1200_GBPS, 480, 1275000 },
	};
	char why[128] = "";

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]) && !*why; i++) {
		if (ibv_rate_to_mult(t[i].rate) != t[i].mult)
			snprintf(why, sizeof(why), "ibv_rate_to_mult(%d) = %d, want %d", t[i].rate,
				 ibv_rate_to_mult(t[i].rate), t[i].mult);
		else if (t[i].mult > 0 && mult_to_ibv_rate(t[i].mult) != t[i].rate)
			snprintf(why, sizeof(why), "mult_to_ibv_rate(%d) = %d", t[i].mult, mult_to_ibv_rate(t[i].mult));
		else if (ibv_rate_to_mbps(t[i].rate) != t[i].mbps)
			snprintf(why, sizeof(why), "ibv_rate_to_mbps(%d) = %d, want %d", t[i].rate,
				 ibv_rate_to_mbps(t[i].rate), t[i].mbps);
		else if (mbps_to_ibv_rate(t[i].mbps) != t[i].rate)
			snprintf(why, sizeof(why), "mbps_to_ibv_rate(%d) = %d", t[i].mbps, mbps_to_ibv_rate(t[i].mbps));
	}
	if (!*why && ibv_rate_to_mult(IBV_RATE_MAX) != -1)
		snprintf(why, sizeof(why), "ibv_rate_to_mult(IBV_RATE_MAX) = %d", ibv_rate_to_mult(IBV_RATE_MAX));
	if (!*why && mult_to_ibv_rate(3) != IBV_RATE_MAX)
		snprintf(why, sizeof(why), "mult_to_ibv_rate(3) = %d", mult_to_ibv_rate(3));
	if (!*why && ibv_rate_to_mbps(IBV_RATE_MAX) != -1)
		snprintf(why, sizeof(why), "ibv_rate_to_mbps(IBV_RATE_MAX) = %d", ibv_rate_to_mbps(IBV_RATE_MAX));
	if (!*why && mbps_to_ibv_rate(12345) != IBV_RATE_MAX)
		snprintf(why, sizeof(why), "mbps_to_ibv_rate(12345) = %d", mbps_to_ibv_rate(12345));
	CHECK("rate_conversions", !*why, "%s", why);
}

/* Everything about one open device. */
static void per_device(struct ibv_device *dev, const char *name, int gid_index)
{
	char n[96], buf[256], s1[64];
	struct ibv_context *ctx, *ctx2;
	struct ibv_device_attr da;
	struct ibv_device_attr_ex dax;
	struct ibv_port_attr pa;
	union ibv_gid gid, want;
	uint64_t guid;
	int ret, empty_index = -1;

	/* Device fields against sysfs. */
	snprintf(n, sizeof(n), "%s-guid", name);
	if (tu_read_sysfs(buf, sizeof(buf), "/sys/class/infiniband/%s/node_guid", name) || parse_guid(buf, &guid))
		tu_fail(n, "cannot read /sys/class/infiniband/%s/node_guid", name);
	else
		CHECK(n, be64toh(ibv_get_device_guid(dev)) == guid, "ibv_get_device_guid = %016" PRIx64 ", sysfs %s",
		      be64toh(ibv_get_device_guid(dev)), buf);

	snprintf(n, sizeof(n), "%s-fields", name);
	{
		char path[300];

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s", name);
		ret = tu_read_sysfs(buf, sizeof(buf), "/sys/class/infiniband_verbs/%s/ibdev", dev->dev_name);
		CHECK(n, dev->node_type == IBV_NODE_CA && dev->transport_type == IBV_TRANSPORT_IB &&
				 !strcmp(dev->name, name) && !strcmp(dev->ibdev_path, path) && ret == 0 &&
				 !strcmp(buf, name) && !strncmp(dev->dev_path, "/sys/class/infiniband_verbs/", 28) &&
				 !strcmp(dev->dev_path + 28, dev->dev_name),
		      "node_type %d transport %d name '%s' dev_name '%s' (ibdev '%s') dev_path '%s' ibdev_path '%s'",
		      dev->node_type, dev->transport_type, dev->name, dev->dev_name, ret ? "?" : buf, dev->dev_path,
		      dev->ibdev_path);
	}

	ctx = ibv_open_device(dev);
	snprintf(n, sizeof(n), "%s-open", name);
	if (!CHECK(n, ctx != NULL, "ibv_open_device: %s", tu_errname(errno)))
		return;
	snprintf(n, sizeof(n), "%s-context", name);
	CHECK(n, ctx->device == dev && ctx->cmd_fd >= 0 && ctx->async_fd >= 0 && ctx->num_comp_vectors >= 1,
	      "device %p (want %p) cmd_fd %d async_fd %d num_comp_vectors %d", (void *)ctx->device, (void *)dev,
	      ctx->cmd_fd, ctx->async_fd, ctx->num_comp_vectors);

	/* A second context on the same device is independent. */
	ctx2 = ibv_open_device(dev);
	snprintf(n, sizeof(n), "%s-open-twice", name);
	CHECK(n, ctx2 && ctx2 != ctx && ctx2->cmd_fd != ctx->cmd_fd, "second ibv_open_device: %p (%s)", (void *)ctx2,
	      tu_errname(errno));
	if (ctx2) {
		snprintf(n, sizeof(n), "%s-close-second", name);
		CHECK(n, ibv_close_device(ctx2) == 0, "ibv_close_device failed");
	}

	/* query_device against sysfs, and query_device_ex agreeing with it. */
	memset(&da, 0xa5, sizeof(da));
	ret = ibv_query_device(ctx, &da);
	snprintf(n, sizeof(n), "%s-query_device", name);
	if (CHECK(n, ret == 0, "ret %d (%s)", ret, tu_errname(ret))) {
		/* rxe's sysfs fw_ver is empty; rdma-core prints the kernel's 64-bit fw_ver (0) as "0.0.0". */
		const char *fw = "0.0.0";
		char sig[64] = "";
		uint64_t sysguid = 0;

		tu_read_sysfs(sig, sizeof(sig), "/sys/class/infiniband/%s/sys_image_guid", name);
		parse_guid(sig, &sysguid);
		snprintf(n, sizeof(n), "%s-query_device-values", name);
		CHECK(n, da.node_guid == ibv_get_device_guid(dev) && be64toh(da.sys_image_guid) == sysguid &&
				 !strcmp(da.fw_ver, fw) && da.phys_port_cnt == 1 && da.max_qp > 0 && da.max_qp_wr > 0 &&
				 da.max_sge > 0 && da.max_cq > 0 && da.max_cqe > 0 && da.max_mr > 0 && da.max_pd > 0 &&
				 da.max_srq > 0 && da.max_pkeys > 0 && da.max_mr_size > 0,
		      "node_guid %016" PRIx64 " sys_image_guid %016" PRIx64 " (sysfs %s) fw_ver '%s' (want '%s') "
		      "ports %u max_qp %d max_qp_wr %d max_sge %d max_cqe %d max_srq %d max_pkeys %u",
		      be64toh(da.node_guid), be64toh(da.sys_image_guid), sig, da.fw_ver, fw, da.phys_port_cnt,
		      da.max_qp, da.max_qp_wr, da.max_sge, da.max_cqe, da.max_srq, da.max_pkeys);
	}
	memset(&dax, 0x5a, sizeof(dax));
	ret = ibv_query_device_ex(ctx, NULL, &dax);
	snprintf(n, sizeof(n), "%s-query_device_ex", name);
	CHECK(n, ret == 0 && !memcmp(&dax.orig_attr, &da, sizeof(da)),
	      "ret %d (%s), orig_attr %s query_device's", ret, tu_errname(ret),
	      memcmp(&dax.orig_attr, &da, sizeof(da)) ? "differs from" : "equals");
	snprintf(n, sizeof(n), "%s-query_device_ex-no-timestamps", name);
	CHECK(n, ret == 0 && dax.completion_timestamp_mask == 0 && dax.hca_core_clock == 0,
	      "completion_timestamp_mask %" PRIu64 " hca_core_clock %" PRIu64 " (rxe has no completion timestamps)",
	      dax.completion_timestamp_mask, dax.hca_core_clock);
	{
		struct ibv_query_device_ex_input in = { .comp_mask = 1 };

		ret = ibv_query_device_ex(ctx, &in, &dax);
		snprintf(n, sizeof(n), "%s-query_device_ex-bad-comp_mask", name);
		CHECK(n, ret == EINVAL, "ret %d (%s), want EINVAL", ret, tu_errname(ret));
	}

	/* Port 1 against sysfs. */
	memset(&pa, 0xa5, sizeof(pa));
	ret = ibv_query_port(ctx, 1, &pa);
	snprintf(n, sizeof(n), "%s-query_port", name);
	if (CHECK(n, ret == 0, "ret %d (%s)", ret, tu_errname(ret))) {
		char st[64] = "", ph[64] = "", ll[64] = "";

		tu_read_sysfs(st, sizeof(st), "/sys/class/infiniband/%s/ports/1/state", name);
		tu_read_sysfs(ph, sizeof(ph), "/sys/class/infiniband/%s/ports/1/phys_state", name);
		tu_read_sysfs(ll, sizeof(ll), "/sys/class/infiniband/%s/ports/1/link_layer", name);
		snprintf(n, sizeof(n), "%s-query_port-values", name);
		CHECK(n, pa.state == IBV_PORT_ACTIVE && atoi(st) == (int)pa.state && atoi(ph) == pa.phys_state &&
				 pa.link_layer == IBV_LINK_LAYER_ETHERNET && !strcmp(ll, "Ethernet") &&
				 pa.gid_tbl_len > gid_index && pa.pkey_tbl_len >= 1 && pa.max_mtu >= pa.active_mtu &&
				 pa.active_mtu >= IBV_MTU_256 && pa.lid == 0 && pa.max_msg_sz > 0,
		      "state %d (sysfs '%s') phys_state %u (sysfs '%s') link_layer %u (sysfs '%s') gid_tbl_len %d "
		      "pkey_tbl_len %u max_mtu %d active_mtu %d lid %u max_msg_sz %u",
		      pa.state, st, pa.phys_state, ph, pa.link_layer, ll, pa.gid_tbl_len, pa.pkey_tbl_len, pa.max_mtu,
		      pa.active_mtu, pa.lid, pa.max_msg_sz);
	}
	{
		static const int bad_ports[] = { 0, 2, 255 };

		for (size_t i = 0; i < 3; i++) {
			struct ibv_port_attr tmp;

			ret = ibv_query_port(ctx, (uint8_t)bad_ports[i], &tmp);
			snprintf(n, sizeof(n), "%s-query_port-%d-EINVAL", name, bad_ports[i]);
			CHECK(n, ret == EINVAL, "ibv_query_port(port %d) = %d (%s), want EINVAL", bad_ports[i], ret,
			      tu_errname(ret));
		}
	}

	/* GIDs: the test GID and index 0 against sysfs. */
	for (int idx = 0; idx <= gid_index; idx += gid_index ? gid_index : 1) {
		snprintf(n, sizeof(n), "%s-query_gid-%d", name, idx);
		memset(&gid, 0xa5, sizeof(gid));
		ret = ibv_query_gid(ctx, 1, idx, &gid);
		if (tu_read_sysfs(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/gids/%d", name, idx) ||
		    parse_gid(buf, &want)) {
			tu_fail(n, "cannot read sysfs gids/%d", idx);
		} else {
			tu_gid_str(&gid, s1, sizeof(s1));
			CHECK(n, ret == 0 && !memcmp(&gid, &want, sizeof(gid)) && !gid_is_zero(&gid),
			      "ret %d, gid %s, sysfs %s", ret, s1, buf);
		}
		if (!gid_index)
			break;
	}
	/* The first empty entry of the table (sysfs shows all zeros). */
	for (int idx = gid_index + 1; idx < 64 && idx < pa.gid_tbl_len; idx++) {
		if (!tu_read_sysfs(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/gids/%d", name, idx) &&
		    !parse_gid(buf, &want) && gid_is_zero(&want)) {
			empty_index = idx;
			break;
		}
	}
	snprintf(n, sizeof(n), "%s-query_gid-empty-entry", name);
	if (empty_index < 0) {
		tu_fail(n, "no empty GID entry found in sysfs");
	} else {
		memset(&gid, 0xa5, sizeof(gid));
		ret = ibv_query_gid(ctx, 1, empty_index, &gid);
		CHECK(n, ret == 0 && gid_is_zero(&gid), "ibv_query_gid(index %d, empty) = %d, gid %s zero", empty_index,
		      ret, gid_is_zero(&gid) ? "is" : "is not");
	}
	ret = ibv_query_gid(ctx, 1, pa.gid_tbl_len, &gid);
	snprintf(n, sizeof(n), "%s-query_gid-past-table", name);
	CHECK(n, ret == -1, "ibv_query_gid(index gid_tbl_len=%d) = %d, want -1", pa.gid_tbl_len, ret);
	ret = ibv_query_gid(ctx, 2, 0, &gid);
	snprintf(n, sizeof(n), "%s-query_gid-bad-port", name);
	CHECK(n, ret == -1, "ibv_query_gid(port 2) = %d, want -1", ret);

	/* ibv_query_gid_ex / ibv_query_gid_table. */
	{
		struct ibv_gid_entry e;
		char type[64] = "", ndev[64] = "";
		unsigned ifindex;

		tu_read_sysfs(type, sizeof(type), "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d", name, gid_index);
		tu_read_sysfs(ndev, sizeof(ndev), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/%d", name, gid_index);
		ifindex = if_nametoindex(ndev);
		tu_read_sysfs(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/gids/%d", name, gid_index);
		parse_gid(buf, &want);

		memset(&e, 0xa5, sizeof(e));
		ret = ibv_query_gid_ex(ctx, 1, gid_index, &e, 0);
		snprintf(n, sizeof(n), "%s-query_gid_ex", name);
		tu_gid_str(&e.gid, s1, sizeof(s1));
		CHECK(n, ret == 0 && !memcmp(&e.gid, &want, sizeof(want)) && e.gid_index == (uint32_t)gid_index &&
				 e.port_num == 1 && e.gid_type == IBV_GID_TYPE_ROCE_V2 && !strcmp(type, "RoCE v2") &&
				 ifindex != 0 && e.ndev_ifindex == ifindex,
		      "ret %d gid %s (sysfs %s) index %u port %u type %u (sysfs '%s') ndev_ifindex %u (sysfs %s = %u)",
		      ret, s1, buf, e.gid_index, e.port_num, e.gid_type, type, e.ndev_ifindex, ndev, ifindex);

		if (empty_index >= 0) {
			ret = ibv_query_gid_ex(ctx, 1, empty_index, &e, 0);
			snprintf(n, sizeof(n), "%s-query_gid_ex-empty-ENODATA", name);
			CHECK(n, ret == ENODATA, "ret %d (%s), want ENODATA", ret, tu_errname(ret));
		}
		ret = ibv_query_gid_ex(ctx, 1, pa.gid_tbl_len, &e, 0);
		snprintf(n, sizeof(n), "%s-query_gid_ex-past-table-EINVAL", name);
		CHECK(n, ret == EINVAL, "ret %d (%s), want EINVAL", ret, tu_errname(ret));
		ret = ibv_query_gid_ex(ctx, 2, 0, &e, 0);
		snprintf(n, sizeof(n), "%s-query_gid_ex-bad-port-EINVAL", name);
		CHECK(n, ret == EINVAL, "ret %d (%s), want EINVAL", ret, tu_errname(ret));
		ret = ibv_query_gid_ex(ctx, 1, gid_index, &e, 1);
		snprintf(n, sizeof(n), "%s-query_gid_ex-bad-flags-EINVAL", name);
		CHECK(n, ret == EINVAL, "ret %d (%s), want EINVAL", ret, tu_errname(ret));

		/* The whole table: every non-empty sysfs entry, nothing else. */
		{
			struct ibv_gid_entry tab[64];
			ssize_t cnt;
			int want_cnt = 0, found = 0, bad = 0;

			for (int idx = 0; idx < pa.gid_tbl_len && idx < 256; idx++) {
				union ibv_gid g;

				if (!tu_read_sysfs(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/gids/%d", name,
						   idx) &&
				    !parse_gid(buf, &g) && !gid_is_zero(&g))
					want_cnt++;
			}
			memset(tab, 0, sizeof(tab));
			cnt = ibv_query_gid_table(ctx, tab, 64, 0);
			for (ssize_t i = 0; i < cnt && i < 64; i++) {
				if (tab[i].port_num != 1 || gid_is_zero(&tab[i].gid))
					bad++;
				if (tab[i].gid_index == (uint32_t)gid_index && !memcmp(&tab[i].gid, &want, sizeof(want)) &&
				    tab[i].gid_type == IBV_GID_TYPE_ROCE_V2 && tab[i].ndev_ifindex == ifindex)
					found = 1;
			}
			snprintf(n, sizeof(n), "%s-query_gid_table", name);
			CHECK(n, cnt == want_cnt && found && !bad,
			      "returned %zd entries (sysfs has %d non-empty), test GID %sfound, %d bad entries", cnt,
			      want_cnt, found ? "" : "not ", bad);
			cnt = ibv_query_gid_table(ctx, tab, 1, 0);
			snprintf(n, sizeof(n), "%s-query_gid_table-too-small-EINVAL", name);
			CHECK(n, want_cnt > 1 && cnt == -EINVAL, "max_entries 1 with %d entries: returned %zd, want -EINVAL",
			      want_cnt, cnt);
			cnt = ibv_query_gid_table(ctx, tab, 64, 1);
			snprintf(n, sizeof(n), "%s-query_gid_table-bad-flags-EINVAL", name);
			CHECK(n, cnt == -EINVAL, "flags 1: returned %zd, want -EINVAL", cnt);
		}
	}

	/* P_Keys. */
	{
		__be16 pkey = 0;
		char pk[32] = "";

		tu_read_sysfs(pk, sizeof(pk), "/sys/class/infiniband/%s/ports/1/pkeys/0", name);
		ret = ibv_query_pkey(ctx, 1, 0, &pkey);
		snprintf(n, sizeof(n), "%s-query_pkey", name);
		CHECK(n, ret == 0 && be16toh(pkey) == 0xffff && strtoul(pk, NULL, 16) == 0xffff,
		      "ret %d pkey 0x%04x (sysfs '%s')", ret, be16toh(pkey), pk);
		ret = ibv_query_pkey(ctx, 1, pa.pkey_tbl_len, &pkey);
		snprintf(n, sizeof(n), "%s-query_pkey-past-table", name);
		CHECK(n, ret == -1, "ibv_query_pkey(index pkey_tbl_len=%u) = %d, want -1", pa.pkey_tbl_len, ret);
		ret = ibv_query_pkey(ctx, 2, 0, &pkey);
		snprintf(n, sizeof(n), "%s-query_pkey-bad-port", name);
		CHECK(n, ret == -1, "ibv_query_pkey(port 2) = %d, want -1", ret);
		ret = ibv_get_pkey_index(ctx, 1, htobe16(0xffff));
		snprintf(n, sizeof(n), "%s-get_pkey_index", name);
		CHECK(n, ret == 0, "ibv_get_pkey_index(0xffff) = %d, want 0", ret);
		ret = ibv_get_pkey_index(ctx, 1, htobe16(0x1234));
		snprintf(n, sizeof(n), "%s-get_pkey_index-absent", name);
		CHECK(n, ret == -1, "ibv_get_pkey_index(0x1234) = %d, want -1", ret);
	}

	snprintf(n, sizeof(n), "%s-close", name);
	CHECK(n, ibv_close_device(ctx) == 0, "ibv_close_device failed");
}

int main(void)
{
	struct ibv_device **list, **list2, *dev[2];
	int num = -1, i;

	tu_init();

	/* Before anything is registered: fork support. A 6.1 kernel copies pinned pages on fork, so rdma-core
	 * reports IBV_FORK_UNNEEDED; ibv_fork_init() still succeeds (no MR was registered yet). */
	CHECK("is_fork_initialized", ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
	      "ibv_is_fork_initialized() = %d, want IBV_FORK_UNNEEDED(%d)", ibv_is_fork_initialized(),
	      IBV_FORK_UNNEEDED);
	CHECK("fork_init", ibv_fork_init() == 0, "ibv_fork_init() failed");
	CHECK("is_fork_initialized-after-init", ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
	      "ibv_is_fork_initialized() = %d after ibv_fork_init, want IBV_FORK_UNNEEDED(%d)",
	      ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);

	list = ibv_get_device_list(&num);
	if (!list)
		tu_abort(PROG, "get_device_list", "NULL (%s)", tu_errname(errno));
	for (i = 0; i < num && list[i]; i++)
		;
	CHECK("get_device_list", num >= 2 && i == num && list[num] == NULL, "num %d, %d non-NULL entries", num, i);
	dev[0] = find(list, num, tu_dev_name[0]);
	dev[1] = find(list, num, tu_dev_name[1]);
	CHECK("get_device_list-names", dev[0] && dev[1], "%s %sfound, %s %sfound", tu_dev_name[0],
	      dev[0] ? "" : "not ", tu_dev_name[1], dev[1] ? "" : "not ");
	list2 = ibv_get_device_list(NULL);
	CHECK("get_device_list-null-num", list2 && list2[0], "ibv_get_device_list(NULL) = %p", (void *)list2);
	if (list2)
		ibv_free_device_list(list2);
	if (dev[0] && dev[1]) {
		int i0 = ibv_get_device_index(dev[0]), i1 = ibv_get_device_index(dev[1]);

		CHECK("get_device_index", i0 >= 0 && i1 >= 0 && i0 != i1, "%s: %d, %s: %d", tu_dev_name[0], i0,
		      tu_dev_name[1], i1);
	}

	strings();
	rates();

	for (i = 0; i < 2; i++)
		if (dev[i])
			per_device(dev[i], tu_dev_name[i], tu_gid_index[i]);

	ibv_free_device_list(list);
	return tu_finish(PROG);
}
