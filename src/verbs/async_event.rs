//! Asynchronous events (`ibv_get_async_event(3)`, `ibv_ack_async_event(3)`).
//!
//! The kernel reports each event with the `user_handle` of its object, which is the address of our CQ, QP, SRQ
//! (or WQ) object: the event's `element` is that pointer; port and device events carry the port number. Every
//! event must be acknowledged: destroying a CQ, QP or SRQ waits until the events reported for it were.
#![allow(unsafe_code)]

use crate::kernel;
use crate::object::{self, registry, Context, Kind};
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use rdma_common::Errno;
use std::ffi::c_int;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::ptr::addr_of_mut;

/// Which object an event type names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Cq,
    Qp,
    Srq,
    Wq,
    Port,
}

fn element_of(event_type: u32) -> Element {
    match event_type {
        IBV_EVENT_CQ_ERR => Element::Cq,
        IBV_EVENT_QP_FATAL
        | IBV_EVENT_QP_REQ_ERR
        | IBV_EVENT_QP_ACCESS_ERR
        | IBV_EVENT_COMM_EST
        | IBV_EVENT_SQ_DRAINED
        | IBV_EVENT_PATH_MIG
        | IBV_EVENT_PATH_MIG_ERR
        | IBV_EVENT_QP_LAST_WQE_REACHED => Element::Qp,
        IBV_EVENT_SRQ_ERR | IBV_EVENT_SRQ_LIMIT_REACHED => Element::Srq,
        IBV_EVENT_WQ_FATAL => Element::Wq,
        _ => Element::Port,
    }
}

/// `ibv_get_async_event(3)`: waits for the next asynchronous event of `context` (or, with `context->async_fd` made
/// non-blocking, takes one if present) and stores it in `*event`: its type, and the CQ, QP, SRQ or WQ it concerns
/// (their pointers) or the port number (port events; `IBV_EVENT_DEVICE_FATAL` carries the device's). Each event
/// must be acknowledged with `ibv_ack_async_event(3)`.
///
/// Returns 0, or -1 with `errno` set: `EAGAIN` (non-blocking, none pending), `EINTR`, `EINVAL` for NULL pointers,
/// `EBADF` for a context that is not a live one of this library (closed: what `read` on its fd answers
/// rdma-core), `EIO` for a short read.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn ibv_get_async_event(context: *mut ibv_context, event: *mut ibv_async_event) -> c_int {
    const NAME: &str = "ibv_get_async_event";
    // The read blocks outside the boundaries, from this frame holding plain values only: a thread waiting in it
    // may be cancelled (rdma_common::ffi's notes on thread cancellation).
    let fd = ffi::boundary(NAME, || -> Result<RawFd> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        ffi::nonnull(event)?;
        Ok(ctx.async_fd()?.as_raw_fd())
    });
    let ev = fd.and_then(|fd| {
        // SAFETY: a live context's async_fd (closing a context another thread waits on is the caller's error, as in
        // rdma-core).
        kernel::async_event::read_async_event(unsafe { BorrowedFd::borrow_raw(fd) })
    });
    ev.and_then(|ev| {
        ffi::boundary(NAME, || -> Result<c_int> {
            // SAFETY: entry-point contract.
            let ctx = unsafe { Context::from_ibv(context) }?;
            let out = event;
            let element = match element_of(ev.event_type) {
                Element::Cq => ibv_async_event_element { cq: ev.element as usize as *mut ibv_cq },
                Element::Qp => ibv_async_event_element { qp: ev.element as usize as *mut ibv_qp },
                Element::Srq => ibv_async_event_element { srq: ev.element as usize as *mut ibv_srq },
                Element::Wq => ibv_async_event_element { wq: ev.element as usize as *mut ibv_wq },
                Element::Port => {
                    // The union is pointer-sized; clear it before storing the 4-byte port number.
                    let mut e = ibv_async_event_element { cq: std::ptr::null_mut() };
                    e.port_num = ev.element as c_int;
                    e
                }
            };
            log::debug!("async event {} ({:?}) element {:#x}", ev.event_type, element_of(ev.event_type), ev.element);
            // SAFETY: the caller's event struct (checked non-NULL above); the type is stored as the kernel's number.
            unsafe {
                addr_of_mut!((*out).element).write(element);
                addr_of_mut!((*out).event_type).cast::<u32>().write(ev.event_type);
                ctx.provider.async_event(context, out);
                let obj = match element_of(ev.event_type) {
                    Element::Port => std::ptr::null_mut(),
                    _ => ev.element as usize as *mut std::ffi::c_void,
                };
                super::stats::async_event(context, obj);
            }
            Ok(0)
        })
    })
    .or_minus_one_errno()
}

/// `ibv_ack_async_event(3)`: acknowledges an event returned by `ibv_get_async_event(3)`; destroying the CQ, QP
/// or SRQ an event names waits for its acknowledgement. Port and device events need none (nothing happens).
///
/// NULL, and events naming an object that is not a CQ/QP/SRQ of this library, are ignored (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_ack_async_event(event: *mut ibv_async_event) {
    let _ = ffi::boundary("ibv_ack_async_event", || -> Result<()> {
        let ev = ffi::nonnull(event)?.as_ptr();
        // SAFETY: the caller's event, as ibv_get_async_event stored it (a union of pointers and an int).
        let el = unsafe { (*ev).element };
        // SAFETY: as above; the type is read as a number.
        let ty = unsafe { ffi::enum_raw(std::ptr::addr_of!((*ev).event_type)) };
        // SAFETY (the counters): an object of this library, live or being destroyed (its destroy waits for this);
        // its mutex and cond were initialised at creation.
        match element_of(ty) {
            Element::Cq => {
                // SAFETY: a union of pointers: reading one member as a pointer.
                let cq = unsafe { el.cq };
                if !registry::contains_or_dying(cq, Kind::Cq) {
                    return Err(Errno::EINVAL);
                }
                unsafe {
                    object::ack_events(
                        addr_of_mut!((*cq).mutex),
                        addr_of_mut!((*cq).cond),
                        addr_of_mut!((*cq).async_events_completed),
                        1,
                    )
                };
            }
            Element::Qp => {
                // SAFETY: as above.
                let qp = unsafe { el.qp };
                if !registry::contains_or_dying(qp, Kind::Qp) {
                    return Err(Errno::EINVAL);
                }
                unsafe {
                    object::ack_events(
                        addr_of_mut!((*qp).mutex),
                        addr_of_mut!((*qp).cond),
                        addr_of_mut!((*qp).events_completed),
                        1,
                    )
                };
            }
            Element::Srq => {
                // SAFETY: as above.
                let srq = unsafe { el.srq };
                if !registry::contains_or_dying(srq, Kind::Srq) {
                    return Err(Errno::EINVAL);
                }
                unsafe {
                    object::ack_events(
                        addr_of_mut!((*srq).mutex),
                        addr_of_mut!((*srq).cond),
                        addr_of_mut!((*srq).events_completed),
                        1,
                    )
                };
            }
            // No provider here creates WQs; port and device events need no acknowledgement.
            Element::Wq | Element::Port => {}
        }
        Ok(())
    })
    .inspect_err(|e| e.set());
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_get_async_event, ibv_ack_async_event);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_as_rdma_core() {
        for t in 0..25u32 {
            let want = match t {
                0 => Element::Cq,
                1..=7 | 16 => Element::Qp,
                14 | 15 => Element::Srq,
                19 => Element::Wq,
                _ => Element::Port,
            };
            assert_eq!(element_of(t), want, "event {t}");
        }
    }
}
