//! XRC domains: OPEN_XRCD, CLOSE_XRCD.

use super::{write_in, write_io, CmdFd};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;
use std::os::fd::{AsRawFd, BorrowedFd};

/// OPEN_XRCD (write): opens (or with `O_CREAT` in `oflags` creates) the XRC domain tied to the inode of `inode_fd`,
/// or a private one when `inode_fd` is None. Returns `xrcd_handle`. Errors: `EOPNOTSUPP` on devices without XRC
/// (rxe, siw), the kernel's otherwise.
pub fn open_xrcd<F: CmdFd + ?Sized>(
    fd: &F,
    inode_fd: Option<BorrowedFd<'_>>,
    oflags: u32,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<u32> {
    let req = open_xrcd_cmd(ib_uverbs_open_xrcd::zeroed(), inode_fd.map_or(-1i32, |f| f.as_raw_fd()), oflags);
    let resp: ib_uverbs_open_xrcd_resp = write_io(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &req, udata_in, udata_out)?;
    Ok(resp.xrcd_handle)
}

/// The OPEN_XRCD request: `base` with the inode's fd (`-1`: none) and `oflags` set (the rest as `base` holds it:
/// zero for our own commands, a plug-in's `struct ibv_open_xrcd` as rdma-core sends it).
pub fn open_xrcd_cmd(base: ib_uverbs_open_xrcd, inode_fd: i32, oflags: u32) -> ib_uverbs_open_xrcd {
    let mut req = base;
    req.fd = inode_fd as u32;
    req.oflags = oflags;
    req
}

/// CLOSE_XRCD (write).
pub fn close_xrcd<F: CmdFd + ?Sized>(fd: &F, xrcd_handle: u32) -> Result<()> {
    let mut req = ib_uverbs_close_xrcd::zeroed();
    req.xrcd_handle = xrcd_handle;
    write_in(fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &req, &[])
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    #[test]
    fn open_close() {
        let f = Fake::new();
        f.reply(Reply::write(&[8, 0, 0, 0]));
        assert_eq!(open_xrcd(&f, None, libc::O_CREAT as u32, &[], &mut []).unwrap(), 8);
        let w = f.write(0);
        assert_eq!(&w[..8], &[IB_USER_VERBS_CMD_OPEN_XRCD as u8, 0, 0, 0, 6, 0, 1, 0]);
        assert_eq!(&w[16..20], &[0xff; 4]);
        f.reply(Reply::write(&[]));
        close_xrcd(&f, 8).unwrap();
        assert_eq!(f.write(1), [IB_USER_VERBS_CMD_CLOSE_XRCD as u8, 0, 0, 0, 3, 0, 0, 0, 8, 0, 0, 0]);
    }
}
