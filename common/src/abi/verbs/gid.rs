//! GIDs and the `<linux/types.h>` big-endian spellings.

use std::mem::{align_of, offset_of, size_of};

/// A big-endian 16-bit value (`<linux/types.h>`; not emitted).
pub type __be16 = u16;
/// A big-endian 32-bit value (`<linux/types.h>`; not emitted).
pub type __be32 = u32;
/// A big-endian 64-bit value (`<linux/types.h>`; not emitted).
pub type __be64 = u64;

/// C's unnamed struct type of `union ibv_gid.global`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ibv_gid_global {
    /// The subnet prefix (big-endian).
    pub subnet_prefix: __be64,
    /// The interface id (big-endian).
    pub interface_id: __be64,
}

/// A 128-bit global identifier, as bytes or as subnet prefix + interface id. C text: `verbs.h.pre`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_gid {
    /// The 16 bytes in wire order.
    pub raw: [u8; 16],
    /// The two 64-bit halves.
    pub global: ibv_gid_global,
}

/// How a GID is used on the wire (`ibv_gid_entry.gid_type`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_gid_type {
    /// InfiniBand.
    IBV_GID_TYPE_IB,
    /// RoCE v1 (Ethernet).
    IBV_GID_TYPE_ROCE_V1,
    /// RoCE v2 (UDP/IP).
    IBV_GID_TYPE_ROCE_V2,
}

/// One GID-table entry, as `ibv_query_gid_ex(3)` and `ibv_query_gid_table(3)` return it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_gid_entry {
    /// The GID.
    pub gid: ibv_gid,
    /// Its index in the port's GID table.
    pub gid_index: u32,
    /// The port number.
    pub port_num: u32,
    /// An `enum ibv_gid_type` value.
    pub gid_type: u32,
    /// The ifindex of the associated netdev, 0 when none.
    pub ndev_ifindex: u32,
}

const _: () = {
    assert!(size_of::<ibv_gid>() == 16 && align_of::<ibv_gid>() == 8);
    assert!(size_of::<ibv_gid_entry>() == 32 && align_of::<ibv_gid_entry>() == 8);
    assert!(offset_of!(ibv_gid_entry, gid_index) == 16);
    assert!(offset_of!(ibv_gid_entry, ndev_ifindex) == 28);
};
