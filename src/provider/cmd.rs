//! The generic uverbs commands in terms of the public verbs structs: rdma-core's `ibv_cmd_*` (`cmd*.c`), which a
//! provider calls with its driver data ("udata") and completes with its own state.
//!
//! Each function takes the [`Uverbs`] command fd of the object's context, the public C structs the verb was given,
//! and the provider's udata as byte slices; it converts to the kernel's structs, issues the command through
//! [`crate::kernel`] and writes back exactly the public fields rdma-core's `ibv_cmd_*` writes (`handle`, `lkey`,
//! `qp_num`, the granted capabilities, ...). The generic fields libibverbs itself fills (`context`, `pd`,
//! `cq_context`, `state`, the event counters, ...) are the entry-point layer's.
//!
//! The same checks and requests serve rdma-core's C plug-ins: their `ibv_cmd_*` (`crate::private`) adapt the
//! plug-in's command and response buffers onto the builders here ([`create_qp_cmd`], [`create_srq_cmd`],
//! [`create_cq_flags`], [`create_cq_ex_cmd`]) and in [`crate::kernel`] (`modify_qp_cmd`, `create_ah_cmd`,
//! `create_cq_cmd`); [`Caller`] names the few places where a native provider and a plug-in differ.
//!
//! Fields of C enum type are written as their numbers ([`ffi::enum_store`]) and read with [`ffi::enum_raw`]: the values
//! come from the kernel or the application and are never materialised as Rust enums.
//!
//! # Safety
//! Every function is `unsafe`: object pointers must be live objects of the context `u` belongs to, and attribute
//! pointers valid for the reads and writes their C prototypes imply (the entry-point layer checks both).
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::marshall;
use super::verbs::*;
use super::CqEventsReported;
use crate::kernel::{self, CmdFd, Uverbs};
use rdma_common::abi::driver::verbs_xrcd;
use rdma_common::abi::enums::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use rdma_common::{errno::Result, ffi, Errno};
use std::ffi::{c_char, c_int, c_void};
use std::mem::{offset_of, size_of};
use std::os::fd::BorrowedFd;
use std::ptr::{addr_of, addr_of_mut};

/// The command fd of `ctx` (its `cmd_fd`), carrying `driver_id` in ioctl headers.
///
/// # Safety
/// `ctx` is a live context; the returned value must not outlive it.
#[inline(always)]
pub unsafe fn uverbs<'a>(ctx: *const ibv_context, driver_id: u32) -> Uverbs<'a> {
    // SAFETY: a live context owns an open cmd_fd for as long as the caller uses the result.
    Uverbs::new(unsafe { BorrowedFd::borrow_raw((*ctx).cmd_fd) }, driver_id)
}

/// rdma-core's `verbs_is_destroy_err`: whether a destroy command's error is one. `EIO` from a disassociated
/// device counts as success when `RDMAV_ALLOW_DISASSOC_DESTROY` (or `MLX4_DEVICE_FATAL_CLEANUP`) is set.
pub fn is_destroy_err(e: Errno) -> bool {
    static ALLOW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let allow = *ALLOW.get_or_init(|| {
        rdma_common::env::flag("RDMAV_ALLOW_DISASSOC_DESTROY") || rdma_common::env::flag("MLX4_DEVICE_FATAL_CLEANUP")
    });
    !(e == Errno::EIO && allow)
}

/// A destroy command's result with [`is_destroy_err`] applied.
fn destroy_result<T: Default>(r: Result<T>) -> Result<T> {
    match r {
        Err(e) if !is_destroy_err(e) => Ok(T::default()),
        r => r,
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Device and port
// ---------------------------------------------------------------------------------------------------------------

/// The size of the field a raw pointer points to (no read).
const fn field_size<F>(_: *const F) -> usize {
    size_of::<F>()
}

/// `offsetofend(type, field)`.
macro_rules! end_of {
    ($t:ty, $f:ident) => {{
        let u = std::mem::MaybeUninit::<$t>::uninit();
        // SAFETY: only the field's address is computed; nothing is read.
        #[allow(unused_unsafe)]
        let p = unsafe { addr_of!((*u.as_ptr()).$f) };
        offset_of!($t, $f) + field_size(p)
    }};
}

/// rdma-core's `ibv_cmd_query_device_any`: fills `attr` (a zeroed struct of `attr_size` bytes, at least a
/// `struct ibv_device_attr`) with QUERY_DEVICE, or EX_QUERY_DEVICE when the caller's struct is larger (falling back
/// to the legacy command when the kernel has no extended one), copying each extended field only when both the
/// caller's struct and the kernel's answer reach it. `phys_port_cnt_ex` is `phys_port_cnt` (the entry-point layer
/// replaces it with the port count netlink reported, as rdma-core does). Returns the kernel's answer.
///
/// Errors: `EINVAL` for a non-zero `input->comp_mask` or a too small `attr_size`; the kernel's.
pub unsafe fn query_device_any(
    u: &(impl CmdFd + ?Sized),
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
) -> Result<ib_uverbs_ex_query_device_resp> {
    // SAFETY: caller's contract.
    unsafe {
        query_device_check(input, attr_size)?;
        let ex = || kernel::device::query_device_ex(u, &mut []);
        query_device_run(attr, attr_size, ex, || kernel::device::query_device(u)).map(|(r, _)| r)
    }
}

/// The argument checks of rdma-core's `ibv_cmd_query_device_any`: `EINVAL` for a non-zero `input->comp_mask` or
/// an `attr_size` below `sizeof(struct ibv_device_attr)`.
///
/// # Safety
/// `input` is NULL or readable.
pub unsafe fn query_device_check(input: *const ibv_query_device_ex_input, attr_size: usize) -> Result<()> {
    // SAFETY: caller's contract.
    if !input.is_null() && unsafe { (*input).comp_mask } != 0 {
        return Err(Errno::EINVAL);
    }
    if attr_size < size_of::<ibv_device_attr>() {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// The rest of rdma-core's `ibv_cmd_query_device_any` (after [`query_device_check`]), whichever way its two
/// commands are sent: zeroes `attr` (`attr_size` bytes), runs `query_ex` (EX_QUERY_DEVICE) when the caller's
/// struct is larger than `struct ibv_device_attr`, `query` (QUERY_DEVICE) when it is not or when `query_ex`
/// answers `EOPNOTSUPP`/`ENOSYS`, and fills `attr` ([`fill_device_attr_ex`]). Returns the kernel's answer (for
/// QUERY_DEVICE with `response_length` its size) and how many bytes of `attr` it filled from (`attr_size`, or
/// `sizeof(struct ibv_device_attr)` after QUERY_DEVICE).
///
/// # Safety
/// `attr` is writable for `attr_size` bytes, at least `sizeof(struct ibv_device_attr)`.
pub unsafe fn query_device_run(
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    query_ex: impl FnOnce() -> Result<ib_uverbs_ex_query_device_resp>,
    query: impl FnOnce() -> Result<ib_uverbs_query_device_resp>,
) -> Result<(ib_uverbs_ex_query_device_resp, usize)> {
    // SAFETY (whole function): caller's contract.
    unsafe {
        std::ptr::write_bytes(attr.cast::<u8>(), 0, attr_size);
        let mut size = attr_size;
        let mut resp = ib_uverbs_ex_query_device_resp::zeroed();
        if size > size_of::<ibv_device_attr>() {
            match query_ex() {
                Ok(r) => resp = r,
                Err(e) if e == Errno::EOPNOTSUPP || e == Errno::ENOSYS => size = size_of::<ibv_device_attr>(),
                Err(e) => return Err(e),
            }
        }
        if size == size_of::<ibv_device_attr>() {
            resp.base = query()?;
            resp.response_length = size_of::<ib_uverbs_query_device_resp>() as u32;
        }
        fill_device_attr_ex(attr, size, &resp);
        Ok((resp, size))
    }
}

/// Fills the `ibv_device_attr_ex` fields of `attr` (`size` bytes of it exist) from an EX_QUERY_DEVICE (or
/// QUERY_DEVICE, `response_length` set to its size) answer, as rdma-core's `ibv_cmd_query_device_any` copies
/// them: `orig_attr` always, each extended field only when both `size` and `resp.response_length` reach it;
/// `phys_port_cnt_ex` is `phys_port_cnt`. Nothing else is written.
///
/// # Safety
/// `attr` is writable for `size` bytes, `size` at least `sizeof(struct ibv_device_attr)`.
pub unsafe fn fill_device_attr_ex(attr: *mut ibv_device_attr_ex, size: usize, resp: &ib_uverbs_ex_query_device_resp) {
    // SAFETY: caller's contract.
    unsafe {
        let b = &resp.base;
        let o = &mut (*attr).orig_attr;
        o.node_guid = b.node_guid;
        o.sys_image_guid = b.sys_image_guid;
        o.max_mr_size = b.max_mr_size;
        o.page_size_cap = b.page_size_cap;
        o.vendor_id = b.vendor_id;
        o.vendor_part_id = b.vendor_part_id;
        o.hw_ver = b.hw_ver;
        o.max_qp = b.max_qp as c_int;
        o.max_qp_wr = b.max_qp_wr as c_int;
        o.device_cap_flags = b.device_cap_flags;
        o.max_sge = b.max_sge as c_int;
        o.max_sge_rd = b.max_sge_rd as c_int;
        o.max_cq = b.max_cq as c_int;
        o.max_cqe = b.max_cqe as c_int;
        o.max_mr = b.max_mr as c_int;
        o.max_pd = b.max_pd as c_int;
        o.max_qp_rd_atom = b.max_qp_rd_atom as c_int;
        o.max_ee_rd_atom = b.max_ee_rd_atom as c_int;
        o.max_res_rd_atom = b.max_res_rd_atom as c_int;
        o.max_qp_init_rd_atom = b.max_qp_init_rd_atom as c_int;
        o.max_ee_init_rd_atom = b.max_ee_init_rd_atom as c_int;
        ffi::enum_store(addr_of_mut!(o.atomic_cap), b.atomic_cap);
        o.max_ee = b.max_ee as c_int;
        o.max_rdd = b.max_rdd as c_int;
        o.max_mw = b.max_mw as c_int;
        o.max_raw_ipv6_qp = b.max_raw_ipv6_qp as c_int;
        o.max_raw_ethy_qp = b.max_raw_ethy_qp as c_int;
        o.max_mcast_grp = b.max_mcast_grp as c_int;
        o.max_mcast_qp_attach = b.max_mcast_qp_attach as c_int;
        o.max_total_mcast_qp_attach = b.max_total_mcast_qp_attach as c_int;
        o.max_ah = b.max_ah as c_int;
        o.max_fmr = b.max_fmr as c_int;
        o.max_map_per_fmr = b.max_map_per_fmr as c_int;
        o.max_srq = b.max_srq as c_int;
        o.max_srq_wr = b.max_srq_wr as c_int;
        o.max_srq_sge = b.max_srq_sge as c_int;
        o.max_pkeys = b.max_pkeys;
        o.local_ca_ack_delay = b.local_ca_ack_delay;
        o.phys_port_cnt = b.phys_port_cnt;

        let rlen = resp.response_length as usize;
        type A = ibv_device_attr_ex;
        type R = ib_uverbs_ex_query_device_resp;
        let a = &mut *attr;
        if size >= end_of!(A, odp_caps) && rlen >= end_of!(R, odp_caps) {
            a.odp_caps.general_caps = resp.odp_caps.general_caps;
            a.odp_caps.per_transport_caps.rc_odp_caps = resp.odp_caps.per_transport_caps.rc_odp_caps;
            a.odp_caps.per_transport_caps.uc_odp_caps = resp.odp_caps.per_transport_caps.uc_odp_caps;
            a.odp_caps.per_transport_caps.ud_odp_caps = resp.odp_caps.per_transport_caps.ud_odp_caps;
        }
        if size >= end_of!(A, completion_timestamp_mask) && rlen >= end_of!(R, timestamp_mask) {
            a.completion_timestamp_mask = resp.timestamp_mask;
        }
        if size >= end_of!(A, hca_core_clock) && rlen >= end_of!(R, hca_core_clock) {
            a.hca_core_clock = resp.hca_core_clock;
        }
        if size >= end_of!(A, device_cap_flags_ex) && rlen >= end_of!(R, device_cap_flags_ex) {
            a.device_cap_flags_ex = resp.device_cap_flags_ex;
        }
        if size >= end_of!(A, rss_caps) && rlen >= end_of!(R, rss_caps) {
            a.rss_caps.supported_qpts = resp.rss_caps.supported_qpts;
            a.rss_caps.max_rwq_indirection_tables = resp.rss_caps.max_rwq_indirection_tables;
            a.rss_caps.max_rwq_indirection_table_size = resp.rss_caps.max_rwq_indirection_table_size;
        }
        if size >= end_of!(A, max_wq_type_rq) && rlen >= end_of!(R, max_wq_type_rq) {
            a.max_wq_type_rq = resp.max_wq_type_rq;
        }
        if size >= end_of!(A, raw_packet_caps) && rlen >= end_of!(R, raw_packet_caps) {
            a.raw_packet_caps = resp.raw_packet_caps;
        }
        if size >= end_of!(A, tm_caps) && rlen >= end_of!(R, tm_caps) {
            a.tm_caps.max_rndv_hdr_size = resp.tm_caps.max_rndv_hdr_size;
            a.tm_caps.max_num_tags = resp.tm_caps.max_num_tags;
            a.tm_caps.flags = resp.tm_caps.flags;
            a.tm_caps.max_ops = resp.tm_caps.max_ops;
            a.tm_caps.max_sge = resp.tm_caps.max_sge;
        }
        if size >= end_of!(A, cq_mod_caps) && rlen >= end_of!(R, cq_moderation_caps) {
            a.cq_mod_caps.max_cq_count = resp.cq_moderation_caps.max_cq_moderation_count;
            a.cq_mod_caps.max_cq_period = resp.cq_moderation_caps.max_cq_moderation_period;
        }
        if size >= end_of!(A, max_dm_size) && rlen >= end_of!(R, max_dm_size) {
            a.max_dm_size = resp.max_dm_size;
        }
        if size >= end_of!(A, xrc_odp_caps) && rlen >= end_of!(R, xrc_odp_caps) {
            a.xrc_odp_caps = resp.xrc_odp_caps;
        }
        if size >= end_of!(A, phys_port_cnt_ex) {
            a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt as u32;
        }
    }
}

/// Writes `"major.minor.sub_minor"` of the kernel's `fw_ver` into `ibv_device_attr.fw_ver`, as rxe (and most
/// rdma-core providers) print it: `snprintf("%d.%d.%d")` of its three 16-bit fields.
pub fn format_fw_ver(dst: &mut [c_char; 64], raw_fw_ver: u64) {
    let s = format!("{}.{}.{}", (raw_fw_ver >> 32) & 0xffff, (raw_fw_ver >> 16) & 0xffff, raw_fw_ver & 0xffff);
    let n = s.len().min(dst.len() - 1);
    for (d, b) in dst.iter_mut().zip(s.as_bytes()[..n].iter()) {
        *d = *b as c_char;
    }
    dst[n] = 0;
}

/// rdma-core's `ibv_cmd_query_port`: fills the fields of `attr` (a whole `struct ibv_port_attr`, 56 bytes) from
/// QUERY_PORT (the ioctl, with `port_cap_flags2` and, from Linux 6.9, `active_speed_ex`; the write command on older
/// kernels, where both stay 0).
pub unsafe fn query_port(u: &(impl CmdFd + ?Sized), port_num: u8, attr: *mut ibv_port_attr) -> Result<()> {
    // SAFETY: caller's contract: a whole struct.
    unsafe { query_port_sized(u, port_num, attr, size_of::<ibv_port_attr>()) }
}

/// [`query_port`] into a caller's struct of `size` bytes: `active_speed_ex` (offset 52, rdma-core 56) is written
/// only when `size` reaches past it, so a struct laid out by rdma-core 44's header (52 bytes) is never written
/// beyond its end.
///
/// # Safety
/// `attr` is writable for `size` bytes, and `size` is at least rdma-core 44's 52.
pub unsafe fn query_port_sized(
    u: &(impl CmdFd + ?Sized),
    port_num: u8,
    attr: *mut ibv_port_attr,
    size: usize,
) -> Result<()> {
    let r = kernel::device::query_port(u, port_num)?;
    let l = &r.legacy_resp;
    // SAFETY: caller's contract.
    unsafe {
        ffi::enum_store(addr_of_mut!((*attr).state), l.state as u32);
        ffi::enum_store(addr_of_mut!((*attr).max_mtu), l.max_mtu as u32);
        ffi::enum_store(addr_of_mut!((*attr).active_mtu), l.active_mtu as u32);
        let a = &mut *attr;
        a.gid_tbl_len = l.gid_tbl_len as c_int;
        a.port_cap_flags = l.port_cap_flags;
        a.max_msg_sz = l.max_msg_sz;
        a.bad_pkey_cntr = l.bad_pkey_cntr;
        a.qkey_viol_cntr = l.qkey_viol_cntr;
        a.pkey_tbl_len = l.pkey_tbl_len;
        a.lid = l.lid;
        a.sm_lid = l.sm_lid;
        a.lmc = l.lmc;
        a.max_vl_num = l.max_vl_num;
        a.sm_sl = l.sm_sl;
        a.subnet_timeout = l.subnet_timeout;
        a.init_type_reply = l.init_type_reply;
        a.active_width = l.active_width;
        a.active_speed = l.active_speed;
        a.phys_state = l.phys_state;
        a.link_layer = l.link_layer;
        a.flags = l.flags;
        a.port_cap_flags2 = r.port_cap_flags2;
        if size >= offset_of!(ibv_port_attr, active_speed_ex) + size_of::<u32>() {
            a.active_speed_ex = kernel::device::active_speed_ex(&r);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// PD, MR, MW
// ---------------------------------------------------------------------------------------------------------------

/// rdma-core's `ibv_cmd_alloc_pd`: ALLOC_PD; fills `pd.handle` and `pd.context`.
pub unsafe fn alloc_pd(
    u: &(impl CmdFd + ?Sized),
    ctx: *mut ibv_context,
    pd: *mut ibv_pd,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    let handle = kernel::pd::alloc_pd(u, udata_in, udata_out)?;
    // SAFETY: caller's contract.
    unsafe {
        (*pd).handle = handle;
        (*pd).context = ctx;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_dealloc_pd`. Errors: `EBUSY` while objects use the PD.
pub unsafe fn dealloc_pd(u: &(impl CmdFd + ?Sized), pd: *mut ibv_pd) -> Result<()> {
    // SAFETY: caller's contract.
    destroy_result(kernel::pd::dealloc_pd(u, unsafe { (*pd).handle }))
}

/// rdma-core's `ibv_cmd_reg_mr`: REG_MR of `length` bytes at `addr` seen at `hca_va`; fills `handle`, `lkey`,
/// `rkey`, `context`. An on-demand (`IBV_ACCESS_ON_DEMAND`) region of `SIZE_MAX` bytes at address 0 is the
/// implicit ODP MR (`length` `u64::MAX` for the kernel); with a non-zero address that is `EINVAL`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn reg_mr(
    u: &(impl CmdFd + ?Sized),
    pd: *mut ibv_pd,
    mr: *mut ibv_mr,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    let len = reg_mr_length(addr, length, access)?;
    // SAFETY: caller's contract.
    unsafe {
        let r = kernel::mr::reg_mr(u, (*pd).handle, addr as u64, len, hca_va, access as u32, udata_in, udata_out)?;
        (*mr).handle = r.mr_handle;
        (*mr).lkey = r.lkey;
        (*mr).rkey = r.rkey;
        (*mr).context = (*pd).context;
    }
    Ok(())
}

/// The length REG_MR carries for `length` bytes at `addr` registered with `access` (rdma-core's
/// `ibv_cmd_reg_mr`): `length`, except for the implicit on-demand MR (`IBV_ACCESS_ON_DEMAND`, `SIZE_MAX` bytes at
/// NULL), which is `u64::MAX`. Errors: `EINVAL` for `SIZE_MAX` on-demand bytes at a non-NULL address.
pub fn reg_mr_length(addr: *mut c_void, length: usize, access: c_int) -> Result<u64> {
    if access as u32 & IBV_ACCESS_ON_DEMAND != 0 && length == usize::MAX {
        if !addr.is_null() {
            return Err(Errno::EINVAL);
        }
        return Ok(u64::MAX);
    }
    Ok(length as u64)
}

/// rdma-core's `ibv_cmd_dereg_mr`. Errors: `EBUSY` while memory windows are bound to it, the kernel's.
pub unsafe fn dereg_mr(u: &(impl CmdFd + ?Sized), mr: *mut ibv_mr) -> Result<()> {
    // SAFETY: caller's contract.
    destroy_result(kernel::mr::dereg_mr(u, unsafe { (*mr).handle }))
}

/// rdma-core's `ibv_cmd_alloc_mw`: ALLOC_MW of type `type_` (1 or 2); fills `context`, `pd`, `rkey`, `handle`,
/// `type`.
pub unsafe fn alloc_mw(
    u: &(impl CmdFd + ?Sized),
    pd: *mut ibv_pd,
    mw: *mut ibv_mw,
    type_: u32,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    // The kernel command carries the type in 8 bits: anything else is not a type at all.
    let t = u8::try_from(type_).map_err(|_| Errno::EINVAL)?;
    // SAFETY: caller's contract.
    unsafe {
        let r = kernel::mw::alloc_mw(u, (*pd).handle, t, udata_in, udata_out)?;
        (*mw).context = (*pd).context;
        (*mw).pd = pd;
        (*mw).rkey = r.rkey;
        (*mw).handle = r.mw_handle;
        ffi::enum_store(addr_of_mut!((*mw).r#type), type_);
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_dealloc_mw`.
pub unsafe fn dealloc_mw(u: &(impl CmdFd + ?Sized), mw: *mut ibv_mw) -> Result<()> {
    // SAFETY: caller's contract.
    destroy_result(kernel::mw::dealloc_mw(u, unsafe { (*mw).handle }))
}

// ---------------------------------------------------------------------------------------------------------------
// CQ
// ---------------------------------------------------------------------------------------------------------------

/// The fd a CQ request names for completion channel `channel` (`comp_channel`), `-1` for NULL.
///
/// # Safety
/// `channel` is NULL or a live completion channel.
pub unsafe fn comp_channel_fd(channel: *const ibv_comp_channel) -> c_int {
    // SAFETY: caller's contract.
    if channel.is_null() {
        -1
    } else {
        unsafe { (*channel).fd }
    }
}

/// The checks and creation flags of rdma-core's `ibv_cmd_create_cq_ex`: `EOPNOTSUPP` for `comp_mask` bits beyond
/// `IBV_CQ_INIT_ATTR_MASK_FLAGS` and `_PD`; `IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION` when `wc_flags` asks for
/// either completion timestamp, `IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN` for `IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN` in
/// `flags` (with the FLAGS bit). No flag: the legacy CREATE_CQ does.
pub fn create_cq_flags(a: &ibv_cq_init_attr_ex) -> Result<u32> {
    if a.comp_mask & !(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD) != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let ts = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
    let mut flags = 0u32;
    if a.wc_flags & ts != 0 {
        flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
    }
    if a.comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS != 0 && a.flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN != 0 {
        flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
    }
    Ok(flags)
}

/// The EX_CREATE_CQ request rdma-core builds for CQ `cq` (its `user_handle`) from `a` with creation `flags`
/// ([`create_cq_flags`]).
///
/// # Safety
/// `a.channel` is NULL or a live completion channel.
pub unsafe fn create_cq_ex_cmd(cq: *mut ibv_cq, a: &ibv_cq_init_attr_ex, flags: u32) -> ib_uverbs_ex_create_cq {
    let mut req = ib_uverbs_ex_create_cq::zeroed();
    req.user_handle = cq as u64;
    req.cqe = a.cqe;
    req.comp_vector = a.comp_vector;
    // SAFETY: caller's contract.
    req.comp_channel = unsafe { comp_channel_fd(a.channel) };
    req.flags = flags;
    req
}

/// rdma-core's `ibv_cmd_create_cq` / `ibv_cmd_create_cq_ex` (`extended`): CREATE_CQ, or EX_CREATE_CQ when
/// creation flags are needed ([`create_cq_flags`]). `user_handle` is the CQ's address; fills `cq.handle`,
/// `cq.cqe`, `cq.context`.
///
/// Errors: `EOPNOTSUPP` for unknown `comp_mask` bits (extended only); the kernel's (`EINVAL` for a bad `cqe` or
/// `comp_vector`, ...).
pub unsafe fn create_cq(
    u: &(impl CmdFd + ?Sized),
    ctx: *mut ibv_context,
    cq: *mut ibv_cq,
    attr: *const ibv_cq_init_attr_ex,
    extended: bool,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    // SAFETY (whole function): caller's contract.
    unsafe {
        let a = &*attr;
        let flags = if extended { create_cq_flags(a)? } else { 0 };
        let (handle, cqe) = if flags == 0 {
            let channel = if a.channel.is_null() { None } else { Some(BorrowedFd::borrow_raw((*a.channel).fd)) };
            let r = kernel::cq::create_cq(u, cq as u64, a.cqe, channel, a.comp_vector, udata_in, udata_out)?;
            (r.cq_handle, r.cqe)
        } else {
            let r = kernel::cq::create_cq_ex(u, &create_cq_ex_cmd(cq, a, flags), udata_in, udata_out)?;
            (r.base.cq_handle, r.base.cqe)
        };
        (*cq).handle = handle;
        (*cq).cqe = cqe as c_int;
        (*cq).context = ctx;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_resize_cq`: RESIZE_CQ; updates `cq.cqe`.
pub unsafe fn resize_cq(
    u: &(impl CmdFd + ?Sized),
    cq: *mut ibv_cq,
    cqe: c_int,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let r = kernel::cq::resize_cq(u, (*cq).handle, cqe as u32, udata_in, udata_out)?;
        (*cq).cqe = r.cqe as c_int;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_destroy_cq` without the wait: DESTROY_CQ, returning the events the kernel reported.
pub unsafe fn destroy_cq(u: &(impl CmdFd + ?Sized), cq: *mut ibv_cq) -> Result<CqEventsReported> {
    // SAFETY: caller's contract.
    destroy_result(kernel::cq::destroy_cq(u, unsafe { (*cq).handle }).map(|r| CqEventsReported {
        comp_events_reported: r.comp_events_reported,
        async_events_reported: r.async_events_reported,
    }))
}

// ---------------------------------------------------------------------------------------------------------------
// QP
// ---------------------------------------------------------------------------------------------------------------

pub(crate) use rdma_common::abi::enums::IBV_QPT_RC as QPT_RC;
pub(crate) use rdma_common::abi::enums::IBV_QPT_UC as QPT_UC;
pub(crate) use rdma_common::abi::enums::IBV_QPT_UD as QPT_UD;
pub(crate) use rdma_common::abi::enums::IBV_QPT_XRC_RECV as QPT_XRC_RECV;
pub(crate) use rdma_common::abi::enums::IBV_QP_INIT_ATTR_IND_TABLE as QP_INIT_ATTR_IND_TABLE;

/// The QP types the verbs API knows (`enum ibv_qp_type`); anything else is `EINVAL` at creation.
pub fn known_qp_type(t: u32) -> bool {
    matches!(t, QPT_RC | QPT_UC | QPT_UD | IBV_QPT_RAW_PACKET | IBV_QPT_XRC_SEND | QPT_XRC_RECV | IBV_QPT_DRIVER)
}

/// Creation flags the kernel's EX_CREATE_QP accepts (rdma-core's `CREATE_QP_EX2_SUP_CREATE_FLAGS`).
const CREATE_QP_EX_SUP_CREATE_FLAGS: u32 = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB
    | IBV_QP_CREATE_SCATTER_FCS
    | IBV_QP_CREATE_CVLAN_STRIPPING
    | IBV_QP_CREATE_SOURCE_QPN
    | IBV_QP_CREATE_PCI_WRITE_END_PADDING;

/// Whose objects a create command's attributes name, where that changes what rdma-core's generic command does.
/// A plug-in's objects are rdma-core's own (an XRC domain is a `verbs_xrcd`, an indirection table a kernel
/// object), and its commands are chosen and checked exactly as rdma-core 44 chooses and checks them. The native
/// providers create neither XRC domains nor indirection tables (XRC receive QPs, XRC SRQs and RSS QPs are
/// `EOPNOTSUPP`), refuse SRQ types the verbs API does not know (`EINVAL`), and choose their command by the values
/// they validated: EX_CREATE_QP only for non-zero creation flags, CREATE_XSRQ only for the SRQ type `comp_mask`
/// names (rdma-core's commands go by the `IBV_QP_INIT_ATTR_CREATE_FLAGS` bit and the `srq_type` field).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Caller {
    /// rxe, siw: the objects of `src/object`.
    Native,
    /// A C plug-in through `IBVERBS_PRIVATE_34` (`crate::private`).
    Plugin,
}

/// The request of a QP creation: CREATE_QP, or EX_CREATE_QP for creation flags or an indirection table. Neither
/// has its `response` set: the write layer places the response.
pub enum CreateQpCmd {
    /// `IB_USER_VERBS_CMD_CREATE_QP`.
    Legacy(ib_uverbs_create_qp),
    /// `IB_USER_VERBS_EX_CMD_CREATE_QP`.
    Ex(ib_uverbs_ex_create_qp),
}

/// rdma-core's `ibv_icmd_create_qp` up to the command (write ABI): checks `attr` and builds the request for QP
/// `qp` (its `user_handle`): PD (or, for an XRC receive QP, XRC domain), CQ and SRQ handles, the capabilities
/// asked for, `sq_sig_all`, `qp_type`; for EX_CREATE_QP the creation flags (`source_qpn` with
/// `IBV_QP_CREATE_SOURCE_QPN`) and the indirection table. An XRC send QP has no receive queue: `attr.cap`'s
/// receive capabilities are zeroed. `caller` says whose objects these are ([`Caller`]).
///
/// Errors: `EINVAL` for an unknown QP type, a missing PD (or XRCD for an XRC receive QP), missing CQs, creation
/// flags EX_CREATE_QP does not take, an indirection table with a receive queue, receive CQ or SRQ; `EOPNOTSUPP`
/// for XRC receive QPs and indirection tables of a native provider.
///
/// # Safety
/// `attr` is the caller's readable and writable attributes; the object pointers it names (as its `comp_mask`
/// and type say) are NULL or live objects of the caller's kind.
pub unsafe fn create_qp_cmd(qp: *mut ibv_qp, attr: *mut ibv_qp_init_attr_ex, caller: Caller) -> Result<CreateQpCmd> {
    let obj = |p: bool| if p { Err(Errno::EINVAL) } else { Ok(()) };
    // SAFETY (whole function): caller's contract; each pointer is checked for NULL before it is read.
    unsafe {
        let a = &mut *attr;
        let qp_type = ffi::enum_raw(addr_of!(a.qp_type));
        let has = |bit: u32| a.comp_mask & bit != 0;
        let mut ex = false;
        let mut req = ib_uverbs_ex_create_qp::zeroed();
        match qp_type {
            QPT_XRC_RECV => {
                if !has(IBV_QP_INIT_ATTR_XRCD) {
                    return Err(Errno::EINVAL);
                }
                if caller == Caller::Native {
                    return Err(Errno::EOPNOTSUPP);
                }
                let xrcd = a.xrcd.cast::<verbs_xrcd>();
                obj(xrcd.is_null())?;
                req.pd_handle = (*xrcd).handle;
            }
            QPT_RC | QPT_UD | QPT_UC | IBV_QPT_RAW_PACKET | IBV_QPT_XRC_SEND | IBV_QPT_DRIVER => {
                if !has(IBV_QP_INIT_ATTR_PD) {
                    return Err(Errno::EINVAL);
                }
                obj(a.pd.is_null())?;
                req.pd_handle = (*a.pd).handle;
                if has(QP_INIT_ATTR_IND_TABLE) {
                    if caller == Caller::Native {
                        // Receive-side RSS needs WQ indirection tables, which no native provider creates.
                        return Err(Errno::EOPNOTSUPP);
                    }
                    if a.cap.max_recv_wr != 0 || a.cap.max_recv_sge != 0 || !a.recv_cq.is_null() || !a.srq.is_null() {
                        return Err(Errno::EINVAL);
                    }
                    obj(a.rwq_ind_tbl.is_null())?;
                    ex = true;
                    if a.cap.max_send_wr != 0 {
                        obj(a.send_cq.is_null())?;
                        req.send_cq_handle = (*a.send_cq).handle;
                    }
                } else {
                    obj(a.send_cq.is_null())?;
                    req.send_cq_handle = (*a.send_cq).handle;
                    if qp_type != IBV_QPT_XRC_SEND {
                        obj(a.recv_cq.is_null())?;
                        req.recv_cq_handle = (*a.recv_cq).handle;
                    }
                }
                if qp_type == IBV_QPT_XRC_SEND {
                    a.cap.max_recv_wr = 0;
                    a.cap.max_recv_sge = 0;
                }
            }
            _ => return Err(Errno::EINVAL),
        }
        if has(IBV_QP_INIT_ATTR_CREATE_FLAGS) {
            if a.create_flags & !CREATE_QP_EX_SUP_CREATE_FLAGS != 0 {
                return Err(Errno::EINVAL);
            }
            ex |= caller == Caller::Plugin || a.create_flags != 0;
            req.create_flags = a.create_flags;
            if a.create_flags & IBV_QP_CREATE_SOURCE_QPN != 0 {
                req.source_qpn = a.source_qpn;
            }
        }
        req.user_handle = qp as u64;
        req.srq_handle = if a.srq.is_null() { 0 } else { (*a.srq).handle };
        req.is_srq = !a.srq.is_null() as u8;
        req.max_send_wr = a.cap.max_send_wr;
        req.max_recv_wr = a.cap.max_recv_wr;
        req.max_send_sge = a.cap.max_send_sge;
        req.max_recv_sge = a.cap.max_recv_sge;
        req.max_inline_data = a.cap.max_inline_data;
        req.sq_sig_all = a.sq_sig_all as u8;
        req.qp_type = qp_type as u8;
        if ex {
            if has(QP_INIT_ATTR_IND_TABLE) {
                req.rwq_ind_tbl_handle = (*a.rwq_ind_tbl).ind_tbl_handle as u32;
                req.comp_mask = IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
            }
            return Ok(CreateQpCmd::Ex(req));
        }
        let mut l = ib_uverbs_create_qp::zeroed();
        l.user_handle = req.user_handle;
        l.pd_handle = req.pd_handle;
        l.send_cq_handle = req.send_cq_handle;
        l.recv_cq_handle = req.recv_cq_handle;
        l.srq_handle = req.srq_handle;
        l.max_send_wr = req.max_send_wr;
        l.max_recv_wr = req.max_recv_wr;
        l.max_send_sge = req.max_send_sge;
        l.max_recv_sge = req.max_recv_sge;
        l.max_inline_data = req.max_inline_data;
        l.sq_sig_all = req.sq_sig_all;
        l.qp_type = req.qp_type;
        l.is_srq = req.is_srq;
        Ok(CreateQpCmd::Legacy(l))
    }
}

/// The end of rdma-core's `ibv_icmd_create_qp`: `qp.handle`, `qp.qp_num`, and the capabilities granted in
/// `attr.cap`, from the kernel's answer.
///
/// # Safety
/// `qp` and `attr` are writable.
pub unsafe fn create_qp_done(qp: *mut ibv_qp, attr: *mut ibv_qp_init_attr_ex, resp: &ib_uverbs_create_qp_resp) {
    // SAFETY: caller's contract.
    unsafe {
        (*qp).handle = resp.qp_handle;
        (*qp).qp_num = resp.qpn;
        let c = &mut (*attr).cap;
        c.max_recv_sge = resp.max_recv_sge;
        c.max_send_sge = resp.max_send_sge;
        c.max_recv_wr = resp.max_recv_wr;
        c.max_send_wr = resp.max_send_wr;
        c.max_inline_data = resp.max_inline_data;
    }
}

/// rdma-core's `ibv_icmd_create_qp` on the write ABI for a native provider: [`create_qp_cmd`], CREATE_QP or
/// EX_CREATE_QP with the driver's udata, [`create_qp_done`]; also sets `qp.context`. Errors: as
/// [`create_qp_cmd`]; the kernel's.
pub unsafe fn create_qp(
    u: &(impl CmdFd + ?Sized),
    ctx: *mut ibv_context,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr_ex,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let resp = match create_qp_cmd(qp, attr, Caller::Native)? {
            CreateQpCmd::Legacy(req) => kernel::qp::create_qp(u, &req, udata_in, udata_out)?,
            CreateQpCmd::Ex(req) => kernel::qp::create_qp_ex(u, &req, udata_in, udata_out)?.base,
        };
        create_qp_done(qp, attr, &resp);
        (*qp).context = ctx;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_modify_qp`: MODIFY_QP with exactly the fields `attr_mask` selects. Errors: `EOPNOTSUPP`
/// for `IBV_QP_RATE_LIMIT` and above (the extended command's), `EINVAL` for invalid transitions or attributes
/// (the kernel's).
pub unsafe fn modify_qp(
    u: &(impl CmdFd + ?Sized),
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        kernel::qp::modify_qp(u, (*qp).handle, &marshall::qp_attr_to_kern_for(attr, attr_mask as u32), attr_mask as u32)
    }
}

/// rdma-core's `ibv_cmd_query_qp`: QUERY_QP; writes every field of `attr` rdma-core writes (all but
/// `en_sqd_async_notify` and `rate_limit`) and the creation attributes in `init_attr`. Errors: `EOPNOTSUPP` for
/// mask bits from `IBV_QP_RATE_LIMIT` up; the kernel's.
pub unsafe fn query_qp(
    u: &(impl CmdFd + ?Sized),
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
) -> Result<()> {
    let mask = attr_mask as u32;
    if mask & !(kernel::qp::IB_QP_RATE_LIMIT - 1) != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    // SAFETY: caller's contract; enum fields written as numbers.
    unsafe {
        let r = kernel::qp::query_qp(u, (*qp).handle, mask)?;
        let a = attr;
        (*a).qkey = r.qkey;
        (*a).rq_psn = r.rq_psn;
        (*a).sq_psn = r.sq_psn;
        (*a).dest_qp_num = r.dest_qp_num;
        (*a).qp_access_flags = r.qp_access_flags;
        (*a).pkey_index = r.pkey_index;
        (*a).alt_pkey_index = r.alt_pkey_index;
        ffi::enum_store(addr_of_mut!((*a).qp_state), r.qp_state as u32);
        ffi::enum_store(addr_of_mut!((*a).cur_qp_state), r.cur_qp_state as u32);
        ffi::enum_store(addr_of_mut!((*a).path_mtu), r.path_mtu as u32);
        ffi::enum_store(addr_of_mut!((*a).path_mig_state), r.path_mig_state as u32);
        (*a).sq_draining = r.sq_draining;
        (*a).max_rd_atomic = r.max_rd_atomic;
        (*a).max_dest_rd_atomic = r.max_dest_rd_atomic;
        (*a).min_rnr_timer = r.min_rnr_timer;
        (*a).port_num = r.port_num;
        (*a).timeout = r.timeout;
        (*a).retry_cnt = r.retry_cnt;
        (*a).rnr_retry = r.rnr_retry;
        (*a).alt_port_num = r.alt_port_num;
        (*a).alt_timeout = r.alt_timeout;
        (*a).cap.max_send_wr = r.max_send_wr;
        (*a).cap.max_recv_wr = r.max_recv_wr;
        (*a).cap.max_send_sge = r.max_send_sge;
        (*a).cap.max_recv_sge = r.max_recv_sge;
        (*a).cap.max_inline_data = r.max_inline_data;
        marshall::ah_attr_from_dest(&mut (*a).ah_attr, &r.dest);
        marshall::ah_attr_from_dest(&mut (*a).alt_ah_attr, &r.alt_dest);

        let i = init_attr;
        (*i).qp_context = (*qp).qp_context;
        (*i).send_cq = (*qp).send_cq;
        (*i).recv_cq = (*qp).recv_cq;
        (*i).srq = (*qp).srq;
        ffi::enum_store(addr_of_mut!((*i).qp_type), ffi::enum_raw(addr_of!((*qp).qp_type)));
        (*i).cap.max_send_wr = r.max_send_wr;
        (*i).cap.max_recv_wr = r.max_recv_wr;
        (*i).cap.max_send_sge = r.max_send_sge;
        (*i).cap.max_recv_sge = r.max_recv_sge;
        (*i).cap.max_inline_data = r.max_inline_data;
        (*i).sq_sig_all = r.sq_sig_all as c_int;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_destroy_qp` without the wait: DESTROY_QP, returning `events_reported`.
pub unsafe fn destroy_qp(u: &(impl CmdFd + ?Sized), qp: *mut ibv_qp) -> Result<u32> {
    // SAFETY: caller's contract.
    destroy_result(kernel::qp::destroy_qp(u, unsafe { (*qp).handle }))
}

/// rdma-core's `ibv_cmd_attach_mcast`.
pub unsafe fn attach_mcast(u: &(impl CmdFd + ?Sized), qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
    // SAFETY: caller's contract; a GID is 16 plain bytes.
    unsafe { kernel::mcast::attach_mcast(u, (*qp).handle, &(*gid).raw, lid) }
}

/// rdma-core's `ibv_cmd_detach_mcast` (a destroy command: see [`is_destroy_err`]).
pub unsafe fn detach_mcast(u: &(impl CmdFd + ?Sized), qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
    // SAFETY: caller's contract; a GID is 16 plain bytes.
    destroy_result(unsafe { kernel::mcast::detach_mcast(u, (*qp).handle, &(*gid).raw, lid) })
}

// ---------------------------------------------------------------------------------------------------------------
// SRQ
// ---------------------------------------------------------------------------------------------------------------

pub(crate) use rdma_common::abi::enums::IBV_SRQT_BASIC as SRQT_BASIC;
pub(crate) use rdma_common::abi::enums::IBV_SRQT_XRC as SRQT_XRC;
pub(crate) use rdma_common::abi::enums::IBV_SRQ_INIT_ATTR_CQ as SRQ_INIT_ATTR_CQ;
pub(crate) use rdma_common::abi::enums::IBV_SRQ_INIT_ATTR_PD as SRQ_INIT_ATTR_PD;
pub(crate) use rdma_common::abi::enums::IBV_SRQ_INIT_ATTR_RESERVED as SRQ_INIT_ATTR_RESERVED;
pub(crate) use rdma_common::abi::enums::IBV_SRQ_INIT_ATTR_TYPE as SRQ_INIT_ATTR_TYPE;
pub(crate) use rdma_common::abi::enums::IBV_SRQ_INIT_ATTR_XRCD as SRQ_INIT_ATTR_XRCD;

/// The first checks of rdma-core's `ibv_cmd_create_srq_ex`: `EOPNOTSUPP` for unknown `comp_mask` bits, `EINVAL`
/// without a PD.
pub fn create_srq_ex_check(a: &ibv_srq_init_attr_ex) -> Result<()> {
    if a.comp_mask >= SRQ_INIT_ATTR_RESERVED {
        return Err(Errno::EOPNOTSUPP);
    }
    if a.comp_mask & SRQ_INIT_ATTR_PD == 0 || a.pd.is_null() {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// The request of an SRQ creation (its `response` left for the write layer).
pub enum CreateSrqCmd {
    /// `IB_USER_VERBS_CMD_CREATE_SRQ`: a basic SRQ.
    Basic(ib_uverbs_create_srq),
    /// `IB_USER_VERBS_CMD_CREATE_XSRQ`: an XRC or tag-matching SRQ.
    Xsrq(ib_uverbs_create_xsrq),
}

/// rdma-core's `ibv_cmd_create_srq_ex` after [`create_srq_ex_check`], up to the command (`ibv_icmd_create_srq`,
/// write ABI): the checks of the SRQ type `attr.comp_mask` names (`IBV_SRQ_INIT_ATTR_TYPE`, else basic; always
/// basic unless `extended`), then the request for SRQ `srq` (its `user_handle`) on the PD `pd_handle`: CREATE_SRQ
/// for a basic SRQ, CREATE_XSRQ with the CQ and the XRC domain or the tag count for the others ([`Caller`] says
/// which type selects the command).
///
/// Errors: `EINVAL` for an XRC SRQ without XRCD or CQ, a TM SRQ without CQ, TM capabilities or tags, a NULL CQ or
/// XRCD where the command needs one, a type a native provider does not know; `EOPNOTSUPP` for an XRC SRQ of a
/// native provider.
///
/// # Safety
/// The object pointers `attr` names are NULL or live objects of the caller's kind.
pub unsafe fn create_srq_cmd(
    srq: *mut ibv_srq,
    a: &ibv_srq_init_attr_ex,
    extended: bool,
    pd_handle: u32,
    caller: Caller,
) -> Result<CreateSrqCmd> {
    // SAFETY (whole function): caller's contract; each pointer is checked for NULL before it is read.
    unsafe {
        let raw = ffi::enum_raw(addr_of!(a.srq_type));
        let srq_type = if extended && a.comp_mask & SRQ_INIT_ATTR_TYPE != 0 { raw } else { SRQT_BASIC };
        match srq_type {
            SRQT_BASIC => {}
            SRQT_XRC => {
                if a.comp_mask & SRQ_INIT_ATTR_XRCD == 0 || a.comp_mask & SRQ_INIT_ATTR_CQ == 0 {
                    return Err(Errno::EINVAL);
                }
                if caller == Caller::Native {
                    return Err(Errno::EOPNOTSUPP);
                }
            }
            IBV_SRQT_TM
                if a.comp_mask & SRQ_INIT_ATTR_CQ == 0
                    || a.comp_mask & IBV_SRQ_INIT_ATTR_TM == 0
                    || a.tm_cap.max_num_tags == 0 =>
            {
                return Err(Errno::EINVAL)
            }
            IBV_SRQT_TM => {}
            _ if caller == Caller::Native => return Err(Errno::EINVAL),
            _ => {}
        }
        // rdma-core's command goes by the `srq_type` field itself.
        let cmd_type = if caller == Caller::Plugin { raw } else { srq_type };
        if cmd_type == SRQT_BASIC {
            let mut req = ib_uverbs_create_srq::zeroed();
            req.user_handle = srq as u64;
            req.pd_handle = pd_handle;
            req.max_wr = a.attr.max_wr;
            req.max_sge = a.attr.max_sge;
            req.srq_limit = a.attr.srq_limit;
            return Ok(CreateSrqCmd::Basic(req));
        }
        let mut req = ib_uverbs_create_xsrq::zeroed();
        req.user_handle = srq as u64;
        req.srq_type = cmd_type;
        req.pd_handle = pd_handle;
        req.max_wr = a.attr.max_wr;
        req.max_sge = a.attr.max_sge;
        req.srq_limit = a.attr.srq_limit;
        if a.cq.is_null() {
            return Err(Errno::EINVAL);
        }
        req.cq_handle = (*a.cq).handle;
        if cmd_type == IBV_SRQT_TM {
            req.max_num_tags = a.tm_cap.max_num_tags;
        } else {
            let xrcd = a.xrcd.cast::<verbs_xrcd>();
            if xrcd.is_null() {
                return Err(Errno::EINVAL);
            }
            req.xrcd_handle = (*xrcd).handle;
        }
        Ok(CreateSrqCmd::Xsrq(req))
    }
}

/// rdma-core's `ibv_cmd_create_srq` (`extended` false: a basic SRQ on `attr.pd`, whatever `comp_mask` says) and
/// `ibv_cmd_create_srq_ex` (`extended`) for a native provider: [`create_srq_ex_check`] (extended),
/// [`create_srq_cmd`], CREATE_SRQ or CREATE_XSRQ with the driver's udata. Fills `srq.handle`, `srq.context` and
/// `attr.attr` with the granted sizes. Errors: as those two; the kernel's.
pub unsafe fn create_srq(
    u: &(impl CmdFd + ?Sized),
    ctx: *mut ibv_context,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr_ex,
    extended: bool,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<()> {
    // SAFETY (whole function): caller's contract; object pointers in `attr` checked live by the caller.
    unsafe {
        let a = &mut *attr;
        if extended {
            create_srq_ex_check(a)?;
        }
        let resp = match create_srq_cmd(srq, a, extended, (*a.pd).handle, Caller::Native)? {
            CreateSrqCmd::Basic(req) => kernel::srq::create_srq(u, &req, udata_in, udata_out)?,
            CreateSrqCmd::Xsrq(req) => kernel::srq::create_xsrq(u, &req, udata_in, udata_out)?,
        };
        (*srq).handle = resp.srq_handle;
        (*srq).context = ctx;
        a.attr.max_wr = resp.max_wr;
        a.attr.max_sge = resp.max_sge;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_modify_srq`: MODIFY_SRQ with the driver command `udata_in`.
///
/// # Safety
/// As [`kernel::srq::modify_srq`]: every user address in `udata_in` is valid for the kernel's writes.
pub unsafe fn modify_srq(
    u: &(impl CmdFd + ?Sized),
    srq: *mut ibv_srq,
    attr: *const ibv_srq_attr,
    attr_mask: c_int,
    udata_in: &[u8],
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe { kernel::srq::modify_srq(u, (*srq).handle, attr_mask as u32, (*attr).max_wr, (*attr).srq_limit, udata_in) }
}

/// rdma-core's `ibv_cmd_query_srq`: fills `max_wr`, `max_sge`, `srq_limit`.
pub unsafe fn query_srq(u: &(impl CmdFd + ?Sized), srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let r = kernel::srq::query_srq(u, (*srq).handle)?;
        (*attr).max_wr = r.max_wr;
        (*attr).max_sge = r.max_sge;
        (*attr).srq_limit = r.srq_limit;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_destroy_srq` without the wait: DESTROY_SRQ, returning `events_reported`.
pub unsafe fn destroy_srq(u: &(impl CmdFd + ?Sized), srq: *mut ibv_srq) -> Result<u32> {
    // SAFETY: caller's contract.
    destroy_result(kernel::srq::destroy_srq(u, unsafe { (*srq).handle }))
}

// ---------------------------------------------------------------------------------------------------------------
// AH
// ---------------------------------------------------------------------------------------------------------------

/// rdma-core's `ibv_cmd_create_ah`: CREATE_AH; fills `ah.handle` and `ah.context`.
pub unsafe fn create_ah(
    u: &(impl CmdFd + ?Sized),
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *const ibv_ah_attr,
    udata_out: &mut [u8],
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let handle =
            kernel::ah::create_ah(u, ah as u64, (*pd).handle, &marshall::ah_attr_to_kern(&*attr), &[], udata_out)?;
        (*ah).handle = handle;
        (*ah).context = (*pd).context;
    }
    Ok(())
}

/// rdma-core's `ibv_cmd_destroy_ah`.
pub unsafe fn destroy_ah(u: &(impl CmdFd + ?Sized), ah: *mut ibv_ah) -> Result<()> {
    // SAFETY: caller's contract.
    destroy_result(kernel::ah::destroy_ah(u, unsafe { (*ah).handle }))
}

/// Views a driver struct as the bytes the kernel fills (udata out).
pub fn udata_mut<T: AsBytes>(t: &mut T) -> &mut [u8] {
    t.as_bytes_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fw_ver_is_printed_like_rdma_core() {
        let mut buf = [0x55 as c_char; 64];
        format_fw_ver(&mut buf, 0);
        assert_eq!(&buf[..6], &[b'0' as c_char, b'.' as c_char, b'0' as c_char, b'.' as c_char, b'0' as c_char, 0]);
        format_fw_ver(&mut buf, (1 << 32) | (2 << 16) | 3);
        let s: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        assert_eq!(s, b"1.2.3");
    }

    #[test]
    fn offsets_end() {
        assert_eq!(end_of!(ibv_device_attr_ex, phys_port_cnt_ex), size_of::<ibv_device_attr_ex>());
        assert_eq!(
            end_of!(ib_uverbs_ex_query_device_resp, xrc_odp_caps),
            offset_of!(ib_uverbs_ex_query_device_resp, reserved)
        );
    }

    use crate::kernel::fake::{Fake, Reply};
    use std::mem::MaybeUninit;

    fn u32_at(b: &[u8], o: usize) -> u32 {
        u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
    }

    /// A zeroed C struct that may hold enums without a zero value (filled by raw writes only).
    fn zeroed<T>() -> MaybeUninit<T> {
        MaybeUninit::zeroed()
    }

    #[test]
    fn query_port_writes_active_speed_ex_only_into_a_56_byte_struct() {
        use rdma_common::uapi::ib_user_ioctl_cmds::UVERBS_ATTR_QUERY_PORT_RESP;
        let f = Fake::new();
        let mut rx = rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_query_port_resp_ex::zeroed();
        rx.legacy_resp.state = 4;
        rx.port_cap_flags2 = 0x1020;
        rx.active_speed_ex = 0x40;
        let mut buf = [0x5au8; 60];
        let attr = buf.as_mut_ptr().cast::<ibv_port_attr>();
        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_PORT_RESP, rx.as_bytes()));
        unsafe { query_port(&f, 1, attr).unwrap() };
        assert_eq!((u32_at(&buf, 0), u32_at(&buf, 52)), (4, 0x40), "state, active_speed_ex");
        assert_eq!(&buf[56..], &[0x5a; 4], "nothing past the struct");
        buf = [0x5a; 60];
        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_PORT_RESP, rx.as_bytes()));
        unsafe { query_port_sized(&f, 1, attr, 52).unwrap() };
        assert_eq!(u16::from_ne_bytes([buf[48], buf[49]]), 0x1020, "port_cap_flags2");
        assert_eq!(&buf[52..], &[0x5a; 8], "a 52-byte struct (rdma-core 44) ends before active_speed_ex");
    }

    #[test]
    fn create_qp_marshals_like_rdma_core_and_returns_granted_caps() {
        let f = Fake::new();
        let mut resp = ib_uverbs_create_qp_resp::zeroed();
        resp.qp_handle = 7;
        resp.qpn = 0x11;
        resp.max_send_wr = 64;
        resp.max_recv_wr = 32;
        resp.max_send_sge = 2;
        resp.max_recv_sge = 3;
        resp.max_inline_data = 128;
        let mut bytes = resp.as_bytes().to_vec();
        bytes.extend_from_slice(&[0xab; 32]); // rxe_create_qp_resp
        f.reply(Reply::write(&bytes));
        let mut pd = ibv_pd { context: std::ptr::null_mut(), handle: 3 };
        let mut cq: MaybeUninit<ibv_cq> = zeroed();
        let mut srq: MaybeUninit<ibv_srq> = zeroed();
        let mut qp: MaybeUninit<ibv_qp> = zeroed();
        let mut a: MaybeUninit<ibv_qp_init_attr_ex> = zeroed();
        let mut udata = [0u8; 32];
        unsafe {
            (*cq.as_mut_ptr()).handle = 5;
            (*srq.as_mut_ptr()).handle = 9;
            let x = a.as_mut_ptr();
            (*x).send_cq = cq.as_mut_ptr();
            (*x).recv_cq = cq.as_mut_ptr();
            (*x).srq = srq.as_mut_ptr();
            (*x).cap =
                ibv_qp_cap { max_send_wr: 10, max_recv_wr: 11, max_send_sge: 1, max_recv_sge: 1, max_inline_data: 0 };
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_RC);
            (*x).sq_sig_all = 1;
            (*x).comp_mask = IBV_QP_INIT_ATTR_PD;
            (*x).pd = &mut pd;
            create_qp(&f, std::ptr::null_mut(), qp.as_mut_ptr(), x, &[], &mut udata).unwrap();
            assert_eq!(((*qp.as_ptr()).handle, (*qp.as_ptr()).qp_num), (7, 0x11));
            let cap = (*x).cap;
            assert_eq!(
                (cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge, cap.max_recv_sge, cap.max_inline_data),
                (64, 32, 2, 3, 128)
            );
        }
        assert_eq!(udata, [0xab; 32]);
        let w = f.write(0);
        assert_eq!(u32_at(&w, 0), IB_USER_VERBS_CMD_CREATE_QP);
        let req = &w[8..];
        assert_eq!(u64::from_ne_bytes(req[8..16].try_into().unwrap()), qp.as_ptr() as u64, "user_handle");
        assert_eq!((u32_at(req, 16), u32_at(req, 20), u32_at(req, 24), u32_at(req, 28)), (3, 5, 5, 9));
        assert_eq!(&req[52..56], &[1, QPT_RC as u8, 1, 0], "sq_sig_all, qp_type, is_srq");

        // Unknown types and missing CQs fail before any command.
        unsafe {
            let x = a.as_mut_ptr();
            ffi::enum_store(addr_of_mut!((*x).qp_type), 5);
            assert_eq!(create_qp(&f, std::ptr::null_mut(), qp.as_mut_ptr(), x, &[], &mut udata), Err(Errno::EINVAL));
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_UD);
            (*x).recv_cq = std::ptr::null_mut();
            assert_eq!(create_qp(&f, std::ptr::null_mut(), qp.as_mut_ptr(), x, &[], &mut udata), Err(Errno::EINVAL));
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_XRC_RECV);
            assert_eq!(create_qp(&f, std::ptr::null_mut(), qp.as_mut_ptr(), x, &[], &mut udata), Err(Errno::EINVAL));
        }
        assert_eq!(f.writes().len(), 1);
    }

    #[test]
    fn modify_and_query_qp() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        let mut qp: MaybeUninit<ibv_qp> = zeroed();
        let mut attr: MaybeUninit<ibv_qp_attr> = zeroed();
        unsafe {
            (*qp.as_mut_ptr()).handle = 4;
            let a = attr.as_mut_ptr();
            ffi::enum_store(addr_of_mut!((*a).qp_state), IBV_QPS_RTR);
            ffi::enum_store(addr_of_mut!((*a).path_mtu), 3);
            (*a).dest_qp_num = 0x22;
            (*a).ah_attr.is_global = 1;
            (*a).ah_attr.grh.sgid_index = 1;
            let mask = (IBV_QP_STATE) | (IBV_QP_AV) | (IBV_QP_PATH_MTU) | (IBV_QP_DEST_QPN);
            modify_qp(&f, qp.as_mut_ptr(), a, mask).unwrap();
            let w = f.write(0);
            let c = ib_uverbs_modify_qp::from_bytes(&w[8..]);
            assert_eq!((c.qp_handle, c.attr_mask, c.qp_state, c.path_mtu, c.dest_qp_num), (4, mask as u32, 2, 3, 0x22));
            assert_eq!((c.dest.is_global, c.dest.sgid_index), (1, 1));
            assert_eq!(modify_qp(&f, qp.as_mut_ptr(), a, IBV_QP_RATE_LIMIT), Err(Errno::EOPNOTSUPP));

            let mut r = ib_uverbs_query_qp_resp::zeroed();
            r.qp_state = 3;
            r.dest_qp_num = 0x33;
            r.max_send_wr = 9;
            r.sq_sig_all = 1;
            r.dest.dgid = [7; 16];
            f.reply(Reply::write(r.as_bytes()));
            let mut init: MaybeUninit<ibv_qp_init_attr> = zeroed();
            (*a).en_sqd_async_notify = 0x5a;
            query_qp(&f, qp.as_mut_ptr(), a, IBV_QP_STATE, init.as_mut_ptr()).unwrap();
            assert_eq!(ffi::enum_raw(addr_of!((*a).qp_state)), 3);
            assert_eq!(((*a).dest_qp_num, (*a).cap.max_send_wr, (*a).ah_attr.grh.dgid.raw), (0x33, 9, [7; 16]));
            assert_eq!((*a).en_sqd_async_notify, 0x5a, "not reported, left alone as rdma-core");
            assert_eq!(((*init.as_ptr()).sq_sig_all, (*init.as_ptr()).cap.max_send_wr), (1, 9));
        }
    }

    #[test]
    fn query_device_legacy_and_extended() {
        let f = Fake::new();
        let mut b = ib_uverbs_query_device_resp::zeroed();
        b.max_qp = 100;
        b.phys_port_cnt = 1;
        b.atomic_cap = 1;
        f.reply(Reply::write(b.as_bytes()));
        let mut attr: MaybeUninit<ibv_device_attr_ex> = zeroed();
        unsafe {
            // Legacy size: QUERY_DEVICE, and nothing past orig_attr written.
            let p = attr.as_mut_ptr();
            std::ptr::write_bytes(p.cast::<u8>(), 0x77, size_of::<ibv_device_attr_ex>());
            query_device_any(&f, std::ptr::null(), p, size_of::<ibv_device_attr>()).unwrap();
            assert_eq!(((*p).orig_attr.max_qp, (*p).orig_attr.phys_port_cnt), (100, 1));
            assert_eq!(ffi::enum_raw(addr_of!((*p).orig_attr.atomic_cap)), 1);
            assert_eq!((*p).comp_mask, 0x7777_7777);
            assert_eq!(u32_at(&f.write(0), 0), IB_USER_VERBS_CMD_QUERY_DEVICE);

            // Extended: the fields the kernel's answer reaches.
            let mut x = ib_uverbs_ex_query_device_resp::zeroed();
            x.base = b;
            x.device_cap_flags_ex = 0x1223c76;
            x.response_length = offset_of!(ib_uverbs_ex_query_device_resp, hca_core_clock) as u32;
            x.hca_core_clock = 99;
            f.reply(Reply::write(x.as_bytes()));
            query_device_any(&f, std::ptr::null(), p, size_of::<ibv_device_attr_ex>()).unwrap();
            assert_eq!((*p).hca_core_clock, 0, "beyond response_length");
            assert_eq!((*p).phys_port_cnt_ex, 1);
            assert_eq!((*p).comp_mask, 0);
            let ex = ibv_query_device_ex_input { comp_mask: 1 };
            assert_eq!(query_device_any(&f, &ex, p, size_of::<ibv_device_attr_ex>()).err(), Some(Errno::EINVAL));
            assert_eq!(query_device_any(&f, std::ptr::null(), p, 8).err(), Some(Errno::EINVAL));
        }
    }

    /// The two kinds of caller get the same checks and requests but where [`Caller`] names a difference.
    #[test]
    fn native_and_plugin_callers_differ_only_where_named() {
        let mut pd = ibv_pd { context: std::ptr::null_mut(), handle: 3 };
        let mut cq: MaybeUninit<ibv_cq> = zeroed();
        let mut xrcd: MaybeUninit<verbs_xrcd> = zeroed();
        let qp = 0x1000 as *mut ibv_qp;
        let mut a: MaybeUninit<ibv_qp_init_attr_ex> = zeroed();
        // SAFETY: our zeroed structs, enum fields written as numbers; the builders read only what they name.
        unsafe {
            (*cq.as_mut_ptr()).handle = 5;
            (*xrcd.as_mut_ptr()).handle = 12;
            let x = a.as_mut_ptr();
            (*x).send_cq = cq.as_mut_ptr();
            (*x).recv_cq = cq.as_mut_ptr();
            (*x).pd = &mut pd;
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_RC);
            // The CREATE_FLAGS bit without a flag: rdma-core's EX_CREATE_QP for a plug-in, CREATE_QP natively.
            (*x).comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
            assert!(matches!(create_qp_cmd(qp, x, Caller::Native), Ok(CreateQpCmd::Legacy(_))));
            assert!(matches!(create_qp_cmd(qp, x, Caller::Plugin), Ok(CreateQpCmd::Ex(_))));
            // An XRC receive QP: on the XRC domain's handle, which only a plug-in has.
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_XRC_RECV);
            (*x).comp_mask = IBV_QP_INIT_ATTR_XRCD;
            (*x).xrcd = xrcd.as_mut_ptr().cast();
            assert_eq!(create_qp_cmd(qp, x, Caller::Native).err(), Some(Errno::EOPNOTSUPP));
            match create_qp_cmd(qp, x, Caller::Plugin) {
                Ok(CreateQpCmd::Legacy(r)) => assert_eq!((r.pd_handle, r.qp_type), (12, QPT_XRC_RECV as u8)),
                _ => panic!("CREATE_QP expected"),
            }
        }

        let srq = 0x2000 as *mut ibv_srq;
        let mut s: MaybeUninit<ibv_srq_init_attr_ex> = zeroed();
        // SAFETY: as above.
        unsafe {
            let x = s.as_mut_ptr();
            (*x).comp_mask = SRQ_INIT_ATTR_TYPE | SRQ_INIT_ATTR_PD | SRQ_INIT_ATTR_XRCD | SRQ_INIT_ATTR_CQ;
            ffi::enum_store(addr_of_mut!((*x).srq_type), SRQT_XRC);
            (*x).pd = &mut pd;
            (*x).cq = cq.as_mut_ptr();
            (*x).xrcd = xrcd.as_mut_ptr().cast();
            create_srq_ex_check(&*x).unwrap();
            assert_eq!(create_srq_cmd(srq, &*x, true, 3, Caller::Native).err(), Some(Errno::EOPNOTSUPP));
            match create_srq_cmd(srq, &*x, true, 3, Caller::Plugin) {
                Ok(CreateSrqCmd::Xsrq(r)) => {
                    assert_eq!((r.srq_type, r.pd_handle, r.cq_handle, r.xrcd_handle), (SRQT_XRC, 3, 5, 12))
                }
                _ => panic!("CREATE_XSRQ expected"),
            }
            // The type field without the TYPE bit: rdma-core's command goes by the field, ours by the mask.
            (*x).comp_mask &= !SRQ_INIT_ATTR_TYPE;
            assert!(matches!(create_srq_cmd(srq, &*x, true, 3, Caller::Native), Ok(CreateSrqCmd::Basic(_))));
            assert!(matches!(create_srq_cmd(srq, &*x, true, 3, Caller::Plugin), Ok(CreateSrqCmd::Xsrq(_))));
            (*x).comp_mask = SRQ_INIT_ATTR_RESERVED;
            assert_eq!(create_srq_ex_check(&*x), Err(Errno::EOPNOTSUPP));
        }
    }

    #[test]
    fn qp_types() {
        assert!(known_qp_type(2) && known_qp_type(4) && known_qp_type(9) && known_qp_type(0xff));
        assert!(!known_qp_type(0) && !known_qp_type(5) && !known_qp_type(99));
    }
}
