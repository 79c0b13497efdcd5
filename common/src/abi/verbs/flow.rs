//! Flow steering, flow actions and counters: `ibv_create_flow(3)`, `ibv_create_flow_action_esp(3)`,
//! `ibv_create_counters(3)`, `ibv_attach_counters_point_flow(3)`, `ibv_read_counters(3)`.

use super::*;
use std::ffi::c_void;
use std::mem::{offset_of, size_of};

/// Flow rule flags (`ibv_flow_attr.flags`; bit 0 is retired).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_flow_flags {
    /// Matching packets also reach the normal receive path.
    IBV_FLOW_ATTR_FLAGS_DONT_TRAP = 1 << 1,
    /// The rule applies to transmitted packets.
    IBV_FLOW_ATTR_FLAGS_EGRESS = 1 << 2,
}

/// Kinds of flow rule.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_flow_attr_type {
    /// Steer by the specifications.
    IBV_FLOW_ATTR_NORMAL = 0x0,
    /// Ethernet traffic not steered elsewhere.
    IBV_FLOW_ATTR_ALL_DEFAULT = 0x1,
    /// Ethernet multicast not steered elsewhere.
    IBV_FLOW_ATTR_MC_DEFAULT = 0x2,
    /// All of the port's traffic.
    IBV_FLOW_ATTR_SNIFFER = 0x3,
}

/// Kinds of flow specification (`type` of each `ibv_flow_spec_*`); `IBV_FLOW_SPEC_INNER` may be or-ed in to match
/// the inner headers of a tunnel.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_flow_spec_type {
    IBV_FLOW_SPEC_ETH = 0x20,
    IBV_FLOW_SPEC_IPV4 = 0x30,
    IBV_FLOW_SPEC_IPV6 = 0x31,
    IBV_FLOW_SPEC_IPV4_EXT = 0x32,
    IBV_FLOW_SPEC_ESP = 0x34,
    IBV_FLOW_SPEC_TCP = 0x40,
    IBV_FLOW_SPEC_UDP = 0x41,
    IBV_FLOW_SPEC_VXLAN_TUNNEL = 0x50,
    IBV_FLOW_SPEC_GRE = 0x51,
    IBV_FLOW_SPEC_MPLS = 0x60,
    IBV_FLOW_SPEC_INNER = 0x100,
    IBV_FLOW_SPEC_ACTION_TAG = 0x1000,
    IBV_FLOW_SPEC_ACTION_DROP = 0x1001,
    IBV_FLOW_SPEC_ACTION_HANDLE = 0x1002,
    IBV_FLOW_SPEC_ACTION_COUNT = 0x1003,
}

/// Ethernet header fields of a flow rule.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_eth_filter {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub ether_type: u16,
    pub vlan_tag: u16,
}

/// An L2 (Ethernet) flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_eth {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_eth_filter,
    pub mask: ibv_flow_eth_filter,
}

/// IPv4 addresses of a flow rule (network order).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_ipv4_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
}

/// An IPv4 flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_ipv4 {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_ipv4_filter,
    pub mask: ibv_flow_ipv4_filter,
}

/// IPv4 header fields of a flow rule.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_ipv4_ext_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub proto: u8,
    pub tos: u8,
    pub ttl: u8,
    pub flags: u8,
}

/// An extended IPv4 flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_ipv4_ext {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_ipv4_ext_filter,
    pub mask: ibv_flow_ipv4_ext_filter,
}

/// IPv6 header fields of a flow rule.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_ipv6_filter {
    pub src_ip: [u8; 16],
    pub dst_ip: [u8; 16],
    pub flow_label: u32,
    pub next_hdr: u8,
    pub traffic_class: u8,
    pub hop_limit: u8,
}

/// An IPv6 flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_ipv6 {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_ipv6_filter,
    pub mask: ibv_flow_ipv6_filter,
}

/// ESP header fields of a flow rule.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_esp_filter {
    pub spi: u32,
    pub seq: u32,
}

/// An ESP flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_esp {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_esp_filter,
    pub mask: ibv_flow_esp_filter,
}

/// TCP/UDP ports of a flow rule (network order).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_tcp_udp_filter {
    pub dst_port: u16,
    pub src_port: u16,
}

/// A TCP or UDP flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_tcp_udp {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_tcp_udp_filter,
    pub mask: ibv_flow_tcp_udp_filter,
}

/// GRE header fields of a flow rule; `c_ks_res0_ver` is the first 16 bits of the GRE header.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_gre_filter {
    pub c_ks_res0_ver: u16,
    pub protocol: u16,
    pub key: u32,
}

/// A GRE flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_gre {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_gre_filter,
    pub mask: ibv_flow_gre_filter,
}

/// An MPLS label of a flow rule: label (bits 0-19), traffic class (20-22), bottom of stack (23), TTL (24-31).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_mpls_filter {
    pub label: u32,
}

/// An MPLS flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_mpls {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_mpls_filter,
    pub mask: ibv_flow_mpls_filter,
}

/// A VXLAN tunnel id of a flow rule.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_tunnel_filter {
    pub tunnel_id: u32,
}

/// A VXLAN flow specification.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_tunnel {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub val: ibv_flow_tunnel_filter,
    pub mask: ibv_flow_tunnel_filter,
}

/// A flow action: tag matching packets (reported as the completion's flow tag).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_action_tag {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub tag_id: u32,
}

/// A flow action: drop matching packets.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_action_drop {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
}

/// A flow action: apply a flow-action object.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_action_handle {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub action: *const ibv_flow_action,
}

/// A flow action: count matching packets.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_counter_action {
    pub r#type: ibv_flow_spec_type,
    /// Size of this specification, bytes.
    pub size: u16,
    pub counters: *mut ibv_counters,
}

/// C's unnamed struct type of the `hdr` member of `struct ibv_flow_spec`: what every specification starts with.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_spec_hdr {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
}

/// C's untagged union in `struct ibv_flow_spec` (Rust field `spec`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_flow_spec_union {
    pub hdr: ibv_flow_spec_hdr,
    pub eth: ibv_flow_spec_eth,
    pub ipv4: ibv_flow_spec_ipv4,
    pub tcp_udp: ibv_flow_spec_tcp_udp,
    pub ipv4_ext: ibv_flow_spec_ipv4_ext,
    pub ipv6: ibv_flow_spec_ipv6,
    pub esp: ibv_flow_spec_esp,
    pub tunnel: ibv_flow_spec_tunnel,
    pub gre: ibv_flow_spec_gre,
    pub mpls: ibv_flow_spec_mpls,
    pub flow_tag: ibv_flow_spec_action_tag,
    pub drop: ibv_flow_spec_action_drop,
    pub handle: ibv_flow_spec_action_handle,
    pub flow_count: ibv_flow_spec_counter_action,
}

/// Any flow specification. C text: `verbs.h.post`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec {
    /// C: the untagged union of all specifications.
    pub spec: ibv_flow_spec_union,
}

/// A flow rule (`ibv_create_flow(3)`); `num_of_specs` specifications follow it in memory.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_attr {
    pub comp_mask: u32,
    pub r#type: ibv_flow_attr_type,
    /// Size of this struct and the specifications, bytes.
    pub size: u16,
    pub priority: u16,
    pub num_of_specs: u8,
    pub port: u8,
    /// `enum ibv_flow_flags` bits.
    pub flags: u32,
}

/// A flow rule in force (`ibv_create_flow(3)`).
#[repr(C)]
pub struct ibv_flow {
    pub comp_mask: u32,
    pub context: *mut ibv_context,
    pub handle: u32,
}

/// A flow action (`ibv_create_flow_action_esp(3)`).
#[repr(C)]
pub struct ibv_flow_action {
    pub context: *mut ibv_context,
}

/// Fields of `ibv_flow_action_esp_attr` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_flow_action_esp_mask {
    IBV_FLOW_ACTION_ESP_MASK_ESN = 1 << 0,
}

/// Input of `ibv_create_flow_action_esp(3)` and `ibv_modify_flow_action_esp(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_flow_action_esp_attr {
    pub esp_attr: *mut ibv_flow_action_esp,
    pub keymat_proto: ibv_flow_action_esp_keymat,
    pub keymat_len: u16,
    pub keymat_ptr: *mut c_void,
    pub replay_proto: ibv_flow_action_esp_replay,
    pub replay_len: u16,
    pub replay_ptr: *mut c_void,
    pub esp_encap: *mut ibv_flow_action_esp_encap,
    /// `enum ibv_flow_action_esp_mask` bits.
    pub comp_mask: u32,
    /// Extended sequence number (with `IBV_FLOW_ACTION_ESP_MASK_ESN`).
    pub esn: u32,
}

/// Input of `ibv_create_counters(3)` (`comp_mask` must be 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_counters_init_attr {
    pub comp_mask: u32,
}

/// A counters object (`ibv_create_counters(3)`).
#[repr(C)]
pub struct ibv_counters {
    pub context: *mut ibv_context,
}

/// What a counter counts.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_counter_description {
    IBV_COUNTER_PACKETS,
    IBV_COUNTER_BYTES,
}

/// Input of `ibv_attach_counters_point_flow(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_counter_attach_attr {
    pub counter_desc: ibv_counter_description,
    /// Where the counter goes in the counters object.
    pub index: u32,
    pub comp_mask: u32,
}

/// Flags of `ibv_read_counters(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_read_counters_flags {
    /// Values may come from the driver's cache.
    IBV_READ_COUNTERS_ATTR_PREFER_CACHED = 1 << 0,
}

const _: () = {
    assert!(size_of::<ibv_flow_eth_filter>() == 16);
    assert!(size_of::<ibv_flow_spec_eth>() == 40 && offset_of!(ibv_flow_spec_eth, val) == 6);
    assert!(size_of::<ibv_flow_spec_ipv4>() == 24);
    assert!(size_of::<ibv_flow_spec_ipv4_ext>() == 32);
    assert!(size_of::<ibv_flow_ipv6_filter>() == 40);
    assert!(size_of::<ibv_flow_spec_ipv6>() == 88);
    assert!(size_of::<ibv_flow_spec_esp>() == 24);
    assert!(size_of::<ibv_flow_spec_tcp_udp>() == 16);
    assert!(size_of::<ibv_flow_spec_gre>() == 24);
    assert!(size_of::<ibv_flow_spec_mpls>() == 16);
    assert!(size_of::<ibv_flow_spec_tunnel>() == 16);
    assert!(size_of::<ibv_flow_spec_action_tag>() == 12);
    assert!(size_of::<ibv_flow_spec_action_drop>() == 8);
    assert!(size_of::<ibv_flow_spec_action_handle>() == 16);
    assert!(size_of::<ibv_flow_spec_counter_action>() == 16);
    assert!(size_of::<ibv_flow_spec>() == 88);
    assert!(size_of::<ibv_flow_attr>() == 20);
    assert!(size_of::<ibv_flow>() == 24);
    assert!(size_of::<ibv_flow_action_esp_attr>() == 56);
    assert!(offset_of!(ibv_flow_action_esp_attr, keymat_ptr) == 16);
    assert!(offset_of!(ibv_flow_action_esp_attr, replay_proto) == 24);
    assert!(offset_of!(ibv_flow_action_esp_attr, esp_encap) == 40);
    assert!(offset_of!(ibv_flow_action_esp_attr, esn) == 52);
    assert!(size_of::<ibv_counter_attach_attr>() == 12);
};
