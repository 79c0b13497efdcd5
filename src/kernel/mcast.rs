//! Multicast: ATTACH_MCAST, DETACH_MCAST.

use super::{write_in, CmdFd};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;

/// ATTACH_MCAST (write): attaches a UD QP to the multicast group `gid` (raw, network order) / `mlid`.
pub fn attach_mcast<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32, gid: &[u8; 16], mlid: u16) -> Result<()> {
    let mut req = ib_uverbs_attach_mcast::zeroed();
    req.gid = *gid;
    req.qp_handle = qp_handle;
    req.mlid = mlid;
    write_in(fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &req, &[])
}

/// DETACH_MCAST (write). rdma-core ignores `EIO` here when the device was disassociated; so may the caller.
pub fn detach_mcast<F: CmdFd + ?Sized>(fd: &F, qp_handle: u32, gid: &[u8; 16], mlid: u16) -> Result<()> {
    let mut req = ib_uverbs_detach_mcast::zeroed();
    req.gid = *gid;
    req.qp_handle = qp_handle;
    req.mlid = mlid;
    write_in(fd, IB_USER_VERBS_CMD_DETACH_MCAST, &req, &[])
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    #[test]
    fn attach_detach() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        f.reply(Reply::write(&[]));
        let gid = [0xff, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        attach_mcast(&f, 4, &gid, 0xc001).unwrap();
        detach_mcast(&f, 4, &gid, 0xc001).unwrap();
        for (i, cmd) in [IB_USER_VERBS_CMD_ATTACH_MCAST, IB_USER_VERBS_CMD_DETACH_MCAST].into_iter().enumerate() {
            let w = f.write(i);
            assert_eq!(w.len(), 8 + 24);
            assert_eq!(&w[..8], &[cmd as u8, 0, 0, 0, 8, 0, 0, 0]);
            assert_eq!(&w[8..24], &gid);
            assert_eq!(&w[24..], &[4, 0, 0, 0, 0x01, 0xc0, 0, 0]);
        }
    }
}
