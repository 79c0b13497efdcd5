//! Completion channels: CREATE_COMP_CHANNEL, and reading a completion event from the channel's fd.
#![allow(unsafe_code)]

use super::{write_io, CmdFd};
use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::mem::size_of;
use std::os::fd::{BorrowedFd, OwnedFd};

/// CREATE_COMP_CHANNEL (write): a new completion-event fd.
pub fn create_comp_channel<F: CmdFd + ?Sized>(fd: &F) -> Result<OwnedFd> {
    let resp: ib_uverbs_create_comp_channel_resp =
        write_io(fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &ib_uverbs_create_comp_channel::zeroed(), &[], &mut [])?;
    // SAFETY: the kernel installed this fd for us in the call that just succeeded (CmdFd contract).
    unsafe { sys::adopt_fd(resp.fd as i32) }
}

/// Reads one completion event (`ibv_get_cq_event`'s read): the `user_handle` the CQ was created with, in
/// `cq_handle`. Blocks unless the fd is non-blocking. Errors: `EAGAIN` (non-blocking, none pending), `EINTR`, and
/// `EIO` for a short read.
pub fn read_comp_event(channel: BorrowedFd<'_>) -> Result<ib_uverbs_comp_event_desc> {
    let mut ev = ib_uverbs_comp_event_desc::zeroed();
    let n = sys::read(channel, ev.as_bytes_mut())?;
    if n != size_of::<ib_uverbs_comp_event_desc>() {
        return Err(Errno::EIO);
    }
    Ok(ev)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use std::io::Write;
    use std::os::fd::{AsFd, AsRawFd, IntoRawFd};
    use std::os::unix::net::UnixStream;

    #[test]
    fn create_adopts_fd() {
        let raw = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
        let f = Fake::new();
        f.reply(Reply::write(&(raw as u32).to_ne_bytes()));
        let ch = create_comp_channel(&f).unwrap();
        assert_eq!(ch.as_raw_fd(), raw);
        assert_eq!(f.write(0)[..8], [IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL as u8, 0, 0, 0, 4, 0, 1, 0]);
    }

    #[test]
    fn reads_one_event() {
        let (mut a, b) = UnixStream::pair().unwrap();
        a.write_all(&0x1122_3344_5566_7788u64.to_ne_bytes()).unwrap();
        let ev = read_comp_event(b.as_fd()).unwrap();
        assert_eq!(ev.cq_handle, 0x1122_3344_5566_7788);
        a.write_all(&[1, 2, 3]).unwrap();
        assert_eq!(read_comp_event(b.as_fd()).unwrap_err(), Errno::EIO);
    }
}
