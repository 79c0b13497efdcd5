//! Ids: CREATE_ID, DESTROY_ID, MIGRATE_ID, SET_OPTION, NOTIFY.
#![allow(unsafe_code)]

use super::{addr_of, write_framed_io, write_in, write_io, UcmFd};
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::rdma_user_cm::*;
use rdma_common::uapi::FromBytes;
use std::mem::size_of;

/// CREATE_ID: a new kernel id in port space `ps` (`RDMA_PS_*`) for QP type `qp_type` (`IBV_QPT_*`, used only by
/// `RDMA_PS_IB`); `uid` is echoed in this id's events. Returns the kernel's handle. Errors: `EINVAL` for an unknown
/// port space, `ENOMEM`.
pub fn create_id<F: UcmFd + ?Sized>(fd: &F, uid: u64, ps: u16, qp_type: u8) -> Result<u32> {
    let mut out = [0u8; size_of::<rdma_ucm_create_id_resp>()];
    let cmd = rdma_ucm_create_id { uid, response: addr_of(out.as_mut_ptr()), ps, qp_type, reserved: [0; 5] };
    // SAFETY: the one address in `cmd` is `out`'s, borrowed by the call.
    unsafe { write_framed_io(fd, RDMA_USER_CM_CMD_CREATE_ID, cmd, &mut out) }?;
    Ok(rdma_ucm_create_id_resp::from_bytes(&out).id)
}

/// DESTROY_ID: destroys kernel id `id` and its pending events. Returns how many events the kernel reported for it
/// (the library waits until that many are acknowledged). Errors: `EINVAL` for an unknown id.
pub fn destroy_id<F: UcmFd + ?Sized>(fd: &F, id: u32) -> Result<u32> {
    let mut out = [0u8; size_of::<rdma_ucm_destroy_id_resp>()];
    let cmd = rdma_ucm_destroy_id { response: addr_of(out.as_mut_ptr()), id, reserved: 0 };
    // SAFETY: the one address in `cmd` is `out`'s, borrowed by the call.
    unsafe { write_framed_io(fd, RDMA_USER_CM_CMD_DESTROY_ID, cmd, &mut out) }?;
    Ok(rdma_ucm_destroy_id_resp::from_bytes(&out).events_reported)
}

/// MIGRATE_ID, written on the *new* channel's descriptor `fd`: moves kernel id `id` from the channel whose
/// descriptor is `old_fd`, with its pending events. Returns the events reported on the old channel. Errors:
/// `EBADF`/`EINVAL` for a bad descriptor, `EINVAL` for an unknown id.
pub fn migrate_id<F: UcmFd + ?Sized>(fd: &F, id: u32, old_fd: i32) -> Result<u32> {
    let mut cmd = rdma_ucm_migrate_id::zeroed();
    cmd.id = id;
    cmd.fd = old_fd as u32;
    let mut out = [0u8; size_of::<rdma_ucm_migrate_resp>()];
    write_io(fd, RDMA_USER_CM_CMD_MIGRATE_ID, cmd, &mut out)?;
    Ok(rdma_ucm_migrate_resp::from_bytes(&out).events_reported)
}

/// SET_OPTION: sets option `optname` of `level` from the `optlen` bytes at address `optval`, which the kernel
/// reads. Errors: `EINVAL` for a bad size, `ENOSYS` for an unknown option, `EFAULT` for an unreadable `optval`.
///
/// # Safety
/// `optval` must be readable for `optlen` bytes (or `optlen` 0) for the duration of the call.
pub unsafe fn set_option<F: UcmFd + ?Sized>(
    fd: &F,
    id: u32,
    level: u32,
    optname: u32,
    optval: *const u8,
    optlen: u32,
) -> Result<()> {
    let mut cmd = rdma_ucm_set_option::zeroed();
    cmd.optval = optval.expose_provenance() as u64;
    cmd.id = id;
    cmd.level = level;
    cmd.optname = optname;
    cmd.optlen = optlen;
    write_in(fd, RDMA_USER_CM_CMD_SET_OPTION, cmd)
}

/// NOTIFY: reports QP asynchronous event `event` (`IBV_EVENT_*`) of the id's QP to the kernel's CM. Errors:
/// `EINVAL` for an unknown id.
pub fn notify<F: UcmFd + ?Sized>(fd: &F, id: u32, event: u32) -> Result<()> {
    let cmd = rdma_ucm_notify { id, event };
    write_in(fd, RDMA_USER_CM_CMD_NOTIFY, cmd)
}

/// `optlen` as the kernel's `__u32`: larger sizes are `EINVAL` (the kernel's own answer for sizes it cannot
/// allocate).
pub fn optlen(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Errno::EINVAL)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    fn le32(v: u32) -> [u8; 4] {
        v.to_ne_bytes()
    }

    #[test]
    fn create_id_bytes() {
        let f = Fake::new();
        f.reply(Reply::ok(&le32(7)));
        assert_eq!(create_id(&f, 0x1122_3344_5566_7788, RDMA_PS_TCP as u16, 2).unwrap(), 7);
        let w = f.write(0);
        assert_eq!(w.len(), 32);
        // hdr: cmd 0, in 24, out 4
        assert_eq!(&w[0..8], &[0, 0, 0, 0, 24, 0, 4, 0]);
        assert_eq!(&w[8..16], &0x1122_3344_5566_7788u64.to_ne_bytes());
        // response address (nonzero), then ps 0x0106, qp_type 2, reserved
        assert_ne!(u64::from_ne_bytes(w[16..24].try_into().unwrap()), 0);
        assert_eq!(&w[24..32], &[0x06, 0x01, 2, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn destroy_and_migrate_bytes() {
        let f = Fake::new();
        f.reply(Reply::ok(&le32(3)));
        assert_eq!(destroy_id(&f, 0x0a0b0c0d).unwrap(), 3);
        let w = f.write(0);
        assert_eq!(&w[0..8], &[1, 0, 0, 0, 16, 0, 4, 0]);
        assert_eq!(&w[16..24], &[0x0d, 0x0c, 0x0b, 0x0a, 0, 0, 0, 0]);

        f.reply(Reply::ok(&le32(5)));
        assert_eq!(migrate_id(&f, 9, 42).unwrap(), 5);
        let w = f.write(1);
        assert_eq!(&w[0..8], &[18, 0, 0, 0, 16, 0, 4, 0]);
        assert_eq!(&w[16..24], &[9, 0, 0, 0, 42, 0, 0, 0]);

        f.reply(Reply::fail(Errno::EINVAL));
        assert_eq!(destroy_id(&f, 1), Err(Errno::EINVAL));
    }

    #[test]
    fn set_option_and_notify_bytes() {
        let f = Fake::new();
        let tos = [0x10u8];
        f.reply(Reply::none());
        // SAFETY: `tos` is readable for 1 byte during the call.
        unsafe { set_option(&f, 4, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, tos.as_ptr(), 1) }.unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 32);
        assert_eq!(&w[0..8], &[14, 0, 0, 0, 24, 0, 0, 0]);
        assert_eq!(u64::from_ne_bytes(w[8..16].try_into().unwrap()), tos.as_ptr() as u64);
        assert_eq!(&w[16..32], &[4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);

        f.reply(Reply::none());
        notify(&f, 6, 3).unwrap();
        assert_eq!(f.write(1), [15, 0, 0, 0, 8, 0, 0, 0, 6, 0, 0, 0, 3, 0, 0, 0]);
        assert_eq!(optlen(usize::MAX), Err(Errno::EINVAL));
    }
}
