//! Identifiers: `rdma_create_id`, `rdma_destroy_id`, `rdma_create_ep`, `rdma_destroy_ep`, `rdma_migrate_id`,
//! `rdma_set_option`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::rdma_cma::{rdma_addrinfo, rdma_cm_id, rdma_event_channel};
use rdma_common::abi::verbs::{ibv_pd, ibv_qp_init_attr};
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_uint, c_void};

/// `rdma_create_id(3)`: allocates an id (the RDMA analogue of a socket) in port space `ps` (`RDMA_PS_TCP`,
/// `RDMA_PS_UDP`, `RDMA_PS_IB`, `RDMA_PS_IPOIB`), stores it in `*id` with the user's `context`, and reports its
/// events on `channel` (NULL: the id's calls are synchronous, with a private channel). Returns 0, or -1 with
/// `errno` (`EINVAL` for an unknown port space, `ENOMEM`, `ENODEV` without RDMA devices).
///
/// `ps` is the enum's integer (the C prototype says `enum rdma_port_space`, same ABI), so any number is safe.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_id(
    channel: *mut rdma_event_channel,
    id: *mut *mut rdma_cm_id,
    context: *mut c_void,
    ps: c_uint,
) -> c_int {
    ffi::boundary("rdma_create_id", || -> Result<c_int> {
        Err(unsupported("rdma_create_id"))
    })
    .or_minus_one_errno()
}

/// `rdma_destroy_id(3)`: destroys `id`, cancelling its outstanding operations. Its QP must have been destroyed and
/// its events acknowledged first (the call waits for those acknowledgements). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_id(id: *mut rdma_cm_id) -> c_int {
    ffi::boundary("rdma_destroy_id", || -> Result<c_int> {
        Err(unsupported("rdma_destroy_id"))
    })
    .or_minus_one_errno()
}

/// `rdma_create_ep(3)`: allocates a synchronous id from an `rdma_getaddrinfo` result `res` (bound, or resolved to
/// its destination, as `res` says) and stores it in `*id`; when `qp_init_attr` is given, also creates its QP on
/// `pd` (NULL: the device's default PD). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_ep(
    id: *mut *mut rdma_cm_id,
    res: *mut rdma_addrinfo,
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    ffi::boundary("rdma_create_ep", || -> Result<c_int> {
        Err(unsupported("rdma_create_ep"))
    })
    .or_minus_one_errno()
}

/// `rdma_destroy_ep(3)`: destroys an id made by `rdma_create_ep`, with the QP and SRQ created on it. No return
/// value.
///
/// Not implemented yet: only logs (nothing it could release can exist yet).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_ep(id: *mut rdma_cm_id) {
    unsupported("rdma_destroy_ep");
}

/// `rdma_migrate_id(3)`: moves `id` and its pending events to event channel `channel` (NULL: make the id
/// synchronous with a private channel). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_migrate_id(id: *mut rdma_cm_id, channel: *mut rdma_event_channel) -> c_int {
    ffi::boundary("rdma_migrate_id", || -> Result<c_int> {
        Err(unsupported("rdma_migrate_id"))
    })
    .or_minus_one_errno()
}

/// `rdma_set_option(3)`: sets option `optname` of `level` (`RDMA_OPTION_ID`: `_TOS`, `_REUSEADDR`, `_AFONLY`,
/// `_ACK_TIMEOUT`; `RDMA_OPTION_IB`: `_PATH`) from the `optlen` bytes at `optval`. Returns 0, or -1 with `errno`
/// (`EINVAL` for a bad size, `ENOSYS` for an unknown option).
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_set_option(
    id: *mut rdma_cm_id,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: usize,
) -> c_int {
    ffi::boundary("rdma_set_option", || -> Result<c_int> {
        Err(unsupported("rdma_set_option"))
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_create_id, rdma_destroy_id, rdma_create_ep, rdma_destroy_ep, rdma_migrate_id, rdma_set_option);
