//! Asynchronous events (`ibv_get_async_event(3)`, `ibv_ack_async_event(3)`). Not implemented yet.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::c_int;

/// `ibv_get_async_event(3)`: waits for the next asynchronous event of `context` (or, with `async_fd` made
/// non-blocking, takes one if present) and stores it in `*event`. Each event must be acknowledged with
/// `ibv_ack_async_event(3)`.
///
/// Returns 0, or -1 with `errno` set (`EAGAIN` when non-blocking and none is pending). Not implemented yet: -1
/// with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_async_event(context: *mut ibv_context, event: *mut ibv_async_event) -> c_int {
    ffi::boundary("ibv_get_async_event", || -> Result<c_int> {
        ffi::nonnull(context)?;
        ffi::nonnull(event)?;
        Err(unsupported("ibv_get_async_event"))
    })
    .or_minus_one_errno()
}

/// `ibv_ack_async_event(3)`: acknowledges an event returned by `ibv_get_async_event(3)`; destroying the object an
/// event names waits for its acknowledgement.
///
/// NULL is ignored. Not implemented yet: logs and does nothing (no event can have been returned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_ack_async_event(event: *mut ibv_async_event) {
    if event.is_null() {
        return;
    }
    let _ = ffi::boundary("ibv_ack_async_event", || -> Result<()> { Err(unsupported("ibv_ack_async_event")) });
}

crate::check_signatures!(rdma_common::abi::verbs; ibv_get_async_event, ibv_ack_async_event);
