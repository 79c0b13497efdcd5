//! Conversions between kernel ABI structs and verbs structs that rdma-core exports (declared in its uninstalled
//! `marshall.h`; librdmacm and old providers use them): `ibv_copy_qp_attr_from_kern`,
//! `ibv_copy_ah_attr_from_kern`, `ibv_copy_path_rec_from_kern`, `ibv_copy_path_rec_to_kern`. Implemented, field
//! for field as rdma-core 44 copies them (integers converted as C assignment converts them).
#![allow(unsafe_code)]

use rdma_common::abi::sa::ibv_sa_path_rec;
use rdma_common::abi::verbs::*;
use std::ffi::c_int;

/// Stores a kernel `__u32` into a C enum field without creating an invalid Rust enum value (the field is only
/// ever read back through `enum_raw`).
///
/// # Safety
/// `field` must point to a writable 4-byte C enum.
unsafe fn store_enum<E>(field: *mut E, value: u32) {
    const { assert!(size_of::<E>() == 4) };
    unsafe { field.cast::<u32>().write(value) };
}

/// Copies an address vector; `dst` and `src` are valid.
unsafe fn copy_ah_attr(dst: *mut ibv_ah_attr, src: &ib_uverbs_ah_attr) {
    // SAFETY: the caller guarantees `dst` is writable; every field is plain data.
    let dst = unsafe { &mut *dst };
    dst.grh.dgid.raw = src.grh.dgid;
    dst.grh.flow_label = src.grh.flow_label;
    dst.grh.sgid_index = src.grh.sgid_index;
    dst.grh.hop_limit = src.grh.hop_limit;
    dst.grh.traffic_class = src.grh.traffic_class;
    dst.dlid = src.dlid;
    dst.sl = src.sl;
    dst.src_path_bits = src.src_path_bits;
    dst.static_rate = src.static_rate;
    dst.is_global = src.is_global;
    dst.port_num = src.port_num;
}

/// `ibv_copy_ah_attr_from_kern`: fills the address vector `*dst` from the kernel's `*src`. NULL pointers are
/// ignored (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_ah_attr_from_kern(dst: *mut ibv_ah_attr, src: *mut ib_uverbs_ah_attr) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above.
    unsafe { copy_ah_attr(dst, &*src) };
}

/// `ibv_copy_qp_attr_from_kern`: fills `*dst` from the kernel's QP attributes `*src`: every field but
/// `qp_state` and `rate_limit`, which rdma-core does not copy either. NULL pointers are ignored (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_qp_attr_from_kern(dst: *mut ibv_qp_attr, src: *mut ib_uverbs_qp_attr) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above. The enum fields are
    // written as raw numbers through `store_enum`, never read.
    unsafe {
        let s = &*src;
        store_enum(&raw mut (*dst).cur_qp_state, s.cur_qp_state);
        store_enum(&raw mut (*dst).path_mtu, s.path_mtu);
        store_enum(&raw mut (*dst).path_mig_state, s.path_mig_state);
        let d = &mut *dst;
        d.qkey = s.qkey;
        d.rq_psn = s.rq_psn;
        d.sq_psn = s.sq_psn;
        d.dest_qp_num = s.dest_qp_num;
        d.qp_access_flags = s.qp_access_flags;
        d.cap.max_send_wr = s.max_send_wr;
        d.cap.max_recv_wr = s.max_recv_wr;
        d.cap.max_send_sge = s.max_send_sge;
        d.cap.max_recv_sge = s.max_recv_sge;
        d.cap.max_inline_data = s.max_inline_data;
        copy_ah_attr(&raw mut d.ah_attr, &s.ah_attr);
        copy_ah_attr(&raw mut d.alt_ah_attr, &s.alt_ah_attr);
        d.pkey_index = s.pkey_index;
        d.alt_pkey_index = s.alt_pkey_index;
        d.en_sqd_async_notify = s.en_sqd_async_notify;
        d.sq_draining = s.sq_draining;
        d.max_rd_atomic = s.max_rd_atomic;
        d.max_dest_rd_atomic = s.max_dest_rd_atomic;
        d.min_rnr_timer = s.min_rnr_timer;
        d.port_num = s.port_num;
        d.timeout = s.timeout;
        d.retry_cnt = s.retry_cnt;
        d.rnr_retry = s.rnr_retry;
        d.alt_port_num = s.alt_port_num;
        d.alt_timeout = s.alt_timeout;
    }
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
    let (d, s) = unsafe { (&mut *dst, &*src) };
    d.dgid.raw = s.dgid;
    d.sgid.raw = s.sgid;
    d.dlid = s.dlid;
    d.slid = s.slid;
    d.raw_traffic = s.raw_traffic as c_int;
    d.flow_label = s.flow_label;
    d.hop_limit = s.hop_limit;
    d.traffic_class = s.traffic_class;
    d.reversible = s.reversible as c_int;
    d.numb_path = s.numb_path;
    d.pkey = s.pkey;
    d.sl = s.sl;
    d.mtu_selector = s.mtu_selector;
    d.mtu = s.mtu as u8;
    d.rate_selector = s.rate_selector;
    d.rate = s.rate;
    d.packet_life_time = s.packet_life_time;
    d.preference = s.preference;
    d.packet_life_time_selector = s.packet_life_time_selector;
}

/// `ibv_copy_path_rec_to_kern`: fills the kernel path record `*dst` from `*src`. NULL pointers are ignored
/// (`errno = EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_copy_path_rec_to_kern(dst: *mut ib_user_path_rec, src: *mut ibv_sa_path_rec) {
    if dst.is_null() || src.is_null() {
        rdma_common::Errno::EINVAL.set();
        return;
    }
    // SAFETY: both point to valid structs (caller's contract), checked non-NULL above; `ibv_gid` is plain bytes.
    let (d, s) = unsafe { (&mut *dst, &*src) };
    d.dgid = unsafe { s.dgid.raw };
    d.sgid = unsafe { s.sgid.raw };
    d.dlid = s.dlid;
    d.slid = s.slid;
    d.raw_traffic = s.raw_traffic as u32;
    d.flow_label = s.flow_label;
    d.hop_limit = s.hop_limit;
    d.traffic_class = s.traffic_class;
    d.reversible = s.reversible as u32;
    d.numb_path = s.numb_path;
    d.pkey = s.pkey;
    d.sl = s.sl;
    d.mtu_selector = s.mtu_selector;
    d.mtu = s.mtu.into();
    d.rate_selector = s.rate_selector;
    d.rate = s.rate;
    d.packet_life_time = s.packet_life_time;
    d.preference = s.preference;
    d.packet_life_time_selector = s.packet_life_time_selector;
}

rdma_common::check_signatures!(rdma_common::abi::marshall;
    ibv_copy_ah_attr_from_kern, ibv_copy_qp_attr_from_kern, ibv_copy_path_rec_from_kern, ibv_copy_path_rec_to_kern,
);
