//! Memory windows: ALLOC_MW, DEALLOC_MW.

use super::{write_in, write_io, CmdFd};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;

/// ALLOC_MW (write): `mw_type` is `IB_MW_TYPE_1` (1) or `IB_MW_TYPE_2` (2) (= `IBV_MW_TYPE_*`). Returns
/// `mw_handle` and `rkey`.
pub fn alloc_mw<F: CmdFd + ?Sized>(
    fd: &F,
    pd_handle: u32,
    mw_type: u8,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<ib_uverbs_alloc_mw_resp> {
    let req = alloc_mw_cmd(ib_uverbs_alloc_mw::zeroed(), pd_handle, mw_type);
    write_io(fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, udata_in, udata_out)
}

/// The ALLOC_MW request: `base` with `pd_handle`, `mw_type` and the reserved bytes (zero) set (the rest as `base`
/// holds it: zero for our own commands, a plug-in's `struct ibv_alloc_mw` as rdma-core sends it).
pub fn alloc_mw_cmd(base: ib_uverbs_alloc_mw, pd_handle: u32, mw_type: u8) -> ib_uverbs_alloc_mw {
    let mut req = base;
    req.pd_handle = pd_handle;
    req.mw_type = mw_type;
    req.reserved = [0; 3];
    req
}

/// DEALLOC_MW (write).
pub fn dealloc_mw<F: CmdFd + ?Sized>(fd: &F, mw_handle: u32) -> Result<()> {
    let mut req = ib_uverbs_dealloc_mw::zeroed();
    req.mw_handle = mw_handle;
    write_in(fd, IB_USER_VERBS_CMD_DEALLOC_MW, &req, &[])
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    #[test]
    fn alloc_and_dealloc() {
        let f = Fake::new();
        f.reply(Reply::write(&[4, 0, 0, 0, 0x78, 0x56, 0x34, 0x12]));
        let r = alloc_mw(&f, 1, 2, &[], &mut []).unwrap();
        assert_eq!((r.mw_handle, r.rkey), (4, 0x12345678));
        assert_eq!(&f.write(0)[4..8], &[6, 0, 2, 0]);
        assert_eq!(&f.write(0)[16..24], &[1, 0, 0, 0, 2, 0, 0, 0]);
        f.reply(Reply::write(&[]));
        dealloc_mw(&f, 4).unwrap();
        assert_eq!(f.write(1), [IB_USER_VERBS_CMD_DEALLOC_MW as u8, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
    }
}
