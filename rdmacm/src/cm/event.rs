//! Event channels and events: `rdma_create_event_channel`, `rdma_destroy_event_channel`, `rdma_get_cm_event`,
//! `rdma_ack_cm_event`, `rdma_event_str`; and the event processing behind them (rdma-core's `rdma_get_cm_event`):
//! a connect request creates the new id, a connect response on an id with a QP completes the connection (QP to
//! RTR and RTS, then the kernel's "establish") and is reported as `ESTABLISHED`, a multicast join attaches the QP.
#![allow(unsafe_code)] // #[no_mangle] C entry points

use super::handout::{ack, kind_of, status_of};
use super::qp::{modify_qp_err, process_conn_resp_ece};
use crate::kernel;
use crate::state::TRANSPORT_IB;
use crate::state::{self, Channel, CmId, Event, Mc};
use crate::verbs;
use rdma_common::abi::rdma_cma::rdma_cm_event_type::*;
use rdma_common::abi::rdma_cma::*;
use rdma_common::abi::verbs::{ibv_attach_mcast, ibv_gid};
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::uapi::rdma_user_cm::{rdma_ucm_conn_param, rdma_ucm_event_resp, rdma_ucm_ud_param};
use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::ptr::{addr_of, addr_of_mut, null_mut};
use std::sync::Arc;

/// `rdma_create_event_channel(3)`: opens an event channel (a descriptor of `/dev/infiniband/rdma_cm`) on which the
/// events of its ids are reported. Returns the channel, or NULL with `errno` (`EPERM` for an rdma_ucm ABI rdma-core
/// 44 does not speak, `ENODEV` without RDMA devices, the `open(2)` errno).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_event_channel() -> *mut rdma_event_channel {
    ffi::boundary("rdma_create_event_channel", || -> Result<*mut rdma_event_channel> {
        super::init()?;
        Ok(Channel::open(true)?.c())
    })
    .or_null_errno()
}

/// `rdma_destroy_event_channel(3)`: closes `channel` and frees it. Its ids must have been destroyed and its events
/// acknowledged first (ids still on it keep the descriptor open until they are destroyed). NULL, a foreign pointer
/// or an id's private channel is ignored. No return value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_event_channel(channel: *mut rdma_event_channel) {
    let _ = ffi::boundary("rdma_destroy_event_channel", || -> Result<()> {
        let ch = state::lookup_channel(channel)?;
        if !ch.is_public() {
            log::warn!("rdma_destroy_event_channel: {channel:p} is an id's private channel; ignored");
            return Err(Errno::EINVAL);
        }
        if Arc::strong_count(&ch) > 2 {
            log::warn!("rdma_destroy_event_channel: ids still use {channel:p}; closed when they are destroyed");
        }
        ch.unregister();
        Ok(())
    });
}

/// `rdma_get_cm_event(3)`: stores in `*event` the next event of `channel`, blocking until there is one unless the
/// channel's descriptor is non-blocking (then `EAGAIN`). Each event must be released with `rdma_ack_cm_event`; its
/// private data stays valid until then. Returns 0, or -1 with `errno` (`EINVAL` for a NULL channel or NULL
/// `event`, `EBADF` for a destroyed or unknown channel (rdma-core's `read` on its fd), `EINTR`, the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_get_cm_event(
    channel: *mut rdma_event_channel,
    event: *mut *mut rdma_cm_event,
) -> c_int {
    const NAME: &str = "rdma_get_cm_event";
    let fd = ffi::boundary(NAME, || -> Result<RawFd> {
        super::init()?;
        ffi::nonnull(event)?;
        let ch = state::lookup_channel_fd(channel)?;
        ch.prepare_event();
        Ok(ch.fd().as_raw_fd())
    });
    fd.and_then(|fd| next_event_cancellable(NAME, fd, || state::lookup_channel(channel)))
        .map(|ev| {
            // SAFETY: the caller's writable out-parameter, checked non-NULL above.
            unsafe { event.write(ev) };
            0
        })
        .or_minus_one_errno()
}

/// `rdma_ack_cm_event(3)`: releases `event`, returned by `rdma_get_cm_event` (and the private data it points to).
/// Returns 0, or -1 with `errno` = `EINVAL` for NULL, a foreign or an already acknowledged event.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_ack_cm_event(event: *mut rdma_cm_event) -> c_int {
    ffi::boundary("rdma_ack_cm_event", || -> Result<c_int> {
        ack(event)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// The names `rdma_event_str` gives, indexed by event type: rdma-core 65 names every type but `USER` (18) and
/// `INTERNAL` (19), which it calls `"UNKNOWN EVENT"`.
const EVENT_NAMES: [&CStr; 18] = [
    c"RDMA_CM_EVENT_ADDR_RESOLVED",
    c"RDMA_CM_EVENT_ADDR_ERROR",
    c"RDMA_CM_EVENT_ROUTE_RESOLVED",
    c"RDMA_CM_EVENT_ROUTE_ERROR",
    c"RDMA_CM_EVENT_CONNECT_REQUEST",
    c"RDMA_CM_EVENT_CONNECT_RESPONSE",
    c"RDMA_CM_EVENT_CONNECT_ERROR",
    c"RDMA_CM_EVENT_UNREACHABLE",
    c"RDMA_CM_EVENT_REJECTED",
    c"RDMA_CM_EVENT_ESTABLISHED",
    c"RDMA_CM_EVENT_DISCONNECTED",
    c"RDMA_CM_EVENT_DEVICE_REMOVAL",
    c"RDMA_CM_EVENT_MULTICAST_JOIN",
    c"RDMA_CM_EVENT_MULTICAST_ERROR",
    c"RDMA_CM_EVENT_ADDR_CHANGE",
    c"RDMA_CM_EVENT_TIMEWAIT_EXIT",
    c"RDMA_CM_EVENT_ADDRINFO_RESOLVED",
    c"RDMA_CM_EVENT_ADDRINFO_ERROR",
];

/// The name rdma-core gives a value outside `enum rdma_cm_event_type`.
const UNKNOWN_EVENT: &CStr = c"UNKNOWN EVENT";

/// `rdma_event_str(3)`: the name of an event type, e.g. `"RDMA_CM_EVENT_ADDR_RESOLVED"`, or `"UNKNOWN EVENT"` for
/// a value outside the enum and, as in rdma-core 65, for `RDMA_CM_EVENT_USER` and `RDMA_CM_EVENT_INTERNAL`. The
/// string is static; never NULL, `errno` untouched.
///
/// `event` is the enum's integer (the C prototype says `enum rdma_cm_event_type`, same ABI), so any number is safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_event_str(event: c_uint) -> *const c_char {
    EVENT_NAMES.get(event as usize).copied().unwrap_or(UNKNOWN_EVENT).as_ptr()
}

/// `rdma_write_cm_event(3)` (RDMACM_1.4, rdma-core 65): queues an `RDMA_CM_EVENT_USER` event about `id` on its
/// event channel, with `status` and `arg` (reported in `event->status` and `event->param.arg`), for example to wake
/// a thread waiting in `rdma_get_cm_event`. The event is acknowledged like any other (`rdma_destroy_id` waits for it).
/// Returns 0, or -1 with `errno`: `EINVAL` for any other `event` (checked first, as rdma-core does) and for a NULL,
/// destroyed or foreign `id` (rdma-core dereferences it); the kernel's: `EINVAL` from kernels without the
/// `WRITE_CM_EVENT` command (Linux 6.1, 6.12, where rdma-core 65 fails the same way).
///
/// `event` is the enum's integer (the C prototype says `enum rdma_cm_event_type`, same ABI), so any number is safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_write_cm_event(id: *mut rdma_cm_id, event: c_uint, status: c_int, arg: u64) -> c_int {
    ffi::boundary("rdma_write_cm_event", || -> Result<c_int> {
        if event != RDMA_CM_EVENT_USER as c_uint {
            return Err(Errno::EINVAL);
        }
        let id = state::lookup_id(id)?;
        write_event(&id, RDMA_CM_EVENT_USER, status, arg)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_create_event_channel, rdma_destroy_event_channel, rdma_get_cm_event, rdma_ack_cm_event, rdma_event_str,
    rdma_write_cm_event);

// ---------------------------------------------------------------------------------------------------------------
// The library side.

/// `__rdma_write_cm_event`: queues an event of type `kind` (the kernel takes `USER` and `INTERNAL`) with `status`
/// and `arg` on the channel of `id`. Errors: the kernel's (`EINVAL` without the command: Linux 6.1, 6.12).
pub(crate) fn write_event(id: &CmId, kind: rdma_cm_event_type, status: c_int, arg: u64) -> Result<()> {
    kernel::event::write_cm_event(&id.channel().fd(), id.handle(), kind as u32, status, arg)
}

/// The event type with number `n`, if the enum has it.
fn event_type(n: u32) -> Option<rdma_cm_event_type> {
    const ALL: [rdma_cm_event_type; 20] = [
        RDMA_CM_EVENT_ADDR_RESOLVED,
        RDMA_CM_EVENT_ADDR_ERROR,
        RDMA_CM_EVENT_ROUTE_RESOLVED,
        RDMA_CM_EVENT_ROUTE_ERROR,
        RDMA_CM_EVENT_CONNECT_REQUEST,
        RDMA_CM_EVENT_CONNECT_RESPONSE,
        RDMA_CM_EVENT_CONNECT_ERROR,
        RDMA_CM_EVENT_UNREACHABLE,
        RDMA_CM_EVENT_REJECTED,
        RDMA_CM_EVENT_ESTABLISHED,
        RDMA_CM_EVENT_DISCONNECTED,
        RDMA_CM_EVENT_DEVICE_REMOVAL,
        RDMA_CM_EVENT_MULTICAST_JOIN,
        RDMA_CM_EVENT_MULTICAST_ERROR,
        RDMA_CM_EVENT_ADDR_CHANGE,
        RDMA_CM_EVENT_TIMEWAIT_EXIT,
        RDMA_CM_EVENT_ADDRINFO_RESOLVED,
        RDMA_CM_EVENT_ADDRINFO_ERROR,
        RDMA_CM_EVENT_USER,
        RDMA_CM_EVENT_INTERNAL,
    ];
    ALL.get(n as usize).copied()
}

/// A fresh event about `id` (counted against `id_priv`), boxed so that its private data has a stable address.
fn new_event(
    ch: &Channel,
    id_priv: Arc<CmId>,
    kind: rdma_cm_event_type,
    status: i32,
    mc: Option<Arc<Mc>>,
) -> Box<Event> {
    // SAFETY: the union holds pointers and integers only: zero is a valid value.
    let param: rdma_cm_event_param = unsafe { std::mem::MaybeUninit::zeroed().assume_init() };
    let ev = rdma_cm_event { id: id_priv.c(), listen_id: null_mut(), event: kind, status, param };
    // Built in place in its heap memory, field by field: `Box::new` of the whole ~400-byte value built it on the
    // stack and copied it (~60 instructions an event).
    let mut b = ch.take_event_memory().unwrap_or_else(Box::<Event>::new_uninit);
    let p = b.as_mut_ptr();
    // SAFETY: every field of `*p` is written once before `assume_init`.
    unsafe {
        addr_of_mut!((*p).ev).write(UnsafeCell::new(ev));
        addr_of_mut!((*p).private_data).write(UnsafeCell::new([0; 256]));
        addr_of_mut!((*p).id_priv).write(id_priv);
        addr_of_mut!((*p).mc).write(mc);
        b.assume_init()
    }
}

fn set_kind(e: &Event, kind: rdma_cm_event_type) {
    // SAFETY: the event is ours until published.
    unsafe { addr_of_mut!((*e.c()).event).write(kind) }
}

fn set_status(e: &Event, status: i32) {
    // SAFETY: as above.
    unsafe { addr_of_mut!((*e.c()).status).write(status) }
}

/// Copies the kernel's private data into the event's own buffer; returns the pointer the event reports (NULL when
/// there is none).
fn copy_private(e: &Event, data: &[u8], len: u8) -> *const std::ffi::c_void {
    let n = (len as usize).min(data.len());
    if n == 0 {
        return std::ptr::null();
    }
    // SAFETY: the buffer is ours and 256 bytes long, `n` at most that.
    unsafe {
        let buf = e.private_data.get().cast::<u8>();
        std::ptr::copy_nonoverlapping(data.as_ptr(), buf, n);
        buf.cast_const().cast()
    }
}

/// `ucma_copy_conn_event`.
fn copy_conn_event(e: &Event, src: &rdma_ucm_conn_param) {
    let private_data = copy_private(e, &src.private_data, src.private_data_len);
    let dst = rdma_conn_param {
        private_data,
        private_data_len: src.private_data_len,
        responder_resources: src.responder_resources,
        initiator_depth: src.initiator_depth,
        flow_control: src.flow_control,
        retry_count: src.retry_count,
        rnr_retry_count: src.rnr_retry_count,
        srq: src.srq,
        qp_num: src.qp_num,
    };
    // SAFETY: the event is ours until published.
    unsafe { addr_of_mut!((*e.c()).param.conn).write(dst) }
}

/// `ucma_copy_ud_event`.
fn copy_ud_event(e: &Event, src: &rdma_ucm_ud_param) {
    let private_data = copy_private(e, &src.private_data, src.private_data_len);
    let dst = rdma_ud_param {
        private_data,
        private_data_len: src.private_data_len,
        ah_attr: verbs::ah_attr_from_kern(&src.ah_attr),
        qp_num: src.qp_num,
        qkey: src.qkey,
    };
    // SAFETY: as above.
    unsafe { addr_of_mut!((*e.c()).param.ud).write(dst) }
}

/// Copies the connection or datagram parameters, by the id's QP type.
fn copy_param(e: &Event, id: &CmId, resp: &rdma_ucm_event_resp) {
    // SAFETY: both union members are plain integers: any bytes are valid.
    unsafe {
        if id.is_ud() {
            copy_ud_event(e, &resp.param.ud)
        } else {
            copy_conn_event(e, &resp.param.conn)
        }
    }
}

/// The blocking half of `rdma_get_cm_event` and `rdma_get_request`: waits in the kernel for the next event of the
/// channel whose descriptor is `fd`, outside any boundary so that the thread may be cancelled there, then processes
/// it inside one (`channel` finds the channel again) as [`get_event`] does.
///
/// Call it from the entry point's own frame (an `extern "C-unwind"` function holding only plain values: a
/// cancellation unwinds through it; `rdma_common::ffi`'s notes on thread cancellation). `fd` must stay open while
/// the channel lives.
pub(crate) fn next_event_cancellable(
    name: &'static str,
    fd: RawFd,
    channel: impl Fn() -> Result<Arc<Channel>>,
) -> Result<*mut rdma_cm_event> {
    loop {
        // SAFETY: the caller's contract: the channel's open descriptor.
        let resp = kernel::event::get_event(&unsafe { BorrowedFd::borrow_raw(fd) })?;
        if let Some(e) = ffi::boundary(name, || Ok(process(&channel()?, &resp)?.map(state::publish_event)))? {
            return Ok(e);
        }
    }
}

/// Waits for the next event of `ch` and processes it as rdma-core does; returns the event to hand out. Events
/// rdma-core discards (unmatched, or on an id whose connect response failed) are counted as acknowledged and
/// skipped.
pub(crate) fn get_event(ch: &Arc<Channel>) -> Result<*mut rdma_cm_event> {
    loop {
        let resp = kernel::event::get_event(&ch.fd())?;
        if let Some(e) = process(ch, &resp)? {
            return Ok(state::publish_event(e));
        }
    }
}

/// Processes one event the kernel reported on `ch` as rdma-core's `rdma_get_cm_event` does: the event to hand out,
/// None for one it discards (counted as acknowledged), or an error for the call (`EBADE`: an `INTERNAL` event the
/// library did not write, as rdma-core 65; it is counted as acknowledged, where rdma-core leaks it and
/// `rdma_destroy_id` then waits forever).
fn process(ch: &Arc<Channel>, resp: &rdma_ucm_event_resp) -> Result<Option<Box<Event>>> {
    let Some(kind) = event_type(resp.event) else {
        log::warn!("discarding event of unknown type {}", resp.event);
        if let Some(id) = state::lookup_uid(resp.uid) {
            id.complete_event();
        }
        return Ok(None);
    };
    let status = resp.status as i32;

    if matches!(kind, RDMA_CM_EVENT_MULTICAST_JOIN | RDMA_CM_EVENT_MULTICAST_ERROR) {
        let Some(mc) = state::lookup_mc(resp.uid) else {
            log::warn!("discarding multicast event for an unknown membership");
            return Ok(None);
        };
        let Some(id) = mc.id.upgrade() else {
            return Ok(None);
        };
        let e = new_event(ch, id.clone(), kind, status, Some(mc.clone()));
        if kind == RDMA_CM_EVENT_MULTICAST_JOIN {
            // SAFETY: plain integers.
            copy_ud_event(&e, unsafe { &resp.param.ud });
            if process_join(&e, &mc, &id).is_err() {
                set_kind(&e, RDMA_CM_EVENT_MULTICAST_ERROR);
                set_status(&e, -1);
            }
        }
        // SAFETY: the event is ours until published.
        unsafe { addr_of_mut!((*e.c()).param.ud.private_data).write(mc.context.cast_const()) };
        return Ok(Some(e));
    }

    let id = if resp.uid != 0 {
        match state::lookup_uid(resp.uid) {
            Some(id) => id,
            None => {
                log::warn!("discarding event {} for an unknown id", resp.event);
                if kind == RDMA_CM_EVENT_CONNECT_REQUEST {
                    let _ = kernel::id::destroy_id(&ch.fd(), resp.id);
                }
                return Ok(None);
            }
        }
    } else {
        // Older kernels report some events of a new connection before its accept set the uid.
        let Some(id) = state::lookup_handle(resp.id) else {
            log::warn!("discarding unmatched event - rdma_destroy_id may hang");
            return Ok(None);
        };
        if kind != RDMA_CM_EVENT_ESTABLISHED {
            id.complete_event();
            return Ok(None);
        }
        id
    };

    let e = new_event(ch, id.clone(), kind, status, None);
    match kind {
        RDMA_CM_EVENT_ADDR_RESOLVED => {
            let r = if state::af_ib_support() {
                super::query::query_addr(&id).and_then(|()| {
                    if id.transport() == Some(TRANSPORT_IB) {
                        super::query::query_gid(&id)
                    } else {
                        Ok(())
                    }
                })
            } else {
                super::query::query_route(&id)
            };
            // rdma-core 56.1 and later: a resolution the kernel reports on no device we can open (a node GUID of 0,
            // a device that went away) fails with ENODEV instead of leaving `id->verbs` NULL.
            let r = r.and_then(|()| if id.verbs().is_null() { Err(Errno::ENODEV) } else { Ok(()) });
            if let Err(err) = r {
                err.set();
                set_status(&e, -1);
                set_kind(&e, RDMA_CM_EVENT_ADDR_ERROR);
            }
        }
        RDMA_CM_EVENT_ROUTE_RESOLVED => {
            if id.transport() == Some(TRANSPORT_IB) {
                let r =
                    if state::af_ib_support() { super::query::query_path(&id) } else { super::query::query_route(&id) };
                if let Err(err) = r {
                    err.set();
                    set_status(&e, -1);
                    set_kind(&e, RDMA_CM_EVENT_ROUTE_ERROR);
                }
            }
        }
        RDMA_CM_EVENT_CONNECT_REQUEST => {
            copy_param(&e, &id, resp);
            if let Err(err) = process_conn_req(&e, &id, resp) {
                log::debug!("connect request dropped: {err}");
                id.complete_event();
                return Ok(None);
            }
        }
        RDMA_CM_EVENT_CONNECT_RESPONSE => {
            // SAFETY: plain integers.
            copy_conn_event(&e, unsafe { &resp.param.conn });
            if id.qp().is_null() {
                id.st.lock().remote_ece = (resp.ece.vendor_id, resp.ece.attr_mod);
            } else {
                match process_conn_resp_ece(&id, resp.ece.vendor_id, resp.ece.attr_mod) {
                    Ok(()) => set_kind(&e, RDMA_CM_EVENT_ESTABLISHED),
                    Err(err) => {
                        err.set();
                        set_status(&e, -1);
                        set_kind(&e, RDMA_CM_EVENT_CONNECT_ERROR);
                        id.st.lock().connect_error = true;
                    }
                }
            }
        }
        RDMA_CM_EVENT_REJECTED | RDMA_CM_EVENT_DISCONNECTED => {
            if id.st.lock().connect_error {
                id.complete_event();
                return Ok(None);
            }
            // SAFETY: plain integers.
            copy_conn_event(&e, unsafe { &resp.param.conn });
            if kind == RDMA_CM_EVENT_REJECTED {
                let _ = modify_qp_err(&id);
            }
        }
        RDMA_CM_EVENT_ADDRINFO_RESOLVED => process_addrinfo_resolved(&e, &id),
        RDMA_CM_EVENT_ADDRINFO_ERROR => id.st.lock().resolving_ai = false,
        RDMA_CM_EVENT_USER => set_arg(&e, kernel::event::event_arg(resp)),
        RDMA_CM_EVENT_INTERNAL => {
            if kernel::event::event_arg(resp) != RDMA_CM_EVENT_ADDRINFO_RESOLVED as u64 {
                log::warn!(
                    "an RDMA_CM_EVENT_INTERNAL event the library did not write (arg {})",
                    kernel::event::event_arg(resp)
                );
                id.complete_event();
                return Err(Errno(libc::EBADE));
            }
            set_kind(&e, RDMA_CM_EVENT_ADDRINFO_RESOLVED);
            process_addrinfo_resolved(&e, &id);
        }
        _ => copy_param(&e, &id, resp),
    }
    if status != 0
        || matches!(kind_of(e.c()), k if k == RDMA_CM_EVENT_ADDR_ERROR as u32 || k == RDMA_CM_EVENT_ROUTE_ERROR as u32 || k == RDMA_CM_EVENT_CONNECT_ERROR as u32)
    {
        // SAFETY: the event was just built for `id` and is not handed out yet.
        unsafe { super::explain::failed_event(&id, e.c()) };
    }
    Ok(Some(e))
}

/// `ucma_process_addrinfo_resolved`: the result of an `rdma_resolve_addrinfo` is ready. A DNS resolution left its
/// list in the id already; an SA one is read from the kernel now (QUERY(IB_SERVICE), see
/// [`super::query::query_ib_service`]). When that fails the event becomes `ADDRINFO_ERROR` with the (positive) errno
/// as its status, as rdma-core 65 reports it, and the resolution is over.
fn process_addrinfo_resolved(e: &Event, id: &Arc<CmId>) {
    if !id.st.lock().resolved_ai.is_null() {
        return;
    }
    match super::query::query_ib_service(id) {
        Ok(list) => id.st.lock().resolved_ai = list,
        Err(err) => {
            err.set();
            set_kind(e, RDMA_CM_EVENT_ADDRINFO_ERROR);
            set_status(e, err.0);
            id.st.lock().resolving_ai = false;
        }
    }
}

/// `param.arg` of a `USER` event.
fn set_arg(e: &Event, arg: u64) {
    // SAFETY: the event is ours until published.
    unsafe { addr_of_mut!((*e.c()).param.arg).write(arg) }
}

/// `ucma_process_conn_req`: creates the id of a new connection (on the listener's channel, or its own private one
/// under a synchronous listener), fills the event's `id`/`listen_id`, and reads the new id's addresses and route.
fn process_conn_req(e: &Event, listen: &Arc<CmId>, resp: &rdma_ucm_event_resp) -> Result<()> {
    let ps = listen_ps(listen);
    let qp_type = listen_qp_type(listen);
    let new = CmId::new(listen.channel(), false, listen.context(), ps, qp_type);
    new.set_handle(resp.id);
    state::register_id(&new);
    // SAFETY: the event is ours until published; both union views are plain data.
    let (init_depth, resp_res) = unsafe {
        addr_of_mut!((*e.c()).listen_id).write(listen.c());
        addr_of_mut!((*e.c()).id).write(new.c());
        let conn = addr_of!((*e.c()).param.conn).read();
        (conn.initiator_depth, conn.responder_resources)
    };
    {
        let mut st = new.st.lock();
        st.initiator_depth = init_depth;
        st.responder_resources = resp_res;
        st.remote_ece = (resp.ece.vendor_id, resp.ece.attr_mod);
    }
    let r = (|| {
        if listen.is_sync() {
            super::id_core::migrate(&new, None)?;
        }
        query_req_info(&new)
    })();
    if let Err(err) = r {
        let _ = super::id_core::destroy(&new);
        return Err(err);
    }
    Ok(())
}

fn listen_ps(id: &CmId) -> rdma_port_space {
    super::id_core::port_space(id.ps()).unwrap_or(rdma_port_space::RDMA_PS_TCP)
}

fn listen_qp_type(id: &CmId) -> rdma_common::abi::verbs::ibv_qp_type {
    super::id_core::qp_type_of(id.qp_type()).unwrap_or(rdma_common::abi::verbs::ibv_qp_type::IBV_QPT_RC)
}

/// `ucma_query_req_info`.
fn query_req_info(id: &Arc<CmId>) -> Result<()> {
    if !state::af_ib_support() {
        return super::query::query_route(id);
    }
    super::query::query_addr(id)?;
    super::query::query_gid(id)?;
    super::query::query_path(id)
}

/// `ucma_process_join`: records the group's MGID/MLID and attaches the id's QP (unless send-only).
fn process_join(e: &Event, mc: &Mc, id: &CmId) -> Result<()> {
    // SAFETY: the event is ours; `param.ud` was just written.
    let ah = unsafe { addr_of!((*e.c()).param.ud.ah_attr).read() };
    // SAFETY: a gid is 16 plain bytes.
    let mgid = unsafe { ah.grh.dgid.raw };
    *mc.grp.lock() = (mgid, ah.dlid);
    let qp = id.qp();
    if qp.is_null() || mc.join_flags == rdma_cm_mc_join_flags::RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER as u16 {
        return Ok(());
    }
    let gid = ibv_gid { raw: mgid };
    // SAFETY: `qp` is the id's live QP; `gid` lives for the call.
    verbs::rc(unsafe { ibv_attach_mcast(qp, &gid, ah.dlid) })
}

thread_local! {
    /// Set by [`sync_entry`] while its body runs: the body's final [`complete`] leaves its wait to `sync_entry`.
    static DEFER_WAIT: Cell<bool> = const { Cell::new(false) };
    /// The wait [`complete`] left: the id's channel descriptor and the id.
    static DEFERRED: Cell<Option<(RawFd, *mut rdma_cm_id)>> = const { Cell::new(None) };
}

/// Runs the body of an entry point whose synchronous form ends waiting for the id's next event (rdma-core's
/// `ucma_complete`: `rdma_resolve_addr`, `rdma_resolve_route`, `rdma_connect`, `rdma_accept`, `rdma_disconnect`,
/// `rdma_join_multicast`). The body runs in a boundary and must call [`complete`] as its last step; on a synchronous
/// id the wait then happens here, outside any boundary, so that a thread waiting in it may be cancelled as in
/// rdma-core (`rdma_common::ffi`'s notes on thread cancellation), and the event is stored in a second boundary.
/// Returns the C value: 0, or -1 with `errno`.
///
/// Call it from the entry point's own `extern "C-unwind"` frame, holding nothing that needs dropping.
pub(crate) fn sync_entry(name: &'static str, body: impl FnOnce() -> Result<c_int>) -> c_int {
    DEFERRED.set(None);
    DEFER_WAIT.set(true);
    let r = ffi::boundary(name, body);
    DEFER_WAIT.set(false);
    match (r, DEFERRED.take()) {
        (Ok(_), Some((fd, id_c))) => next_event_cancellable(name, fd, || Ok(state::lookup_id(id_c)?.channel()))
            .and_then(|ev| ffi::boundary(name, || complete_with(&state::lookup_id(id_c)?, ev)))
            .map(|()| 0)
            .or_minus_one_errno(),
        (r, _) => r.or_minus_one_errno(),
    }
}

/// `ucma_complete`: on a synchronous id, acknowledges the previous event, waits for the id's next one and stores
/// it in `id->event`; its failure status becomes the call's errno (`ECONNREFUSED` for a reject). Nothing on an id
/// with an event channel. Inside [`sync_entry`]'s body, the wait is left to `sync_entry` (this is the body's last
/// step).
pub(crate) fn complete(id: &Arc<CmId>) -> Result<()> {
    if !id.is_sync() {
        return Ok(());
    }
    let prev = id.event();
    if !prev.is_null() {
        let _ = ack(prev);
        id.set_event(null_mut());
    }
    if DEFER_WAIT.replace(false) {
        DEFERRED.set(Some((id.channel().fd().as_raw_fd(), id.c())));
        return Ok(());
    }
    let ev = get_event(&id.channel())?;
    complete_with(id, ev)
}

/// The end of [`complete`]: stores `ev` as the id's event; its failure status becomes the errno.
fn complete_with(id: &Arc<CmId>, ev: *mut rdma_cm_event) -> Result<()> {
    id.set_event(ev);
    let status = status_of(ev);
    if status != 0 {
        if kind_of(ev) == RDMA_CM_EVENT_REJECTED as u32 {
            return Err(Errno::ECONNREFUSED);
        }
        return Err(Errno(status.checked_abs().unwrap_or(libc::EINVAL)));
    }
    Ok(())
}

#[cfg(feature = "fuzzing")]
thread_local! {
    /// The ids the fuzzed events may name: an RC one (kernel handle 1) and a UD one (handle 2), registered, on a
    /// channel over `/dev/null` that nothing writes to.
    static FUZZ_IDS: [Arc<CmId>; 2] = {
        let ch = Channel::for_test(std::fs::File::open("/dev/null").expect("/dev/null").into());
        [rdma_common::abi::verbs::ibv_qp_type::IBV_QPT_RC, rdma_common::abi::verbs::ibv_qp_type::IBV_QPT_UD]
            .into_iter()
            .zip(1..)
            .map(|(t, h)| {
                let id = CmId::new(ch.clone(), false, null_mut(), rdma_port_space::RDMA_PS_TCP, t);
                id.set_handle(h);
                state::register_id(&id);
                id
            })
            .collect::<Vec<_>>()
            .try_into()
            .unwrap_or_else(|_| unreachable!())
    };
}

/// `fuzz/fuzz_targets/cm_event.rs`: `data` as the kernel's `struct rdma_ucm_event_resp` (what GET_EVENT copies
/// out; shorter data reads as zero-extended, as the kernel layer decodes it), processed as `rdma_get_cm_event`
/// processes it, then the failure text `rdma_cm_explain` would log for it. The two low bits of `uid` choose what the
/// event names: the RC id, the UD id, no uid (matched by kernel handle `id`: 1 and 2 are ours), or an unknown
/// uid (made odd, never an object's address). Events whose processing asks the kernel (`ADDR_RESOLVED`,
/// `ROUTE_RESOLVED`, `CONNECT_REQUEST`, which query or create ids) always take the by-handle path, where they
/// are counted and dropped, so no data reaches a system call.
#[cfg(feature = "fuzzing")]
pub(crate) fn fuzz(data: &[u8]) {
    use rdma_common::uapi::FromBytes;
    let mut resp = rdma_ucm_event_resp::from_bytes(data);
    let kernel_bound = matches!(
        event_type(resp.event),
        Some(
            RDMA_CM_EVENT_ADDR_RESOLVED
                | RDMA_CM_EVENT_ROUTE_RESOLVED
                | RDMA_CM_EVENT_CONNECT_REQUEST
                | RDMA_CM_EVENT_ADDRINFO_RESOLVED
                | RDMA_CM_EVENT_INTERNAL
        )
    );
    FUZZ_IDS.with(|ids| {
        resp.uid = match resp.uid & 3 {
            _ if kernel_bound => 0,
            0 => ids[0].uid(),
            1 => ids[1].uid(),
            2 => 0,
            _ => resp.uid | 1,
        };
        let ch = ids[0].channel();
        if let Ok(Some(e)) = process(&ch, &resp) {
            let ev = e.c();
            let iwarp = e.id_priv.transport() == Some(crate::state::TRANSPORT_IWARP);
            let _ =
                super::explain::cause(kind_of(ev), status_of(ev), "198.18.0.2", "198.18.0.1", resp.id as u16, iwarp);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_match_the_enum() {
        for n in 0..18u32 {
            let e = event_type(n).unwrap();
            assert_eq!(e as u32, n);
            // SAFETY: rdma_event_str returns a static NUL-terminated string.
            let s = unsafe { CStr::from_ptr(rdma_event_str(n)) };
            assert_eq!(s.to_str().unwrap(), format!("{e:?}"));
        }
        assert_eq!(event_type(18), Some(RDMA_CM_EVENT_USER));
        assert_eq!(event_type(19), Some(RDMA_CM_EVENT_INTERNAL));
        assert!(event_type(20).is_none());
        // rdma-core 65 names neither USER nor INTERNAL.
        for bad in [18, 19, 20, u32::MAX] {
            // SAFETY: as above.
            assert_eq!(unsafe { CStr::from_ptr(rdma_event_str(bad)) }, UNKNOWN_EVENT);
        }
    }

    fn test_id(qp_type: rdma_common::abi::verbs::ibv_qp_type) -> Arc<CmId> {
        let fd = std::fs::File::open("/dev/null").unwrap();
        let ch = Channel::for_test(fd.into());
        CmId::new(ch, false, null_mut(), rdma_port_space::RDMA_PS_TCP, qp_type)
    }

    #[test]
    fn conn_event_copy() {
        use rdma_common::uapi::FromBytes;
        let id = test_id(rdma_common::abi::verbs::ibv_qp_type::IBV_QPT_RC);
        let e = new_event(&id.channel(), id.clone(), RDMA_CM_EVENT_CONNECT_REQUEST, 0, None);
        let mut resp = rdma_ucm_event_resp::zeroed();
        let mut k = rdma_ucm_conn_param::zeroed();
        k.private_data[..5].copy_from_slice(b"hello");
        k.private_data_len = 56;
        k.responder_resources = 1;
        k.initiator_depth = 2;
        k.flow_control = 1;
        k.retry_count = 7;
        k.rnr_retry_count = 6;
        k.srq = 1;
        k.qp_num = 0x1234;
        resp.param.conn = k;
        copy_param(&e, &id, &resp);
        // SAFETY: the event's param was just written as `conn`.
        let c = unsafe { (*e.c()).param.conn };
        assert_eq!(c.private_data_len, 56);
        assert_eq!(c.private_data, e.private_data.get().cast::<std::ffi::c_void>().cast_const());
        // SAFETY: the private data buffer is 256 bytes.
        assert_eq!(unsafe { std::slice::from_raw_parts(c.private_data.cast::<u8>(), 5) }, b"hello");
        assert_eq!((c.responder_resources, c.initiator_depth, c.flow_control), (1, 2, 1));
        assert_eq!((c.retry_count, c.rnr_retry_count, c.srq, c.qp_num), (7, 6, 1, 0x1234));
        assert_eq!(kind_of(e.c()), RDMA_CM_EVENT_CONNECT_REQUEST as u32);

        // No private data: NULL pointer.
        let e = new_event(&id.channel(), id.clone(), RDMA_CM_EVENT_ESTABLISHED, 0, None);
        copy_conn_event(&e, &rdma_ucm_conn_param::zeroed());
        // SAFETY: as above.
        assert!(unsafe { (*e.c()).param.conn.private_data }.is_null());
    }

    #[test]
    fn ud_event_copy() {
        use rdma_common::uapi::FromBytes;
        let id = test_id(rdma_common::abi::verbs::ibv_qp_type::IBV_QPT_UD);
        let e = new_event(&id.channel(), id.clone(), RDMA_CM_EVENT_ESTABLISHED, 0, None);
        let mut resp = rdma_ucm_event_resp::zeroed();
        let mut u = rdma_ucm_ud_param::zeroed();
        u.qp_num = 0x99;
        u.qkey = RDMA_UDP_QKEY as u32;
        u.ah_attr.grh.dgid = [0xab; 16];
        u.ah_attr.grh.hop_limit = 64;
        u.ah_attr.is_global = 1;
        u.ah_attr.port_num = 1;
        u.ah_attr.dlid = 0xc001;
        u.private_data[0] = 7;
        u.private_data_len = 1;
        resp.param.ud = u;
        copy_param(&e, &id, &resp);
        // SAFETY: the event's param was just written as `ud`.
        let d = unsafe { (*e.c()).param.ud };
        assert_eq!((d.qp_num, d.qkey, d.private_data_len), (0x99, RDMA_UDP_QKEY as u32, 1));
        // SAFETY: gid bytes; one byte of private data.
        unsafe {
            assert_eq!(d.ah_attr.grh.dgid.raw, [0xab; 16]);
            assert_eq!(*d.private_data.cast::<u8>(), 7);
        }
        assert_eq!(
            (d.ah_attr.grh.hop_limit, d.ah_attr.is_global, d.ah_attr.port_num, d.ah_attr.dlid),
            (64, 1, 1, 0xc001)
        );
    }

    #[test]
    fn bad_pointers_are_einval() {
        // SAFETY: NULL and foreign pointers are rejected before any dereference.
        unsafe {
            assert_eq!(rdma_ack_cm_event(null_mut()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            let mut junk = [0u64; 16];
            assert_eq!(rdma_ack_cm_event(junk.as_mut_ptr().cast()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            rdma_destroy_event_channel(null_mut());
            rdma_destroy_event_channel(junk.as_mut_ptr().cast());
        }
    }
}
