//! Completion queues: CREATE_CQ, EX_CREATE_CQ, RESIZE_CQ, DESTROY_CQ, REQ_NOTIFY_CQ, POLL_CQ, EX_MODIFY_CQ.

use super::{write_ex_in, write_ex_io, write_in, write_io, write_raw, CmdFd};
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;
use std::mem::size_of;
use std::os::fd::{AsRawFd, BorrowedFd};

/// CREATE_CQ (write): a CQ of at least `cqe` entries; `user_handle` comes back in completion events and async
/// events (the address of our CQ object); `comp_channel` is the completion channel fd, if any; `comp_vector` is
/// below `num_comp_vectors`. `udata_*` are the driver's: for rxe `udata_out` is `rxe_create_cq_resp` (the mmap info
/// of the CQ ring). Returns `cq_handle` and the actual `cqe`.
pub fn create_cq<F: CmdFd + ?Sized>(
    fd: &F,
    user_handle: u64,
    cqe: u32,
    comp_channel: Option<BorrowedFd<'_>>,
    comp_vector: u32,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_create_cq_resp> {
    let req = create_cq_cmd(user_handle, cqe, comp_channel.map_or(-1, |c| c.as_raw_fd()), comp_vector);
    write_io(fd, IB_USER_VERBS_CMD_CREATE_CQ, &req, udata_in, udata_out)
}

/// The CREATE_CQ request (its `response` field left for the write layer): as [`create_cq`], the channel as its
/// fd (`-1` for none). A plug-in's `ibv_cmd_create_cq` sends it with the response in the provider's buffer.
pub fn create_cq_cmd(user_handle: u64, cqe: u32, comp_channel: i32, comp_vector: u32) -> ib_uverbs_create_cq {
    let mut req = ib_uverbs_create_cq::zeroed();
    req.user_handle = user_handle;
    req.cqe = cqe;
    req.comp_vector = comp_vector;
    req.comp_channel = comp_channel;
    req
}

/// EX_CREATE_CQ (write-ex): as [`create_cq`] with `flags` (`IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION`,
/// `IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN`). `req` is the kernel request: `user_handle`, `cqe`, `comp_vector`,
/// `comp_channel` (-1 for none), `flags`. rdma-core uses it only when flags are set; so should the caller.
pub fn create_cq_ex<F: CmdFd + ?Sized>(
    fd: &F,
    req: &ib_uverbs_ex_create_cq,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_ex_create_cq_resp> {
    write_ex_io(fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, req, udata_in, udata_out)
}

/// RESIZE_CQ (write): returns the new `cqe` (in `ib_uverbs_resize_cq_resp::cqe`); for rxe `udata_out` is
/// `rxe_resize_cq_resp` (the new ring's mmap info).
pub fn resize_cq<F: CmdFd + ?Sized>(
    fd: &F,
    cq_handle: u32,
    cqe: u32,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_resize_cq_resp> {
    let req = resize_cq_cmd(ib_uverbs_resize_cq::zeroed(), cq_handle, cqe);
    write_io(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &req, udata_in, udata_out)
}

/// The RESIZE_CQ request: `base` with `cq_handle` and `cqe` set (the rest as `base` holds it: zero for our own
/// commands, a plug-in's `struct ibv_resize_cq` as rdma-core sends it).
pub fn resize_cq_cmd(base: ib_uverbs_resize_cq, cq_handle: u32, cqe: u32) -> ib_uverbs_resize_cq {
    let mut req = base;
    req.cq_handle = cq_handle;
    req.cqe = cqe;
    req
}

/// DESTROY_CQ: returns how many completion and async events the kernel delivered for this CQ, which
/// `ibv_destroy_cq` waits to see acknowledged. The ioctl method `UVERBS_METHOD_CQ_DESTROY` first, as rdma-core
/// does; the write command on [`super::ioctl_unsupported`]. Errors: `EBUSY` while a QP uses it.
pub fn destroy_cq<F: CmdFd + ?Sized>(fd: &F, cq_handle: u32) -> Result<ib_uverbs_destroy_cq_resp> {
    use rdma_common::uapi::ib_user_ioctl_cmds::*;
    let mut out = [0u8; size_of::<ib_uverbs_destroy_cq_resp>()];
    let mut io = super::Ioctl::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
    io.in_obj(UVERBS_ATTR_DESTROY_CQ_HANDLE, cq_handle);
    io.out_bytes(UVERBS_ATTR_DESTROY_CQ_RESP, &mut out)?;
    match io.execute(fd) {
        Ok(_) => return Ok(ib_uverbs_destroy_cq_resp::from_bytes(&out)),
        Err(e) if !super::ioctl_unsupported(e) => return Err(e),
        Err(_) => {}
    }
    destroy_cq_write(fd, cq_handle)
}

/// DESTROY_CQ as the write command alone: what `ibv_cmd_destroy_cq` sends for a plug-in, whose fd carries every
/// write command through `write()` (there the write is cheaper for us than building the ioctl). As [`destroy_cq`].
pub fn destroy_cq_write<F: CmdFd + ?Sized>(fd: &F, cq_handle: u32) -> Result<ib_uverbs_destroy_cq_resp> {
    let mut req = ib_uverbs_destroy_cq::zeroed();
    req.cq_handle = cq_handle;
    write_io(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &req, &[], &mut [])
}

/// REQ_NOTIFY_CQ (write): arm the CQ in the kernel. rxe and siw arm in user space (a flag in the shared ring);
/// this is the generic command.
pub fn req_notify_cq<F: CmdFd + ?Sized>(fd: &F, cq_handle: u32, solicited_only: bool) -> Result<()> {
    let mut req = ib_uverbs_req_notify_cq::zeroed();
    req.cq_handle = cq_handle;
    req.solicited_only = solicited_only as u32;
    write_in(fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &req, &[])
}

/// POLL_CQ (write): polls up to `wc.len()` completions through the kernel (drivers without a user-space CQ);
/// returns how many were written to `wc`.
pub fn poll_cq<F: CmdFd + ?Sized>(fd: &F, cq_handle: u32, wc: &mut [ib_uverbs_wc]) -> Result<usize> {
    let mut req = ib_uverbs_poll_cq::zeroed();
    req.cq_handle = cq_handle;
    req.ne = u32::try_from(wc.len()).map_err(|_| Errno::EINVAL)?;
    let head = size_of::<ib_uverbs_poll_cq_resp>();
    let each = size_of::<ib_uverbs_wc>();
    let mut out = vec![0u8; head + std::mem::size_of_val(wc)];
    write_raw(fd, IB_USER_VERBS_CMD_POLL_CQ, rdma_common::uapi::AsBytes::as_bytes(&req), &[], Some(&mut out))?;
    let count = ib_uverbs_poll_cq_resp::from_bytes(&out).count as usize;
    if count > wc.len() {
        return Err(Errno::EIO);
    }
    for (i, w) in wc.iter_mut().take(count).enumerate() {
        *w = ib_uverbs_wc::from_bytes(&out[head + i * each..]);
    }
    Ok(count)
}

/// EX_MODIFY_CQ (write-ex): CQ moderation. `attr_mask` is `IB_CQ_MODERATE` (1).
pub fn modify_cq<F: CmdFd + ?Sized>(
    fd: &F,
    cq_handle: u32,
    attr_mask: u32,
    cq_count: u16,
    cq_period: u16,
) -> Result<()> {
    let mut req = ib_uverbs_ex_modify_cq::zeroed();
    req.cq_handle = cq_handle;
    req.attr_mask = attr_mask;
    req.attr.cq_count = cq_count;
    req.attr.cq_period = cq_period;
    write_ex_in(fd, IB_USER_VERBS_EX_CMD_MODIFY_CQ, &req, &[])
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::rdma_user_rxe::*;
    use rdma_common::uapi::AsBytes;
    use std::os::fd::AsFd;

    fn u16_at(b: &[u8], o: usize) -> u16 {
        u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
    }

    #[test]
    fn create_cq_with_rxe_udata() {
        let f = Fake::new();
        let mut drv = rxe_create_cq_resp::zeroed();
        drv.mi.offset = 0x4000;
        drv.mi.size = 8192;
        let mut resp = ib_uverbs_create_cq_resp::zeroed().as_bytes().to_vec();
        resp[0] = 3; // cq_handle
        resp[4] = 255; // cqe
        resp.extend_from_slice(drv.as_bytes());
        f.reply(Reply::write(&resp));
        let chan = std::fs::File::open("/dev/null").unwrap();
        let mut out = rxe_create_cq_resp::zeroed();
        let r = create_cq(&f, 0xdead_beef, 200, Some(chan.as_fd()), 0, &[], out.as_bytes_mut()).unwrap();
        assert_eq!((r.cq_handle, r.cqe), (3, 255));
        assert_eq!((out.mi.offset, out.mi.size), (0x4000, 8192));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_create_cq>(), 32);
        assert_eq!(u16_at(&w, 4), 10); // (8 + 32) / 4
        assert_eq!(u16_at(&w, 6) as usize, (8 + size_of::<rxe_create_cq_resp>()) / 4);
        let req = ib_uverbs_create_cq::from_bytes(&w[8..]);
        assert_eq!((req.user_handle, req.cqe, req.comp_vector), (0xdead_beef, 200, 0));
        assert_eq!(req.comp_channel, chan.as_raw_fd());

        f.reply(Reply::write(&[0; 8]));
        create_cq(&f, 1, 1, None, 0, &[], &mut []).unwrap();
        assert_eq!(ib_uverbs_create_cq::from_bytes(&f.write(1)[8..]).comp_channel, -1);
    }

    #[test]
    fn create_cq_ex_counts() {
        let f = Fake::new();
        f.reply(Reply::write(&[7, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0]));
        let mut req = ib_uverbs_ex_create_cq::zeroed();
        req.cqe = 16;
        req.comp_channel = -1;
        req.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
        let r = create_cq_ex(&f, &req, &[], &mut []).unwrap();
        assert_eq!((r.base.cq_handle, r.base.cqe, r.response_length), (7, 16, 16));
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 16 + 32);
        assert_eq!((u16_at(&w, 4), u16_at(&w, 6)), (4, 2));
        assert_eq!(&w[24..], req.as_bytes());
    }

    #[test]
    fn resize_destroy_notify() {
        let f = Fake::new();
        f.reply(Reply::write(&[64, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]));
        let mut mi = [0u8; 8];
        assert_eq!(resize_cq(&f, 2, 60, &[], &mut mi).unwrap().cqe, 64);
        assert_eq!(mi, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&f.write(0)[4..8], &[6, 0, 4, 0]);
        assert_eq!(&f.write(0)[16..], &[2, 0, 0, 0, 60, 0, 0, 0]);

        // The ioctl method first (object CQ, method DESTROY; the handle, then the response), as rdma-core.
        use rdma_common::uapi::ib_user_ioctl_cmds::*;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_DESTROY_CQ_RESP, &[3, 0, 0, 0, 1, 0, 0, 0]));
        let d = destroy_cq(&f, 2).unwrap();
        assert_eq!((d.comp_events_reported, d.async_events_reported), (3, 1));
        let io = f.ioctl(0);
        let u16_at = |o: usize| u16::from_ne_bytes([io[o], io[o + 1]]) as u32;
        assert_eq!((u16_at(2), u16_at(4), u16_at(6)), (UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, 2));
        assert_eq!((u16_at(24), io[32]), (UVERBS_ATTR_DESTROY_CQ_HANDLE, 2));
        assert_eq!((u16_at(40), u16_at(42)), (UVERBS_ATTR_DESTROY_CQ_RESP, 8));
        // A kernel without the method: the write command.
        f.reply(Reply::fail(Errno(libc::EPROTONOSUPPORT)));
        f.reply(Reply::write(&[3, 0, 0, 0, 1, 0, 0, 0]));
        let d = destroy_cq(&f, 2).unwrap();
        assert_eq!((d.comp_events_reported, d.async_events_reported), (3, 1));
        // 24 bytes: the size rdma-core v18/v19 got wrong; the kernel checks it since.
        assert_eq!(&f.write(1)[4..8], &[6, 0, 2, 0]);

        f.reply(Reply::write(&[]));
        req_notify_cq(&f, 2, true).unwrap();
        assert_eq!(f.write(2), [IB_USER_VERBS_CMD_REQ_NOTIFY_CQ as u8, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn poll_cq_parses_wcs() {
        let f = Fake::new();
        let mut wc = ib_uverbs_wc::zeroed();
        wc.wr_id = 42;
        wc.byte_len = 100;
        let mut resp = vec![1, 0, 0, 0, 0, 0, 0, 0];
        resp.extend_from_slice(wc.as_bytes());
        f.reply(Reply::write(&resp));
        let mut wcs = [ib_uverbs_wc::zeroed(), ib_uverbs_wc::zeroed()];
        assert_eq!(poll_cq(&f, 5, &mut wcs).unwrap(), 1);
        assert_eq!((wcs[0].wr_id, wcs[0].byte_len), (42, 100));
        let w = f.write(0);
        assert_eq!(u16_at(&w, 6) as usize, (8 + 2 * size_of::<ib_uverbs_wc>()) / 4);
        assert_eq!(&w[16..], &[5, 0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn modify_cq_ex() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        modify_cq(&f, 1, 1, 16, 10).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 16 + 16);
        assert_eq!(&w[24..], &[1, 0, 0, 0, 1, 0, 0, 0, 16, 0, 10, 0, 0, 0, 0, 0]);
    }
}
