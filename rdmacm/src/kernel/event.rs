//! Events: GET_EVENT, WRITE_CM_EVENT.
#![allow(unsafe_code)]

use super::{write_in, write_resp, UcmFd, RDMA_USER_CM_CMD_WRITE_CM_EVENT};
use rdma_common::errno::Result;
use rdma_common::uapi::rdma_user_cm::*;

/// GET_EVENT: the next event of the channel, blocking until there is one unless the descriptor is `O_NONBLOCK`
/// (then `EAGAIN`); `EINTR` when a signal interrupts the wait. For a `CONNECT_REQUEST` the kernel has just created
/// the new id: `id` is its handle and `uid` the listening id's cookie.
pub fn get_event<F: UcmFd + ?Sized>(fd: &F) -> Result<rdma_ucm_event_resp> {
    write_resp(fd, RDMA_USER_CM_CMD_GET_EVENT, rdma_ucm_get_event { response: 0 }, |_| {})
}

/// The payload rdma-core 65 writes for WRITE_CM_EVENT (its `struct ucma_abi_write_cm_event` less the header): `id`,
/// `reserved`, `event`, `status`, then the parameter union, whose UD member rdma-core pads to 308 bytes (the kernel's
/// is 304: it reads the first 320 bytes).
const WRITE_CM_EVENT_LEN: usize = 328;

/// WRITE_CM_EVENT: queues an event of type `event` with `status` and the 64-bit `arg` on the channel of kernel id `id`,
/// as if the kernel had reported it (it counts among the id's reported events). The kernel takes only
/// `RDMA_CM_EVENT_USER` and `RDMA_CM_EVENT_INTERNAL`. Errors: `EINVAL` for another event, and on kernels without the
/// command (6.1, 6.12); `ENOENT` for an unknown id.
pub fn write_cm_event<F: UcmFd + ?Sized>(fd: &F, id: u32, event: u32, status: i32, arg: u64) -> Result<()> {
    let mut b = [0u8; WRITE_CM_EVENT_LEN];
    b[0..4].copy_from_slice(&id.to_ne_bytes());
    b[8..12].copy_from_slice(&event.to_ne_bytes());
    b[12..16].copy_from_slice(&status.to_ne_bytes());
    b[16..24].copy_from_slice(&arg.to_ne_bytes());
    write_in(fd, RDMA_USER_CM_CMD_WRITE_CM_EVENT, b)
}

/// The 64-bit `arg` of a `USER` or `INTERNAL` event: the first 8 bytes of the parameter union (the kernel's
/// `arg32[2]`).
pub fn event_arg(resp: &rdma_ucm_event_resp) -> u64 {
    // SAFETY: the union's members are plain integers: any bytes are valid, and `arg32` is its first 8 bytes.
    let conn = unsafe { resp.param.conn };
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&conn.qp_num.to_ne_bytes());
    b[4..].copy_from_slice(&conn.qkey.to_ne_bytes());
    u64::from_ne_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::FromBytes;
    use std::mem::offset_of;

    #[test]
    fn get_event_bytes() {
        let f = Fake::new();
        let mut r = vec![0u8; size_of::<rdma_ucm_event_resp>()];
        r[0..8].copy_from_slice(&0xabcdu64.to_ne_bytes());
        r[8..12].copy_from_slice(&5u32.to_ne_bytes()); // id
        r[12..16].copy_from_slice(&4u32.to_ne_bytes()); // CONNECT_REQUEST
        r[16..20].copy_from_slice(&(-110i32).to_ne_bytes());
        let p = offset_of!(rdma_ucm_event_resp, param);
        r[p + 8..p + 11].copy_from_slice(b"abc"); // conn.private_data
        r[p + 264] = 3; // conn.private_data_len
        let e = offset_of!(rdma_ucm_event_resp, ece);
        r[e..e + 4].copy_from_slice(&0x02c9u32.to_ne_bytes());
        f.reply(Reply::ok(&r));
        let ev = get_event(&f).unwrap();
        assert_eq!((ev.uid, ev.id, ev.event, ev.status as i32), (0xabcd, 5, 4, -110));
        // SAFETY: the union's members are plain integers; every bit pattern is valid.
        let conn = unsafe { ev.param.conn };
        assert_eq!(&conn.private_data[..3], b"abc");
        assert_eq!(conn.private_data_len, 3);
        assert_eq!(ev.ece.vendor_id, 0x02c9);
        let w = f.write(0);
        assert_eq!(w.len(), 16);
        assert_eq!(&w[0..8], &[12, 0, 0, 0, 8, 0, 0x50, 1]); // out 336
    }

    #[test]
    fn write_cm_event_bytes() {
        let f = Fake::new();
        f.reply(Reply::none());
        write_cm_event(&f, 7, 18, -5, 0x1122_3344_5566_7788).unwrap();
        let w = f.write(0);
        // rdma-core 65: cmd 24, in 328, out 0; id, reserved, event, status, then param.arg at offset 24.
        assert_eq!(w.len(), 336);
        assert_eq!(&w[0..8], &[24, 0, 0, 0, 0x48, 1, 0, 0]);
        assert_eq!(&w[8..24], &[7, 0, 0, 0, 0, 0, 0, 0, 18, 0, 0, 0, 0xfb, 0xff, 0xff, 0xff]);
        assert_eq!(&w[24..32], &0x1122_3344_5566_7788u64.to_ne_bytes());
        assert!(w[32..].iter().all(|&b| b == 0));
        f.reply(Reply::fail(rdma_common::errno::Errno::EINVAL));
        assert!(write_cm_event(&f, 7, 18, 0, 0).is_err());

        // The event as GET_EVENT returns it: arg32[0..2] are the first 8 bytes of the union.
        let mut r = vec![0u8; size_of::<rdma_ucm_event_resp>()];
        let p = offset_of!(rdma_ucm_event_resp, param);
        r[p..p + 8].copy_from_slice(&0x1122_3344_5566_7788u64.to_ne_bytes());
        assert_eq!(event_arg(&rdma_ucm_event_resp::from_bytes(&r)), 0x1122_3344_5566_7788);
    }
}
