//! The conversions between the kernel's ABI structs and the verbs structs that several commands share, both
//! ways (rdma-core's `marshall.c`): address vectors (CREATE_AH; MODIFY_QP's and QUERY_QP's `dest`), whole QP
//! attributes, path records. The one place for those: `provider::cmd` uses them for MODIFY_QP, QUERY_QP and
//! CREATE_AH, the plug-ins' `ibv_cmd_modify_qp(_ex)` and `ibv_cmd_create_ah` (`crate::private`) for the same
//! commands; `verbs::marshall` exports the ones rdma-core exports (`ibv_copy_*`, its uninstalled `marshall.h`),
//! which librdmacm calls as rdma-core's librdmacm does. A conversion only one command needs stays with that
//! command: QUERY_QP's answer (`provider::cmd::query_qp`, which, as rdma-core, leaves `en_sqd_async_notify`
//! alone), QUERY_DEVICE's and QUERY_PORT's (`provider::cmd`), the work requests and completions of posting and
//! polling through the kernel and the flow specifications (`crate::private::{qp, cq, flow}`); the kernel-only
//! forms (`ib_uverbs_ah_attr` <-> `ib_uverbs_qp_dest`) are `kernel::qp`'s.
//!
//! Field for field as rdma-core 44 copies them, integers converted as C assignment converts them; C enum fields
//! are written and read as numbers (`ffi::enum_store` / `ffi::enum_raw`), never as Rust enum values.
#![allow(unsafe_code)] // writes through the callers' struct pointers; reads unions of plain bytes

use rdma_common::abi::sa::ibv_sa_path_rec;
use rdma_common::abi::verbs::*;
use rdma_common::ffi;
use rdma_common::uapi::ib_user_verbs::ib_uverbs_qp_dest;
use rdma_common::uapi::FromBytes;
use std::ffi::c_int;
use std::ptr::addr_of;

/// `ibv_copy_ah_attr_from_kern`: the kernel's address vector as `struct ibv_ah_attr`.
pub fn ah_attr_from_kern(k: &ib_uverbs_ah_attr) -> ibv_ah_attr {
    ibv_ah_attr {
        grh: ibv_global_route {
            dgid: ibv_gid { raw: k.grh.dgid },
            flow_label: k.grh.flow_label,
            sgid_index: k.grh.sgid_index,
            hop_limit: k.grh.hop_limit,
            traffic_class: k.grh.traffic_class,
        },
        dlid: k.dlid,
        sl: k.sl,
        src_path_bits: k.src_path_bits,
        static_rate: k.static_rate,
        is_global: k.is_global,
        port_num: k.port_num,
    }
}

/// The kernel's mirror of an address vector (CREATE_AH, MODIFY_QP).
pub fn ah_attr_to_kern(a: &ibv_ah_attr) -> ib_uverbs_ah_attr {
    let mut k = ib_uverbs_ah_attr::zeroed();
    // SAFETY: a GID is 16 plain bytes.
    k.grh.dgid = unsafe { a.grh.dgid.raw };
    k.grh.flow_label = a.grh.flow_label;
    k.grh.sgid_index = a.grh.sgid_index;
    k.grh.hop_limit = a.grh.hop_limit;
    k.grh.traffic_class = a.grh.traffic_class;
    k.dlid = a.dlid;
    k.sl = a.sl;
    k.src_path_bits = a.src_path_bits;
    k.static_rate = a.static_rate;
    k.is_global = a.is_global;
    k.port_num = a.port_num;
    k
}

/// QUERY_QP's address vector (`ib_uverbs_qp_dest`) as `struct ibv_ah_attr`.
pub fn ah_attr_from_dest(d: &mut ibv_ah_attr, s: &ib_uverbs_qp_dest) {
    d.grh.dgid.raw = s.dgid;
    d.grh.flow_label = s.flow_label;
    d.dlid = s.dlid;
    d.grh.sgid_index = s.sgid_index;
    d.grh.hop_limit = s.hop_limit;
    d.grh.traffic_class = s.traffic_class;
    d.sl = s.sl;
    d.src_path_bits = s.src_path_bits;
    d.static_rate = s.static_rate;
    d.is_global = s.is_global;
    d.port_num = s.port_num;
}

/// `ibv_copy_qp_attr_from_kern`: every field of `*dst` rdma-core copies (all but `rate_limit`) from `*k`.
///
/// # Safety
/// `dst` points to a writable `struct ibv_qp_attr`.
pub unsafe fn qp_attr_from_kern(dst: *mut ibv_qp_attr, k: &ib_uverbs_qp_attr) {
    // SAFETY: the caller's contract; the enum fields are written as numbers.
    unsafe {
        ffi::enum_store(&raw mut (*dst).qp_state, k.qp_state);
        ffi::enum_store(&raw mut (*dst).cur_qp_state, k.cur_qp_state);
        ffi::enum_store(&raw mut (*dst).path_mtu, k.path_mtu);
        ffi::enum_store(&raw mut (*dst).path_mig_state, k.path_mig_state);
        let d = &mut *dst;
        d.qkey = k.qkey;
        d.rq_psn = k.rq_psn;
        d.sq_psn = k.sq_psn;
        d.dest_qp_num = k.dest_qp_num;
        d.qp_access_flags = k.qp_access_flags;
        d.cap.max_send_wr = k.max_send_wr;
        d.cap.max_recv_wr = k.max_recv_wr;
        d.cap.max_send_sge = k.max_send_sge;
        d.cap.max_recv_sge = k.max_recv_sge;
        d.cap.max_inline_data = k.max_inline_data;
        d.ah_attr = ah_attr_from_kern(&k.ah_attr);
        d.alt_ah_attr = ah_attr_from_kern(&k.alt_ah_attr);
        d.pkey_index = k.pkey_index;
        d.alt_pkey_index = k.alt_pkey_index;
        d.en_sqd_async_notify = k.en_sqd_async_notify;
        d.sq_draining = k.sq_draining;
        d.max_rd_atomic = k.max_rd_atomic;
        d.max_dest_rd_atomic = k.max_dest_rd_atomic;
        d.min_rnr_timer = k.min_rnr_timer;
        d.port_num = k.port_num;
        d.timeout = k.timeout;
        d.retry_cnt = k.retry_cnt;
        d.rnr_retry = k.rnr_retry;
        d.alt_port_num = k.alt_port_num;
        d.alt_timeout = k.alt_timeout;
    }
}

/// `struct ibv_qp_attr` as the kernel's `ib_uverbs_qp_attr` (every field; MODIFY_QP copies the masked ones).
///
/// # Safety
/// `attr` points to a readable `struct ibv_qp_attr`.
pub unsafe fn qp_attr_to_kern(attr: *const ibv_qp_attr) -> ib_uverbs_qp_attr {
    // SAFETY: forwarded.
    unsafe { qp_attr_to_kern_for(attr, u32::MAX) }
}

/// As [`qp_attr_to_kern`] for a MODIFY_QP with `attr_mask` (`IBV_QP_*`), which reads only the masked fields: the
/// two address vectors, the costly part, are converted only when `IBV_QP_AV` / `IBV_QP_ALT_PATH` select them
/// (zero otherwise).
///
/// # Safety
/// As for [`qp_attr_to_kern`].
pub unsafe fn qp_attr_to_kern_for(attr: *const ibv_qp_attr, attr_mask: u32) -> ib_uverbs_qp_attr {
    let has = |bit: ibv_qp_attr_mask| attr_mask & bit as u32 != 0;
    // SAFETY: the caller's contract; enum fields read as numbers.
    unsafe {
        let a = &*attr;
        let mut k = ib_uverbs_qp_attr::zeroed();
        k.qp_state = ffi::enum_raw(addr_of!(a.qp_state));
        k.cur_qp_state = ffi::enum_raw(addr_of!(a.cur_qp_state));
        k.path_mtu = ffi::enum_raw(addr_of!(a.path_mtu));
        k.path_mig_state = ffi::enum_raw(addr_of!(a.path_mig_state));
        k.qkey = a.qkey;
        k.rq_psn = a.rq_psn;
        k.sq_psn = a.sq_psn;
        k.dest_qp_num = a.dest_qp_num;
        k.qp_access_flags = a.qp_access_flags;
        if has(ibv_qp_attr_mask::IBV_QP_AV) {
            k.ah_attr = ah_attr_to_kern(&a.ah_attr);
        }
        if has(ibv_qp_attr_mask::IBV_QP_ALT_PATH) {
            k.alt_ah_attr = ah_attr_to_kern(&a.alt_ah_attr);
        }
        k.max_send_wr = a.cap.max_send_wr;
        k.max_recv_wr = a.cap.max_recv_wr;
        k.max_send_sge = a.cap.max_send_sge;
        k.max_recv_sge = a.cap.max_recv_sge;
        k.max_inline_data = a.cap.max_inline_data;
        k.pkey_index = a.pkey_index;
        k.alt_pkey_index = a.alt_pkey_index;
        k.en_sqd_async_notify = a.en_sqd_async_notify;
        k.sq_draining = a.sq_draining;
        k.max_rd_atomic = a.max_rd_atomic;
        k.max_dest_rd_atomic = a.max_dest_rd_atomic;
        k.min_rnr_timer = a.min_rnr_timer;
        k.port_num = a.port_num;
        k.timeout = a.timeout;
        k.retry_cnt = a.retry_cnt;
        k.rnr_retry = a.rnr_retry;
        k.alt_port_num = a.alt_port_num;
        k.alt_timeout = a.alt_timeout;
        k
    }
}

/// `ibv_copy_path_rec_from_kern`: the kernel's path record as `struct ibv_sa_path_rec` (byte orders kept;
/// `raw_traffic`, `reversible` and `mtu` convert as C assignment does).
pub fn path_rec_from_kern(s: &ib_user_path_rec) -> ibv_sa_path_rec {
    ibv_sa_path_rec {
        dgid: ibv_gid { raw: s.dgid },
        sgid: ibv_gid { raw: s.sgid },
        dlid: s.dlid,
        slid: s.slid,
        raw_traffic: s.raw_traffic as c_int,
        flow_label: s.flow_label,
        hop_limit: s.hop_limit,
        traffic_class: s.traffic_class,
        reversible: s.reversible as c_int,
        numb_path: s.numb_path,
        pkey: s.pkey,
        sl: s.sl,
        mtu_selector: s.mtu_selector,
        mtu: s.mtu as u8,
        rate_selector: s.rate_selector,
        rate: s.rate,
        packet_life_time_selector: s.packet_life_time_selector,
        packet_life_time: s.packet_life_time,
        preference: s.preference,
    }
}

/// `ibv_copy_path_rec_to_kern`: `struct ibv_sa_path_rec` as the kernel's path record.
pub fn path_rec_to_kern(s: &ibv_sa_path_rec) -> ib_user_path_rec {
    ib_user_path_rec {
        // SAFETY (both GIDs): 16 plain bytes.
        dgid: unsafe { s.dgid.raw },
        sgid: unsafe { s.sgid.raw },
        dlid: s.dlid,
        slid: s.slid,
        raw_traffic: s.raw_traffic as u32,
        flow_label: s.flow_label,
        hop_limit: s.hop_limit,
        traffic_class: s.traffic_class,
        reversible: s.reversible as u32,
        numb_path: s.numb_path,
        pkey: s.pkey,
        sl: s.sl,
        mtu_selector: s.mtu_selector,
        mtu: s.mtu.into(),
        rate_selector: s.rate_selector,
        rate: s.rate,
        packet_life_time: s.packet_life_time,
        preference: s.preference,
        packet_life_time_selector: s.packet_life_time_selector,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::MaybeUninit;

    fn kern_qp_attr() -> ib_uverbs_qp_attr {
        let mut k = ib_uverbs_qp_attr::zeroed();
        k.qp_state = 3;
        k.cur_qp_state = 2;
        k.path_mtu = 3;
        k.path_mig_state = 1;
        k.qkey = 0x1111_0000;
        k.dest_qp_num = 0x11;
        k.rq_psn = 0x22;
        k.sq_psn = 0x44;
        k.qp_access_flags = 7;
        k.max_send_wr = 9;
        k.max_recv_wr = 10;
        k.max_send_sge = 2;
        k.max_recv_sge = 3;
        k.max_inline_data = 64;
        k.ah_attr.grh.dgid = [0xfe; 16];
        k.ah_attr.grh.flow_label = 5;
        k.ah_attr.grh.sgid_index = 1;
        k.ah_attr.grh.hop_limit = 64;
        k.ah_attr.grh.traffic_class = 0x20;
        k.ah_attr.dlid = 0x33;
        k.ah_attr.sl = 2;
        k.ah_attr.src_path_bits = 1;
        k.ah_attr.static_rate = 3;
        k.ah_attr.is_global = 1;
        k.ah_attr.port_num = 1;
        k.alt_ah_attr.dlid = 0x55;
        k.pkey_index = 4;
        k.alt_pkey_index = 5;
        k.en_sqd_async_notify = 1;
        k.sq_draining = 1;
        k.max_rd_atomic = 8;
        k.max_dest_rd_atomic = 4;
        k.min_rnr_timer = 12;
        k.port_num = 1;
        k.timeout = 14;
        k.retry_cnt = 7;
        k.rnr_retry = 6;
        k.alt_port_num = 2;
        k.alt_timeout = 15;
        k
    }

    /// From the kernel and back: every field survives both ways; `rate_limit` is left as it was.
    #[test]
    fn qp_attr_round_trip() {
        let k = kern_qp_attr();
        let mut a = MaybeUninit::<ibv_qp_attr>::zeroed();
        // SAFETY: a zeroed, writable ibv_qp_attr (its enum fields are only ever read as numbers).
        unsafe {
            (*a.as_mut_ptr()).rate_limit = 99;
            qp_attr_from_kern(a.as_mut_ptr(), &k);
            let p = a.as_ptr();
            assert_eq!(ffi::enum_raw(addr_of!((*p).qp_state)), 3);
            assert_eq!(ffi::enum_raw(addr_of!((*p).path_mtu)), 3);
            assert_eq!(((*p).dest_qp_num, (*p).rq_psn, (*p).cap.max_send_wr, (*p).rate_limit), (0x11, 0x22, 9, 99));
            assert_eq!((*p).ah_attr.grh.dgid.raw, [0xfe; 16]);
            assert_eq!(((*p).ah_attr.dlid, (*p).alt_ah_attr.dlid, (*p).alt_timeout), (0x33, 0x55, 15));
            let back = qp_attr_to_kern(p);
            assert_eq!(rdma_common::uapi::AsBytes::as_bytes(&back), rdma_common::uapi::AsBytes::as_bytes(&k));
        }
    }

    #[test]
    fn ah_attr_from_query_dest() {
        let mut s = ib_uverbs_qp_dest::zeroed();
        s.dgid = [7; 16];
        s.flow_label = 9;
        s.dlid = 0x1234;
        s.sgid_index = 1;
        s.hop_limit = 64;
        s.is_global = 1;
        s.port_num = 1;
        // SAFETY: all-zero bytes are a valid ibv_ah_attr (integers and a union of bytes).
        let mut d: ibv_ah_attr = unsafe { MaybeUninit::zeroed().assume_init() };
        ah_attr_from_dest(&mut d, &s);
        let k = ah_attr_to_kern(&d);
        assert_eq!((k.grh.dgid, k.grh.flow_label, k.dlid, k.grh.sgid_index), ([7; 16], 9, 0x1234, 1));
        assert_eq!((k.grh.hop_limit, k.is_global, k.port_num), (64, 1, 1));
    }

    #[test]
    fn path_rec_round_trip() {
        let k = ib_user_path_rec {
            dgid: [1; 16],
            sgid: [2; 16],
            dlid: 0x1234,
            slid: 0x4321,
            raw_traffic: 1,
            flow_label: 0x12345,
            hop_limit: 64,
            traffic_class: 0x20,
            reversible: 1,
            numb_path: 1,
            pkey: 0xffff,
            sl: 3,
            mtu_selector: 2,
            mtu: 4,
            rate_selector: 2,
            rate: 7,
            packet_life_time_selector: 2,
            packet_life_time: 18,
            preference: 2,
        };
        let r = path_rec_from_kern(&k);
        // SAFETY: plain bytes.
        assert_eq!(unsafe { (r.dgid.raw, r.sgid.raw) }, ([1; 16], [2; 16]));
        assert_eq!(
            (r.dlid, r.raw_traffic, r.mtu, r.pkey, r.packet_life_time, r.preference),
            (0x1234, 1, 4, 0xffff, 18, 2)
        );
        let back = path_rec_to_kern(&r);
        assert_eq!(rdma_common::uapi::AsBytes::as_bytes(&back), rdma_common::uapi::AsBytes::as_bytes(&k));
    }
}
