//! Multicast: JOIN_IP_MCAST, JOIN_MCAST, LEAVE_MCAST.

use super::{put, put_addr, write_io, UcmFd};
use rdma_common::errno::Result;
use rdma_common::uapi::rdma_user_cm::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::mem::{offset_of, size_of};

/// JOIN_IP_MCAST: joins IPv4/IPv6 multicast group `addr` as a full member; `uid` is echoed in the group's events.
/// Returns the kernel's handle of the membership. Errors: `EINVAL`, `ENODEV` (id not bound to a device), ...
pub fn join_ip_mcast<F: UcmFd + ?Sized>(fd: &F, id: u32, uid: u64, addr: &[u8]) -> Result<u32> {
    let mut cmd = rdma_ucm_join_ip_mcast::zeroed();
    cmd.uid = uid;
    cmd.id = id;
    let off = offset_of!(rdma_ucm_join_ip_mcast, addr);
    put_addr(&mut cmd.as_bytes_mut()[off..off + size_of::<libc::sockaddr_in6>()], addr)?;
    let mut out = [0u8; size_of::<rdma_ucm_create_id_resp>()];
    write_io(fd, RDMA_USER_CM_CMD_JOIN_IP_MCAST, cmd, &mut out)?;
    Ok(rdma_ucm_create_id_resp::from_bytes(&out).id)
}

/// JOIN_MCAST: joins multicast group `addr` (any family) with `join_flags` (`RDMA_MC_JOIN_FLAG_*`). Returns the
/// membership's handle. Errors as [`join_ip_mcast`], and `EINVAL` for unknown flags.
pub fn join_mcast<F: UcmFd + ?Sized>(fd: &F, id: u32, uid: u64, addr: &[u8], join_flags: u16) -> Result<u32> {
    let mut b = [0u8; size_of::<rdma_ucm_join_mcast>()];
    put(&mut b, offset_of!(rdma_ucm_join_mcast, uid), uid.to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_join_mcast, id), id.to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_join_mcast, addr_size), (addr.len() as u16).to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_join_mcast, join_flags), join_flags.to_ne_bytes());
    put_addr(&mut b[offset_of!(rdma_ucm_join_mcast, addr)..], addr)?;
    let mut out = [0u8; size_of::<rdma_ucm_create_id_resp>()];
    write_io(fd, RDMA_USER_CM_CMD_JOIN_MCAST, b, &mut out)?;
    Ok(rdma_ucm_create_id_resp::from_bytes(&out).id)
}

/// LEAVE_MCAST: leaves the membership `mc_id` (its handle from a join). Returns the events the kernel reported for
/// it. Errors: `ENOENT`/`EINVAL` for an unknown handle.
pub fn leave_mcast<F: UcmFd + ?Sized>(fd: &F, mc_id: u32) -> Result<u32> {
    let mut cmd = rdma_ucm_destroy_id::zeroed();
    cmd.id = mc_id;
    let mut out = [0u8; size_of::<rdma_ucm_destroy_id_resp>()];
    write_io(fd, RDMA_USER_CM_CMD_LEAVE_MCAST, cmd, &mut out)?;
    Ok(rdma_ucm_destroy_id_resp::from_bytes(&out).events_reported)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    #[test]
    fn join_leave_bytes() {
        let f = Fake::new();
        let mut a = vec![0u8; 16];
        a[0..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        a[4..8].copy_from_slice(&[239, 0, 0, 1]);
        f.reply(Reply::ok(&11u32.to_ne_bytes()));
        assert_eq!(join_ip_mcast(&f, 4, 0x77, &a).unwrap(), 11);
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 48);
        assert_eq!(&w[0..8], &[16, 0, 0, 0, 48, 0, 4, 0]);
        assert_eq!(&w[16..24], &0x77u64.to_ne_bytes());
        assert_eq!(&w[24..40], &a[..]);
        assert_eq!(&w[52..56], &[4, 0, 0, 0]);

        f.reply(Reply::ok(&12u32.to_ne_bytes()));
        assert_eq!(join_mcast(&f, 4, 0x77, &a, 1).unwrap(), 12);
        let w = f.write(1);
        assert_eq!(w.len(), 8 + 152);
        assert_eq!(&w[0..8], &[22, 0, 0, 0, 152, 0, 4, 0]);
        assert_eq!(&w[16..24], &0x77u64.to_ne_bytes());
        assert_eq!(&w[24..32], &[4, 0, 0, 0, 16, 0, 1, 0]);
        assert_eq!(&w[32..48], &a[..]);

        f.reply(Reply::ok(&2u32.to_ne_bytes()));
        assert_eq!(leave_mcast(&f, 12).unwrap(), 2);
        let w = f.write(2);
        assert_eq!(&w[0..8], &[17, 0, 0, 0, 16, 0, 4, 0]);
        assert_eq!(&w[16..20], &[12, 0, 0, 0]);
    }
}
