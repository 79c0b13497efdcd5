//! Memory regions: REG_MR (with iova), REREG_MR, DEREG_MR, REG_DMABUF_MR.

use super::{write_in, write_io, CmdFd, Ioctl};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;
use std::os::fd::BorrowedFd;

/// REG_MR (write): registers `length` bytes at user address `start`, seen by the device at `hca_va` (the iova:
/// `start` for `ibv_reg_mr`, the caller's for `ibv_reg_mr_iova`), with `IB_ACCESS_*`/`IBV_ACCESS_*` bits (same
/// values). For an implicit ODP MR rdma-core passes `length == u64::MAX`. Returns `mr_handle`, `lkey`, `rkey`.
/// Errors: the kernel's (`EFAULT` bad range, `EINVAL`, `EOPNOTSUPP` unsupported access bits on 6.12's rxe, ...).
#[allow(clippy::too_many_arguments)]
pub fn reg_mr<F: CmdFd + ?Sized>(
    fd: &F,
    pd_handle: u32,
    start: u64,
    length: u64,
    hca_va: u64,
    access_flags: u32,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_reg_mr_resp> {
    let req = reg_mr_cmd(ib_uverbs_reg_mr::zeroed(), pd_handle, start, length, hca_va, access_flags);
    write_io(fd, IB_USER_VERBS_CMD_REG_MR, &req, udata_in, udata_out)
}

/// The REG_MR request: `base` with the fields of [`reg_mr`] set (its `response` left for the write layer; the
/// rest as `base` holds it: zero for our own commands, the request a plug-in left in its `struct ibv_reg_mr`, as
/// rdma-core's `ibv_cmd_reg_mr` sends it).
pub fn reg_mr_cmd(
    base: ib_uverbs_reg_mr,
    pd_handle: u32,
    start: u64,
    length: u64,
    hca_va: u64,
    access_flags: u32,
) -> ib_uverbs_reg_mr {
    let mut req = base;
    req.start = start;
    req.length = length;
    req.hca_va = hca_va;
    req.pd_handle = pd_handle;
    req.access_flags = access_flags;
    req
}

/// REREG_MR (write): `req` is the kernel request (`mr_handle`, `flags` = `IB_MR_REREG_TRANS | _PD | _ACCESS` bits,
/// `start`, `length`, `hca_va`, `pd_handle` (0 unless `IB_MR_REREG_PD`), `access_flags`); its `response` field is
/// set here. Returns the new `lkey`/`rkey`.
pub fn rereg_mr<F: CmdFd + ?Sized>(
    fd: &F,
    req: &ib_uverbs_rereg_mr,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_rereg_mr_resp> {
    write_io(fd, IB_USER_VERBS_CMD_REREG_MR, req, udata_in, udata_out)
}

/// DEREG_MR (write). Errors: `EBUSY` while memory windows are bound, the kernel's otherwise.
pub fn dereg_mr<F: CmdFd + ?Sized>(fd: &F, mr_handle: u32) -> Result<()> {
    let mut req = ib_uverbs_dereg_mr::zeroed();
    req.mr_handle = mr_handle;
    write_in(fd, IB_USER_VERBS_CMD_DEREG_MR, &req, &[])
}

/// The answer of REG_DMABUF_MR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmabufMr {
    pub mr_handle: u32,
    pub lkey: u32,
    pub rkey: u32,
}

/// UVERBS_METHOD_REG_DMABUF_MR (ioctl only): registers `length` bytes at `offset` of the dma-buf `dmabuf_fd`, at
/// device address `iova`. Errors: `EOPNOTSUPP` on rxe and siw (no `reg_user_mr_dmabuf`), the kernel's otherwise.
#[allow(clippy::too_many_arguments)]
pub fn reg_dmabuf_mr<F: CmdFd + ?Sized>(
    fd: &F,
    pd_handle: u32,
    offset: u64,
    length: u64,
    iova: u64,
    dmabuf_fd: BorrowedFd<'_>,
    access_flags: u32,
) -> Result<DmabufMr> {
    let (mut lkey, mut rkey) = ([0u8; 4], [0u8; 4]);
    let mut c = Ioctl::new(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
    let h = c.new_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
    c.out_bytes(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &mut lkey)?;
    c.out_bytes(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &mut rkey)?;
    c.in_obj(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd_handle);
    c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
    c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length);
    c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
    c.in_fd(UVERBS_ATTR_REG_DMABUF_MR_FD, dmabuf_fd);
    c.in_u32(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access_flags);
    let done = c.execute(fd)?;
    Ok(DmabufMr { mr_handle: done.data(h) as u32, lkey: u32::from_ne_bytes(lkey), rkey: u32::from_ne_bytes(rkey) })
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::AsBytes;
    use std::mem::size_of;
    use std::os::fd::{AsFd, AsRawFd};

    #[test]
    fn reg_mr_marshalling() {
        let f = Fake::new();
        f.reply(Reply::write(&[1, 0, 0, 0, 0x11, 0, 0, 0, 0x22, 0, 0, 0]));
        let r = reg_mr(&f, 3, 0x1000, 0x2000, 0x7000_0000, 0x7, &[], &mut []).unwrap();
        assert_eq!((r.mr_handle, r.lkey, r.rkey), (1, 0x11, 0x22));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_reg_mr>(), 40);
        assert_eq!(w.len(), 48);
        assert_eq!(&w[4..8], &[12, 0, 3, 0]); // in 48/4, out 12/4
        let mut expect = ib_uverbs_reg_mr::zeroed();
        expect.start = 0x1000;
        expect.length = 0x2000;
        expect.hca_va = 0x7000_0000;
        expect.pd_handle = 3;
        expect.access_flags = 7;
        assert_eq!(&w[16..], &expect.as_bytes()[8..]);
    }

    #[test]
    fn rereg_and_dereg() {
        let f = Fake::new();
        f.reply(Reply::write(&[1, 0, 0, 0, 2, 0, 0, 0]));
        let mut req = ib_uverbs_rereg_mr::zeroed();
        req.mr_handle = 9;
        req.flags = 1;
        let r = rereg_mr(&f, &req, &[], &mut []).unwrap();
        assert_eq!((r.lkey, r.rkey), (1, 2));
        assert_eq!(&f.write(0)[0..8], &[IB_USER_VERBS_CMD_REREG_MR as u8, 0, 0, 0, 14, 0, 2, 0]);
        assert_eq!(&f.write(0)[16..24], &[9, 0, 0, 0, 1, 0, 0, 0]);
        f.reply(Reply::write(&[]));
        dereg_mr(&f, 9).unwrap();
        assert_eq!(f.write(1), [IB_USER_VERBS_CMD_DEREG_MR as u8, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0]);
    }

    #[test]
    fn dmabuf_ioctl() {
        let f = Fake::new();
        f.reply(
            Reply::ioctl()
                .new_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 77)
                .out(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &5u32.to_ne_bytes())
                .out(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &6u32.to_ne_bytes()),
        );
        let file = std::fs::File::open("/dev/null").unwrap();
        let r = reg_dmabuf_mr(&f, 2, 0, 4096, 0x1000, file.as_fd(), 1).unwrap();
        assert_eq!(r, DmabufMr { mr_handle: 77, lkey: 5, rkey: 6 });
        let b = f.ioctl(0);
        assert_eq!(u16::from_ne_bytes(b[6..8].try_into().unwrap()), 9);
        let fd_attr = 24 + 7 * 16;
        assert_eq!(
            u16::from_ne_bytes(b[fd_attr..fd_attr + 2].try_into().unwrap()) as u32,
            UVERBS_ATTR_REG_DMABUF_MR_FD
        );
        let data = i64::from_ne_bytes(b[fd_attr + 8..fd_attr + 16].try_into().unwrap());
        assert_eq!(data, file.as_raw_fd() as i64);
    }
}
