//! The object level of a device's driver: how the objects C sees are made and unmade.
//!
//! Two kinds of driver serve a device, and the entry-point layer (`src/verbs`, `src/private`) talks to both through
//! [`Driver`] without asking which it has:
//!
//! * a native (Rust) provider: [`super::native::Native`] allocates our objects (public C struct first, the
//!   provider's queue state inside) and calls the provider's fine-grained verbs ([`crate::provider::Provider`]);
//! * an rdma-core C plug-in (`crate::plugin::Plugin`): its objects are its own allocations, made by its
//!   `verbs_context_ops`, whose generic fields our `ibv_cmd_*` fill.
//!
//! The verbs that act on an existing object (modify, query, attach, ...) are the fine-grained
//! [`crate::provider::Provider`] methods, called through `Context.provider` for both kinds.
//!
//! A `create_*` returns the object C will see, with every generic field filled (`context`, `pd`, `cq_context`,
//! `qp_context`, `state`, the event counters); after a successful `destroy_*` the object's memory is gone (for
//! CQs, QPs and SRQs only once the events the kernel reported were acknowledged). The entry-point layer checks
//! every pointer (live, of the context) before it calls these, and does the registry bookkeeping around them.
//!
//! # Safety (every `unsafe fn` here)
//! The pointers are what the entry-point layer passes: live objects of `ctx` (of this driver), attribute structs
//! readable and writable as their C prototypes imply.
#![allow(unsafe_code, clippy::missing_safety_doc)] // unsafe fns only; the module's doc states their one contract

use super::{Context, Device};
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use std::ffi::{c_int, c_void};

/// The object level of one device's driver (native provider or rdma-core plug-in); see the module doc.
/// Errors are positive errnos, as the verb returns them.
pub trait Driver: Sync + Send + 'static {
    /// The `struct ibv_device *` to hand out for this driver's device, when the driver allocated it (a plug-in's
    /// `alloc_device`); `None`: ours (`Device.ibv`).
    fn public_device(&self) -> Option<*mut ibv_device>;
    /// Whether the data path of this driver's contexts rings doorbells the library itself counts
    /// (`RDMAV_STATS`: a native provider instantiated for the counting host).
    fn counts_doorbells(&self) -> bool;
    /// `ibv_open_device(3)` on `dev` (rdma-core's `verbs_open_device` + the provider's `alloc_context`), with the
    /// provider's private data (`mlx5dv_open_device` passes its attributes; NULL otherwise; a native provider refuses
    /// non-NULL data with `EOPNOTSUPP`, never drops it). Returns the `struct ibv_context *`
    /// whose `verbs_context.priv` is our [`Context`], with the provider's own ops installed; the entry-point layer
    /// then installs the library's ops (rdma-core's `set_lib_ops`) and registers it. Errors: `open(2)`'s on the
    /// uverbs device, the kernel's for GET_CONTEXT, the plug-in's.
    unsafe fn open_context(&self, dev: &'static Device, private_data: *mut c_void) -> Result<*mut ibv_context>;
    /// `ibv_close_device(3)`: closes the context's fds and frees it (already taken out of the registry).
    unsafe fn close_context(&self, ctx: &Context) -> Result<()>;
    /// `ibv_alloc_pd(3)`.
    unsafe fn alloc_pd(&self, ctx: &Context) -> Result<*mut ibv_pd>;
    /// `ibv_dealloc_pd(3)`.
    unsafe fn dealloc_pd(&self, ctx: &Context, pd: *mut ibv_pd) -> Result<()>;
    /// `ibv_reg_mr_iova2(3)` (`access` already adjusted by the entry-point layer; `iova` the MR's I/O address).
    unsafe fn reg_mr(
        &self,
        ctx: &Context,
        pd: *mut ibv_pd,
        addr: *mut c_void,
        length: usize,
        iova: u64,
        access: c_int,
    ) -> Result<*mut ibv_mr>;
    /// `ibv_reg_dmabuf_mr(3)`: `length` bytes at `offset` of the dma-buf `fd`, seen by the device at `iova`. The
    /// entry-point layer fills `context`, `pd`, `addr` (`offset`, as rdma-core does) and `length` afterwards.
    /// Default (a driver without the op; the native providers, as rdma-core's rxe and siw have none): `EOPNOTSUPP`,
    /// rdma-core's dummy op, without asking the kernel.
    #[allow(clippy::too_many_arguments)]
    unsafe fn reg_dmabuf_mr(
        &self,
        ctx: &Context,
        pd: *mut ibv_pd,
        offset: u64,
        length: usize,
        iova: u64,
        fd: c_int,
        access: c_int,
    ) -> Result<*mut ibv_mr> {
        let _ = (ctx, pd, offset, length, iova, fd, access);
        Err(rdma_common::Errno::EOPNOTSUPP)
    }
    /// `ibv_reg_mr_ex` (rdma-core 65): `attr` with its buffer already resolved and its access adjusted by the
    /// entry-point layer, which fills `context`, `pd`, `addr` and `length` afterwards. Default (a driver without
    /// the op, rdma-core 65's dummy): the request translated by `provider::mr_ex::legacy_form` into this driver's
    /// [`Driver::reg_mr`] or, for a dma-buf, its [`Driver::reg_dmabuf_mr`].
    unsafe fn reg_mr_ex(&self, ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_mr_init_attr) -> Result<*mut ibv_mr> {
        use crate::provider::mr_ex::{legacy_form, LegacyReg};
        // SAFETY: the module's contract: a readable attribute struct.
        match legacy_form(unsafe { &*attr })? {
            // SAFETY: forwarded contract.
            LegacyReg::Addr { addr, length, iova, access } => unsafe {
                self.reg_mr(ctx, pd, addr, length, iova, access)
            },
            // SAFETY: forwarded contract.
            LegacyReg::Dmabuf { offset, length, iova, fd, access } => unsafe {
                self.reg_dmabuf_mr(ctx, pd, offset, length, iova, fd, access)
            },
        }
    }
    /// `ibv_dereg_mr(3)`.
    unsafe fn dereg_mr(&self, ctx: &Context, mr: *mut ibv_mr) -> Result<()>;
    /// `ibv_alloc_mw(3)` (`type_`: `enum ibv_mw_type` as its integer).
    unsafe fn alloc_mw(&self, ctx: &Context, pd: *mut ibv_pd, type_: u32) -> Result<*mut ibv_mw>;
    /// `ibv_dealloc_mw(3)`.
    unsafe fn dealloc_mw(&self, ctx: &Context, mw: *mut ibv_mw) -> Result<()>;
    /// `ibv_create_cq(3)` / `ibv_create_cq_ex(3)` (`extended`).
    unsafe fn create_cq(&self, ctx: &Context, attr: *mut ibv_cq_init_attr_ex, extended: bool)
        -> Result<*mut ibv_cq_ex>;
    /// `ibv_destroy_cq(3)`.
    unsafe fn destroy_cq(&self, ctx: &Context, cq: *mut ibv_cq) -> Result<()>;
    /// `ibv_create_qp(3)` / `ibv_create_qp_ex(3)` (`extended`: through the extended op).
    unsafe fn create_qp(&self, ctx: &Context, attr: *mut ibv_qp_init_attr_ex, extended: bool) -> Result<*mut ibv_qp>;
    /// `ibv_destroy_qp(3)`.
    unsafe fn destroy_qp(&self, ctx: &Context, qp: *mut ibv_qp) -> Result<()>;
    /// `ibv_create_srq(3)` / `ibv_create_srq_ex(3)` (`extended`).
    unsafe fn create_srq(&self, ctx: &Context, attr: *mut ibv_srq_init_attr_ex, extended: bool)
        -> Result<*mut ibv_srq>;
    /// `ibv_destroy_srq(3)`.
    unsafe fn destroy_srq(&self, ctx: &Context, srq: *mut ibv_srq) -> Result<()>;
    /// `ibv_create_ah(3)`.
    unsafe fn create_ah(&self, ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> Result<*mut ibv_ah>;
    /// `ibv_destroy_ah(3)`.
    unsafe fn destroy_ah(&self, ctx: &Context, ah: *mut ibv_ah) -> Result<()>;
    /// `ibv_qp_to_qp_ex(3)`: whether `qp` has an `ibv_qp_ex` (rdma-core: `verbs_qp.comp_mask & VERBS_QP_EX`).
    unsafe fn qp_is_extended(&self, qp: *mut ibv_qp) -> bool;
}
