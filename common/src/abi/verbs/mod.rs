//! `<infiniband/verbs.h>`: every public type, constant and function prototype of rdma-core 44's verbs header.
//!
//! cbindgen reads this module and its children (`cbindgen/infiniband/verbs.h.toml`) and writes the header; what
//! cbindgen cannot express is hand-written C in `cbindgen/infiniband/verbs.h.pre` (include guard, includes, forward
//! declarations, types that generated items embed by value) and `verbs.h.post` (the remaining hand-written types,
//! prototypes with attributes, every `static inline` function and function-like macro). Items whose C text is
//! hand-written carry `cbindgen:ignore`.
//!
//! # Hand-written C, and the Rust names of C's unnamed members
//!
//! | C type | where | Rust shape |
//! |---|---|---|
//! | `union ibv_gid` | `.pre` | member `global` is [`ibv_gid_global`] |
//! | `struct ibv_odp_caps` | `.pre` | member `per_transport_caps` is [`ibv_odp_caps_per_transport`] |
//! | `struct ibv_async_event` | `.post` | member `element` is [`ibv_async_event_element`] |
//! | `struct ibv_wc` | `.post` | untagged union (`imm_data`, `invalidated_rkey`) is the field `imm` ([`ibv_wc_imm`]) |
//! | `struct ibv_send_wr` | `.post` | untagged union (`imm_data`, `invalidate_rkey`) is the field `imm` ([`ibv_send_wr_imm`]); `wr` is [`ibv_send_wr_wr`] (`rdma`, `atomic`, `ud`); `qp_type` is [`ibv_send_wr_qp_type`] (`xrc`); untagged union (`bind_mw`, `tso`) is the field `ext` ([`ibv_send_wr_ext`]) |
//! | `struct ibv_ops_wr` | `.post` | member `tm` is [`ibv_ops_wr_tm`], its `add` is [`ibv_ops_wr_tm_add`] |
//! | `struct ibv_flow_spec` | `.post` | its single untagged union is the field `spec` ([`ibv_flow_spec_union`]); `hdr` is [`ibv_flow_spec_hdr`] |
//! | `enum ibv_rx_hash_fields` | `.pre` | `repr(u32)`: `IBV_RX_HASH_INNER` is `1UL << 31`, an `unsigned int` enum in gcc |
//! | the untagged enums (`IBV_LINK_LAYER_*`, `IBV_WC_IP_CSUM_OK_SHIFT`, `IBV_WC_STANDARD_FLAGS`, `IBV_CREATE_CQ_SUP_WC_FLAGS`, `IBV_SYSFS_*_MAX`) | `.pre` | Rust consts |
//! | `_compat_ibv_port_attr`, `verbs_ex_private` | `.pre` (declared only) | opaque Rust types |
//!
//! So C's `wc.imm_data` is Rust's `wc.imm.imm_data`, C's `wr.wr.rdma.rkey` is Rust's `wr.wr.rdma.rkey`, C's
//! `wr.bind_mw.rkey` is Rust's `wr.ext.bind_mw.rkey`, and C's `spec.eth` is Rust's `spec.spec.eth`.
//! The library reads `ibv_send_wr`'s unions through its safe accessors ([`ibv_send_wr::rdma`], `atomic`, `ud`,
//! `bind_mw`, `imm_data`, `invalidate_rkey`).
//!
//! # Functions
//!
//! [`funcs`] declares every exported function in one `extern "C"` block; the definitions in the `ibverbs` crate are
//! checked against these declarations with `check_signatures!`, and librdmacm calls libibverbs through them.
//! Functions that take a C enum *by value* (`ibv_wc_status_str`, `ibv_rate_to_mult`, ...) are declared here with
//! the enum's integer type, so that a number outside the enum never becomes an invalid Rust enum; their C
//! prototypes (with the enum type, which has the same ABI) are hand-written in `.post`. The functions that
//! rdma-core exports without declaring them in `verbs.h` (`ibv_copy_*_from_kern`, `ibv_get_sysfs_path`,
//! `ibv_read_sysfs_file`, `ibv_dontfork_range`, `ibv_dofork_range`) are declared here too, `cbindgen:ignore`.
//!
//! # Enums read by the library
//!
//! Fields of C enum type are Rust enums so the header says `enum ibv_x`; the library reads application-written ones
//! only through [`crate::ffi::enum_raw`]. Function pointers in ops tables keep the enum types of the C prototypes
//! (`alloc_mw`'s `enum ibv_mw_type`, ...): an implementation that must tolerate out-of-range numbers should take
//! the integer and be cast to the table's pointer type.

pub mod ah;
pub mod async_event;
pub mod context;
pub mod cq;
pub mod device;
pub mod flow;
pub mod funcs;
pub mod gid;
pub mod kern;
pub mod mr;
pub mod qp;
pub mod srq;
pub mod wq;

// rdma-core 65's additions (IBVERBS_1.15-1.18), last so that the header's earlier items keep their order.
pub mod comp_cntr;
pub mod mr_ex;

pub use ah::*;
pub use async_event::*;
pub use context::*;
pub use cq::*;
pub use device::*;
pub use flow::*;
pub use funcs::*;
pub use gid::*;
pub use kern::*;
pub use mr::*;
pub use qp::*;
pub use srq::*;
pub use wq::*;

pub use comp_cntr::*;
pub use mr_ex::*;

pub use super::ib_user_ioctl_verbs::*;
pub use super::verbs_api::*;

#[cfg(test)]
mod tests;
