//! Events handed to the application: reading the fields the library needs back (`id`, type, status) and taking an
//! event back (`rdma_ack_cm_event`'s work). The bottom of `cm`: everything that hands out or releases events uses it,
//! and it uses only `state`.
#![allow(unsafe_code)] // reads fields of the library's own event structs
use crate::state;
use rdma_common::abi::rdma_cma::{rdma_cm_event, rdma_cm_id};
use rdma_common::errno::Result;
use rdma_common::ffi;
use std::ptr::addr_of;

/// `rdma_ack_cm_event` for a pointer from C.
pub(crate) fn ack(event: *mut rdma_cm_event) -> Result<()> {
    let e = state::take_event(event)?;
    match &e.mc {
        Some(mc) => {
            let id = &e.id_priv;
            let mut st = id.st.lock();
            mc.events_completed.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            st.events_completed += 1;
            drop(st);
            id.cond.notify_all();
        }
        None => e.id_priv.complete_event(),
    }
    Ok(())
}

pub(crate) fn kind_of(e: *mut rdma_cm_event) -> u32 {
    // SAFETY: `e` is a live event of ours; read as the enum's integer.
    unsafe { ffi::enum_raw(addr_of!((*e).event)) }
}

pub(crate) fn status_of(e: *mut rdma_cm_event) -> i32 {
    // SAFETY: as above.
    unsafe { addr_of!((*e).status).read() }
}

/// The type and status of an event handed out (for `rdma_get_request`).
pub(crate) fn kind_status(e: *mut rdma_cm_event) -> (u32, i32) {
    (kind_of(e), status_of(e))
}

/// The `id` of an event handed out.
pub(crate) fn id_of(e: *mut rdma_cm_event) -> *mut rdma_cm_id {
    // SAFETY: `e` is a live event of ours.
    unsafe { addr_of!((*e).id).read() }
}
