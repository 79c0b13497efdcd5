//! Connections: `rdma_connect`, `rdma_establish`, `rdma_listen`, `rdma_get_request`, `rdma_accept`, `rdma_reject`,
//! `rdma_notify`, `rdma_disconnect`; and the QP state changes the connection manager drives (rdma-core's
//! `ucma_modify_qp_rtr/rts/err/sqd`, with the attributes the kernel's INIT_QP_ATTR computes).
#![allow(unsafe_code)] // #[no_mangle] C entry points

use super::event::{complete, next_event_cancellable, sync_entry};
use super::handout::{ack, id_of, kind_status};
use super::qp::{modify_qp_err, modify_qp_rtr, modify_qp_rts, modify_qp_sqd, process_conn_resp};
use super::query::{query_addr, query_route};
use crate::kernel;
use crate::state::{self, CmId, TRANSPORT_IB, TRANSPORT_IWARP};
use rdma_common::abi::enums::RDMA_PS_TCP;
use rdma_common::abi::rdma_cma::rdma_cm_event_type::*;
use rdma_common::abi::rdma_cma::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use rdma_common::uapi::rdma_user_cm::{rdma_ucm_conn_param, rdma_ucm_ece};
use std::ffi::{c_int, c_uint, c_void};
use std::os::fd::{AsRawFd, RawFd};
use std::ptr::{addr_of, null_mut};
use std::sync::Arc;

/// `rdma_connect(3)`: on a connected id whose route is resolved, sends a connection request with the parameters
/// and private data of `conn_param` (optional with a QP on the id: retry counts 7); on a UD id, looks up the remote
/// QP. Completion is reported by `RDMA_CM_EVENT_ESTABLISHED` (or `_CONNECT_RESPONSE` without a QP, `_REJECTED`,
/// `_UNREACHABLE`, `_CONNECT_ERROR`); a synchronous id waits for it. Returns 0, or -1 with `errno` (`EINVAL` for a
/// bad id, `conn_param` missing without a QP, depths beyond the device's, private data too long; `ECONNREFUSED`
/// when a synchronous id is rejected).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_connect(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int {
    sync_entry("rdma_connect", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // SAFETY: a non-NULL `conn_param` is a readable struct of integers and a pointer.
        let param = unsafe { read_param(conn_param) };
        // SAFETY: its private data is readable for its stated length (the C contract).
        unsafe { connect(&id, param.as_ref()) }?;
        Ok(0)
    })
}

/// `rdma_establish(3)`: completes an active connection on an id without a QP, after its
/// `RDMA_CM_EVENT_CONNECT_RESPONSE` (the application moved its own QP to RTR/RTS). Returns 0, or -1 with `errno`
/// (`EINVAL` for a bad id or one with a QP).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_establish(id: *mut rdma_cm_id) -> c_int {
    ffi::boundary("rdma_establish", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        if !id.qp().is_null() {
            return Err(Errno::EINVAL);
        }
        process_conn_resp(&id)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_listen(3)`: starts listening for connection requests (or UD service lookups) on the bound address of `id`,
/// with at most `backlog` pending requests (0 or negative: the kernel's maximum). Returns 0, or -1 with `errno`
/// (`EINVAL` for a bad id, the kernel's `EADDRINUSE`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_listen(id: *mut rdma_cm_id, backlog: c_int) -> c_int {
    ffi::boundary("rdma_listen", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        kernel::conn::listen(&id.channel().fd(), id.handle(), backlog as u32)?;
        if state::af_ib_support() {
            query_addr(&id)?;
        } else {
            query_route(&id)?;
        }
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_get_request(3)`: on a synchronous listening id, waits for the next connection request and stores its new
/// id in `*id` (with a QP if `rdma_create_ep` was given QP attributes); the request's event is the new id's
/// `id->event` until the id's next call. Returns 0, or -1 with `errno` (`EINVAL` for a bad or asynchronous id or
/// another event; `ECONNREFUSED` for a reject).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_get_request(listen: *mut rdma_cm_id, id: *mut *mut rdma_cm_id) -> c_int {
    const NAME: &str = "rdma_get_request";
    // The wait runs outside the boundaries, from this frame holding plain values only: a thread waiting in it may be
    // cancelled (rdma_common::ffi's notes on thread cancellation).
    let fd = ffi::boundary(NAME, || -> Result<RawFd> {
        ffi::nonnull(id)?;
        get_request_start(&state::lookup_id(listen)?)
    });
    fd.and_then(|fd| next_event_cancellable(NAME, fd, || Ok(state::lookup_id(listen)?.channel())))
        .and_then(|ev| ffi::boundary(NAME, || get_request_finish(listen, ev)))
        .map(|new| {
            // SAFETY: the caller's writable out-parameter, checked non-NULL above.
            unsafe { id.write(new) };
            0
        })
        .or_minus_one_errno()
}

/// `rdma_accept(3)`: accepts the connection request of `id` (the id of an `RDMA_CM_EVENT_CONNECT_REQUEST`), with
/// the parameters and private data of `conn_param` (optional with a QP). A connected id's QP is moved to RTR and
/// RTS first; a synchronous id waits for `ESTABLISHED`. Returns 0, or -1 with `errno` (`EINVAL` for a bad id, bad
/// depths, too much private data; the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_accept(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int {
    sync_entry("rdma_accept", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // SAFETY: as in rdma_connect.
        let param = unsafe { read_param(conn_param) };
        // SAFETY: as in rdma_connect.
        unsafe { accept(&id, param.as_ref()) }?;
        Ok(0)
    })
}

/// `rdma_reject(3)`: rejects the connection request of `id`, sending `private_data_len` bytes of `private_data`
/// (optional) with the reject. Returns 0, or -1 with `errno` (`EINVAL` for a bad id, more private data than the
/// transport carries).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reject(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int {
    ffi::boundary("rdma_reject", || -> Result<c_int> {
        // SAFETY: `private_data` is readable for its length (the C contract).
        unsafe { reject(id, private_data, private_data_len, 0) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_notify(3)`: reports the QP asynchronous event `event` of the id's QP to the connection manager; only
/// `IBV_EVENT_COMM_EST` matters (data arrived before the connection was established). Returns 0, or -1 with
/// `errno` (`EINVAL` for a bad id).
///
/// `event` is the enum's integer (the C prototype says `enum ibv_event_type`, same ABI), so any number is safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_notify(id: *mut rdma_cm_id, event: c_uint) -> c_int {
    ffi::boundary("rdma_notify", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        kernel::id::notify(&id.channel().fd(), id.handle(), event)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_disconnect(3)`: moves the id's QP to the error state (SQD on iWARP) and disconnects; both sides get
/// `RDMA_CM_EVENT_DISCONNECTED` (a synchronous id waits for its own). Returns 0, or -1 with `errno` (`EINVAL` for a
/// bad id or one not on a device; the kernel's `EINVAL` when not connected).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_disconnect(id: *mut rdma_cm_id) -> c_int {
    sync_entry("rdma_disconnect", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        match id.transport() {
            Some(TRANSPORT_IB) => modify_qp_err(&id)?,
            Some(TRANSPORT_IWARP) => modify_qp_sqd(&id)?,
            _ => return Err(Errno::EINVAL),
        }
        kernel::conn::disconnect(&id.channel().fd(), id.handle())?;
        complete(&id)?;
        Ok(0)
    })
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_connect, rdma_establish, rdma_listen, rdma_get_request, rdma_accept, rdma_reject, rdma_notify,
    rdma_disconnect);

// ---------------------------------------------------------------------------------------------------------------
// The library side.

/// A copy of the caller's `rdma_conn_param` (None for NULL).
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn read_param(p: *const rdma_conn_param) -> Option<rdma_conn_param> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller's contract; the struct is integers and a pointer, any bytes are valid.
        Some(unsafe { p.read() })
    }
}

/// `reject_with_reason` (`rdma_reject`, `rdma_reject_ece`).
///
/// # Safety
/// `private_data` is NULL or readable for `len` bytes.
pub(crate) unsafe fn reject(id: *mut rdma_cm_id, private_data: *const c_void, len: u8, reason: u8) -> Result<()> {
    let id = state::lookup_id(id)?;
    // SAFETY: the caller's contract.
    let data = unsafe { super::bytes(private_data, len as usize) };
    kernel::conn::reject(&id.channel().fd(), id.handle(), reason, data)
}

/// The device limits of the id's device: (max initiator depth, max responder resources). `EINVAL` when the id is
/// on no device yet.
fn dev_limits(id: &CmId) -> Result<(u8, u8)> {
    let d = id.dev();
    if d.is_null() {
        return Err(Errno::EINVAL);
    }
    Ok(state::with_device(d, |d| (d.max_initiator_depth(), d.max_responder_resources())))
}

/// `ucma_valid_param`: on `RDMA_PS_TCP`, parameters are required without a QP, and depths must be within the
/// device's (255 meaning "the device's maximum").
fn valid_param(id: &CmId, param: Option<&rdma_conn_param>) -> Result<()> {
    if id.ps() != RDMA_PS_TCP {
        return Ok(());
    }
    let Some(p) = param else {
        return if id.qp().is_null() { Err(Errno::EINVAL) } else { Ok(()) };
    };
    let (max_init, max_resp) = dev_limits(id)?;
    if (p.responder_resources as c_int != RDMA_MAX_RESP_RES && p.responder_resources > max_resp)
        || (p.initiator_depth as c_int != RDMA_MAX_INIT_DEPTH && p.initiator_depth > max_init)
    {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// `ucma_copy_conn_param_to_kern`: the kernel's parameters, with the `rdma_getaddrinfo` connect data in front of
/// the caller's private data. Errors: `EINVAL` when the two exceed the kernel's 256 bytes.
///
/// # Safety
/// `src`'s private data is readable for its stated length.
unsafe fn conn_param_to_kern(
    id: &CmId,
    src: Option<&rdma_conn_param>,
    qp_num: u32,
    srq: u8,
) -> Result<rdma_ucm_conn_param> {
    let st = id.st.lock();
    let mut data = st.connect.clone();
    if let Some(p) = src {
        // SAFETY: the caller's contract.
        data.extend_from_slice(unsafe { super::bytes(p.private_data, p.private_data_len as usize) });
    }
    let mut k = kernel::conn::conn_param(&data)?;
    k.qp_num = qp_num;
    k.srq = srq;
    k.responder_resources = st.responder_resources;
    k.initiator_depth = st.initiator_depth;
    k.valid = 1;
    match src {
        Some(p) => {
            k.flow_control = p.flow_control;
            k.retry_count = p.retry_count;
            k.rnr_retry_count = p.rnr_retry_count;
        }
        None => {
            k.retry_count = 7;
            k.rnr_retry_count = 7;
        }
    }
    Ok(k)
}

/// The id's QP number and whether it uses an SRQ.
fn qp_num_srq(id: &CmId) -> Option<(u32, u8)> {
    let qp = id.qp();
    if qp.is_null() {
        return None;
    }
    // SAFETY: the id's live QP.
    unsafe { Some((addr_of!((*qp).qp_num).read(), u8::from(!addr_of!((*qp).srq).read().is_null()))) }
}

/// `rdma_connect` on a live id.
///
/// # Safety
/// `param`'s private data is readable for its stated length.
pub(crate) unsafe fn connect(id: &Arc<CmId>, param: Option<&rdma_conn_param>) -> Result<()> {
    valid_param(id, param)?;
    let (max_init, max_resp) = dev_limits(id)?;
    {
        let mut st = id.st.lock();
        st.initiator_depth = match param {
            Some(p) if p.initiator_depth as c_int != RDMA_MAX_INIT_DEPTH => p.initiator_depth,
            _ => max_init,
        };
        st.responder_resources = match param {
            Some(p) if p.responder_resources as c_int != RDMA_MAX_RESP_RES => p.responder_resources,
            _ => max_resp,
        };
    }
    let (qp_num, srq) = qp_num_srq(id).unwrap_or(param.map_or((0, 0), |p| (p.qp_num, p.srq)));
    // SAFETY: the caller's contract.
    let k = unsafe { conn_param_to_kern(id, param, qp_num, srq) }?;
    let (vendor_id, attr_mod) = id.st.lock().local_ece;
    kernel::conn::connect(&id.channel().fd(), id.handle(), &k, rdma_ucm_ece { vendor_id, attr_mod })?;
    id.st.lock().connect.clear();
    complete(id)
}

/// `rdma_accept` on a live id.
///
/// # Safety
/// `param`'s private data is readable for its stated length.
pub(crate) unsafe fn accept(id: &Arc<CmId>, param: Option<&rdma_conn_param>) -> Result<()> {
    let (qp_num, srq) = qp_num_srq(id).unwrap_or(param.map_or((0, 0), |p| (p.qp_num, p.srq)));
    valid_param(id, param)?;
    let (max_init, max_resp) = dev_limits(id)?;
    let (init_depth, resp_res) = {
        let mut st = id.st.lock();
        st.initiator_depth = match param {
            Some(p) if p.initiator_depth as c_int != RDMA_MAX_INIT_DEPTH => p.initiator_depth,
            _ => st.initiator_depth.min(max_init),
        };
        st.responder_resources = match param {
            Some(p) if p.responder_resources as c_int != RDMA_MAX_RESP_RES => p.responder_resources,
            _ => st.responder_resources.min(max_resp),
        };
        (st.initiator_depth, st.responder_resources)
    };
    if !id.is_ud() {
        modify_qp_rtr(id, resp_res)?;
        modify_qp_rts(id, init_depth)?;
    }
    // SAFETY: the caller's contract.
    let k = unsafe { conn_param_to_kern(id, param, qp_num, srq) }?;
    let ece = {
        let st = id.st.lock();
        rdma_ucm_ece { vendor_id: st.remote_ece.0, attr_mod: st.local_ece.1 }
    };
    if let Err(e) = kernel::conn::accept(&id.channel().fd(), id.handle(), id.uid(), &k, ece) {
        let _ = modify_qp_err(id);
        return Err(e);
    }
    if id.is_ud() {
        // rdma-core 56.1 and later: a synchronous UD accept waits for nothing, but releases the connect request
        // still held in `id->event` (it counts against the listener, whose `rdma_destroy_id` would wait for it).
        if id.is_sync() {
            let ev = id.event();
            if !ev.is_null() {
                id.set_event(null_mut());
                let _ = ack(ev);
            }
        }
        return Ok(());
    }
    complete(id)
}

/// The first half of `rdma_get_request` on a live listening id: checks that it is synchronous and releases its
/// previous event; returns the descriptor of its channel, to wait on.
pub(crate) fn get_request_start(listen: &Arc<CmId>) -> Result<RawFd> {
    if !listen.is_sync() {
        return Err(Errno::EINVAL);
    }
    let prev = listen.event();
    if !prev.is_null() {
        listen.set_event(null_mut());
        let _ = ack(prev);
    }
    Ok(listen.channel().fd().as_raw_fd())
}

/// The second half of `rdma_get_request`, with the event `ev` of the listener `listen_c`: the new id, whose `event`
/// is the request. Any other event stays on the listener (as its `event`) and answers an error.
pub(crate) fn get_request_finish(listen_c: *mut rdma_cm_id, ev: *mut rdma_cm_event) -> Result<*mut rdma_cm_id> {
    let listen = match state::lookup_id(listen_c) {
        Ok(l) => l,
        Err(e) => {
            // The listener was destroyed while this thread waited: nobody is left to hold the event.
            let _ = ack(ev);
            return Err(e);
        }
    };
    let fail = |e: Errno| {
        listen.set_event(ev);
        Err(e)
    };
    let (kind, status) = kind_status(ev);
    if kind == RDMA_CM_EVENT_REJECTED as u32 {
        return fail(Errno::ECONNREFUSED);
    }
    if status != 0 {
        return fail(Errno(status.checked_abs().unwrap_or(libc::EINVAL)));
    }
    if kind != RDMA_CM_EVENT_CONNECT_REQUEST as u32 {
        return fail(Errno::EINVAL);
    }
    let new_c = id_of(ev);
    let new = state::lookup_id(new_c)?;
    if let Some(mut attr) = super::id::kept_qp_init_attr(&listen) {
        let r = super::qp::create_qp(&new, listen.pd(), attr.as_mut_ptr().cast());
        if let Err(e) = r {
            return fail(e);
        }
    }
    new.set_event(ev);
    Ok(new_c)
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
                rdma_connect(p, null_mut()),
                rdma_establish(p),
                rdma_listen(null_mut(), 1),
                rdma_accept(p, null_mut()),
                rdma_reject(p, null_mut(), 0),
                rdma_notify(p, 0),
                rdma_disconnect(p),
            ] {
                assert_eq!(r, -1);
                assert_eq!(Errno::last(), Errno::EINVAL);
            }
            let mut out = null_mut();
            assert_eq!(rdma_get_request(p, &mut out), -1);
            assert_eq!(rdma_get_request(p, null_mut()), -1);
            assert!(out.is_null());
        }
    }
}
