//! Address handles and their attributes: `ibv_create_ah(3)`, `ibv_init_ah_from_wc(3)`, and the static rates of
//! `ibv_rate_to_mult(3)`.

use super::*;
use std::mem::{offset_of, size_of};

/// Global routing attributes of an address (the GRH to send).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_global_route {
    /// Destination GID.
    pub dgid: ibv_gid,
    pub flow_label: u32,
    /// Index of the source GID in the port's table.
    pub sgid_index: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
}

/// A received global route header (the first 40 bytes of a UD receive buffer with `IBV_WC_GRH`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_grh {
    /// IP version, traffic class and flow label (big-endian).
    pub version_tclass_flow: __be32,
    /// Payload length (big-endian).
    pub paylen: __be16,
    pub next_hdr: u8,
    pub hop_limit: u8,
    pub sgid: ibv_gid,
    pub dgid: ibv_gid,
}

/// Static injection rates (`ibv_ah_attr.static_rate`). The numbering is the IBA's, not ordered by speed.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_rate {
    /// The port's full rate.
    IBV_RATE_MAX = 0,
    IBV_RATE_2_5_GBPS = 2,
    IBV_RATE_5_GBPS = 5,
    IBV_RATE_10_GBPS = 3,
    IBV_RATE_20_GBPS = 6,
    IBV_RATE_30_GBPS = 4,
    IBV_RATE_40_GBPS = 7,
    IBV_RATE_60_GBPS = 8,
    IBV_RATE_80_GBPS = 9,
    IBV_RATE_120_GBPS = 10,
    IBV_RATE_14_GBPS = 11,
    IBV_RATE_56_GBPS = 12,
    IBV_RATE_112_GBPS = 13,
    IBV_RATE_168_GBPS = 14,
    IBV_RATE_25_GBPS = 15,
    IBV_RATE_100_GBPS = 16,
    IBV_RATE_200_GBPS = 17,
    IBV_RATE_300_GBPS = 18,
    IBV_RATE_28_GBPS = 19,
    IBV_RATE_50_GBPS = 20,
    IBV_RATE_400_GBPS = 21,
    IBV_RATE_600_GBPS = 22,
    IBV_RATE_800_GBPS = 23,
    IBV_RATE_1200_GBPS = 24,
}

/// Address vector attributes (`ibv_create_ah(3)`, `ibv_qp_attr.ah_attr`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ah_attr {
    /// Used when `is_global` is set.
    pub grh: ibv_global_route,
    /// Destination LID (host order).
    pub dlid: u16,
    /// Service level.
    pub sl: u8,
    pub src_path_bits: u8,
    /// An `enum ibv_rate` value.
    pub static_rate: u8,
    /// Non-zero: `grh` is valid and a GRH is sent.
    pub is_global: u8,
    pub port_num: u8,
}

/// An address handle (`ibv_create_ah(3)`).
#[repr(C)]
pub struct ibv_ah {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub handle: u32,
}

const _: () = {
    assert!(size_of::<ibv_global_route>() == 24 && offset_of!(ibv_global_route, sgid_index) == 20);
    assert!(size_of::<ibv_grh>() == 40 && offset_of!(ibv_grh, sgid) == 8 && offset_of!(ibv_grh, dgid) == 24);
    assert!(size_of::<ibv_rate>() == 4);
    assert!(size_of::<ibv_ah_attr>() == 32 && offset_of!(ibv_ah_attr, dlid) == 24);
    assert!(offset_of!(ibv_ah_attr, port_num) == 30);
    assert!(size_of::<ibv_ah>() == 24);
};

/// The length of an Ethernet address (`ibv_resolve_eth_l2_from_gid(3)`; C text: `verbs.h.post`).
/// cbindgen:ignore
pub const ETHERNET_LL_SIZE: usize = 6;
/// The lowest UDP source port RoCE v2 uses (C text: `verbs.h.post`).
/// cbindgen:ignore
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MIN: u16 = 0xC000;
/// The highest UDP source port RoCE v2 uses (C text: `verbs.h.post`).
/// cbindgen:ignore
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MAX: u16 = 0xFFFF;
/// The flow-label bits of a GRH (C text: `verbs.h.post`).
/// cbindgen:ignore
pub const IB_GRH_FLOWLABEL_MASK: u32 = 0x000F_FFFF;
