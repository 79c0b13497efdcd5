//! Async events: reading `ib_uverbs_async_event_desc` from the context's async fd.

use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::mem::size_of;
use std::os::fd::BorrowedFd;

/// Reads one async event (`ibv_get_async_event`'s read): `event_type` is an `IB_EVENT_*` number (= `IBV_EVENT_*`);
/// `element` is the object's `user_handle` (CQ, QP, SRQ, WQ events) or the port number (port and device events).
/// Blocks unless the fd is non-blocking. Errors: `EAGAIN`, `EINTR`, `EIO` for a short read.
pub fn read_async_event(async_fd: BorrowedFd<'_>) -> Result<ib_uverbs_async_event_desc> {
    let mut ev = ib_uverbs_async_event_desc::zeroed();
    let n = sys::read(async_fd, ev.as_bytes_mut())?;
    if n != size_of::<ib_uverbs_async_event_desc>() {
        return Err(Errno::EIO);
    }
    Ok(ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;

    #[test]
    fn reads_one_event() {
        assert_eq!(size_of::<ib_uverbs_async_event_desc>(), 16);
        let (mut a, b) = UnixStream::pair().unwrap();
        let mut ev = ib_uverbs_async_event_desc::zeroed();
        ev.element = 0xabcdef;
        ev.event_type = 9; // IB_EVENT_PORT_ACTIVE
        a.write_all(ev.as_bytes()).unwrap();
        let r = read_async_event(b.as_fd()).unwrap();
        assert_eq!((r.element, r.event_type), (0xabcdef, 9));
        b.set_nonblocking(true).unwrap();
        assert_eq!(read_async_event(b.as_fd()).unwrap_err(), Errno::EAGAIN);
    }
}
