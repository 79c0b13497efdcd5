//! Queue pairs (`ibv_create_qp(3)`, `ibv_create_qp_ex(3)`, `ibv_modify_qp(3)`, `ibv_query_qp(3)`,
//! `ibv_destroy_qp(3)`, `ibv_qp_to_qp_ex(3)`, `ibv_query_qp_data_in_order(3)`, `ibv_set_ece(3)`,
//! `ibv_query_ece(3)`). Posting goes through the context's ops table and the `ibv_qp_ex` builders (inline).
//!
//! `ibv_qp.state` is kept current: every successful `ibv_modify_qp(3)` and `ibv_query_qp(3)` with `IBV_QP_STATE`
//! stores the state (the data path reads it: receives are refused in RESET); a refused transition leaves it as
//! it was. Destroying a QP waits until every async event delivered for it was acknowledged.
#![allow(unsafe_code)]

use crate::object::stats::Kind as StatsKind;
use crate::object::{registry, Context, Kind};
use crate::provider::cmd::known_qp_type;
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_int, c_uint};
use std::mem::MaybeUninit;
use std::ptr::{addr_of, addr_of_mut};

/// What `ibv_modify_qp` refuses before the kernel sees it (rdma-core passes these on and the kernel stores them
/// unchecked): a `dest_qp_num` wider than the 24 bits of a QP number, a `static_rate` in the primary or alternate
/// path that is not an `enum ibv_rate`. `EINVAL`, logged at debug level.
///
/// # Safety
/// `attr` is a readable `ibv_qp_attr`.
unsafe fn check_modify_attr(attr: *const ibv_qp_attr, mask: c_int) -> Result<()> {
    // SAFETY: caller's contract; plain integers.
    let (dqpn, rate, alt_rate) =
        unsafe { ((*attr).dest_qp_num, (*attr).ah_attr.static_rate, (*attr).alt_ah_attr.static_rate) };
    if mask & IBV_QP_DEST_QPN != 0 && dqpn > 0x00ff_ffff {
        log::debug!("ibv_modify_qp: dest_qp_num {dqpn:#x} is wider than 24 bits: EINVAL");
        return Err(Errno::EINVAL);
    }
    for (bit, r, what) in [(IBV_QP_AV, rate, "ah_attr"), (IBV_QP_ALT_PATH, alt_rate, "alt_ah_attr")] {
        if mask & bit != 0 && !super::ah::valid_static_rate(r) {
            log::debug!("ibv_modify_qp: {what}.static_rate {r} is not an enum ibv_rate: EINVAL");
            return Err(Errno::EINVAL);
        }
    }
    Ok(())
}

/// Logs (warning) why `ibv_modify_qp` failed with `e`: the object, the transition, and the reason in the field's
/// terms (`src/verbs/explain.rs`): an illegal transition or mask for the QP type, `dest_qp_num` or `static_rate`
/// out of range, `path_mtu` above the port's active MTU; otherwise the kernel's errno with the mask it refused.
///
/// # Safety
/// `qp` is a live QP of `ctx`; `attr` is readable.
#[cold]
unsafe fn explain_modify_failure(ctx: &Context, qp: *mut ibv_qp, attr: *const ibv_qp_attr, mask: c_int, e: Errno) {
    use super::explain;
    if !log::log_enabled!(log::Level::Warn) {
        return;
    }
    let m = mask as u32;
    // SAFETY (the reads): the caller's contract; enum fields read as numbers.
    let (qpn, qp_type, state) =
        unsafe { ((*qp).qp_num, ffi::enum_raw(addr_of!((*qp).qp_type)), ffi::enum_raw(addr_of!((*qp).state))) };
    // SAFETY (both): the caller's readable attributes; enum fields read as numbers.
    let cur =
        if mask & IBV_QP_CUR_STATE != 0 { unsafe { ffi::enum_raw(addr_of!((*attr).cur_qp_state)) } } else { state };
    let next = if mask & IBV_QP_STATE != 0 { unsafe { ffi::enum_raw(addr_of!((*attr).qp_state)) } } else { cur };
    let head = format!(
        "ibv_modify_qp(qpn {qpn:#x}, {}, {}->{})",
        explain::qp_type_name(qp_type),
        explain::state_name(cur),
        explain::state_name(next)
    );
    let mut why = Vec::new();
    if let Some(t) = explain::qp_transition(qp_type, cur, next, m) {
        why.push(t.split_once(": ").map_or(t.clone(), |(_, r)| r.to_string()));
    }
    // SAFETY: plain integers of the caller's struct.
    let (dqpn, rate, mtu_raw, port) = unsafe {
        ((*attr).dest_qp_num, (*attr).ah_attr.static_rate, ffi::enum_raw(addr_of!((*attr).path_mtu)), (*attr).port_num)
    };
    if mask & IBV_QP_DEST_QPN != 0 && dqpn > 0x00ff_ffff {
        why.push(format!("dest_qp_num {dqpn:#x} is wider than 24 bits"));
    }
    if mask & IBV_QP_AV != 0 && !super::ah::valid_static_rate(rate) {
        why.push(format!("ah_attr.static_rate {rate} is not an enum ibv_rate"));
    }
    if mask & IBV_QP_PATH_MTU != 0 {
        let port = if mask & IBV_QP_PORT != 0 { port } else { 1 };
        let mut pa = MaybeUninit::<ibv_port_attr>::zeroed();
        // SAFETY: a live context and a writable port attribute struct.
        if unsafe { ctx.provider.query_port(ctx.ibv(), port, pa.as_mut_ptr()) }.is_ok() {
            // SAFETY: filled by the query; read as a number.
            let active = unsafe { ffi::enum_raw(addr_of!((*pa.as_ptr()).active_mtu)) };
            if mtu_raw > active {
                why.push(format!("path_mtu {} > port {port} active_mtu {}", mtu_bytes(mtu_raw), mtu_bytes(active)));
            }
        }
    }
    if why.is_empty() {
        log::warn!("{head}: the kernel answered {} to mask {}", explain::errno_name(e), explain::mask_names(m));
    } else {
        log::warn!("{head}: {} ({})", why.join("; "), explain::errno_name(e));
    }
}

/// Logs (warning) why `ibv_create_qp` failed with `e`: each capability above the device's limit
/// (`cap.max_send_sge 64 > device max_sge 32`), or the kernel's errno with the requested capabilities.
///
/// # Safety
/// `attr` is a readable `ibv_qp_init_attr_ex`; `ctx` a live context.
#[cold]
unsafe fn explain_create_failure(ctx: &Context, attr: *const ibv_qp_init_attr_ex, e: Errno) {
    if !log::log_enabled!(log::Level::Warn) {
        return;
    }
    // SAFETY: the caller's contract; the QP type is read as a number.
    let (cap, qp_type) = unsafe { ((*attr).cap, ffi::enum_raw(addr_of!((*attr).qp_type))) };
    let head = format!("ibv_create_qp({})", super::explain::qp_type_name(qp_type));
    let mut dev = MaybeUninit::<ibv_device_attr>::zeroed();
    // SAFETY: a live context and a writable device attribute struct.
    let q = unsafe {
        ctx.provider.query_device_ex(ctx.ibv(), std::ptr::null(), dev.as_mut_ptr().cast(), size_of::<ibv_device_attr>())
    };
    let why: Vec<String> = match q {
        Ok(()) => {
            // SAFETY: filled by the query; its enum field (atomic_cap) is not read.
            let d = unsafe { &*dev.as_ptr() };
            let wr = d.max_qp_wr.max(0) as u32;
            let sge = d.max_sge.max(0) as u32;
            [
                ("cap.max_send_wr", cap.max_send_wr, "max_qp_wr", wr),
                ("cap.max_recv_wr", cap.max_recv_wr, "max_qp_wr", wr),
                ("cap.max_send_sge", cap.max_send_sge, "max_sge", sge),
                ("cap.max_recv_sge", cap.max_recv_sge, "max_sge", sge),
            ]
            .into_iter()
            .filter(|&(_, want, _, max)| want > max)
            .map(|(what, want, lim, max)| format!("{what} {want} > device {lim} {max}"))
            .collect()
        }
        Err(_) => Vec::new(),
    };
    if why.is_empty() {
        log::warn!(
            "{head}: the kernel or provider answered {} (cap send_wr {} recv_wr {} send_sge {} recv_sge {} inline {})",
            super::explain::errno_name(e),
            cap.max_send_wr,
            cap.max_recv_wr,
            cap.max_send_sge,
            cap.max_recv_sge,
            cap.max_inline_data
        );
    } else {
        log::warn!("{head}: {} ({})", why.join("; "), super::explain::errno_name(e));
    }
}

/// An `enum ibv_mtu` number as bytes (`256` ... `4096`), or the number itself.
fn mtu_bytes(m: u32) -> String {
    match m {
        1..=5 => (128u32 << m).to_string(),
        n => format!("mtu enum {n}"),
    }
}

/// Creates a QP (rdma-core's `ibv_create_qp` / the provider's `create_qp_ex`, then `set_qp`): checks every object
/// the attributes name (live, of this context), lets the provider create it, fills the generic fields.
///
/// `pd_checked`: the caller has found `attr.pd` a live PD of `ctx` (`ibv_create_qp`, which got `ctx` from it).
///
/// # Safety
/// `attr` is a readable and writable `ibv_qp_init_attr_ex`.
unsafe fn create_qp(
    ctx: &Context,
    attr: *mut ibv_qp_init_attr_ex,
    extended: bool,
    pd_checked: bool,
) -> Result<*mut ibv_qp> {
    // SAFETY (whole function): caller's contract; every object pointer is checked before the provider reads it.
    unsafe {
        let a = &*attr;
        let qp_type = ffi::enum_raw(addr_of!(a.qp_type));
        if !known_qp_type(qp_type) {
            return Err(Errno::EINVAL);
        }
        // The PD of `ibv_create_qp` is its caller's, checked already (`pd_checked`).
        let pd = if a.comp_mask & IBV_QP_INIT_ATTR_PD != 0 && !pd_checked { a.pd } else { std::ptr::null_mut() };
        // Every object named is live and of this context: one registry look-up for all.
        registry::check_members(
            ctx.ibv(),
            &[
                (pd.cast(), Kind::Pd),
                (a.send_cq.cast(), Kind::Cq),
                (a.recv_cq.cast(), Kind::Cq),
                (a.srq.cast(), Kind::Srq),
            ],
        )?;
        let q = match ctx.device.driver.create_qp(ctx, attr, extended) {
            Ok(q) => q,
            Err(e) => {
                explain_create_failure(ctx, attr, e);
                return Err(e);
            }
        };
        if super::stats::on() {
            let ext = ctx.device.driver.qp_is_extended(q);
            super::stats::object_created(ctx.ibv(), q.cast(), StatsKind::Qp, (*q).qp_num, ext);
        }
        registry::insert(q, Kind::Qp);
        log::debug!("created QP {:#x} (type {qp_type}, handle {})", (*q).qp_num, (*q).handle);
        Ok(q)
    }
}

/// `ibv_create_qp(3)`: creates a queue pair on `pd` (of `qp_init_attr->qp_type`, with its CQs, optional SRQ and
/// capacities); `qp_init_attr->cap` gets the capacities actually granted. The QP starts in RESET.
///
/// Returns NULL with `errno` set on failure: `EINVAL` for an invalid PD, CQ or SRQ (NULL where one is needed, not
/// live, or of another context), an unknown QP type, capacities beyond the device's limits (the kernel's);
/// `EOPNOTSUPP` for QP types Soft-RoCE has not (raw packet, XRC: the kernel's); `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_qp(pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> *mut ibv_qp {
    ffi::boundary("ibv_create_qp", || -> Result<*mut ibv_qp> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        let ia = ffi::nonnull(qp_init_attr)?.as_ptr();
        let mut ax = MaybeUninit::<ibv_qp_init_attr_ex>::zeroed();
        let x = ax.as_mut_ptr();
        // SAFETY: the caller's attributes; our zeroed local (its enum written as a number, never read typed).
        unsafe {
            (*x).qp_context = (*ia).qp_context;
            (*x).send_cq = (*ia).send_cq;
            (*x).recv_cq = (*ia).recv_cq;
            (*x).srq = (*ia).srq;
            (*x).cap = (*ia).cap;
            ffi::enum_store(addr_of_mut!((*x).qp_type), ffi::enum_raw(addr_of!((*ia).qp_type)));
            (*x).sq_sig_all = (*ia).sq_sig_all;
            (*x).comp_mask = IBV_QP_INIT_ATTR_PD;
            (*x).pd = pd;
            let qp = create_qp(ctx, x, false, true)?;
            (*ia).cap = (*x).cap;
            Ok(qp)
        }
    })
    .or_null_errno()
}

/// `verbs_context.create_qp_ex`, what the inline `ibv_create_qp_ex(3)` calls for anything beyond a PD: Soft-RoCE
/// accepts `IBV_QP_INIT_ATTR_PD`, `_CREATE_FLAGS` (with no flag) and `_SEND_OPS_FLAGS` (the operations the QP
/// type supports; they select the `ibv_qp_ex` `wr_*` builders, see `ibv_wr_post(3)`).
///
/// Returns NULL with `errno` set: `EOPNOTSUPP` for other `comp_mask` bits (XRC domain, TSO, RSS...), any
/// creation flag, or send operations the QP type cannot do (as rdma-core's rxe); otherwise as `ibv_create_qp(3)`.
pub(crate) unsafe extern "C" fn create_qp_ex_op(
    context: *mut ibv_context,
    qp_init_attr_ex: *mut ibv_qp_init_attr_ex,
) -> *mut ibv_qp {
    ffi::boundary("ibv_create_qp_ex", || -> Result<*mut ibv_qp> {
        // SAFETY: op contract.
        let ctx = unsafe { super::ctx(context) }?;
        let attr = ffi::nonnull(qp_init_attr_ex)?.as_ptr();
        // SAFETY: the caller's attributes.
        unsafe { create_qp(ctx, attr, true, false) }
    })
    .or_null_errno()
}

/// `ibv_modify_qp(3)`: changes the attributes of a QP selected by `attr_mask` (`enum ibv_qp_attr_mask`),
/// typically moving it through RESET -> INIT -> RTR -> RTS; on success with `IBV_QP_STATE`, `qp->state` becomes
/// `attr->qp_state`.
///
/// Returns 0, or an errno value: `EINVAL` for an invalid QP or NULL `attr`, a `dest_qp_num` wider than 24 bits or a
/// `static_rate` (primary or alternate path) that is not an `enum ibv_rate` (both refused here; rdma-core lets the
/// kernel store them), an illegal transition or an attribute the transition does not allow or lacks (the kernel's); `EOPNOTSUPP` for `IBV_QP_RATE_LIMIT` (as rdma-core's
/// rxe).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int {
    ffi::boundary("ibv_modify_qp", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        let attr = ffi::nonnull(attr)?.as_ptr();
        // SAFETY: the caller's attributes, non-NULL.
        let r = unsafe { check_modify_attr(attr, attr_mask) }
            // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
            .and_then(|()| unsafe {
                // A plug-in's op directly (its context is `ctx`, just checked), else the provider's.
                crate::plugin::modify_qp_of(ctx, qp, attr, attr_mask)
                    .unwrap_or_else(|| ctx.provider.modify_qp(qp, attr, attr_mask))
            });
        if let Err(e) = r {
            // SAFETY: as above.
            unsafe { explain_modify_failure(ctx, qp, attr, attr_mask, e) };
            return Err(e);
        }
        if attr_mask & IBV_QP_STATE != 0 {
            // SAFETY: a live QP; the kernel accepted this state number.
            unsafe { ffi::enum_store(addr_of_mut!((*qp).state), ffi::enum_raw(addr_of!((*attr).qp_state))) };
        }
        Ok(())
    })
    .ret_errno()
}

/// `ibv_query_qp(3)`: reads the current attributes of a QP into `*attr` (all the kernel reports; `attr_mask`
/// says which the caller needs) and its creation attributes into `*init_attr`; with `IBV_QP_STATE` in the mask,
/// `qp->state` is refreshed.
///
/// Returns 0, or an errno value: `EINVAL` for an invalid QP or NULL pointers; `EOPNOTSUPP` for
/// `IBV_QP_RATE_LIMIT`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    ffi::boundary("ibv_query_qp", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        let attr = ffi::nonnull(attr)?.as_ptr();
        let init_attr = ffi::nonnull(init_attr)?.as_ptr();
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.query_qp(qp, attr, attr_mask, init_attr) }?;
        if attr_mask & IBV_QP_STATE != 0 {
            // SAFETY: a live QP; the state number comes from the kernel.
            unsafe { ffi::enum_store(addr_of_mut!((*qp).state), ffi::enum_raw(addr_of!((*attr).qp_state))) };
        }
        Ok(())
    })
    .ret_errno()
}

/// `ibv_destroy_qp(3)`: destroys a QP (detaching it from its multicast groups); first waits until every async
/// event the kernel delivered for it was acknowledged (`ibv_ack_async_event(3)`).
///
/// Returns 0, or an errno value: `EINVAL` for NULL, `ENOENT` for a pointer that is not a live QP of this
/// library (what the kernel answers rdma-core); the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int {
    ffi::boundary("ibv_destroy_qp", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (qp, ctx) =
            unsafe { super::object_dying(qp, Kind::Qp) }.map_err(|e| super::unknown_handle(qp, e, Errno::ENOENT))?;
        registry::destroy_begun(qp, Kind::Qp, || {
            // SAFETY: checked live and of this context; dying, so only event acknowledgements still reach it.
            unsafe { ctx.device.driver.destroy_qp(ctx, qp) }?;
            super::stats::object_destroyed(qp.cast());
            Ok(())
        })
    })
    .ret_errno()
}

/// `ibv_qp_to_qp_ex(3)`: returns the extended view (`struct ibv_qp_ex`, for the `ibv_wr_*` builders) of a QP
/// created with `ibv_create_qp_ex(3)` through the extended op (with Soft-RoCE: any `comp_mask` beyond
/// `IBV_QP_INIT_ATTR_PD`).
///
/// Returns NULL for other QPs (as rdma-core, `errno` untouched), and NULL with `errno = EINVAL` for a pointer
/// that is not a live QP of this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex {
    let r = ffi::boundary("ibv_qp_to_qp_ex", || -> Result<*mut ibv_qp_ex> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        // SAFETY: a live QP of this context; `ibv_qp_ex` begins with its `ibv_qp`.
        Ok(if unsafe { ctx.device.driver.qp_is_extended(qp) } { qp.cast() } else { std::ptr::null_mut() })
    });
    match r {
        Ok(p) => p,
        Err(e) => {
            e.set();
            std::ptr::null_mut()
        }
    }
}

/// `ibv_query_qp_data_in_order(3)`: whether the data written by operation `op` (an `enum ibv_wr_opcode` value)
/// on `qp` reaches memory in order, as rdma-core 65 answers. `flags` (`enum ibv_query_qp_data_in_order_flags`):
/// with `IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS`, the `enum ibv_query_qp_data_in_order_caps` bits that hold
/// (`WHOLE_MSG` implies `ALIGNED_128_BYTES`); without it (the only call rdma-core 44 allowed, `flags` 0), 1 when a
/// whole message is written in order, else 0. `IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY` asks the device even on a
/// CPU whose memory ordering is not known to keep the device's (anything but x86, where otherwise 0).
///
/// Returns the mask, 1 or 0; 0 for any other `flags` bit (rdma-core 56 also refused `DEVICE_ONLY`; a caller built
/// against 56 cannot be told from one built against 65, so 65's rule holds), and 0 (errno untouched) for a pointer
/// that is not a live QP of this library, where rdma-core would crash. Soft-RoCE and Soft-iWARP do not say
/// (rdma-core's dummy op): always 0, a correct conservative answer; a plug-in answers through its op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_qp_data_in_order(qp: *mut ibv_qp, op: c_uint, flags: u32) -> c_int {
    const KNOWN: u32 = IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS | IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY;
    if flags & !KNOWN != 0 {
        return 0;
    }
    if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) && flags & IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY == 0 {
        return 0;
    }
    let caps = ffi::boundary("ibv_query_qp_data_in_order", || -> Result<u32> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        // SAFETY: a live QP of this context.
        Ok(unsafe { ctx.provider.query_qp_data_in_order(qp, op, flags) })
    })
    .unwrap_or(0);
    in_order_answer(caps, flags)
}

/// rdma-core 56's post-processing of the provider's capability mask: `WHOLE_MSG` implies `ALIGNED_128_BYTES`; the
/// mask with `RETURN_CAPS`, else whether `WHOLE_MSG` holds.
fn in_order_answer(caps: u32, flags: u32) -> c_int {
    let caps = if caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG != 0 {
        caps | IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES
    } else {
        caps
    };
    if flags & IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS != 0 {
        caps as c_int
    } else {
        c_int::from(caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG != 0)
    }
}

/// `ibv_set_ece(3)`: sets the enhanced-connection-establishment options `qp` will offer.
///
/// Returns 0, or an errno value: `EOPNOTSUPP` with `errno` set (a zero `vendor_id`, or a provider without ECE:
/// Soft-RoCE has none), `EINVAL` for NULL pointers or an invalid QP.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("ibv_set_ece", || -> Result<()> {
        // SAFETY: entry-point contract.
        unsafe { super::qp(qp) }?;
        let ece = ffi::nonnull(ece)?;
        // rdma-core sets errno only for a zero vendor id; the provider's dummy op returns EOPNOTSUPP alone.
        // SAFETY: the caller's struct.
        if unsafe { (*ece.as_ptr()).vendor_id } == 0 {
            Errno::EOPNOTSUPP.set();
        }
        Err(Errno::EOPNOTSUPP)
    })
    .ret_errno()
}

/// `ibv_query_ece(3)`: reads the enhanced-connection-establishment options `qp` accepted into `*ece`.
///
/// Returns 0, or an errno value: `EOPNOTSUPP` (Soft-RoCE has no ECE, as rdma-core's dummy op), `EINVAL` for NULL
/// pointers or an invalid QP.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("ibv_query_ece", || -> Result<()> {
        // SAFETY: entry-point contract.
        unsafe { super::qp(qp) }?;
        ffi::nonnull(ece)?;
        Err(Errno::EOPNOTSUPP)
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_create_qp, ibv_modify_qp, ibv_query_qp, ibv_destroy_qp, ibv_qp_to_qp_ex, ibv_query_qp_data_in_order,
    ibv_set_ece, ibv_query_ece,
);

#[cfg(test)]
mod tests {
    use super::*;

    /// rdma-core 56's and 65's reading of the provider's mask: 44's providers answer 0/1 (1 = `WHOLE_MSG`), 56's
    /// mlx5 `WHOLE_MSG`, 56's EFA `ALIGNED_128_BYTES` alone (not "in order" for a caller without RETURN_CAPS).
    #[test]
    fn data_in_order_answer() {
        const CAPS: u32 = IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS;
        const WHOLE: u32 = IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG;
        const A128: u32 = IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
        assert_eq!(in_order_answer(0, 0), 0);
        assert_eq!(in_order_answer(WHOLE, 0), 1);
        assert_eq!(in_order_answer(WHOLE, CAPS), (WHOLE | A128) as c_int, "WHOLE_MSG implies ALIGNED_128");
        assert_eq!(in_order_answer(A128, 0), 0, "EFA's 128-byte ordering is not whole-message ordering");
        assert_eq!(in_order_answer(A128, CAPS), A128 as c_int);
        let device_only = IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY;
        assert_eq!(in_order_answer(WHOLE, device_only), 1, "DEVICE_ONLY alone: the 0/1 answer");
        // Flags beyond the two known ones, and a pointer that is no QP: 0, before any provider is asked.
        // SAFETY: garbage is refused by the registry before any dereference.
        unsafe {
            assert_eq!(ibv_query_qp_data_in_order(std::ptr::null_mut(), 0, 1 << 2), 0);
            assert_eq!(ibv_query_qp_data_in_order(std::ptr::null_mut(), 0, CAPS), 0);
        }
    }
}
