//! Queue pairs and shared receive queues of an id: `rdma_create_qp`, `rdma_create_qp_ex`, `rdma_destroy_qp`,
//! `rdma_init_qp_attr`, and `<rdma/rdma_verbs.h>`'s `rdma_create_srq`, `rdma_create_srq_ex`, `rdma_destroy_srq`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::rdma_cma::rdma_cm_id;
use rdma_common::abi::verbs::{
    ibv_pd, ibv_qp_attr, ibv_qp_init_attr, ibv_qp_init_attr_ex, ibv_srq_init_attr, ibv_srq_init_attr_ex,
};
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::c_int;

/// `rdma_create_qp(3)`: creates the QP of `id` on `pd` (NULL: the device's default PD) with the attributes of
/// `qp_init_attr` (completion queues are created when it has none), stores it in `id->qp` and moves it to the state
/// the id's progress allows (ready to receive; ready to send for UD). `qp_init_attr` gets the capabilities
/// obtained. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_qp(
    id: *mut rdma_cm_id,
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    ffi::boundary("rdma_create_qp", || -> Result<c_int> {
        Err(unsupported("rdma_create_qp"))
    })
    .or_minus_one_errno()
}

/// `rdma_create_qp_ex(3)`: as `rdma_create_qp`, with the extended attributes (`comp_mask`, `pd`, XRC, ...). Returns
/// 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_qp_ex(id: *mut rdma_cm_id, qp_init_attr: *mut ibv_qp_init_attr_ex) -> c_int {
    ffi::boundary("rdma_create_qp_ex", || -> Result<c_int> {
        Err(unsupported("rdma_create_qp_ex"))
    })
    .or_minus_one_errno()
}

/// `rdma_destroy_qp(3)`: destroys the QP of `id` (and the completion queues created for it). No return value.
///
/// Not implemented yet: only logs (nothing it could release can exist yet).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_qp(id: *mut rdma_cm_id) {
    unsupported("rdma_destroy_qp");
}

/// `rdma_init_qp_attr(3)`: fills `*qp_attr` and `*qp_attr_mask` with what `ibv_modify_qp` needs to move an
/// externally created QP to the next state the connection of `id` allows (`qp_attr->qp_state` is the input).
/// Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_init_qp_attr(
    id: *mut rdma_cm_id,
    qp_attr: *mut ibv_qp_attr,
    qp_attr_mask: *mut c_int,
) -> c_int {
    ffi::boundary("rdma_init_qp_attr", || -> Result<c_int> {
        Err(unsupported("rdma_init_qp_attr"))
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_create_qp, rdma_create_qp_ex, rdma_destroy_qp, rdma_init_qp_attr);

/// `rdma_create_srq(3)` (`<rdma/rdma_verbs.h>`): creates a shared receive queue for `id` on `pd` (NULL: the
/// device's default PD) with the attributes of `attr`, and stores it in `id->srq`; the id's QP, created afterwards,
/// uses it. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_srq(id: *mut rdma_cm_id, pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> c_int {
    ffi::boundary("rdma_create_srq", || -> Result<c_int> {
        Err(unsupported("rdma_create_srq"))
    })
    .or_minus_one_errno()
}

/// `rdma_create_srq_ex(3)` (`<rdma/rdma_verbs.h>`): as `rdma_create_srq`, with the extended attributes
/// (`comp_mask`, `srq_type`, `pd`, `cq`, ...). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_srq_ex(id: *mut rdma_cm_id, attr: *mut ibv_srq_init_attr_ex) -> c_int {
    ffi::boundary("rdma_create_srq_ex", || -> Result<c_int> {
        Err(unsupported("rdma_create_srq_ex"))
    })
    .or_minus_one_errno()
}

/// `rdma_destroy_srq(3)` (`<rdma/rdma_verbs.h>`): destroys the SRQ of `id` (and the completion queue created for
/// it). No return value.
///
/// Not implemented yet: only logs (nothing it could release can exist yet).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_srq(id: *mut rdma_cm_id) {
    unsupported("rdma_destroy_srq");
}
rdma_common::check_signatures!(rdma_common::abi::rdma_cma::rdma_verbs;
    rdma_create_srq, rdma_create_srq_ex, rdma_destroy_srq);
