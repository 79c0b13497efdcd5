//! Conversions between kernel ABI structs and verbs structs that rdma-core exports (declared in its uninstalled
//! `marshall.h`; librdmacm and old providers use them): `ibv_copy_qp_attr_from_kern`,
//! `ibv_copy_ah_attr_from_kern`, `ibv_copy_path_rec_from_kern`, `ibv_copy_path_rec_to_kern`. Implemented, field
//! for field as rdma-core 44 copies them: thin entry points over `provider::marshall`, where the conversions (both
//! ways, also the ones `ibv_cmd_*` use) live and are tested.
#![allow(unsafe_code)]

use crate::provider::marshall;
use rdma_common::abi::sa::ibv_sa_path_rec;
use rdma_common::abi::verbs::*;

/// `ibv_copy_ah_attr_from_kern`: fills `*dst` from the kernel's address vector `*src`. NULL pointers are ignored
/// (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_ah_attr_from_kern(dst: *mut ibv_ah_attr, src: *mut ib_uverbs_ah_attr) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above.
    unsafe { dst.write(marshall::ah_attr_from_kern(&*src)) };
}

/// `ibv_copy_qp_attr_from_kern`: fills every field of `*dst` rdma-core fills (all but `rate_limit`) from the
/// kernel's `*src`. NULL pointers are ignored (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_qp_attr_from_kern(dst: *mut ibv_qp_attr, src: *mut ib_uverbs_qp_attr) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above.
    unsafe { marshall::qp_attr_from_kern(dst, &*src) };
}

/// `ibv_copy_path_rec_from_kern`: fills the path record `*dst` from the kernel's `*src` (byte orders are kept;
/// `raw_traffic`, `reversible` and `mtu` convert as C assignment does). NULL pointers are ignored
/// (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_path_rec_from_kern(dst: *mut ibv_sa_path_rec, src: *mut ib_user_path_rec) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above.
    unsafe { dst.write(marshall::path_rec_from_kern(&*src)) };
}

/// `ibv_copy_path_rec_to_kern`: fills the kernel path record `*dst` from `*src`. NULL pointers are ignored
/// (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_path_rec_to_kern(dst: *mut ib_user_path_rec, src: *mut ibv_sa_path_rec) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above.
    unsafe { dst.write(marshall::path_rec_to_kern(&*src)) };
}

rdma_common::check_signatures!(rdma_common::abi::marshall;
    ibv_copy_ah_attr_from_kern, ibv_copy_qp_attr_from_kern, ibv_copy_path_rec_from_kern, ibv_copy_path_rec_to_kern,
);
