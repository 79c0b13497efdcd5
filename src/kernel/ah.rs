//! Address handles: CREATE_AH, DESTROY_AH.

use super::{write_in, write_io, CmdFd};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::FromBytes;

/// CREATE_AH (write): `attr` is the kernel's mirror of `ibv_ah_attr` (GRH, `dlid`, `sl`, `src_path_bits`,
/// `static_rate`, `is_global`, `port_num`; reserved bytes zero). For rxe `udata_out` is `rxe_create_ah_resp`
/// (`ah_num`, the index the provider puts in UD work requests). Returns `ah_handle`.
pub fn create_ah<F: CmdFd + ?Sized>(
    fd: &F,
    user_handle: u64,
    pd_handle: u32,
    attr: &ib_uverbs_ah_attr,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<u32> {
    let req = create_ah_cmd(user_handle, pd_handle, attr);
    let resp: ib_uverbs_create_ah_resp = write_io(fd, IB_USER_VERBS_CMD_CREATE_AH, &req, udata_in, udata_out)?;
    Ok(resp.ah_handle)
}

/// The CREATE_AH request (its `response` field left for the write layer): the AH `user_handle` on `pd_handle`
/// with the address vector `attr`, its reserved bytes zero. A plug-in's `ibv_cmd_create_ah` sends it with the
/// response in the provider's buffer.
pub fn create_ah_cmd(user_handle: u64, pd_handle: u32, attr: &ib_uverbs_ah_attr) -> ib_uverbs_create_ah {
    let mut req = ib_uverbs_create_ah::zeroed();
    req.user_handle = user_handle;
    req.pd_handle = pd_handle;
    req.attr = *attr;
    req.attr.reserved = 0;
    req.attr.grh.reserved = 0;
    req
}

/// DESTROY_AH (write).
pub fn destroy_ah<F: CmdFd + ?Sized>(fd: &F, ah_handle: u32) -> Result<()> {
    let mut req = ib_uverbs_destroy_ah::zeroed();
    req.ah_handle = ah_handle;
    write_in(fd, IB_USER_VERBS_CMD_DESTROY_AH, &req, &[])
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::rdma_user_rxe::*;
    use rdma_common::uapi::AsBytes;
    use std::mem::size_of;

    #[test]
    fn create_and_destroy() {
        let f = Fake::new();
        let mut drv = rxe_create_ah_resp::zeroed();
        drv.ah_num = 12;
        let mut bytes = vec![3, 0, 0, 0];
        bytes.extend_from_slice(drv.as_bytes());
        f.reply(Reply::write(&bytes));
        let mut attr = ib_uverbs_ah_attr::zeroed();
        attr.grh.dgid = [0xaa; 16];
        attr.grh.sgid_index = 1;
        attr.is_global = 1;
        attr.port_num = 1;
        let mut out = rxe_create_ah_resp::zeroed();
        assert_eq!(create_ah(&f, 0x42, 6, &attr, &[], out.as_bytes_mut()).unwrap(), 3);
        assert_eq!(out.ah_num, 12);
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_create_ah>(), 56);
        assert_eq!(&w[4..8], &[16, 0, ((4 + size_of::<rxe_create_ah_resp>()) / 4) as u8, 0]);
        assert_eq!(&w[16..24], &0x42u64.to_ne_bytes());
        assert_eq!(&w[24..28], &[6, 0, 0, 0]);
        assert_eq!(&w[32..], attr.as_bytes());

        f.reply(Reply::write(&[]));
        destroy_ah(&f, 3).unwrap();
        assert_eq!(f.write(1), [IB_USER_VERBS_CMD_DESTROY_AH as u8, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0]);
    }
}
