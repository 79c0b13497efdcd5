//! The Rust definitions against rdma-core's C headers, field by field: every size, alignment and field offset
//! (nested unnamed members too) of every struct and union of `verbs.h`, `ib_user_ioctl_verbs.h` and `tm_types.h`,
//! every enumerator value and every integer macro that has a Rust counterpart. The numbers were measured from
//! `/usr/include/infiniband` (Debian bookworm, rdma-core 44) with clang's record-layout dump and the layout probe
//! of `tests/layout`, and updated where rdma-core 56 and 65 changed or added them (measured on Debian sid's 65.0
//! headers); the C side of our own headers is checked by that probe.

use super::super::tm_types::*;
use super::*;
use std::mem::{align_of, offset_of, size_of};

#[test]
fn record_layouts() {
    assert_eq!(
        (size_of::<ib_uverbs_query_port_resp>(), align_of::<ib_uverbs_query_port_resp>()),
        (40, 4),
        "ib_uverbs_query_port_resp"
    );
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, port_cap_flags), 0, "ib_uverbs_query_port_resp.port_cap_flags");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, max_msg_sz), 4, "ib_uverbs_query_port_resp.max_msg_sz");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, bad_pkey_cntr), 8, "ib_uverbs_query_port_resp.bad_pkey_cntr");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, qkey_viol_cntr), 12, "ib_uverbs_query_port_resp.qkey_viol_cntr");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, gid_tbl_len), 16, "ib_uverbs_query_port_resp.gid_tbl_len");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, pkey_tbl_len), 20, "ib_uverbs_query_port_resp.pkey_tbl_len");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, lid), 22, "ib_uverbs_query_port_resp.lid");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, sm_lid), 24, "ib_uverbs_query_port_resp.sm_lid");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, state), 26, "ib_uverbs_query_port_resp.state");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, max_mtu), 27, "ib_uverbs_query_port_resp.max_mtu");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, active_mtu), 28, "ib_uverbs_query_port_resp.active_mtu");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, lmc), 29, "ib_uverbs_query_port_resp.lmc");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, max_vl_num), 30, "ib_uverbs_query_port_resp.max_vl_num");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, sm_sl), 31, "ib_uverbs_query_port_resp.sm_sl");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, subnet_timeout), 32, "ib_uverbs_query_port_resp.subnet_timeout");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, init_type_reply), 33, "ib_uverbs_query_port_resp.init_type_reply");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, active_width), 34, "ib_uverbs_query_port_resp.active_width");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, active_speed), 35, "ib_uverbs_query_port_resp.active_speed");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, phys_state), 36, "ib_uverbs_query_port_resp.phys_state");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, link_layer), 37, "ib_uverbs_query_port_resp.link_layer");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, flags), 38, "ib_uverbs_query_port_resp.flags");
    assert_eq!(offset_of!(ib_uverbs_query_port_resp, reserved), 39, "ib_uverbs_query_port_resp.reserved");
    assert_eq!(
        (size_of::<ib_uverbs_global_route>(), align_of::<ib_uverbs_global_route>()),
        (24, 4),
        "ib_uverbs_global_route"
    );
    assert_eq!(offset_of!(ib_uverbs_global_route, dgid), 0, "ib_uverbs_global_route.dgid");
    assert_eq!(offset_of!(ib_uverbs_global_route, flow_label), 16, "ib_uverbs_global_route.flow_label");
    assert_eq!(offset_of!(ib_uverbs_global_route, sgid_index), 20, "ib_uverbs_global_route.sgid_index");
    assert_eq!(offset_of!(ib_uverbs_global_route, hop_limit), 21, "ib_uverbs_global_route.hop_limit");
    assert_eq!(offset_of!(ib_uverbs_global_route, traffic_class), 22, "ib_uverbs_global_route.traffic_class");
    assert_eq!(offset_of!(ib_uverbs_global_route, reserved), 23, "ib_uverbs_global_route.reserved");
    assert_eq!((size_of::<ib_uverbs_ah_attr>(), align_of::<ib_uverbs_ah_attr>()), (32, 4), "ib_uverbs_ah_attr");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh), 0, "ib_uverbs_ah_attr.grh");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh.dgid), 0, "ib_uverbs_ah_attr.grh.dgid");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh.flow_label), 16, "ib_uverbs_ah_attr.grh.flow_label");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh.sgid_index), 20, "ib_uverbs_ah_attr.grh.sgid_index");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh.hop_limit), 21, "ib_uverbs_ah_attr.grh.hop_limit");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh.traffic_class), 22, "ib_uverbs_ah_attr.grh.traffic_class");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, grh.reserved), 23, "ib_uverbs_ah_attr.grh.reserved");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, dlid), 24, "ib_uverbs_ah_attr.dlid");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, sl), 26, "ib_uverbs_ah_attr.sl");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, src_path_bits), 27, "ib_uverbs_ah_attr.src_path_bits");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, static_rate), 28, "ib_uverbs_ah_attr.static_rate");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, is_global), 29, "ib_uverbs_ah_attr.is_global");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, port_num), 30, "ib_uverbs_ah_attr.port_num");
    assert_eq!(offset_of!(ib_uverbs_ah_attr, reserved), 31, "ib_uverbs_ah_attr.reserved");
    assert_eq!((size_of::<ib_uverbs_qp_attr>(), align_of::<ib_uverbs_qp_attr>()), (144, 4), "ib_uverbs_qp_attr");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, qp_attr_mask), 0, "ib_uverbs_qp_attr.qp_attr_mask");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, qp_state), 4, "ib_uverbs_qp_attr.qp_state");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, cur_qp_state), 8, "ib_uverbs_qp_attr.cur_qp_state");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, path_mtu), 12, "ib_uverbs_qp_attr.path_mtu");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, path_mig_state), 16, "ib_uverbs_qp_attr.path_mig_state");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, qkey), 20, "ib_uverbs_qp_attr.qkey");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, rq_psn), 24, "ib_uverbs_qp_attr.rq_psn");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, sq_psn), 28, "ib_uverbs_qp_attr.sq_psn");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, dest_qp_num), 32, "ib_uverbs_qp_attr.dest_qp_num");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, qp_access_flags), 36, "ib_uverbs_qp_attr.qp_access_flags");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr), 40, "ib_uverbs_qp_attr.ah_attr");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.grh), 40, "ib_uverbs_qp_attr.ah_attr.grh");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.grh.dgid), 40, "ib_uverbs_qp_attr.ah_attr.grh.dgid");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.grh.flow_label), 56, "ib_uverbs_qp_attr.ah_attr.grh.flow_label");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.grh.sgid_index), 60, "ib_uverbs_qp_attr.ah_attr.grh.sgid_index");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.grh.hop_limit), 61, "ib_uverbs_qp_attr.ah_attr.grh.hop_limit");
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, ah_attr.grh.traffic_class),
        62,
        "ib_uverbs_qp_attr.ah_attr.grh.traffic_class"
    );
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.grh.reserved), 63, "ib_uverbs_qp_attr.ah_attr.grh.reserved");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.dlid), 64, "ib_uverbs_qp_attr.ah_attr.dlid");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.sl), 66, "ib_uverbs_qp_attr.ah_attr.sl");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.src_path_bits), 67, "ib_uverbs_qp_attr.ah_attr.src_path_bits");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.static_rate), 68, "ib_uverbs_qp_attr.ah_attr.static_rate");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.is_global), 69, "ib_uverbs_qp_attr.ah_attr.is_global");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.port_num), 70, "ib_uverbs_qp_attr.ah_attr.port_num");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, ah_attr.reserved), 71, "ib_uverbs_qp_attr.ah_attr.reserved");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr), 72, "ib_uverbs_qp_attr.alt_ah_attr");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh), 72, "ib_uverbs_qp_attr.alt_ah_attr.grh");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh.dgid), 72, "ib_uverbs_qp_attr.alt_ah_attr.grh.dgid");
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh.flow_label),
        88,
        "ib_uverbs_qp_attr.alt_ah_attr.grh.flow_label"
    );
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh.sgid_index),
        92,
        "ib_uverbs_qp_attr.alt_ah_attr.grh.sgid_index"
    );
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh.hop_limit),
        93,
        "ib_uverbs_qp_attr.alt_ah_attr.grh.hop_limit"
    );
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh.traffic_class),
        94,
        "ib_uverbs_qp_attr.alt_ah_attr.grh.traffic_class"
    );
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.grh.reserved),
        95,
        "ib_uverbs_qp_attr.alt_ah_attr.grh.reserved"
    );
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.dlid), 96, "ib_uverbs_qp_attr.alt_ah_attr.dlid");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.sl), 98, "ib_uverbs_qp_attr.alt_ah_attr.sl");
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.src_path_bits),
        99,
        "ib_uverbs_qp_attr.alt_ah_attr.src_path_bits"
    );
    assert_eq!(
        offset_of!(ib_uverbs_qp_attr, alt_ah_attr.static_rate),
        100,
        "ib_uverbs_qp_attr.alt_ah_attr.static_rate"
    );
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.is_global), 101, "ib_uverbs_qp_attr.alt_ah_attr.is_global");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.port_num), 102, "ib_uverbs_qp_attr.alt_ah_attr.port_num");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_ah_attr.reserved), 103, "ib_uverbs_qp_attr.alt_ah_attr.reserved");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_send_wr), 104, "ib_uverbs_qp_attr.max_send_wr");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_recv_wr), 108, "ib_uverbs_qp_attr.max_recv_wr");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_send_sge), 112, "ib_uverbs_qp_attr.max_send_sge");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_recv_sge), 116, "ib_uverbs_qp_attr.max_recv_sge");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_inline_data), 120, "ib_uverbs_qp_attr.max_inline_data");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, pkey_index), 124, "ib_uverbs_qp_attr.pkey_index");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_pkey_index), 126, "ib_uverbs_qp_attr.alt_pkey_index");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, en_sqd_async_notify), 128, "ib_uverbs_qp_attr.en_sqd_async_notify");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, sq_draining), 129, "ib_uverbs_qp_attr.sq_draining");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_rd_atomic), 130, "ib_uverbs_qp_attr.max_rd_atomic");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, max_dest_rd_atomic), 131, "ib_uverbs_qp_attr.max_dest_rd_atomic");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, min_rnr_timer), 132, "ib_uverbs_qp_attr.min_rnr_timer");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, port_num), 133, "ib_uverbs_qp_attr.port_num");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, timeout), 134, "ib_uverbs_qp_attr.timeout");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, retry_cnt), 135, "ib_uverbs_qp_attr.retry_cnt");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, rnr_retry), 136, "ib_uverbs_qp_attr.rnr_retry");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_port_num), 137, "ib_uverbs_qp_attr.alt_port_num");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, alt_timeout), 138, "ib_uverbs_qp_attr.alt_timeout");
    assert_eq!(offset_of!(ib_uverbs_qp_attr, reserved), 139, "ib_uverbs_qp_attr.reserved");
    assert_eq!(
        (size_of::<ib_uverbs_flow_action_esp_keymat_aes_gcm>(), align_of::<ib_uverbs_flow_action_esp_keymat_aes_gcm>()),
        (56, 8),
        "ib_uverbs_flow_action_esp_keymat_aes_gcm"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, iv),
        0,
        "ib_uverbs_flow_action_esp_keymat_aes_gcm.iv"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, iv_algo),
        8,
        "ib_uverbs_flow_action_esp_keymat_aes_gcm.iv_algo"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, salt),
        12,
        "ib_uverbs_flow_action_esp_keymat_aes_gcm.salt"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, icv_len),
        16,
        "ib_uverbs_flow_action_esp_keymat_aes_gcm.icv_len"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, key_len),
        20,
        "ib_uverbs_flow_action_esp_keymat_aes_gcm.key_len"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, aes_key),
        24,
        "ib_uverbs_flow_action_esp_keymat_aes_gcm.aes_key"
    );
    assert_eq!(
        (size_of::<ib_uverbs_flow_action_esp_replay_bmp>(), align_of::<ib_uverbs_flow_action_esp_replay_bmp>()),
        (4, 4),
        "ib_uverbs_flow_action_esp_replay_bmp"
    );
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp_replay_bmp, size), 0, "ib_uverbs_flow_action_esp_replay_bmp.size");
    assert_eq!(
        (size_of::<ib_uverbs_flow_action_esp_encap>(), align_of::<ib_uverbs_flow_action_esp_encap>()),
        (24, 8),
        "ib_uverbs_flow_action_esp_encap"
    );
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp_encap, val_ptr), 0, "ib_uverbs_flow_action_esp_encap.val_ptr");
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_encap, val_ptr.val_ptr),
        0,
        "ib_uverbs_flow_action_esp_encap.val_ptr.val_ptr"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_encap, val_ptr.val_ptr_data_u64),
        0,
        "ib_uverbs_flow_action_esp_encap.val_ptr.val_ptr_data_u64"
    );
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp_encap, next_ptr), 8, "ib_uverbs_flow_action_esp_encap.next_ptr");
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_encap, next_ptr.next_ptr),
        8,
        "ib_uverbs_flow_action_esp_encap.next_ptr.next_ptr"
    );
    assert_eq!(
        offset_of!(ib_uverbs_flow_action_esp_encap, next_ptr.next_ptr_data_u64),
        8,
        "ib_uverbs_flow_action_esp_encap.next_ptr.next_ptr_data_u64"
    );
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp_encap, len), 16, "ib_uverbs_flow_action_esp_encap.len");
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp_encap, r#type), 18, "ib_uverbs_flow_action_esp_encap.r#type");
    assert_eq!(
        (size_of::<ib_uverbs_flow_action_esp>(), align_of::<ib_uverbs_flow_action_esp>()),
        (24, 8),
        "ib_uverbs_flow_action_esp"
    );
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp, spi), 0, "ib_uverbs_flow_action_esp.spi");
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp, seq), 4, "ib_uverbs_flow_action_esp.seq");
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp, tfc_pad), 8, "ib_uverbs_flow_action_esp.tfc_pad");
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp, flags), 12, "ib_uverbs_flow_action_esp.flags");
    assert_eq!(offset_of!(ib_uverbs_flow_action_esp, hard_limit_pkts), 16, "ib_uverbs_flow_action_esp.hard_limit_pkts");
    assert_eq!(
        (size_of::<ib_uverbs_query_port_resp_ex>(), align_of::<ib_uverbs_query_port_resp_ex>()),
        (48, 4),
        "ib_uverbs_query_port_resp_ex"
    );
    assert_eq!(offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp), 0, "ib_uverbs_query_port_resp_ex.legacy_resp");
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, active_speed_ex),
        44,
        "ib_uverbs_query_port_resp_ex.active_speed_ex"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.port_cap_flags),
        0,
        "ib_uverbs_query_port_resp_ex.legacy_resp.port_cap_flags"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.max_msg_sz),
        4,
        "ib_uverbs_query_port_resp_ex.legacy_resp.max_msg_sz"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.bad_pkey_cntr),
        8,
        "ib_uverbs_query_port_resp_ex.legacy_resp.bad_pkey_cntr"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.qkey_viol_cntr),
        12,
        "ib_uverbs_query_port_resp_ex.legacy_resp.qkey_viol_cntr"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.gid_tbl_len),
        16,
        "ib_uverbs_query_port_resp_ex.legacy_resp.gid_tbl_len"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.pkey_tbl_len),
        20,
        "ib_uverbs_query_port_resp_ex.legacy_resp.pkey_tbl_len"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.lid),
        22,
        "ib_uverbs_query_port_resp_ex.legacy_resp.lid"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.sm_lid),
        24,
        "ib_uverbs_query_port_resp_ex.legacy_resp.sm_lid"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.state),
        26,
        "ib_uverbs_query_port_resp_ex.legacy_resp.state"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.max_mtu),
        27,
        "ib_uverbs_query_port_resp_ex.legacy_resp.max_mtu"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.active_mtu),
        28,
        "ib_uverbs_query_port_resp_ex.legacy_resp.active_mtu"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.lmc),
        29,
        "ib_uverbs_query_port_resp_ex.legacy_resp.lmc"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.max_vl_num),
        30,
        "ib_uverbs_query_port_resp_ex.legacy_resp.max_vl_num"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.sm_sl),
        31,
        "ib_uverbs_query_port_resp_ex.legacy_resp.sm_sl"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.subnet_timeout),
        32,
        "ib_uverbs_query_port_resp_ex.legacy_resp.subnet_timeout"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.init_type_reply),
        33,
        "ib_uverbs_query_port_resp_ex.legacy_resp.init_type_reply"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.active_width),
        34,
        "ib_uverbs_query_port_resp_ex.legacy_resp.active_width"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.active_speed),
        35,
        "ib_uverbs_query_port_resp_ex.legacy_resp.active_speed"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.phys_state),
        36,
        "ib_uverbs_query_port_resp_ex.legacy_resp.phys_state"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.link_layer),
        37,
        "ib_uverbs_query_port_resp_ex.legacy_resp.link_layer"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.flags),
        38,
        "ib_uverbs_query_port_resp_ex.legacy_resp.flags"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, legacy_resp.reserved),
        39,
        "ib_uverbs_query_port_resp_ex.legacy_resp.reserved"
    );
    assert_eq!(
        offset_of!(ib_uverbs_query_port_resp_ex, port_cap_flags2),
        40,
        "ib_uverbs_query_port_resp_ex.port_cap_flags2"
    );
    assert_eq!(offset_of!(ib_uverbs_query_port_resp_ex, reserved), 42, "ib_uverbs_query_port_resp_ex.reserved");
    assert_eq!((size_of::<ib_uverbs_qp_cap>(), align_of::<ib_uverbs_qp_cap>()), (20, 4), "ib_uverbs_qp_cap");
    assert_eq!(offset_of!(ib_uverbs_qp_cap, max_send_wr), 0, "ib_uverbs_qp_cap.max_send_wr");
    assert_eq!(offset_of!(ib_uverbs_qp_cap, max_recv_wr), 4, "ib_uverbs_qp_cap.max_recv_wr");
    assert_eq!(offset_of!(ib_uverbs_qp_cap, max_send_sge), 8, "ib_uverbs_qp_cap.max_send_sge");
    assert_eq!(offset_of!(ib_uverbs_qp_cap, max_recv_sge), 12, "ib_uverbs_qp_cap.max_recv_sge");
    assert_eq!(offset_of!(ib_uverbs_qp_cap, max_inline_data), 16, "ib_uverbs_qp_cap.max_inline_data");
    assert_eq!((size_of::<ib_uverbs_gid_entry>(), align_of::<ib_uverbs_gid_entry>()), (32, 8), "ib_uverbs_gid_entry");
    assert_eq!(offset_of!(ib_uverbs_gid_entry, gid), 0, "ib_uverbs_gid_entry.gid");
    assert_eq!(offset_of!(ib_uverbs_gid_entry, gid_index), 16, "ib_uverbs_gid_entry.gid_index");
    assert_eq!(offset_of!(ib_uverbs_gid_entry, port_num), 20, "ib_uverbs_gid_entry.port_num");
    assert_eq!(offset_of!(ib_uverbs_gid_entry, gid_type), 24, "ib_uverbs_gid_entry.gid_type");
    assert_eq!(offset_of!(ib_uverbs_gid_entry, netdev_ifindex), 28, "ib_uverbs_gid_entry.netdev_ifindex");
    assert_eq!((size_of::<ibv_gid>(), align_of::<ibv_gid>()), (16, 8), "ibv_gid");
    assert_eq!(offset_of!(ibv_gid, raw), 0, "ibv_gid.raw");
    assert_eq!(offset_of!(ibv_gid, global), 0, "ibv_gid.global");
    assert_eq!(offset_of!(ibv_gid, global.subnet_prefix), 0, "ibv_gid.global.subnet_prefix");
    assert_eq!(offset_of!(ibv_gid, global.interface_id), 8, "ibv_gid.global.interface_id");
    assert_eq!((size_of::<ibv_gid_entry>(), align_of::<ibv_gid_entry>()), (32, 8), "ibv_gid_entry");
    assert_eq!(offset_of!(ibv_gid_entry, gid), 0, "ibv_gid_entry.gid");
    assert_eq!(offset_of!(ibv_gid_entry, gid.raw), 0, "ibv_gid_entry.gid.raw");
    assert_eq!(offset_of!(ibv_gid_entry, gid.global), 0, "ibv_gid_entry.gid.global");
    assert_eq!(offset_of!(ibv_gid_entry, gid.global.subnet_prefix), 0, "ibv_gid_entry.gid.global.subnet_prefix");
    assert_eq!(offset_of!(ibv_gid_entry, gid.global.interface_id), 8, "ibv_gid_entry.gid.global.interface_id");
    assert_eq!(offset_of!(ibv_gid_entry, gid_index), 16, "ibv_gid_entry.gid_index");
    assert_eq!(offset_of!(ibv_gid_entry, port_num), 20, "ibv_gid_entry.port_num");
    assert_eq!(offset_of!(ibv_gid_entry, gid_type), 24, "ibv_gid_entry.gid_type");
    assert_eq!(offset_of!(ibv_gid_entry, ndev_ifindex), 28, "ibv_gid_entry.ndev_ifindex");
    assert_eq!((size_of::<ibv_alloc_dm_attr>(), align_of::<ibv_alloc_dm_attr>()), (16, 8), "ibv_alloc_dm_attr");
    assert_eq!(offset_of!(ibv_alloc_dm_attr, length), 0, "ibv_alloc_dm_attr.length");
    assert_eq!(offset_of!(ibv_alloc_dm_attr, log_align_req), 8, "ibv_alloc_dm_attr.log_align_req");
    assert_eq!(offset_of!(ibv_alloc_dm_attr, comp_mask), 12, "ibv_alloc_dm_attr.comp_mask");
    assert_eq!((size_of::<ibv_dm>(), align_of::<ibv_dm>()), (32, 8), "ibv_dm");
    assert_eq!(offset_of!(ibv_dm, context), 0, "ibv_dm.context");
    assert_eq!(offset_of!(ibv_dm, memcpy_to_dm), 8, "ibv_dm.memcpy_to_dm");
    assert_eq!(offset_of!(ibv_dm, memcpy_from_dm), 16, "ibv_dm.memcpy_from_dm");
    assert_eq!(offset_of!(ibv_dm, comp_mask), 24, "ibv_dm.comp_mask");
    assert_eq!(offset_of!(ibv_dm, handle), 28, "ibv_dm.handle");
    assert_eq!((size_of::<ibv_device_attr>(), align_of::<ibv_device_attr>()), (232, 8), "ibv_device_attr");
    assert_eq!(offset_of!(ibv_device_attr, fw_ver), 0, "ibv_device_attr.fw_ver");
    assert_eq!(offset_of!(ibv_device_attr, node_guid), 64, "ibv_device_attr.node_guid");
    assert_eq!(offset_of!(ibv_device_attr, sys_image_guid), 72, "ibv_device_attr.sys_image_guid");
    assert_eq!(offset_of!(ibv_device_attr, max_mr_size), 80, "ibv_device_attr.max_mr_size");
    assert_eq!(offset_of!(ibv_device_attr, page_size_cap), 88, "ibv_device_attr.page_size_cap");
    assert_eq!(offset_of!(ibv_device_attr, vendor_id), 96, "ibv_device_attr.vendor_id");
    assert_eq!(offset_of!(ibv_device_attr, vendor_part_id), 100, "ibv_device_attr.vendor_part_id");
    assert_eq!(offset_of!(ibv_device_attr, hw_ver), 104, "ibv_device_attr.hw_ver");
    assert_eq!(offset_of!(ibv_device_attr, max_qp), 108, "ibv_device_attr.max_qp");
    assert_eq!(offset_of!(ibv_device_attr, max_qp_wr), 112, "ibv_device_attr.max_qp_wr");
    assert_eq!(offset_of!(ibv_device_attr, device_cap_flags), 116, "ibv_device_attr.device_cap_flags");
    assert_eq!(offset_of!(ibv_device_attr, max_sge), 120, "ibv_device_attr.max_sge");
    assert_eq!(offset_of!(ibv_device_attr, max_sge_rd), 124, "ibv_device_attr.max_sge_rd");
    assert_eq!(offset_of!(ibv_device_attr, max_cq), 128, "ibv_device_attr.max_cq");
    assert_eq!(offset_of!(ibv_device_attr, max_cqe), 132, "ibv_device_attr.max_cqe");
    assert_eq!(offset_of!(ibv_device_attr, max_mr), 136, "ibv_device_attr.max_mr");
    assert_eq!(offset_of!(ibv_device_attr, max_pd), 140, "ibv_device_attr.max_pd");
    assert_eq!(offset_of!(ibv_device_attr, max_qp_rd_atom), 144, "ibv_device_attr.max_qp_rd_atom");
    assert_eq!(offset_of!(ibv_device_attr, max_ee_rd_atom), 148, "ibv_device_attr.max_ee_rd_atom");
    assert_eq!(offset_of!(ibv_device_attr, max_res_rd_atom), 152, "ibv_device_attr.max_res_rd_atom");
    assert_eq!(offset_of!(ibv_device_attr, max_qp_init_rd_atom), 156, "ibv_device_attr.max_qp_init_rd_atom");
    assert_eq!(offset_of!(ibv_device_attr, max_ee_init_rd_atom), 160, "ibv_device_attr.max_ee_init_rd_atom");
    assert_eq!(offset_of!(ibv_device_attr, atomic_cap), 164, "ibv_device_attr.atomic_cap");
    assert_eq!(offset_of!(ibv_device_attr, max_ee), 168, "ibv_device_attr.max_ee");
    assert_eq!(offset_of!(ibv_device_attr, max_rdd), 172, "ibv_device_attr.max_rdd");
    assert_eq!(offset_of!(ibv_device_attr, max_mw), 176, "ibv_device_attr.max_mw");
    assert_eq!(offset_of!(ibv_device_attr, max_raw_ipv6_qp), 180, "ibv_device_attr.max_raw_ipv6_qp");
    assert_eq!(offset_of!(ibv_device_attr, max_raw_ethy_qp), 184, "ibv_device_attr.max_raw_ethy_qp");
    assert_eq!(offset_of!(ibv_device_attr, max_mcast_grp), 188, "ibv_device_attr.max_mcast_grp");
    assert_eq!(offset_of!(ibv_device_attr, max_mcast_qp_attach), 192, "ibv_device_attr.max_mcast_qp_attach");
    assert_eq!(
        offset_of!(ibv_device_attr, max_total_mcast_qp_attach),
        196,
        "ibv_device_attr.max_total_mcast_qp_attach"
    );
    assert_eq!(offset_of!(ibv_device_attr, max_ah), 200, "ibv_device_attr.max_ah");
    assert_eq!(offset_of!(ibv_device_attr, max_fmr), 204, "ibv_device_attr.max_fmr");
    assert_eq!(offset_of!(ibv_device_attr, max_map_per_fmr), 208, "ibv_device_attr.max_map_per_fmr");
    assert_eq!(offset_of!(ibv_device_attr, max_srq), 212, "ibv_device_attr.max_srq");
    assert_eq!(offset_of!(ibv_device_attr, max_srq_wr), 216, "ibv_device_attr.max_srq_wr");
    assert_eq!(offset_of!(ibv_device_attr, max_srq_sge), 220, "ibv_device_attr.max_srq_sge");
    assert_eq!(offset_of!(ibv_device_attr, max_pkeys), 224, "ibv_device_attr.max_pkeys");
    assert_eq!(offset_of!(ibv_device_attr, local_ca_ack_delay), 226, "ibv_device_attr.local_ca_ack_delay");
    assert_eq!(offset_of!(ibv_device_attr, phys_port_cnt), 227, "ibv_device_attr.phys_port_cnt");
    assert_eq!(
        (size_of::<ibv_query_device_ex_input>(), align_of::<ibv_query_device_ex_input>()),
        (4, 4),
        "ibv_query_device_ex_input"
    );
    assert_eq!(offset_of!(ibv_query_device_ex_input, comp_mask), 0, "ibv_query_device_ex_input.comp_mask");
    assert_eq!((size_of::<ibv_odp_caps>(), align_of::<ibv_odp_caps>()), (24, 8), "ibv_odp_caps");
    assert_eq!(offset_of!(ibv_odp_caps, general_caps), 0, "ibv_odp_caps.general_caps");
    assert_eq!(offset_of!(ibv_odp_caps, per_transport_caps), 8, "ibv_odp_caps.per_transport_caps");
    assert_eq!(
        offset_of!(ibv_odp_caps, per_transport_caps.rc_odp_caps),
        8,
        "ibv_odp_caps.per_transport_caps.rc_odp_caps"
    );
    assert_eq!(
        offset_of!(ibv_odp_caps, per_transport_caps.uc_odp_caps),
        12,
        "ibv_odp_caps.per_transport_caps.uc_odp_caps"
    );
    assert_eq!(
        offset_of!(ibv_odp_caps, per_transport_caps.ud_odp_caps),
        16,
        "ibv_odp_caps.per_transport_caps.ud_odp_caps"
    );
    assert_eq!((size_of::<ibv_tso_caps>(), align_of::<ibv_tso_caps>()), (8, 4), "ibv_tso_caps");
    assert_eq!(offset_of!(ibv_tso_caps, max_tso), 0, "ibv_tso_caps.max_tso");
    assert_eq!(offset_of!(ibv_tso_caps, supported_qpts), 4, "ibv_tso_caps.supported_qpts");
    assert_eq!((size_of::<ibv_rss_caps>(), align_of::<ibv_rss_caps>()), (32, 8), "ibv_rss_caps");
    assert_eq!(offset_of!(ibv_rss_caps, supported_qpts), 0, "ibv_rss_caps.supported_qpts");
    assert_eq!(offset_of!(ibv_rss_caps, max_rwq_indirection_tables), 4, "ibv_rss_caps.max_rwq_indirection_tables");
    assert_eq!(
        offset_of!(ibv_rss_caps, max_rwq_indirection_table_size),
        8,
        "ibv_rss_caps.max_rwq_indirection_table_size"
    );
    assert_eq!(offset_of!(ibv_rss_caps, rx_hash_fields_mask), 16, "ibv_rss_caps.rx_hash_fields_mask");
    assert_eq!(offset_of!(ibv_rss_caps, rx_hash_function), 24, "ibv_rss_caps.rx_hash_function");
    assert_eq!(
        (size_of::<ibv_packet_pacing_caps>(), align_of::<ibv_packet_pacing_caps>()),
        (12, 4),
        "ibv_packet_pacing_caps"
    );
    assert_eq!(offset_of!(ibv_packet_pacing_caps, qp_rate_limit_min), 0, "ibv_packet_pacing_caps.qp_rate_limit_min");
    assert_eq!(offset_of!(ibv_packet_pacing_caps, qp_rate_limit_max), 4, "ibv_packet_pacing_caps.qp_rate_limit_max");
    assert_eq!(offset_of!(ibv_packet_pacing_caps, supported_qpts), 8, "ibv_packet_pacing_caps.supported_qpts");
    assert_eq!((size_of::<ibv_tm_caps>(), align_of::<ibv_tm_caps>()), (20, 4), "ibv_tm_caps");
    assert_eq!(offset_of!(ibv_tm_caps, max_rndv_hdr_size), 0, "ibv_tm_caps.max_rndv_hdr_size");
    assert_eq!(offset_of!(ibv_tm_caps, max_num_tags), 4, "ibv_tm_caps.max_num_tags");
    assert_eq!(offset_of!(ibv_tm_caps, flags), 8, "ibv_tm_caps.flags");
    assert_eq!(offset_of!(ibv_tm_caps, max_ops), 12, "ibv_tm_caps.max_ops");
    assert_eq!(offset_of!(ibv_tm_caps, max_sge), 16, "ibv_tm_caps.max_sge");
    assert_eq!(
        (size_of::<ibv_cq_moderation_caps>(), align_of::<ibv_cq_moderation_caps>()),
        (4, 2),
        "ibv_cq_moderation_caps"
    );
    assert_eq!(offset_of!(ibv_cq_moderation_caps, max_cq_count), 0, "ibv_cq_moderation_caps.max_cq_count");
    assert_eq!(offset_of!(ibv_cq_moderation_caps, max_cq_period), 2, "ibv_cq_moderation_caps.max_cq_period");
    assert_eq!((size_of::<ibv_pci_atomic_caps>(), align_of::<ibv_pci_atomic_caps>()), (6, 2), "ibv_pci_atomic_caps");
    assert_eq!(offset_of!(ibv_pci_atomic_caps, fetch_add), 0, "ibv_pci_atomic_caps.fetch_add");
    assert_eq!(offset_of!(ibv_pci_atomic_caps, swap), 2, "ibv_pci_atomic_caps.swap");
    assert_eq!(offset_of!(ibv_pci_atomic_caps, compare_swap), 4, "ibv_pci_atomic_caps.compare_swap");
    assert_eq!((size_of::<ibv_device_attr_ex>(), align_of::<ibv_device_attr_ex>()), (400, 8), "ibv_device_attr_ex");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr), 0, "ibv_device_attr_ex.orig_attr");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.fw_ver), 0, "ibv_device_attr_ex.orig_attr.fw_ver");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.node_guid), 64, "ibv_device_attr_ex.orig_attr.node_guid");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.sys_image_guid),
        72,
        "ibv_device_attr_ex.orig_attr.sys_image_guid"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_mr_size), 80, "ibv_device_attr_ex.orig_attr.max_mr_size");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.page_size_cap),
        88,
        "ibv_device_attr_ex.orig_attr.page_size_cap"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.vendor_id), 96, "ibv_device_attr_ex.orig_attr.vendor_id");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.vendor_part_id),
        100,
        "ibv_device_attr_ex.orig_attr.vendor_part_id"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.hw_ver), 104, "ibv_device_attr_ex.orig_attr.hw_ver");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_qp), 108, "ibv_device_attr_ex.orig_attr.max_qp");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_qp_wr), 112, "ibv_device_attr_ex.orig_attr.max_qp_wr");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.device_cap_flags),
        116,
        "ibv_device_attr_ex.orig_attr.device_cap_flags"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_sge), 120, "ibv_device_attr_ex.orig_attr.max_sge");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_sge_rd), 124, "ibv_device_attr_ex.orig_attr.max_sge_rd");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_cq), 128, "ibv_device_attr_ex.orig_attr.max_cq");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_cqe), 132, "ibv_device_attr_ex.orig_attr.max_cqe");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_mr), 136, "ibv_device_attr_ex.orig_attr.max_mr");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_pd), 140, "ibv_device_attr_ex.orig_attr.max_pd");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_qp_rd_atom),
        144,
        "ibv_device_attr_ex.orig_attr.max_qp_rd_atom"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_ee_rd_atom),
        148,
        "ibv_device_attr_ex.orig_attr.max_ee_rd_atom"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_res_rd_atom),
        152,
        "ibv_device_attr_ex.orig_attr.max_res_rd_atom"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_qp_init_rd_atom),
        156,
        "ibv_device_attr_ex.orig_attr.max_qp_init_rd_atom"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_ee_init_rd_atom),
        160,
        "ibv_device_attr_ex.orig_attr.max_ee_init_rd_atom"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.atomic_cap), 164, "ibv_device_attr_ex.orig_attr.atomic_cap");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_ee), 168, "ibv_device_attr_ex.orig_attr.max_ee");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_rdd), 172, "ibv_device_attr_ex.orig_attr.max_rdd");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_mw), 176, "ibv_device_attr_ex.orig_attr.max_mw");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_raw_ipv6_qp),
        180,
        "ibv_device_attr_ex.orig_attr.max_raw_ipv6_qp"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_raw_ethy_qp),
        184,
        "ibv_device_attr_ex.orig_attr.max_raw_ethy_qp"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_mcast_grp),
        188,
        "ibv_device_attr_ex.orig_attr.max_mcast_grp"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_mcast_qp_attach),
        192,
        "ibv_device_attr_ex.orig_attr.max_mcast_qp_attach"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_total_mcast_qp_attach),
        196,
        "ibv_device_attr_ex.orig_attr.max_total_mcast_qp_attach"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_ah), 200, "ibv_device_attr_ex.orig_attr.max_ah");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_fmr), 204, "ibv_device_attr_ex.orig_attr.max_fmr");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.max_map_per_fmr),
        208,
        "ibv_device_attr_ex.orig_attr.max_map_per_fmr"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_srq), 212, "ibv_device_attr_ex.orig_attr.max_srq");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_srq_wr), 216, "ibv_device_attr_ex.orig_attr.max_srq_wr");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_srq_sge), 220, "ibv_device_attr_ex.orig_attr.max_srq_sge");
    assert_eq!(offset_of!(ibv_device_attr_ex, orig_attr.max_pkeys), 224, "ibv_device_attr_ex.orig_attr.max_pkeys");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.local_ca_ack_delay),
        226,
        "ibv_device_attr_ex.orig_attr.local_ca_ack_delay"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, orig_attr.phys_port_cnt),
        227,
        "ibv_device_attr_ex.orig_attr.phys_port_cnt"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, comp_mask), 232, "ibv_device_attr_ex.comp_mask");
    assert_eq!(offset_of!(ibv_device_attr_ex, odp_caps), 240, "ibv_device_attr_ex.odp_caps");
    assert_eq!(offset_of!(ibv_device_attr_ex, odp_caps.general_caps), 240, "ibv_device_attr_ex.odp_caps.general_caps");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, odp_caps.per_transport_caps),
        248,
        "ibv_device_attr_ex.odp_caps.per_transport_caps"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, odp_caps.per_transport_caps.rc_odp_caps),
        248,
        "ibv_device_attr_ex.odp_caps.per_transport_caps.rc_odp_caps"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, odp_caps.per_transport_caps.uc_odp_caps),
        252,
        "ibv_device_attr_ex.odp_caps.per_transport_caps.uc_odp_caps"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, odp_caps.per_transport_caps.ud_odp_caps),
        256,
        "ibv_device_attr_ex.odp_caps.per_transport_caps.ud_odp_caps"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, completion_timestamp_mask),
        264,
        "ibv_device_attr_ex.completion_timestamp_mask"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, hca_core_clock), 272, "ibv_device_attr_ex.hca_core_clock");
    assert_eq!(offset_of!(ibv_device_attr_ex, device_cap_flags_ex), 280, "ibv_device_attr_ex.device_cap_flags_ex");
    assert_eq!(offset_of!(ibv_device_attr_ex, tso_caps), 288, "ibv_device_attr_ex.tso_caps");
    assert_eq!(offset_of!(ibv_device_attr_ex, tso_caps.max_tso), 288, "ibv_device_attr_ex.tso_caps.max_tso");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, tso_caps.supported_qpts),
        292,
        "ibv_device_attr_ex.tso_caps.supported_qpts"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, rss_caps), 296, "ibv_device_attr_ex.rss_caps");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, rss_caps.supported_qpts),
        296,
        "ibv_device_attr_ex.rss_caps.supported_qpts"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, rss_caps.max_rwq_indirection_tables),
        300,
        "ibv_device_attr_ex.rss_caps.max_rwq_indirection_tables"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, rss_caps.max_rwq_indirection_table_size),
        304,
        "ibv_device_attr_ex.rss_caps.max_rwq_indirection_table_size"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, rss_caps.rx_hash_fields_mask),
        312,
        "ibv_device_attr_ex.rss_caps.rx_hash_fields_mask"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, rss_caps.rx_hash_function),
        320,
        "ibv_device_attr_ex.rss_caps.rx_hash_function"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, max_wq_type_rq), 328, "ibv_device_attr_ex.max_wq_type_rq");
    assert_eq!(offset_of!(ibv_device_attr_ex, packet_pacing_caps), 332, "ibv_device_attr_ex.packet_pacing_caps");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, packet_pacing_caps.qp_rate_limit_min),
        332,
        "ibv_device_attr_ex.packet_pacing_caps.qp_rate_limit_min"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, packet_pacing_caps.qp_rate_limit_max),
        336,
        "ibv_device_attr_ex.packet_pacing_caps.qp_rate_limit_max"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, packet_pacing_caps.supported_qpts),
        340,
        "ibv_device_attr_ex.packet_pacing_caps.supported_qpts"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, raw_packet_caps), 344, "ibv_device_attr_ex.raw_packet_caps");
    assert_eq!(offset_of!(ibv_device_attr_ex, tm_caps), 348, "ibv_device_attr_ex.tm_caps");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, tm_caps.max_rndv_hdr_size),
        348,
        "ibv_device_attr_ex.tm_caps.max_rndv_hdr_size"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, tm_caps.max_num_tags), 352, "ibv_device_attr_ex.tm_caps.max_num_tags");
    assert_eq!(offset_of!(ibv_device_attr_ex, tm_caps.flags), 356, "ibv_device_attr_ex.tm_caps.flags");
    assert_eq!(offset_of!(ibv_device_attr_ex, tm_caps.max_ops), 360, "ibv_device_attr_ex.tm_caps.max_ops");
    assert_eq!(offset_of!(ibv_device_attr_ex, tm_caps.max_sge), 364, "ibv_device_attr_ex.tm_caps.max_sge");
    assert_eq!(offset_of!(ibv_device_attr_ex, cq_mod_caps), 368, "ibv_device_attr_ex.cq_mod_caps");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, cq_mod_caps.max_cq_count),
        368,
        "ibv_device_attr_ex.cq_mod_caps.max_cq_count"
    );
    assert_eq!(
        offset_of!(ibv_device_attr_ex, cq_mod_caps.max_cq_period),
        370,
        "ibv_device_attr_ex.cq_mod_caps.max_cq_period"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, max_dm_size), 376, "ibv_device_attr_ex.max_dm_size");
    assert_eq!(offset_of!(ibv_device_attr_ex, pci_atomic_caps), 384, "ibv_device_attr_ex.pci_atomic_caps");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, pci_atomic_caps.fetch_add),
        384,
        "ibv_device_attr_ex.pci_atomic_caps.fetch_add"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, pci_atomic_caps.swap), 386, "ibv_device_attr_ex.pci_atomic_caps.swap");
    assert_eq!(
        offset_of!(ibv_device_attr_ex, pci_atomic_caps.compare_swap),
        388,
        "ibv_device_attr_ex.pci_atomic_caps.compare_swap"
    );
    assert_eq!(offset_of!(ibv_device_attr_ex, xrc_odp_caps), 392, "ibv_device_attr_ex.xrc_odp_caps");
    assert_eq!(offset_of!(ibv_device_attr_ex, phys_port_cnt_ex), 396, "ibv_device_attr_ex.phys_port_cnt_ex");
    assert_eq!((size_of::<ibv_port_attr>(), align_of::<ibv_port_attr>()), (56, 4), "ibv_port_attr");
    assert_eq!(offset_of!(ibv_port_attr, active_speed_ex), 52, "ibv_port_attr.active_speed_ex");
    assert_eq!(offset_of!(ibv_port_attr, state), 0, "ibv_port_attr.state");
    assert_eq!(offset_of!(ibv_port_attr, max_mtu), 4, "ibv_port_attr.max_mtu");
    assert_eq!(offset_of!(ibv_port_attr, active_mtu), 8, "ibv_port_attr.active_mtu");
    assert_eq!(offset_of!(ibv_port_attr, gid_tbl_len), 12, "ibv_port_attr.gid_tbl_len");
    assert_eq!(offset_of!(ibv_port_attr, port_cap_flags), 16, "ibv_port_attr.port_cap_flags");
    assert_eq!(offset_of!(ibv_port_attr, max_msg_sz), 20, "ibv_port_attr.max_msg_sz");
    assert_eq!(offset_of!(ibv_port_attr, bad_pkey_cntr), 24, "ibv_port_attr.bad_pkey_cntr");
    assert_eq!(offset_of!(ibv_port_attr, qkey_viol_cntr), 28, "ibv_port_attr.qkey_viol_cntr");
    assert_eq!(offset_of!(ibv_port_attr, pkey_tbl_len), 32, "ibv_port_attr.pkey_tbl_len");
    assert_eq!(offset_of!(ibv_port_attr, lid), 34, "ibv_port_attr.lid");
    assert_eq!(offset_of!(ibv_port_attr, sm_lid), 36, "ibv_port_attr.sm_lid");
    assert_eq!(offset_of!(ibv_port_attr, lmc), 38, "ibv_port_attr.lmc");
    assert_eq!(offset_of!(ibv_port_attr, max_vl_num), 39, "ibv_port_attr.max_vl_num");
    assert_eq!(offset_of!(ibv_port_attr, sm_sl), 40, "ibv_port_attr.sm_sl");
    assert_eq!(offset_of!(ibv_port_attr, subnet_timeout), 41, "ibv_port_attr.subnet_timeout");
    assert_eq!(offset_of!(ibv_port_attr, init_type_reply), 42, "ibv_port_attr.init_type_reply");
    assert_eq!(offset_of!(ibv_port_attr, active_width), 43, "ibv_port_attr.active_width");
    assert_eq!(offset_of!(ibv_port_attr, active_speed), 44, "ibv_port_attr.active_speed");
    assert_eq!(offset_of!(ibv_port_attr, phys_state), 45, "ibv_port_attr.phys_state");
    assert_eq!(offset_of!(ibv_port_attr, link_layer), 46, "ibv_port_attr.link_layer");
    assert_eq!(offset_of!(ibv_port_attr, flags), 47, "ibv_port_attr.flags");
    assert_eq!(offset_of!(ibv_port_attr, port_cap_flags2), 48, "ibv_port_attr.port_cap_flags2");
    assert_eq!((size_of::<ibv_async_event>(), align_of::<ibv_async_event>()), (16, 8), "ibv_async_event");
    assert_eq!(offset_of!(ibv_async_event, element), 0, "ibv_async_event.element");
    assert_eq!(offset_of!(ibv_async_event, element.cq), 0, "ibv_async_event.element.cq");
    assert_eq!(offset_of!(ibv_async_event, element.qp), 0, "ibv_async_event.element.qp");
    assert_eq!(offset_of!(ibv_async_event, element.srq), 0, "ibv_async_event.element.srq");
    assert_eq!(offset_of!(ibv_async_event, element.wq), 0, "ibv_async_event.element.wq");
    assert_eq!(offset_of!(ibv_async_event, element.port_num), 0, "ibv_async_event.element.port_num");
    assert_eq!(offset_of!(ibv_async_event, event_type), 8, "ibv_async_event.event_type");
    assert_eq!((size_of::<ibv_wc>(), align_of::<ibv_wc>()), (48, 8), "ibv_wc");
    assert_eq!(offset_of!(ibv_wc, wr_id), 0, "ibv_wc.wr_id");
    assert_eq!(offset_of!(ibv_wc, status), 8, "ibv_wc.status");
    assert_eq!(offset_of!(ibv_wc, opcode), 12, "ibv_wc.opcode");
    assert_eq!(offset_of!(ibv_wc, vendor_err), 16, "ibv_wc.vendor_err");
    assert_eq!(offset_of!(ibv_wc, byte_len), 20, "ibv_wc.byte_len");
    assert_eq!(offset_of!(ibv_wc, imm), 24, "ibv_wc.imm");
    assert_eq!(offset_of!(ibv_wc, imm.imm_data), 24, "ibv_wc.imm.imm_data");
    assert_eq!(offset_of!(ibv_wc, imm.invalidated_rkey), 24, "ibv_wc.imm.invalidated_rkey");
    assert_eq!(offset_of!(ibv_wc, qp_num), 28, "ibv_wc.qp_num");
    assert_eq!(offset_of!(ibv_wc, src_qp), 32, "ibv_wc.src_qp");
    assert_eq!(offset_of!(ibv_wc, wc_flags), 36, "ibv_wc.wc_flags");
    assert_eq!(offset_of!(ibv_wc, pkey_index), 40, "ibv_wc.pkey_index");
    assert_eq!(offset_of!(ibv_wc, slid), 42, "ibv_wc.slid");
    assert_eq!(offset_of!(ibv_wc, sl), 44, "ibv_wc.sl");
    assert_eq!(offset_of!(ibv_wc, dlid_path_bits), 45, "ibv_wc.dlid_path_bits");
    assert_eq!((size_of::<ibv_mw_bind_info>(), align_of::<ibv_mw_bind_info>()), (32, 8), "ibv_mw_bind_info");
    assert_eq!(offset_of!(ibv_mw_bind_info, mr), 0, "ibv_mw_bind_info.mr");
    assert_eq!(offset_of!(ibv_mw_bind_info, addr), 8, "ibv_mw_bind_info.addr");
    assert_eq!(offset_of!(ibv_mw_bind_info, length), 16, "ibv_mw_bind_info.length");
    assert_eq!(offset_of!(ibv_mw_bind_info, mw_access_flags), 24, "ibv_mw_bind_info.mw_access_flags");
    assert_eq!((size_of::<ibv_pd>(), align_of::<ibv_pd>()), (16, 8), "ibv_pd");
    assert_eq!(offset_of!(ibv_pd, context), 0, "ibv_pd.context");
    assert_eq!(offset_of!(ibv_pd, handle), 8, "ibv_pd.handle");
    assert_eq!((size_of::<ibv_td_init_attr>(), align_of::<ibv_td_init_attr>()), (4, 4), "ibv_td_init_attr");
    assert_eq!(offset_of!(ibv_td_init_attr, comp_mask), 0, "ibv_td_init_attr.comp_mask");
    assert_eq!((size_of::<ibv_td>(), align_of::<ibv_td>()), (8, 8), "ibv_td");
    assert_eq!(offset_of!(ibv_td, context), 0, "ibv_td.context");
    assert_eq!((size_of::<ibv_xrcd_init_attr>(), align_of::<ibv_xrcd_init_attr>()), (12, 4), "ibv_xrcd_init_attr");
    assert_eq!(offset_of!(ibv_xrcd_init_attr, comp_mask), 0, "ibv_xrcd_init_attr.comp_mask");
    assert_eq!(offset_of!(ibv_xrcd_init_attr, fd), 4, "ibv_xrcd_init_attr.fd");
    assert_eq!(offset_of!(ibv_xrcd_init_attr, oflags), 8, "ibv_xrcd_init_attr.oflags");
    assert_eq!((size_of::<ibv_xrcd>(), align_of::<ibv_xrcd>()), (8, 8), "ibv_xrcd");
    assert_eq!(offset_of!(ibv_xrcd, context), 0, "ibv_xrcd.context");
    assert_eq!((size_of::<ibv_mr>(), align_of::<ibv_mr>()), (48, 8), "ibv_mr");
    assert_eq!(offset_of!(ibv_mr, context), 0, "ibv_mr.context");
    assert_eq!(offset_of!(ibv_mr, pd), 8, "ibv_mr.pd");
    assert_eq!(offset_of!(ibv_mr, addr), 16, "ibv_mr.addr");
    assert_eq!(offset_of!(ibv_mr, length), 24, "ibv_mr.length");
    assert_eq!(offset_of!(ibv_mr, handle), 32, "ibv_mr.handle");
    assert_eq!(offset_of!(ibv_mr, lkey), 36, "ibv_mr.lkey");
    assert_eq!(offset_of!(ibv_mr, rkey), 40, "ibv_mr.rkey");
    assert_eq!((size_of::<ibv_mw>(), align_of::<ibv_mw>()), (32, 8), "ibv_mw");
    assert_eq!(offset_of!(ibv_mw, context), 0, "ibv_mw.context");
    assert_eq!(offset_of!(ibv_mw, pd), 8, "ibv_mw.pd");
    assert_eq!(offset_of!(ibv_mw, rkey), 16, "ibv_mw.rkey");
    assert_eq!(offset_of!(ibv_mw, handle), 20, "ibv_mw.handle");
    assert_eq!(offset_of!(ibv_mw, r#type), 24, "ibv_mw.r#type");
    assert_eq!((size_of::<ibv_global_route>(), align_of::<ibv_global_route>()), (24, 8), "ibv_global_route");
    assert_eq!(offset_of!(ibv_global_route, dgid), 0, "ibv_global_route.dgid");
    assert_eq!(offset_of!(ibv_global_route, dgid.raw), 0, "ibv_global_route.dgid.raw");
    assert_eq!(offset_of!(ibv_global_route, dgid.global), 0, "ibv_global_route.dgid.global");
    assert_eq!(
        offset_of!(ibv_global_route, dgid.global.subnet_prefix),
        0,
        "ibv_global_route.dgid.global.subnet_prefix"
    );
    assert_eq!(offset_of!(ibv_global_route, dgid.global.interface_id), 8, "ibv_global_route.dgid.global.interface_id");
    assert_eq!(offset_of!(ibv_global_route, flow_label), 16, "ibv_global_route.flow_label");
    assert_eq!(offset_of!(ibv_global_route, sgid_index), 20, "ibv_global_route.sgid_index");
    assert_eq!(offset_of!(ibv_global_route, hop_limit), 21, "ibv_global_route.hop_limit");
    assert_eq!(offset_of!(ibv_global_route, traffic_class), 22, "ibv_global_route.traffic_class");
    assert_eq!((size_of::<ibv_grh>(), align_of::<ibv_grh>()), (40, 8), "ibv_grh");
    assert_eq!(offset_of!(ibv_grh, version_tclass_flow), 0, "ibv_grh.version_tclass_flow");
    assert_eq!(offset_of!(ibv_grh, paylen), 4, "ibv_grh.paylen");
    assert_eq!(offset_of!(ibv_grh, next_hdr), 6, "ibv_grh.next_hdr");
    assert_eq!(offset_of!(ibv_grh, hop_limit), 7, "ibv_grh.hop_limit");
    assert_eq!(offset_of!(ibv_grh, sgid), 8, "ibv_grh.sgid");
    assert_eq!(offset_of!(ibv_grh, sgid.raw), 8, "ibv_grh.sgid.raw");
    assert_eq!(offset_of!(ibv_grh, sgid.global), 8, "ibv_grh.sgid.global");
    assert_eq!(offset_of!(ibv_grh, sgid.global.subnet_prefix), 8, "ibv_grh.sgid.global.subnet_prefix");
    assert_eq!(offset_of!(ibv_grh, sgid.global.interface_id), 16, "ibv_grh.sgid.global.interface_id");
    assert_eq!(offset_of!(ibv_grh, dgid), 24, "ibv_grh.dgid");
    assert_eq!(offset_of!(ibv_grh, dgid.raw), 24, "ibv_grh.dgid.raw");
    assert_eq!(offset_of!(ibv_grh, dgid.global), 24, "ibv_grh.dgid.global");
    assert_eq!(offset_of!(ibv_grh, dgid.global.subnet_prefix), 24, "ibv_grh.dgid.global.subnet_prefix");
    assert_eq!(offset_of!(ibv_grh, dgid.global.interface_id), 32, "ibv_grh.dgid.global.interface_id");
    assert_eq!((size_of::<ibv_ah_attr>(), align_of::<ibv_ah_attr>()), (32, 8), "ibv_ah_attr");
    assert_eq!(offset_of!(ibv_ah_attr, grh), 0, "ibv_ah_attr.grh");
    assert_eq!(offset_of!(ibv_ah_attr, grh.dgid), 0, "ibv_ah_attr.grh.dgid");
    assert_eq!(offset_of!(ibv_ah_attr, grh.dgid.raw), 0, "ibv_ah_attr.grh.dgid.raw");
    assert_eq!(offset_of!(ibv_ah_attr, grh.dgid.global), 0, "ibv_ah_attr.grh.dgid.global");
    assert_eq!(offset_of!(ibv_ah_attr, grh.dgid.global.subnet_prefix), 0, "ibv_ah_attr.grh.dgid.global.subnet_prefix");
    assert_eq!(offset_of!(ibv_ah_attr, grh.dgid.global.interface_id), 8, "ibv_ah_attr.grh.dgid.global.interface_id");
    assert_eq!(offset_of!(ibv_ah_attr, grh.flow_label), 16, "ibv_ah_attr.grh.flow_label");
    assert_eq!(offset_of!(ibv_ah_attr, grh.sgid_index), 20, "ibv_ah_attr.grh.sgid_index");
    assert_eq!(offset_of!(ibv_ah_attr, grh.hop_limit), 21, "ibv_ah_attr.grh.hop_limit");
    assert_eq!(offset_of!(ibv_ah_attr, grh.traffic_class), 22, "ibv_ah_attr.grh.traffic_class");
    assert_eq!(offset_of!(ibv_ah_attr, dlid), 24, "ibv_ah_attr.dlid");
    assert_eq!(offset_of!(ibv_ah_attr, sl), 26, "ibv_ah_attr.sl");
    assert_eq!(offset_of!(ibv_ah_attr, src_path_bits), 27, "ibv_ah_attr.src_path_bits");
    assert_eq!(offset_of!(ibv_ah_attr, static_rate), 28, "ibv_ah_attr.static_rate");
    assert_eq!(offset_of!(ibv_ah_attr, is_global), 29, "ibv_ah_attr.is_global");
    assert_eq!(offset_of!(ibv_ah_attr, port_num), 30, "ibv_ah_attr.port_num");
    assert_eq!((size_of::<ibv_srq_attr>(), align_of::<ibv_srq_attr>()), (12, 4), "ibv_srq_attr");
    assert_eq!(offset_of!(ibv_srq_attr, max_wr), 0, "ibv_srq_attr.max_wr");
    assert_eq!(offset_of!(ibv_srq_attr, max_sge), 4, "ibv_srq_attr.max_sge");
    assert_eq!(offset_of!(ibv_srq_attr, srq_limit), 8, "ibv_srq_attr.srq_limit");
    assert_eq!((size_of::<ibv_srq_init_attr>(), align_of::<ibv_srq_init_attr>()), (24, 8), "ibv_srq_init_attr");
    assert_eq!(offset_of!(ibv_srq_init_attr, srq_context), 0, "ibv_srq_init_attr.srq_context");
    assert_eq!(offset_of!(ibv_srq_init_attr, attr), 8, "ibv_srq_init_attr.attr");
    assert_eq!(offset_of!(ibv_srq_init_attr, attr.max_wr), 8, "ibv_srq_init_attr.attr.max_wr");
    assert_eq!(offset_of!(ibv_srq_init_attr, attr.max_sge), 12, "ibv_srq_init_attr.attr.max_sge");
    assert_eq!(offset_of!(ibv_srq_init_attr, attr.srq_limit), 16, "ibv_srq_init_attr.attr.srq_limit");
    assert_eq!((size_of::<ibv_tm_cap>(), align_of::<ibv_tm_cap>()), (8, 4), "ibv_tm_cap");
    assert_eq!(offset_of!(ibv_tm_cap, max_num_tags), 0, "ibv_tm_cap.max_num_tags");
    assert_eq!(offset_of!(ibv_tm_cap, max_ops), 4, "ibv_tm_cap.max_ops");
    assert_eq!(
        (size_of::<ibv_srq_init_attr_ex>(), align_of::<ibv_srq_init_attr_ex>()),
        (64, 8),
        "ibv_srq_init_attr_ex"
    );
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, srq_context), 0, "ibv_srq_init_attr_ex.srq_context");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, attr), 8, "ibv_srq_init_attr_ex.attr");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, attr.max_wr), 8, "ibv_srq_init_attr_ex.attr.max_wr");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, attr.max_sge), 12, "ibv_srq_init_attr_ex.attr.max_sge");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, attr.srq_limit), 16, "ibv_srq_init_attr_ex.attr.srq_limit");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, comp_mask), 20, "ibv_srq_init_attr_ex.comp_mask");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, srq_type), 24, "ibv_srq_init_attr_ex.srq_type");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, pd), 32, "ibv_srq_init_attr_ex.pd");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, xrcd), 40, "ibv_srq_init_attr_ex.xrcd");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, cq), 48, "ibv_srq_init_attr_ex.cq");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, tm_cap), 56, "ibv_srq_init_attr_ex.tm_cap");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, tm_cap.max_num_tags), 56, "ibv_srq_init_attr_ex.tm_cap.max_num_tags");
    assert_eq!(offset_of!(ibv_srq_init_attr_ex, tm_cap.max_ops), 60, "ibv_srq_init_attr_ex.tm_cap.max_ops");
    assert_eq!((size_of::<ibv_wq_init_attr>(), align_of::<ibv_wq_init_attr>()), (48, 8), "ibv_wq_init_attr");
    assert_eq!(offset_of!(ibv_wq_init_attr, wq_context), 0, "ibv_wq_init_attr.wq_context");
    assert_eq!(offset_of!(ibv_wq_init_attr, wq_type), 8, "ibv_wq_init_attr.wq_type");
    assert_eq!(offset_of!(ibv_wq_init_attr, max_wr), 12, "ibv_wq_init_attr.max_wr");
    assert_eq!(offset_of!(ibv_wq_init_attr, max_sge), 16, "ibv_wq_init_attr.max_sge");
    assert_eq!(offset_of!(ibv_wq_init_attr, pd), 24, "ibv_wq_init_attr.pd");
    assert_eq!(offset_of!(ibv_wq_init_attr, cq), 32, "ibv_wq_init_attr.cq");
    assert_eq!(offset_of!(ibv_wq_init_attr, comp_mask), 40, "ibv_wq_init_attr.comp_mask");
    assert_eq!(offset_of!(ibv_wq_init_attr, create_flags), 44, "ibv_wq_init_attr.create_flags");
    assert_eq!((size_of::<ibv_wq_attr>(), align_of::<ibv_wq_attr>()), (20, 4), "ibv_wq_attr");
    assert_eq!(offset_of!(ibv_wq_attr, attr_mask), 0, "ibv_wq_attr.attr_mask");
    assert_eq!(offset_of!(ibv_wq_attr, wq_state), 4, "ibv_wq_attr.wq_state");
    assert_eq!(offset_of!(ibv_wq_attr, curr_wq_state), 8, "ibv_wq_attr.curr_wq_state");
    assert_eq!(offset_of!(ibv_wq_attr, flags), 12, "ibv_wq_attr.flags");
    assert_eq!(offset_of!(ibv_wq_attr, flags_mask), 16, "ibv_wq_attr.flags_mask");
    assert_eq!((size_of::<ibv_rwq_ind_table>(), align_of::<ibv_rwq_ind_table>()), (24, 8), "ibv_rwq_ind_table");
    assert_eq!(offset_of!(ibv_rwq_ind_table, context), 0, "ibv_rwq_ind_table.context");
    assert_eq!(offset_of!(ibv_rwq_ind_table, ind_tbl_handle), 8, "ibv_rwq_ind_table.ind_tbl_handle");
    assert_eq!(offset_of!(ibv_rwq_ind_table, ind_tbl_num), 12, "ibv_rwq_ind_table.ind_tbl_num");
    assert_eq!(offset_of!(ibv_rwq_ind_table, comp_mask), 16, "ibv_rwq_ind_table.comp_mask");
    assert_eq!(
        (size_of::<ibv_rwq_ind_table_init_attr>(), align_of::<ibv_rwq_ind_table_init_attr>()),
        (24, 8),
        "ibv_rwq_ind_table_init_attr"
    );
    assert_eq!(
        offset_of!(ibv_rwq_ind_table_init_attr, log_ind_tbl_size),
        0,
        "ibv_rwq_ind_table_init_attr.log_ind_tbl_size"
    );
    assert_eq!(offset_of!(ibv_rwq_ind_table_init_attr, ind_tbl), 8, "ibv_rwq_ind_table_init_attr.ind_tbl");
    assert_eq!(offset_of!(ibv_rwq_ind_table_init_attr, comp_mask), 16, "ibv_rwq_ind_table_init_attr.comp_mask");
    assert_eq!((size_of::<ibv_qp_cap>(), align_of::<ibv_qp_cap>()), (20, 4), "ibv_qp_cap");
    assert_eq!(offset_of!(ibv_qp_cap, max_send_wr), 0, "ibv_qp_cap.max_send_wr");
    assert_eq!(offset_of!(ibv_qp_cap, max_recv_wr), 4, "ibv_qp_cap.max_recv_wr");
    assert_eq!(offset_of!(ibv_qp_cap, max_send_sge), 8, "ibv_qp_cap.max_send_sge");
    assert_eq!(offset_of!(ibv_qp_cap, max_recv_sge), 12, "ibv_qp_cap.max_recv_sge");
    assert_eq!(offset_of!(ibv_qp_cap, max_inline_data), 16, "ibv_qp_cap.max_inline_data");
    assert_eq!((size_of::<ibv_qp_init_attr>(), align_of::<ibv_qp_init_attr>()), (64, 8), "ibv_qp_init_attr");
    assert_eq!(offset_of!(ibv_qp_init_attr, qp_context), 0, "ibv_qp_init_attr.qp_context");
    assert_eq!(offset_of!(ibv_qp_init_attr, send_cq), 8, "ibv_qp_init_attr.send_cq");
    assert_eq!(offset_of!(ibv_qp_init_attr, recv_cq), 16, "ibv_qp_init_attr.recv_cq");
    assert_eq!(offset_of!(ibv_qp_init_attr, srq), 24, "ibv_qp_init_attr.srq");
    assert_eq!(offset_of!(ibv_qp_init_attr, cap), 32, "ibv_qp_init_attr.cap");
    assert_eq!(offset_of!(ibv_qp_init_attr, cap.max_send_wr), 32, "ibv_qp_init_attr.cap.max_send_wr");
    assert_eq!(offset_of!(ibv_qp_init_attr, cap.max_recv_wr), 36, "ibv_qp_init_attr.cap.max_recv_wr");
    assert_eq!(offset_of!(ibv_qp_init_attr, cap.max_send_sge), 40, "ibv_qp_init_attr.cap.max_send_sge");
    assert_eq!(offset_of!(ibv_qp_init_attr, cap.max_recv_sge), 44, "ibv_qp_init_attr.cap.max_recv_sge");
    assert_eq!(offset_of!(ibv_qp_init_attr, cap.max_inline_data), 48, "ibv_qp_init_attr.cap.max_inline_data");
    assert_eq!(offset_of!(ibv_qp_init_attr, qp_type), 52, "ibv_qp_init_attr.qp_type");
    assert_eq!(offset_of!(ibv_qp_init_attr, sq_sig_all), 56, "ibv_qp_init_attr.sq_sig_all");
    assert_eq!((size_of::<ibv_rx_hash_conf>(), align_of::<ibv_rx_hash_conf>()), (24, 8), "ibv_rx_hash_conf");
    assert_eq!(offset_of!(ibv_rx_hash_conf, rx_hash_function), 0, "ibv_rx_hash_conf.rx_hash_function");
    assert_eq!(offset_of!(ibv_rx_hash_conf, rx_hash_key_len), 1, "ibv_rx_hash_conf.rx_hash_key_len");
    assert_eq!(offset_of!(ibv_rx_hash_conf, rx_hash_key), 8, "ibv_rx_hash_conf.rx_hash_key");
    assert_eq!(offset_of!(ibv_rx_hash_conf, rx_hash_fields_mask), 16, "ibv_rx_hash_conf.rx_hash_fields_mask");
    assert_eq!((size_of::<ibv_qp_init_attr_ex>(), align_of::<ibv_qp_init_attr_ex>()), (136, 8), "ibv_qp_init_attr_ex");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, qp_context), 0, "ibv_qp_init_attr_ex.qp_context");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, send_cq), 8, "ibv_qp_init_attr_ex.send_cq");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, recv_cq), 16, "ibv_qp_init_attr_ex.recv_cq");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, srq), 24, "ibv_qp_init_attr_ex.srq");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, cap), 32, "ibv_qp_init_attr_ex.cap");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, cap.max_send_wr), 32, "ibv_qp_init_attr_ex.cap.max_send_wr");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, cap.max_recv_wr), 36, "ibv_qp_init_attr_ex.cap.max_recv_wr");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, cap.max_send_sge), 40, "ibv_qp_init_attr_ex.cap.max_send_sge");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, cap.max_recv_sge), 44, "ibv_qp_init_attr_ex.cap.max_recv_sge");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, cap.max_inline_data), 48, "ibv_qp_init_attr_ex.cap.max_inline_data");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, qp_type), 52, "ibv_qp_init_attr_ex.qp_type");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, sq_sig_all), 56, "ibv_qp_init_attr_ex.sq_sig_all");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, comp_mask), 60, "ibv_qp_init_attr_ex.comp_mask");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, pd), 64, "ibv_qp_init_attr_ex.pd");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, xrcd), 72, "ibv_qp_init_attr_ex.xrcd");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, create_flags), 80, "ibv_qp_init_attr_ex.create_flags");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, max_tso_header), 84, "ibv_qp_init_attr_ex.max_tso_header");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, rwq_ind_tbl), 88, "ibv_qp_init_attr_ex.rwq_ind_tbl");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, rx_hash_conf), 96, "ibv_qp_init_attr_ex.rx_hash_conf");
    assert_eq!(
        offset_of!(ibv_qp_init_attr_ex, rx_hash_conf.rx_hash_function),
        96,
        "ibv_qp_init_attr_ex.rx_hash_conf.rx_hash_function"
    );
    assert_eq!(
        offset_of!(ibv_qp_init_attr_ex, rx_hash_conf.rx_hash_key_len),
        97,
        "ibv_qp_init_attr_ex.rx_hash_conf.rx_hash_key_len"
    );
    assert_eq!(
        offset_of!(ibv_qp_init_attr_ex, rx_hash_conf.rx_hash_key),
        104,
        "ibv_qp_init_attr_ex.rx_hash_conf.rx_hash_key"
    );
    assert_eq!(
        offset_of!(ibv_qp_init_attr_ex, rx_hash_conf.rx_hash_fields_mask),
        112,
        "ibv_qp_init_attr_ex.rx_hash_conf.rx_hash_fields_mask"
    );
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, source_qpn), 120, "ibv_qp_init_attr_ex.source_qpn");
    assert_eq!(offset_of!(ibv_qp_init_attr_ex, send_ops_flags), 128, "ibv_qp_init_attr_ex.send_ops_flags");
    assert_eq!((size_of::<ibv_qp_open_attr>(), align_of::<ibv_qp_open_attr>()), (32, 8), "ibv_qp_open_attr");
    assert_eq!(offset_of!(ibv_qp_open_attr, comp_mask), 0, "ibv_qp_open_attr.comp_mask");
    assert_eq!(offset_of!(ibv_qp_open_attr, qp_num), 4, "ibv_qp_open_attr.qp_num");
    assert_eq!(offset_of!(ibv_qp_open_attr, xrcd), 8, "ibv_qp_open_attr.xrcd");
    assert_eq!(offset_of!(ibv_qp_open_attr, qp_context), 16, "ibv_qp_open_attr.qp_context");
    assert_eq!(offset_of!(ibv_qp_open_attr, qp_type), 24, "ibv_qp_open_attr.qp_type");
    assert_eq!((size_of::<ibv_qp_attr>(), align_of::<ibv_qp_attr>()), (144, 8), "ibv_qp_attr");
    assert_eq!(offset_of!(ibv_qp_attr, qp_state), 0, "ibv_qp_attr.qp_state");
    assert_eq!(offset_of!(ibv_qp_attr, cur_qp_state), 4, "ibv_qp_attr.cur_qp_state");
    assert_eq!(offset_of!(ibv_qp_attr, path_mtu), 8, "ibv_qp_attr.path_mtu");
    assert_eq!(offset_of!(ibv_qp_attr, path_mig_state), 12, "ibv_qp_attr.path_mig_state");
    assert_eq!(offset_of!(ibv_qp_attr, qkey), 16, "ibv_qp_attr.qkey");
    assert_eq!(offset_of!(ibv_qp_attr, rq_psn), 20, "ibv_qp_attr.rq_psn");
    assert_eq!(offset_of!(ibv_qp_attr, sq_psn), 24, "ibv_qp_attr.sq_psn");
    assert_eq!(offset_of!(ibv_qp_attr, dest_qp_num), 28, "ibv_qp_attr.dest_qp_num");
    assert_eq!(offset_of!(ibv_qp_attr, qp_access_flags), 32, "ibv_qp_attr.qp_access_flags");
    assert_eq!(offset_of!(ibv_qp_attr, cap), 36, "ibv_qp_attr.cap");
    assert_eq!(offset_of!(ibv_qp_attr, cap.max_send_wr), 36, "ibv_qp_attr.cap.max_send_wr");
    assert_eq!(offset_of!(ibv_qp_attr, cap.max_recv_wr), 40, "ibv_qp_attr.cap.max_recv_wr");
    assert_eq!(offset_of!(ibv_qp_attr, cap.max_send_sge), 44, "ibv_qp_attr.cap.max_send_sge");
    assert_eq!(offset_of!(ibv_qp_attr, cap.max_recv_sge), 48, "ibv_qp_attr.cap.max_recv_sge");
    assert_eq!(offset_of!(ibv_qp_attr, cap.max_inline_data), 52, "ibv_qp_attr.cap.max_inline_data");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr), 56, "ibv_qp_attr.ah_attr");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh), 56, "ibv_qp_attr.ah_attr.grh");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.dgid), 56, "ibv_qp_attr.ah_attr.grh.dgid");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.dgid.raw), 56, "ibv_qp_attr.ah_attr.grh.dgid.raw");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.dgid.global), 56, "ibv_qp_attr.ah_attr.grh.dgid.global");
    assert_eq!(
        offset_of!(ibv_qp_attr, ah_attr.grh.dgid.global.subnet_prefix),
        56,
        "ibv_qp_attr.ah_attr.grh.dgid.global.subnet_prefix"
    );
    assert_eq!(
        offset_of!(ibv_qp_attr, ah_attr.grh.dgid.global.interface_id),
        64,
        "ibv_qp_attr.ah_attr.grh.dgid.global.interface_id"
    );
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.flow_label), 72, "ibv_qp_attr.ah_attr.grh.flow_label");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.sgid_index), 76, "ibv_qp_attr.ah_attr.grh.sgid_index");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.hop_limit), 77, "ibv_qp_attr.ah_attr.grh.hop_limit");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.grh.traffic_class), 78, "ibv_qp_attr.ah_attr.grh.traffic_class");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.dlid), 80, "ibv_qp_attr.ah_attr.dlid");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.sl), 82, "ibv_qp_attr.ah_attr.sl");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.src_path_bits), 83, "ibv_qp_attr.ah_attr.src_path_bits");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.static_rate), 84, "ibv_qp_attr.ah_attr.static_rate");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.is_global), 85, "ibv_qp_attr.ah_attr.is_global");
    assert_eq!(offset_of!(ibv_qp_attr, ah_attr.port_num), 86, "ibv_qp_attr.ah_attr.port_num");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr), 88, "ibv_qp_attr.alt_ah_attr");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh), 88, "ibv_qp_attr.alt_ah_attr.grh");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh.dgid), 88, "ibv_qp_attr.alt_ah_attr.grh.dgid");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh.dgid.raw), 88, "ibv_qp_attr.alt_ah_attr.grh.dgid.raw");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh.dgid.global), 88, "ibv_qp_attr.alt_ah_attr.grh.dgid.global");
    assert_eq!(
        offset_of!(ibv_qp_attr, alt_ah_attr.grh.dgid.global.subnet_prefix),
        88,
        "ibv_qp_attr.alt_ah_attr.grh.dgid.global.subnet_prefix"
    );
    assert_eq!(
        offset_of!(ibv_qp_attr, alt_ah_attr.grh.dgid.global.interface_id),
        96,
        "ibv_qp_attr.alt_ah_attr.grh.dgid.global.interface_id"
    );
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh.flow_label), 104, "ibv_qp_attr.alt_ah_attr.grh.flow_label");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh.sgid_index), 108, "ibv_qp_attr.alt_ah_attr.grh.sgid_index");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.grh.hop_limit), 109, "ibv_qp_attr.alt_ah_attr.grh.hop_limit");
    assert_eq!(
        offset_of!(ibv_qp_attr, alt_ah_attr.grh.traffic_class),
        110,
        "ibv_qp_attr.alt_ah_attr.grh.traffic_class"
    );
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.dlid), 112, "ibv_qp_attr.alt_ah_attr.dlid");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.sl), 114, "ibv_qp_attr.alt_ah_attr.sl");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.src_path_bits), 115, "ibv_qp_attr.alt_ah_attr.src_path_bits");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.static_rate), 116, "ibv_qp_attr.alt_ah_attr.static_rate");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.is_global), 117, "ibv_qp_attr.alt_ah_attr.is_global");
    assert_eq!(offset_of!(ibv_qp_attr, alt_ah_attr.port_num), 118, "ibv_qp_attr.alt_ah_attr.port_num");
    assert_eq!(offset_of!(ibv_qp_attr, pkey_index), 120, "ibv_qp_attr.pkey_index");
    assert_eq!(offset_of!(ibv_qp_attr, alt_pkey_index), 122, "ibv_qp_attr.alt_pkey_index");
    assert_eq!(offset_of!(ibv_qp_attr, en_sqd_async_notify), 124, "ibv_qp_attr.en_sqd_async_notify");
    assert_eq!(offset_of!(ibv_qp_attr, sq_draining), 125, "ibv_qp_attr.sq_draining");
    assert_eq!(offset_of!(ibv_qp_attr, max_rd_atomic), 126, "ibv_qp_attr.max_rd_atomic");
    assert_eq!(offset_of!(ibv_qp_attr, max_dest_rd_atomic), 127, "ibv_qp_attr.max_dest_rd_atomic");
    assert_eq!(offset_of!(ibv_qp_attr, min_rnr_timer), 128, "ibv_qp_attr.min_rnr_timer");
    assert_eq!(offset_of!(ibv_qp_attr, port_num), 129, "ibv_qp_attr.port_num");
    assert_eq!(offset_of!(ibv_qp_attr, timeout), 130, "ibv_qp_attr.timeout");
    assert_eq!(offset_of!(ibv_qp_attr, retry_cnt), 131, "ibv_qp_attr.retry_cnt");
    assert_eq!(offset_of!(ibv_qp_attr, rnr_retry), 132, "ibv_qp_attr.rnr_retry");
    assert_eq!(offset_of!(ibv_qp_attr, alt_port_num), 133, "ibv_qp_attr.alt_port_num");
    assert_eq!(offset_of!(ibv_qp_attr, alt_timeout), 134, "ibv_qp_attr.alt_timeout");
    assert_eq!(offset_of!(ibv_qp_attr, rate_limit), 136, "ibv_qp_attr.rate_limit");
    assert_eq!(
        (size_of::<ibv_qp_rate_limit_attr>(), align_of::<ibv_qp_rate_limit_attr>()),
        (16, 4),
        "ibv_qp_rate_limit_attr"
    );
    assert_eq!(offset_of!(ibv_qp_rate_limit_attr, rate_limit), 0, "ibv_qp_rate_limit_attr.rate_limit");
    assert_eq!(offset_of!(ibv_qp_rate_limit_attr, max_burst_sz), 4, "ibv_qp_rate_limit_attr.max_burst_sz");
    assert_eq!(offset_of!(ibv_qp_rate_limit_attr, typical_pkt_sz), 8, "ibv_qp_rate_limit_attr.typical_pkt_sz");
    assert_eq!(offset_of!(ibv_qp_rate_limit_attr, comp_mask), 12, "ibv_qp_rate_limit_attr.comp_mask");
    assert_eq!((size_of::<ibv_data_buf>(), align_of::<ibv_data_buf>()), (16, 8), "ibv_data_buf");
    assert_eq!(offset_of!(ibv_data_buf, addr), 0, "ibv_data_buf.addr");
    assert_eq!(offset_of!(ibv_data_buf, length), 8, "ibv_data_buf.length");
    assert_eq!((size_of::<ibv_sge>(), align_of::<ibv_sge>()), (16, 8), "ibv_sge");
    assert_eq!(offset_of!(ibv_sge, addr), 0, "ibv_sge.addr");
    assert_eq!(offset_of!(ibv_sge, length), 8, "ibv_sge.length");
    assert_eq!(offset_of!(ibv_sge, lkey), 12, "ibv_sge.lkey");
    assert_eq!((size_of::<ibv_send_wr>(), align_of::<ibv_send_wr>()), (128, 8), "ibv_send_wr");
    assert_eq!(offset_of!(ibv_send_wr, wr_id), 0, "ibv_send_wr.wr_id");
    assert_eq!(offset_of!(ibv_send_wr, next), 8, "ibv_send_wr.next");
    assert_eq!(offset_of!(ibv_send_wr, sg_list), 16, "ibv_send_wr.sg_list");
    assert_eq!(offset_of!(ibv_send_wr, num_sge), 24, "ibv_send_wr.num_sge");
    assert_eq!(offset_of!(ibv_send_wr, opcode), 28, "ibv_send_wr.opcode");
    assert_eq!(offset_of!(ibv_send_wr, send_flags), 32, "ibv_send_wr.send_flags");
    assert_eq!(offset_of!(ibv_send_wr, imm), 36, "ibv_send_wr.imm");
    assert_eq!(offset_of!(ibv_send_wr, imm.imm_data), 36, "ibv_send_wr.imm.imm_data");
    assert_eq!(offset_of!(ibv_send_wr, imm.invalidate_rkey), 36, "ibv_send_wr.imm.invalidate_rkey");
    assert_eq!(offset_of!(ibv_send_wr, wr), 40, "ibv_send_wr.wr");
    assert_eq!(offset_of!(ibv_send_wr, wr.rdma), 40, "ibv_send_wr.wr.rdma");
    assert_eq!(offset_of!(ibv_send_wr, wr.rdma.remote_addr), 40, "ibv_send_wr.wr.rdma.remote_addr");
    assert_eq!(offset_of!(ibv_send_wr, wr.rdma.rkey), 48, "ibv_send_wr.wr.rdma.rkey");
    assert_eq!(offset_of!(ibv_send_wr, wr.atomic), 40, "ibv_send_wr.wr.atomic");
    assert_eq!(offset_of!(ibv_send_wr, wr.atomic.remote_addr), 40, "ibv_send_wr.wr.atomic.remote_addr");
    assert_eq!(offset_of!(ibv_send_wr, wr.atomic.compare_add), 48, "ibv_send_wr.wr.atomic.compare_add");
    assert_eq!(offset_of!(ibv_send_wr, wr.atomic.swap), 56, "ibv_send_wr.wr.atomic.swap");
    assert_eq!(offset_of!(ibv_send_wr, wr.atomic.rkey), 64, "ibv_send_wr.wr.atomic.rkey");
    assert_eq!(offset_of!(ibv_send_wr, wr.ud), 40, "ibv_send_wr.wr.ud");
    assert_eq!(offset_of!(ibv_send_wr, wr.ud.ah), 40, "ibv_send_wr.wr.ud.ah");
    assert_eq!(offset_of!(ibv_send_wr, wr.ud.remote_qpn), 48, "ibv_send_wr.wr.ud.remote_qpn");
    assert_eq!(offset_of!(ibv_send_wr, wr.ud.remote_qkey), 52, "ibv_send_wr.wr.ud.remote_qkey");
    assert_eq!(offset_of!(ibv_send_wr, qp_type), 72, "ibv_send_wr.qp_type");
    assert_eq!(offset_of!(ibv_send_wr, qp_type.xrc), 72, "ibv_send_wr.qp_type.xrc");
    assert_eq!(offset_of!(ibv_send_wr, qp_type.xrc.remote_srqn), 72, "ibv_send_wr.qp_type.xrc.remote_srqn");
    assert_eq!(offset_of!(ibv_send_wr, ext), 80, "ibv_send_wr.ext");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw), 80, "ibv_send_wr.ext.bind_mw");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw.mw), 80, "ibv_send_wr.ext.bind_mw.mw");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw.rkey), 88, "ibv_send_wr.ext.bind_mw.rkey");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw.bind_info), 96, "ibv_send_wr.ext.bind_mw.bind_info");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw.bind_info.mr), 96, "ibv_send_wr.ext.bind_mw.bind_info.mr");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw.bind_info.addr), 104, "ibv_send_wr.ext.bind_mw.bind_info.addr");
    assert_eq!(offset_of!(ibv_send_wr, ext.bind_mw.bind_info.length), 112, "ibv_send_wr.ext.bind_mw.bind_info.length");
    assert_eq!(
        offset_of!(ibv_send_wr, ext.bind_mw.bind_info.mw_access_flags),
        120,
        "ibv_send_wr.ext.bind_mw.bind_info.mw_access_flags"
    );
    assert_eq!(offset_of!(ibv_send_wr, ext.tso), 80, "ibv_send_wr.ext.tso");
    assert_eq!(offset_of!(ibv_send_wr, ext.tso.hdr), 80, "ibv_send_wr.ext.tso.hdr");
    assert_eq!(offset_of!(ibv_send_wr, ext.tso.hdr_sz), 88, "ibv_send_wr.ext.tso.hdr_sz");
    assert_eq!(offset_of!(ibv_send_wr, ext.tso.mss), 90, "ibv_send_wr.ext.tso.mss");
    assert_eq!((size_of::<ibv_recv_wr>(), align_of::<ibv_recv_wr>()), (32, 8), "ibv_recv_wr");
    assert_eq!(offset_of!(ibv_recv_wr, wr_id), 0, "ibv_recv_wr.wr_id");
    assert_eq!(offset_of!(ibv_recv_wr, next), 8, "ibv_recv_wr.next");
    assert_eq!(offset_of!(ibv_recv_wr, sg_list), 16, "ibv_recv_wr.sg_list");
    assert_eq!(offset_of!(ibv_recv_wr, num_sge), 24, "ibv_recv_wr.num_sge");
    assert_eq!((size_of::<ibv_ops_wr>(), align_of::<ibv_ops_wr>()), (72, 8), "ibv_ops_wr");
    assert_eq!(offset_of!(ibv_ops_wr, wr_id), 0, "ibv_ops_wr.wr_id");
    assert_eq!(offset_of!(ibv_ops_wr, next), 8, "ibv_ops_wr.next");
    assert_eq!(offset_of!(ibv_ops_wr, opcode), 16, "ibv_ops_wr.opcode");
    assert_eq!(offset_of!(ibv_ops_wr, flags), 20, "ibv_ops_wr.flags");
    assert_eq!(offset_of!(ibv_ops_wr, tm), 24, "ibv_ops_wr.tm");
    assert_eq!(offset_of!(ibv_ops_wr, tm.unexpected_cnt), 24, "ibv_ops_wr.tm.unexpected_cnt");
    assert_eq!(offset_of!(ibv_ops_wr, tm.handle), 28, "ibv_ops_wr.tm.handle");
    assert_eq!(offset_of!(ibv_ops_wr, tm.add), 32, "ibv_ops_wr.tm.add");
    assert_eq!(offset_of!(ibv_ops_wr, tm.add.recv_wr_id), 32, "ibv_ops_wr.tm.add.recv_wr_id");
    assert_eq!(offset_of!(ibv_ops_wr, tm.add.sg_list), 40, "ibv_ops_wr.tm.add.sg_list");
    assert_eq!(offset_of!(ibv_ops_wr, tm.add.num_sge), 48, "ibv_ops_wr.tm.add.num_sge");
    assert_eq!(offset_of!(ibv_ops_wr, tm.add.tag), 56, "ibv_ops_wr.tm.add.tag");
    assert_eq!(offset_of!(ibv_ops_wr, tm.add.mask), 64, "ibv_ops_wr.tm.add.mask");
    assert_eq!((size_of::<ibv_mw_bind>(), align_of::<ibv_mw_bind>()), (48, 8), "ibv_mw_bind");
    assert_eq!(offset_of!(ibv_mw_bind, wr_id), 0, "ibv_mw_bind.wr_id");
    assert_eq!(offset_of!(ibv_mw_bind, send_flags), 8, "ibv_mw_bind.send_flags");
    assert_eq!(offset_of!(ibv_mw_bind, bind_info), 16, "ibv_mw_bind.bind_info");
    assert_eq!(offset_of!(ibv_mw_bind, bind_info.mr), 16, "ibv_mw_bind.bind_info.mr");
    assert_eq!(offset_of!(ibv_mw_bind, bind_info.addr), 24, "ibv_mw_bind.bind_info.addr");
    assert_eq!(offset_of!(ibv_mw_bind, bind_info.length), 32, "ibv_mw_bind.bind_info.length");
    assert_eq!(offset_of!(ibv_mw_bind, bind_info.mw_access_flags), 40, "ibv_mw_bind.bind_info.mw_access_flags");
    assert_eq!((size_of::<ibv_srq>(), align_of::<ibv_srq>()), (128, 8), "ibv_srq");
    assert_eq!(offset_of!(ibv_srq, context), 0, "ibv_srq.context");
    assert_eq!(offset_of!(ibv_srq, srq_context), 8, "ibv_srq.srq_context");
    assert_eq!(offset_of!(ibv_srq, pd), 16, "ibv_srq.pd");
    assert_eq!(offset_of!(ibv_srq, handle), 24, "ibv_srq.handle");
    assert_eq!(offset_of!(ibv_srq, mutex), 32, "ibv_srq.mutex");
    assert_eq!(offset_of!(ibv_srq, cond), 72, "ibv_srq.cond");
    assert_eq!(offset_of!(ibv_srq, events_completed), 120, "ibv_srq.events_completed");
    assert_eq!((size_of::<ibv_wq>(), align_of::<ibv_wq>()), (152, 8), "ibv_wq");
    assert_eq!(offset_of!(ibv_wq, context), 0, "ibv_wq.context");
    assert_eq!(offset_of!(ibv_wq, wq_context), 8, "ibv_wq.wq_context");
    assert_eq!(offset_of!(ibv_wq, pd), 16, "ibv_wq.pd");
    assert_eq!(offset_of!(ibv_wq, cq), 24, "ibv_wq.cq");
    assert_eq!(offset_of!(ibv_wq, wq_num), 32, "ibv_wq.wq_num");
    assert_eq!(offset_of!(ibv_wq, handle), 36, "ibv_wq.handle");
    assert_eq!(offset_of!(ibv_wq, state), 40, "ibv_wq.state");
    assert_eq!(offset_of!(ibv_wq, wq_type), 44, "ibv_wq.wq_type");
    assert_eq!(offset_of!(ibv_wq, post_recv), 48, "ibv_wq.post_recv");
    assert_eq!(offset_of!(ibv_wq, mutex), 56, "ibv_wq.mutex");
    assert_eq!(offset_of!(ibv_wq, cond), 96, "ibv_wq.cond");
    assert_eq!(offset_of!(ibv_wq, events_completed), 144, "ibv_wq.events_completed");
    assert_eq!(offset_of!(ibv_wq, comp_mask), 148, "ibv_wq.comp_mask");
    assert_eq!((size_of::<ibv_qp>(), align_of::<ibv_qp>()), (160, 8), "ibv_qp");
    assert_eq!(offset_of!(ibv_qp, context), 0, "ibv_qp.context");
    assert_eq!(offset_of!(ibv_qp, qp_context), 8, "ibv_qp.qp_context");
    assert_eq!(offset_of!(ibv_qp, pd), 16, "ibv_qp.pd");
    assert_eq!(offset_of!(ibv_qp, send_cq), 24, "ibv_qp.send_cq");
    assert_eq!(offset_of!(ibv_qp, recv_cq), 32, "ibv_qp.recv_cq");
    assert_eq!(offset_of!(ibv_qp, srq), 40, "ibv_qp.srq");
    assert_eq!(offset_of!(ibv_qp, handle), 48, "ibv_qp.handle");
    assert_eq!(offset_of!(ibv_qp, qp_num), 52, "ibv_qp.qp_num");
    assert_eq!(offset_of!(ibv_qp, state), 56, "ibv_qp.state");
    assert_eq!(offset_of!(ibv_qp, qp_type), 60, "ibv_qp.qp_type");
    assert_eq!(offset_of!(ibv_qp, mutex), 64, "ibv_qp.mutex");
    assert_eq!(offset_of!(ibv_qp, cond), 104, "ibv_qp.cond");
    assert_eq!(offset_of!(ibv_qp, events_completed), 152, "ibv_qp.events_completed");
    assert_eq!((size_of::<ibv_qp_ex>(), align_of::<ibv_qp_ex>()), (360, 8), "ibv_qp_ex");
    assert_eq!(offset_of!(ibv_qp_ex, wr_flush), 352, "ibv_qp_ex.wr_flush");
    assert_eq!((size_of::<ibv_fd_arr>(), offset_of!(ibv_fd_arr, count)), (16, 8), "ibv_fd_arr");
    assert_eq!(
        (size_of::<ib_uverbs_buffer_desc>(), offset_of!(ib_uverbs_buffer_desc, length)),
        (32, 24),
        "ib_uverbs_buffer_desc"
    );
    assert_eq!(offset_of!(ibv_qp_ex, qp_base), 0, "ibv_qp_ex.qp_base");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.context), 0, "ibv_qp_ex.qp_base.context");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.qp_context), 8, "ibv_qp_ex.qp_base.qp_context");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.pd), 16, "ibv_qp_ex.qp_base.pd");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.send_cq), 24, "ibv_qp_ex.qp_base.send_cq");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.recv_cq), 32, "ibv_qp_ex.qp_base.recv_cq");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.srq), 40, "ibv_qp_ex.qp_base.srq");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.handle), 48, "ibv_qp_ex.qp_base.handle");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.qp_num), 52, "ibv_qp_ex.qp_base.qp_num");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.state), 56, "ibv_qp_ex.qp_base.state");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.qp_type), 60, "ibv_qp_ex.qp_base.qp_type");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.mutex), 64, "ibv_qp_ex.qp_base.mutex");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.cond), 104, "ibv_qp_ex.qp_base.cond");
    assert_eq!(offset_of!(ibv_qp_ex, qp_base.events_completed), 152, "ibv_qp_ex.qp_base.events_completed");
    assert_eq!(offset_of!(ibv_qp_ex, comp_mask), 160, "ibv_qp_ex.comp_mask");
    assert_eq!(offset_of!(ibv_qp_ex, wr_id), 168, "ibv_qp_ex.wr_id");
    assert_eq!(offset_of!(ibv_qp_ex, wr_flags), 176, "ibv_qp_ex.wr_flags");
    assert_eq!(offset_of!(ibv_qp_ex, wr_atomic_cmp_swp), 184, "ibv_qp_ex.wr_atomic_cmp_swp");
    assert_eq!(offset_of!(ibv_qp_ex, wr_atomic_fetch_add), 192, "ibv_qp_ex.wr_atomic_fetch_add");
    assert_eq!(offset_of!(ibv_qp_ex, wr_bind_mw), 200, "ibv_qp_ex.wr_bind_mw");
    assert_eq!(offset_of!(ibv_qp_ex, wr_local_inv), 208, "ibv_qp_ex.wr_local_inv");
    assert_eq!(offset_of!(ibv_qp_ex, wr_rdma_read), 216, "ibv_qp_ex.wr_rdma_read");
    assert_eq!(offset_of!(ibv_qp_ex, wr_rdma_write), 224, "ibv_qp_ex.wr_rdma_write");
    assert_eq!(offset_of!(ibv_qp_ex, wr_rdma_write_imm), 232, "ibv_qp_ex.wr_rdma_write_imm");
    assert_eq!(offset_of!(ibv_qp_ex, wr_send), 240, "ibv_qp_ex.wr_send");
    assert_eq!(offset_of!(ibv_qp_ex, wr_send_imm), 248, "ibv_qp_ex.wr_send_imm");
    assert_eq!(offset_of!(ibv_qp_ex, wr_send_inv), 256, "ibv_qp_ex.wr_send_inv");
    assert_eq!(offset_of!(ibv_qp_ex, wr_send_tso), 264, "ibv_qp_ex.wr_send_tso");
    assert_eq!(offset_of!(ibv_qp_ex, wr_set_ud_addr), 272, "ibv_qp_ex.wr_set_ud_addr");
    assert_eq!(offset_of!(ibv_qp_ex, wr_set_xrc_srqn), 280, "ibv_qp_ex.wr_set_xrc_srqn");
    assert_eq!(offset_of!(ibv_qp_ex, wr_set_inline_data), 288, "ibv_qp_ex.wr_set_inline_data");
    assert_eq!(offset_of!(ibv_qp_ex, wr_set_inline_data_list), 296, "ibv_qp_ex.wr_set_inline_data_list");
    assert_eq!(offset_of!(ibv_qp_ex, wr_set_sge), 304, "ibv_qp_ex.wr_set_sge");
    assert_eq!(offset_of!(ibv_qp_ex, wr_set_sge_list), 312, "ibv_qp_ex.wr_set_sge_list");
    assert_eq!(offset_of!(ibv_qp_ex, wr_start), 320, "ibv_qp_ex.wr_start");
    assert_eq!(offset_of!(ibv_qp_ex, wr_complete), 328, "ibv_qp_ex.wr_complete");
    assert_eq!(offset_of!(ibv_qp_ex, wr_abort), 336, "ibv_qp_ex.wr_abort");
    assert_eq!(offset_of!(ibv_qp_ex, wr_atomic_write), 344, "ibv_qp_ex.wr_atomic_write");
    assert_eq!((size_of::<ibv_ece>(), align_of::<ibv_ece>()), (12, 4), "ibv_ece");
    assert_eq!(offset_of!(ibv_ece, vendor_id), 0, "ibv_ece.vendor_id");
    assert_eq!(offset_of!(ibv_ece, options), 4, "ibv_ece.options");
    assert_eq!(offset_of!(ibv_ece, comp_mask), 8, "ibv_ece.comp_mask");
    assert_eq!((size_of::<ibv_comp_channel>(), align_of::<ibv_comp_channel>()), (16, 8), "ibv_comp_channel");
    assert_eq!(offset_of!(ibv_comp_channel, context), 0, "ibv_comp_channel.context");
    assert_eq!(offset_of!(ibv_comp_channel, fd), 8, "ibv_comp_channel.fd");
    assert_eq!(offset_of!(ibv_comp_channel, refcnt), 12, "ibv_comp_channel.refcnt");
    assert_eq!((size_of::<ibv_cq>(), align_of::<ibv_cq>()), (128, 8), "ibv_cq");
    assert_eq!(offset_of!(ibv_cq, context), 0, "ibv_cq.context");
    assert_eq!(offset_of!(ibv_cq, channel), 8, "ibv_cq.channel");
    assert_eq!(offset_of!(ibv_cq, cq_context), 16, "ibv_cq.cq_context");
    assert_eq!(offset_of!(ibv_cq, handle), 24, "ibv_cq.handle");
    assert_eq!(offset_of!(ibv_cq, cqe), 28, "ibv_cq.cqe");
    assert_eq!(offset_of!(ibv_cq, mutex), 32, "ibv_cq.mutex");
    assert_eq!(offset_of!(ibv_cq, cond), 72, "ibv_cq.cond");
    assert_eq!(offset_of!(ibv_cq, comp_events_completed), 120, "ibv_cq.comp_events_completed");
    assert_eq!(offset_of!(ibv_cq, async_events_completed), 124, "ibv_cq.async_events_completed");
    assert_eq!((size_of::<ibv_poll_cq_attr>(), align_of::<ibv_poll_cq_attr>()), (4, 4), "ibv_poll_cq_attr");
    assert_eq!(offset_of!(ibv_poll_cq_attr, comp_mask), 0, "ibv_poll_cq_attr.comp_mask");
    assert_eq!((size_of::<ibv_wc_tm_info>(), align_of::<ibv_wc_tm_info>()), (16, 8), "ibv_wc_tm_info");
    assert_eq!(offset_of!(ibv_wc_tm_info, tag), 0, "ibv_wc_tm_info.tag");
    assert_eq!(offset_of!(ibv_wc_tm_info, r#priv), 8, "ibv_wc_tm_info.r#priv");
    assert_eq!((size_of::<ibv_cq_ex>(), align_of::<ibv_cq_ex>()), (288, 8), "ibv_cq_ex");
    assert_eq!(offset_of!(ibv_cq_ex, context), 0, "ibv_cq_ex.context");
    assert_eq!(offset_of!(ibv_cq_ex, channel), 8, "ibv_cq_ex.channel");
    assert_eq!(offset_of!(ibv_cq_ex, cq_context), 16, "ibv_cq_ex.cq_context");
    assert_eq!(offset_of!(ibv_cq_ex, handle), 24, "ibv_cq_ex.handle");
    assert_eq!(offset_of!(ibv_cq_ex, cqe), 28, "ibv_cq_ex.cqe");
    assert_eq!(offset_of!(ibv_cq_ex, mutex), 32, "ibv_cq_ex.mutex");
    assert_eq!(offset_of!(ibv_cq_ex, cond), 72, "ibv_cq_ex.cond");
    assert_eq!(offset_of!(ibv_cq_ex, comp_events_completed), 120, "ibv_cq_ex.comp_events_completed");
    assert_eq!(offset_of!(ibv_cq_ex, async_events_completed), 124, "ibv_cq_ex.async_events_completed");
    assert_eq!(offset_of!(ibv_cq_ex, comp_mask), 128, "ibv_cq_ex.comp_mask");
    assert_eq!(offset_of!(ibv_cq_ex, status), 132, "ibv_cq_ex.status");
    assert_eq!(offset_of!(ibv_cq_ex, wr_id), 136, "ibv_cq_ex.wr_id");
    assert_eq!(offset_of!(ibv_cq_ex, start_poll), 144, "ibv_cq_ex.start_poll");
    assert_eq!(offset_of!(ibv_cq_ex, next_poll), 152, "ibv_cq_ex.next_poll");
    assert_eq!(offset_of!(ibv_cq_ex, end_poll), 160, "ibv_cq_ex.end_poll");
    assert_eq!(offset_of!(ibv_cq_ex, read_opcode), 168, "ibv_cq_ex.read_opcode");
    assert_eq!(offset_of!(ibv_cq_ex, read_vendor_err), 176, "ibv_cq_ex.read_vendor_err");
    assert_eq!(offset_of!(ibv_cq_ex, read_byte_len), 184, "ibv_cq_ex.read_byte_len");
    assert_eq!(offset_of!(ibv_cq_ex, read_imm_data), 192, "ibv_cq_ex.read_imm_data");
    assert_eq!(offset_of!(ibv_cq_ex, read_qp_num), 200, "ibv_cq_ex.read_qp_num");
    assert_eq!(offset_of!(ibv_cq_ex, read_src_qp), 208, "ibv_cq_ex.read_src_qp");
    assert_eq!(offset_of!(ibv_cq_ex, read_wc_flags), 216, "ibv_cq_ex.read_wc_flags");
    assert_eq!(offset_of!(ibv_cq_ex, read_slid), 224, "ibv_cq_ex.read_slid");
    assert_eq!(offset_of!(ibv_cq_ex, read_sl), 232, "ibv_cq_ex.read_sl");
    assert_eq!(offset_of!(ibv_cq_ex, read_dlid_path_bits), 240, "ibv_cq_ex.read_dlid_path_bits");
    assert_eq!(offset_of!(ibv_cq_ex, read_completion_ts), 248, "ibv_cq_ex.read_completion_ts");
    assert_eq!(offset_of!(ibv_cq_ex, read_cvlan), 256, "ibv_cq_ex.read_cvlan");
    assert_eq!(offset_of!(ibv_cq_ex, read_flow_tag), 264, "ibv_cq_ex.read_flow_tag");
    assert_eq!(offset_of!(ibv_cq_ex, read_tm_info), 272, "ibv_cq_ex.read_tm_info");
    assert_eq!(offset_of!(ibv_cq_ex, read_completion_wallclock_ns), 280, "ibv_cq_ex.read_completion_wallclock_ns");
    assert_eq!((size_of::<ibv_moderate_cq>(), align_of::<ibv_moderate_cq>()), (4, 2), "ibv_moderate_cq");
    assert_eq!(offset_of!(ibv_moderate_cq, cq_count), 0, "ibv_moderate_cq.cq_count");
    assert_eq!(offset_of!(ibv_moderate_cq, cq_period), 2, "ibv_moderate_cq.cq_period");
    assert_eq!((size_of::<ibv_modify_cq_attr>(), align_of::<ibv_modify_cq_attr>()), (8, 4), "ibv_modify_cq_attr");
    assert_eq!(offset_of!(ibv_modify_cq_attr, attr_mask), 0, "ibv_modify_cq_attr.attr_mask");
    assert_eq!(offset_of!(ibv_modify_cq_attr, moderate), 4, "ibv_modify_cq_attr.moderate");
    assert_eq!(offset_of!(ibv_modify_cq_attr, moderate.cq_count), 4, "ibv_modify_cq_attr.moderate.cq_count");
    assert_eq!(offset_of!(ibv_modify_cq_attr, moderate.cq_period), 6, "ibv_modify_cq_attr.moderate.cq_period");
    assert_eq!((size_of::<ibv_ah>(), align_of::<ibv_ah>()), (24, 8), "ibv_ah");
    assert_eq!(offset_of!(ibv_ah, context), 0, "ibv_ah.context");
    assert_eq!(offset_of!(ibv_ah, pd), 8, "ibv_ah.pd");
    assert_eq!(offset_of!(ibv_ah, handle), 16, "ibv_ah.handle");
    assert_eq!((size_of::<ibv_flow_eth_filter>(), align_of::<ibv_flow_eth_filter>()), (16, 2), "ibv_flow_eth_filter");
    assert_eq!(offset_of!(ibv_flow_eth_filter, dst_mac), 0, "ibv_flow_eth_filter.dst_mac");
    assert_eq!(offset_of!(ibv_flow_eth_filter, src_mac), 6, "ibv_flow_eth_filter.src_mac");
    assert_eq!(offset_of!(ibv_flow_eth_filter, ether_type), 12, "ibv_flow_eth_filter.ether_type");
    assert_eq!(offset_of!(ibv_flow_eth_filter, vlan_tag), 14, "ibv_flow_eth_filter.vlan_tag");
    assert_eq!((size_of::<ibv_flow_spec_eth>(), align_of::<ibv_flow_spec_eth>()), (40, 4), "ibv_flow_spec_eth");
    assert_eq!(offset_of!(ibv_flow_spec_eth, r#type), 0, "ibv_flow_spec_eth.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_eth, size), 4, "ibv_flow_spec_eth.size");
    assert_eq!(offset_of!(ibv_flow_spec_eth, val), 6, "ibv_flow_spec_eth.val");
    assert_eq!(offset_of!(ibv_flow_spec_eth, val.dst_mac), 6, "ibv_flow_spec_eth.val.dst_mac");
    assert_eq!(offset_of!(ibv_flow_spec_eth, val.src_mac), 12, "ibv_flow_spec_eth.val.src_mac");
    assert_eq!(offset_of!(ibv_flow_spec_eth, val.ether_type), 18, "ibv_flow_spec_eth.val.ether_type");
    assert_eq!(offset_of!(ibv_flow_spec_eth, val.vlan_tag), 20, "ibv_flow_spec_eth.val.vlan_tag");
    assert_eq!(offset_of!(ibv_flow_spec_eth, mask), 22, "ibv_flow_spec_eth.mask");
    assert_eq!(offset_of!(ibv_flow_spec_eth, mask.dst_mac), 22, "ibv_flow_spec_eth.mask.dst_mac");
    assert_eq!(offset_of!(ibv_flow_spec_eth, mask.src_mac), 28, "ibv_flow_spec_eth.mask.src_mac");
    assert_eq!(offset_of!(ibv_flow_spec_eth, mask.ether_type), 34, "ibv_flow_spec_eth.mask.ether_type");
    assert_eq!(offset_of!(ibv_flow_spec_eth, mask.vlan_tag), 36, "ibv_flow_spec_eth.mask.vlan_tag");
    assert_eq!((size_of::<ibv_flow_ipv4_filter>(), align_of::<ibv_flow_ipv4_filter>()), (8, 4), "ibv_flow_ipv4_filter");
    assert_eq!(offset_of!(ibv_flow_ipv4_filter, src_ip), 0, "ibv_flow_ipv4_filter.src_ip");
    assert_eq!(offset_of!(ibv_flow_ipv4_filter, dst_ip), 4, "ibv_flow_ipv4_filter.dst_ip");
    assert_eq!((size_of::<ibv_flow_spec_ipv4>(), align_of::<ibv_flow_spec_ipv4>()), (24, 4), "ibv_flow_spec_ipv4");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, r#type), 0, "ibv_flow_spec_ipv4.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, size), 4, "ibv_flow_spec_ipv4.size");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, val), 8, "ibv_flow_spec_ipv4.val");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, val.src_ip), 8, "ibv_flow_spec_ipv4.val.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, val.dst_ip), 12, "ibv_flow_spec_ipv4.val.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, mask), 16, "ibv_flow_spec_ipv4.mask");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, mask.src_ip), 16, "ibv_flow_spec_ipv4.mask.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4, mask.dst_ip), 20, "ibv_flow_spec_ipv4.mask.dst_ip");
    assert_eq!(
        (size_of::<ibv_flow_ipv4_ext_filter>(), align_of::<ibv_flow_ipv4_ext_filter>()),
        (12, 4),
        "ibv_flow_ipv4_ext_filter"
    );
    assert_eq!(offset_of!(ibv_flow_ipv4_ext_filter, src_ip), 0, "ibv_flow_ipv4_ext_filter.src_ip");
    assert_eq!(offset_of!(ibv_flow_ipv4_ext_filter, dst_ip), 4, "ibv_flow_ipv4_ext_filter.dst_ip");
    assert_eq!(offset_of!(ibv_flow_ipv4_ext_filter, proto), 8, "ibv_flow_ipv4_ext_filter.proto");
    assert_eq!(offset_of!(ibv_flow_ipv4_ext_filter, tos), 9, "ibv_flow_ipv4_ext_filter.tos");
    assert_eq!(offset_of!(ibv_flow_ipv4_ext_filter, ttl), 10, "ibv_flow_ipv4_ext_filter.ttl");
    assert_eq!(offset_of!(ibv_flow_ipv4_ext_filter, flags), 11, "ibv_flow_ipv4_ext_filter.flags");
    assert_eq!(
        (size_of::<ibv_flow_spec_ipv4_ext>(), align_of::<ibv_flow_spec_ipv4_ext>()),
        (32, 4),
        "ibv_flow_spec_ipv4_ext"
    );
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, r#type), 0, "ibv_flow_spec_ipv4_ext.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, size), 4, "ibv_flow_spec_ipv4_ext.size");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val), 8, "ibv_flow_spec_ipv4_ext.val");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val.src_ip), 8, "ibv_flow_spec_ipv4_ext.val.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val.dst_ip), 12, "ibv_flow_spec_ipv4_ext.val.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val.proto), 16, "ibv_flow_spec_ipv4_ext.val.proto");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val.tos), 17, "ibv_flow_spec_ipv4_ext.val.tos");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val.ttl), 18, "ibv_flow_spec_ipv4_ext.val.ttl");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, val.flags), 19, "ibv_flow_spec_ipv4_ext.val.flags");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask), 20, "ibv_flow_spec_ipv4_ext.mask");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask.src_ip), 20, "ibv_flow_spec_ipv4_ext.mask.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask.dst_ip), 24, "ibv_flow_spec_ipv4_ext.mask.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask.proto), 28, "ibv_flow_spec_ipv4_ext.mask.proto");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask.tos), 29, "ibv_flow_spec_ipv4_ext.mask.tos");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask.ttl), 30, "ibv_flow_spec_ipv4_ext.mask.ttl");
    assert_eq!(offset_of!(ibv_flow_spec_ipv4_ext, mask.flags), 31, "ibv_flow_spec_ipv4_ext.mask.flags");
    assert_eq!(
        (size_of::<ibv_flow_ipv6_filter>(), align_of::<ibv_flow_ipv6_filter>()),
        (40, 4),
        "ibv_flow_ipv6_filter"
    );
    assert_eq!(offset_of!(ibv_flow_ipv6_filter, src_ip), 0, "ibv_flow_ipv6_filter.src_ip");
    assert_eq!(offset_of!(ibv_flow_ipv6_filter, dst_ip), 16, "ibv_flow_ipv6_filter.dst_ip");
    assert_eq!(offset_of!(ibv_flow_ipv6_filter, flow_label), 32, "ibv_flow_ipv6_filter.flow_label");
    assert_eq!(offset_of!(ibv_flow_ipv6_filter, next_hdr), 36, "ibv_flow_ipv6_filter.next_hdr");
    assert_eq!(offset_of!(ibv_flow_ipv6_filter, traffic_class), 37, "ibv_flow_ipv6_filter.traffic_class");
    assert_eq!(offset_of!(ibv_flow_ipv6_filter, hop_limit), 38, "ibv_flow_ipv6_filter.hop_limit");
    assert_eq!((size_of::<ibv_flow_spec_ipv6>(), align_of::<ibv_flow_spec_ipv6>()), (88, 4), "ibv_flow_spec_ipv6");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, r#type), 0, "ibv_flow_spec_ipv6.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, size), 4, "ibv_flow_spec_ipv6.size");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val), 8, "ibv_flow_spec_ipv6.val");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val.src_ip), 8, "ibv_flow_spec_ipv6.val.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val.dst_ip), 24, "ibv_flow_spec_ipv6.val.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val.flow_label), 40, "ibv_flow_spec_ipv6.val.flow_label");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val.next_hdr), 44, "ibv_flow_spec_ipv6.val.next_hdr");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val.traffic_class), 45, "ibv_flow_spec_ipv6.val.traffic_class");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, val.hop_limit), 46, "ibv_flow_spec_ipv6.val.hop_limit");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask), 48, "ibv_flow_spec_ipv6.mask");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask.src_ip), 48, "ibv_flow_spec_ipv6.mask.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask.dst_ip), 64, "ibv_flow_spec_ipv6.mask.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask.flow_label), 80, "ibv_flow_spec_ipv6.mask.flow_label");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask.next_hdr), 84, "ibv_flow_spec_ipv6.mask.next_hdr");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask.traffic_class), 85, "ibv_flow_spec_ipv6.mask.traffic_class");
    assert_eq!(offset_of!(ibv_flow_spec_ipv6, mask.hop_limit), 86, "ibv_flow_spec_ipv6.mask.hop_limit");
    assert_eq!((size_of::<ibv_flow_esp_filter>(), align_of::<ibv_flow_esp_filter>()), (8, 4), "ibv_flow_esp_filter");
    assert_eq!(offset_of!(ibv_flow_esp_filter, spi), 0, "ibv_flow_esp_filter.spi");
    assert_eq!(offset_of!(ibv_flow_esp_filter, seq), 4, "ibv_flow_esp_filter.seq");
    assert_eq!((size_of::<ibv_flow_spec_esp>(), align_of::<ibv_flow_spec_esp>()), (24, 4), "ibv_flow_spec_esp");
    assert_eq!(offset_of!(ibv_flow_spec_esp, r#type), 0, "ibv_flow_spec_esp.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_esp, size), 4, "ibv_flow_spec_esp.size");
    assert_eq!(offset_of!(ibv_flow_spec_esp, val), 8, "ibv_flow_spec_esp.val");
    assert_eq!(offset_of!(ibv_flow_spec_esp, val.spi), 8, "ibv_flow_spec_esp.val.spi");
    assert_eq!(offset_of!(ibv_flow_spec_esp, val.seq), 12, "ibv_flow_spec_esp.val.seq");
    assert_eq!(offset_of!(ibv_flow_spec_esp, mask), 16, "ibv_flow_spec_esp.mask");
    assert_eq!(offset_of!(ibv_flow_spec_esp, mask.spi), 16, "ibv_flow_spec_esp.mask.spi");
    assert_eq!(offset_of!(ibv_flow_spec_esp, mask.seq), 20, "ibv_flow_spec_esp.mask.seq");
    assert_eq!(
        (size_of::<ibv_flow_tcp_udp_filter>(), align_of::<ibv_flow_tcp_udp_filter>()),
        (4, 2),
        "ibv_flow_tcp_udp_filter"
    );
    assert_eq!(offset_of!(ibv_flow_tcp_udp_filter, dst_port), 0, "ibv_flow_tcp_udp_filter.dst_port");
    assert_eq!(offset_of!(ibv_flow_tcp_udp_filter, src_port), 2, "ibv_flow_tcp_udp_filter.src_port");
    assert_eq!(
        (size_of::<ibv_flow_spec_tcp_udp>(), align_of::<ibv_flow_spec_tcp_udp>()),
        (16, 4),
        "ibv_flow_spec_tcp_udp"
    );
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, r#type), 0, "ibv_flow_spec_tcp_udp.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, size), 4, "ibv_flow_spec_tcp_udp.size");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, val), 6, "ibv_flow_spec_tcp_udp.val");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, val.dst_port), 6, "ibv_flow_spec_tcp_udp.val.dst_port");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, val.src_port), 8, "ibv_flow_spec_tcp_udp.val.src_port");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, mask), 10, "ibv_flow_spec_tcp_udp.mask");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, mask.dst_port), 10, "ibv_flow_spec_tcp_udp.mask.dst_port");
    assert_eq!(offset_of!(ibv_flow_spec_tcp_udp, mask.src_port), 12, "ibv_flow_spec_tcp_udp.mask.src_port");
    assert_eq!((size_of::<ibv_flow_gre_filter>(), align_of::<ibv_flow_gre_filter>()), (8, 4), "ibv_flow_gre_filter");
    assert_eq!(offset_of!(ibv_flow_gre_filter, c_ks_res0_ver), 0, "ibv_flow_gre_filter.c_ks_res0_ver");
    assert_eq!(offset_of!(ibv_flow_gre_filter, protocol), 2, "ibv_flow_gre_filter.protocol");
    assert_eq!(offset_of!(ibv_flow_gre_filter, key), 4, "ibv_flow_gre_filter.key");
    assert_eq!((size_of::<ibv_flow_spec_gre>(), align_of::<ibv_flow_spec_gre>()), (24, 4), "ibv_flow_spec_gre");
    assert_eq!(offset_of!(ibv_flow_spec_gre, r#type), 0, "ibv_flow_spec_gre.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_gre, size), 4, "ibv_flow_spec_gre.size");
    assert_eq!(offset_of!(ibv_flow_spec_gre, val), 8, "ibv_flow_spec_gre.val");
    assert_eq!(offset_of!(ibv_flow_spec_gre, val.c_ks_res0_ver), 8, "ibv_flow_spec_gre.val.c_ks_res0_ver");
    assert_eq!(offset_of!(ibv_flow_spec_gre, val.protocol), 10, "ibv_flow_spec_gre.val.protocol");
    assert_eq!(offset_of!(ibv_flow_spec_gre, val.key), 12, "ibv_flow_spec_gre.val.key");
    assert_eq!(offset_of!(ibv_flow_spec_gre, mask), 16, "ibv_flow_spec_gre.mask");
    assert_eq!(offset_of!(ibv_flow_spec_gre, mask.c_ks_res0_ver), 16, "ibv_flow_spec_gre.mask.c_ks_res0_ver");
    assert_eq!(offset_of!(ibv_flow_spec_gre, mask.protocol), 18, "ibv_flow_spec_gre.mask.protocol");
    assert_eq!(offset_of!(ibv_flow_spec_gre, mask.key), 20, "ibv_flow_spec_gre.mask.key");
    assert_eq!((size_of::<ibv_flow_mpls_filter>(), align_of::<ibv_flow_mpls_filter>()), (4, 4), "ibv_flow_mpls_filter");
    assert_eq!(offset_of!(ibv_flow_mpls_filter, label), 0, "ibv_flow_mpls_filter.label");
    assert_eq!((size_of::<ibv_flow_spec_mpls>(), align_of::<ibv_flow_spec_mpls>()), (16, 4), "ibv_flow_spec_mpls");
    assert_eq!(offset_of!(ibv_flow_spec_mpls, r#type), 0, "ibv_flow_spec_mpls.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_mpls, size), 4, "ibv_flow_spec_mpls.size");
    assert_eq!(offset_of!(ibv_flow_spec_mpls, val), 8, "ibv_flow_spec_mpls.val");
    assert_eq!(offset_of!(ibv_flow_spec_mpls, val.label), 8, "ibv_flow_spec_mpls.val.label");
    assert_eq!(offset_of!(ibv_flow_spec_mpls, mask), 12, "ibv_flow_spec_mpls.mask");
    assert_eq!(offset_of!(ibv_flow_spec_mpls, mask.label), 12, "ibv_flow_spec_mpls.mask.label");
    assert_eq!(
        (size_of::<ibv_flow_tunnel_filter>(), align_of::<ibv_flow_tunnel_filter>()),
        (4, 4),
        "ibv_flow_tunnel_filter"
    );
    assert_eq!(offset_of!(ibv_flow_tunnel_filter, tunnel_id), 0, "ibv_flow_tunnel_filter.tunnel_id");
    assert_eq!(
        (size_of::<ibv_flow_spec_tunnel>(), align_of::<ibv_flow_spec_tunnel>()),
        (16, 4),
        "ibv_flow_spec_tunnel"
    );
    assert_eq!(offset_of!(ibv_flow_spec_tunnel, r#type), 0, "ibv_flow_spec_tunnel.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_tunnel, size), 4, "ibv_flow_spec_tunnel.size");
    assert_eq!(offset_of!(ibv_flow_spec_tunnel, val), 8, "ibv_flow_spec_tunnel.val");
    assert_eq!(offset_of!(ibv_flow_spec_tunnel, val.tunnel_id), 8, "ibv_flow_spec_tunnel.val.tunnel_id");
    assert_eq!(offset_of!(ibv_flow_spec_tunnel, mask), 12, "ibv_flow_spec_tunnel.mask");
    assert_eq!(offset_of!(ibv_flow_spec_tunnel, mask.tunnel_id), 12, "ibv_flow_spec_tunnel.mask.tunnel_id");
    assert_eq!(
        (size_of::<ibv_flow_spec_action_tag>(), align_of::<ibv_flow_spec_action_tag>()),
        (12, 4),
        "ibv_flow_spec_action_tag"
    );
    assert_eq!(offset_of!(ibv_flow_spec_action_tag, r#type), 0, "ibv_flow_spec_action_tag.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_action_tag, size), 4, "ibv_flow_spec_action_tag.size");
    assert_eq!(offset_of!(ibv_flow_spec_action_tag, tag_id), 8, "ibv_flow_spec_action_tag.tag_id");
    assert_eq!(
        (size_of::<ibv_flow_spec_action_drop>(), align_of::<ibv_flow_spec_action_drop>()),
        (8, 4),
        "ibv_flow_spec_action_drop"
    );
    assert_eq!(offset_of!(ibv_flow_spec_action_drop, r#type), 0, "ibv_flow_spec_action_drop.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_action_drop, size), 4, "ibv_flow_spec_action_drop.size");
    assert_eq!(
        (size_of::<ibv_flow_spec_action_handle>(), align_of::<ibv_flow_spec_action_handle>()),
        (16, 8),
        "ibv_flow_spec_action_handle"
    );
    assert_eq!(offset_of!(ibv_flow_spec_action_handle, r#type), 0, "ibv_flow_spec_action_handle.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_action_handle, size), 4, "ibv_flow_spec_action_handle.size");
    assert_eq!(offset_of!(ibv_flow_spec_action_handle, action), 8, "ibv_flow_spec_action_handle.action");
    assert_eq!(
        (size_of::<ibv_flow_spec_counter_action>(), align_of::<ibv_flow_spec_counter_action>()),
        (16, 8),
        "ibv_flow_spec_counter_action"
    );
    assert_eq!(offset_of!(ibv_flow_spec_counter_action, r#type), 0, "ibv_flow_spec_counter_action.r#type");
    assert_eq!(offset_of!(ibv_flow_spec_counter_action, size), 4, "ibv_flow_spec_counter_action.size");
    assert_eq!(offset_of!(ibv_flow_spec_counter_action, counters), 8, "ibv_flow_spec_counter_action.counters");
    assert_eq!((size_of::<ibv_flow_spec>(), align_of::<ibv_flow_spec>()), (88, 8), "ibv_flow_spec");
    assert_eq!(offset_of!(ibv_flow_spec, spec), 0, "ibv_flow_spec.spec");
    assert_eq!(offset_of!(ibv_flow_spec, spec.hdr), 0, "ibv_flow_spec.spec.hdr");
    assert_eq!(offset_of!(ibv_flow_spec, spec.hdr.r#type), 0, "ibv_flow_spec.spec.hdr.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.hdr.size), 4, "ibv_flow_spec.spec.hdr.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth), 0, "ibv_flow_spec.spec.eth");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.r#type), 0, "ibv_flow_spec.spec.eth.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.size), 4, "ibv_flow_spec.spec.eth.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.val), 6, "ibv_flow_spec.spec.eth.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.val.dst_mac), 6, "ibv_flow_spec.spec.eth.val.dst_mac");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.val.src_mac), 12, "ibv_flow_spec.spec.eth.val.src_mac");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.val.ether_type), 18, "ibv_flow_spec.spec.eth.val.ether_type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.val.vlan_tag), 20, "ibv_flow_spec.spec.eth.val.vlan_tag");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.mask), 22, "ibv_flow_spec.spec.eth.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.mask.dst_mac), 22, "ibv_flow_spec.spec.eth.mask.dst_mac");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.mask.src_mac), 28, "ibv_flow_spec.spec.eth.mask.src_mac");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.mask.ether_type), 34, "ibv_flow_spec.spec.eth.mask.ether_type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.eth.mask.vlan_tag), 36, "ibv_flow_spec.spec.eth.mask.vlan_tag");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4), 0, "ibv_flow_spec.spec.ipv4");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.r#type), 0, "ibv_flow_spec.spec.ipv4.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.size), 4, "ibv_flow_spec.spec.ipv4.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.val), 8, "ibv_flow_spec.spec.ipv4.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.val.src_ip), 8, "ibv_flow_spec.spec.ipv4.val.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.val.dst_ip), 12, "ibv_flow_spec.spec.ipv4.val.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.mask), 16, "ibv_flow_spec.spec.ipv4.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.mask.src_ip), 16, "ibv_flow_spec.spec.ipv4.mask.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4.mask.dst_ip), 20, "ibv_flow_spec.spec.ipv4.mask.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp), 0, "ibv_flow_spec.spec.tcp_udp");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.r#type), 0, "ibv_flow_spec.spec.tcp_udp.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.size), 4, "ibv_flow_spec.spec.tcp_udp.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.val), 6, "ibv_flow_spec.spec.tcp_udp.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.val.dst_port), 6, "ibv_flow_spec.spec.tcp_udp.val.dst_port");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.val.src_port), 8, "ibv_flow_spec.spec.tcp_udp.val.src_port");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.mask), 10, "ibv_flow_spec.spec.tcp_udp.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.mask.dst_port), 10, "ibv_flow_spec.spec.tcp_udp.mask.dst_port");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tcp_udp.mask.src_port), 12, "ibv_flow_spec.spec.tcp_udp.mask.src_port");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext), 0, "ibv_flow_spec.spec.ipv4_ext");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.r#type), 0, "ibv_flow_spec.spec.ipv4_ext.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.size), 4, "ibv_flow_spec.spec.ipv4_ext.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val), 8, "ibv_flow_spec.spec.ipv4_ext.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val.src_ip), 8, "ibv_flow_spec.spec.ipv4_ext.val.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val.dst_ip), 12, "ibv_flow_spec.spec.ipv4_ext.val.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val.proto), 16, "ibv_flow_spec.spec.ipv4_ext.val.proto");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val.tos), 17, "ibv_flow_spec.spec.ipv4_ext.val.tos");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val.ttl), 18, "ibv_flow_spec.spec.ipv4_ext.val.ttl");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.val.flags), 19, "ibv_flow_spec.spec.ipv4_ext.val.flags");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask), 20, "ibv_flow_spec.spec.ipv4_ext.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask.src_ip), 20, "ibv_flow_spec.spec.ipv4_ext.mask.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask.dst_ip), 24, "ibv_flow_spec.spec.ipv4_ext.mask.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask.proto), 28, "ibv_flow_spec.spec.ipv4_ext.mask.proto");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask.tos), 29, "ibv_flow_spec.spec.ipv4_ext.mask.tos");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask.ttl), 30, "ibv_flow_spec.spec.ipv4_ext.mask.ttl");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv4_ext.mask.flags), 31, "ibv_flow_spec.spec.ipv4_ext.mask.flags");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6), 0, "ibv_flow_spec.spec.ipv6");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.r#type), 0, "ibv_flow_spec.spec.ipv6.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.size), 4, "ibv_flow_spec.spec.ipv6.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val), 8, "ibv_flow_spec.spec.ipv6.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val.src_ip), 8, "ibv_flow_spec.spec.ipv6.val.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val.dst_ip), 24, "ibv_flow_spec.spec.ipv6.val.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val.flow_label), 40, "ibv_flow_spec.spec.ipv6.val.flow_label");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val.next_hdr), 44, "ibv_flow_spec.spec.ipv6.val.next_hdr");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val.traffic_class), 45, "ibv_flow_spec.spec.ipv6.val.traffic_class");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.val.hop_limit), 46, "ibv_flow_spec.spec.ipv6.val.hop_limit");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.mask), 48, "ibv_flow_spec.spec.ipv6.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.mask.src_ip), 48, "ibv_flow_spec.spec.ipv6.mask.src_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.mask.dst_ip), 64, "ibv_flow_spec.spec.ipv6.mask.dst_ip");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.mask.flow_label), 80, "ibv_flow_spec.spec.ipv6.mask.flow_label");
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.mask.next_hdr), 84, "ibv_flow_spec.spec.ipv6.mask.next_hdr");
    assert_eq!(
        offset_of!(ibv_flow_spec, spec.ipv6.mask.traffic_class),
        85,
        "ibv_flow_spec.spec.ipv6.mask.traffic_class"
    );
    assert_eq!(offset_of!(ibv_flow_spec, spec.ipv6.mask.hop_limit), 86, "ibv_flow_spec.spec.ipv6.mask.hop_limit");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp), 0, "ibv_flow_spec.spec.esp");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.r#type), 0, "ibv_flow_spec.spec.esp.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.size), 4, "ibv_flow_spec.spec.esp.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.val), 8, "ibv_flow_spec.spec.esp.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.val.spi), 8, "ibv_flow_spec.spec.esp.val.spi");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.val.seq), 12, "ibv_flow_spec.spec.esp.val.seq");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.mask), 16, "ibv_flow_spec.spec.esp.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.mask.spi), 16, "ibv_flow_spec.spec.esp.mask.spi");
    assert_eq!(offset_of!(ibv_flow_spec, spec.esp.mask.seq), 20, "ibv_flow_spec.spec.esp.mask.seq");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel), 0, "ibv_flow_spec.spec.tunnel");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel.r#type), 0, "ibv_flow_spec.spec.tunnel.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel.size), 4, "ibv_flow_spec.spec.tunnel.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel.val), 8, "ibv_flow_spec.spec.tunnel.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel.val.tunnel_id), 8, "ibv_flow_spec.spec.tunnel.val.tunnel_id");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel.mask), 12, "ibv_flow_spec.spec.tunnel.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.tunnel.mask.tunnel_id), 12, "ibv_flow_spec.spec.tunnel.mask.tunnel_id");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre), 0, "ibv_flow_spec.spec.gre");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.r#type), 0, "ibv_flow_spec.spec.gre.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.size), 4, "ibv_flow_spec.spec.gre.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.val), 8, "ibv_flow_spec.spec.gre.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.val.c_ks_res0_ver), 8, "ibv_flow_spec.spec.gre.val.c_ks_res0_ver");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.val.protocol), 10, "ibv_flow_spec.spec.gre.val.protocol");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.val.key), 12, "ibv_flow_spec.spec.gre.val.key");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.mask), 16, "ibv_flow_spec.spec.gre.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.mask.c_ks_res0_ver), 16, "ibv_flow_spec.spec.gre.mask.c_ks_res0_ver");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.mask.protocol), 18, "ibv_flow_spec.spec.gre.mask.protocol");
    assert_eq!(offset_of!(ibv_flow_spec, spec.gre.mask.key), 20, "ibv_flow_spec.spec.gre.mask.key");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls), 0, "ibv_flow_spec.spec.mpls");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls.r#type), 0, "ibv_flow_spec.spec.mpls.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls.size), 4, "ibv_flow_spec.spec.mpls.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls.val), 8, "ibv_flow_spec.spec.mpls.val");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls.val.label), 8, "ibv_flow_spec.spec.mpls.val.label");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls.mask), 12, "ibv_flow_spec.spec.mpls.mask");
    assert_eq!(offset_of!(ibv_flow_spec, spec.mpls.mask.label), 12, "ibv_flow_spec.spec.mpls.mask.label");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_tag), 0, "ibv_flow_spec.spec.flow_tag");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_tag.r#type), 0, "ibv_flow_spec.spec.flow_tag.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_tag.size), 4, "ibv_flow_spec.spec.flow_tag.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_tag.tag_id), 8, "ibv_flow_spec.spec.flow_tag.tag_id");
    assert_eq!(offset_of!(ibv_flow_spec, spec.drop), 0, "ibv_flow_spec.spec.drop");
    assert_eq!(offset_of!(ibv_flow_spec, spec.drop.r#type), 0, "ibv_flow_spec.spec.drop.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.drop.size), 4, "ibv_flow_spec.spec.drop.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.handle), 0, "ibv_flow_spec.spec.handle");
    assert_eq!(offset_of!(ibv_flow_spec, spec.handle.r#type), 0, "ibv_flow_spec.spec.handle.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.handle.size), 4, "ibv_flow_spec.spec.handle.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.handle.action), 8, "ibv_flow_spec.spec.handle.action");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_count), 0, "ibv_flow_spec.spec.flow_count");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_count.r#type), 0, "ibv_flow_spec.spec.flow_count.r#type");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_count.size), 4, "ibv_flow_spec.spec.flow_count.size");
    assert_eq!(offset_of!(ibv_flow_spec, spec.flow_count.counters), 8, "ibv_flow_spec.spec.flow_count.counters");
    assert_eq!((size_of::<ibv_flow_attr>(), align_of::<ibv_flow_attr>()), (20, 4), "ibv_flow_attr");
    assert_eq!(offset_of!(ibv_flow_attr, comp_mask), 0, "ibv_flow_attr.comp_mask");
    assert_eq!(offset_of!(ibv_flow_attr, r#type), 4, "ibv_flow_attr.r#type");
    assert_eq!(offset_of!(ibv_flow_attr, size), 8, "ibv_flow_attr.size");
    assert_eq!(offset_of!(ibv_flow_attr, priority), 10, "ibv_flow_attr.priority");
    assert_eq!(offset_of!(ibv_flow_attr, num_of_specs), 12, "ibv_flow_attr.num_of_specs");
    assert_eq!(offset_of!(ibv_flow_attr, port), 13, "ibv_flow_attr.port");
    assert_eq!(offset_of!(ibv_flow_attr, flags), 16, "ibv_flow_attr.flags");
    assert_eq!((size_of::<ibv_flow>(), align_of::<ibv_flow>()), (24, 8), "ibv_flow");
    assert_eq!(offset_of!(ibv_flow, comp_mask), 0, "ibv_flow.comp_mask");
    assert_eq!(offset_of!(ibv_flow, context), 8, "ibv_flow.context");
    assert_eq!(offset_of!(ibv_flow, handle), 16, "ibv_flow.handle");
    assert_eq!((size_of::<ibv_flow_action>(), align_of::<ibv_flow_action>()), (8, 8), "ibv_flow_action");
    assert_eq!(offset_of!(ibv_flow_action, context), 0, "ibv_flow_action.context");
    assert_eq!(
        (size_of::<ibv_flow_action_esp_attr>(), align_of::<ibv_flow_action_esp_attr>()),
        (56, 8),
        "ibv_flow_action_esp_attr"
    );
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, esp_attr), 0, "ibv_flow_action_esp_attr.esp_attr");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, keymat_proto), 8, "ibv_flow_action_esp_attr.keymat_proto");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, keymat_len), 12, "ibv_flow_action_esp_attr.keymat_len");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, keymat_ptr), 16, "ibv_flow_action_esp_attr.keymat_ptr");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, replay_proto), 24, "ibv_flow_action_esp_attr.replay_proto");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, replay_len), 28, "ibv_flow_action_esp_attr.replay_len");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, replay_ptr), 32, "ibv_flow_action_esp_attr.replay_ptr");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, esp_encap), 40, "ibv_flow_action_esp_attr.esp_encap");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, comp_mask), 48, "ibv_flow_action_esp_attr.comp_mask");
    assert_eq!(offset_of!(ibv_flow_action_esp_attr, esn), 52, "ibv_flow_action_esp_attr.esn");
    assert_eq!((size_of::<_ibv_device_ops>(), align_of::<_ibv_device_ops>()), (16, 8), "_ibv_device_ops");
    assert_eq!(offset_of!(_ibv_device_ops, _dummy1), 0, "_ibv_device_ops._dummy1");
    assert_eq!(offset_of!(_ibv_device_ops, _dummy2), 8, "_ibv_device_ops._dummy2");
    assert_eq!((size_of::<ibv_device>(), align_of::<ibv_device>()), (664, 8), "ibv_device");
    assert_eq!(offset_of!(ibv_device, _ops), 0, "ibv_device._ops");
    assert_eq!(offset_of!(ibv_device, _ops._dummy1), 0, "ibv_device._ops._dummy1");
    assert_eq!(offset_of!(ibv_device, _ops._dummy2), 8, "ibv_device._ops._dummy2");
    assert_eq!(offset_of!(ibv_device, node_type), 16, "ibv_device.node_type");
    assert_eq!(offset_of!(ibv_device, transport_type), 20, "ibv_device.transport_type");
    assert_eq!(offset_of!(ibv_device, name), 24, "ibv_device.name");
    assert_eq!(offset_of!(ibv_device, dev_name), 88, "ibv_device.dev_name");
    assert_eq!(offset_of!(ibv_device, dev_path), 152, "ibv_device.dev_path");
    assert_eq!(offset_of!(ibv_device, ibdev_path), 408, "ibv_device.ibdev_path");
    assert_eq!((size_of::<ibv_context_ops>(), align_of::<ibv_context_ops>()), (256, 8), "ibv_context_ops");
    assert_eq!(offset_of!(ibv_context_ops, _compat_query_device), 0, "ibv_context_ops._compat_query_device");
    assert_eq!(offset_of!(ibv_context_ops, _compat_query_port), 8, "ibv_context_ops._compat_query_port");
    assert_eq!(offset_of!(ibv_context_ops, _compat_alloc_pd), 16, "ibv_context_ops._compat_alloc_pd");
    assert_eq!(offset_of!(ibv_context_ops, _compat_dealloc_pd), 24, "ibv_context_ops._compat_dealloc_pd");
    assert_eq!(offset_of!(ibv_context_ops, _compat_reg_mr), 32, "ibv_context_ops._compat_reg_mr");
    assert_eq!(offset_of!(ibv_context_ops, _compat_rereg_mr), 40, "ibv_context_ops._compat_rereg_mr");
    assert_eq!(offset_of!(ibv_context_ops, _compat_dereg_mr), 48, "ibv_context_ops._compat_dereg_mr");
    assert_eq!(offset_of!(ibv_context_ops, alloc_mw), 56, "ibv_context_ops.alloc_mw");
    assert_eq!(offset_of!(ibv_context_ops, bind_mw), 64, "ibv_context_ops.bind_mw");
    assert_eq!(offset_of!(ibv_context_ops, dealloc_mw), 72, "ibv_context_ops.dealloc_mw");
    assert_eq!(offset_of!(ibv_context_ops, _compat_create_cq), 80, "ibv_context_ops._compat_create_cq");
    assert_eq!(offset_of!(ibv_context_ops, poll_cq), 88, "ibv_context_ops.poll_cq");
    assert_eq!(offset_of!(ibv_context_ops, req_notify_cq), 96, "ibv_context_ops.req_notify_cq");
    assert_eq!(offset_of!(ibv_context_ops, _compat_cq_event), 104, "ibv_context_ops._compat_cq_event");
    assert_eq!(offset_of!(ibv_context_ops, _compat_resize_cq), 112, "ibv_context_ops._compat_resize_cq");
    assert_eq!(offset_of!(ibv_context_ops, _compat_destroy_cq), 120, "ibv_context_ops._compat_destroy_cq");
    assert_eq!(offset_of!(ibv_context_ops, _compat_create_srq), 128, "ibv_context_ops._compat_create_srq");
    assert_eq!(offset_of!(ibv_context_ops, _compat_modify_srq), 136, "ibv_context_ops._compat_modify_srq");
    assert_eq!(offset_of!(ibv_context_ops, _compat_query_srq), 144, "ibv_context_ops._compat_query_srq");
    assert_eq!(offset_of!(ibv_context_ops, _compat_destroy_srq), 152, "ibv_context_ops._compat_destroy_srq");
    assert_eq!(offset_of!(ibv_context_ops, post_srq_recv), 160, "ibv_context_ops.post_srq_recv");
    assert_eq!(offset_of!(ibv_context_ops, _compat_create_qp), 168, "ibv_context_ops._compat_create_qp");
    assert_eq!(offset_of!(ibv_context_ops, _compat_query_qp), 176, "ibv_context_ops._compat_query_qp");
    assert_eq!(offset_of!(ibv_context_ops, _compat_modify_qp), 184, "ibv_context_ops._compat_modify_qp");
    assert_eq!(offset_of!(ibv_context_ops, _compat_destroy_qp), 192, "ibv_context_ops._compat_destroy_qp");
    assert_eq!(offset_of!(ibv_context_ops, post_send), 200, "ibv_context_ops.post_send");
    assert_eq!(offset_of!(ibv_context_ops, post_recv), 208, "ibv_context_ops.post_recv");
    assert_eq!(offset_of!(ibv_context_ops, _compat_create_ah), 216, "ibv_context_ops._compat_create_ah");
    assert_eq!(offset_of!(ibv_context_ops, _compat_destroy_ah), 224, "ibv_context_ops._compat_destroy_ah");
    assert_eq!(offset_of!(ibv_context_ops, _compat_attach_mcast), 232, "ibv_context_ops._compat_attach_mcast");
    assert_eq!(offset_of!(ibv_context_ops, _compat_detach_mcast), 240, "ibv_context_ops._compat_detach_mcast");
    assert_eq!(offset_of!(ibv_context_ops, _compat_async_event), 248, "ibv_context_ops._compat_async_event");
    assert_eq!((size_of::<ibv_context>(), align_of::<ibv_context>()), (328, 8), "ibv_context");
    assert_eq!(offset_of!(ibv_context, device), 0, "ibv_context.device");
    assert_eq!(offset_of!(ibv_context, ops), 8, "ibv_context.ops");
    assert_eq!(offset_of!(ibv_context, ops._compat_query_device), 8, "ibv_context.ops._compat_query_device");
    assert_eq!(offset_of!(ibv_context, ops._compat_query_port), 16, "ibv_context.ops._compat_query_port");
    assert_eq!(offset_of!(ibv_context, ops._compat_alloc_pd), 24, "ibv_context.ops._compat_alloc_pd");
    assert_eq!(offset_of!(ibv_context, ops._compat_dealloc_pd), 32, "ibv_context.ops._compat_dealloc_pd");
    assert_eq!(offset_of!(ibv_context, ops._compat_reg_mr), 40, "ibv_context.ops._compat_reg_mr");
    assert_eq!(offset_of!(ibv_context, ops._compat_rereg_mr), 48, "ibv_context.ops._compat_rereg_mr");
    assert_eq!(offset_of!(ibv_context, ops._compat_dereg_mr), 56, "ibv_context.ops._compat_dereg_mr");
    assert_eq!(offset_of!(ibv_context, ops.alloc_mw), 64, "ibv_context.ops.alloc_mw");
    assert_eq!(offset_of!(ibv_context, ops.bind_mw), 72, "ibv_context.ops.bind_mw");
    assert_eq!(offset_of!(ibv_context, ops.dealloc_mw), 80, "ibv_context.ops.dealloc_mw");
    assert_eq!(offset_of!(ibv_context, ops._compat_create_cq), 88, "ibv_context.ops._compat_create_cq");
    assert_eq!(offset_of!(ibv_context, ops.poll_cq), 96, "ibv_context.ops.poll_cq");
    assert_eq!(offset_of!(ibv_context, ops.req_notify_cq), 104, "ibv_context.ops.req_notify_cq");
    assert_eq!(offset_of!(ibv_context, ops._compat_cq_event), 112, "ibv_context.ops._compat_cq_event");
    assert_eq!(offset_of!(ibv_context, ops._compat_resize_cq), 120, "ibv_context.ops._compat_resize_cq");
    assert_eq!(offset_of!(ibv_context, ops._compat_destroy_cq), 128, "ibv_context.ops._compat_destroy_cq");
    assert_eq!(offset_of!(ibv_context, ops._compat_create_srq), 136, "ibv_context.ops._compat_create_srq");
    assert_eq!(offset_of!(ibv_context, ops._compat_modify_srq), 144, "ibv_context.ops._compat_modify_srq");
    assert_eq!(offset_of!(ibv_context, ops._compat_query_srq), 152, "ibv_context.ops._compat_query_srq");
    assert_eq!(offset_of!(ibv_context, ops._compat_destroy_srq), 160, "ibv_context.ops._compat_destroy_srq");
    assert_eq!(offset_of!(ibv_context, ops.post_srq_recv), 168, "ibv_context.ops.post_srq_recv");
    assert_eq!(offset_of!(ibv_context, ops._compat_create_qp), 176, "ibv_context.ops._compat_create_qp");
    assert_eq!(offset_of!(ibv_context, ops._compat_query_qp), 184, "ibv_context.ops._compat_query_qp");
    assert_eq!(offset_of!(ibv_context, ops._compat_modify_qp), 192, "ibv_context.ops._compat_modify_qp");
    assert_eq!(offset_of!(ibv_context, ops._compat_destroy_qp), 200, "ibv_context.ops._compat_destroy_qp");
    assert_eq!(offset_of!(ibv_context, ops.post_send), 208, "ibv_context.ops.post_send");
    assert_eq!(offset_of!(ibv_context, ops.post_recv), 216, "ibv_context.ops.post_recv");
    assert_eq!(offset_of!(ibv_context, ops._compat_create_ah), 224, "ibv_context.ops._compat_create_ah");
    assert_eq!(offset_of!(ibv_context, ops._compat_destroy_ah), 232, "ibv_context.ops._compat_destroy_ah");
    assert_eq!(offset_of!(ibv_context, ops._compat_attach_mcast), 240, "ibv_context.ops._compat_attach_mcast");
    assert_eq!(offset_of!(ibv_context, ops._compat_detach_mcast), 248, "ibv_context.ops._compat_detach_mcast");
    assert_eq!(offset_of!(ibv_context, ops._compat_async_event), 256, "ibv_context.ops._compat_async_event");
    assert_eq!(offset_of!(ibv_context, cmd_fd), 264, "ibv_context.cmd_fd");
    assert_eq!(offset_of!(ibv_context, async_fd), 268, "ibv_context.async_fd");
    assert_eq!(offset_of!(ibv_context, num_comp_vectors), 272, "ibv_context.num_comp_vectors");
    assert_eq!(offset_of!(ibv_context, mutex), 280, "ibv_context.mutex");
    assert_eq!(offset_of!(ibv_context, abi_compat), 320, "ibv_context.abi_compat");
    assert_eq!((size_of::<ibv_cq_init_attr_ex>(), align_of::<ibv_cq_init_attr_ex>()), (56, 8), "ibv_cq_init_attr_ex");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, cqe), 0, "ibv_cq_init_attr_ex.cqe");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, cq_context), 8, "ibv_cq_init_attr_ex.cq_context");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, channel), 16, "ibv_cq_init_attr_ex.channel");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, comp_vector), 24, "ibv_cq_init_attr_ex.comp_vector");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, wc_flags), 32, "ibv_cq_init_attr_ex.wc_flags");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, comp_mask), 40, "ibv_cq_init_attr_ex.comp_mask");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, flags), 44, "ibv_cq_init_attr_ex.flags");
    assert_eq!(offset_of!(ibv_cq_init_attr_ex, parent_domain), 48, "ibv_cq_init_attr_ex.parent_domain");
    assert_eq!(
        (size_of::<ibv_parent_domain_init_attr>(), align_of::<ibv_parent_domain_init_attr>()),
        (48, 8),
        "ibv_parent_domain_init_attr"
    );
    assert_eq!(offset_of!(ibv_parent_domain_init_attr, pd), 0, "ibv_parent_domain_init_attr.pd");
    assert_eq!(offset_of!(ibv_parent_domain_init_attr, td), 8, "ibv_parent_domain_init_attr.td");
    assert_eq!(offset_of!(ibv_parent_domain_init_attr, comp_mask), 16, "ibv_parent_domain_init_attr.comp_mask");
    assert_eq!(offset_of!(ibv_parent_domain_init_attr, alloc), 24, "ibv_parent_domain_init_attr.alloc");
    assert_eq!(offset_of!(ibv_parent_domain_init_attr, free), 32, "ibv_parent_domain_init_attr.free");
    assert_eq!(offset_of!(ibv_parent_domain_init_attr, pd_context), 40, "ibv_parent_domain_init_attr.pd_context");
    assert_eq!(
        (size_of::<ibv_counters_init_attr>(), align_of::<ibv_counters_init_attr>()),
        (4, 4),
        "ibv_counters_init_attr"
    );
    assert_eq!(offset_of!(ibv_counters_init_attr, comp_mask), 0, "ibv_counters_init_attr.comp_mask");
    assert_eq!((size_of::<ibv_counters>(), align_of::<ibv_counters>()), (8, 8), "ibv_counters");
    assert_eq!(offset_of!(ibv_counters, context), 0, "ibv_counters.context");
    assert_eq!(
        (size_of::<ibv_counter_attach_attr>(), align_of::<ibv_counter_attach_attr>()),
        (12, 4),
        "ibv_counter_attach_attr"
    );
    assert_eq!(offset_of!(ibv_counter_attach_attr, counter_desc), 0, "ibv_counter_attach_attr.counter_desc");
    assert_eq!(offset_of!(ibv_counter_attach_attr, index), 4, "ibv_counter_attach_attr.index");
    assert_eq!(offset_of!(ibv_counter_attach_attr, comp_mask), 8, "ibv_counter_attach_attr.comp_mask");
    assert_eq!((size_of::<ibv_values_ex>(), align_of::<ibv_values_ex>()), (24, 8), "ibv_values_ex");
    assert_eq!(offset_of!(ibv_values_ex, comp_mask), 0, "ibv_values_ex.comp_mask");
    assert_eq!(offset_of!(ibv_values_ex, raw_clock), 8, "ibv_values_ex.raw_clock");
    // verbs_context: rdma-core 65's (six slots in front of 44's; every 44 member keeps its distance from `context`).
    assert_eq!((size_of::<verbs_context>(), align_of::<verbs_context>()), (696, 8), "verbs_context");
    assert_eq!(offset_of!(verbs_context, free_buf), 0, "verbs_context.free_buf");
    assert_eq!(offset_of!(verbs_context, alloc_buf), 8, "verbs_context.alloc_buf");
    assert_eq!(offset_of!(verbs_context, dm_export_dmabuf_fd), 16, "verbs_context.dm_export_dmabuf_fd");
    assert_eq!(offset_of!(verbs_context, reg_mr_ex), 24, "verbs_context.reg_mr_ex");
    assert_eq!(offset_of!(verbs_context, dealloc_dmah), 32, "verbs_context.dealloc_dmah");
    assert_eq!(offset_of!(verbs_context, alloc_dmah), 40, "verbs_context.alloc_dmah");
    assert_eq!(offset_of!(verbs_context, query_port), 48, "verbs_context.query_port");
    assert_eq!(offset_of!(verbs_context, advise_mr), 56, "verbs_context.advise_mr");
    assert_eq!(offset_of!(verbs_context, alloc_null_mr), 64, "verbs_context.alloc_null_mr");
    assert_eq!(offset_of!(verbs_context, read_counters), 72, "verbs_context.read_counters");
    assert_eq!(offset_of!(verbs_context, attach_counters_point_flow), 80, "verbs_context.attach_counters_point_flow");
    assert_eq!(offset_of!(verbs_context, create_counters), 88, "verbs_context.create_counters");
    assert_eq!(offset_of!(verbs_context, destroy_counters), 96, "verbs_context.destroy_counters");
    assert_eq!(offset_of!(verbs_context, reg_dm_mr), 104, "verbs_context.reg_dm_mr");
    assert_eq!(offset_of!(verbs_context, alloc_dm), 112, "verbs_context.alloc_dm");
    assert_eq!(offset_of!(verbs_context, free_dm), 120, "verbs_context.free_dm");
    assert_eq!(offset_of!(verbs_context, modify_flow_action_esp), 128, "verbs_context.modify_flow_action_esp");
    assert_eq!(offset_of!(verbs_context, destroy_flow_action), 136, "verbs_context.destroy_flow_action");
    assert_eq!(offset_of!(verbs_context, create_flow_action_esp), 144, "verbs_context.create_flow_action_esp");
    assert_eq!(offset_of!(verbs_context, modify_qp_rate_limit), 152, "verbs_context.modify_qp_rate_limit");
    assert_eq!(offset_of!(verbs_context, alloc_parent_domain), 160, "verbs_context.alloc_parent_domain");
    assert_eq!(offset_of!(verbs_context, dealloc_td), 168, "verbs_context.dealloc_td");
    assert_eq!(offset_of!(verbs_context, alloc_td), 176, "verbs_context.alloc_td");
    assert_eq!(offset_of!(verbs_context, modify_cq), 184, "verbs_context.modify_cq");
    assert_eq!(offset_of!(verbs_context, post_srq_ops), 192, "verbs_context.post_srq_ops");
    assert_eq!(offset_of!(verbs_context, destroy_rwq_ind_table), 200, "verbs_context.destroy_rwq_ind_table");
    assert_eq!(offset_of!(verbs_context, create_rwq_ind_table), 208, "verbs_context.create_rwq_ind_table");
    assert_eq!(offset_of!(verbs_context, destroy_wq), 216, "verbs_context.destroy_wq");
    assert_eq!(offset_of!(verbs_context, modify_wq), 224, "verbs_context.modify_wq");
    assert_eq!(offset_of!(verbs_context, create_wq), 232, "verbs_context.create_wq");
    assert_eq!(offset_of!(verbs_context, query_rt_values), 240, "verbs_context.query_rt_values");
    assert_eq!(offset_of!(verbs_context, create_cq_ex), 248, "verbs_context.create_cq_ex");
    assert_eq!(offset_of!(verbs_context, r#priv), 256, "verbs_context.r#priv");
    assert_eq!(offset_of!(verbs_context, query_device_ex), 264, "verbs_context.query_device_ex");
    assert_eq!(offset_of!(verbs_context, ibv_destroy_flow), 272, "verbs_context.ibv_destroy_flow");
    assert_eq!(offset_of!(verbs_context, ABI_placeholder2), 280, "verbs_context.ABI_placeholder2");
    assert_eq!(offset_of!(verbs_context, ibv_create_flow), 288, "verbs_context.ibv_create_flow");
    assert_eq!(offset_of!(verbs_context, ABI_placeholder1), 296, "verbs_context.ABI_placeholder1");
    assert_eq!(offset_of!(verbs_context, open_qp), 304, "verbs_context.open_qp");
    assert_eq!(offset_of!(verbs_context, create_qp_ex), 312, "verbs_context.create_qp_ex");
    assert_eq!(offset_of!(verbs_context, get_srq_num), 320, "verbs_context.get_srq_num");
    assert_eq!(offset_of!(verbs_context, create_srq_ex), 328, "verbs_context.create_srq_ex");
    assert_eq!(offset_of!(verbs_context, open_xrcd), 336, "verbs_context.open_xrcd");
    assert_eq!(offset_of!(verbs_context, close_xrcd), 344, "verbs_context.close_xrcd");
    assert_eq!(offset_of!(verbs_context, _ABI_placeholder3), 352, "verbs_context._ABI_placeholder3");
    assert_eq!(offset_of!(verbs_context, sz), 360, "verbs_context.sz");
    assert_eq!(offset_of!(verbs_context, context), 368, "verbs_context.context");
    assert_eq!(offset_of!(verbs_context, context.device), 368, "verbs_context.context.device");
    assert_eq!(offset_of!(verbs_context, context.ops), 376, "verbs_context.context.ops");
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_query_device),
        376,
        "verbs_context.context.ops._compat_query_device"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_query_port),
        384,
        "verbs_context.context.ops._compat_query_port"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_alloc_pd),
        392,
        "verbs_context.context.ops._compat_alloc_pd"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_dealloc_pd),
        400,
        "verbs_context.context.ops._compat_dealloc_pd"
    );
    assert_eq!(offset_of!(verbs_context, context.ops._compat_reg_mr), 408, "verbs_context.context.ops._compat_reg_mr");
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_rereg_mr),
        416,
        "verbs_context.context.ops._compat_rereg_mr"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_dereg_mr),
        424,
        "verbs_context.context.ops._compat_dereg_mr"
    );
    assert_eq!(offset_of!(verbs_context, context.ops.alloc_mw), 432, "verbs_context.context.ops.alloc_mw");
    assert_eq!(offset_of!(verbs_context, context.ops.bind_mw), 440, "verbs_context.context.ops.bind_mw");
    assert_eq!(offset_of!(verbs_context, context.ops.dealloc_mw), 448, "verbs_context.context.ops.dealloc_mw");
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_create_cq),
        456,
        "verbs_context.context.ops._compat_create_cq"
    );
    assert_eq!(offset_of!(verbs_context, context.ops.poll_cq), 464, "verbs_context.context.ops.poll_cq");
    assert_eq!(offset_of!(verbs_context, context.ops.req_notify_cq), 472, "verbs_context.context.ops.req_notify_cq");
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_cq_event),
        480,
        "verbs_context.context.ops._compat_cq_event"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_resize_cq),
        488,
        "verbs_context.context.ops._compat_resize_cq"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_destroy_cq),
        496,
        "verbs_context.context.ops._compat_destroy_cq"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_create_srq),
        504,
        "verbs_context.context.ops._compat_create_srq"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_modify_srq),
        512,
        "verbs_context.context.ops._compat_modify_srq"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_query_srq),
        520,
        "verbs_context.context.ops._compat_query_srq"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_destroy_srq),
        528,
        "verbs_context.context.ops._compat_destroy_srq"
    );
    assert_eq!(offset_of!(verbs_context, context.ops.post_srq_recv), 536, "verbs_context.context.ops.post_srq_recv");
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_create_qp),
        544,
        "verbs_context.context.ops._compat_create_qp"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_query_qp),
        552,
        "verbs_context.context.ops._compat_query_qp"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_modify_qp),
        560,
        "verbs_context.context.ops._compat_modify_qp"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_destroy_qp),
        568,
        "verbs_context.context.ops._compat_destroy_qp"
    );
    assert_eq!(offset_of!(verbs_context, context.ops.post_send), 576, "verbs_context.context.ops.post_send");
    assert_eq!(offset_of!(verbs_context, context.ops.post_recv), 584, "verbs_context.context.ops.post_recv");
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_create_ah),
        592,
        "verbs_context.context.ops._compat_create_ah"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_destroy_ah),
        600,
        "verbs_context.context.ops._compat_destroy_ah"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_attach_mcast),
        608,
        "verbs_context.context.ops._compat_attach_mcast"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_detach_mcast),
        616,
        "verbs_context.context.ops._compat_detach_mcast"
    );
    assert_eq!(
        offset_of!(verbs_context, context.ops._compat_async_event),
        624,
        "verbs_context.context.ops._compat_async_event"
    );
    assert_eq!(offset_of!(verbs_context, context.cmd_fd), 632, "verbs_context.context.cmd_fd");
    assert_eq!(offset_of!(verbs_context, context.async_fd), 636, "verbs_context.context.async_fd");
    assert_eq!(offset_of!(verbs_context, context.num_comp_vectors), 640, "verbs_context.context.num_comp_vectors");
    assert_eq!(offset_of!(verbs_context, context.mutex), 648, "verbs_context.context.mutex");
    assert_eq!(offset_of!(verbs_context, context.abi_compat), 688, "verbs_context.context.abi_compat");
    assert_eq!((size_of::<ibv_tmh>(), align_of::<ibv_tmh>()), (16, 8), "ibv_tmh");
    assert_eq!(offset_of!(ibv_tmh, opcode), 0, "ibv_tmh.opcode");
    assert_eq!(offset_of!(ibv_tmh, reserved), 1, "ibv_tmh.reserved");
    assert_eq!(offset_of!(ibv_tmh, app_ctx), 4, "ibv_tmh.app_ctx");
    assert_eq!(offset_of!(ibv_tmh, tag), 8, "ibv_tmh.tag");
    assert_eq!((size_of::<ibv_rvh>(), align_of::<ibv_rvh>()), (16, 8), "ibv_rvh");
    assert_eq!(offset_of!(ibv_rvh, va), 0, "ibv_rvh.va");
    assert_eq!(offset_of!(ibv_rvh, rkey), 8, "ibv_rvh.rkey");
    assert_eq!(offset_of!(ibv_rvh, len), 12, "ibv_rvh.len");
}

#[test]
fn enumerator_values() {
    assert_eq!(ibv_access_flags::IBV_ACCESS_HUGETLB as i64, 128, "IBV_ACCESS_HUGETLB");
    assert_eq!(ibv_access_flags::IBV_ACCESS_LOCAL_WRITE as i64, 1, "IBV_ACCESS_LOCAL_WRITE");
    assert_eq!(ibv_access_flags::IBV_ACCESS_MW_BIND as i64, 16, "IBV_ACCESS_MW_BIND");
    assert_eq!(ibv_access_flags::IBV_ACCESS_ON_DEMAND as i64, 64, "IBV_ACCESS_ON_DEMAND");
    assert_eq!(ibv_access_flags::IBV_ACCESS_RELAXED_ORDERING as i64, 1048576, "IBV_ACCESS_RELAXED_ORDERING");
    assert_eq!(ibv_access_flags::IBV_ACCESS_REMOTE_ATOMIC as i64, 8, "IBV_ACCESS_REMOTE_ATOMIC");
    assert_eq!(ibv_access_flags::IBV_ACCESS_REMOTE_READ as i64, 4, "IBV_ACCESS_REMOTE_READ");
    assert_eq!(ibv_access_flags::IBV_ACCESS_REMOTE_WRITE as i64, 2, "IBV_ACCESS_REMOTE_WRITE");
    assert_eq!(ibv_access_flags::IBV_ACCESS_ZERO_BASED as i64, 32, "IBV_ACCESS_ZERO_BASED");
    assert_eq!(ibv_atomic_cap::IBV_ATOMIC_GLOB as i64, 2, "IBV_ATOMIC_GLOB");
    assert_eq!(ibv_atomic_cap::IBV_ATOMIC_HCA as i64, 1, "IBV_ATOMIC_HCA");
    assert_eq!(ibv_atomic_cap::IBV_ATOMIC_NONE as i64, 0, "IBV_ATOMIC_NONE");
    assert_eq!(ibv_counter_description::IBV_COUNTER_BYTES as i64, 1, "IBV_COUNTER_BYTES");
    assert_eq!(ibv_counter_description::IBV_COUNTER_PACKETS as i64, 0, "IBV_COUNTER_PACKETS");
    assert_eq!(ibv_cq_attr_mask::IBV_CQ_ATTR_MODERATE as i64, 1, "IBV_CQ_ATTR_MODERATE");
    assert_eq!(ibv_cq_attr_mask::IBV_CQ_ATTR_RESERVED as i64, 2, "IBV_CQ_ATTR_RESERVED");
    assert_eq!(ibv_cq_init_attr_mask::IBV_CQ_INIT_ATTR_MASK_FLAGS as i64, 1, "IBV_CQ_INIT_ATTR_MASK_FLAGS");
    assert_eq!(ibv_cq_init_attr_mask::IBV_CQ_INIT_ATTR_MASK_PD as i64, 2, "IBV_CQ_INIT_ATTR_MASK_PD");
    assert_eq!(
        ibv_create_cq_attr_flags::IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN as i64,
        2,
        "IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN"
    );
    assert_eq!(
        ibv_create_cq_attr_flags::IBV_CREATE_CQ_ATTR_SINGLE_THREADED as i64,
        1,
        "IBV_CREATE_CQ_ATTR_SINGLE_THREADED"
    );
    assert_eq!(IBV_CREATE_CQ_SUP_WC_FLAGS as i64, 4095, "IBV_CREATE_CQ_SUP_WC_FLAGS");
    assert_eq!(ibv_ind_table_init_attr_mask::IBV_CREATE_IND_TABLE_RESERVED as i64, 1, "IBV_CREATE_IND_TABLE_RESERVED");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_AUTO_PATH_MIG as i64, 16, "IBV_DEVICE_AUTO_PATH_MIG");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_BAD_PKEY_CNTR as i64, 2, "IBV_DEVICE_BAD_PKEY_CNTR");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_BAD_QKEY_CNTR as i64, 4, "IBV_DEVICE_BAD_QKEY_CNTR");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_CHANGE_PHY_PORT as i64, 32, "IBV_DEVICE_CHANGE_PHY_PORT");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_CURR_QP_STATE_MOD as i64, 128, "IBV_DEVICE_CURR_QP_STATE_MOD");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_INIT_TYPE as i64, 512, "IBV_DEVICE_INIT_TYPE");
    assert_eq!(
        ibv_device_cap_flags::IBV_DEVICE_MANAGED_FLOW_STEERING as i64,
        536870912,
        "IBV_DEVICE_MANAGED_FLOW_STEERING"
    );
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_MEM_MGT_EXTENSIONS as i64, 2097152, "IBV_DEVICE_MEM_MGT_EXTENSIONS");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_MEM_WINDOW as i64, 131072, "IBV_DEVICE_MEM_WINDOW");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_MEM_WINDOW_TYPE_2A as i64, 8388608, "IBV_DEVICE_MEM_WINDOW_TYPE_2A");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_MEM_WINDOW_TYPE_2B as i64, 16777216, "IBV_DEVICE_MEM_WINDOW_TYPE_2B");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_N_NOTIFY_CQ as i64, 16384, "IBV_DEVICE_N_NOTIFY_CQ");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_PORT_ACTIVE_EVENT as i64, 1024, "IBV_DEVICE_PORT_ACTIVE_EVENT");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_RAW_IP_CSUM as i64, 67108864, "IBV_DEVICE_RAW_IP_CSUM");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_RAW_MULTI as i64, 8, "IBV_DEVICE_RAW_MULTI");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_RC_IP_CSUM as i64, 33554432, "IBV_DEVICE_RC_IP_CSUM");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_RC_RNR_NAK_GEN as i64, 4096, "IBV_DEVICE_RC_RNR_NAK_GEN");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_RESIZE_MAX_WR as i64, 1, "IBV_DEVICE_RESIZE_MAX_WR");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_SHUTDOWN_PORT as i64, 256, "IBV_DEVICE_SHUTDOWN_PORT");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_SRQ_RESIZE as i64, 8192, "IBV_DEVICE_SRQ_RESIZE");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_SYS_IMAGE_GUID as i64, 2048, "IBV_DEVICE_SYS_IMAGE_GUID");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_UD_AV_PORT_ENFORCE as i64, 64, "IBV_DEVICE_UD_AV_PORT_ENFORCE");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_UD_IP_CSUM as i64, 262144, "IBV_DEVICE_UD_IP_CSUM");
    assert_eq!(ibv_device_cap_flags::IBV_DEVICE_XRC as i64, 1048576, "IBV_DEVICE_XRC");
    assert_eq!(ibv_dm_mask::IBV_DM_MASK_HANDLE as i64, 1, "IBV_DM_MASK_HANDLE");
    assert_eq!(ibv_event_type::IBV_EVENT_CLIENT_REREGISTER as i64, 17, "IBV_EVENT_CLIENT_REREGISTER");
    assert_eq!(ibv_event_type::IBV_EVENT_COMM_EST as i64, 4, "IBV_EVENT_COMM_EST");
    assert_eq!(ibv_event_type::IBV_EVENT_CQ_ERR as i64, 0, "IBV_EVENT_CQ_ERR");
    assert_eq!(ibv_event_type::IBV_EVENT_DEVICE_FATAL as i64, 8, "IBV_EVENT_DEVICE_FATAL");
    assert_eq!(ibv_event_type::IBV_EVENT_GID_CHANGE as i64, 18, "IBV_EVENT_GID_CHANGE");
    assert_eq!(ibv_event_type::IBV_EVENT_LID_CHANGE as i64, 11, "IBV_EVENT_LID_CHANGE");
    assert_eq!(ibv_event_type::IBV_EVENT_PATH_MIG as i64, 6, "IBV_EVENT_PATH_MIG");
    assert_eq!(ibv_event_type::IBV_EVENT_PATH_MIG_ERR as i64, 7, "IBV_EVENT_PATH_MIG_ERR");
    assert_eq!(ibv_event_type::IBV_EVENT_PKEY_CHANGE as i64, 12, "IBV_EVENT_PKEY_CHANGE");
    assert_eq!(ibv_event_type::IBV_EVENT_PORT_ACTIVE as i64, 9, "IBV_EVENT_PORT_ACTIVE");
    assert_eq!(ibv_event_type::IBV_EVENT_PORT_ERR as i64, 10, "IBV_EVENT_PORT_ERR");
    assert_eq!(ibv_event_type::IBV_EVENT_QP_ACCESS_ERR as i64, 3, "IBV_EVENT_QP_ACCESS_ERR");
    assert_eq!(ibv_event_type::IBV_EVENT_QP_FATAL as i64, 1, "IBV_EVENT_QP_FATAL");
    assert_eq!(ibv_event_type::IBV_EVENT_QP_LAST_WQE_REACHED as i64, 16, "IBV_EVENT_QP_LAST_WQE_REACHED");
    assert_eq!(ibv_event_type::IBV_EVENT_QP_REQ_ERR as i64, 2, "IBV_EVENT_QP_REQ_ERR");
    assert_eq!(ibv_event_type::IBV_EVENT_SM_CHANGE as i64, 13, "IBV_EVENT_SM_CHANGE");
    assert_eq!(ibv_event_type::IBV_EVENT_SQ_DRAINED as i64, 5, "IBV_EVENT_SQ_DRAINED");
    assert_eq!(ibv_event_type::IBV_EVENT_SRQ_ERR as i64, 14, "IBV_EVENT_SRQ_ERR");
    assert_eq!(ibv_event_type::IBV_EVENT_SRQ_LIMIT_REACHED as i64, 15, "IBV_EVENT_SRQ_LIMIT_REACHED");
    assert_eq!(ibv_event_type::IBV_EVENT_WQ_FATAL as i64, 19, "IBV_EVENT_WQ_FATAL");
    assert_eq!(ibv_flow_action_esp_mask::IBV_FLOW_ACTION_ESP_MASK_ESN as i64, 1, "IBV_FLOW_ACTION_ESP_MASK_ESN");
    assert_eq!(ibv_flow_attr_type::IBV_FLOW_ATTR_ALL_DEFAULT as i64, 1, "IBV_FLOW_ATTR_ALL_DEFAULT");
    assert_eq!(ibv_flow_flags::IBV_FLOW_ATTR_FLAGS_DONT_TRAP as i64, 2, "IBV_FLOW_ATTR_FLAGS_DONT_TRAP");
    assert_eq!(ibv_flow_flags::IBV_FLOW_ATTR_FLAGS_EGRESS as i64, 4, "IBV_FLOW_ATTR_FLAGS_EGRESS");
    assert_eq!(ibv_flow_attr_type::IBV_FLOW_ATTR_MC_DEFAULT as i64, 2, "IBV_FLOW_ATTR_MC_DEFAULT");
    assert_eq!(ibv_flow_attr_type::IBV_FLOW_ATTR_NORMAL as i64, 0, "IBV_FLOW_ATTR_NORMAL");
    assert_eq!(ibv_flow_attr_type::IBV_FLOW_ATTR_SNIFFER as i64, 3, "IBV_FLOW_ATTR_SNIFFER");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_ACTION_COUNT as i64, 4099, "IBV_FLOW_SPEC_ACTION_COUNT");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_ACTION_DROP as i64, 4097, "IBV_FLOW_SPEC_ACTION_DROP");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_ACTION_HANDLE as i64, 4098, "IBV_FLOW_SPEC_ACTION_HANDLE");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_ACTION_TAG as i64, 4096, "IBV_FLOW_SPEC_ACTION_TAG");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_ESP as i64, 52, "IBV_FLOW_SPEC_ESP");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_ETH as i64, 32, "IBV_FLOW_SPEC_ETH");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_GRE as i64, 81, "IBV_FLOW_SPEC_GRE");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_INNER as i64, 256, "IBV_FLOW_SPEC_INNER");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_IPV4 as i64, 48, "IBV_FLOW_SPEC_IPV4");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_IPV4_EXT as i64, 50, "IBV_FLOW_SPEC_IPV4_EXT");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_IPV6 as i64, 49, "IBV_FLOW_SPEC_IPV6");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_MPLS as i64, 96, "IBV_FLOW_SPEC_MPLS");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_TCP as i64, 64, "IBV_FLOW_SPEC_TCP");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_UDP as i64, 65, "IBV_FLOW_SPEC_UDP");
    assert_eq!(ibv_flow_spec_type::IBV_FLOW_SPEC_VXLAN_TUNNEL as i64, 80, "IBV_FLOW_SPEC_VXLAN_TUNNEL");
    assert_eq!(ibv_fork_status::IBV_FORK_DISABLED as i64, 0, "IBV_FORK_DISABLED");
    assert_eq!(ibv_fork_status::IBV_FORK_ENABLED as i64, 1, "IBV_FORK_ENABLED");
    assert_eq!(ibv_fork_status::IBV_FORK_UNNEEDED as i64, 2, "IBV_FORK_UNNEEDED");
    assert_eq!(ibv_gid_type::IBV_GID_TYPE_IB as i64, 0, "IBV_GID_TYPE_IB");
    assert_eq!(ibv_gid_type::IBV_GID_TYPE_ROCE_V1 as i64, 1, "IBV_GID_TYPE_ROCE_V1");
    assert_eq!(ibv_gid_type::IBV_GID_TYPE_ROCE_V2 as i64, 2, "IBV_GID_TYPE_ROCE_V2");
    assert_eq!(IBV_LINK_LAYER_ETHERNET as i64, 2, "IBV_LINK_LAYER_ETHERNET");
    assert_eq!(IBV_LINK_LAYER_INFINIBAND as i64, 1, "IBV_LINK_LAYER_INFINIBAND");
    assert_eq!(IBV_LINK_LAYER_UNSPECIFIED as i64, 0, "IBV_LINK_LAYER_UNSPECIFIED");
    assert_eq!(ibv_mig_state::IBV_MIG_ARMED as i64, 2, "IBV_MIG_ARMED");
    assert_eq!(ibv_mig_state::IBV_MIG_MIGRATED as i64, 0, "IBV_MIG_MIGRATED");
    assert_eq!(ibv_mig_state::IBV_MIG_REARM as i64, 1, "IBV_MIG_REARM");
    assert_eq!(ibv_mtu::IBV_MTU_1024 as i64, 3, "IBV_MTU_1024");
    assert_eq!(ibv_mtu::IBV_MTU_2048 as i64, 4, "IBV_MTU_2048");
    assert_eq!(ibv_mtu::IBV_MTU_256 as i64, 1, "IBV_MTU_256");
    assert_eq!(ibv_mtu::IBV_MTU_4096 as i64, 5, "IBV_MTU_4096");
    assert_eq!(ibv_mtu::IBV_MTU_512 as i64, 2, "IBV_MTU_512");
    assert_eq!(ibv_mw_type::IBV_MW_TYPE_1 as i64, 1, "IBV_MW_TYPE_1");
    assert_eq!(ibv_mw_type::IBV_MW_TYPE_2 as i64, 2, "IBV_MW_TYPE_2");
    assert_eq!(ibv_node_type::IBV_NODE_CA as i64, 1, "IBV_NODE_CA");
    assert_eq!(ibv_node_type::IBV_NODE_RNIC as i64, 4, "IBV_NODE_RNIC");
    assert_eq!(ibv_node_type::IBV_NODE_ROUTER as i64, 3, "IBV_NODE_ROUTER");
    assert_eq!(ibv_node_type::IBV_NODE_SWITCH as i64, 2, "IBV_NODE_SWITCH");
    assert_eq!(ibv_node_type::IBV_NODE_UNKNOWN as i64, -1, "IBV_NODE_UNKNOWN");
    assert_eq!(ibv_node_type::IBV_NODE_UNSPECIFIED as i64, 7, "IBV_NODE_UNSPECIFIED");
    assert_eq!(ibv_node_type::IBV_NODE_USNIC as i64, 5, "IBV_NODE_USNIC");
    assert_eq!(ibv_node_type::IBV_NODE_USNIC_UDP as i64, 6, "IBV_NODE_USNIC_UDP");
    assert_eq!(ibv_odp_general_caps::IBV_ODP_SUPPORT as i64, 1, "IBV_ODP_SUPPORT");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_ATOMIC as i64, 16, "IBV_ODP_SUPPORT_ATOMIC");
    assert_eq!(ibv_odp_general_caps::IBV_ODP_SUPPORT_IMPLICIT as i64, 2, "IBV_ODP_SUPPORT_IMPLICIT");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_READ as i64, 8, "IBV_ODP_SUPPORT_READ");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_RECV as i64, 2, "IBV_ODP_SUPPORT_RECV");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_SEND as i64, 1, "IBV_ODP_SUPPORT_SEND");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_SRQ_RECV as i64, 32, "IBV_ODP_SUPPORT_SRQ_RECV");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_WRITE as i64, 4, "IBV_ODP_SUPPORT_WRITE");
    assert_eq!(ibv_ops_flags::IBV_OPS_SIGNALED as i64, 1, "IBV_OPS_SIGNALED");
    assert_eq!(ibv_ops_flags::IBV_OPS_TM_SYNC as i64, 2, "IBV_OPS_TM_SYNC");
    assert_eq!(
        ibv_parent_domain_init_attr_mask::IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS as i64,
        1,
        "IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS"
    );
    assert_eq!(
        ibv_parent_domain_init_attr_mask::IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT as i64,
        2,
        "IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT"
    );
    assert_eq!(
        ibv_pci_atomic_op_size::IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP as i64,
        4,
        "IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP"
    );
    assert_eq!(
        ibv_pci_atomic_op_size::IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP as i64,
        1,
        "IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP"
    );
    assert_eq!(
        ibv_pci_atomic_op_size::IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP as i64,
        2,
        "IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP"
    );
    assert_eq!(ibv_port_state::IBV_PORT_ACTIVE as i64, 4, "IBV_PORT_ACTIVE");
    assert_eq!(ibv_port_state::IBV_PORT_ACTIVE_DEFER as i64, 5, "IBV_PORT_ACTIVE_DEFER");
    assert_eq!(ibv_port_state::IBV_PORT_ARMED as i64, 3, "IBV_PORT_ARMED");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_AUTO_MIGR_SUP as i64, 32, "IBV_PORT_AUTO_MIGR_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_BOOT_MGMT_SUP as i64, 8388608, "IBV_PORT_BOOT_MGMT_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_CAP_MASK2_SUP as i64, 32768, "IBV_PORT_CAP_MASK2_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_CAP_MASK_NOTICE_SUP as i64, 4194304, "IBV_PORT_CAP_MASK_NOTICE_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_CLIENT_REG_SUP as i64, 33554432, "IBV_PORT_CLIENT_REG_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_CM_SUP as i64, 65536, "IBV_PORT_CM_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_DEVICE_MGMT_SUP as i64, 524288, "IBV_PORT_DEVICE_MGMT_SUP");
    assert_eq!(ibv_port_state::IBV_PORT_DOWN as i64, 1, "IBV_PORT_DOWN");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_DR_NOTICE_SUP as i64, 2097152, "IBV_PORT_DR_NOTICE_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_EXTENDED_SPEEDS_SUP as i64, 16384, "IBV_PORT_EXTENDED_SPEEDS_SUP");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_INFO_EXT_SUP as i64, 2, "IBV_PORT_INFO_EXT_SUP");
    assert_eq!(ibv_port_state::IBV_PORT_INIT as i64, 2, "IBV_PORT_INIT");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_IP_BASED_GIDS as i64, 67108864, "IBV_PORT_IP_BASED_GIDS");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_LED_INFO_SUP as i64, 512, "IBV_PORT_LED_INFO_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_LINK_LATENCY_SUP as i64, 16777216, "IBV_PORT_LINK_LATENCY_SUP");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_LINK_SPEED_HDR_SUP as i64, 32, "IBV_PORT_LINK_SPEED_HDR_SUP");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_LINK_SPEED_NDR_SUP as i64, 1024, "IBV_PORT_LINK_SPEED_NDR_SUP");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_LINK_WIDTH_2X_SUP as i64, 16, "IBV_PORT_LINK_WIDTH_2X_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_MKEY_NVRAM as i64, 128, "IBV_PORT_MKEY_NVRAM");
    assert_eq!(ibv_port_state::IBV_PORT_NOP as i64, 0, "IBV_PORT_NOP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_NOTICE_SUP as i64, 4, "IBV_PORT_NOTICE_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_OPT_IPD_SUP as i64, 16, "IBV_PORT_OPT_IPD_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_PKEY_NVRAM as i64, 256, "IBV_PORT_PKEY_NVRAM");
    assert_eq!(
        ibv_port_cap_flags::IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP as i64,
        4096,
        "IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP"
    );
    assert_eq!(ibv_port_cap_flags::IBV_PORT_REINIT_SUP as i64, 262144, "IBV_PORT_REINIT_SUP");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_SET_NODE_DESC_SUP as i64, 1, "IBV_PORT_SET_NODE_DESC_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_SL_MAP_SUP as i64, 64, "IBV_PORT_SL_MAP_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_SM as i64, 2, "IBV_PORT_SM");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_SNMP_TUNNEL_SUP as i64, 131072, "IBV_PORT_SNMP_TUNNEL_SUP");
    assert_eq!(
        ibv_port_cap_flags2::IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP as i64,
        8,
        "IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP"
    );
    assert_eq!(ibv_port_cap_flags::IBV_PORT_SYS_IMAGE_GUID_SUP as i64, 2048, "IBV_PORT_SYS_IMAGE_GUID_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_TRAP_SUP as i64, 8, "IBV_PORT_TRAP_SUP");
    assert_eq!(ibv_port_cap_flags::IBV_PORT_VENDOR_CLASS_SUP as i64, 1048576, "IBV_PORT_VENDOR_CLASS_SUP");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_VIRT_SUP as i64, 4, "IBV_PORT_VIRT_SUP");
    assert_eq!(ibv_qp_state::IBV_QPS_ERR as i64, 6, "IBV_QPS_ERR");
    assert_eq!(ibv_qp_state::IBV_QPS_INIT as i64, 1, "IBV_QPS_INIT");
    assert_eq!(ibv_qp_state::IBV_QPS_RESET as i64, 0, "IBV_QPS_RESET");
    assert_eq!(ibv_qp_state::IBV_QPS_RTR as i64, 2, "IBV_QPS_RTR");
    assert_eq!(ibv_qp_state::IBV_QPS_RTS as i64, 3, "IBV_QPS_RTS");
    assert_eq!(ibv_qp_state::IBV_QPS_SQD as i64, 4, "IBV_QPS_SQD");
    assert_eq!(ibv_qp_state::IBV_QPS_SQE as i64, 5, "IBV_QPS_SQE");
    assert_eq!(ibv_qp_state::IBV_QPS_UNKNOWN as i64, 7, "IBV_QPS_UNKNOWN");
    assert_eq!(ibv_qp_type::IBV_QPT_DRIVER as i64, 255, "IBV_QPT_DRIVER");
    assert_eq!(ibv_qp_type::IBV_QPT_RAW_PACKET as i64, 8, "IBV_QPT_RAW_PACKET");
    assert_eq!(ibv_qp_type::IBV_QPT_RC as i64, 2, "IBV_QPT_RC");
    assert_eq!(ibv_qp_type::IBV_QPT_UC as i64, 3, "IBV_QPT_UC");
    assert_eq!(ibv_qp_type::IBV_QPT_UD as i64, 4, "IBV_QPT_UD");
    assert_eq!(ibv_qp_type::IBV_QPT_XRC_RECV as i64, 10, "IBV_QPT_XRC_RECV");
    assert_eq!(ibv_qp_type::IBV_QPT_XRC_SEND as i64, 9, "IBV_QPT_XRC_SEND");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_ACCESS_FLAGS as i64, 8, "IBV_QP_ACCESS_FLAGS");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_ALT_PATH as i64, 16384, "IBV_QP_ALT_PATH");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_AV as i64, 128, "IBV_QP_AV");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_CAP as i64, 524288, "IBV_QP_CAP");
    assert_eq!(ibv_qp_create_flags::IBV_QP_CREATE_BLOCK_SELF_MCAST_LB as i64, 2, "IBV_QP_CREATE_BLOCK_SELF_MCAST_LB");
    assert_eq!(ibv_qp_create_flags::IBV_QP_CREATE_CVLAN_STRIPPING as i64, 512, "IBV_QP_CREATE_CVLAN_STRIPPING");
    assert_eq!(
        ibv_qp_create_flags::IBV_QP_CREATE_PCI_WRITE_END_PADDING as i64,
        2048,
        "IBV_QP_CREATE_PCI_WRITE_END_PADDING"
    );
    assert_eq!(ibv_qp_create_flags::IBV_QP_CREATE_SCATTER_FCS as i64, 256, "IBV_QP_CREATE_SCATTER_FCS");
    assert_eq!(ibv_qp_create_flags::IBV_QP_CREATE_SOURCE_QPN as i64, 1024, "IBV_QP_CREATE_SOURCE_QPN");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_CUR_STATE as i64, 2, "IBV_QP_CUR_STATE");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_DEST_QPN as i64, 1048576, "IBV_QP_DEST_QPN");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_EN_SQD_ASYNC_NOTIFY as i64, 4, "IBV_QP_EN_SQD_ASYNC_NOTIFY");
    assert_eq!(
        ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP as i64,
        32,
        "IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP"
    );
    assert_eq!(
        ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD as i64,
        64,
        "IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD"
    );
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_ATOMIC_WRITE as i64, 4096, "IBV_QP_EX_WITH_ATOMIC_WRITE");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_BIND_MW as i64, 256, "IBV_QP_EX_WITH_BIND_MW");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_LOCAL_INV as i64, 128, "IBV_QP_EX_WITH_LOCAL_INV");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_RDMA_READ as i64, 16, "IBV_QP_EX_WITH_RDMA_READ");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_RDMA_WRITE as i64, 1, "IBV_QP_EX_WITH_RDMA_WRITE");
    assert_eq!(
        ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM as i64,
        2,
        "IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM"
    );
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_SEND as i64, 4, "IBV_QP_EX_WITH_SEND");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_SEND_WITH_IMM as i64, 8, "IBV_QP_EX_WITH_SEND_WITH_IMM");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_SEND_WITH_INV as i64, 512, "IBV_QP_EX_WITH_SEND_WITH_INV");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_TSO as i64, 1024, "IBV_QP_EX_WITH_TSO");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_CREATE_FLAGS as i64, 4, "IBV_QP_INIT_ATTR_CREATE_FLAGS");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_IND_TABLE as i64, 16, "IBV_QP_INIT_ATTR_IND_TABLE");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_MAX_TSO_HEADER as i64, 8, "IBV_QP_INIT_ATTR_MAX_TSO_HEADER");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_PD as i64, 1, "IBV_QP_INIT_ATTR_PD");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_RX_HASH as i64, 32, "IBV_QP_INIT_ATTR_RX_HASH");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_SEND_OPS_FLAGS as i64, 64, "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS");
    assert_eq!(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_XRCD as i64, 2, "IBV_QP_INIT_ATTR_XRCD");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_MAX_DEST_RD_ATOMIC as i64, 131072, "IBV_QP_MAX_DEST_RD_ATOMIC");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_MAX_QP_RD_ATOMIC as i64, 8192, "IBV_QP_MAX_QP_RD_ATOMIC");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_MIN_RNR_TIMER as i64, 32768, "IBV_QP_MIN_RNR_TIMER");
    assert_eq!(ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_CONTEXT as i64, 4, "IBV_QP_OPEN_ATTR_CONTEXT");
    assert_eq!(ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_NUM as i64, 1, "IBV_QP_OPEN_ATTR_NUM");
    assert_eq!(ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_RESERVED as i64, 16, "IBV_QP_OPEN_ATTR_RESERVED");
    assert_eq!(ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_TYPE as i64, 8, "IBV_QP_OPEN_ATTR_TYPE");
    assert_eq!(ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_XRCD as i64, 2, "IBV_QP_OPEN_ATTR_XRCD");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_PATH_MIG_STATE as i64, 262144, "IBV_QP_PATH_MIG_STATE");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_PATH_MTU as i64, 256, "IBV_QP_PATH_MTU");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_PKEY_INDEX as i64, 16, "IBV_QP_PKEY_INDEX");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_PORT as i64, 32, "IBV_QP_PORT");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_QKEY as i64, 64, "IBV_QP_QKEY");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as i64, 33554432, "IBV_QP_RATE_LIMIT");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_RETRY_CNT as i64, 1024, "IBV_QP_RETRY_CNT");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_RNR_RETRY as i64, 2048, "IBV_QP_RNR_RETRY");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_RQ_PSN as i64, 4096, "IBV_QP_RQ_PSN");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_SQ_PSN as i64, 65536, "IBV_QP_SQ_PSN");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_STATE as i64, 1, "IBV_QP_STATE");
    assert_eq!(ibv_qp_attr_mask::IBV_QP_TIMEOUT as i64, 512, "IBV_QP_TIMEOUT");
    assert_eq!(ibv_rate::IBV_RATE_100_GBPS as i64, 16, "IBV_RATE_100_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_10_GBPS as i64, 3, "IBV_RATE_10_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_112_GBPS as i64, 13, "IBV_RATE_112_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_1200_GBPS as i64, 24, "IBV_RATE_1200_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_120_GBPS as i64, 10, "IBV_RATE_120_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_14_GBPS as i64, 11, "IBV_RATE_14_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_168_GBPS as i64, 14, "IBV_RATE_168_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_200_GBPS as i64, 17, "IBV_RATE_200_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_20_GBPS as i64, 6, "IBV_RATE_20_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_25_GBPS as i64, 15, "IBV_RATE_25_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_28_GBPS as i64, 19, "IBV_RATE_28_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_2_5_GBPS as i64, 2, "IBV_RATE_2_5_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_300_GBPS as i64, 18, "IBV_RATE_300_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_30_GBPS as i64, 4, "IBV_RATE_30_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_400_GBPS as i64, 21, "IBV_RATE_400_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_40_GBPS as i64, 7, "IBV_RATE_40_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_50_GBPS as i64, 20, "IBV_RATE_50_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_56_GBPS as i64, 12, "IBV_RATE_56_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_5_GBPS as i64, 5, "IBV_RATE_5_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_600_GBPS as i64, 22, "IBV_RATE_600_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_60_GBPS as i64, 8, "IBV_RATE_60_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_800_GBPS as i64, 23, "IBV_RATE_800_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_80_GBPS as i64, 9, "IBV_RATE_80_GBPS");
    assert_eq!(ibv_rate::IBV_RATE_MAX as i64, 0, "IBV_RATE_MAX");
    assert_eq!(ibv_raw_packet_caps::IBV_RAW_PACKET_CAP_CVLAN_STRIPPING as i64, 1, "IBV_RAW_PACKET_CAP_CVLAN_STRIPPING");
    assert_eq!(ibv_raw_packet_caps::IBV_RAW_PACKET_CAP_DELAY_DROP as i64, 8, "IBV_RAW_PACKET_CAP_DELAY_DROP");
    assert_eq!(ibv_raw_packet_caps::IBV_RAW_PACKET_CAP_IP_CSUM as i64, 4, "IBV_RAW_PACKET_CAP_IP_CSUM");
    assert_eq!(ibv_raw_packet_caps::IBV_RAW_PACKET_CAP_SCATTER_FCS as i64, 2, "IBV_RAW_PACKET_CAP_SCATTER_FCS");
    assert_eq!(
        ibv_read_counters_flags::IBV_READ_COUNTERS_ATTR_PREFER_CACHED as i64,
        1,
        "IBV_READ_COUNTERS_ATTR_PREFER_CACHED"
    );
    assert_eq!(ibv_rereg_mr_flags::IBV_REREG_MR_CHANGE_ACCESS as i64, 4, "IBV_REREG_MR_CHANGE_ACCESS");
    assert_eq!(ibv_rereg_mr_flags::IBV_REREG_MR_CHANGE_PD as i64, 2, "IBV_REREG_MR_CHANGE_PD");
    assert_eq!(ibv_rereg_mr_flags::IBV_REREG_MR_CHANGE_TRANSLATION as i64, 1, "IBV_REREG_MR_CHANGE_TRANSLATION");
    assert_eq!(ibv_rereg_mr_err_code::IBV_REREG_MR_ERR_CMD as i64, -4, "IBV_REREG_MR_ERR_CMD");
    assert_eq!(
        ibv_rereg_mr_err_code::IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW as i64,
        -5,
        "IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW"
    );
    assert_eq!(ibv_rereg_mr_err_code::IBV_REREG_MR_ERR_DONT_FORK_NEW as i64, -2, "IBV_REREG_MR_ERR_DONT_FORK_NEW");
    assert_eq!(ibv_rereg_mr_err_code::IBV_REREG_MR_ERR_DO_FORK_OLD as i64, -3, "IBV_REREG_MR_ERR_DO_FORK_OLD");
    assert_eq!(ibv_rereg_mr_err_code::IBV_REREG_MR_ERR_INPUT as i64, -1, "IBV_REREG_MR_ERR_INPUT");
    assert_eq!(ibv_rereg_mr_flags::IBV_REREG_MR_FLAGS_SUPPORTED as i64, 7, "IBV_REREG_MR_FLAGS_SUPPORTED");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_DST_IPV4 as i64, 2, "IBV_RX_HASH_DST_IPV4");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_DST_IPV6 as i64, 8, "IBV_RX_HASH_DST_IPV6");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_DST_PORT_TCP as i64, 32, "IBV_RX_HASH_DST_PORT_TCP");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_DST_PORT_UDP as i64, 128, "IBV_RX_HASH_DST_PORT_UDP");
    assert_eq!(ibv_rx_hash_function_flags::IBV_RX_HASH_FUNC_TOEPLITZ as i64, 1, "IBV_RX_HASH_FUNC_TOEPLITZ");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_INNER as i64, 2147483648, "IBV_RX_HASH_INNER");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_IPSEC_SPI as i64, 256, "IBV_RX_HASH_IPSEC_SPI");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_SRC_IPV4 as i64, 1, "IBV_RX_HASH_SRC_IPV4");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_SRC_IPV6 as i64, 4, "IBV_RX_HASH_SRC_IPV6");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_SRC_PORT_TCP as i64, 16, "IBV_RX_HASH_SRC_PORT_TCP");
    assert_eq!(ibv_rx_hash_fields::IBV_RX_HASH_SRC_PORT_UDP as i64, 64, "IBV_RX_HASH_SRC_PORT_UDP");
    assert_eq!(ibv_send_flags::IBV_SEND_FENCE as i64, 1, "IBV_SEND_FENCE");
    assert_eq!(ibv_send_flags::IBV_SEND_INLINE as i64, 8, "IBV_SEND_INLINE");
    assert_eq!(ibv_send_flags::IBV_SEND_IP_CSUM as i64, 16, "IBV_SEND_IP_CSUM");
    assert_eq!(ibv_send_flags::IBV_SEND_SIGNALED as i64, 2, "IBV_SEND_SIGNALED");
    assert_eq!(ibv_send_flags::IBV_SEND_SOLICITED as i64, 4, "IBV_SEND_SOLICITED");
    assert_eq!(ibv_srq_type::IBV_SRQT_BASIC as i64, 0, "IBV_SRQT_BASIC");
    assert_eq!(ibv_srq_type::IBV_SRQT_TM as i64, 2, "IBV_SRQT_TM");
    assert_eq!(ibv_srq_type::IBV_SRQT_XRC as i64, 1, "IBV_SRQT_XRC");
    assert_eq!(ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_CQ as i64, 8, "IBV_SRQ_INIT_ATTR_CQ");
    assert_eq!(ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_PD as i64, 2, "IBV_SRQ_INIT_ATTR_PD");
    assert_eq!(ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_RESERVED as i64, 32, "IBV_SRQ_INIT_ATTR_RESERVED");
    assert_eq!(ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_TM as i64, 16, "IBV_SRQ_INIT_ATTR_TM");
    assert_eq!(ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_TYPE as i64, 1, "IBV_SRQ_INIT_ATTR_TYPE");
    assert_eq!(ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_XRCD as i64, 4, "IBV_SRQ_INIT_ATTR_XRCD");
    assert_eq!(ibv_srq_attr_mask::IBV_SRQ_LIMIT as i64, 2, "IBV_SRQ_LIMIT");
    assert_eq!(ibv_srq_attr_mask::IBV_SRQ_MAX_WR as i64, 1, "IBV_SRQ_MAX_WR");
    assert_eq!(IBV_SYSFS_NAME_MAX as i64, 64, "IBV_SYSFS_NAME_MAX");
    assert_eq!(IBV_SYSFS_PATH_MAX as i64, 256, "IBV_SYSFS_PATH_MAX");
    assert_eq!(ibv_tmh_op::IBV_TMH_EAGER as i64, 3, "IBV_TMH_EAGER");
    assert_eq!(ibv_tmh_op::IBV_TMH_FIN as i64, 2, "IBV_TMH_FIN");
    assert_eq!(ibv_tmh_op::IBV_TMH_NO_TAG as i64, 0, "IBV_TMH_NO_TAG");
    assert_eq!(ibv_tmh_op::IBV_TMH_RNDV as i64, 1, "IBV_TMH_RNDV");
    assert_eq!(ibv_tm_cap_flags::IBV_TM_CAP_RC as i64, 1, "IBV_TM_CAP_RC");
    assert_eq!(ibv_transport_type::IBV_TRANSPORT_IB as i64, 0, "IBV_TRANSPORT_IB");
    assert_eq!(ibv_transport_type::IBV_TRANSPORT_IWARP as i64, 1, "IBV_TRANSPORT_IWARP");
    assert_eq!(ibv_transport_type::IBV_TRANSPORT_UNKNOWN as i64, -1, "IBV_TRANSPORT_UNKNOWN");
    assert_eq!(ibv_transport_type::IBV_TRANSPORT_UNSPECIFIED as i64, 4, "IBV_TRANSPORT_UNSPECIFIED");
    assert_eq!(ibv_transport_type::IBV_TRANSPORT_USNIC as i64, 2, "IBV_TRANSPORT_USNIC");
    assert_eq!(ibv_transport_type::IBV_TRANSPORT_USNIC_UDP as i64, 3, "IBV_TRANSPORT_USNIC_UDP");
    assert_eq!(ibv_values_mask::IBV_VALUES_MASK_RAW_CLOCK as i64, 1, "IBV_VALUES_MASK_RAW_CLOCK");
    assert_eq!(ibv_values_mask::IBV_VALUES_MASK_RESERVED as i64, 2, "IBV_VALUES_MASK_RESERVED");
    assert_eq!(ibv_wc_opcode::IBV_WC_ATOMIC_WRITE as i64, 9, "IBV_WC_ATOMIC_WRITE");
    assert_eq!(ibv_wc_status::IBV_WC_BAD_RESP_ERR as i64, 7, "IBV_WC_BAD_RESP_ERR");
    assert_eq!(ibv_wc_opcode::IBV_WC_BIND_MW as i64, 5, "IBV_WC_BIND_MW");
    assert_eq!(ibv_wc_opcode::IBV_WC_COMP_SWAP as i64, 3, "IBV_WC_COMP_SWAP");
    assert_eq!(ibv_wc_opcode::IBV_WC_DRIVER1 as i64, 135, "IBV_WC_DRIVER1");
    assert_eq!(ibv_wc_opcode::IBV_WC_DRIVER2 as i64, 136, "IBV_WC_DRIVER2");
    assert_eq!(ibv_wc_opcode::IBV_WC_DRIVER3 as i64, 137, "IBV_WC_DRIVER3");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_BYTE_LEN as i64, 1, "IBV_WC_EX_WITH_BYTE_LEN");
    assert_eq!(
        ibv_create_cq_wc_flags::IBV_WC_EX_WITH_COMPLETION_TIMESTAMP as i64,
        128,
        "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP"
    );
    assert_eq!(
        ibv_create_cq_wc_flags::IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK as i64,
        2048,
        "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK"
    );
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_CVLAN as i64, 256, "IBV_WC_EX_WITH_CVLAN");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_DLID_PATH_BITS as i64, 64, "IBV_WC_EX_WITH_DLID_PATH_BITS");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_FLOW_TAG as i64, 512, "IBV_WC_EX_WITH_FLOW_TAG");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_IMM as i64, 2, "IBV_WC_EX_WITH_IMM");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_QP_NUM as i64, 4, "IBV_WC_EX_WITH_QP_NUM");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_SL as i64, 32, "IBV_WC_EX_WITH_SL");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_SLID as i64, 16, "IBV_WC_EX_WITH_SLID");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_SRC_QP as i64, 8, "IBV_WC_EX_WITH_SRC_QP");
    assert_eq!(ibv_create_cq_wc_flags::IBV_WC_EX_WITH_TM_INFO as i64, 1024, "IBV_WC_EX_WITH_TM_INFO");
    assert_eq!(ibv_wc_status::IBV_WC_FATAL_ERR as i64, 19, "IBV_WC_FATAL_ERR");
    assert_eq!(ibv_wc_opcode::IBV_WC_FETCH_ADD as i64, 4, "IBV_WC_FETCH_ADD");
    assert_eq!(ibv_wc_status::IBV_WC_GENERAL_ERR as i64, 21, "IBV_WC_GENERAL_ERR");
    assert_eq!(ibv_wc_flags::IBV_WC_GRH as i64, 1, "IBV_WC_GRH");
    assert_eq!(ibv_wc_status::IBV_WC_INV_EECN_ERR as i64, 17, "IBV_WC_INV_EECN_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_INV_EEC_STATE_ERR as i64, 18, "IBV_WC_INV_EEC_STATE_ERR");
    assert_eq!(ibv_wc_flags::IBV_WC_IP_CSUM_OK as i64, 4, "IBV_WC_IP_CSUM_OK");
    assert_eq!(IBV_WC_IP_CSUM_OK_SHIFT as i64, 2, "IBV_WC_IP_CSUM_OK_SHIFT");
    assert_eq!(ibv_wc_opcode::IBV_WC_LOCAL_INV as i64, 6, "IBV_WC_LOCAL_INV");
    assert_eq!(ibv_wc_status::IBV_WC_LOC_ACCESS_ERR as i64, 8, "IBV_WC_LOC_ACCESS_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_LOC_EEC_OP_ERR as i64, 3, "IBV_WC_LOC_EEC_OP_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_LOC_LEN_ERR as i64, 1, "IBV_WC_LOC_LEN_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_LOC_PROT_ERR as i64, 4, "IBV_WC_LOC_PROT_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_LOC_QP_OP_ERR as i64, 2, "IBV_WC_LOC_QP_OP_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_LOC_RDD_VIOL_ERR as i64, 14, "IBV_WC_LOC_RDD_VIOL_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_MW_BIND_ERR as i64, 6, "IBV_WC_MW_BIND_ERR");
    assert_eq!(ibv_wc_opcode::IBV_WC_RDMA_READ as i64, 2, "IBV_WC_RDMA_READ");
    assert_eq!(ibv_wc_opcode::IBV_WC_RDMA_WRITE as i64, 1, "IBV_WC_RDMA_WRITE");
    assert_eq!(ibv_wc_opcode::IBV_WC_RECV as i64, 128, "IBV_WC_RECV");
    assert_eq!(ibv_wc_opcode::IBV_WC_RECV_RDMA_WITH_IMM as i64, 129, "IBV_WC_RECV_RDMA_WITH_IMM");
    assert_eq!(ibv_wc_status::IBV_WC_REM_ABORT_ERR as i64, 16, "IBV_WC_REM_ABORT_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_REM_ACCESS_ERR as i64, 10, "IBV_WC_REM_ACCESS_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_REM_INV_RD_REQ_ERR as i64, 15, "IBV_WC_REM_INV_RD_REQ_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_REM_INV_REQ_ERR as i64, 9, "IBV_WC_REM_INV_REQ_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_REM_OP_ERR as i64, 11, "IBV_WC_REM_OP_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_RESP_TIMEOUT_ERR as i64, 20, "IBV_WC_RESP_TIMEOUT_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_RETRY_EXC_ERR as i64, 12, "IBV_WC_RETRY_EXC_ERR");
    assert_eq!(ibv_wc_status::IBV_WC_RNR_RETRY_EXC_ERR as i64, 13, "IBV_WC_RNR_RETRY_EXC_ERR");
    assert_eq!(ibv_wc_opcode::IBV_WC_SEND as i64, 0, "IBV_WC_SEND");
    assert_eq!(IBV_WC_STANDARD_FLAGS as i64, 127, "IBV_WC_STANDARD_FLAGS");
    assert_eq!(ibv_wc_status::IBV_WC_SUCCESS as i64, 0, "IBV_WC_SUCCESS");
    assert_eq!(ibv_wc_opcode::IBV_WC_TM_ADD as i64, 130, "IBV_WC_TM_ADD");
    assert_eq!(ibv_wc_flags::IBV_WC_TM_DATA_VALID as i64, 64, "IBV_WC_TM_DATA_VALID");
    assert_eq!(ibv_wc_opcode::IBV_WC_TM_DEL as i64, 131, "IBV_WC_TM_DEL");
    assert_eq!(ibv_wc_status::IBV_WC_TM_ERR as i64, 22, "IBV_WC_TM_ERR");
    assert_eq!(ibv_wc_flags::IBV_WC_TM_MATCH as i64, 32, "IBV_WC_TM_MATCH");
    assert_eq!(ibv_wc_opcode::IBV_WC_TM_NO_TAG as i64, 134, "IBV_WC_TM_NO_TAG");
    assert_eq!(ibv_wc_opcode::IBV_WC_TM_RECV as i64, 133, "IBV_WC_TM_RECV");
    assert_eq!(ibv_wc_status::IBV_WC_TM_RNDV_INCOMPLETE as i64, 23, "IBV_WC_TM_RNDV_INCOMPLETE");
    assert_eq!(ibv_wc_opcode::IBV_WC_TM_SYNC as i64, 132, "IBV_WC_TM_SYNC");
    assert_eq!(ibv_wc_flags::IBV_WC_TM_SYNC_REQ as i64, 16, "IBV_WC_TM_SYNC_REQ");
    assert_eq!(ibv_wc_opcode::IBV_WC_TSO as i64, 7, "IBV_WC_TSO");
    assert_eq!(ibv_wc_flags::IBV_WC_WITH_IMM as i64, 2, "IBV_WC_WITH_IMM");
    assert_eq!(ibv_wc_flags::IBV_WC_WITH_INV as i64, 8, "IBV_WC_WITH_INV");
    assert_eq!(ibv_wc_status::IBV_WC_WR_FLUSH_ERR as i64, 5, "IBV_WC_WR_FLUSH_ERR");
    assert_eq!(ibv_wq_state::IBV_WQS_ERR as i64, 2, "IBV_WQS_ERR");
    assert_eq!(ibv_wq_state::IBV_WQS_RDY as i64, 1, "IBV_WQS_RDY");
    assert_eq!(ibv_wq_state::IBV_WQS_RESET as i64, 0, "IBV_WQS_RESET");
    assert_eq!(ibv_wq_state::IBV_WQS_UNKNOWN as i64, 3, "IBV_WQS_UNKNOWN");
    assert_eq!(ibv_wq_type::IBV_WQT_RQ as i64, 0, "IBV_WQT_RQ");
    assert_eq!(ibv_wq_attr_mask::IBV_WQ_ATTR_CURR_STATE as i64, 2, "IBV_WQ_ATTR_CURR_STATE");
    assert_eq!(ibv_wq_attr_mask::IBV_WQ_ATTR_FLAGS as i64, 4, "IBV_WQ_ATTR_FLAGS");
    assert_eq!(ibv_wq_attr_mask::IBV_WQ_ATTR_RESERVED as i64, 8, "IBV_WQ_ATTR_RESERVED");
    assert_eq!(ibv_wq_attr_mask::IBV_WQ_ATTR_STATE as i64, 1, "IBV_WQ_ATTR_STATE");
    assert_eq!(ibv_wq_flags::IBV_WQ_FLAGS_CVLAN_STRIPPING as i64, 1, "IBV_WQ_FLAGS_CVLAN_STRIPPING");
    assert_eq!(ibv_wq_flags::IBV_WQ_FLAGS_DELAY_DROP as i64, 4, "IBV_WQ_FLAGS_DELAY_DROP");
    assert_eq!(ibv_wq_flags::IBV_WQ_FLAGS_PCI_WRITE_END_PADDING as i64, 8, "IBV_WQ_FLAGS_PCI_WRITE_END_PADDING");
    assert_eq!(ibv_wq_flags::IBV_WQ_FLAGS_RESERVED as i64, 16, "IBV_WQ_FLAGS_RESERVED");
    assert_eq!(ibv_wq_flags::IBV_WQ_FLAGS_SCATTER_FCS as i64, 2, "IBV_WQ_FLAGS_SCATTER_FCS");
    assert_eq!(ibv_wq_init_attr_mask::IBV_WQ_INIT_ATTR_FLAGS as i64, 1, "IBV_WQ_INIT_ATTR_FLAGS");
    assert_eq!(ibv_wq_init_attr_mask::IBV_WQ_INIT_ATTR_RESERVED as i64, 2, "IBV_WQ_INIT_ATTR_RESERVED");
    assert_eq!(ibv_wr_opcode::IBV_WR_ATOMIC_CMP_AND_SWP as i64, 5, "IBV_WR_ATOMIC_CMP_AND_SWP");
    assert_eq!(ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD as i64, 6, "IBV_WR_ATOMIC_FETCH_AND_ADD");
    assert_eq!(ibv_wr_opcode::IBV_WR_ATOMIC_WRITE as i64, 15, "IBV_WR_ATOMIC_WRITE");
    // rdma-core 56 and 65.
    assert_eq!(ibv_wr_opcode::IBV_WR_FLUSH as i64, 14, "IBV_WR_FLUSH");
    assert_eq!(ibv_wc_opcode::IBV_WC_FLUSH as i64, 8, "IBV_WC_FLUSH");
    assert_eq!(ibv_access_flags::IBV_ACCESS_FLUSH_GLOBAL as i64, 256, "IBV_ACCESS_FLUSH_GLOBAL");
    assert_eq!(ibv_access_flags::IBV_ACCESS_FLUSH_PERSISTENT as i64, 512, "IBV_ACCESS_FLUSH_PERSISTENT");
    assert_eq!(ibv_qp_create_send_ops_flags::IBV_QP_EX_WITH_FLUSH as i64, 2048, "IBV_QP_EX_WITH_FLUSH");
    assert_eq!(ibv_placement_type::IBV_FLUSH_PERSISTENT as i64, 2, "IBV_FLUSH_PERSISTENT");
    assert_eq!(ibv_selectivity_level::IBV_FLUSH_MR as i64, 1, "IBV_FLUSH_MR");
    assert_eq!(ibv_event_type::IBV_EVENT_DEVICE_SPEED_CHANGE as i64, 20, "IBV_EVENT_DEVICE_SPEED_CHANGE");
    assert_eq!(ibv_port_cap_flags2::IBV_PORT_LINK_SPEED_XDR_SUP as i64, 4096, "IBV_PORT_LINK_SPEED_XDR_SUP");
    assert_eq!(ibv_odp_transport_cap_bits::IBV_ODP_SUPPORT_ATOMIC_WRITE as i64, 128, "IBV_ODP_SUPPORT_ATOMIC_WRITE");
    assert_eq!(
        ibv_query_qp_data_in_order_flags::IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY as i64,
        2,
        "IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY"
    );
    assert_eq!(
        ibv_query_qp_data_in_order_caps::IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES as i64,
        2,
        "IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES"
    );
    assert_eq!(rdma_driver_id::RDMA_DRIVER_IONIC as i64, 21, "RDMA_DRIVER_IONIC");
    assert_eq!(IBV_DEVICE_CC_DMA_BOUNCE, 1 << 41, "IBV_DEVICE_CC_DMA_BOUNCE");
    assert_eq!(ibv_wr_opcode::IBV_WR_BIND_MW as i64, 8, "IBV_WR_BIND_MW");
    assert_eq!(ibv_wr_opcode::IBV_WR_DRIVER1 as i64, 11, "IBV_WR_DRIVER1");
    assert_eq!(ibv_wr_opcode::IBV_WR_LOCAL_INV as i64, 7, "IBV_WR_LOCAL_INV");
    assert_eq!(ibv_wr_opcode::IBV_WR_RDMA_READ as i64, 4, "IBV_WR_RDMA_READ");
    assert_eq!(ibv_wr_opcode::IBV_WR_RDMA_WRITE as i64, 0, "IBV_WR_RDMA_WRITE");
    assert_eq!(ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM as i64, 1, "IBV_WR_RDMA_WRITE_WITH_IMM");
    assert_eq!(ibv_wr_opcode::IBV_WR_SEND as i64, 2, "IBV_WR_SEND");
    assert_eq!(ibv_wr_opcode::IBV_WR_SEND_WITH_IMM as i64, 3, "IBV_WR_SEND_WITH_IMM");
    assert_eq!(ibv_wr_opcode::IBV_WR_SEND_WITH_INV as i64, 9, "IBV_WR_SEND_WITH_INV");
    assert_eq!(ibv_ops_wr_opcode::IBV_WR_TAG_ADD as i64, 0, "IBV_WR_TAG_ADD");
    assert_eq!(ibv_ops_wr_opcode::IBV_WR_TAG_DEL as i64, 1, "IBV_WR_TAG_DEL");
    assert_eq!(ibv_ops_wr_opcode::IBV_WR_TAG_SYNC as i64, 2, "IBV_WR_TAG_SYNC");
    assert_eq!(ibv_wr_opcode::IBV_WR_TSO as i64, 10, "IBV_WR_TSO");
    assert_eq!(ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_FD as i64, 1, "IBV_XRCD_INIT_ATTR_FD");
    assert_eq!(ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_OFLAGS as i64, 2, "IBV_XRCD_INIT_ATTR_OFLAGS");
    assert_eq!(ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_RESERVED as i64, 4, "IBV_XRCD_INIT_ATTR_RESERVED");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_HUGETLB as i64, 128, "IB_UVERBS_ACCESS_HUGETLB");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_LOCAL_WRITE as i64, 1, "IB_UVERBS_ACCESS_LOCAL_WRITE");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_MW_BIND as i64, 16, "IB_UVERBS_ACCESS_MW_BIND");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_ON_DEMAND as i64, 64, "IB_UVERBS_ACCESS_ON_DEMAND");
    assert_eq!(
        ib_uverbs_access_flags::IB_UVERBS_ACCESS_OPTIONAL_RANGE as i64,
        1072693248,
        "IB_UVERBS_ACCESS_OPTIONAL_RANGE"
    );
    assert_eq!(
        ib_uverbs_access_flags::IB_UVERBS_ACCESS_RELAXED_ORDERING as i64,
        1048576,
        "IB_UVERBS_ACCESS_RELAXED_ORDERING"
    );
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_REMOTE_ATOMIC as i64, 8, "IB_UVERBS_ACCESS_REMOTE_ATOMIC");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_REMOTE_READ as i64, 4, "IB_UVERBS_ACCESS_REMOTE_READ");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_REMOTE_WRITE as i64, 2, "IB_UVERBS_ACCESS_REMOTE_WRITE");
    assert_eq!(ib_uverbs_access_flags::IB_UVERBS_ACCESS_ZERO_BASED as i64, 32, "IB_UVERBS_ACCESS_ZERO_BASED");
    assert_eq!(
        ib_uverbs_advise_mr_advice::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH as i64,
        0,
        "IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH"
    );
    assert_eq!(
        ib_uverbs_advise_mr_advice::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT as i64,
        2,
        "IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT"
    );
    assert_eq!(
        ib_uverbs_advise_mr_advice::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE as i64,
        1,
        "IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE"
    );
    assert_eq!(ib_uverbs_advise_mr_flag::IB_UVERBS_ADVISE_MR_FLAG_FLUSH as i64, 1, "IB_UVERBS_ADVISE_MR_FLAG_FLUSH");
    assert_eq!(
        ib_uverbs_core_support::IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS as i64,
        1,
        "IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS"
    );
    assert_eq!(IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT as i64, 0, "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT");
    assert_eq!(
        ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT as i64,
        4,
        "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW as i64,
        8,
        "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD as i64,
        1,
        "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO as i64,
        0,
        "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT as i64,
        2,
        "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT"
    );
    assert_eq!(IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL as i64, 0, "IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL");
    assert_eq!(
        ib_uverbs_flow_action_esp_keymat::IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM as i64,
        0,
        "IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_replay::IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP as i64,
        1,
        "IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_replay::IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE as i64,
        0,
        "IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE"
    );
    assert_eq!(
        ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo::IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ as i64,
        0,
        "IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ"
    );
    assert_eq!(ib_uverbs_gid_type::IB_UVERBS_GID_TYPE_IB as i64, 0, "IB_UVERBS_GID_TYPE_IB");
    assert_eq!(ib_uverbs_gid_type::IB_UVERBS_GID_TYPE_ROCE_V1 as i64, 1, "IB_UVERBS_GID_TYPE_ROCE_V1");
    assert_eq!(ib_uverbs_gid_type::IB_UVERBS_GID_TYPE_ROCE_V2 as i64, 2, "IB_UVERBS_GID_TYPE_ROCE_V2");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_AUTO_MIGR_SUP as i64, 32, "IB_UVERBS_PCF_AUTO_MIGR_SUP");
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_BOOT_MGMT_SUP as i64,
        8388608,
        "IB_UVERBS_PCF_BOOT_MGMT_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP as i64,
        4194304,
        "IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_CLIENT_REG_SUP as i64,
        33554432,
        "IB_UVERBS_PCF_CLIENT_REG_SUP"
    );
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_CM_SUP as i64, 65536, "IB_UVERBS_PCF_CM_SUP");
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_DEVICE_MGMT_SUP as i64,
        524288,
        "IB_UVERBS_PCF_DEVICE_MGMT_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_DR_NOTICE_SUP as i64,
        2097152,
        "IB_UVERBS_PCF_DR_NOTICE_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP as i64,
        16384,
        "IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_HIERARCHY_INFO_SUP as i64,
        2147483648,
        "IB_UVERBS_PCF_HIERARCHY_INFO_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_IP_BASED_GIDS as i64,
        67108864,
        "IB_UVERBS_PCF_IP_BASED_GIDS"
    );
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_LED_INFO_SUP as i64, 512, "IB_UVERBS_PCF_LED_INFO_SUP");
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_LINK_LATENCY_SUP as i64,
        16777216,
        "IB_UVERBS_PCF_LINK_LATENCY_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP as i64,
        134217728,
        "IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_MCAST_FDB_TOP_SUP as i64,
        1073741824,
        "IB_UVERBS_PCF_MCAST_FDB_TOP_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP as i64,
        536870912,
        "IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP"
    );
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_MKEY_NVRAM as i64, 128, "IB_UVERBS_PCF_MKEY_NVRAM");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_NOTICE_SUP as i64, 4, "IB_UVERBS_PCF_NOTICE_SUP");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_OPT_IPD_SUP as i64, 16, "IB_UVERBS_PCF_OPT_IPD_SUP");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_PKEY_NVRAM as i64, 256, "IB_UVERBS_PCF_PKEY_NVRAM");
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP as i64,
        4096,
        "IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP"
    );
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_REINIT_SUP as i64, 262144, "IB_UVERBS_PCF_REINIT_SUP");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_SL_MAP_SUP as i64, 64, "IB_UVERBS_PCF_SL_MAP_SUP");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_SM as i64, 2, "IB_UVERBS_PCF_SM");
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_SM_DISABLED as i64, 1024, "IB_UVERBS_PCF_SM_DISABLED");
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_SNMP_TUNNEL_SUP as i64,
        131072,
        "IB_UVERBS_PCF_SNMP_TUNNEL_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP as i64,
        2048,
        "IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP"
    );
    assert_eq!(ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_TRAP_SUP as i64, 8, "IB_UVERBS_PCF_TRAP_SUP");
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_VENDOR_CLASS_SUP as i64,
        1048576,
        "IB_UVERBS_PCF_VENDOR_CLASS_SUP"
    );
    assert_eq!(
        ib_uverbs_query_port_cap_flags::IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP as i64,
        268435456,
        "IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP"
    );
    assert_eq!(ib_uverbs_query_port_flags::IB_UVERBS_QPF_GRH_REQUIRED as i64, 1, "IB_UVERBS_QPF_GRH_REQUIRED");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_DRIVER as i64, 255, "IB_UVERBS_QPT_DRIVER");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_RAW_PACKET as i64, 8, "IB_UVERBS_QPT_RAW_PACKET");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_RC as i64, 2, "IB_UVERBS_QPT_RC");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_UC as i64, 3, "IB_UVERBS_QPT_UC");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_UD as i64, 4, "IB_UVERBS_QPT_UD");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_XRC_INI as i64, 9, "IB_UVERBS_QPT_XRC_INI");
    assert_eq!(ib_uverbs_qp_type::IB_UVERBS_QPT_XRC_TGT as i64, 10, "IB_UVERBS_QPT_XRC_TGT");
    assert_eq!(
        ib_uverbs_qp_create_flags::IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK as i64,
        2,
        "IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK"
    );
    assert_eq!(
        ib_uverbs_qp_create_flags::IB_UVERBS_QP_CREATE_CVLAN_STRIPPING as i64,
        512,
        "IB_UVERBS_QP_CREATE_CVLAN_STRIPPING"
    );
    assert_eq!(
        ib_uverbs_qp_create_flags::IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING as i64,
        2048,
        "IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING"
    );
    assert_eq!(
        ib_uverbs_qp_create_flags::IB_UVERBS_QP_CREATE_SCATTER_FCS as i64,
        256,
        "IB_UVERBS_QP_CREATE_SCATTER_FCS"
    );
    assert_eq!(
        ib_uverbs_qp_create_flags::IB_UVERBS_QP_CREATE_SQ_SIG_ALL as i64,
        4096,
        "IB_UVERBS_QP_CREATE_SQ_SIG_ALL"
    );
    assert_eq!(
        ib_uverbs_read_counters_flags::IB_UVERBS_READ_COUNTERS_PREFER_CACHED as i64,
        1,
        "IB_UVERBS_READ_COUNTERS_PREFER_CACHED"
    );
    assert_eq!(ib_uverbs_srq_type::IB_UVERBS_SRQT_BASIC as i64, 0, "IB_UVERBS_SRQT_BASIC");
    assert_eq!(ib_uverbs_srq_type::IB_UVERBS_SRQT_TM as i64, 2, "IB_UVERBS_SRQT_TM");
    assert_eq!(ib_uverbs_srq_type::IB_UVERBS_SRQT_XRC as i64, 1, "IB_UVERBS_SRQT_XRC");
    assert_eq!(ib_uverbs_wq_type::IB_UVERBS_WQT_RQ as i64, 0, "IB_UVERBS_WQT_RQ");
    assert_eq!(ib_uverbs_wq_flags::IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING as i64, 1, "IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING");
    assert_eq!(ib_uverbs_wq_flags::IB_UVERBS_WQ_FLAGS_DELAY_DROP as i64, 4, "IB_UVERBS_WQ_FLAGS_DELAY_DROP");
    assert_eq!(
        ib_uverbs_wq_flags::IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING as i64,
        8,
        "IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING"
    );
    assert_eq!(ib_uverbs_wq_flags::IB_UVERBS_WQ_FLAGS_SCATTER_FCS as i64, 2, "IB_UVERBS_WQ_FLAGS_SCATTER_FCS");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_BNXT_RE as i64, 6, "RDMA_DRIVER_BNXT_RE");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_CXGB3 as i64, 3, "RDMA_DRIVER_CXGB3");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_CXGB4 as i64, 4, "RDMA_DRIVER_CXGB4");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_EFA as i64, 17, "RDMA_DRIVER_EFA");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_ERDMA as i64, 19, "RDMA_DRIVER_ERDMA");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_HFI1 as i64, 15, "RDMA_DRIVER_HFI1");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_HNS as i64, 12, "RDMA_DRIVER_HNS");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_I40IW as i64, 9, "RDMA_DRIVER_I40IW");
    assert_eq!(RDMA_DRIVER_IRDMA as i64, 9, "RDMA_DRIVER_IRDMA");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_MANA as i64, 20, "RDMA_DRIVER_MANA");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_MLX4 as i64, 2, "RDMA_DRIVER_MLX4");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_MLX5 as i64, 1, "RDMA_DRIVER_MLX5");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_MTHCA as i64, 5, "RDMA_DRIVER_MTHCA");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_NES as i64, 8, "RDMA_DRIVER_NES");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_OCRDMA as i64, 7, "RDMA_DRIVER_OCRDMA");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_QEDR as i64, 11, "RDMA_DRIVER_QEDR");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_QIB as i64, 16, "RDMA_DRIVER_QIB");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_RXE as i64, 14, "RDMA_DRIVER_RXE");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_SIW as i64, 18, "RDMA_DRIVER_SIW");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_UNKNOWN as i64, 0, "RDMA_DRIVER_UNKNOWN");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_USNIC as i64, 13, "RDMA_DRIVER_USNIC");
    assert_eq!(rdma_driver_id::RDMA_DRIVER_VMW_PVRDMA as i64, 10, "RDMA_DRIVER_VMW_PVRDMA");
}

#[test]
fn macro_values() {
    assert_eq!(ETHERNET_LL_SIZE as i64, 6, "ETHERNET_LL_SIZE");
    assert_eq!(IBV_ACCESS_OPTIONAL_FIRST as i64, 1048576, "IBV_ACCESS_OPTIONAL_FIRST");
    assert_eq!(IBV_ACCESS_OPTIONAL_RANGE as i64, 1072693248, "IBV_ACCESS_OPTIONAL_RANGE");
    assert_eq!(IBV_ADVISE_MR_ADVICE_PREFETCH as i64, 0, "IBV_ADVISE_MR_ADVICE_PREFETCH");
    assert_eq!(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT as i64, 2, "IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT");
    assert_eq!(IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE as i64, 1, "IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE");
    assert_eq!(IBV_ADVISE_MR_FLAG_FLUSH as i64, 1, "IBV_ADVISE_MR_FLAG_FLUSH");
    assert_eq!(IBV_DEVICE_PCI_WRITE_END_PADDING as i64, 68719476736, "IBV_DEVICE_PCI_WRITE_END_PADDING");
    assert_eq!(IBV_DEVICE_RAW_SCATTER_FCS as i64, 17179869184, "IBV_DEVICE_RAW_SCATTER_FCS");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT as i64, 0, "IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT as i64, 4, "IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW as i64, 8, "IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD as i64, 1, "IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO as i64, 0, "IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT as i64, 2, "IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT");
    assert_eq!(IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL as i64, 0, "IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL");
    assert_eq!(IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM as i64, 0, "IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM");
    assert_eq!(IBV_FLOW_ACTION_ESP_REPLAY_BMP as i64, 1, "IBV_FLOW_ACTION_ESP_REPLAY_BMP");
    assert_eq!(IBV_FLOW_ACTION_ESP_REPLAY_NONE as i64, 0, "IBV_FLOW_ACTION_ESP_REPLAY_NONE");
    assert_eq!(IBV_FLOW_ACTION_IV_ALGO_SEQ as i64, 0, "IBV_FLOW_ACTION_IV_ALGO_SEQ");
    assert_eq!(IBV_QPF_GRH_REQUIRED as i64, 1, "IBV_QPF_GRH_REQUIRED");
    assert_eq!(IB_GRH_FLOWLABEL_MASK as i64, 1048575, "IB_GRH_FLOWLABEL_MASK");
    assert_eq!(IB_ROCE_UDP_ENCAP_VALID_PORT_MAX as i64, 65535, "IB_ROCE_UDP_ENCAP_VALID_PORT_MAX");
    assert_eq!(IB_ROCE_UDP_ENCAP_VALID_PORT_MIN as i64, 49152, "IB_ROCE_UDP_ENCAP_VALID_PORT_MIN");
    assert_eq!(IB_UVERBS_ACCESS_OPTIONAL_FIRST as i64, 1048576, "IB_UVERBS_ACCESS_OPTIONAL_FIRST");
    assert_eq!(IB_UVERBS_ACCESS_OPTIONAL_LAST as i64, 536870912, "IB_UVERBS_ACCESS_OPTIONAL_LAST");
}
