//! Queue pairs: CREATE_QP, EX_CREATE_QP, OPEN_QP, MODIFY_QP, EX_MODIFY_QP, QUERY_QP, DESTROY_QP, and POST_SEND with
//! no work request (rxe's doorbell).
//!
//! QP attributes cross this layer as the kernel's own mirror of `struct ibv_qp_attr`, [`ib_uverbs_qp_attr`] (the
//! struct the rdma_ucm INIT_QP_ATTR command answers with, so the entry layer needs one conversion for both
//! libraries), and attribute masks as the kernel's `IB_QP_*` bits below, which equal `IBV_QP_*`.

use super::{write_ex_io, write_in, write_io, CmdFd};
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;
use std::mem::size_of;

// The kernel's `enum ib_qp_attr_mask` (include/rdma/ib_verbs.h, not uapi; values fixed by the uverbs ABI and equal
// to rdma-core's `IBV_QP_*`).
pub const IB_QP_STATE: u32 = 1;
pub const IB_QP_CUR_STATE: u32 = 1 << 1;
pub const IB_QP_EN_SQD_ASYNC_NOTIFY: u32 = 1 << 2;
pub const IB_QP_ACCESS_FLAGS: u32 = 1 << 3;
pub const IB_QP_PKEY_INDEX: u32 = 1 << 4;
pub const IB_QP_PORT: u32 = 1 << 5;
pub const IB_QP_QKEY: u32 = 1 << 6;
pub const IB_QP_AV: u32 = 1 << 7;
pub const IB_QP_PATH_MTU: u32 = 1 << 8;
pub const IB_QP_TIMEOUT: u32 = 1 << 9;
pub const IB_QP_RETRY_CNT: u32 = 1 << 10;
pub const IB_QP_RNR_RETRY: u32 = 1 << 11;
pub const IB_QP_RQ_PSN: u32 = 1 << 12;
pub const IB_QP_MAX_QP_RD_ATOMIC: u32 = 1 << 13;
pub const IB_QP_ALT_PATH: u32 = 1 << 14;
pub const IB_QP_MIN_RNR_TIMER: u32 = 1 << 15;
pub const IB_QP_SQ_PSN: u32 = 1 << 16;
pub const IB_QP_MAX_DEST_RD_ATOMIC: u32 = 1 << 17;
pub const IB_QP_PATH_MIG_STATE: u32 = 1 << 18;
pub const IB_QP_CAP: u32 = 1 << 19;
pub const IB_QP_DEST_QPN: u32 = 1 << 20;
pub const IB_QP_RATE_LIMIT: u32 = 1 << 25;
/// The bits MODIFY_QP accepts (`IB_QP_ATTR_STANDARD_BITS`, `GENMASK(20, 0)`); EX_MODIFY_QP adds `IB_QP_RATE_LIMIT`.
pub const IB_QP_ATTR_STANDARD_BITS: u32 = (1 << 21) - 1;

/// CREATE_QP (write). `req` is the kernel request: `user_handle` (our QP's address, echoed in async events),
/// `pd_handle` (the XRCD handle for an XRC target QP), `send_cq_handle`, `recv_cq_handle`, `srq_handle` + `is_srq`,
/// the capabilities, `sq_sig_all`, `qp_type` (`IB_QPT_*` = `IBV_QPT_*`). Its `response` field is set here. For rxe
/// `udata_in` must be empty and `udata_out` is `rxe_create_qp_resp` (the mmap info of both rings). Returns
/// `qp_handle`, `qpn` and the capabilities actually granted.
pub fn create_qp<F: CmdFd + ?Sized>(
    fd: &F,
    req: &ib_uverbs_create_qp,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_create_qp_resp> {
    write_io(fd, IB_USER_VERBS_CMD_CREATE_QP, req, udata_in, udata_out)
}

/// EX_CREATE_QP (write-ex): as [`create_qp`] plus `create_flags`, `source_qpn`, `comp_mask` /
/// `rwq_ind_tbl_handle`. rdma-core uses it only when creation flags or an indirection table are given.
pub fn create_qp_ex<F: CmdFd + ?Sized>(
    fd: &F,
    req: &ib_uverbs_ex_create_qp,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_ex_create_qp_resp> {
    write_ex_io(fd, IB_USER_VERBS_EX_CMD_CREATE_QP, req, udata_in, udata_out)
}

/// OPEN_QP (write): opens the shareable XRC target QP `qpn` of the XRC domain `xrcd_handle`. The answer's `qpn`
/// and capabilities are not meaningful (the kernel fills only `qp_handle`).
pub fn open_qp<F: CmdFd + ?Sized>(
    fd: &F,
    user_handle: u64,
    xrcd_handle: u32,
    qpn: u32,
    qp_type: u8,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_create_qp_resp> {
    let req = open_qp_cmd(ib_uverbs_open_qp::zeroed(), user_handle, xrcd_handle, qpn, qp_type);
    write_io(fd, IB_USER_VERBS_CMD_OPEN_QP, &req, udata_in, udata_out)
}

/// The OPEN_QP request: `base` with the fields of [`open_qp`] set (the rest as `base` holds it: zero for our own
/// commands, a plug-in's `struct ibv_open_qp` as rdma-core sends it).
pub fn open_qp_cmd(
    base: ib_uverbs_open_qp,
    user_handle: u64,
    xrcd_handle: u32,
    qpn: u32,
    qp_type: u8,
) -> ib_uverbs_open_qp {
    let mut req = base;
    req.user_handle = user_handle;
    req.pd_handle = xrcd_handle;
    req.qpn = qpn;
    req.qp_type = qp_type;
    req
}

fn dest_from_ah_attr(ah: &ib_uverbs_ah_attr) -> ib_uverbs_qp_dest {
    let mut d = ib_uverbs_qp_dest::zeroed();
    d.dgid = ah.grh.dgid;
    d.flow_label = ah.grh.flow_label;
    d.dlid = ah.dlid;
    d.reserved = 0;
    d.sgid_index = ah.grh.sgid_index;
    d.hop_limit = ah.grh.hop_limit;
    d.traffic_class = ah.grh.traffic_class;
    d.sl = ah.sl;
    d.src_path_bits = ah.src_path_bits;
    d.static_rate = ah.static_rate;
    d.is_global = ah.is_global;
    d.port_num = ah.port_num;
    d
}

fn ah_attr_from_dest(d: &ib_uverbs_qp_dest) -> ib_uverbs_ah_attr {
    let mut ah = ib_uverbs_ah_attr::zeroed();
    ah.grh.dgid = d.dgid;
    ah.grh.flow_label = d.flow_label;
    ah.grh.sgid_index = d.sgid_index;
    ah.grh.hop_limit = d.hop_limit;
    ah.grh.traffic_class = d.traffic_class;
    ah.dlid = d.dlid;
    ah.sl = d.sl;
    ah.src_path_bits = d.src_path_bits;
    ah.static_rate = d.static_rate;
    ah.is_global = d.is_global;
    ah.port_num = d.port_num;
    ah
}

/// The core of MODIFY_QP, rdma-core's `copy_modify_qp_fields`: `base` with the handle, the mask, the reserved
/// bytes (zero) and exactly the fields `attr_mask` selects copied from `attr`; every other field keeps what `base`
/// holds (zero for our own commands; a plug-in's `ibv_cmd_modify_qp` sends the request its provider left in its
/// `struct ibv_modify_qp`, as rdma-core does). `IB_QP_CAP` has no field in the command (the kernel ignores it for
/// modify); `IB_QP_RATE_LIMIT` is carried only by [`modify_qp_ex`].
pub fn modify_qp_cmd(
    base: ib_uverbs_modify_qp,
    qp_handle: u32,
    attr: &ib_uverbs_qp_attr,
    attr_mask: u32,
) -> ib_uverbs_modify_qp {
    let mut c = base;
    fill_modify_qp_cmd(&mut c, qp_handle, attr, attr_mask);
    c
}

/// [`modify_qp_cmd`] in place: `c` is the base, and becomes the command (no copy of the request in or out).
pub fn fill_modify_qp_cmd(c: &mut ib_uverbs_modify_qp, qp_handle: u32, attr: &ib_uverbs_qp_attr, attr_mask: u32) {
    c.qp_handle = qp_handle;
    c.attr_mask = attr_mask;
    c.reserved = [0; 2];
    let has = |bit: u32| attr_mask & bit != 0;
    if has(IB_QP_STATE) {
        c.qp_state = attr.qp_state as u8;
    }
    if has(IB_QP_CUR_STATE) {
        c.cur_qp_state = attr.cur_qp_state as u8;
    }
    if has(IB_QP_EN_SQD_ASYNC_NOTIFY) {
        c.en_sqd_async_notify = attr.en_sqd_async_notify;
    }
    if has(IB_QP_ACCESS_FLAGS) {
        c.qp_access_flags = attr.qp_access_flags;
    }
    if has(IB_QP_PKEY_INDEX) {
        c.pkey_index = attr.pkey_index;
    }
    if has(IB_QP_PORT) {
        c.port_num = attr.port_num;
    }
    if has(IB_QP_QKEY) {
        c.qkey = attr.qkey;
    }
    if has(IB_QP_AV) {
        c.dest = dest_from_ah_attr(&attr.ah_attr);
    }
    if has(IB_QP_PATH_MTU) {
        c.path_mtu = attr.path_mtu as u8;
    }
    if has(IB_QP_TIMEOUT) {
        c.timeout = attr.timeout;
    }
    if has(IB_QP_RETRY_CNT) {
        c.retry_cnt = attr.retry_cnt;
    }
    if has(IB_QP_RNR_RETRY) {
        c.rnr_retry = attr.rnr_retry;
    }
    if has(IB_QP_RQ_PSN) {
        c.rq_psn = attr.rq_psn;
    }
    if has(IB_QP_MAX_QP_RD_ATOMIC) {
        c.max_rd_atomic = attr.max_rd_atomic;
    }
    if has(IB_QP_ALT_PATH) {
        c.alt_pkey_index = attr.alt_pkey_index;
        c.alt_port_num = attr.alt_port_num;
        c.alt_timeout = attr.alt_timeout;
        c.alt_dest = dest_from_ah_attr(&attr.alt_ah_attr);
    }
    if has(IB_QP_MIN_RNR_TIMER) {
        c.min_rnr_timer = attr.min_rnr_timer;
    }
    if has(IB_QP_SQ_PSN) {
        c.sq_psn = attr.sq_psn;
    }
    if has(IB_QP_MAX_DEST_RD_ATOMIC) {
        c.max_dest_rd_atomic = attr.max_dest_rd_atomic;
    }
    if has(IB_QP_PATH_MIG_STATE) {
        c.path_mig_state = attr.path_mig_state as u8;
    }
    if has(IB_QP_DEST_QPN) {
        c.dest_qp_num = attr.dest_qp_num;
    }
}

/// MODIFY_QP (write; no udata, no response). Errors: `EOPNOTSUPP` for mask bits outside
/// [`IB_QP_ATTR_STANDARD_BITS`] (use [`modify_qp_ex`] for `IB_QP_RATE_LIMIT`, as rdma-core answers), `EINVAL` for an
/// invalid transition or attribute (the kernel's `ib_modify_qp_is_ok` and the driver's checks).
pub fn modify_qp<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32, attr: &ib_uverbs_qp_attr, attr_mask: u32) -> Result<()> {
    if attr_mask & !(IB_QP_RATE_LIMIT - 1) != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    write_in(
        fd,
        IB_USER_VERBS_CMD_MODIFY_QP,
        &modify_qp_cmd(ib_uverbs_modify_qp::zeroed(), qp_handle, attr, attr_mask),
        &[],
    )
}

/// EX_MODIFY_QP (write-ex): as [`modify_qp`], also carrying `rate_limit` (used when `IB_QP_RATE_LIMIT` is set) and
/// driver udata. Returns the kernel's `ib_uverbs_ex_modify_qp_resp`.
pub fn modify_qp_ex<F: CmdFd + ?Sized>(
    fd: &F,
    qp_handle: u32,
    attr: &ib_uverbs_qp_attr,
    attr_mask: u32,
    rate_limit: u32,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_ex_modify_qp_resp> {
    let mut req = ib_uverbs_ex_modify_qp::zeroed();
    req.base = modify_qp_cmd(req.base, qp_handle, attr, attr_mask);
    if attr_mask & IB_QP_RATE_LIMIT != 0 {
        req.rate_limit = rate_limit;
    }
    write_ex_io(fd, IB_USER_VERBS_EX_CMD_MODIFY_QP, &req, udata_in, udata_out)
}

/// QUERY_QP (write; no udata): the QP's attributes (`attr_mask` says which the caller wants; the kernel fills all
/// it can). Convert with [`qp_attr_from_query`]; `sq_sig_all` is in the response too.
pub fn query_qp<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32, attr_mask: u32) -> Result<ib_uverbs_query_qp_resp> {
    let mut req = ib_uverbs_query_qp::zeroed();
    req.qp_handle = qp_handle;
    req.attr_mask = attr_mask;
    write_io(fd, IB_USER_VERBS_CMD_QUERY_QP, &req, &[], &mut [])
}

/// The attributes of a QUERY_QP answer as [`ib_uverbs_qp_attr`] (field for field what rdma-core's
/// `ibv_cmd_query_qp` copies into `ibv_qp_attr`; `en_sqd_async_notify` is not reported and stays 0,
/// `qp_attr_mask` is set to `attr_mask`).
pub fn qp_attr_from_query(r: &ib_uverbs_query_qp_resp, attr_mask: u32) -> ib_uverbs_qp_attr {
    let mut a = ib_uverbs_qp_attr::zeroed();
    a.qp_attr_mask = attr_mask;
    a.qp_state = r.qp_state as u32;
    a.cur_qp_state = r.cur_qp_state as u32;
    a.path_mtu = r.path_mtu as u32;
    a.path_mig_state = r.path_mig_state as u32;
    a.qkey = r.qkey;
    a.rq_psn = r.rq_psn;
    a.sq_psn = r.sq_psn;
    a.dest_qp_num = r.dest_qp_num;
    a.qp_access_flags = r.qp_access_flags;
    a.ah_attr = ah_attr_from_dest(&r.dest);
    a.alt_ah_attr = ah_attr_from_dest(&r.alt_dest);
    a.max_send_wr = r.max_send_wr;
    a.max_recv_wr = r.max_recv_wr;
    a.max_send_sge = r.max_send_sge;
    a.max_recv_sge = r.max_recv_sge;
    a.max_inline_data = r.max_inline_data;
    a.pkey_index = r.pkey_index;
    a.alt_pkey_index = r.alt_pkey_index;
    a.sq_draining = r.sq_draining;
    a.max_rd_atomic = r.max_rd_atomic;
    a.max_dest_rd_atomic = r.max_dest_rd_atomic;
    a.min_rnr_timer = r.min_rnr_timer;
    a.port_num = r.port_num;
    a.timeout = r.timeout;
    a.retry_cnt = r.retry_cnt;
    a.rnr_retry = r.rnr_retry;
    a.alt_port_num = r.alt_port_num;
    a.alt_timeout = r.alt_timeout;
    a
}

/// DESTROY_QP: returns `events_reported`, the async events the kernel delivered for this QP, which
/// `ibv_destroy_qp` waits to see acknowledged. The ioctl method `UVERBS_METHOD_QP_DESTROY` first, as rdma-core
/// does; the write command on [`super::ioctl_unsupported`].
pub fn destroy_qp<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32) -> Result<u32> {
    use rdma_common::uapi::ib_user_ioctl_cmds::*;
    let mut out = [0u8; 4];
    let mut io = super::Ioctl::new(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY);
    io.in_obj(UVERBS_ATTR_DESTROY_QP_HANDLE, qp_handle);
    io.out_bytes(UVERBS_ATTR_DESTROY_QP_RESP, &mut out)?;
    match io.execute(fd) {
        Ok(_) => return Ok(u32::from_ne_bytes(out)),
        Err(e) if !super::ioctl_unsupported(e) => return Err(e),
        Err(_) => {}
    }
    destroy_qp_write(fd, qp_handle)
}

/// DESTROY_QP as the write command alone: what `ibv_cmd_destroy_qp` sends for a plug-in, whose fd carries every
/// write command through `write()` (there the write is cheaper for us than building the ioctl). As [`destroy_qp`].
pub fn destroy_qp_write<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32) -> Result<u32> {
    let mut req = ib_uverbs_destroy_qp::zeroed();
    req.qp_handle = qp_handle;
    let resp: ib_uverbs_destroy_qp_resp = write_io(fd, IB_USER_VERBS_CMD_DESTROY_QP, &req, &[], &mut [])?;
    Ok(resp.events_reported)
}

/// POST_SEND with no work request: rxe's doorbell, telling the kernel to process the send queue the provider
/// has just filled in the shared ring (the same write rdma-core's rxe `post_send_db` makes; `wqe_size` is the size
/// of one `ib_uverbs_send_wr`, which the kernel requires even for zero requests). Errors: the kernel's
/// (`EINVAL` for an unknown QP).
#[inline(always)]
pub fn post_send_doorbell<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32) -> Result<()> {
    // On the data path (every ibv_post_send): the 32-byte command is assembled in place, with none of the general
    // write path's buffer zeroing and copying. Same bytes as `write_raw` would send (the unit test pins them).
    const H: usize = size_of::<ib_uverbs_cmd_hdr>();
    const LEN: usize = H + size_of::<ib_uverbs_post_send>();
    const RESP: usize = size_of::<ib_uverbs_post_send_resp>();
    const _: () = assert!(LEN == 32 && RESP == 4);
    let mut out = [0u8; RESP];
    let mut buf = [0u8; LEN];
    buf[0..4].copy_from_slice(&IB_USER_VERBS_CMD_POST_SEND.to_ne_bytes());
    buf[4..6].copy_from_slice(&((LEN / 4) as u16).to_ne_bytes());
    buf[6..8].copy_from_slice(&((RESP / 4) as u16).to_ne_bytes());
    buf[H..H + 8].copy_from_slice(&super::addr(out.as_mut_ptr()).to_ne_bytes());
    buf[H + 8..H + 12].copy_from_slice(&qp_handle.to_ne_bytes());
    // wr_count and sge_count stay 0; wqe_size is required even for zero requests.
    buf[H + 20..H + 24].copy_from_slice(&(size_of::<ib_uverbs_send_wr>() as u32).to_ne_bytes());
    // `out` stays mutably borrowed (alive, untouched) until the write returns.
    super::write_all_quiet(fd, &buf)?;
    match u32::from_ne_bytes(out) {
        0 => Ok(()),
        _ => Err(Errno::EIO),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::rdma_user_rxe::*;
    use rdma_common::uapi::AsBytes;

    fn u16_at(b: &[u8], o: usize) -> u16 {
        u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
    }

    fn full_attr() -> ib_uverbs_qp_attr {
        let mut a = ib_uverbs_qp_attr::zeroed();
        a.qp_state = 3;
        a.cur_qp_state = 2;
        a.path_mtu = 5;
        a.path_mig_state = 1;
        a.qkey = 0x11111111;
        a.rq_psn = 0x222222;
        a.sq_psn = 0x333333;
        a.dest_qp_num = 0x444444;
        a.qp_access_flags = 0xf;
        a.ah_attr.grh.dgid = [0xfe; 16];
        a.ah_attr.grh.flow_label = 0x12345;
        a.ah_attr.grh.sgid_index = 1;
        a.ah_attr.grh.hop_limit = 64;
        a.ah_attr.grh.traffic_class = 3;
        a.ah_attr.dlid = 0x77;
        a.ah_attr.sl = 2;
        a.ah_attr.src_path_bits = 1;
        a.ah_attr.static_rate = 7;
        a.ah_attr.is_global = 1;
        a.ah_attr.port_num = 1;
        a.alt_ah_attr = a.ah_attr;
        a.alt_ah_attr.dlid = 0x88;
        a.max_send_wr = 99;
        a.pkey_index = 5;
        a.alt_pkey_index = 6;
        a.en_sqd_async_notify = 1;
        a.max_rd_atomic = 4;
        a.max_dest_rd_atomic = 8;
        a.min_rnr_timer = 12;
        a.port_num = 1;
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = 6;
        a.alt_port_num = 2;
        a.alt_timeout = 15;
        a
    }

    #[test]
    fn modify_copies_only_masked_fields() {
        let a = full_attr();
        let c = modify_qp_cmd(ib_uverbs_modify_qp::zeroed(), 9, &a, IB_QP_STATE);
        let mut expect = ib_uverbs_modify_qp::zeroed();
        expect.qp_handle = 9;
        expect.attr_mask = IB_QP_STATE;
        expect.qp_state = 3;
        assert_eq!(c.as_bytes(), expect.as_bytes());

        // INIT -> RTR for RC, as every RC application does it.
        let mask = IB_QP_STATE
            | IB_QP_AV
            | IB_QP_PATH_MTU
            | IB_QP_DEST_QPN
            | IB_QP_RQ_PSN
            | IB_QP_MAX_DEST_RD_ATOMIC
            | IB_QP_MIN_RNR_TIMER;
        let c = modify_qp_cmd(ib_uverbs_modify_qp::zeroed(), 9, &a, mask);
        assert_eq!((c.qp_state, c.path_mtu, c.dest_qp_num, c.rq_psn), (3, 5, 0x444444, 0x222222));
        assert_eq!((c.max_dest_rd_atomic, c.min_rnr_timer), (8, 12));
        assert_eq!((c.sq_psn, c.qkey, c.timeout, c.port_num, c.alt_dest.dlid), (0, 0, 0, 0, 0));
        assert_eq!(c.dest.dgid, [0xfe; 16]);
        assert_eq!((c.dest.flow_label, c.dest.dlid, c.dest.sgid_index, c.dest.hop_limit), (0x12345, 0x77, 1, 64));
        assert_eq!((c.dest.traffic_class, c.dest.sl, c.dest.src_path_bits, c.dest.static_rate), (3, 2, 1, 7));
        assert_eq!((c.dest.is_global, c.dest.port_num, c.dest.reserved), (1, 1, 0));

        // Every standard bit: every field lands in its place.
        let c = modify_qp_cmd(ib_uverbs_modify_qp::zeroed(), 9, &a, IB_QP_ATTR_STANDARD_BITS);
        assert_eq!((c.cur_qp_state, c.en_sqd_async_notify, c.qp_access_flags, c.pkey_index), (2, 1, 0xf, 5));
        assert_eq!((c.qkey, c.timeout, c.retry_cnt, c.rnr_retry, c.max_rd_atomic), (0x11111111, 14, 7, 6, 4));
        assert_eq!((c.alt_pkey_index, c.alt_port_num, c.alt_timeout, c.alt_dest.dlid), (6, 2, 15, 0x88));
        assert_eq!((c.sq_psn, c.path_mig_state, c.port_num, c.reserved), (0x333333, 1, 1, [0, 0]));
    }

    #[test]
    fn modify_qp_write_and_mask_limits() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        let a = full_attr();
        modify_qp(&f, 4, &a, IB_QP_STATE | IB_QP_PORT).unwrap();
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_modify_qp>(), 112);
        assert_eq!(w.len(), 120);
        assert_eq!(&w[..8], &[IB_USER_VERBS_CMD_MODIFY_QP as u8, 0, 0, 0, 30, 0, 0, 0]);
        assert_eq!(&w[8..], modify_qp_cmd(ib_uverbs_modify_qp::zeroed(), 4, &a, IB_QP_STATE | IB_QP_PORT).as_bytes());
        assert_eq!(modify_qp(&f, 4, &a, IB_QP_RATE_LIMIT), Err(Errno::EOPNOTSUPP));
        assert_eq!(f.writes().len(), 1);

        f.reply(Reply::write(&[0, 0, 0, 0, 8, 0, 0, 0]));
        let r = modify_qp_ex(&f, 4, &a, IB_QP_RATE_LIMIT, 1000, &[], &mut []).unwrap();
        assert_eq!(r.response_length, 8);
        let w = f.write(1);
        assert_eq!(w.len(), 8 + 16 + 120);
        assert_eq!((u16_at(&w, 4), u16_at(&w, 6)), (15, 1));
        let req = ib_uverbs_ex_modify_qp::from_bytes(&w[24..]);
        assert_eq!((req.base.qp_handle, req.base.attr_mask, req.rate_limit), (4, IB_QP_RATE_LIMIT, 1000));
    }

    #[test]
    fn create_qp_with_rxe_rings() {
        let f = Fake::new();
        let mut resp = ib_uverbs_create_qp_resp::zeroed();
        resp.qp_handle = 1;
        resp.qpn = 0x11;
        resp.max_send_wr = 64;
        let mut drv = rxe_create_qp_resp::zeroed();
        drv.rq_mi.offset = 0x1000;
        drv.sq_mi.offset = 0x2000;
        drv.sq_mi.size = 4096;
        let mut bytes = resp.as_bytes().to_vec();
        bytes.extend_from_slice(drv.as_bytes());
        f.reply(Reply::write(&bytes));
        let mut req = ib_uverbs_create_qp::zeroed();
        req.user_handle = 0x5555;
        req.pd_handle = 2;
        req.send_cq_handle = 3;
        req.recv_cq_handle = 3;
        req.max_send_wr = 60;
        req.qp_type = 2; // IB_QPT_RC
        let mut out = rxe_create_qp_resp::zeroed();
        let r = create_qp(&f, &req, &[], out.as_bytes_mut()).unwrap();
        assert_eq!((r.qp_handle, r.qpn, r.max_send_wr), (1, 0x11, 64));
        assert_eq!((out.rq_mi.offset, out.sq_mi.offset, out.sq_mi.size), (0x1000, 0x2000, 4096));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_create_qp>(), 56);
        assert_eq!(u16_at(&w, 4), 16); // (8 + 56) / 4
        assert_eq!(u16_at(&w, 6) as usize, (32 + size_of::<rxe_create_qp_resp>()) / 4);
        assert_eq!(&w[16..], &req.as_bytes()[8..]);
    }

    #[test]
    fn create_qp_ex_counts() {
        let f = Fake::new();
        f.reply(Reply::write(&[0u8; 40]));
        let mut req = ib_uverbs_ex_create_qp::zeroed();
        req.create_flags = 1 << 1;
        create_qp_ex(&f, &req, &[], &mut []).unwrap();
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_ex_create_qp>(), 64);
        assert_eq!(size_of::<ib_uverbs_ex_create_qp_resp>(), 40);
        assert_eq!((u16_at(&w, 4), u16_at(&w, 6)), (8, 5));
        assert_eq!(&w[24..], req.as_bytes());
    }

    #[test]
    fn query_converts_like_rdma_core() {
        let f = Fake::new();
        let mut r = ib_uverbs_query_qp_resp::zeroed();
        r.qp_state = 3;
        r.dest.dlid = 0x99;
        r.dest.dgid = [1; 16];
        r.dest.hop_limit = 9;
        r.alt_dest.port_num = 2;
        r.max_inline_data = 64;
        r.sq_sig_all = 1;
        r.timeout = 14;
        f.reply(Reply::write(r.as_bytes()));
        let resp = query_qp(&f, 6, IB_QP_STATE | IB_QP_AV).unwrap();
        assert_eq!(resp.sq_sig_all, 1);
        let a = qp_attr_from_query(&resp, IB_QP_STATE | IB_QP_AV);
        assert_eq!((a.qp_state, a.ah_attr.dlid, a.ah_attr.grh.dgid, a.ah_attr.grh.hop_limit), (3, 0x99, [1; 16], 9));
        assert_eq!((a.alt_ah_attr.port_num, a.max_inline_data, a.timeout), (2, 64, 14));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_query_qp_resp>(), 128);
        assert_eq!(&w[4..8], &[6, 0, 32, 0]);
        assert_eq!(&w[16..], &[6, 0, 0, 0, 0x81, 0, 0, 0]);
    }

    #[test]
    fn destroy_and_doorbell() {
        let f = Fake::new();
        // The ioctl method first (object QP, method DESTROY; the handle, then the response), as rdma-core.
        use rdma_common::uapi::ib_user_ioctl_cmds::*;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_DESTROY_QP_RESP, &[2, 0, 0, 0]));
        assert_eq!(destroy_qp(&f, 7).unwrap(), 2);
        let io = f.ioctl(0);
        let u16_at = |o: usize| u16::from_ne_bytes([io[o], io[o + 1]]) as u32;
        assert_eq!((u16_at(2), u16_at(4), u16_at(6)), (UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, 2));
        assert_eq!((u16_at(24), io[32]), (UVERBS_ATTR_DESTROY_QP_HANDLE, 7));
        assert_eq!((u16_at(40), u16_at(42)), (UVERBS_ATTR_DESTROY_QP_RESP, 4));
        // A kernel without the method: the write command.
        f.reply(Reply::fail(Errno(libc::EPROTONOSUPPORT)));
        f.reply(Reply::write(&[2, 0, 0, 0]));
        assert_eq!(destroy_qp(&f, 7).unwrap(), 2);
        assert_eq!(&f.write(0)[..8], &[IB_USER_VERBS_CMD_DESTROY_QP as u8, 0, 0, 0, 6, 0, 1, 0]);

        f.reply(Reply::write(&[0, 0, 0, 0]));
        post_send_doorbell(&f, 7).unwrap();
        let w = f.write(1);
        assert_eq!(w.len(), 8 + 24);
        assert_eq!(&w[..8], &[IB_USER_VERBS_CMD_POST_SEND as u8, 0, 0, 0, 8, 0, 1, 0]);
        let wqe = size_of::<ib_uverbs_send_wr>() as u8;
        assert_eq!(&w[16..], &[7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, wqe, 0, 0, 0]);
        f.reply(Reply::write(&[1, 0, 0, 0]));
        assert_eq!(post_send_doorbell(&f, 7), Err(Errno::EIO));
    }
}
