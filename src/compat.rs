//! The `@IBVERBS_1.0` compat symbols (and `ibv_register_driver@IBVERBS_1.1`): present, not supported.
//!
//! # What these are
//! libibverbs 1.0 (2005-2006) handed out objects with different layouts: `struct ibv_device_1_0`,
//! `ibv_context_1_0`, `ibv_pd_1_0`, `ibv_cq_1_0`, ... each wrapping the real 1.1 object behind a `real_*` pointer.
//! rdma-core keeps that ABI alive in `libibverbs/compat-1_0.c`: 33 functions exported as `name@IBVERBS_1.0`
//! (non-default versions) that translate between the two layouts. Only binaries linked against a pre-1.1
//! libibverbs bind to them; everything linked since (including all of Debian) binds to `name@@IBVERBS_1.1`.
//!
//! # What they do here
//! The 1.0 ABI is **not supported**: a binary that old gets a clean failure, not a crash. The symbols exist so that
//! our export table equals rdma-core 44's (`tests/exports`), and each one answers `EOPNOTSUPP` in the C convention of
//! the function it stands for, logging once (warning level, see [`crate::verbs::unsupported`]):
//!
//! | C convention | functions |
//! |---|---|
//! | pointer, or NULL with `errno` | `ibv_get_device_list` (also `*num = 0`), `ibv_get_device_name`, `ibv_open_device`, `ibv_alloc_pd`, `ibv_reg_mr`, `ibv_create_cq`, `ibv_create_srq`, `ibv_create_qp`, `ibv_create_ah` |
//! | `0`/value, or `-1` with `errno` | `ibv_get_async_event`, `ibv_get_cq_event`, `ibv_query_gid`, `ibv_query_pkey` |
//! | `0` or a positive errno | every other `int` function |
//! | `__be64`, 0 on failure (with `errno`) | `ibv_get_device_guid` |
//! | `void`: nothing happens | `ibv_free_device_list`, `ibv_ack_async_event`, `ibv_ack_cq_events` |
//!
//! `ibv_register_driver@IBVERBS_1.1` is the pre-rdma-core-13 provider registration. rdma-core itself made it a
//! no-op kept only so old libfabric usnic providers still link; it is a no-op here too.
//!
//! # How they are exported
//! `build.rs` (tools/exports-gen) emits `.symver crate::compat::<name>_<VERSION>, <name>@<VERSION>` for each, so these
//! are plain Rust functions with the C calling convention, not `#[no_mangle]`: the unversioned name belongs to the
//! default (`@@IBVERBS_1.1`) definition. The 1.0 structs are only ever seen through pointers and are written as
//! `c_void` (`ibv_*_1_0` aliases below); prototypes are those of rdma-core v44.0 `libibverbs/compat-1_0.c`.
//!
//! # Safety
//! C entry points. None reads through its pointer arguments; `ibv_get_device_list@IBVERBS_1.0` writes `*num` when
//! `num` is not NULL.
#![allow(unsafe_code)]
#![allow(unused_variables, clippy::missing_safety_doc)]
// Referenced only by the generated `.symver` table, which unit-test builds leave out.
#![cfg_attr(test, allow(dead_code))]

use crate::verbs::unsupported;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::ptr;

// The 1.0 object wrappers of compat-1_0.c, opaque here.
type ibv_device_1_0 = c_void;
type ibv_context_1_0 = c_void;
type ibv_pd_1_0 = c_void;
type ibv_mr_1_0 = c_void;
type ibv_cq_1_0 = c_void;
type ibv_srq_1_0 = c_void;
type ibv_qp_1_0 = c_void;
type ibv_ah_1_0 = c_void;
type ibv_qp_init_attr_1_0 = c_void;
// 1.1 types the 1.0 functions share with the current ABI (public in verbs.h).
type ibv_async_event = c_void;
type ibv_device_attr = c_void;
type ibv_port_attr = c_void;
type ibv_gid = c_void;
type ibv_comp_channel = c_void;
type ibv_srq_init_attr = c_void;
type ibv_srq_attr = c_void;
type ibv_qp_attr = c_void;
type ibv_ah_attr = c_void;
/// `ibv_driver_init_func_1_1`: `struct ibv_device *(*)(const char *uverbs_sys_path, int abi_version)`.
type ibv_driver_init_func_1_1 = Option<unsafe extern "C" fn(*const c_char, c_int) -> *mut c_void>;

/// `EOPNOTSUPP` as a positive errno, logged once for `what`.
#[cold]
fn refuse(what: &'static str) -> c_int {
    unsupported(what).0
}

/// NULL with `errno = EOPNOTSUPP`, logged once for `what`.
#[cold]
fn refuse_null<T>(what: &'static str) -> *mut T {
    unsupported(what).set();
    ptr::null_mut()
}

/// `-1` with `errno = EOPNOTSUPP`, logged once for `what`.
#[cold]
fn refuse_minus_one(what: &'static str) -> c_int {
    unsupported(what).set();
    -1
}

/// `struct ibv_device_1_0 **ibv_get_device_list@IBVERBS_1.0(int *num)`: NULL with `errno = EOPNOTSUPP`, and
/// `*num = 0` when `num` is not NULL, so a caller that reads the count before testing the list sees no devices.
pub(crate) unsafe extern "C" fn ibv_get_device_list_IBVERBS_1_0(num: *mut c_int) -> *mut *mut ibv_device_1_0 {
    if !num.is_null() {
        // SAFETY: a non-NULL num points to the caller's int.
        unsafe { *num = 0 };
    }
    refuse_null("ibv_get_device_list@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `void ibv_free_device_list@IBVERBS_1.0(struct ibv_device_1_0 **list)`: does nothing (no 1.0 list is ever
/// handed out).
pub(crate) unsafe extern "C" fn ibv_free_device_list_IBVERBS_1_0(list: *mut *mut ibv_device_1_0) {
    unsupported("ibv_free_device_list@IBVERBS_1.0 (libibverbs 1.0 ABI)");
}

/// `const char *ibv_get_device_name@IBVERBS_1.0(struct ibv_device_1_0 *device)`: NULL with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_get_device_name_IBVERBS_1_0(device: *mut ibv_device_1_0) -> *const c_char {
    refuse_null::<c_char>("ibv_get_device_name@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `__be64 ibv_get_device_guid@IBVERBS_1.0(struct ibv_device_1_0 *device)`: 0 (rdma-core's failure value) with
/// `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_get_device_guid_IBVERBS_1_0(device: *mut ibv_device_1_0) -> u64 {
    unsupported("ibv_get_device_guid@IBVERBS_1.0 (libibverbs 1.0 ABI)").set();
    0
}

/// `struct ibv_context_1_0 *ibv_open_device@IBVERBS_1.0(struct ibv_device_1_0 *device)`: NULL with
/// `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_open_device_IBVERBS_1_0(device: *mut ibv_device_1_0) -> *mut ibv_context_1_0 {
    refuse_null("ibv_open_device@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_close_device@IBVERBS_1.0(struct ibv_context_1_0 *context)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_close_device_IBVERBS_1_0(context: *mut ibv_context_1_0) -> c_int {
    refuse("ibv_close_device@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_get_async_event@IBVERBS_1.0(struct ibv_context_1_0 *context, struct ibv_async_event *event)`: `-1`
/// with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_get_async_event_IBVERBS_1_0(
    context: *mut ibv_context_1_0,
    event: *mut ibv_async_event,
) -> c_int {
    refuse_minus_one("ibv_get_async_event@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `void ibv_ack_async_event@IBVERBS_1.0(struct ibv_async_event *event)`: does nothing.
pub(crate) unsafe extern "C" fn ibv_ack_async_event_IBVERBS_1_0(event: *mut ibv_async_event) {
    unsupported("ibv_ack_async_event@IBVERBS_1.0 (libibverbs 1.0 ABI)");
}

/// `int ibv_query_device@IBVERBS_1.0(struct ibv_context_1_0 *context, struct ibv_device_attr *device_attr)`:
/// `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_query_device_IBVERBS_1_0(
    context: *mut ibv_context_1_0,
    device_attr: *mut ibv_device_attr,
) -> c_int {
    refuse("ibv_query_device@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_query_port@IBVERBS_1.0(struct ibv_context_1_0 *context, uint8_t port_num,
/// struct ibv_port_attr *port_attr)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_query_port_IBVERBS_1_0(
    context: *mut ibv_context_1_0,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
) -> c_int {
    refuse("ibv_query_port@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_query_gid@IBVERBS_1.0(struct ibv_context_1_0 *context, uint8_t port_num, int index,
/// union ibv_gid *gid)`: `-1` with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_query_gid_IBVERBS_1_0(
    context: *mut ibv_context_1_0,
    port_num: u8,
    index: c_int,
    gid: *mut ibv_gid,
) -> c_int {
    refuse_minus_one("ibv_query_gid@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_query_pkey@IBVERBS_1.0(struct ibv_context_1_0 *context, uint8_t port_num, int index, __be16 *pkey)`:
/// `-1` with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_query_pkey_IBVERBS_1_0(
    context: *mut ibv_context_1_0,
    port_num: u8,
    index: c_int,
    pkey: *mut u16,
) -> c_int {
    refuse_minus_one("ibv_query_pkey@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `struct ibv_pd_1_0 *ibv_alloc_pd@IBVERBS_1.0(struct ibv_context_1_0 *context)`: NULL with
/// `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_alloc_pd_IBVERBS_1_0(context: *mut ibv_context_1_0) -> *mut ibv_pd_1_0 {
    refuse_null("ibv_alloc_pd@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_dealloc_pd@IBVERBS_1.0(struct ibv_pd_1_0 *pd)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_dealloc_pd_IBVERBS_1_0(pd: *mut ibv_pd_1_0) -> c_int {
    refuse("ibv_dealloc_pd@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `struct ibv_mr_1_0 *ibv_reg_mr@IBVERBS_1.0(struct ibv_pd_1_0 *pd, void *addr, size_t length, int access)`:
/// NULL with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_reg_mr_IBVERBS_1_0(
    pd: *mut ibv_pd_1_0,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr_1_0 {
    refuse_null("ibv_reg_mr@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_dereg_mr@IBVERBS_1.0(struct ibv_mr_1_0 *mr)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_dereg_mr_IBVERBS_1_0(mr: *mut ibv_mr_1_0) -> c_int {
    refuse("ibv_dereg_mr@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `struct ibv_cq_1_0 *ibv_create_cq@IBVERBS_1.0(struct ibv_context_1_0 *context, int cqe, void *cq_context,
/// struct ibv_comp_channel *channel, int comp_vector)`: NULL with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_create_cq_IBVERBS_1_0(
    context: *mut ibv_context_1_0,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
) -> *mut ibv_cq_1_0 {
    refuse_null("ibv_create_cq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_resize_cq@IBVERBS_1.0(struct ibv_cq_1_0 *cq, int cqe)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_resize_cq_IBVERBS_1_0(cq: *mut ibv_cq_1_0, cqe: c_int) -> c_int {
    refuse("ibv_resize_cq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_destroy_cq@IBVERBS_1.0(struct ibv_cq_1_0 *cq)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_destroy_cq_IBVERBS_1_0(cq: *mut ibv_cq_1_0) -> c_int {
    refuse("ibv_destroy_cq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_get_cq_event@IBVERBS_1.0(struct ibv_comp_channel *channel, struct ibv_cq_1_0 **cq,
/// void **cq_context)`: `-1` with `errno = EOPNOTSUPP`; the out-parameters are untouched.
pub(crate) unsafe extern "C" fn ibv_get_cq_event_IBVERBS_1_0(
    channel: *mut ibv_comp_channel,
    cq: *mut *mut ibv_cq_1_0,
    cq_context: *mut *mut c_void,
) -> c_int {
    refuse_minus_one("ibv_get_cq_event@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `void ibv_ack_cq_events@IBVERBS_1.0(struct ibv_cq_1_0 *cq, unsigned int nevents)`: does nothing.
pub(crate) unsafe extern "C" fn ibv_ack_cq_events_IBVERBS_1_0(cq: *mut ibv_cq_1_0, nevents: c_uint) {
    unsupported("ibv_ack_cq_events@IBVERBS_1.0 (libibverbs 1.0 ABI)");
}

/// `struct ibv_srq_1_0 *ibv_create_srq@IBVERBS_1.0(struct ibv_pd_1_0 *pd,
/// struct ibv_srq_init_attr *srq_init_attr)`: NULL with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_create_srq_IBVERBS_1_0(
    pd: *mut ibv_pd_1_0,
    srq_init_attr: *mut ibv_srq_init_attr,
) -> *mut ibv_srq_1_0 {
    refuse_null("ibv_create_srq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_modify_srq@IBVERBS_1.0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)`:
/// `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_modify_srq_IBVERBS_1_0(
    srq: *mut ibv_srq_1_0,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
) -> c_int {
    refuse("ibv_modify_srq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_query_srq@IBVERBS_1.0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *srq_attr)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_query_srq_IBVERBS_1_0(srq: *mut ibv_srq_1_0, srq_attr: *mut ibv_srq_attr) -> c_int {
    refuse("ibv_query_srq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_destroy_srq@IBVERBS_1.0(struct ibv_srq_1_0 *srq)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_destroy_srq_IBVERBS_1_0(srq: *mut ibv_srq_1_0) -> c_int {
    refuse("ibv_destroy_srq@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `struct ibv_qp_1_0 *ibv_create_qp@IBVERBS_1.0(struct ibv_pd_1_0 *pd,
/// struct ibv_qp_init_attr_1_0 *qp_init_attr)`: NULL with `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_create_qp_IBVERBS_1_0(
    pd: *mut ibv_pd_1_0,
    qp_init_attr: *mut ibv_qp_init_attr_1_0,
) -> *mut ibv_qp_1_0 {
    refuse_null("ibv_create_qp@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_query_qp@IBVERBS_1.0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_qp_init_attr_1_0 *init_attr)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_query_qp_IBVERBS_1_0(
    qp: *mut ibv_qp_1_0,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr_1_0,
) -> c_int {
    refuse("ibv_query_qp@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_modify_qp@IBVERBS_1.0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask)`:
/// `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_modify_qp_IBVERBS_1_0(
    qp: *mut ibv_qp_1_0,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
) -> c_int {
    refuse("ibv_modify_qp@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_destroy_qp@IBVERBS_1.0(struct ibv_qp_1_0 *qp)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_destroy_qp_IBVERBS_1_0(qp: *mut ibv_qp_1_0) -> c_int {
    refuse("ibv_destroy_qp@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `struct ibv_ah_1_0 *ibv_create_ah@IBVERBS_1.0(struct ibv_pd_1_0 *pd, struct ibv_ah_attr *attr)`: NULL with
/// `errno = EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_create_ah_IBVERBS_1_0(
    pd: *mut ibv_pd_1_0,
    attr: *mut ibv_ah_attr,
) -> *mut ibv_ah_1_0 {
    refuse_null("ibv_create_ah@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_destroy_ah@IBVERBS_1.0(struct ibv_ah_1_0 *ah)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_destroy_ah_IBVERBS_1_0(ah: *mut ibv_ah_1_0) -> c_int {
    refuse("ibv_destroy_ah@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_attach_mcast@IBVERBS_1.0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_attach_mcast_IBVERBS_1_0(
    qp: *mut ibv_qp_1_0,
    gid: *mut ibv_gid,
    lid: u16,
) -> c_int {
    refuse("ibv_attach_mcast@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `int ibv_detach_mcast@IBVERBS_1.0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid)`: `EOPNOTSUPP`.
pub(crate) unsafe extern "C" fn ibv_detach_mcast_IBVERBS_1_0(
    qp: *mut ibv_qp_1_0,
    gid: *mut ibv_gid,
    lid: u16,
) -> c_int {
    refuse("ibv_detach_mcast@IBVERBS_1.0 (libibverbs 1.0 ABI)")
}

/// `void ibv_register_driver@IBVERBS_1.1(const char *name, ibv_driver_init_func_1_1 init_func)`: the provider
/// registration of libibverbs before rdma-core 13. A no-op, as in rdma-core (kept for old libfabric usnic
/// providers, which call it only to silence a warning of old libibverbs); logged at debug level.
pub(crate) unsafe extern "C" fn ibv_register_driver_IBVERBS_1_1(
    name: *const c_char,
    init_func: ibv_driver_init_func_1_1,
) {
    rdma_common::logging::init("libibverbs");
    log::debug!("ibv_register_driver@IBVERBS_1.1: pre-rdma-core-13 provider registration ignored");
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_common::Errno;

    #[test]
    fn conventions() {
        unsafe {
            let mut n = 5;
            assert!(ibv_get_device_list_IBVERBS_1_0(&mut n).is_null());
            assert_eq!((n, Errno::last()), (0, Errno::EOPNOTSUPP));
            assert!(ibv_get_device_list_IBVERBS_1_0(ptr::null_mut()).is_null());
            assert_eq!(ibv_close_device_IBVERBS_1_0(ptr::null_mut()), libc::EOPNOTSUPP);
            Errno(0).set();
            assert_eq!(ibv_get_cq_event_IBVERBS_1_0(ptr::null_mut(), ptr::null_mut(), ptr::null_mut()), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            assert_eq!(ibv_get_device_guid_IBVERBS_1_0(ptr::null_mut()), 0);
            ibv_free_device_list_IBVERBS_1_0(ptr::null_mut());
            ibv_register_driver_IBVERBS_1_1(ptr::null(), None);
        }
    }
}
