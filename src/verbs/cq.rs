//! Completion queues and completion channels (`ibv_create_cq(3)`, `ibv_resize_cq(3)`, `ibv_get_cq_event(3)`,
//! `ibv_create_comp_channel(3)`). Polling and arming go through the context's ops table (`ibv_poll_cq(3)` and
//! `ibv_req_notify_cq(3)` are inline). Not implemented yet: each answers `EOPNOTSUPP` in its C convention.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::{c_int, c_uint, c_void};

/// `ibv_create_comp_channel(3)`: creates a completion event channel (a file descriptor CQs report events to).
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel {
    ffi::boundary("ibv_create_comp_channel", || -> Result<*mut ibv_comp_channel> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_create_comp_channel"))
    })
    .or_null_errno()
}

/// `ibv_destroy_comp_channel(3)`: destroys a completion channel that no CQ uses any more.
///
/// Returns 0, or an errno value (`EBUSY` while CQs use it). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int {
    ffi::boundary("ibv_destroy_comp_channel", || -> Result<()> {
        ffi::nonnull(channel)?;
        Err(unsupported("ibv_destroy_comp_channel"))
    })
    .ret_errno()
}

/// `ibv_create_cq(3)`: creates a completion queue of at least `cqe` entries; `cq_context` is returned with its
/// events, which go to `channel` (may be NULL) on completion vector `comp_vector`.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
) -> *mut ibv_cq {
    let _ = (cqe, cq_context, channel, comp_vector);
    ffi::boundary("ibv_create_cq", || -> Result<*mut ibv_cq> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_create_cq"))
    })
    .or_null_errno()
}

/// `ibv_resize_cq(3)`: resizes a CQ to at least `cqe` entries; `cq->cqe` gets the new size.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_resize_cq(cq: *mut ibv_cq, cqe: c_int) -> c_int {
    let _ = cqe;
    ffi::boundary("ibv_resize_cq", || -> Result<()> {
        ffi::nonnull(cq)?;
        Err(unsupported("ibv_resize_cq"))
    })
    .ret_errno()
}

/// `ibv_destroy_cq(3)`: destroys a CQ; waits until all its events were acknowledged.
///
/// Returns 0, or an errno value (`EBUSY` while QPs use it). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int {
    ffi::boundary("ibv_destroy_cq", || -> Result<()> {
        ffi::nonnull(cq)?;
        Err(unsupported("ibv_destroy_cq"))
    })
    .ret_errno()
}

/// `ibv_get_cq_event(3)`: waits for the next completion event of `channel` and stores the CQ and its
/// `cq_context` in `*cq` and `*cq_context`. Each event must be acknowledged with `ibv_ack_cq_events(3)`.
///
/// Returns 0, or -1 with `errno` set. Not implemented yet: -1 with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_cq_event(
    channel: *mut ibv_comp_channel,
    cq: *mut *mut ibv_cq,
    cq_context: *mut *mut c_void,
) -> c_int {
    ffi::boundary("ibv_get_cq_event", || -> Result<c_int> {
        ffi::nonnull(channel)?;
        ffi::nonnull(cq)?;
        ffi::nonnull(cq_context)?;
        Err(unsupported("ibv_get_cq_event"))
    })
    .or_minus_one_errno()
}

/// `ibv_ack_cq_events(3)`: acknowledges `nevents` events of `cq` returned by `ibv_get_cq_event(3)`.
///
/// NULL is ignored. Not implemented yet: logs and does nothing (no event can have been returned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_ack_cq_events(cq: *mut ibv_cq, nevents: c_uint) {
    if cq.is_null() || nevents == 0 {
        return;
    }
    let _ = ffi::boundary("ibv_ack_cq_events", || -> Result<()> { Err(unsupported("ibv_ack_cq_events")) });
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_create_comp_channel, ibv_destroy_comp_channel, ibv_create_cq, ibv_resize_cq, ibv_destroy_cq,
    ibv_get_cq_event, ibv_ack_cq_events,
);
