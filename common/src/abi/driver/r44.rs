//! The provider-interface layouts of PABI 34 as rdma-core 44 built it (generation
//! [`Generation::R44`](super::Generation::R44)), where they differ from the later releases that kept PABI 34.
//!
//! rdma-core 44's `struct ibv_qp_ex` has no `wr_flush` (352 bytes), so the `verbs_qp` its providers allocate has
//! `comp_mask` at 352 and `xrcd` at 360; its `struct ibv_port_attr` ends after `port_cap_flags2` (52 bytes). Checked
//! against `tests/layout/private/rdma-core-44.tsv`.

use super::verbs_xrcd;
use crate::abi::verbs::ibv_qp;
use std::mem::{offset_of, size_of};

/// `sizeof(struct ibv_qp_ex)` in rdma-core 44's `verbs.h`.
pub const QP_EX_SIZE: usize = 352;
/// `sizeof(struct ibv_port_attr)` in rdma-core 44's `verbs.h`.
pub const PORT_ATTR_SIZE: usize = 52;

/// `struct verbs_qp` of rdma-core 44: the union of `ibv_qp` and rdma-core 44's `ibv_qp_ex` (which begins with the
/// `ibv_qp`), then `comp_mask` (`VERBS_QP_XRCD`, `VERBS_QP_EX`) and `xrcd`. Defined on its own, not over our
/// public `ibv_qp_ex`, which follows the newest headers.
#[repr(C)]
pub struct verbs_qp {
    pub qp: ibv_qp,
    /// The rest of rdma-core 44's `ibv_qp_ex` (`comp_mask`, `wr_id`, `wr_flags`, the `wr_*` function pointers):
    /// the provider's; the core never touches it.
    pub qp_ex_rest: [u64; (QP_EX_SIZE - size_of::<ibv_qp>()) / 8],
    pub comp_mask: u32,
    pub xrcd: *mut verbs_xrcd,
}

const _: () = {
    assert!(offset_of!(verbs_qp, comp_mask) == QP_EX_SIZE);
    assert!(offset_of!(verbs_qp, xrcd) == 360);
    assert!(size_of::<verbs_qp>() == 368);
};
