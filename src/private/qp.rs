//! The provider interface's QP commands: `ibv_cmd_create_qp(_ex, _ex2)`, `_open_qp`, `_query_qp`,
//! `_modify_qp(_ex)`, `_destroy_qp`, and posting through the kernel (`_post_send`, `_post_recv`) for drivers
//! without user-space queues (rdma-core's `cmd_qp.c`, `cmd.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::ioctl::chain_needs_ioctl;
use crate::kernel;
use crate::object;
use crate::provider::cmd::{self as pcmd, QPT_UD, QPT_XRC_RECV, QP_INIT_ATTR_IND_TABLE};
use crate::provider::marshall;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_void};
use std::mem::{offset_of, size_of};
use std::ptr::{self, addr_of, addr_of_mut};
use std::slice;

/// rdma-core's `set_qp`: the generic QP fields after creation ([`object::native::init_qp`], shared with the native
/// QPs), and the `verbs_qp` ones when there is one, at the offsets of the plug-in's generation `g` (its
/// `ibv_qp_ex` is 352 bytes in rdma-core 44, 360 later).
///
/// # Safety
/// The provider's objects; `vqp` is NULL or a `verbs_qp` of generation `g`.
unsafe fn set_qp(g: Generation, vqp: *mut verbs_qp, qp: *mut ibv_qp, a: &ibv_qp_init_attr_ex, vxrcd: *mut verbs_xrcd) {
    // SAFETY: caller's contract.
    unsafe {
        object::native::init_qp(qp, a, a.pd);
        if !vqp.is_null() {
            let comp_mask = g.qp_comp_mask_ptr(vqp.cast());
            *comp_mask = 0;
            if a.comp_mask & IBV_QP_INIT_ATTR_XRCD != 0 {
                *comp_mask |= VERBS_QP_XRCD;
                *g.qp_xrcd_ptr(vqp.cast()) = vxrcd;
            }
        }
    }
}

/// rdma-core's `ibv_icmd_create_qp` on the write ABI with a provider's buffers. Sets `qp->context` first; checks
/// and builds the request as rdma-core does ([`pcmd::create_qp_cmd`]); sends CREATE_QP, or EX_CREATE_QP for
/// creation flags or an indirection table, with the provider's driver data; fills `handle`, `qp_num`, the granted
/// capabilities in `a.cap` ([`pcmd::create_qp_done`]), and [`set_qp`]. `prov_cmd` / `prov_resp`: the sizes of the
/// provider's command and response structs, after which its driver data starts.
///
/// # Safety
/// The provider's objects and buffers.
unsafe fn create_qp(
    context: *mut ibv_context,
    vqp: *mut verbs_qp,
    qp: *mut ibv_qp,
    a: &mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    prov_cmd: usize,
    resp: *mut c_void,
    resp_size: usize,
    prov_resp: usize,
) -> Result<()> {
    // SAFETY: caller's contract; object pointers the provider passes are live (NULL ones refused).
    unsafe {
        let u = fd_of(context)?;
        (*qp).context = context;
        let udata = tail(cmd, cmd_size, prov_cmd);
        let base = match pcmd::create_qp_cmd(qp, a, pcmd::Caller::Plugin)? {
            pcmd::CreateQpCmd::Legacy(req) => write_uhw::<_, ib_uverbs_create_qp_resp>(
                &u,
                IB_USER_VERBS_CMD_CREATE_QP,
                &req,
                udata,
                resp,
                resp_size,
                prov_resp,
            )?,
            pcmd::CreateQpCmd::Ex(req) => {
                write_uhw_ex::<_, ib_uverbs_ex_create_qp_resp>(
                    &u,
                    IB_USER_VERBS_EX_CMD_CREATE_QP,
                    &req,
                    udata,
                    resp,
                    resp_size,
                    prov_resp,
                )?
                .base
            }
        };
        pcmd::create_qp_done(qp, a, &base);
        let vxrcd = if ffi::enum_raw(addr_of!(a.qp_type)) == QPT_XRC_RECV { a.xrcd.cast() } else { ptr::null_mut() };
        set_qp(generation_of(context), vqp, qp, a, vxrcd);
    }
    Ok(())
}

/// `int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
/// struct ibv_create_qp *cmd, size_t cmd_size, struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`.
///
/// CREATE_QP on `pd` with the provider's driver data; `user_handle` is `qp`. Fills `context`, `handle`, `qp_num`,
/// the generic fields (`qp_context`, `pd`, CQs, `srq`, `qp_type`, `state = RESET`, the event counter, the public
/// mutex/cond) and the granted capabilities in `attr->cap`. Errors: `EINVAL` for an unknown QP type or missing
/// CQs; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp(
    pd: *mut ibv_pd,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_qp", || {
        let (pd, qp, attr) = (obj(pd)?, obj(qp)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            let i = &*attr;
            // Zeroed memory with the enum written as a number (0 is not a valid `ibv_qp_type` for Rust).
            let mut ma = std::mem::MaybeUninit::<ibv_qp_init_attr_ex>::zeroed();
            let a = &mut *ma.as_mut_ptr();
            a.qp_context = i.qp_context;
            a.send_cq = i.send_cq;
            a.recv_cq = i.recv_cq;
            a.srq = i.srq;
            a.cap = i.cap;
            ffi::enum_store(addr_of_mut!(a.qp_type), ffi::enum_raw(addr_of!(i.qp_type)));
            a.sq_sig_all = i.sq_sig_all;
            a.comp_mask = IBV_QP_INIT_ATTR_PD;
            a.pd = pd;
            create_qp(
                (*pd).context,
                ptr::null_mut(),
                qp,
                a,
                cmd,
                cmd_size,
                abi::<ib_uverbs_create_qp>(),
                resp,
                resp_size,
                size_of::<ib_uverbs_create_qp_resp>(),
            )?;
            (*attr).cap = a.cap;
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
/// struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd, size_t cmd_size,
/// struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`.
///
/// As [`ibv_cmd_create_qp`] from extended attributes with the legacy command struct (XRC QPs included), also
/// filling `verbs_qp.comp_mask`/`xrcd`. Errors: `EINVAL` for `comp_mask` bits beyond PD, XRCD and
/// SEND_OPS_FLAGS, and as [`ibv_cmd_create_qp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    let supported = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    // SAFETY: forwarded.
    unsafe {
        create_qp_ex_with(
            "ibv_cmd_create_qp_ex",
            context,
            qp,
            attr_ex,
            supported,
            (cmd, cmd_size, abi::<ib_uverbs_create_qp>()),
            (resp, resp_size, size_of::<ib_uverbs_create_qp_resp>()),
        )
    }
}

/// `int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
/// struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size, struct ibv_command_buffer *driver)`,
/// `@@IBVERBS_PRIVATE_65` (rdma-core 64 added `driver`).
///
/// As [`ibv_cmd_create_qp_ex`] with the extended command struct: creation flags (`source_qpn` with
/// `IBV_QP_CREATE_SOURCE_QPN`) and receive indirection tables (RSS QPs: no receive queue, the send CQ only with
/// a send queue) go through EX_CREATE_QP; otherwise CREATE_QP is sent with the same driver data and the kernel's
/// response lands right before the provider's driver response. The provider's attribute chain `driver` can travel
/// with a write command only when it holds nothing but optional attributes (dropped, as rdma-core drops them
/// there); attributes only the QP_CREATE ioctl can carry (rdma-core 65's mlx5 describes dma-buf-backed queue
/// buffers so, in confidential-computing guests) are not supported here: `EOPNOTSUPP`. Errors: `EINVAL` for
/// `comp_mask` bits beyond PD, XRCD, CREATE_FLAGS, MAX_TSO_HEADER, IND_TABLE, RX_HASH and SEND_OPS_FLAGS, for
/// unsupported creation flags, for an indirection table with a receive queue, CQ or SRQ, or a corrupt chain; the
/// kernel's. ([`ibv_cmd_create_qp_ex2_34`]: rdma-core 44 to 56's prototype, without `driver`.)
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex2(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    driver: *mut ibv_command_buffer,
) -> c_int {
    // SAFETY: the provider's chain.
    match unsafe { chain_needs_ioctl(driver) } {
        Ok(false) => {}
        Ok(true) => {
            log::warn!("ibv_cmd_create_qp_ex2: driver attributes only the QP_CREATE ioctl carries: EOPNOTSUPP");
            Errno::EOPNOTSUPP.set();
            return libc::EOPNOTSUPP;
        }
        Err(e) => {
            e.set();
            return e.0;
        }
    }
    // SAFETY: forwarded.
    unsafe { ibv_cmd_create_qp_ex2_34(context, qp, attr_ex, cmd, cmd_size, resp, resp_size) }
}

/// `ibv_cmd_create_qp_ex2@IBVERBS_PRIVATE_34`: `int ibv_cmd_create_qp_ex2(struct ibv_context *context,
/// struct verbs_qp *qp, struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size)` of rdma-core 44 to 56: [`ibv_cmd_create_qp_ex2`]
/// without a driver chain.
pub unsafe extern "C" fn ibv_cmd_create_qp_ex2_34(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    let supported = IBV_QP_INIT_ATTR_PD
        | IBV_QP_INIT_ATTR_XRCD
        | IBV_QP_INIT_ATTR_CREATE_FLAGS
        | IBV_QP_INIT_ATTR_MAX_TSO_HEADER
        | QP_INIT_ATTR_IND_TABLE
        | IBV_QP_INIT_ATTR_RX_HASH
        | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    // SAFETY: forwarded.
    unsafe {
        create_qp_ex_with(
            "ibv_cmd_create_qp_ex2",
            context,
            qp,
            attr_ex,
            supported,
            (cmd, cmd_size, abi_ex::<ib_uverbs_ex_create_qp>()),
            (resp, resp_size, size_of::<ib_uverbs_ex_create_qp_resp>()),
        )
    }
}

/// The body of the extended creates ([`ibv_cmd_create_qp_ex`], [`ibv_cmd_create_qp_ex2`]): `EINVAL` for
/// `attr_ex->comp_mask` bits outside `supported`, then [`create_qp`] into the `verbs_qp`. `cmd` and `resp`: the
/// provider's buffer, its size, and the size of the provider's command (core response) struct before its
/// driver data.
///
/// # Safety
/// The provider's objects and buffers.
unsafe fn create_qp_ex_with(
    name: &'static str,
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    supported: u32,
    (cmd, cmd_size, prov_cmd): (*mut c_void, usize, usize),
    (resp, resp_size, prov_resp): (*mut c_void, usize, usize),
) -> c_int {
    ret(name, || {
        let (vqp, a) = (obj(qp)?, obj(attr_ex)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            if (*a).comp_mask & !supported != 0 {
                return Err(Errno::EINVAL);
            }
            // Every generation's verbs_qp begins with the ibv_qp.
            let q = vqp.cast::<ibv_qp>();
            create_qp(context, vqp, q, &mut *a, cmd, cmd_size, prov_cmd, resp, resp_size, prov_resp)
        }
    })
}

/// `int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
/// struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
/// struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`.
///
/// OPEN_QP: opens the XRC target QP `attr->qp_num` of the XRC domain `attr->xrcd`; `user_handle` is `qp`. Fills
/// `handle`, `context`, `qp_context`, `qp_num`, `qp_type`, `state = IBV_QPS_UNKNOWN`, NULL PD/CQs/SRQ, the
/// event counter and public mutex/cond, and `comp_mask = VERBS_QP_XRCD` with `xrcd` when `vqp_sz` covers it.
/// Errors: `EOPNOTSUPP` for unknown `comp_mask` bits, `EINVAL` without the XRCD, NUM and TYPE bits; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_open_qp(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    vqp_sz: c_int,
    attr: *mut ibv_qp_open_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_open_qp", || {
        let (vqp, attr) = (obj(qp)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers; `verbs_xrcd` begins with its `ibv_xrcd`.
        unsafe {
            let a = &*attr;
            if a.comp_mask >= IBV_QP_OPEN_ATTR_RESERVED {
                return Err(Errno::EOPNOTSUPP);
            }
            let need = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE;
            if a.comp_mask & need != need {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let xrcd = obj(a.xrcd.cast::<verbs_xrcd>())?;
            let qp_type = ffi::enum_raw(addr_of!(a.qp_type));
            let q = vqp.cast::<ibv_qp>();
            let base: ib_uverbs_open_qp = core_of(cmd, cmd_size, HDR)?;
            let req = kernel::qp::open_qp_cmd(base, q as u64, (*xrcd).handle, a.qp_num, qp_type as u8);
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_open_qp>());
            let r: ib_uverbs_create_qp_resp =
                write_direct(&u, IB_USER_VERBS_CMD_OPEN_QP, req.as_bytes(), udata, resp, resp_size)?;
            (*q).handle = r.qp_handle;
            (*q).context = context;
            (*q).qp_context = a.qp_context;
            (*q).pd = ptr::null_mut();
            (*q).send_cq = ptr::null_mut();
            (*q).recv_cq = ptr::null_mut();
            (*q).srq = ptr::null_mut();
            (*q).qp_num = a.qp_num;
            ffi::enum_store(addr_of_mut!((*q).qp_type), qp_type);
            ffi::enum_store(addr_of_mut!((*q).state), IBV_QPS_UNKNOWN);
            (*q).events_completed = 0;
            object::init_sync(addr_of_mut!((*q).mutex), addr_of_mut!((*q).cond));
            let g = generation_of(context);
            *g.qp_comp_mask_ptr(vqp.cast()) = 0;
            if g.verbs_qp_xrcd() < vqp_sz.max(0) as usize {
                *g.qp_comp_mask_ptr(vqp.cast()) = VERBS_QP_XRCD;
                *g.qp_xrcd_ptr(vqp.cast()) = xrcd;
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask,
/// struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd, size_t cmd_size)`.
///
/// QUERY_QP: fills every field of `qp_attr` rdma-core fills (all but `en_sqd_async_notify` and `rate_limit`) and
/// `qp_init_attr` (from the QP and the kernel's answer). Driver data after the command, which no provider passes
/// and the kernel ignores, is not sent. Errors: `EOPNOTSUPP` for mask bits from `IBV_QP_RATE_LIMIT` up; the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_qp(
    qp: *mut ibv_qp,
    qp_attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    qp_init_attr: *mut ibv_qp_init_attr,
    _cmd: *mut c_void,
    _cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_query_qp", || {
        let (qp, attr, init) = (obj(qp)?, obj(qp_attr)?, obj(qp_init_attr)?);
        // SAFETY: the provider's live QP and attribute structs.
        unsafe { pcmd::query_qp(&fd_of((*qp).context)?, qp, attr, attr_mask, init) }
    })
}

/// `int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_modify_qp *cmd, size_t cmd_size)`.
///
/// MODIFY_QP of the fields `attr_mask` selects (the others are sent as the provider left them in `cmd`), with
/// the provider's driver data. Errors: `EOPNOTSUPP` for mask bits from `IBV_QP_RATE_LIMIT` up (the extended
/// command's); the kernel's (`EINVAL` for an invalid transition or attribute).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_qp", || {
        let mask = attr_mask as u32;
        if mask & !(ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as u32 - 1) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let (qp, attr) = (obj(qp)?, obj(attr)?);
        // SAFETY: the provider's live QP, attributes and buffers.
        unsafe {
            let mut req: ib_uverbs_modify_qp = core_of(cmd, cmd_size, HDR)?;
            kernel::qp::fill_modify_qp_cmd(&mut req, (*qp).handle, &marshall::qp_attr_to_kern_for(attr, mask), mask);
            let u = fd_of((*qp).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_modify_qp>());
            kernel::write_raw(&u, IB_USER_VERBS_CMD_MODIFY_QP, req.as_bytes(), udata, None)
        }
    })
}

/// `int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_modify_qp_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_modify_qp_resp *resp, size_t resp_size)`.
///
/// EX_MODIFY_QP: as [`ibv_cmd_modify_qp`] plus `rate_limit` with `IBV_QP_RATE_LIMIT`, the response (and the
/// driver's) straight into `resp`. Errors: `EINVAL` for `IBV_QP_RATE_LIMIT` with a command too short for
/// `rate_limit`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_qp_ex(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_qp_ex", || {
        let (qp, attr) = (obj(qp)?, obj(attr)?);
        let mask = attr_mask as u32;
        // SAFETY: the provider's live QP, attributes and buffers.
        unsafe {
            let mut req: ib_uverbs_ex_modify_qp = core_of(cmd, cmd_size, EX_HDR)?;
            kernel::qp::fill_modify_qp_cmd(
                &mut req.base,
                (*qp).handle,
                &marshall::qp_attr_to_kern_for(attr, mask),
                mask,
            );
            if mask & ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as u32 != 0 {
                if cmd_size < EX_HDR + offset_of!(ib_uverbs_ex_modify_qp, rate_limit) + 4 {
                    return Err(Errno::EINVAL);
                }
                req.rate_limit = (*attr).rate_limit;
            }
            let u = fd_of((*qp).context)?;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_modify_qp>());
            let _: ib_uverbs_ex_modify_qp_resp = write_ex_direct(
                &u,
                IB_USER_VERBS_EX_CMD_MODIFY_QP,
                req.as_bytes(),
                udata,
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_modify_qp_resp>(),
            )?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_qp(struct ibv_qp *qp)`: DESTROY_QP, then waits until the async events the kernel reported
/// for it were acknowledged. Errors: the kernel's; a forgiven `EIO` (see [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd)) returns 0 at
/// once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_qp(qp: *mut ibv_qp) -> c_int {
    ret("ibv_cmd_destroy_qp", || {
        let qp = obj(qp)?;
        // SAFETY: the provider's live QP, whose mutex/cond were initialised at creation.
        unsafe {
            let u = fd_of((*qp).context)?;
            if let Some(reported) = destroyed(kernel::qp::destroy_qp_write(&u, (*qp).handle))? {
                wait(addr_of_mut!((*qp).mutex), addr_of_mut!((*qp).cond), || {
                    object::all_acked("ibv_destroy_qp (async events)", (*qp).events_completed, reported)
                });
            }
        }
        Ok(())
    })
}

/// Counts a work-request list (`n`, total SGEs) following `next`. `EINVAL` for a negative `num_sge` or an absurd
/// length.
///
/// # Safety
/// `first` starts a valid list; `next_of`/`sges_of` read one element.
pub(super) unsafe fn count_wrs<W>(
    first: *mut W,
    next_of: impl Fn(*mut W) -> *mut W,
    sges_of: impl Fn(*mut W) -> c_int,
) -> Result<(usize, usize)> {
    let (mut n, mut sges) = (0usize, 0usize);
    let mut w = first;
    while !w.is_null() {
        let s = usize::try_from(sges_of(w)).map_err(|_| Errno::EINVAL)?;
        n += 1;
        sges += s;
        if n > 1 << 16 || sges > 1 << 20 {
            return Err(Errno::EINVAL);
        }
        w = next_of(w);
    }
    Ok((n, sges))
}

/// rdma-core's tail of `ibv_cmd_post_*`: the kernel's `bad_wr` (1-based index of the failing request; 0 none)
/// becomes `*bad_wr`; a failure without one reports the first request.
///
/// # Safety
/// `first` starts a valid list of at least `bad` elements; `out` is NULL or writable.
pub(super) unsafe fn report_bad<W>(
    first: *mut W,
    next_of: impl Fn(*mut W) -> *mut W,
    bad: u32,
    failed: bool,
    out: *mut *mut W,
) {
    if out.is_null() {
        return;
    }
    // SAFETY: caller's contract.
    unsafe {
        if bad != 0 {
            let mut w = first;
            for _ in 1..bad {
                if w.is_null() {
                    break;
                }
                w = next_of(w);
            }
            *out = w;
        } else if failed {
            *out = first;
        }
    }
}

/// `int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)`.
///
/// POST_SEND through the kernel: every work request of the list (as `ib_uverbs_send_wr`: id, SGE count, opcode,
/// flags, immediate data, and the RDMA, atomic or UD fields its opcode or the QP type uses; the AH by handle),
/// then all SGEs. Returns 0 or a positive errno (also in `errno`); on failure `*bad_wr` is the request the kernel
/// names, else the first one. Errors: `EINVAL` for NULL pointers or a negative `num_sge`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_send(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    let mut bad = 0u32;
    let r = ret("ibv_cmd_post_send", || {
        let qp = obj(ibqp)?;
        // SAFETY: the provider's live QP and the caller's work-request list.
        unsafe {
            let (n, sges) = count_wrs(wr, |w| (*w).next, |w| (*w).num_sge)?;
            let head = size_of::<ib_uverbs_post_send>();
            let each = size_of::<ib_uverbs_send_wr>();
            let sge = size_of::<ibv_sge>();
            let mut b = Bytes(vec![0u8; head + n * each + sges * sge]);
            b.u32(offset_of!(ib_uverbs_post_send, qp_handle), (*qp).handle);
            b.u32(offset_of!(ib_uverbs_post_send, wr_count), n as u32);
            b.u32(offset_of!(ib_uverbs_post_send, sge_count), sges as u32);
            b.u32(offset_of!(ib_uverbs_post_send, wqe_size), each as u32);
            let ud = ffi::enum_raw(addr_of!((*qp).qp_type)) == QPT_UD;
            let wro = offset_of!(ib_uverbs_send_wr, wr);
            let (mut w, mut i, mut s) = (wr, 0usize, head + n * each);
            while !w.is_null() {
                let o = head + i * each;
                let x = &*w;
                let opcode = ffi::enum_raw(addr_of!(x.opcode));
                b.u64(o + offset_of!(ib_uverbs_send_wr, wr_id), x.wr_id);
                b.u32(o + offset_of!(ib_uverbs_send_wr, num_sge), x.num_sge as u32);
                b.u32(o + offset_of!(ib_uverbs_send_wr, opcode), opcode);
                b.u32(o + offset_of!(ib_uverbs_send_wr, send_flags), x.send_flags);
                b.u32(o + offset_of!(ib_uverbs_send_wr, ex), x.imm.imm_data);
                if ud {
                    type U = ib_uverbs_send_wr__bindgen_ty_2__bindgen_ty_3;
                    b.u32(o + wro + offset_of!(U, ah), (*obj(x.wr.ud.ah)?).handle);
                    b.u32(o + wro + offset_of!(U, remote_qpn), x.wr.ud.remote_qpn);
                    b.u32(o + wro + offset_of!(U, remote_qkey), x.wr.ud.remote_qkey);
                } else {
                    use ibv_wr_opcode::*;
                    type R = ib_uverbs_send_wr__bindgen_ty_2__bindgen_ty_1;
                    type A = ib_uverbs_send_wr__bindgen_ty_2__bindgen_ty_2;
                    match opcode {
                        op if op == IBV_WR_RDMA_WRITE as u32
                            || op == IBV_WR_RDMA_WRITE_WITH_IMM as u32
                            || op == IBV_WR_RDMA_READ as u32 =>
                        {
                            b.u64(o + wro + offset_of!(R, remote_addr), x.wr.rdma.remote_addr);
                            b.u32(o + wro + offset_of!(R, rkey), x.wr.rdma.rkey);
                        }
                        op if op == IBV_WR_ATOMIC_CMP_AND_SWP as u32 || op == IBV_WR_ATOMIC_FETCH_AND_ADD as u32 => {
                            b.u64(o + wro + offset_of!(A, remote_addr), x.wr.atomic.remote_addr);
                            b.u64(o + wro + offset_of!(A, compare_add), x.wr.atomic.compare_add);
                            b.u64(o + wro + offset_of!(A, swap), x.wr.atomic.swap);
                            b.u32(o + wro + offset_of!(A, rkey), x.wr.atomic.rkey);
                        }
                        _ => {}
                    }
                }
                let k = x.num_sge as usize;
                if k > 0 {
                    let list = slice::from_raw_parts(obj(x.sg_list)?.cast::<u8>(), k * sge);
                    b.put(s, list);
                    s += k * sge;
                }
                i += 1;
                w = x.next;
            }
            let u = fd_of((*qp).context)?;
            let mut out = [0u8; size_of::<ib_uverbs_post_send_resp>()];
            let r = kernel::write_raw(&u, IB_USER_VERBS_CMD_POST_SEND, &b.0, &[], Some(&mut out));
            bad = ib_uverbs_post_send_resp::from_bytes(&out).bad_wr;
            r
        }
    });
    // SAFETY: the caller's list and out-pointer.
    unsafe { report_bad(wr, |w| (*w).next, bad, r != 0, bad_wr) };
    r
}

/// The receive-side body of [`ibv_cmd_post_recv`] and [`ibv_cmd_post_srq_recv`]: POST_RECV / POST_SRQ_RECV of
/// every request (`wr_id`, SGE count) then all SGEs; returns the kernel's `bad_wr` with the result.
///
/// # Safety
/// The provider's live object (of `ctx`, named by `handle`) and the caller's list.
pub(super) unsafe fn post_recv_cmd(
    ctx: *mut ibv_context,
    command: u32,
    handle: u32,
    wr: *mut ibv_recv_wr,
) -> (u32, Result<()>) {
    let mut bad = 0u32;
    let r = (|| {
        // SAFETY: caller's contract.
        unsafe {
            let (n, sges) = count_wrs(wr, |w| (*w).next, |w| (*w).num_sge)?;
            let head = size_of::<ib_uverbs_post_recv>();
            let each = size_of::<ib_uverbs_recv_wr>();
            let sge = size_of::<ibv_sge>();
            let mut b = Bytes(vec![0u8; head + n * each + sges * sge]);
            // ib_uverbs_post_recv and ib_uverbs_post_srq_recv have the same layout.
            b.u32(offset_of!(ib_uverbs_post_recv, qp_handle), handle);
            b.u32(offset_of!(ib_uverbs_post_recv, wr_count), n as u32);
            b.u32(offset_of!(ib_uverbs_post_recv, sge_count), sges as u32);
            b.u32(offset_of!(ib_uverbs_post_recv, wqe_size), each as u32);
            let (mut w, mut i, mut s) = (wr, 0usize, head + n * each);
            while !w.is_null() {
                let o = head + i * each;
                let x = &*w;
                b.u64(o + offset_of!(ib_uverbs_recv_wr, wr_id), x.wr_id);
                b.u32(o + offset_of!(ib_uverbs_recv_wr, num_sge), x.num_sge as u32);
                let k = x.num_sge as usize;
                if k > 0 {
                    b.put(s, slice::from_raw_parts(obj(x.sg_list)?.cast::<u8>(), k * sge));
                    s += k * sge;
                }
                i += 1;
                w = x.next;
            }
            let u = fd_of(ctx)?;
            let mut out = [0u8; size_of::<ib_uverbs_post_recv_resp>()];
            let r = kernel::write_raw(&u, command, &b.0, &[], Some(&mut out));
            bad = ib_uverbs_post_recv_resp::from_bytes(&out).bad_wr;
            r
        }
    })();
    (bad, r)
}

/// `int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)`.
///
/// POST_RECV through the kernel. Returns 0 or a positive errno (also in `errno`); on failure `*bad_wr` is the
/// request the kernel names, else the first one. Errors: `EINVAL` for NULL pointers or a negative `num_sge`; the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_recv(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    let mut bad = 0u32;
    let r = ret("ibv_cmd_post_recv", || {
        let qp = obj(ibqp)?;
        // SAFETY: the provider's live QP and the caller's list.
        let (b, r) = unsafe { post_recv_cmd((*qp).context, IB_USER_VERBS_CMD_POST_RECV, (*qp).handle, wr) };
        bad = b;
        r
    });
    // SAFETY: the caller's list and out-pointer.
    unsafe { report_bad(wr, |w| (*w).next, bad, r != 0, bad_wr) };
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use crate::private::pd::ibv_cmd_open_xrcd;
    use crate::private::srq::ibv_cmd_post_srq_recv;
    use crate::provider::cmd::{QPT_RC, QPT_UC};
    #[test]
    fn create_qp_ex2_legacy_and_extended() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_create_qp_resp::zeroed();
        kresp.qp_handle = 11;
        kresp.qpn = 0x123;
        kresp.max_send_wr = 64;
        kresp.max_inline_data = 32;
        let mut bytes = kresp.as_bytes().to_vec();
        bytes.extend_from_slice(&[0xab; 8]);
        f.reply(Reply::write(&bytes));
        let ex_core = size_of::<ib_uverbs_ex_create_qp>();
        let mut cmd = prov_cmd(24, ex_core, 0x33, &[4; 8]);
        let ex_resp = size_of::<ib_uverbs_ex_create_qp_resp>();
        let mut resp = vec![0u8; ex_resp + 8];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 5 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut qp: MaybeUninit<r56::verbs_qp> = z();
        let mut a: MaybeUninit<ibv_qp_init_attr_ex> = z();
        unsafe {
            (*cq.as_mut_ptr()).handle = 6;
            let x = a.as_mut_ptr();
            (*x).send_cq = cq.as_mut_ptr();
            (*x).recv_cq = cq.as_mut_ptr();
            (*x).cap.max_send_wr = 10;
            (*x).qp_context = 0x1234 as *mut c_void;
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_RC);
            (*x).comp_mask = IBV_QP_INIT_ATTR_PD;
            (*x).pd = &mut pd;
        }
        let ctxp = ctx.as_mut_ptr();
        let call = |qp: *mut r56::verbs_qp, a: *mut ibv_qp_init_attr_ex, cmd: &mut Vec<u8>, resp: &mut Vec<u8>| unsafe {
            with_generation(Generation::R56, || {
                with_fake(&f, || {
                    ibv_cmd_create_qp_ex2_34(
                        ctxp,
                        qp.cast(),
                        a,
                        cmd.as_mut_ptr().cast(),
                        cmd.len(),
                        resp.as_mut_ptr().cast(),
                        resp.len(),
                    )
                })
            })
        };
        assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_QP, ((8 + 56 + 8) / 4) as u16, ((32 + 8) / 4) as u16));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64 + (ex_resp - 32) as u64);
        let req = ib_uverbs_create_qp::from_bytes(&w[8..]);
        assert_eq!((req.pd_handle, req.send_cq_handle, req.recv_cq_handle, req.qp_type), (5, 6, 6, QPT_RC as u8));
        assert_eq!(&w[64..], &[4; 8]);
        unsafe {
            let q = &(*qp.as_ptr()).qp;
            assert_eq!((q.handle, q.qp_num, q.context, q.pd), (11, 0x123, ctxp, &mut pd as *mut _));
            assert_eq!(q.qp_context, 0x1234 as *mut c_void);
            assert_eq!(ffi::enum_raw(addr_of!(q.state)), IBV_QPS_RESET);
            assert_eq!((*a.as_ptr()).cap.max_send_wr, 64);
            assert_eq!((*qp.as_ptr()).comp_mask, 0);
        }

        // The CREATE_FLAGS bit alone (even with no flag) selects EX_CREATE_QP.
        f.reply(Reply::write(&vec![0u8; ex_resp + 8]));
        unsafe {
            let x = a.as_mut_ptr();
            (*x).comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
            (*x).create_flags = IBV_QP_CREATE_SOURCE_QPN;
            (*x).source_qpn = 0x77;
        }
        assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), 0);
        let w = f.write(1);
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_QP);
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        let req = ib_uverbs_ex_create_qp::from_bytes(&w[24..]);
        assert_eq!(
            (req.create_flags, req.source_qpn, req.user_handle),
            (IBV_QP_CREATE_SOURCE_QPN, 0x77, qp.as_ptr() as u64)
        );
        assert_eq!(&w[24 + ex_core..], &[4; 8]);

        unsafe {
            (*a.as_mut_ptr()).create_flags = 1 << 30;
            assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), libc::EINVAL);
            (*a.as_mut_ptr()).comp_mask |= 1 << 12;
            assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), libc::EINVAL);
        }
        assert_eq!(f.writes().len(), 2);
    }

    #[test]
    fn modify_qp_sends_only_masked_fields_over_the_providers_bytes() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        let core = size_of::<ib_uverbs_modify_qp>();
        let mut cmd = prov_cmd(8, core, 0xcc, &[]);
        let mut qp: MaybeUninit<ibv_qp> = z();
        let mut attr: MaybeUninit<ibv_qp_attr> = z();
        unsafe {
            (*qp.as_mut_ptr()).handle = 9;
            ffi::enum_store(addr_of_mut!((*attr.as_mut_ptr()).qp_state), 3);
            (*attr.as_mut_ptr()).qkey = 0xdead;
            (*attr.as_mut_ptr()).sq_psn = 0x42;
        }
        let mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_qp(qp.as_mut_ptr(), attr.as_mut_ptr(), mask, cmd.as_mut_ptr().cast(), cmd.len())
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_MODIFY_QP, ((8 + core) / 4) as u16, 0));
        let c = ib_uverbs_modify_qp::from_bytes(&w[8..]);
        assert_eq!((c.qp_handle, c.attr_mask, c.qp_state, c.sq_psn), (9, mask as u32, 3, 0x42));
        assert_eq!(c.qkey, 0xcccc_cccc, "not in the mask: the provider's bytes");
        assert_eq!(c.reserved, [0, 0]);
        let rl = IBV_QP_RATE_LIMIT;
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_qp(qp.as_mut_ptr(), attr.as_mut_ptr(), rl, cmd.as_mut_ptr().cast(), cmd.len())
        });
        assert_eq!(rc, libc::EOPNOTSUPP);

        // The extended command carries the rate limit and its response lands in the provider's buffer.
        f.reply(Reply::write(&[1, 0, 0, 0, 8, 0, 0, 0]));
        let ex = size_of::<ib_uverbs_ex_modify_qp>();
        let mut cmd = prov_cmd(24, ex, 0, &[]);
        let mut resp = [0u8; 8];
        unsafe { (*attr.as_mut_ptr()).rate_limit = 1000 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_qp_ex(
                qp.as_mut_ptr(),
                attr.as_mut_ptr(),
                rl | IBV_QP_STATE,
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(1);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_QP, (ex / 8) as u16, 1));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        assert_eq!(ib_uverbs_ex_modify_qp::from_bytes(&w[24..]).rate_limit, 1000);
        assert_eq!(resp, [1, 0, 0, 0, 8, 0, 0, 0]);
    }

    #[test]
    fn open_xrcd_and_open_qp() {
        let f = Fake::new();
        f.reply(Reply::write(&[0x21, 0, 0, 0]));
        let mut cmd = prov_cmd(8, 16, 0, &[]);
        let mut resp = [0u8; 4];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut xrcd: MaybeUninit<verbs_xrcd> = z();
        let mut attr = ibv_xrcd_init_attr {
            comp_mask: IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
            fd: -1,
            oflags: libc::O_CREAT,
        };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_open_xrcd(
                ctx.as_mut_ptr(),
                xrcd.as_mut_ptr(),
                size_of::<verbs_xrcd>() as c_int,
                &mut attr,
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                4,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_OPEN_XRCD, 6, 1));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20)), (u32::MAX, libc::O_CREAT as u32));
        unsafe {
            let x = &*xrcd.as_ptr();
            assert_eq!((x.handle, x.comp_mask, x.xrcd.context), (0x21, VERBS_XRCD_HANDLE, ctx.as_mut_ptr()));
        }

        // OPEN_QP into a verbs_qp of each PABI-34 generation: comp_mask and xrcd where that generation has them,
        // and only when the provider's size covers xrcd.
        let mut kresp = ib_uverbs_create_qp_resp::zeroed();
        kresp.qp_handle = 17;
        let (ctxp, xrcdp) = (ctx.as_mut_ptr(), xrcd.as_mut_ptr());
        let open = |g: Generation, qp: *mut u8, vqp_sz: usize| unsafe {
            f.reply(Reply::write(kresp.as_bytes()));
            let mut cmd = prov_cmd(8, size_of::<ib_uverbs_open_qp>(), 0xaa, &[]);
            let mut resp = [0u8; 32];
            let mut oa: MaybeUninit<ibv_qp_open_attr> = z();
            let o = oa.as_mut_ptr();
            (*o).comp_mask = 0xf;
            (*o).qp_num = 0x456;
            (*o).xrcd = xrcdp.cast();
            ffi::enum_store(addr_of_mut!((*o).qp_type), QPT_XRC_RECV);
            let rc = with_generation(g, || {
                with_fake(&f, || {
                    ibv_cmd_open_qp(
                        ctxp,
                        qp.cast(),
                        vqp_sz as c_int,
                        o,
                        cmd.as_mut_ptr().cast(),
                        cmd.len(),
                        resp.as_mut_ptr().cast(),
                        32,
                    )
                })
            });
            assert_eq!(rc, 0);
            let w = f.writes().last().unwrap().clone();
            let req = ib_uverbs_open_qp::from_bytes(&w[8..]);
            assert_eq!((req.pd_handle, req.qpn, req.qp_type), (0x21, 0x456, QPT_XRC_RECV as u8));
            assert_eq!(req.reserved, [0xaa; 7], "left as the provider wrote them, as rdma-core");
            let q = &*qp.cast::<ibv_qp>();
            assert_eq!((q.handle, q.qp_num), (17, 0x456));
            assert_eq!(ffi::enum_raw(addr_of!(q.state)), IBV_QPS_UNKNOWN);
        };
        let mut q44: MaybeUninit<r44::verbs_qp> = z();
        open(Generation::R44, q44.as_mut_ptr().cast(), size_of::<r44::verbs_qp>());
        unsafe {
            let q = &*q44.as_ptr();
            assert_eq!((q.comp_mask, q.xrcd), (VERBS_QP_XRCD, xrcdp));
        }
        // 8-aligned memory filled with 0x5a, and its bytes.
        let fill = || [0x5a5a_5a5a_5a5a_5a5au64; 48];
        let bytes = |q: &[u64; 48]| unsafe { slice::from_raw_parts(q.as_ptr().cast::<u8>(), 384).to_vec() };
        let mut q56 = fill();
        open(Generation::R56, q56.as_mut_ptr().cast(), size_of::<r56::verbs_qp>());
        unsafe {
            let q = &*q56.as_ptr().cast::<r56::verbs_qp>();
            assert_eq!((q.comp_mask, q.xrcd), (VERBS_QP_XRCD, xrcdp));
        }
        assert_eq!(bytes(&q56)[376..], [0x5a; 8], "nothing written past a 56 verbs_qp");
        assert_eq!(bytes(&q56)[352..360], [0x5a; 8], "rdma-core 56's wr_flush untouched");
        // A size that stops before xrcd: comp_mask 0, xrcd untouched.
        let mut q56 = fill();
        open(Generation::R56, q56.as_mut_ptr().cast(), 368);
        unsafe { assert_eq!((*q56.as_ptr().cast::<r56::verbs_qp>()).comp_mask, 0) };
        assert_eq!(bytes(&q56)[368..376], [0x5a; 8]);
    }

    #[test]
    fn post_send_layout_and_bad_wr() {
        let f = Fake::new();
        // The kernel names the second request and fails (a short count here: EIO).
        f.reply(Reply::Write { resp: vec![2, 0, 0, 0], accepted: Some(4) });
        let mut qp: MaybeUninit<ibv_qp> = z();
        unsafe {
            (*qp.as_mut_ptr()).handle = 5;
            ffi::enum_store(addr_of_mut!((*qp.as_mut_ptr()).qp_type), QPT_RC);
        }
        let mut sge = [ibv_sge { addr: 0x1000, length: 64, lkey: 7 }, ibv_sge { addr: 0x2000, length: 8, lkey: 9 }];
        let mut w2: MaybeUninit<ibv_send_wr> = z();
        let mut w1: MaybeUninit<ibv_send_wr> = z();
        unsafe {
            let a = w2.as_mut_ptr();
            (*a).wr_id = 2;
            (*a).num_sge = 1;
            (*a).sg_list = sge.as_mut_ptr().add(1);
            ffi::enum_store(addr_of_mut!((*a).opcode), ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD as u32);
            (*a).wr.atomic = ibv_send_wr_atomic { remote_addr: 0x8000, compare_add: 1, swap: 2, rkey: 3 };
            let b = w1.as_mut_ptr();
            (*b).wr_id = 1;
            (*b).num_sge = 1;
            (*b).sg_list = sge.as_mut_ptr();
            (*b).next = a;
            (*b).send_flags = 2;
            ffi::enum_store(addr_of_mut!((*b).opcode), ibv_wr_opcode::IBV_WR_RDMA_WRITE as u32);
            (*b).wr.rdma = ibv_send_wr_rdma { remote_addr: 0x9000, rkey: 4 };
        }
        let mut bad: *mut ibv_send_wr = ptr::null_mut();
        let rc = with_fake(&f, || unsafe { ibv_cmd_post_send(qp.as_mut_ptr(), w1.as_mut_ptr(), &mut bad) });
        assert_eq!(rc, libc::EIO);
        assert_eq!(bad, w2.as_mut_ptr(), "the kernel's bad_wr (1-based) names the second request");
        let w = f.write(0);
        let each = size_of::<ib_uverbs_send_wr>();
        assert_eq!(w.len(), 8 + 24 + 2 * each + 2 * 16);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_POST_SEND, (w.len() / 4) as u16, 1));
        let c = &w[8..];
        assert_eq!((u32_at(c, 8), u32_at(c, 12), u32_at(c, 16), u32_at(c, 20)), (5, 2, 2, each as u32));
        let r0 = &c[24..];
        assert_eq!((u64_at(r0, 0), u32_at(r0, 8), u32_at(r0, 16)), (1, 1, 2));
        assert_eq!((u64_at(r0, 24), u32_at(r0, 32)), (0x9000, 4));
        let r1 = &c[24 + each..];
        assert_eq!((u64_at(r1, 24), u64_at(r1, 32), u64_at(r1, 40), u32_at(r1, 48)), (0x8000, 1, 2, 3));
        let s = &c[24 + 2 * each..];
        assert_eq!((u64_at(s, 0), u32_at(s, 8), u64_at(s, 16)), (0x1000, 64, 0x2000));
    }

    #[test]
    fn create_query_destroy_qp_and_post_recv_marshal_as_the_kernel_expects() {
        let f = Fake::new();
        objects!(ctx, c, pd, cq, srq, qp, ch);
        // CREATE_QP (legacy), QUERY_QP, DESTROY_QP.
        let mut ia: MaybeUninit<ibv_qp_init_attr> = z();
        unsafe {
            let i = ia.as_mut_ptr();
            (*i).send_cq = cq.as_mut_ptr();
            (*i).recv_cq = cq.as_mut_ptr();
            (*i).cap.max_send_wr = 4;
            ffi::enum_store(addr_of_mut!((*i).qp_type), QPT_UC);
        }
        let mut q2: MaybeUninit<ibv_qp> = z();
        let mut cmd = prov_cmd(8, 56, 0x5a, &[3; 8]);
        let mut qresp = [0u8; 32];
        let w = run(&f, Reply::write(&[6, 0, 0, 0, 0x10, 0, 0, 0, 8, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_create_qp(
                &mut pd,
                q2.as_mut_ptr(),
                ia.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                72,
                qresp.as_mut_ptr().cast(),
                32,
            )
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_QP, 18, 8));
        let r = ib_uverbs_create_qp::from_bytes(&w[8..]);
        assert_eq!((r.pd_handle, r.send_cq_handle, r.qp_type, r.max_send_wr), (2, 3, QPT_UC as u8, 4));
        assert_eq!(&w[64..], &[3; 8]);
        unsafe {
            let q = &*q2.as_ptr();
            assert_eq!((q.handle, q.qp_num, q.pd, (*ia.as_ptr()).cap.max_send_wr), (6, 0x10, &mut pd as *mut _, 8));
        }
        let mut qa: MaybeUninit<ibv_qp_attr> = z();
        let mut qi: MaybeUninit<ibv_qp_init_attr> = z();
        let w = run(&f, Reply::write(ib_uverbs_query_qp_resp::zeroed().as_bytes()), &mut || unsafe {
            ibv_cmd_query_qp(qp.as_mut_ptr(), qa.as_mut_ptr(), 1, qi.as_mut_ptr(), ptr::null_mut(), 0)
        });
        assert_eq!((hdr(&w).0, u32_at(&w, 16), u32_at(&w, 20)), (IB_USER_VERBS_CMD_QUERY_QP, 5, 1));
        // DESTROY: the write command (a plug-in's fd carries write commands through write()).
        let w = run(&f, Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_destroy_qp(qp.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_DESTROY_QP, 5));

        // POST_RECV: header, one request, its SGE.
        let mut sge = ibv_sge { addr: 0x1000, length: 8, lkey: 1 };
        let mut rw = ibv_recv_wr { wr_id: 9, next: ptr::null_mut(), sg_list: &mut sge, num_sge: 1 };
        let mut bad: *mut ibv_recv_wr = ptr::null_mut();
        let w =
            run(&f, Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_post_recv(qp.as_mut_ptr(), &mut rw, &mut bad) });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_POST_RECV, ((8 + 24 + 16 + 16) / 4) as u16, 1));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20), u32_at(&w, 24), u32_at(&w, 28)), (5, 1, 1, 16));
        assert_eq!((u64_at(&w, 32), u32_at(&w, 40), u64_at(&w, 48)), (9, 1, 0x1000));
        let w = run(&f, Reply::write(&[0; 4]), &mut || unsafe {
            ibv_cmd_post_srq_recv(srq.as_mut_ptr(), &mut rw, &mut bad)
        });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_POST_SRQ_RECV, 4));
    }
}
