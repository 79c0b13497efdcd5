//! Connections: `rdma_connect`, `rdma_establish`, `rdma_listen`, `rdma_get_request`, `rdma_accept`, `rdma_reject`,
//! `rdma_notify`, `rdma_disconnect`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::rdma_cma::{rdma_cm_id, rdma_conn_param};
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_uint, c_void};

/// `rdma_connect(3)`: on a connected id whose route is resolved, sends a connection request with the parameters and
/// private data of `conn_param` (optional with a QP on the id); on a UD id, looks up the remote QP. Completion is
/// reported by `RDMA_CM_EVENT_ESTABLISHED` (or `_CONNECT_RESPONSE` without a QP, `_REJECTED`, `_UNREACHABLE`,
/// `_CONNECT_ERROR`). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_connect(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int {
    ffi::boundary("rdma_connect", || -> Result<c_int> { Err(unsupported("rdma_connect")) }).or_minus_one_errno()
}

/// `rdma_establish(3)`: completes an active connection on an id without a QP, after its
/// `RDMA_CM_EVENT_CONNECT_RESPONSE`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_establish(id: *mut rdma_cm_id) -> c_int {
    ffi::boundary("rdma_establish", || -> Result<c_int> {
        Err(unsupported("rdma_establish"))
    })
    .or_minus_one_errno()
}

/// `rdma_listen(3)`: starts listening for connection requests (or UD service lookups) on the bound address of `id`,
/// with at most `backlog` pending requests. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_listen(id: *mut rdma_cm_id, backlog: c_int) -> c_int {
    ffi::boundary("rdma_listen", || -> Result<c_int> { Err(unsupported("rdma_listen")) }).or_minus_one_errno()
}

/// `rdma_get_request(3)`: on a synchronous listening id, waits for the next connection request and stores its new
/// id in `*id` (with a QP if `rdma_create_ep` asked for one). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_request(listen: *mut rdma_cm_id, id: *mut *mut rdma_cm_id) -> c_int {
    ffi::boundary("rdma_get_request", || -> Result<c_int> {
        Err(unsupported("rdma_get_request"))
    })
    .or_minus_one_errno()
}

/// `rdma_accept(3)`: accepts the connection request of `id` (the id of an `RDMA_CM_EVENT_CONNECT_REQUEST`), with
/// the parameters and private data of `conn_param`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_accept(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int {
    ffi::boundary("rdma_accept", || -> Result<c_int> { Err(unsupported("rdma_accept")) }).or_minus_one_errno()
}

/// `rdma_reject(3)`: rejects the connection request of `id`, sending `private_data_len` bytes of `private_data`
/// (optional) with the reject. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reject(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int {
    ffi::boundary("rdma_reject", || -> Result<c_int> { Err(unsupported("rdma_reject")) }).or_minus_one_errno()
}

/// `rdma_notify(3)`: reports the QP asynchronous event `event` of the id's QP to the connection manager; only
/// `IBV_EVENT_COMM_EST` matters (data arrived before the connection was established). Returns 0, or -1 with
/// `errno`.
///
/// `event` is the enum's integer (the C prototype says `enum ibv_event_type`, same ABI), so any number is safe.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_notify(id: *mut rdma_cm_id, event: c_uint) -> c_int {
    ffi::boundary("rdma_notify", || -> Result<c_int> { Err(unsupported("rdma_notify")) }).or_minus_one_errno()
}

/// `rdma_disconnect(3)`: disconnects `id` and moves its QP to the error state; both sides get
/// `RDMA_CM_EVENT_DISCONNECTED`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_disconnect(id: *mut rdma_cm_id) -> c_int {
    ffi::boundary("rdma_disconnect", || -> Result<c_int> {
        Err(unsupported("rdma_disconnect"))
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_connect, rdma_establish, rdma_listen, rdma_get_request, rdma_accept, rdma_reject, rdma_notify,
    rdma_disconnect);
