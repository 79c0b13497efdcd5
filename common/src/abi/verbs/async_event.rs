//! Asynchronous events: `ibv_get_async_event(3)`.

use super::*;
use std::ffi::c_int;
use std::mem::size_of;

/// Kinds of asynchronous event.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_event_type {
    IBV_EVENT_CQ_ERR,
    IBV_EVENT_QP_FATAL,
    IBV_EVENT_QP_REQ_ERR,
    IBV_EVENT_QP_ACCESS_ERR,
    IBV_EVENT_COMM_EST,
    IBV_EVENT_SQ_DRAINED,
    IBV_EVENT_PATH_MIG,
    IBV_EVENT_PATH_MIG_ERR,
    IBV_EVENT_DEVICE_FATAL,
    IBV_EVENT_PORT_ACTIVE,
    IBV_EVENT_PORT_ERR,
    IBV_EVENT_LID_CHANGE,
    IBV_EVENT_PKEY_CHANGE,
    IBV_EVENT_SM_CHANGE,
    IBV_EVENT_SRQ_ERR,
    IBV_EVENT_SRQ_LIMIT_REACHED,
    IBV_EVENT_QP_LAST_WQE_REACHED,
    IBV_EVENT_CLIENT_REREGISTER,
    IBV_EVENT_GID_CHANGE,
    IBV_EVENT_WQ_FATAL,
    /// The link speed of a port changed (rdma-core 65).
    IBV_EVENT_DEVICE_SPEED_CHANGE,
}

/// C's unnamed union type of `ibv_async_event.element`: the object the event is about.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_async_event_element {
    pub cq: *mut ibv_cq,
    pub qp: *mut ibv_qp,
    pub srq: *mut ibv_srq,
    pub wq: *mut ibv_wq,
    /// For port and device events.
    pub port_num: c_int,
}

/// An asynchronous event (`ibv_get_async_event(3)`). C text: `verbs.h.post`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_async_event {
    /// The affected object, selected by `event_type`.
    pub element: ibv_async_event_element,
    pub event_type: ibv_event_type,
}

const _: () = assert!(size_of::<ibv_async_event>() == 16);
