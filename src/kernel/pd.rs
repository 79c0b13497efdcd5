//! Protection domains: ALLOC_PD, DEALLOC_PD.

use super::{write_in, write_io, CmdFd};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;

/// ALLOC_PD (write): returns the new PD's handle. `udata_*` are the driver's `alloc_pd` request/response (empty for
/// rxe). Errors: the kernel's (`ENOMEM`, ...).
pub fn alloc_pd<F: CmdFd + ?Sized>(fd: &F, udata_in: &[u8], udata_out: &mut [u8]) -> Result<u32> {
    let resp: ib_uverbs_alloc_pd_resp =
        write_io(fd, IB_USER_VERBS_CMD_ALLOC_PD, &ib_uverbs_alloc_pd::zeroed(), udata_in, udata_out)?;
    Ok(resp.pd_handle)
}

/// DEALLOC_PD (write). Errors: `EBUSY` while objects still use the PD, `EINVAL` for an unknown handle.
pub fn dealloc_pd<F: CmdFd + ?Sized>(fd: &F, pd_handle: u32) -> Result<()> {
    let mut req = ib_uverbs_dealloc_pd::zeroed();
    req.pd_handle = pd_handle;
    write_in(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &req, &[])
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    #[test]
    fn alloc_and_dealloc() {
        let f = Fake::new();
        f.reply(Reply::write(&[5, 0, 0, 0, 0xee, 0xee, 0xee, 0xee]));
        let mut udata_out = [0u8; 4];
        assert_eq!(alloc_pd(&f, &[1, 2, 3, 4], &mut udata_out).unwrap(), 5);
        assert_eq!(udata_out, [0xee; 4]);
        let w = f.write(0);
        // hdr (8) + response (8) + udata (4): in_words 5; out: resp (4) + udata (4) = 2 words
        assert_eq!(&w[0..8], &[IB_USER_VERBS_CMD_ALLOC_PD as u8, 0, 0, 0, 5, 0, 2, 0]);
        assert_eq!(&w[16..], &[1, 2, 3, 4]);

        f.reply(Reply::write(&[]));
        dealloc_pd(&f, 0x01020304).unwrap();
        assert_eq!(f.write(1), [IB_USER_VERBS_CMD_DEALLOC_PD as u8, 0, 0, 0, 3, 0, 0, 0, 4, 3, 2, 1]);
    }
}
