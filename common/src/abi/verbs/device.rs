//! Device and port attributes: `ibv_query_device(3)`, `ibv_query_device_ex(3)`, `ibv_query_port(3)`,
//! `ibv_query_rt_values_ex(3)`.

use super::gid::__be64;
use std::ffi::{c_char, c_int, c_uint};
use std::mem::{align_of, offset_of, size_of};

/// The kind of node a device is (`ibv_device.node_type`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_node_type {
    IBV_NODE_UNKNOWN = -1,
    /// InfiniBand channel adapter.
    IBV_NODE_CA = 1,
    IBV_NODE_SWITCH,
    IBV_NODE_ROUTER,
    /// iWARP NIC.
    IBV_NODE_RNIC,
    IBV_NODE_USNIC,
    IBV_NODE_USNIC_UDP,
    IBV_NODE_UNSPECIFIED,
}

/// The transport a device speaks (`ibv_device.transport_type`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_transport_type {
    IBV_TRANSPORT_UNKNOWN = -1,
    /// InfiniBand, also RoCE.
    IBV_TRANSPORT_IB = 0,
    IBV_TRANSPORT_IWARP,
    IBV_TRANSPORT_USNIC,
    IBV_TRANSPORT_USNIC_UDP,
    IBV_TRANSPORT_UNSPECIFIED,
}

/// Device capability bits (`ibv_device_attr.device_cap_flags`; bits above 31 are the `IBV_DEVICE_*` macros of
/// `ibv_device_attr_ex.device_cap_flags_ex`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_device_cap_flags {
    IBV_DEVICE_RESIZE_MAX_WR = 1,
    IBV_DEVICE_BAD_PKEY_CNTR = 1 << 1,
    IBV_DEVICE_BAD_QKEY_CNTR = 1 << 2,
    IBV_DEVICE_RAW_MULTI = 1 << 3,
    IBV_DEVICE_AUTO_PATH_MIG = 1 << 4,
    IBV_DEVICE_CHANGE_PHY_PORT = 1 << 5,
    IBV_DEVICE_UD_AV_PORT_ENFORCE = 1 << 6,
    IBV_DEVICE_CURR_QP_STATE_MOD = 1 << 7,
    IBV_DEVICE_SHUTDOWN_PORT = 1 << 8,
    IBV_DEVICE_INIT_TYPE = 1 << 9,
    IBV_DEVICE_PORT_ACTIVE_EVENT = 1 << 10,
    IBV_DEVICE_SYS_IMAGE_GUID = 1 << 11,
    IBV_DEVICE_RC_RNR_NAK_GEN = 1 << 12,
    IBV_DEVICE_SRQ_RESIZE = 1 << 13,
    IBV_DEVICE_N_NOTIFY_CQ = 1 << 14,
    IBV_DEVICE_MEM_WINDOW = 1 << 17,
    IBV_DEVICE_UD_IP_CSUM = 1 << 18,
    IBV_DEVICE_XRC = 1 << 20,
    IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21,
    IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23,
    IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24,
    IBV_DEVICE_RC_IP_CSUM = 1 << 25,
    IBV_DEVICE_RAW_IP_CSUM = 1 << 26,
    IBV_DEVICE_MANAGED_FLOW_STEERING = 1 << 29,
}

/// What `ibv_is_fork_initialized(3)` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_fork_status {
    /// `ibv_fork_init(3)` was not called; `fork()` is unsafe.
    IBV_FORK_DISABLED,
    /// `ibv_fork_init(3)` was called.
    IBV_FORK_ENABLED,
    /// The kernel copies DMA pages on fork: nothing to do.
    IBV_FORK_UNNEEDED,
}

/// Raw packet QPs can scatter the frame check sequence (`device_cap_flags_ex` bit 34).
pub const IBV_DEVICE_RAW_SCATTER_FCS: u64 = 1u64 << 34;
/// The device can pad PCI writes to a cache line (`device_cap_flags_ex` bit 36).
pub const IBV_DEVICE_PCI_WRITE_END_PADDING: u64 = 1u64 << 36;
/// Memory the device reaches by DMA must be bounced through buffers shared with the host, as in a confidential
/// computing guest (`device_cap_flags_ex` bit 41; rdma-core 65).
pub const IBV_DEVICE_CC_DMA_BOUNCE: u64 = 1u64 << 41;

/// The atomicity guarantees of a device's atomic operations.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_atomic_cap {
    /// No atomics.
    IBV_ATOMIC_NONE,
    /// Atomic among this device's operations.
    IBV_ATOMIC_HCA,
    /// Atomic with CPU and other devices too.
    IBV_ATOMIC_GLOB,
}

/// Device attributes (`ibv_query_device(3)`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device_attr {
    /// Firmware version, NUL-terminated.
    pub fw_ver: [c_char; 64],
    /// Node GUID (big-endian).
    pub node_guid: __be64,
    /// System image GUID (big-endian).
    pub sys_image_guid: __be64,
    /// Largest registrable region, bytes.
    pub max_mr_size: u64,
    /// Supported page sizes (a bit per size).
    pub page_size_cap: u64,
    pub vendor_id: u32,
    pub vendor_part_id: u32,
    pub hw_ver: u32,
    pub max_qp: c_int,
    pub max_qp_wr: c_int,
    /// `enum ibv_device_cap_flags` bits.
    pub device_cap_flags: c_uint,
    pub max_sge: c_int,
    pub max_sge_rd: c_int,
    pub max_cq: c_int,
    pub max_cqe: c_int,
    pub max_mr: c_int,
    pub max_pd: c_int,
    pub max_qp_rd_atom: c_int,
    pub max_ee_rd_atom: c_int,
    pub max_res_rd_atom: c_int,
    pub max_qp_init_rd_atom: c_int,
    pub max_ee_init_rd_atom: c_int,
    pub atomic_cap: ibv_atomic_cap,
    pub max_ee: c_int,
    pub max_rdd: c_int,
    pub max_mw: c_int,
    pub max_raw_ipv6_qp: c_int,
    pub max_raw_ethy_qp: c_int,
    pub max_mcast_grp: c_int,
    pub max_mcast_qp_attach: c_int,
    pub max_total_mcast_qp_attach: c_int,
    pub max_ah: c_int,
    pub max_fmr: c_int,
    pub max_map_per_fmr: c_int,
    pub max_srq: c_int,
    pub max_srq_wr: c_int,
    pub max_srq_sge: c_int,
    pub max_pkeys: u16,
    pub local_ca_ack_delay: u8,
    pub phys_port_cnt: u8,
}

/// Input of `ibv_query_device_ex(3)`, for future extensions (`comp_mask` must be 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_query_device_ex_input {
    pub comp_mask: u32,
}

/// On-demand-paging capabilities per transport operation.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_odp_transport_cap_bits {
    IBV_ODP_SUPPORT_SEND = 1 << 0,
    IBV_ODP_SUPPORT_RECV = 1 << 1,
    IBV_ODP_SUPPORT_WRITE = 1 << 2,
    IBV_ODP_SUPPORT_READ = 1 << 3,
    IBV_ODP_SUPPORT_ATOMIC = 1 << 4,
    IBV_ODP_SUPPORT_SRQ_RECV = 1 << 5,
    /// RDMA FLUSH (rdma-core 65).
    IBV_ODP_SUPPORT_FLUSH = 1 << 6,
    /// RDMA atomic write (rdma-core 65).
    IBV_ODP_SUPPORT_ATOMIC_WRITE = 1 << 7,
}

/// C's unnamed struct type of `ibv_odp_caps.per_transport_caps`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_odp_caps_per_transport {
    /// `enum ibv_odp_transport_cap_bits` bits for RC.
    pub rc_odp_caps: u32,
    /// The same for UC.
    pub uc_odp_caps: u32,
    /// The same for UD.
    pub ud_odp_caps: u32,
}

/// On-demand-paging capabilities. C text: `verbs.h.pre`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_odp_caps {
    /// `enum ibv_odp_general_caps` bits.
    pub general_caps: u64,
    /// Per-transport bits.
    pub per_transport_caps: ibv_odp_caps_per_transport,
}

/// General on-demand-paging capabilities.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_odp_general_caps {
    IBV_ODP_SUPPORT = 1 << 0,
    /// The whole address space can be registered at once.
    IBV_ODP_SUPPORT_IMPLICIT = 1 << 1,
}

/// TCP segmentation offload capabilities.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_tso_caps {
    /// Largest TSO payload, bytes.
    pub max_tso: u32,
    /// QP types supporting TSO (a bit per `enum ibv_qp_type`).
    pub supported_qpts: u32,
}

/// RX hash functions.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_rx_hash_function_flags {
    IBV_RX_HASH_FUNC_TOEPLITZ = 1 << 0,
}

/// The packet fields that feed the RX hash (`ibv_rx_hash_conf.rx_hash_fields_mask`).
///
/// `repr(u32)`: `IBV_RX_HASH_INNER` is bit 31, which makes gcc give the enum type `unsigned int`. C text:
/// `verbs.h.pre`.
/// cbindgen:ignore
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_rx_hash_fields {
    IBV_RX_HASH_SRC_IPV4 = 1 << 0,
    IBV_RX_HASH_DST_IPV4 = 1 << 1,
    IBV_RX_HASH_SRC_IPV6 = 1 << 2,
    IBV_RX_HASH_DST_IPV6 = 1 << 3,
    IBV_RX_HASH_SRC_PORT_TCP = 1 << 4,
    IBV_RX_HASH_DST_PORT_TCP = 1 << 5,
    IBV_RX_HASH_SRC_PORT_UDP = 1 << 6,
    IBV_RX_HASH_DST_PORT_UDP = 1 << 7,
    IBV_RX_HASH_IPSEC_SPI = 1 << 8,
    /// Hash the inner headers of a tunnel.
    IBV_RX_HASH_INNER = 1 << 31,
}

/// Receive-side scaling capabilities.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_rss_caps {
    /// QP types supporting RSS (a bit per `enum ibv_qp_type`).
    pub supported_qpts: u32,
    pub max_rwq_indirection_tables: u32,
    pub max_rwq_indirection_table_size: u32,
    /// `enum ibv_rx_hash_fields` bits.
    pub rx_hash_fields_mask: u64,
    /// `enum ibv_rx_hash_function_flags` bits.
    pub rx_hash_function: u8,
}

/// Packet pacing capabilities.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_packet_pacing_caps {
    /// Lowest rate limit, kbps.
    pub qp_rate_limit_min: u32,
    /// Highest rate limit, kbps.
    pub qp_rate_limit_max: u32,
    /// QP types supporting pacing (a bit per `enum ibv_qp_type`).
    pub supported_qpts: u32,
}

/// Raw packet QP capabilities (`ibv_device_attr_ex.raw_packet_caps`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_raw_packet_caps {
    IBV_RAW_PACKET_CAP_CVLAN_STRIPPING = 1 << 0,
    IBV_RAW_PACKET_CAP_SCATTER_FCS = 1 << 1,
    IBV_RAW_PACKET_CAP_IP_CSUM = 1 << 2,
    IBV_RAW_PACKET_CAP_DELAY_DROP = 1 << 3,
}

/// Tag-matching capability bits (`ibv_tm_caps.flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_tm_cap_flags {
    /// Tag matching over RC.
    IBV_TM_CAP_RC = 1 << 0,
}

/// Tag-matching capabilities.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_tm_caps {
    /// Largest rendezvous header, bytes.
    pub max_rndv_hdr_size: u32,
    /// Most tagged buffers in one SRQ's list.
    pub max_num_tags: u32,
    /// `enum ibv_tm_cap_flags` bits.
    pub flags: u32,
    /// Most outstanding list operations.
    pub max_ops: u32,
    /// Most SGEs in a tagged buffer.
    pub max_sge: u32,
}

/// CQ moderation capabilities.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_cq_moderation_caps {
    pub max_cq_count: u16,
    /// Microseconds.
    pub max_cq_period: u16,
}

/// PCI atomic operand sizes (bits of `ibv_pci_atomic_caps` fields).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_pci_atomic_op_size {
    IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP = 1 << 0,
    IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP = 1 << 1,
    IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP = 1 << 2,
}

/// PCI atomic capabilities: `enum ibv_pci_atomic_op_size` bits per operation.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_pci_atomic_caps {
    pub fetch_add: u16,
    pub swap: u16,
    pub compare_swap: u16,
}

/// Extended device attributes (`ibv_query_device_ex(3)`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device_attr_ex {
    /// What `ibv_query_device(3)` returns.
    pub orig_attr: ibv_device_attr,
    pub comp_mask: u32,
    pub odp_caps: ibv_odp_caps,
    /// Mask of the valid bits of completion timestamps.
    pub completion_timestamp_mask: u64,
    /// The HCA clock, kHz.
    pub hca_core_clock: u64,
    /// `enum ibv_device_cap_flags` bits and the 64-bit `IBV_DEVICE_*` macros.
    pub device_cap_flags_ex: u64,
    pub tso_caps: ibv_tso_caps,
    pub rss_caps: ibv_rss_caps,
    pub max_wq_type_rq: u32,
    pub packet_pacing_caps: ibv_packet_pacing_caps,
    /// `enum ibv_raw_packet_caps` bits.
    pub raw_packet_caps: u32,
    pub tm_caps: ibv_tm_caps,
    pub cq_mod_caps: ibv_cq_moderation_caps,
    /// Largest device-memory allocation, bytes.
    pub max_dm_size: u64,
    pub pci_atomic_caps: ibv_pci_atomic_caps,
    /// `enum ibv_odp_transport_cap_bits` bits for XRC.
    pub xrc_odp_caps: u32,
    /// Port count when it does not fit `orig_attr.phys_port_cnt`.
    pub phys_port_cnt_ex: u32,
}

/// Path MTUs.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_mtu {
    IBV_MTU_256 = 1,
    IBV_MTU_512 = 2,
    IBV_MTU_1024 = 3,
    IBV_MTU_2048 = 4,
    IBV_MTU_4096 = 5,
}

/// Logical port states.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_port_state {
    IBV_PORT_NOP = 0,
    IBV_PORT_DOWN = 1,
    IBV_PORT_INIT = 2,
    IBV_PORT_ARMED = 3,
    IBV_PORT_ACTIVE = 4,
    IBV_PORT_ACTIVE_DEFER = 5,
}

/// `ibv_port_attr.link_layer`: not reported (C: an enumerator of an untagged enum, `int`).
/// cbindgen:ignore
pub const IBV_LINK_LAYER_UNSPECIFIED: u8 = 0;
/// `ibv_port_attr.link_layer`: InfiniBand.
/// cbindgen:ignore
pub const IBV_LINK_LAYER_INFINIBAND: u8 = 1;
/// `ibv_port_attr.link_layer`: Ethernet (RoCE, iWARP).
/// cbindgen:ignore
pub const IBV_LINK_LAYER_ETHERNET: u8 = 2;

/// Port capability bits (`ibv_port_attr.port_cap_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_port_cap_flags {
    IBV_PORT_SM = 1 << 1,
    IBV_PORT_NOTICE_SUP = 1 << 2,
    IBV_PORT_TRAP_SUP = 1 << 3,
    IBV_PORT_OPT_IPD_SUP = 1 << 4,
    IBV_PORT_AUTO_MIGR_SUP = 1 << 5,
    IBV_PORT_SL_MAP_SUP = 1 << 6,
    IBV_PORT_MKEY_NVRAM = 1 << 7,
    IBV_PORT_PKEY_NVRAM = 1 << 8,
    IBV_PORT_LED_INFO_SUP = 1 << 9,
    IBV_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
    IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
    IBV_PORT_EXTENDED_SPEEDS_SUP = 1 << 14,
    IBV_PORT_CAP_MASK2_SUP = 1 << 15,
    IBV_PORT_CM_SUP = 1 << 16,
    IBV_PORT_SNMP_TUNNEL_SUP = 1 << 17,
    IBV_PORT_REINIT_SUP = 1 << 18,
    IBV_PORT_DEVICE_MGMT_SUP = 1 << 19,
    IBV_PORT_VENDOR_CLASS_SUP = 1 << 20,
    IBV_PORT_DR_NOTICE_SUP = 1 << 21,
    IBV_PORT_CAP_MASK_NOTICE_SUP = 1 << 22,
    IBV_PORT_BOOT_MGMT_SUP = 1 << 23,
    IBV_PORT_LINK_LATENCY_SUP = 1 << 24,
    IBV_PORT_CLIENT_REG_SUP = 1 << 25,
    IBV_PORT_IP_BASED_GIDS = 1 << 26,
}

/// Port capability bits, second word (`ibv_port_attr.port_cap_flags2`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_port_cap_flags2 {
    IBV_PORT_SET_NODE_DESC_SUP = 1 << 0,
    IBV_PORT_INFO_EXT_SUP = 1 << 1,
    IBV_PORT_VIRT_SUP = 1 << 2,
    IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP = 1 << 3,
    IBV_PORT_LINK_WIDTH_2X_SUP = 1 << 4,
    IBV_PORT_LINK_SPEED_HDR_SUP = 1 << 5,
    IBV_PORT_LINK_SPEED_NDR_SUP = 1 << 10,
    /// XDR link speed (rdma-core 56).
    IBV_PORT_LINK_SPEED_XDR_SUP = 1 << 12,
}

/// Port attributes (`ibv_query_port(3)`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_port_attr {
    pub state: ibv_port_state,
    pub max_mtu: ibv_mtu,
    pub active_mtu: ibv_mtu,
    /// Entries in the GID table.
    pub gid_tbl_len: c_int,
    /// `enum ibv_port_cap_flags` bits.
    pub port_cap_flags: u32,
    /// Largest message, bytes.
    pub max_msg_sz: u32,
    pub bad_pkey_cntr: u32,
    pub qkey_viol_cntr: u32,
    /// Entries in the P_Key table.
    pub pkey_tbl_len: u16,
    /// Base LID (host order).
    pub lid: u16,
    /// The subnet manager's LID.
    pub sm_lid: u16,
    /// LID mask control.
    pub lmc: u8,
    pub max_vl_num: u8,
    pub sm_sl: u8,
    pub subnet_timeout: u8,
    pub init_type_reply: u8,
    /// IB link width code (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x).
    pub active_width: u8,
    /// IB link speed code.
    pub active_speed: u8,
    /// Physical port state (5 = LinkUp).
    pub phys_state: u8,
    /// `IBV_LINK_LAYER_*`.
    pub link_layer: u8,
    /// `IBV_QPF_*` bits.
    pub flags: u8,
    /// `enum ibv_port_cap_flags2` bits.
    pub port_cap_flags2: u16,
    /// The port's speed as the kernel's `enum ib_port_speed` bit, also for speeds `active_speed` cannot hold (XDR);
    /// 0 where the kernel does not report it (before Linux 6.9, or over the write command). Added by rdma-core 56:
    /// a caller built against 44's headers has a 52-byte struct without it, and is never written this far.
    pub active_speed_ex: u32,
}

/// Which real-time values `ibv_query_rt_values_ex(3)` reads (`ibv_values_ex.comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_values_mask {
    IBV_VALUES_MASK_RAW_CLOCK = 1 << 0,
    IBV_VALUES_MASK_RESERVED = 1 << 1,
}

/// Real-time values of a device (`ibv_query_rt_values_ex(3)`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_values_ex {
    /// In: the `enum ibv_values_mask` bits wanted; out: those returned.
    pub comp_mask: u32,
    /// The device's free-running clock.
    pub raw_clock: libc::timespec,
}

const _: () = {
    assert!(size_of::<ibv_node_type>() == 4);
    assert!(size_of::<ibv_device_attr>() == 232 && align_of::<ibv_device_attr>() == 8);
    assert!(offset_of!(ibv_device_attr, node_guid) == 64);
    assert!(offset_of!(ibv_device_attr, atomic_cap) == 164);
    assert!(offset_of!(ibv_device_attr, max_pkeys) == 224);
    assert!(offset_of!(ibv_device_attr, phys_port_cnt) == 227);
    assert!(size_of::<ibv_query_device_ex_input>() == 4);
    assert!(size_of::<ibv_odp_caps>() == 24);
    assert!(size_of::<ibv_tso_caps>() == 8);
    assert!(size_of::<ibv_rss_caps>() == 32 && offset_of!(ibv_rss_caps, rx_hash_function) == 24);
    assert!(size_of::<ibv_packet_pacing_caps>() == 12);
    assert!(size_of::<ibv_tm_caps>() == 20);
    assert!(size_of::<ibv_cq_moderation_caps>() == 4);
    assert!(size_of::<ibv_pci_atomic_caps>() == 6);
    assert!(size_of::<ibv_device_attr_ex>() == 400);
    assert!(offset_of!(ibv_device_attr_ex, comp_mask) == 232);
    assert!(offset_of!(ibv_device_attr_ex, odp_caps) == 240);
    assert!(offset_of!(ibv_device_attr_ex, completion_timestamp_mask) == 264);
    assert!(offset_of!(ibv_device_attr_ex, tso_caps) == 288);
    assert!(offset_of!(ibv_device_attr_ex, rss_caps) == 296);
    assert!(offset_of!(ibv_device_attr_ex, max_wq_type_rq) == 328);
    assert!(offset_of!(ibv_device_attr_ex, raw_packet_caps) == 344);
    assert!(offset_of!(ibv_device_attr_ex, tm_caps) == 348);
    assert!(offset_of!(ibv_device_attr_ex, cq_mod_caps) == 368);
    assert!(offset_of!(ibv_device_attr_ex, max_dm_size) == 376);
    assert!(offset_of!(ibv_device_attr_ex, pci_atomic_caps) == 384);
    assert!(offset_of!(ibv_device_attr_ex, xrc_odp_caps) == 392);
    assert!(offset_of!(ibv_device_attr_ex, phys_port_cnt_ex) == 396);
    assert!(size_of::<ibv_port_attr>() == 56 && align_of::<ibv_port_attr>() == 4);
    assert!(offset_of!(ibv_port_attr, active_speed_ex) == 52);
    assert!(offset_of!(ibv_port_attr, pkey_tbl_len) == 32);
    assert!(offset_of!(ibv_port_attr, link_layer) == 46);
    assert!(offset_of!(ibv_port_attr, port_cap_flags2) == 48);
    assert!(size_of::<ibv_values_ex>() == 24 && offset_of!(ibv_values_ex, raw_clock) == 8);
};
