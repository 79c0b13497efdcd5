//! Shared receive queues: CREATE_SRQ, CREATE_XSRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ.
#![allow(unsafe_code)]

use super::{write_in, write_io, CmdFd};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;

/// CREATE_SRQ (write): a basic SRQ. `req` is the kernel request (`user_handle`, `pd_handle`, `max_wr`, `max_sge`,
/// `srq_limit`); its `response` field is set here. For rxe `udata_out` is `rxe_create_srq_resp` (the ring's mmap
/// info and `srq_num`). Returns `srq_handle` and the granted `max_wr`/`max_sge` (`srqn` is filled by CREATE_XSRQ
/// only).
pub fn create_srq<F: CmdFd + ?Sized>(
    fd: &F,
    req: &ib_uverbs_create_srq,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_create_srq_resp> {
    write_io(fd, IB_USER_VERBS_CMD_CREATE_SRQ, req, udata_in, udata_out)
}

/// CREATE_XSRQ (write): an SRQ of type `srq_type` (`IB_SRQT_BASIC`, `IB_SRQT_XRC` with `xrcd_handle` +
/// `cq_handle`, `IB_SRQT_TM` with `max_num_tags` + `cq_handle`), what `ibv_create_srq_ex` uses for non-basic types.
pub fn create_xsrq<F: CmdFd + ?Sized>(
    fd: &F,
    req: &ib_uverbs_create_xsrq,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_create_srq_resp> {
    write_io(fd, IB_USER_VERBS_CMD_CREATE_XSRQ, req, udata_in, udata_out)
}

/// MODIFY_SRQ (write; udata in, no response): `attr_mask` is `IB_SRQ_MAX_WR` (resize, 1) and/or `IB_SRQ_LIMIT` (2)
/// (= `IBV_SRQ_*`).
///
/// # Safety
/// The kernel driver may write through user addresses carried in `udata_in`: rxe's `rxe_modify_srq_cmd` holds
/// `mmap_info_addr`, where it writes the resized ring's mmap info. Every such address must be valid for those
/// writes for the duration of the call (rdma-core passes the address of a local `struct mminfo`).
pub unsafe fn modify_srq<F: CmdFd + ?Sized>(
    fd: &F,
    srq_handle: u32,
    attr_mask: u32,
    max_wr: u32,
    srq_limit: u32,
    udata_in: &[u8],
) -> Result<()> {
    let mut req = ib_uverbs_modify_srq::zeroed();
    req.srq_handle = srq_handle;
    req.attr_mask = attr_mask;
    req.max_wr = max_wr;
    req.srq_limit = srq_limit;
    write_in(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &req, udata_in)
}

/// QUERY_SRQ (write): `max_wr`, `max_sge`, `srq_limit`.
pub fn query_srq<F: CmdFd + ?Sized>(fd: &F, srq_handle: u32) -> Result<ib_uverbs_query_srq_resp> {
    let mut req = ib_uverbs_query_srq::zeroed();
    req.srq_handle = srq_handle;
    write_io(fd, IB_USER_VERBS_CMD_QUERY_SRQ, &req, &[], &mut [])
}

/// DESTROY_SRQ (write): returns `events_reported` (async events delivered for this SRQ). Errors: `EBUSY` while a
/// QP uses it.
pub fn destroy_srq<F: CmdFd + ?Sized>(fd: &F, srq_handle: u32) -> Result<u32> {
    let mut req = ib_uverbs_destroy_srq::zeroed();
    req.srq_handle = srq_handle;
    let resp: ib_uverbs_destroy_srq_resp = write_io(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &req, &[], &mut [])?;
    Ok(resp.events_reported)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::rdma_user_rxe::*;
    use rdma_common::uapi::AsBytes;
    use std::mem::size_of;

    #[test]
    fn create_with_rxe_udata() {
        let f = Fake::new();
        let mut drv = rxe_create_srq_resp::zeroed();
        drv.mi.offset = 0x9000;
        drv.srq_num = 17;
        let mut bytes = vec![1, 0, 0, 0, 128, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
        bytes.extend_from_slice(drv.as_bytes());
        f.reply(Reply::write(&bytes));
        let mut req = ib_uverbs_create_srq::zeroed();
        req.user_handle = 0x77;
        req.pd_handle = 1;
        req.max_wr = 100;
        req.max_sge = 1;
        let mut out = rxe_create_srq_resp::zeroed();
        let r = create_srq(&f, &req, &[], out.as_bytes_mut()).unwrap();
        assert_eq!((r.srq_handle, r.max_wr, r.max_sge), (1, 128, 1));
        assert_eq!((out.mi.offset, out.srq_num), (0x9000, 17));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_create_srq>(), 32);
        assert_eq!(&w[4..8], &[10, 0, ((16 + size_of::<rxe_create_srq_resp>()) / 4) as u8, 0]);
        assert_eq!(&w[16..], &req.as_bytes()[8..]);
    }

    #[test]
    fn xsrq_modify_query_destroy() {
        let f = Fake::new();
        f.reply(Reply::write(&[2, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0]));
        let mut req = ib_uverbs_create_xsrq::zeroed();
        req.srq_type = 1;
        req.xrcd_handle = 4;
        req.cq_handle = 5;
        let r = create_xsrq(&f, &req, &[], &mut []).unwrap();
        assert_eq!((r.srq_handle, r.srqn), (2, 9));
        assert_eq!(&f.write(0)[..8], &[IB_USER_VERBS_CMD_CREATE_XSRQ as u8, 0, 0, 0, 14, 0, 4, 0]); // (8 + 48) / 4

        f.reply(Reply::write(&[]));
        let mi_addr = 0x1234_5678_u64.to_ne_bytes();
        // SAFETY: the fake writes nowhere for a command without response; the udata address is never dereferenced.
        unsafe { modify_srq(&f, 2, 2, 0, 10, &mi_addr) }.unwrap();
        let w = f.write(1);
        assert_eq!(&w[..8], &[IB_USER_VERBS_CMD_MODIFY_SRQ as u8, 0, 0, 0, 8, 0, 0, 0]);
        assert_eq!(&w[8..24], &[2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0]);
        assert_eq!(&w[24..], &mi_addr);

        f.reply(Reply::write(&[8, 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0]));
        let q = query_srq(&f, 2).unwrap();
        assert_eq!((q.max_wr, q.max_sge, q.srq_limit), (8, 1, 10));
        assert_eq!(&f.write(2)[4..8], &[6, 0, 4, 0]);

        f.reply(Reply::write(&[0, 0, 0, 0]));
        assert_eq!(destroy_srq(&f, 2).unwrap(), 0);
        assert_eq!(&f.write(3)[4..8], &[6, 0, 1, 0]);
    }
}
