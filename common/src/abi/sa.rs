//! `<infiniband/sa.h>`: InfiniBand subnet administration records (path, multicast member, service) in the forms
//! librdmacm and applications exchange, as rdma-core 44 installs them.
//!
//! `ibv_sa_*` records are host-order, unpacked views; `ibv_path_record` is the packed wire layout that
//! `RDMA_OPTION_IB_PATH` / `RDMA_ROUTE` carry inside `ibv_path_data`.

use super::verbs::ibv_gid;
use std::ffi::c_int;
use std::mem::{align_of, offset_of, size_of};

// `<linux/types.h>` spellings, so that generated fields keep them (the header includes that file itself).
type __be16 = u16;
type __be32 = u32;
type __be64 = u64;

/// A path record, unpacked (as `rdma_cm_id::route.path_rec` holds it).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sa_path_rec {
    /// Destination GID.
    pub dgid: ibv_gid,
    /// Source GID.
    pub sgid: ibv_gid,
    /// Destination LID, big-endian.
    pub dlid: __be16,
    /// Source LID, big-endian.
    pub slid: __be16,
    /// Nonzero for a raw-traffic path.
    pub raw_traffic: c_int,
    /// Flow label, big-endian.
    pub flow_label: __be32,
    /// Hop limit.
    pub hop_limit: u8,
    /// Traffic class.
    pub traffic_class: u8,
    /// Nonzero when the path is reversible.
    pub reversible: c_int,
    /// Number of paths requested.
    pub numb_path: u8,
    /// Partition key, big-endian.
    pub pkey: __be16,
    /// Service level.
    pub sl: u8,
    /// How `mtu` is to be matched.
    pub mtu_selector: u8,
    /// Path MTU (an `ibv_mtu` value).
    pub mtu: u8,
    /// How `rate` is to be matched.
    pub rate_selector: u8,
    /// Static rate.
    pub rate: u8,
    /// How `packet_life_time` is to be matched.
    pub packet_life_time_selector: u8,
    /// Packet lifetime (4.096 us * 2^value).
    pub packet_life_time: u8,
    /// Preference among several paths (0 = most preferred).
    pub preference: u8,
}

/// A multicast member record, unpacked.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sa_mcmember_rec {
    /// Multicast GID.
    pub mgid: ibv_gid,
    /// The member port's GID.
    pub port_gid: ibv_gid,
    /// Q_Key of the group.
    pub qkey: u32,
    /// Multicast LID.
    pub mlid: u16,
    /// How `mtu` is to be matched.
    pub mtu_selector: u8,
    /// Group MTU.
    pub mtu: u8,
    /// Traffic class.
    pub traffic_class: u8,
    /// Partition key.
    pub pkey: u16,
    /// How `rate` is to be matched.
    pub rate_selector: u8,
    /// Static rate.
    pub rate: u8,
    /// How `packet_life_time` is to be matched.
    pub packet_life_time_selector: u8,
    /// Packet lifetime.
    pub packet_life_time: u8,
    /// Service level.
    pub sl: u8,
    /// Flow label.
    pub flow_label: u32,
    /// Hop limit.
    pub hop_limit: u8,
    /// Multicast address scope.
    pub scope: u8,
    /// Join state bits (full, non, send-only member).
    pub join_state: u8,
    /// Nonzero for a proxy join.
    pub proxy_join: c_int,
}

/// A service record, unpacked.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sa_service_rec {
    /// Service id.
    pub id: u64,
    /// GID of the port providing the service.
    pub gid: ibv_gid,
    /// Partition key.
    pub pkey: u16,
    /// Lease time in seconds.
    pub lease: u32,
    /// Service key.
    pub key: [u8; 16],
    /// Service name.
    pub name: [u8; 64],
    /// Service data, as bytes.
    pub data8: [u8; 16],
    /// Service data, as 16-bit words.
    pub data16: [u16; 8],
    /// Service data, as 32-bit words.
    pub data32: [u32; 4],
    /// Service data, as 64-bit words.
    pub data64: [u64; 2],
}

/// Bit of `ibv_path_record::reversible_numpath`: the path is reversible.
pub const IBV_PATH_RECORD_REVERSIBLE: c_int = 0x80;

/// A path record in its packed wire layout (all multi-byte fields big-endian).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_path_record {
    /// Service id.
    pub service_id: __be64,
    /// Destination GID.
    pub dgid: ibv_gid,
    /// Source GID.
    pub sgid: ibv_gid,
    /// Destination LID.
    pub dlid: __be16,
    /// Source LID.
    pub slid: __be16,
    /// Bits 27:8 flow label, bits 7:0 hop limit.
    pub flowlabel_hoplimit: __be32,
    /// Traffic class.
    pub tclass: u8,
    /// Bit 7 reversible ([`IBV_PATH_RECORD_REVERSIBLE`]), bits 6:0 number of paths.
    pub reversible_numpath: u8,
    /// Partition key.
    pub pkey: __be16,
    /// Bits 15:4 QoS class, bits 3:0 service level.
    pub qosclass_sl: __be16,
    /// Bits 7:6 MTU selector, bits 5:0 MTU.
    pub mtu: u8,
    /// Bits 7:6 rate selector, bits 5:0 rate.
    pub rate: u8,
    /// Bits 7:6 lifetime selector, bits 5:0 packet lifetime.
    pub packetlifetime: u8,
    /// Preference among several paths.
    pub preference: u8,
    /// Reserved, zero.
    pub reserved: [u8; 6],
}

/// `ibv_path_data::flags`: a path for general management packets.
pub const IBV_PATH_FLAG_GMP: c_int = 1 << 0;
/// `ibv_path_data::flags`: the primary path.
pub const IBV_PATH_FLAG_PRIMARY: c_int = 1 << 1;
/// `ibv_path_data::flags`: the alternate path.
pub const IBV_PATH_FLAG_ALTERNATE: c_int = 1 << 2;
/// `ibv_path_data::flags`: the path from this side to the peer.
pub const IBV_PATH_FLAG_OUTBOUND: c_int = 1 << 3;
/// `ibv_path_data::flags`: the path from the peer to this side.
pub const IBV_PATH_FLAG_INBOUND: c_int = 1 << 4;
/// `ibv_path_data::flags`: the reverse of the inbound path.
pub const IBV_PATH_FLAG_INBOUND_REVERSE: c_int = 1 << 5;
/// `ibv_path_data::flags`: a path usable in both directions.
pub const IBV_PATH_FLAG_BIDIRECTIONAL: c_int = IBV_PATH_FLAG_OUTBOUND | IBV_PATH_FLAG_INBOUND_REVERSE;

/// A path record with its role (`IBV_PATH_FLAG_*`), the element of `RDMA_OPTION_IB_PATH` and `RDMA_ROUTE` arrays.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_path_data {
    /// `IBV_PATH_FLAG_*` bits.
    pub flags: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// The path.
    pub path: ibv_path_record,
}

const _: () = assert!(size_of::<ibv_sa_path_rec>() == 64 && align_of::<ibv_sa_path_rec>() == 8);
const _: () = assert!(offset_of!(ibv_sa_path_rec, raw_traffic) == 36 && offset_of!(ibv_sa_path_rec, preference) == 63);
const _: () = assert!(size_of::<ibv_sa_mcmember_rec>() == 64 && offset_of!(ibv_sa_mcmember_rec, proxy_join) == 60);
const _: () = assert!(size_of::<ibv_sa_service_rec>() == 176 && offset_of!(ibv_sa_service_rec, data64) == 160);
const _: () = assert!(size_of::<ibv_path_record>() == 64 && offset_of!(ibv_path_record, reserved) == 58);
const _: () = assert!(size_of::<ibv_path_data>() == 72 && offset_of!(ibv_path_data, path) == 8);
