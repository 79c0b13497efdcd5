//! The generations of rdma-core's provider interface that this library serves at once, and the layout facts that
//! tell them apart.
//!
//! A plug-in is built against one rdma-core release's private headers, and the private ABI changed without a new
//! version node between 44 and 56 (docs/providers.md, "Generations"): a plug-in's generation is decided once when
//! it registers (`src/plugin`), and every object of it is read and written with that generation's layouts.

use std::mem::offset_of;

/// The provider-interface generation a plug-in was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Generation {
    /// `IBVERBS_PRIVATE_34` as rdma-core 44 built it (Debian 12, bookworm).
    R44,
    /// `IBVERBS_PRIVATE_34` as rdma-core 45 to 56 built it (Debian 13, trixie, has 56.1): `ibv_qp_ex` with
    /// `wr_flush`, a 56-byte `ibv_port_attr`, the 8-argument `ibv_cmd_reg_dmabuf_mr`, `ibv_cmd_create_cq_ex2`.
    R56,
    /// `IBVERBS_PRIVATE_65`, rdma-core 65 (Debian sid), registered through `verbs_register_driver_65`.
    R65,
}

impl Generation {
    /// Every generation, oldest first.
    pub const ALL: [Generation; 3] = [Generation::R44, Generation::R56, Generation::R65];

    /// The private ABI version (`IBVERBS_PABI_VERSION`): the number in the plug-in's file name suffix
    /// (`-rdmav34.so`), its registration function (`verbs_register_driver_34`) and version node.
    pub const fn pabi(self) -> u32 {
        match self {
            Generation::R44 | Generation::R56 => 34,
            Generation::R65 => 65,
        }
    }

    /// The rdma-core release whose layouts this generation has (44, 56, 65).
    pub const fn release(self) -> u32 {
        match self {
            Generation::R44 => 44,
            Generation::R56 => 56,
            Generation::R65 => 65,
        }
    }

    /// Offset of `comp_mask` in the generation's `struct verbs_qp` (`sizeof(struct ibv_qp_ex)`).
    pub const fn verbs_qp_comp_mask(self) -> usize {
        match self {
            Generation::R44 => offset_of!(super::r44::verbs_qp, comp_mask),
            Generation::R56 | Generation::R65 => offset_of!(super::r56::verbs_qp, comp_mask),
        }
    }

    /// Offset of `xrcd` in the generation's `struct verbs_qp`.
    pub const fn verbs_qp_xrcd(self) -> usize {
        match self {
            Generation::R44 => offset_of!(super::r44::verbs_qp, xrcd),
            Generation::R56 | Generation::R65 => offset_of!(super::r56::verbs_qp, xrcd),
        }
    }

    /// `sizeof(struct ibv_port_attr)` in the generation's headers: what `ibv_cmd_query_port` may write.
    pub const fn port_attr_size(self) -> usize {
        match self {
            Generation::R44 => super::r44::PORT_ATTR_SIZE,
            Generation::R56 | Generation::R65 => super::r56::PORT_ATTR_SIZE,
        }
    }

    /// Where `comp_mask` of the `verbs_qp` at `vqp` is, for a plug-in of this generation.
    pub fn qp_comp_mask_ptr(self, vqp: *mut u8) -> *mut u32 {
        vqp.wrapping_add(self.verbs_qp_comp_mask()).cast()
    }

    /// Where `xrcd` of the `verbs_qp` at `vqp` is, for a plug-in of this generation.
    pub fn qp_xrcd_ptr(self, vqp: *mut u8) -> *mut *mut super::verbs_xrcd {
        vqp.wrapping_add(self.verbs_qp_xrcd()).cast()
    }
}

impl std::fmt::Display for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rdma-core {} (IBVERBS_PRIVATE_{})", self.release(), self.pabi())
    }
}
