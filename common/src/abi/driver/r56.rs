//! The provider-interface layouts of PABI 34 as rdma-core 45 to 56 built it (generation
//! [`Generation::R56`](super::Generation::R56)), where they differ from rdma-core 44's ([`super::r44`]).
//!
//! rdma-core 56.1's `struct ibv_qp_ex` gained `wr_flush` (360 bytes), which moves `verbs_qp.comp_mask` to 360 and
//! `xrcd` to 368; `struct ibv_port_attr` gained `active_speed_ex` at 52 (56 bytes). Both stay so in rdma-core 65
//! (PABI 65 uses these). Checked against `tests/layout/private/rdma-core-56.tsv` and `-65.tsv`.

use super::verbs_xrcd;
use crate::abi::verbs::ibv_qp;
use std::mem::{offset_of, size_of};

/// `sizeof(struct ibv_qp_ex)` in rdma-core 56.1's (and 65's) `verbs.h`.
pub const QP_EX_SIZE: usize = 360;
/// `sizeof(struct ibv_port_attr)` in rdma-core 56.1's (and 65's) `verbs.h`.
pub const PORT_ATTR_SIZE: usize = 56;

/// `struct verbs_qp` of rdma-core 56.1 and 65: as [`super::r44::verbs_qp`] with the 8 bytes longer `ibv_qp_ex`.
/// Defined on its own, not over our public `ibv_qp_ex`.
#[repr(C)]
pub struct verbs_qp {
    pub qp: ibv_qp,
    /// The rest of rdma-core 56's `ibv_qp_ex` (`comp_mask`, `wr_id`, `wr_flags`, the `wr_*` function pointers
    /// with `wr_flush`): the provider's; the core never touches it.
    pub qp_ex_rest: [u64; (QP_EX_SIZE - size_of::<ibv_qp>()) / 8],
    pub comp_mask: u32,
    pub xrcd: *mut verbs_xrcd,
}

const _: () = {
    assert!(offset_of!(verbs_qp, comp_mask) == QP_EX_SIZE);
    assert!(offset_of!(verbs_qp, xrcd) == 368);
    assert!(size_of::<verbs_qp>() == 376);
};
