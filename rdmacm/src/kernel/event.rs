//! Events: GET_EVENT.
#![allow(unsafe_code)]

use super::{write_io, UcmFd};
use rdma_common::errno::Result;
use rdma_common::uapi::rdma_user_cm::*;
use rdma_common::uapi::FromBytes;
use std::mem::size_of;

/// GET_EVENT: the next event of the channel, blocking until there is one unless the descriptor is `O_NONBLOCK`
/// (then `EAGAIN`); `EINTR` when a signal interrupts the wait. For a `CONNECT_REQUEST` the kernel has just created
/// the new id: `id` is its handle and `uid` the listening id's cookie.
pub fn get_event<F: UcmFd + ?Sized>(fd: &F) -> Result<rdma_ucm_event_resp> {
    let cmd = rdma_ucm_get_event { response: 0 };
    let mut out = [0u8; size_of::<rdma_ucm_event_resp>()];
    write_io(fd, RDMA_USER_CM_CMD_GET_EVENT, rdma_common::uapi::AsBytes::as_bytes(&cmd), 0, &mut out)?;
    Ok(rdma_ucm_event_resp::from_bytes(&out))
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
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
}
