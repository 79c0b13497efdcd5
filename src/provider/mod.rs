//! Userspace providers: the device-specific half of libibverbs (rdma-core's `providers/`), written in Rust.
//!
//! A provider is two things (see docs/providers.md):
//!
//! * a [`Provider`]: one method per verb a provider implements (rdma-core's `verbs_context_ops`, sorted by name),
//!   each defaulting to `Err(EOPNOTSUPP)`, so a provider writes only what it supports. The object layer above
//!   (`crate::object::native`, the native providers' `object::Driver`) allocates each object, calls the method,
//!   and stores the provider state it returns ([`ProviderQp`], [`ProviderCq`], [`ProviderSrq`], [`ProviderAh`])
//!   inside the object. An rdma-core C plug-in (`crate::plugin`) implements this trait too, over its ops;
//! * its data path: `unsafe extern "C"` functions stored straight into `ibv_context.ops` ([`DataPathOps`]) and
//!   into each `ibv_qp_ex` / `ibv_cq_ex`, which application inlines call with no dispatch in between. They find
//!   their state through a host trait the object layer implements ([`rxe::RxeHost`]); a provider is
//!   instantiated for that host ([`by_driver_name`], [`select_native`]).
//!
//! Nothing here names the object layer: a provider sees public C structs and its own state only.
//!
//! Providers: [`rxe`] (Soft-RoCE), [`siw`] (Soft-iWARP).
#![allow(unsafe_code)]

pub mod cmd;
pub(crate) mod explain;
pub mod marshall;
pub mod mr_ex;
pub mod queue;
pub mod rxe;
pub mod siw;
pub mod spin;

/// The public C types the providers use, and the C enumerators as the integers the C fields hold
/// (`rdma_common::abi::enums`).
pub mod verbs {
    pub use rdma_common::abi::enums::*;
    pub use rdma_common::abi::verbs::*;
}

use self::verbs::*;
use rdma_common::{errno::Result, Errno};
use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::os::fd::{BorrowedFd, OwnedFd};

/// The `ibv_context.ops` entries that application inlines call directly, as one provider fills them.
/// (`alloc_mw`/`dealloc_mw` are called through `ops` too, but are control path: the entry-point layer fills
/// them with its own `ibv_alloc_mw`/`ibv_dealloc_mw` logic, which reaches [`Provider::alloc_mw`].)
#[derive(Clone, Copy)]
pub struct DataPathOps {
    /// `ops.bind_mw` (`ibv_bind_mw(3)`).
    pub bind_mw: unsafe extern "C" fn(*mut ibv_qp, *mut ibv_mw, *mut ibv_mw_bind) -> c_int,
    /// `ops.poll_cq` (`ibv_poll_cq(3)`).
    pub poll_cq: unsafe extern "C" fn(*mut ibv_cq, c_int, *mut ibv_wc) -> c_int,
    /// `ops.post_recv` (`ibv_post_recv(3)`).
    pub post_recv: unsafe extern "C" fn(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
    /// `ops.post_send` (`ibv_post_send(3)`).
    pub post_send: unsafe extern "C" fn(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr) -> c_int,
    /// `ops.post_srq_recv` (`ibv_post_srq_recv(3)`).
    pub post_srq_recv: unsafe extern "C" fn(*mut ibv_srq, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
    /// `ops.req_notify_cq` (`ibv_req_notify_cq(3)`).
    pub req_notify_cq: unsafe extern "C" fn(*mut ibv_cq, c_int) -> c_int,
}

impl DataPathOps {
    /// Stores these entries in a context's `ops` table (at `ibv_open_device`, before the context is handed out).
    pub fn install(&self, ops: &mut ibv_context_ops) {
        ops.bind_mw = Some(self.bind_mw);
        ops.poll_cq = Some(self.poll_cq);
        ops.post_recv = Some(self.post_recv);
        ops.post_send = Some(self.post_send);
        ops.post_srq_recv = Some(self.post_srq_recv);
        ops.req_notify_cq = Some(self.req_notify_cq);
    }
}

/// What identifies a uverbs device to the provider matcher (rdma-core's `verbs_sysfs_dev` fields it uses).
#[derive(Clone, Copy, Debug)]
pub struct DeviceMatch<'a> {
    /// `RDMA_DRIVER_*` from netlink (`RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID`); 0 (`RDMA_DRIVER_UNKNOWN`) if not known.
    pub driver_id: u32,
    /// The IB device name (`rxe0`, ...).
    pub ibdev_name: &'a str,
    /// `/sys/class/infiniband_verbs/uverbsN/abi_version`.
    pub abi_ver: u32,
}

/// Per-QP provider state, stored by the object layer in its `Qp`.
#[derive(Debug)]
pub enum ProviderQp {
    Rxe(rxe::RxeQp),
    Siw(siw::SiwQp),
}

/// Per-CQ provider state, stored by the object layer in its `Cq`.
#[derive(Debug)]
pub enum ProviderCq {
    Rxe(rxe::RxeCq),
    Siw(siw::SiwCq),
}

/// Per-SRQ provider state, stored by the object layer in its `Srq`.
#[derive(Debug)]
pub enum ProviderSrq {
    Rxe(rxe::RxeSrq),
    Siw(siw::SiwSrq),
}

/// Per-AH provider state, stored by the object layer in its `Ah`.
#[derive(Debug)]
pub enum ProviderAh {
    Rxe(rxe::RxeAh),
}

#[cold]
fn unsupported<T>() -> Result<T> {
    Err(Errno::EOPNOTSUPP)
}

/// What DESTROY_CQ reports: the completion and async events the kernel delivered for the CQ, which
/// `ibv_destroy_cq` waits to see acknowledged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CqEventsReported {
    pub comp_events_reported: u32,
    pub async_events_reported: u32,
}

/// A userspace provider: one method per verb, sorted by name, each `Err(EOPNOTSUPP)` unless the provider
/// implements it (rdma-core's `verbs_context_ops`; the defaults are its `dummy_ops`).
///
/// Conventions: objects are allocated by the object layer at their final address, their public C struct
/// zeroed, and passed in (the kernel echoes that address back as `user_handle`); a `create_*` issues the kernel
/// command (through `src/kernel`, usually via the generic [`cmd`] helpers), fills the public fields the kernel
/// returns (`handle`, `qp_num`, `lkey`, `cqe`, ...), maps what it must and returns its per-object state; a
/// `destroy_*` issues the kernel command, after which the object layer drops the state (unmapping the rings).
/// The entry-point layer has already checked every object pointer (live, same context); the object layer fills the generic
/// fields rdma-core's libibverbs fills (`context`, `pd`, `cq_context`, `qp_context`, `state`, ...). Errors are
/// positive errnos, as the verb returns them.
///
/// # Safety (every `unsafe fn` here)
/// The pointers must be what the entry-point layer passes: live objects of this provider (of one context),
/// attribute structs readable and writable as their C prototypes imply.
#[allow(unused_variables, clippy::missing_safety_doc)] // the trait's doc states the one contract of every method
pub trait Provider: Sync + Send + 'static {
    /// The driver name (rdma-core's `verbs_device_ops.name`): `"rxe"`.
    fn name(&self) -> &'static str;

    /// The kernel driver id (`RDMA_DRIVER_*`) every ioctl on this provider's devices carries (what rdma-core's
    /// providers pass to `verbs_init_and_alloc_context`).
    fn driver_id(&self) -> u32;

    /// Whether this provider drives `dev` (rdma-core's match table, then the ABI version range).
    fn matches(&self, dev: &DeviceMatch<'_>) -> bool;

    /// The data-path entries of `ibv_context.ops`.
    fn data_path(&self) -> DataPathOps;

    /// `ibv_open_device(3)`'s GET_CONTEXT with this provider's driver data (rdma-core's `alloc_context`). The
    /// default is the generic command without driver data, which is what rxe and siw send.
    fn get_context(&self, cmd_fd: BorrowedFd<'_>) -> Result<crate::kernel::device::Context> {
        crate::kernel::device::get_context(&crate::kernel::Uverbs::new(cmd_fd, self.driver_id()), &[], &mut [])
    }

    /// `ibv_alloc_buf` (rdma-core 65): `size` bytes of memory laid out as the provider wants its registered memory
    /// (at least page aligned), and its `struct ibv_buf` handle (whose `addr` is the memory). Default, as rdma-core
    /// 65's: page-aligned heap memory, no dma-buf behind it ([`mr_ex::alloc_buf`]).
    unsafe fn alloc_buf(&self, pd: *mut ibv_pd, size: usize) -> Result<*mut ibv_buf> {
        mr_ex::alloc_buf(pd, size)
    }
    /// `ibv_alloc_dmah` (rdma-core 65): a new DMA handle, allocated by the provider, its `context` filled (`attr`
    /// as the caller passed it, possibly NULL).
    unsafe fn alloc_dmah(&self, ctx: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> Result<*mut ibv_dmah> {
        unsupported()
    }
    /// `ibv_alloc_mw(3)`: fill `mw` (`rkey`, `handle`, `type`).
    unsafe fn alloc_mw(&self, pd: *mut ibv_pd, mw: *mut ibv_mw, type_: u32) -> Result<()> {
        unsupported()
    }
    /// `ibv_alloc_pd(3)`: fill `pd.handle`.
    unsafe fn alloc_pd(&self, ctx: *mut ibv_context, pd: *mut ibv_pd) -> Result<()> {
        unsupported()
    }
    /// `ibv_attach_mcast(3)`.
    unsafe fn attach_mcast(&self, qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
        unsupported()
    }
    /// `ibv_create_ah(3)`: fill `ah.handle`.
    unsafe fn create_ah(&self, pd: *mut ibv_pd, ah: *mut ibv_ah, attr: *mut ibv_ah_attr) -> Result<ProviderAh> {
        unsupported()
    }
    /// `ibv_create_comp_cntr` (rdma-core 65): a new completion counter, allocated by the provider, its `context`
    /// and `handle` filled (`attr` as the caller passed it, possibly NULL).
    unsafe fn create_comp_cntr(
        &self,
        ctx: *mut ibv_context,
        attr: *mut ibv_comp_cntr_init_attr,
    ) -> Result<*mut ibv_comp_cntr> {
        unsupported()
    }
    /// `ibv_create_cq(3)` / `ibv_create_cq_ex(3)` (`extended`): `cq` is the `ibv_cq_ex` (whose first fields are
    /// the `ibv_cq`); fill `handle` and `cqe`; an extended CQ also gets its polling function pointers.
    unsafe fn create_cq(
        &self,
        ctx: *mut ibv_context,
        cq: *mut ibv_cq_ex,
        attr: *mut ibv_cq_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderCq> {
        unsupported()
    }
    /// `ibv_create_qp(3)` / `ibv_create_qp_ex(3)` (`extended`): `qp` is the `ibv_qp_ex` (whose first field is the
    /// `ibv_qp`); fill `handle` and `qp_num`; `attr.cap` is updated with the kernel's values; an extended QP also
    /// gets its `wr_*` pointers.
    unsafe fn create_qp(
        &self,
        ctx: *mut ibv_context,
        qp: *mut ibv_qp_ex,
        attr: *mut ibv_qp_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderQp> {
        unsupported()
    }
    /// `ibv_create_srq(3)` / `ibv_create_srq_ex(3)` (`extended`): fill `srq.handle`; `attr.attr` is updated with
    /// the kernel's values.
    unsafe fn create_srq(
        &self,
        ctx: *mut ibv_context,
        srq: *mut ibv_srq,
        attr: *mut ibv_srq_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderSrq> {
        unsupported()
    }
    /// `ibv_dealloc_dmah` (rdma-core 65): frees the handle.
    unsafe fn dealloc_dmah(&self, dmah: *mut ibv_dmah) -> Result<()> {
        unsupported()
    }
    /// `ibv_dealloc_mw(3)`.
    unsafe fn dealloc_mw(&self, mw: *mut ibv_mw) -> Result<()> {
        unsupported()
    }
    /// `ibv_dealloc_pd(3)`.
    unsafe fn dealloc_pd(&self, pd: *mut ibv_pd) -> Result<()> {
        unsupported()
    }
    /// `ibv_dereg_mr(3)`.
    unsafe fn dereg_mr(&self, mr: *mut ibv_mr) -> Result<()> {
        unsupported()
    }
    /// `ibv_destroy_ah(3)`.
    unsafe fn destroy_ah(&self, ah: *mut ibv_ah) -> Result<()> {
        unsupported()
    }
    /// `ibv_destroy_comp_cntr` (rdma-core 65): frees the counter.
    unsafe fn destroy_comp_cntr(&self, cc: *mut ibv_comp_cntr) -> Result<()> {
        unsupported()
    }
    /// `ibv_destroy_cq(3)`: the events the kernel reported for the CQ.
    unsafe fn destroy_cq(&self, cq: *mut ibv_cq) -> Result<CqEventsReported> {
        unsupported()
    }
    /// `ibv_destroy_qp(3)`: the async events the kernel reported for the QP.
    unsafe fn destroy_qp(&self, qp: *mut ibv_qp) -> Result<u32> {
        unsupported()
    }
    /// `ibv_destroy_srq(3)`: the async events the kernel reported for the SRQ.
    unsafe fn destroy_srq(&self, srq: *mut ibv_srq) -> Result<u32> {
        unsupported()
    }
    /// `ibv_detach_mcast(3)`.
    unsafe fn detach_mcast(&self, qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
        unsupported()
    }
    /// `ibv_dm_export_dmabuf_fd` (rdma-core 65): a new dma-buf file descriptor of the device memory `dm`.
    unsafe fn dm_export_dmabuf_fd(&self, dm: *mut ibv_dm) -> Result<OwnedFd> {
        unsupported()
    }
    /// `ibv_free_buf` (rdma-core 65): frees a buffer of [`Provider::alloc_buf`]. Default: [`mr_ex::free_buf`].
    unsafe fn free_buf(&self, buf: *mut ibv_buf) {
        // SAFETY: the trait's contract: a buffer of this provider's `alloc_buf`, freed once.
        unsafe { mr_ex::free_buf(buf) }
    }
    /// `ibv_get_srq_num(3)` (XRC SRQs).
    unsafe fn get_srq_num(&self, srq: *mut ibv_srq) -> Result<u32> {
        unsupported()
    }
    /// `ibv_inc_comp_cntr` (rdma-core 65): adds `amount` to the completion count.
    unsafe fn inc_comp_cntr(&self, cc: *mut ibv_comp_cntr, amount: u64) -> Result<()> {
        unsupported()
    }
    /// `ibv_inc_err_comp_cntr` (rdma-core 65): adds `amount` to the error count.
    unsafe fn inc_err_comp_cntr(&self, cc: *mut ibv_comp_cntr, amount: u64) -> Result<()> {
        unsupported()
    }
    /// `ibv_modify_cq(3)` (CQ moderation).
    unsafe fn modify_cq(&self, cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> Result<()> {
        unsupported()
    }
    /// `ibv_modify_qp(3)`.
    unsafe fn modify_qp(&self, qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> Result<()> {
        unsupported()
    }
    /// `ibv_modify_srq(3)` (a resize re-maps the provider's ring).
    unsafe fn modify_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr, attr_mask: c_int) -> Result<()> {
        unsupported()
    }
    /// `ibv_qp_attach_comp_cntr` (rdma-core 65): `cc` counts the operations of `attr.op_mask` on `qp`. `cc` is
    /// a live counter of `qp`'s context or NULL, and `attr` the caller's pointer (possibly NULL), both as rdma-core
    /// hands them on: a provider that reads them answers `EINVAL` for NULL.
    unsafe fn qp_attach_comp_cntr(
        &self,
        qp: *mut ibv_qp,
        cc: *mut ibv_comp_cntr,
        attr: *mut ibv_qp_attach_comp_cntr_attr,
    ) -> Result<()> {
        unsupported()
    }
    /// `ibv_query_comp_cntr_caps` (rdma-core 65): fill `caps_size` bytes of `caps` (already zeroed).
    unsafe fn query_comp_cntr_caps(
        &self,
        ctx: *mut ibv_context,
        caps: *mut ibv_comp_cntr_caps,
        caps_size: usize,
    ) -> Result<()> {
        unsupported()
    }
    /// `ibv_query_device_ex(3)` (also serves `ibv_query_device` with `attr_size == sizeof(ibv_device_attr)`).
    unsafe fn query_device_ex(
        &self,
        ctx: *mut ibv_context,
        input: *const ibv_query_device_ex_input,
        attr: *mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        unsupported()
    }
    /// `ibv_query_port(3)`: fill a zeroed `struct ibv_port_attr`.
    unsafe fn query_port(&self, ctx: *mut ibv_context, port_num: u8, attr: *mut ibv_port_attr) -> Result<()> {
        unsupported()
    }
    /// `ibv_query_port_speed` (rdma-core 65): the effective speed of port `port_num`, in units of 100 Mb/s.
    unsafe fn query_port_speed(&self, ctx: *mut ibv_context, port_num: u32) -> Result<u64> {
        unsupported()
    }
    /// `ibv_query_qp(3)`.
    unsafe fn query_qp(
        &self,
        qp: *mut ibv_qp,
        attr: *mut ibv_qp_attr,
        attr_mask: c_int,
        init_attr: *mut ibv_qp_init_attr,
    ) -> Result<()> {
        unsupported()
    }
    /// `ibv_query_srq(3)`.
    unsafe fn query_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Result<()> {
        unsupported()
    }
    /// `ibv_read_comp_cntr` (rdma-core 65): the completion count.
    unsafe fn read_comp_cntr(&self, cc: *mut ibv_comp_cntr) -> Result<u64> {
        unsupported()
    }
    /// `ibv_read_err_comp_cntr` (rdma-core 65): the error count.
    unsafe fn read_err_comp_cntr(&self, cc: *mut ibv_comp_cntr) -> Result<u64> {
        unsupported()
    }
    /// `ibv_reg_mr(3)` / `ibv_reg_mr_iova2`: fill `mr` (`lkey`, `rkey`, `handle`).
    unsafe fn reg_mr(
        &self,
        pd: *mut ibv_pd,
        mr: *mut ibv_mr,
        addr: *mut c_void,
        length: usize,
        hca_va: u64,
        access: c_int,
    ) -> Result<()> {
        unsupported()
    }
    /// `ibv_reg_mr_ex` (rdma-core 65): fill `mr` (`lkey`, `rkey`, `handle`) as `attr` asks (its buffer already
    /// resolved into an address or dma-buf request, its optional access bits adjusted). Default, as rdma-core 65's:
    /// the request translated into [`Provider::reg_mr`] by [`mr_ex::legacy_form`]'s rules; a dma-buf request is
    /// `EOPNOTSUPP` (no provider here registers dma-bufs).
    unsafe fn reg_mr_ex(&self, pd: *mut ibv_pd, mr: *mut ibv_mr, attr: *mut ibv_mr_init_attr) -> Result<()> {
        // SAFETY: the trait's contract: a readable attribute struct.
        match mr_ex::legacy_form(unsafe { &*attr })? {
            // SAFETY: forwarded contract.
            mr_ex::LegacyReg::Addr { addr, length, iova, access } => unsafe {
                self.reg_mr(pd, mr, addr, length, iova, access)
            },
            mr_ex::LegacyReg::Dmabuf { .. } => unsupported(),
        }
    }
    /// `ibv_rereg_mr(3)`: `flags` are `IBV_REREG_MR_CHANGE_*`; update `lkey`/`rkey`.
    unsafe fn rereg_mr(
        &self,
        mr: *mut ibv_mr,
        flags: c_int,
        pd: *mut ibv_pd,
        addr: *mut c_void,
        length: usize,
        access: c_int,
    ) -> Result<()> {
        unsupported()
    }
    /// `ibv_resize_cq(3)` (re-maps the provider's ring); updates `cq.cqe`.
    unsafe fn resize_cq(&self, cq: *mut ibv_cq, cqe: c_int) -> Result<()> {
        unsupported()
    }
    /// `ibv_set_comp_cntr` (rdma-core 65): sets the completion count.
    unsafe fn set_comp_cntr(&self, cc: *mut ibv_comp_cntr, value: u64) -> Result<()> {
        unsupported()
    }
    /// `ibv_set_err_comp_cntr` (rdma-core 65): sets the error count.
    unsafe fn set_err_comp_cntr(&self, cc: *mut ibv_comp_cntr, value: u64) -> Result<()> {
        unsupported()
    }

    // The hooks a plug-in has on events just read (a native provider needs none).

    /// rdma-core's `ops.async_event`: the provider's look at an async event just read (mlx5 tracks its QPs'
    /// states with it). Default: nothing.
    unsafe fn async_event(&self, ctx: *mut ibv_context, event: *mut ibv_async_event) {
        let _ = (ctx, event);
    }
    /// rdma-core's `ops.cq_event`: the provider's look at a completion event just read for `cq` (mlx4/mlx5 count
    /// arms with it). Default: nothing.
    unsafe fn cq_event(&self, cq: *mut ibv_cq) {
        let _ = cq;
    }
}

/// The object layer: implements every provider's host trait, once. Providers are instantiated for it.
pub trait ProviderHost: rxe::RxeHost + siw::SiwHost {}

/// Soft-RoCE for the object layer `H`.
pub struct Rxe<H>(pub(crate) PhantomData<fn() -> H>);

// `impl Provider for Rxe<H>` is in `rxe/ctrl.rs` (the control path).

/// Soft-iWARP for the object layer `H` (`impl Provider` in `siw/ctrl.rs`).
pub struct Siw<H>(pub(crate) PhantomData<fn() -> H>);

/// The provider named `name` (`"rxe"`, `"siw"`), instantiated for the object layer `H`.
pub fn by_driver_name<H: ProviderHost>(name: &str) -> Option<&'static dyn Provider> {
    match name {
        // Zero-sized: leaking the box allocates nothing.
        "rxe" => Some(Box::leak(Box::new(Rxe::<H>(PhantomData)))),
        "siw" => Some(Box::leak(Box::new(Siw::<H>(PhantomData)))),
        _ => None,
    }
}

/// The native provider that drives `dev`, if any (rdma-core's `match_device` over the built-in providers).
pub fn select_native<H: ProviderHost>(dev: &DeviceMatch<'_>) -> Option<&'static dyn Provider> {
    ["rxe", "siw"].iter().filter_map(|n| by_driver_name::<H>(n)).find(|p| p.matches(dev))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::rxe::testing::Host;

    #[test]
    fn selection() {
        let dev = |driver_id, name, abi_ver| DeviceMatch { driver_id, ibdev_name: name, abi_ver };
        assert_eq!(select_native::<Host>(&dev(14, "roce0", 2)).map(|p| p.name()), Some("rxe"), "by driver id");
        assert_eq!(select_native::<Host>(&dev(0, "rxe0", 1)).map(|p| p.name()), Some("rxe"), "by name");
        assert!(select_native::<Host>(&dev(0, "mlx5_0", 1)).is_none());
        assert!(select_native::<Host>(&dev(14, "rxe0", 3)).is_none(), "ABI too new");
        assert_eq!(select_native::<Host>(&dev(18, "siw0", 1)).map(|p| p.name()), Some("siw"), "by driver id");
        assert!(by_driver_name::<Host>("mlx5").is_none());
    }

    #[test]
    fn unimplemented_verbs_are_eopnotsupp() {
        // Verbs rxe does not implement answer as rdma-core's dummy ops do (the trait defaults).
        let p = by_driver_name::<Host>("rxe").unwrap();
        // SAFETY: the defaults touch no pointer.
        unsafe {
            assert_eq!(p.get_srq_num(std::ptr::null_mut()), Err(Errno::EOPNOTSUPP));
            assert_eq!(p.modify_cq(std::ptr::null_mut(), std::ptr::null_mut()), Err(Errno::EOPNOTSUPP));
            let (n, v) = (std::ptr::null_mut(), std::ptr::null_mut());
            assert_eq!(p.rereg_mr(n, 0, std::ptr::null_mut(), v, 0, 0), Err(Errno::EOPNOTSUPP));
        }
    }

    #[test]
    fn data_path_installs_into_context_ops() {
        let p = by_driver_name::<Host>("rxe").unwrap();
        let mut ops: ibv_context_ops = unsafe { std::mem::MaybeUninit::zeroed().assume_init() };
        p.data_path().install(&mut ops);
        assert!(ops.post_send.is_some() && ops.poll_cq.is_some() && ops.bind_mw.is_some());
        assert!(ops.alloc_mw.is_none(), "control path is the entry-point layer's");
    }
}
