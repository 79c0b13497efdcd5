//! Queue pairs and shared receive queues of an id: `rdma_create_qp`, `rdma_create_qp_ex`, `rdma_destroy_qp`,
//! `rdma_init_qp_attr`, and `<rdma/rdma_verbs.h>`'s `rdma_create_srq`, `rdma_create_srq_ex`, `rdma_destroy_srq`.
//!
//! As rdma-core: the completion queues an id needs and was not given are created on the id's device, each with
//! its own completion channel (`id->send_cq_channel`, `id->recv_cq_channel`) and the id as `cq_context`; a new
//! connected QP is moved to INIT with the attributes the kernel's CM computes, a UD QP all the way to RTS (it needs
//! no peer). `rdma_accept` and the `CONNECT_RESPONSE` event take connected QPs further.
#![allow(unsafe_code)] // #[no_mangle] C entry points

use crate::kernel;
use crate::state::{self, CmId};
use crate::verbs::{self, QpAttr};
use rdma_common::abi::enums::*;
use rdma_common::abi::rdma_cma::{rdma_cm_id, RDMA_MAX_INIT_DEPTH, RDMA_MAX_RESP_RES, RDMA_UDP_QKEY};
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use rdma_common::uapi::rdma_user_cm::{rdma_ucm_conn_param, rdma_ucm_ece};
use rdma_common::uapi::FromBytes;
use std::ffi::{c_int, c_void};
use std::mem::{size_of, MaybeUninit};
use std::ptr::{addr_of, addr_of_mut, null_mut};
use std::sync::Arc;

/// `rdma_create_qp(3)`: creates the QP of `id` on `pd` (NULL: the device's default PD) with the attributes of
/// `qp_init_attr` (completion queues are created when it has none), stores it in `id->qp` and moves it to INIT (a
/// UD QP to RTS). `qp_init_attr` gets the capabilities obtained. Returns 0, or -1 with `errno` (`EINVAL` for a bad
/// id, NULL attributes, an id already with a QP or not on a device, a PD of another device, CQs conflicting with the
/// id's; the `ibv_create_qp` / `ibv_modify_qp` errno).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_qp(
    id: *mut rdma_cm_id,
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    ffi::boundary("rdma_create_qp", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let attr = ffi::nonnull(qp_init_attr)?;
        create_qp(&id, pd, attr.as_ptr())?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_create_qp_ex(3)`: as `rdma_create_qp`, with the extended attributes (`comp_mask`, `pd` (the id's PD when
/// absent), XRC, ...). Returns 0, or -1 with `errno` as `rdma_create_qp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_qp_ex(id: *mut rdma_cm_id, qp_init_attr: *mut ibv_qp_init_attr_ex) -> c_int {
    ffi::boundary("rdma_create_qp_ex", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let attr = ffi::nonnull(qp_init_attr)?;
        // SAFETY: a valid, writable ibv_qp_init_attr_ex (the C contract).
        unsafe { create_qp_ex(&id, attr.as_ptr()) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_destroy_qp(3)`: destroys the QP of `id` and the completion queues (and channels) created for it. NULL
/// and unknown ids are ignored. No return value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_qp(id: *mut rdma_cm_id) {
    let _ = ffi::boundary("rdma_destroy_qp", || -> Result<()> {
        destroy_qp(&*state::lookup_id(id)?);
        Ok(())
    });
}

/// `rdma_init_qp_attr(3)`: fills `*qp_attr` and `*qp_attr_mask` with what `ibv_modify_qp` needs to move an
/// externally created QP to the state `qp_attr->qp_state` that the connection of `id` allows. Returns 0, or -1
/// with `errno` (`EINVAL` for a bad id, NULL pointers, a state the connection does not allow yet).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_init_qp_attr(
    id: *mut rdma_cm_id,
    qp_attr: *mut ibv_qp_attr,
    qp_attr_mask: *mut c_int,
) -> c_int {
    ffi::boundary("rdma_init_qp_attr", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let qp_attr = ffi::nonnull(qp_attr)?.as_ptr();
        let mask_out = ffi::nonnull(qp_attr_mask)?;
        // SAFETY: a readable ibv_qp_attr; its state is read as the enum's integer.
        let qp_state = unsafe { ffi::enum_raw(addr_of!((*qp_attr).qp_state)) };
        let mut attr = QpAttr::with_state(qp_state);
        let mask = init_qp_attr(&id, &mut attr)?;
        // SAFETY: the caller's writable ibv_qp_attr (QpAttr has its layout) and mask.
        unsafe {
            let dst = &mut *qp_attr.cast::<QpAttr>();
            let rate_limit = dst.rate_limit;
            *dst = attr;
            dst.rate_limit = rate_limit;
            mask_out.as_ptr().write(mask);
        }
        Ok(0)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_create_qp, rdma_create_qp_ex, rdma_destroy_qp, rdma_init_qp_attr);

/// `rdma_create_srq(3)` (`<rdma/rdma_verbs.h>`): creates a shared receive queue for `id` on `pd` (NULL: the
/// device's default PD) with the attributes of `attr` (an XRC SRQ, with a CQ, for an `IBV_QPT_XRC_RECV` id), and
/// stores it in `id->srq`; the id's QP, created afterwards, uses it. `attr` gets the sizes obtained. Returns 0, or
/// -1 with `errno` (`EINVAL` for a bad id or NULL attributes; the `ibv_create_srq` errno).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_srq(id: *mut rdma_cm_id, pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> c_int {
    ffi::boundary("rdma_create_srq", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let attr = ffi::nonnull(attr)?.as_ptr();
        let mut ex = MaybeUninit::<ibv_srq_init_attr_ex>::zeroed();
        let p = ex.as_mut_ptr();
        let n = size_of::<ibv_srq_init_attr>();
        let srq_type =
            if id.qp_type() == IBV_QPT_XRC_RECV { ibv_srq_type::IBV_SRQT_XRC } else { ibv_srq_type::IBV_SRQT_BASIC };
        // SAFETY: `attr` is a readable/writable ibv_srq_init_attr, the prefix of ibv_srq_init_attr_ex; `ex` is ours.
        unsafe {
            std::ptr::copy_nonoverlapping(attr.cast::<u8>(), p.cast::<u8>(), n);
            addr_of_mut!((*p).comp_mask).write(
                ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_TYPE as u32
                    | ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_PD as u32,
            );
            addr_of_mut!((*p).srq_type).write(srq_type);
            addr_of_mut!((*p).pd).write(pd);
            let r = create_srq_ex(&id, p);
            std::ptr::copy_nonoverlapping(p.cast::<u8>(), attr.cast::<u8>(), n);
            r?;
        }
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_create_srq_ex(3)` (`<rdma/rdma_verbs.h>`): as `rdma_create_srq`, with the extended attributes
/// (`comp_mask` must include `IBV_SRQ_INIT_ATTR_TYPE`; `pd`, and for XRC `xrcd` and `cq`, default to the id's).
/// Returns 0, or -1 with `errno` (`EINVAL` for a bad id, NULL attributes or no type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_srq_ex(id: *mut rdma_cm_id, attr: *mut ibv_srq_init_attr_ex) -> c_int {
    ffi::boundary("rdma_create_srq_ex", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let attr = ffi::nonnull(attr)?;
        // SAFETY: a valid, writable ibv_srq_init_attr_ex (the C contract).
        unsafe { create_srq_ex(&id, attr.as_ptr()) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_destroy_srq(3)` (`<rdma/rdma_verbs.h>`): destroys the SRQ of `id` (and the completion queue created for
/// it). NULL and unknown ids are ignored. No return value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_srq(id: *mut rdma_cm_id) {
    let _ = ffi::boundary("rdma_destroy_srq", || -> Result<()> {
        destroy_srq(&*state::lookup_id(id)?);
        Ok(())
    });
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma::rdma_verbs;
    rdma_create_srq, rdma_create_srq_ex, rdma_destroy_srq);

// ---------------------------------------------------------------------------------------------------------------
// The library side.

fn set_field<T>(id: &CmId, f: impl FnOnce(*mut rdma_cm_id) -> *mut T, v: T) {
    // SAFETY: the id's public struct; `f` selects one of its fields.
    unsafe { f(id.c()).write(v) }
}

fn get_field<T>(id: &CmId, f: impl FnOnce(*mut rdma_cm_id) -> *mut T) -> T {
    // SAFETY: as above.
    unsafe { f(id.c()).read() }
}

fn send_cq(id: &CmId) -> *mut ibv_cq {
    get_field(id, |c| unsafe { addr_of_mut!((*c).send_cq) })
}
fn recv_cq(id: &CmId) -> *mut ibv_cq {
    get_field(id, |c| unsafe { addr_of_mut!((*c).recv_cq) })
}

/// `ucma_destroy_cqs`: the CQs and completion channels created for the id (not for an XRC receive id with an SRQ,
/// whose CQ belongs to the SRQ).
fn destroy_cqs(id: &CmId) {
    if id.qp_type() == IBV_QPT_XRC_RECV && !id.srq().is_null() {
        return;
    }
    // SAFETY: the id's public struct; the CQs and channels are ours (created by create_cqs) or NULL.
    unsafe {
        let c = id.c();
        let rcq = addr_of!((*c).recv_cq).read();
        let scq = addr_of!((*c).send_cq).read();
        if !rcq.is_null() {
            ibv_destroy_cq(rcq);
        }
        if !scq.is_null() && scq != rcq {
            ibv_destroy_cq(scq);
        }
        addr_of_mut!((*c).recv_cq).write(null_mut());
        addr_of_mut!((*c).send_cq).write(null_mut());
        let rch = addr_of!((*c).recv_cq_channel).read();
        let sch = addr_of!((*c).send_cq_channel).read();
        if !rch.is_null() {
            ibv_destroy_comp_channel(rch);
        }
        if !sch.is_null() && sch != rch {
            ibv_destroy_comp_channel(sch);
        }
        addr_of_mut!((*c).recv_cq_channel).write(null_mut());
        addr_of_mut!((*c).send_cq_channel).write(null_mut());
    }
}

/// `ucma_create_cqs`: a completion channel and a CQ of `recv_size` (`send_size`) entries for the receive (send)
/// side, when the size is not 0; `cq_context` is the id. On failure, what was created is destroyed.
fn create_cqs(id: &CmId, send_size: u32, recv_size: u32) -> Result<()> {
    let ctx = id.verbs();
    let r = (|| {
        for (size, recv) in [(recv_size, true), (send_size, false)] {
            if size == 0 {
                continue;
            }
            // SAFETY: `ctx` is the id's open context.
            let ch = verbs::ptr(unsafe { ibv_create_comp_channel(ctx) })?;
            if recv {
                set_field(id, |c| unsafe { addr_of_mut!((*c).recv_cq_channel) }, ch);
            } else {
                set_field(id, |c| unsafe { addr_of_mut!((*c).send_cq_channel) }, ch);
            }
            // SAFETY: as above; the id (its public struct) is the CQ's context.
            let cq = verbs::ptr(unsafe { ibv_create_cq(ctx, size as c_int, id.c().cast::<c_void>(), ch, 0) })?;
            if recv {
                set_field(id, |c| unsafe { addr_of_mut!((*c).recv_cq) }, cq);
            } else {
                set_field(id, |c| unsafe { addr_of_mut!((*c).send_cq) }, cq);
            }
        }
        Ok(())
    })();
    if r.is_err() {
        destroy_cqs(id);
    }
    r
}

/// `rdma_create_qp` on a live id: `attr` (an `ibv_qp_init_attr`) goes through [`create_qp_ex`] with `pd` (or the
/// id's) and comes back with the capabilities obtained.
pub(crate) fn create_qp(id: &Arc<CmId>, pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> Result<()> {
    let mut ex = MaybeUninit::<ibv_qp_init_attr_ex>::zeroed();
    let p = ex.as_mut_ptr();
    let n = size_of::<ibv_qp_init_attr>();
    // SAFETY: `attr` is a readable/writable ibv_qp_init_attr, the prefix of ibv_qp_init_attr_ex; `ex` is ours and
    // only used through raw pointers.
    unsafe {
        std::ptr::copy_nonoverlapping(attr.cast::<u8>(), p.cast::<u8>(), n);
        addr_of_mut!((*p).comp_mask).write(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_PD as u32);
        addr_of_mut!((*p).pd).write(if pd.is_null() { id.pd() } else { pd });
        let r = create_qp_ex(id, p);
        std::ptr::copy_nonoverlapping(p.cast::<u8>(), attr.cast::<u8>(), n);
        r
    }
}

/// `rdma_create_qp_ex` on a live id.
///
/// # Safety
/// `attr` is a valid, writable `ibv_qp_init_attr_ex`.
pub(crate) unsafe fn create_qp_ex(id: &Arc<CmId>, attr: *mut ibv_qp_init_attr_ex) -> Result<()> {
    use ibv_qp_init_attr_mask::*;
    if !id.qp().is_null() || id.verbs().is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's contract; fields are read and written through the raw pointer.
    unsafe {
        let mask = addr_of_mut!((*attr).comp_mask);
        let apd = addr_of_mut!((*attr).pd);
        if mask.read() & IBV_QP_INIT_ATTR_PD as u32 == 0 || apd.read().is_null() {
            mask.write(mask.read() | IBV_QP_INIT_ATTR_PD as u32);
            apd.write(id.pd());
        } else if addr_of!((*apd.read()).context).read() != id.verbs() {
            return Err(Errno::EINVAL);
        }
        if apd.read().is_null() {
            return Err(Errno::EINVAL);
        }
        let a_send = addr_of_mut!((*attr).send_cq);
        let a_recv = addr_of_mut!((*attr).recv_cq);
        let (id_send, id_recv) = (send_cq(id), recv_cq(id));
        if (!id_recv.is_null() && !a_recv.read().is_null() && id_recv != a_recv.read())
            || (!id_send.is_null() && !a_send.read().is_null() && id_send != a_send.read())
        {
            return Err(Errno::EINVAL);
        }
        if id.qp_type() == IBV_QPT_XRC_RECV {
            let xrcd = addr_of_mut!((*attr).xrcd);
            if mask.read() & IBV_QP_INIT_ATTR_XRCD as u32 == 0 || xrcd.read().is_null() {
                xrcd.write(state::get_xrcd(id.dev())?);
                mask.write(mask.read() | IBV_QP_INIT_ATTR_XRCD as u32);
            }
        }
        let cap = addr_of!((*attr).cap).read();
        let send_size = if !a_send.read().is_null() || !id_send.is_null() { 0 } else { cap.max_send_wr };
        let recv_size = if !a_recv.read().is_null() || !id_recv.is_null() { 0 } else { cap.max_recv_wr };
        create_cqs(id, send_size, recv_size)?;
        if a_send.read().is_null() {
            a_send.write(send_cq(id));
        }
        if a_recv.read().is_null() {
            a_recv.write(recv_cq(id));
        }
        let asrq = addr_of_mut!((*attr).srq);
        if !id.srq().is_null() && asrq.read().is_null() {
            asrq.write(id.srq());
        }
        let qp = match verbs::create_qp_ex(id.verbs(), attr) {
            Ok(qp) => qp,
            Err(e) => {
                destroy_cqs(id);
                return Err(e);
            }
        };
        let r = (|| {
            init_ece(id, qp)?;
            if id.is_ud() {
                init_ud_qp(id, qp)?;
            } else {
                init_conn_qp(id, qp)?;
            }
            set_local_ece(id, qp)
        })();
        if let Err(e) = r {
            ibv_destroy_qp(qp);
            destroy_cqs(id);
            return Err(e);
        }
        id.set_pd(addr_of!((*qp).pd).read());
        id.set_qp(qp);
    }
    Ok(())
}

/// `rdma_destroy_qp` on a live id.
pub(crate) fn destroy_qp(id: &CmId) {
    let qp = id.qp();
    if !qp.is_null() {
        // SAFETY: the id's QP, not used by us afterwards.
        unsafe { ibv_destroy_qp(qp) };
    }
    id.set_qp(null_mut());
    destroy_cqs(id);
}

/// `init_ece`: records the QP's ECE as ours; for a QP made for a connect request, answers the peer's options.
fn init_ece(id: &CmId, qp: *mut ibv_qp) -> Result<()> {
    // SAFETY: `qp` is live.
    let ece = unsafe { verbs::query_ece(qp) }?;
    let (vid, opts) = ece.map_or((0, 0), |e| (e.vendor_id, e.options));
    let remote = {
        let mut st = id.st.lock();
        st.local_ece = (vid, opts);
        st.remote_ece
    };
    if remote.0 == 0 {
        return Ok(());
    }
    let (v, o) = if remote.0 != vid { (vid, 0) } else { remote };
    // SAFETY: as above.
    unsafe { verbs::set_ece(qp, v, o) }
}

/// `set_local_ece`: after the QP is set up for a connect request, the options it accepted.
fn set_local_ece(id: &CmId, qp: *mut ibv_qp) -> Result<()> {
    if id.st.lock().remote_ece.0 == 0 {
        return Ok(());
    }
    // SAFETY: `qp` is live.
    if let Some(e) = unsafe { verbs::query_ece(qp) }? {
        id.st.lock().local_ece.1 = e.options;
    }
    Ok(())
}

/// The P_Key index of the id's P_Key (ABI 3, where the kernel has no INIT_QP_ATTR).
fn pkey_index(id: &CmId) -> Result<u16> {
    // SAFETY: the id's public struct and open context.
    let r = unsafe {
        let pkey = addr_of!((*id.c()).route.addr.addr.ibaddr.pkey).read();
        ibv_get_pkey_index(id.verbs(), id.port_num(), pkey)
    };
    if r < 0 {
        return Err(Errno::EINVAL);
    }
    Ok(r as u16)
}

/// `ucma_init_conn_qp`: a connected QP to INIT.
fn init_conn_qp(id: &CmId, qp: *mut ibv_qp) -> Result<()> {
    use ibv_qp_attr_mask::*;
    if state::abi_version() == 3 {
        let mut a = QpAttr::with_state(IBV_QPS_INIT);
        a.pkey_index = pkey_index(id)?;
        a.port_num = id.port_num();
        let mask =
            IBV_QP_STATE as c_int | IBV_QP_ACCESS_FLAGS as c_int | IBV_QP_PKEY_INDEX as c_int | IBV_QP_PORT as c_int;
        // SAFETY: `qp` is live.
        return unsafe { verbs::modify_qp(qp, &mut a, mask) };
    }
    let mut a = QpAttr::with_state(IBV_QPS_INIT);
    let mask = init_qp_attr(id, &mut a)?;
    // SAFETY: as above.
    unsafe { verbs::modify_qp(qp, &mut a, mask) }
}

/// `ucma_init_ud_qp`: a UD QP to INIT (the CM's attributes: port, P_Key, Q_Key), RTR and RTS (send PSN 0).
fn init_ud_qp(id: &CmId, qp: *mut ibv_qp) -> Result<()> {
    use ibv_qp_attr_mask::*;
    let mut a = QpAttr::with_state(IBV_QPS_INIT);
    let mask = if state::abi_version() == 3 {
        a.pkey_index = pkey_index(id)?;
        a.port_num = id.port_num();
        a.qkey = RDMA_UDP_QKEY as u32;
        IBV_QP_STATE as c_int | IBV_QP_QKEY as c_int | IBV_QP_PKEY_INDEX as c_int | IBV_QP_PORT as c_int
    } else {
        init_qp_attr(id, &mut a)?
    };
    // SAFETY: `qp` is live.
    unsafe {
        verbs::modify_qp(qp, &mut a, mask)?;
        a.qp_state = IBV_QPS_RTR;
        verbs::modify_qp(qp, &mut a, IBV_QP_STATE as c_int)?;
        a.qp_state = IBV_QPS_RTS;
        a.sq_psn = 0;
        verbs::modify_qp(qp, &mut a, IBV_QP_STATE as c_int | IBV_QP_SQ_PSN as c_int)
    }
}

/// `rdma_create_srq_ex` on a live id.
///
/// # Safety
/// `attr` is a valid, writable `ibv_srq_init_attr_ex`.
pub(crate) unsafe fn create_srq_ex(id: &Arc<CmId>, attr: *mut ibv_srq_init_attr_ex) -> Result<()> {
    use ibv_srq_init_attr_mask::*;
    if id.verbs().is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's contract; fields are read and written through the raw pointer.
    unsafe {
        let mask = addr_of_mut!((*attr).comp_mask);
        if mask.read() & IBV_SRQ_INIT_ATTR_TYPE as u32 == 0 {
            return Err(Errno::EINVAL);
        }
        let apd = addr_of_mut!((*attr).pd);
        if mask.read() & IBV_SRQ_INIT_ATTR_PD as u32 == 0 || apd.read().is_null() {
            apd.write(id.pd());
            mask.write(mask.read() | IBV_SRQ_INIT_ATTR_PD as u32);
        }
        if ffi::enum_raw(addr_of!((*attr).srq_type)) == IBV_SRQT_XRC {
            let xrcd = addr_of_mut!((*attr).xrcd);
            if mask.read() & IBV_SRQ_INIT_ATTR_XRCD as u32 == 0 || xrcd.read().is_null() {
                xrcd.write(state::get_xrcd(id.dev())?);
            }
            let cq = addr_of_mut!((*attr).cq);
            if mask.read() & IBV_SRQ_INIT_ATTR_CQ as u32 == 0 || cq.read().is_null() {
                create_cqs(id, 0, addr_of!((*attr).attr.max_wr).read())?;
                cq.write(recv_cq(id));
            }
            mask.write(mask.read() | IBV_SRQ_INIT_ATTR_XRCD as u32 | IBV_SRQ_INIT_ATTR_CQ as u32);
        }
        let srq = match verbs::create_srq_ex(id.verbs(), attr) {
            Ok(s) => s,
            Err(e) => {
                destroy_cqs(id);
                return Err(e);
            }
        };
        if id.pd().is_null() {
            id.set_pd(apd.read());
        }
        id.set_srq(srq);
    }
    Ok(())
}

/// `rdma_destroy_srq` on a live id.
pub(crate) fn destroy_srq(id: &CmId) {
    let srq = id.srq();
    if !srq.is_null() {
        // SAFETY: the id's SRQ, not used by us afterwards.
        unsafe { ibv_destroy_srq(srq) };
    }
    id.set_srq(null_mut());
    destroy_cqs(id);
}

/// `rdma_init_qp_attr` on a live id: fills `attr` (keeping `attr.qp_state`) and returns the mask.
pub(crate) fn init_qp_attr(id: &CmId, attr: &mut QpAttr) -> Result<c_int> {
    let k = kernel::conn::init_qp_attr(&id.channel().fd(), id.handle(), attr.qp_state)?;
    attr.copy_from_kern(&k);
    Ok(k.qp_attr_mask as c_int)
}

/// `ucma_modify_qp_rtr`: INIT (to pick up the CM's attributes) then RTR, with `resp_res` unless 255.
pub(crate) fn modify_qp_rtr(id: &CmId, resp_res: u8) -> Result<()> {
    let qp = id.qp();
    if qp.is_null() {
        return Ok(());
    }
    let mut attr = QpAttr::with_state(IBV_QPS_INIT);
    let mask = init_qp_attr(id, &mut attr)?;
    // SAFETY: the id's live QP.
    unsafe { verbs::modify_qp(qp, &mut attr, mask) }?;
    attr.qp_state = IBV_QPS_RTR;
    let mut mask = init_qp_attr(id, &mut attr)?;
    // rdma-core's workaround for a kernel bug: on InfiniBand ports, drop mask bits 21-24 (RoCE only).
    let port = id.port_num();
    let ll = match id.dev() {
        d if d.is_null() => 0,
        d => state::with_device(d, |d| d.link_layer.get((port as usize).wrapping_sub(1)).copied().unwrap_or(0)),
    };
    if ll == IBV_LINK_LAYER_INFINIBAND {
        mask &= !0x00e0_0000;
    }
    if resp_res as c_int != RDMA_MAX_RESP_RES {
        attr.max_dest_rd_atomic = resp_res;
    }
    // SAFETY: as above.
    unsafe { verbs::modify_qp(qp, &mut attr, mask) }
}

/// `ucma_modify_qp_rts`: RTS with the CM's attributes, with `init_depth` unless 255.
pub(crate) fn modify_qp_rts(id: &CmId, init_depth: u8) -> Result<()> {
    let qp = id.qp();
    if qp.is_null() {
        return Ok(());
    }
    let mut attr = QpAttr::with_state(IBV_QPS_RTS);
    let mask = init_qp_attr(id, &mut attr)?;
    if init_depth as c_int != RDMA_MAX_INIT_DEPTH {
        attr.max_rd_atomic = init_depth;
    }
    // SAFETY: the id's live QP.
    unsafe { verbs::modify_qp(qp, &mut attr, mask) }
}

fn modify_qp_state(id: &CmId, state: ibv_qp_state) -> Result<()> {
    let qp = id.qp();
    if qp.is_null() {
        return Ok(());
    }
    let mut attr = QpAttr::with_state(state as u32);
    // SAFETY: the id's live QP.
    unsafe { verbs::modify_qp(qp, &mut attr, ibv_qp_attr_mask::IBV_QP_STATE as c_int) }
}

/// `ucma_modify_qp_err`.
pub(crate) fn modify_qp_err(id: &CmId) -> Result<()> {
    modify_qp_state(id, ibv_qp_state::IBV_QPS_ERR)
}

/// `ucma_modify_qp_sqd`.
pub(crate) fn modify_qp_sqd(id: &CmId) -> Result<()> {
    modify_qp_state(id, ibv_qp_state::IBV_QPS_SQD)
}

/// `ucma_process_conn_resp`: the active side's QP to RTR and RTS, then the kernel's "establish" (ACCEPT without
/// parameters, which sends the RTU). On failure the QP goes to the error state.
pub(crate) fn process_conn_resp(id: &CmId) -> Result<()> {
    let r = (|| {
        modify_qp_rtr(id, RDMA_MAX_RESP_RES as u8)?;
        modify_qp_rts(id, RDMA_MAX_INIT_DEPTH as u8)?;
        kernel::conn::accept(&id.channel().fd(), id.handle(), 0, &rdma_ucm_conn_param::zeroed(), rdma_ucm_ece::zeroed())
    })();
    if r.is_err() {
        let _ = modify_qp_err(id);
    }
    r
}

/// `ucma_process_conn_resp_ece`: applies the peer's ECE answer to the QP, then [`process_conn_resp`].
pub(crate) fn process_conn_resp_ece(id: &CmId, vendor_id: u32, attr_mod: u32) -> Result<()> {
    let local = id.st.lock().local_ece;
    let (v, o) = if vendor_id == 0 {
        (local.0, 0)
    } else if vendor_id != local.0 {
        let _ = modify_qp_err(id);
        return Err(Errno::EINVAL);
    } else {
        (vendor_id, attr_mod)
    };
    id.st.lock().remote_ece.0 = vendor_id;
    let qp = id.qp();
    // SAFETY: the id's live QP.
    unsafe { verbs::set_ece(qp, v, o) }?;
    process_conn_resp(id)?;
    // SAFETY: as above.
    match unsafe { verbs::query_ece(qp) } {
        Ok(e) => {
            id.st.lock().local_ece.1 = e.map_or(0, |e| e.options);
            Ok(())
        }
        Err(e) => {
            let _ = modify_qp_err(id);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments() {
        // SAFETY: NULL and foreign pointers are rejected before any dereference.
        unsafe {
            let mut junk = [0u64; 64];
            let p = junk.as_mut_ptr().cast::<rdma_cm_id>();
            for r in [
                rdma_create_qp(p, null_mut(), null_mut()),
                rdma_create_qp_ex(null_mut(), null_mut()),
                rdma_init_qp_attr(p, null_mut(), null_mut()),
                rdma_create_srq(p, null_mut(), null_mut()),
                rdma_create_srq_ex(p, null_mut()),
            ] {
                assert_eq!(r, -1);
                assert_eq!(Errno::last(), Errno::EINVAL);
            }
            rdma_destroy_qp(p);
            rdma_destroy_srq(null_mut());
        }
    }
}
