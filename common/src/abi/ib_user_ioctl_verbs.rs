//! `<infiniband/ib_user_ioctl_verbs.h>`: the kernel's ioctl-verbs constants and small structs, as rdma-core 65
//! installs its copy under `infiniband/`.
//!
//! What cbindgen writes: the enums whose values are distinct and fit a C `int`, the plain structs and the two
//! `IB_UVERBS_ACCESS_OPTIONAL_*` macros. What `cbindgen/infiniband/ib_user_ioctl_verbs.h.{pre,post}` write by
//! hand (the Rust items are `cbindgen:ignore`):
//!
//! * the include guard, `<linux/types.h>`, `<rdma/ib_user_verbs.h>` and the `RDMA_UAPI_PTR` fallback macro;
//! * `enum ib_uverbs_query_port_cap_flags` (`IB_UVERBS_PCF_HIERARCHY_INFO_SUP` is `1ULL << 31`: gcc gives the enum
//!   an `unsigned int` type, which a Rust `repr(C)` enum cannot; in Rust it is `repr(u32)`);
//! * `enum ib_uverbs_flow_action_esp_flags` (three enumerators share the value 0; the aliases are Rust consts);
//! * `enum rdma_driver_id` (`RDMA_DRIVER_IRDMA` aliases `RDMA_DRIVER_I40IW`; a Rust const);
//! * `struct ib_uverbs_flow_action_esp_encap`, whose pointers are `RDMA_UAPI_PTR` unions. In Rust the two
//!   untagged unions are the named fields `val_ptr` ([`ib_uverbs_esp_encap_val_ptr`]) and `next_ptr`
//!   ([`ib_uverbs_esp_encap_next_ptr`]): C's `encap.val_ptr` is Rust's `encap.val_ptr.val_ptr`.
//!
//! `struct ib_uverbs_query_port_resp`, which `ib_uverbs_query_port_resp_ex` embeds, belongs to the kernel's
//! `<rdma/ib_user_verbs.h>` (this header includes it); the Rust type is the bindgen one of [`crate::uapi`].

use std::ffi::c_void;
use std::mem::{align_of, offset_of, size_of};

pub use crate::uapi::ib_user_verbs::ib_uverbs_query_port_resp;

/// `<linux/types.h>` spellings (the header gets them from there; not emitted).
pub type __u8 = u8;
/// See [`__u8`].
pub type __u16 = u16;
/// See [`__u8`].
pub type __u32 = u32;
/// See [`__u8`].
pub type __u64 = u64;
/// See [`__u8`].
pub type __s32 = i32;
/// A `__u64` aligned to 8 bytes on every ABI (on x86-64 that is `u64`'s own alignment).
pub type __aligned_u64 = u64;

/// The first bit of the access-flag range the kernel may ignore when it does not know a flag.
pub const IB_UVERBS_ACCESS_OPTIONAL_FIRST: u32 = 1 << 20;
/// The last bit of the optional access-flag range.
pub const IB_UVERBS_ACCESS_OPTIONAL_LAST: u32 = 1 << 29;

/// Features of the uverbs core reported by the kernel (a bit mask).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_core_support {
    /// The kernel accepts (and may ignore) the optional MR access flags.
    IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS = 1 << 0,
    /// The kernel accepts driver data longer than it knows when the extra bytes are zero (rdma-core 65).
    IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA = 1 << 1,
}

/// Memory-region access rights, as the kernel numbers them (the same bits as `enum ibv_access_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_access_flags {
    IB_UVERBS_ACCESS_LOCAL_WRITE = 1 << 0,
    IB_UVERBS_ACCESS_REMOTE_WRITE = 1 << 1,
    IB_UVERBS_ACCESS_REMOTE_READ = 1 << 2,
    IB_UVERBS_ACCESS_REMOTE_ATOMIC = 1 << 3,
    IB_UVERBS_ACCESS_MW_BIND = 1 << 4,
    IB_UVERBS_ACCESS_ZERO_BASED = 1 << 5,
    IB_UVERBS_ACCESS_ON_DEMAND = 1 << 6,
    IB_UVERBS_ACCESS_HUGETLB = 1 << 7,
    IB_UVERBS_ACCESS_FLUSH_GLOBAL = 1 << 8,
    IB_UVERBS_ACCESS_FLUSH_PERSISTENT = 1 << 9,
    /// The first optional flag (`IB_UVERBS_ACCESS_OPTIONAL_FIRST`).
    IB_UVERBS_ACCESS_RELAXED_ORDERING = 1 << 20,
    /// Every bit from `IB_UVERBS_ACCESS_OPTIONAL_FIRST` to `IB_UVERBS_ACCESS_OPTIONAL_LAST` (0x3ff00000).
    IB_UVERBS_ACCESS_OPTIONAL_RANGE = 0x3ff0_0000,
}

/// Kinds of shared receive queue.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_srq_type {
    IB_UVERBS_SRQT_BASIC,
    IB_UVERBS_SRQT_XRC,
    IB_UVERBS_SRQT_TM,
}

/// Kinds of work queue.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_wq_type {
    IB_UVERBS_WQT_RQ,
}

/// Work-queue creation flags (a bit mask).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_wq_flags {
    IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING = 1 << 0,
    IB_UVERBS_WQ_FLAGS_SCATTER_FCS = 1 << 1,
    IB_UVERBS_WQ_FLAGS_DELAY_DROP = 1 << 2,
    IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING = 1 << 3,
}

/// Queue-pair transport types, as the kernel numbers them.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_qp_type {
    IB_UVERBS_QPT_RC = 2,
    IB_UVERBS_QPT_UC,
    IB_UVERBS_QPT_UD,
    IB_UVERBS_QPT_RAW_PACKET = 8,
    IB_UVERBS_QPT_XRC_INI,
    IB_UVERBS_QPT_XRC_TGT,
    IB_UVERBS_QPT_DRIVER = 0xFF,
}

/// Queue-pair creation flags (a bit mask).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_qp_create_flags {
    IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK = 1 << 1,
    IB_UVERBS_QP_CREATE_SCATTER_FCS = 1 << 8,
    IB_UVERBS_QP_CREATE_CVLAN_STRIPPING = 1 << 9,
    IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING = 1 << 11,
    IB_UVERBS_QP_CREATE_SQ_SIG_ALL = 1 << 12,
}

/// Port capability bits (`PortInfo:CapabilityMask`) as reported by the kernel's query-port.
///
/// `repr(u32)`: one value is `1 << 31`, so gcc makes this enum `unsigned int`. C text: the `.post` fragment.
/// cbindgen:ignore
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_query_port_cap_flags {
    IB_UVERBS_PCF_SM = 1 << 1,
    IB_UVERBS_PCF_NOTICE_SUP = 1 << 2,
    IB_UVERBS_PCF_TRAP_SUP = 1 << 3,
    IB_UVERBS_PCF_OPT_IPD_SUP = 1 << 4,
    IB_UVERBS_PCF_AUTO_MIGR_SUP = 1 << 5,
    IB_UVERBS_PCF_SL_MAP_SUP = 1 << 6,
    IB_UVERBS_PCF_MKEY_NVRAM = 1 << 7,
    IB_UVERBS_PCF_PKEY_NVRAM = 1 << 8,
    IB_UVERBS_PCF_LED_INFO_SUP = 1 << 9,
    IB_UVERBS_PCF_SM_DISABLED = 1 << 10,
    IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP = 1 << 11,
    IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
    IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP = 1 << 14,
    IB_UVERBS_PCF_CM_SUP = 1 << 16,
    IB_UVERBS_PCF_SNMP_TUNNEL_SUP = 1 << 17,
    IB_UVERBS_PCF_REINIT_SUP = 1 << 18,
    IB_UVERBS_PCF_DEVICE_MGMT_SUP = 1 << 19,
    IB_UVERBS_PCF_VENDOR_CLASS_SUP = 1 << 20,
    IB_UVERBS_PCF_DR_NOTICE_SUP = 1 << 21,
    IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP = 1 << 22,
    IB_UVERBS_PCF_BOOT_MGMT_SUP = 1 << 23,
    IB_UVERBS_PCF_LINK_LATENCY_SUP = 1 << 24,
    IB_UVERBS_PCF_CLIENT_REG_SUP = 1 << 25,
    IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP = 1 << 27,
    IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP = 1 << 28,
    IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP = 1 << 29,
    IB_UVERBS_PCF_MCAST_FDB_TOP_SUP = 1 << 30,
    IB_UVERBS_PCF_HIERARCHY_INFO_SUP = 1 << 31,
    /// Not an IBA bit: the kernel sets it when the GID table is derived from IP addresses (RoCE).
    IB_UVERBS_PCF_IP_BASED_GIDS = 1 << 26,
}

/// Port flags reported by query-port (a bit mask).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_query_port_flags {
    /// Address handles on this port must carry a GRH.
    IB_UVERBS_QPF_GRH_REQUIRED = 1 << 0,
}

/// Key-material formats of an ESP flow action.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_flow_action_esp_keymat {
    IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM,
}

/// IV generation algorithms for AES-GCM key material.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo {
    IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ,
}

/// AES-GCM key material of an ESP flow action.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_flow_action_esp_keymat_aes_gcm {
    /// Initial IV.
    pub iv: __aligned_u64,
    /// An `enum ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo` value.
    pub iv_algo: __u32,
    pub salt: __u32,
    /// ICV length in bytes.
    pub icv_len: __u32,
    /// Key length in bytes.
    pub key_len: __u32,
    /// The key, up to 256 bits.
    pub aes_key: [__u32; 8],
}

/// Anti-replay protection modes of an ESP flow action.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_flow_action_esp_replay {
    IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE,
    IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP,
}

/// Bitmap anti-replay parameters.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_flow_action_esp_replay_bmp {
    /// Window size.
    pub size: __u32,
}

/// ESP flow-action flags. Three pairs share a bit (the 0 value is the default of each pair); the zero-valued
/// aliases are the consts below. C text: the `.post` fragment.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_flow_action_esp_flags {
    /// Crypto offload only (default; also `_TUNNEL` and `_DECRYPT`).
    IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO = 0,
    IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD = 1 << 0,
    IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT = 1 << 1,
    IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT = 1 << 2,
    IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW = 1 << 3,
}

/// Tunnel mode (the default of bit 1): the value 0.
/// cbindgen:ignore
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL: ib_uverbs_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO;
/// Decrypt (the default of bit 2): the value 0.
/// cbindgen:ignore
pub const IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT: ib_uverbs_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO;

/// C's first `RDMA_UAPI_PTR` union of `struct ib_uverbs_flow_action_esp_encap` (untagged in C).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_esp_encap_val_ptr {
    /// The filter struct (`struct ibv_flow_*_filter`) that encapsulates the payload.
    pub val_ptr: *mut c_void,
    /// The same pointer as the kernel's 64-bit field.
    pub val_ptr_data_u64: __aligned_u64,
}

/// C's second `RDMA_UAPI_PTR` union of `struct ib_uverbs_flow_action_esp_encap` (untagged in C).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_uverbs_esp_encap_next_ptr {
    /// The next encapsulation in the list, or NULL.
    pub next_ptr: *mut ib_uverbs_flow_action_esp_encap,
    /// The same pointer as the kernel's 64-bit field.
    pub next_ptr_data_u64: __aligned_u64,
}

/// One encapsulation header of an ESP tunnel, in a singly linked list. C text: the `.post` fragment.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_uverbs_flow_action_esp_encap {
    /// C: the untagged `val_ptr` / `val_ptr_data_u64` union.
    pub val_ptr: ib_uverbs_esp_encap_val_ptr,
    /// C: the untagged `next_ptr` / `next_ptr_data_u64` union.
    pub next_ptr: ib_uverbs_esp_encap_next_ptr,
    /// Length of the filter struct `val_ptr` points to.
    pub len: __u16,
    /// The flow-spec type of that filter (`enum ibv_flow_spec_type`).
    pub r#type: __u16,
}

/// ESP parameters of a flow action.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_flow_action_esp {
    /// Security parameter index.
    pub spi: __u32,
    /// Initial sequence number.
    pub seq: __u32,
    /// Traffic-flow-confidentiality padding.
    pub tfc_pad: __u32,
    /// `enum ib_uverbs_flow_action_esp_flags` bits.
    pub flags: __u32,
    /// Packet count after which the SA expires.
    pub hard_limit_pkts: __aligned_u64,
}

/// Flags of read-counters.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_read_counters_flags {
    /// Values may come from the driver's cache instead of the hardware.
    IB_UVERBS_READ_COUNTERS_PREFER_CACHED = 1 << 0,
}

/// Advice kinds of advise-MR (ODP prefetching).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_advise_mr_advice {
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
}

/// Flags of advise-MR.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_advise_mr_flag {
    /// Complete the advice before returning.
    IB_UVERBS_ADVISE_MR_FLAG_FLUSH = 1 << 0,
}

/// The extended query-port answer: the legacy one plus `PortInfo:CapabilityMask2` and the extended speed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_query_port_resp_ex {
    /// The legacy answer.
    pub legacy_resp: ib_uverbs_query_port_resp,
    /// `enum ibv_port_cap_flags2` bits.
    pub port_cap_flags2: __u16,
    pub reserved: [__u8; 2],
    /// The port's `enum ib_port_speed` bit (Linux 6.9; rdma-core 56 carved it out of what 44 had as
    /// `reserved[2..6]`, so the struct keeps its size).
    pub active_speed_ex: __u32,
}

/// Queue-pair capacities, as the kernel reports them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_qp_cap {
    pub max_send_wr: __u32,
    pub max_recv_wr: __u32,
    pub max_send_sge: __u32,
    pub max_recv_sge: __u32,
    pub max_inline_data: __u32,
}

/// The kernel driver behind a device. `RDMA_DRIVER_IRDMA` aliases `RDMA_DRIVER_I40IW` (a const below), so the C
/// text is the `.post` fragment.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum rdma_driver_id {
    RDMA_DRIVER_UNKNOWN,
    RDMA_DRIVER_MLX5,
    RDMA_DRIVER_MLX4,
    RDMA_DRIVER_CXGB3,
    RDMA_DRIVER_CXGB4,
    RDMA_DRIVER_MTHCA,
    RDMA_DRIVER_BNXT_RE,
    RDMA_DRIVER_OCRDMA,
    RDMA_DRIVER_NES,
    RDMA_DRIVER_I40IW,
    RDMA_DRIVER_VMW_PVRDMA,
    RDMA_DRIVER_QEDR,
    RDMA_DRIVER_HNS,
    RDMA_DRIVER_USNIC,
    RDMA_DRIVER_RXE,
    RDMA_DRIVER_HFI1,
    RDMA_DRIVER_QIB,
    RDMA_DRIVER_EFA,
    RDMA_DRIVER_SIW,
    RDMA_DRIVER_ERDMA,
    RDMA_DRIVER_MANA,
    /// AMD Pensando (rdma-core 65).
    RDMA_DRIVER_IONIC,
}

/// Intel's irdma driver took over i40iw's id.
/// cbindgen:ignore
pub const RDMA_DRIVER_IRDMA: rdma_driver_id = rdma_driver_id::RDMA_DRIVER_I40IW;

/// How a GID is used on the wire.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_gid_type {
    IB_UVERBS_GID_TYPE_IB,
    IB_UVERBS_GID_TYPE_ROCE_V1,
    IB_UVERBS_GID_TYPE_ROCE_V2,
}

/// One GID-table entry as the kernel returns it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_gid_entry {
    /// The GID (16 bytes, network order).
    pub gid: [__aligned_u64; 2],
    pub gid_index: __u32,
    pub port_num: __u32,
    /// An `enum ib_uverbs_gid_type` value.
    pub gid_type: __u32,
    /// The netdev's ifindex, 0 when none.
    pub netdev_ifindex: __u32,
}

/// How an [`ib_uverbs_buffer_desc`] names its memory (rdma-core 65).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_buffer_type {
    /// A dma-buf: `fd`, and `addr` as the offset inside it.
    IB_UVERBS_BUFFER_TYPE_DMABUF,
    /// The process's memory at virtual address `addr`.
    IB_UVERBS_BUFFER_TYPE_VA,
}

/// One buffer given to the kernel as a single attribute (rdma-core 65: a queue's memory supplied by the caller).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ib_uverbs_buffer_desc {
    /// An `enum ib_uverbs_buffer_type` value.
    pub r#type: __u32,
    /// The dma-buf (`IB_UVERBS_BUFFER_TYPE_DMABUF`).
    pub fd: __s32,
    /// Bits the kernel must understand (none defined: it refuses any).
    pub flags: __u32,
    /// Bits the kernel may ignore (none defined).
    pub optional_flags: __u32,
    /// Offset in the dma-buf, or virtual address.
    pub addr: __aligned_u64,
    /// Bytes.
    pub length: __aligned_u64,
}

/// Which of a completion counter's two values a COMP_CNTR method reads or changes (rdma-core 65).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_comp_cntr_entry {
    /// The count of successful completions.
    IB_UVERBS_COMP_CNTR_ENTRY_COMP,
    /// The count of completions in error.
    IB_UVERBS_COMP_CNTR_ENTRY_ERR,
}

/// What COMP_CNTR_MODIFY does with its value (rdma-core 65).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_comp_cntr_modify_op {
    /// Replace the entry's value.
    IB_UVERBS_COMP_CNTR_MODIFY_OP_SET,
    /// Add to the entry's value.
    IB_UVERBS_COMP_CNTR_MODIFY_OP_INC,
}

/// The operations of a QP whose completions advance an attached completion counter (rdma-core 65; the kernel's
/// bits for `enum ibv_qp_attach_comp_cntr_op`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ib_uverbs_qp_attach_comp_cntr_op {
    IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND = 1 << 0,
    IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV = 1 << 1,
    IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 1 << 2,
    IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 1 << 3,
    IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 1 << 4,
    IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
}

const _: () = {
    assert!(size_of::<ib_uverbs_core_support>() == 4);
    assert!(size_of::<ib_uverbs_buffer_desc>() == 32 && offset_of!(ib_uverbs_buffer_desc, addr) == 16);
    assert!(offset_of!(ib_uverbs_query_port_resp_ex, active_speed_ex) == 44);
    assert!(size_of::<ib_uverbs_query_port_cap_flags>() == 4);
    assert!(size_of::<ib_uverbs_flow_action_esp_keymat_aes_gcm>() == 56);
    assert!(align_of::<ib_uverbs_flow_action_esp_keymat_aes_gcm>() == 8);
    assert!(offset_of!(ib_uverbs_flow_action_esp_keymat_aes_gcm, aes_key) == 24);
    assert!(size_of::<ib_uverbs_flow_action_esp_replay_bmp>() == 4);
    assert!(size_of::<ib_uverbs_flow_action_esp_encap>() == 24);
    assert!(offset_of!(ib_uverbs_flow_action_esp_encap, next_ptr) == 8);
    assert!(offset_of!(ib_uverbs_flow_action_esp_encap, r#type) == 18);
    assert!(size_of::<ib_uverbs_flow_action_esp>() == 24);
    assert!(offset_of!(ib_uverbs_flow_action_esp, hard_limit_pkts) == 16);
    assert!(size_of::<ib_uverbs_query_port_resp>() == 40);
    assert!(size_of::<ib_uverbs_query_port_resp_ex>() == 48);
    assert!(offset_of!(ib_uverbs_query_port_resp_ex, port_cap_flags2) == 40);
    assert!(size_of::<ib_uverbs_qp_cap>() == 20);
    assert!(size_of::<ib_uverbs_gid_entry>() == 32);
    assert!(align_of::<ib_uverbs_gid_entry>() == 8);
    assert!(offset_of!(ib_uverbs_gid_entry, netdev_ifindex) == 28);
};
