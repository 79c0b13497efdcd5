//! `<infiniband/ib.h>`: the native InfiniBand socket address (`AF_IB`), as rdma-core 44 installs it.
//!
//! `struct ib_addr` holds its 16 bytes in an untagged union member `ib_u` that C reaches through the `sib_*`
//! macros; cbindgen cannot write that, so its C text (with the macros and the `AF_IB`/`PF_IB` fallbacks) is the
//! hand-written fragment `cbindgen/infiniband/ib.h.pre`, and the `static inline` helpers (`ib_addr_any`, ...) are
//! in `ib.h.post`. In Rust the union has the type name [`ib_addr_u`]. `struct sockaddr_ib` is generated.

use std::ffi::{c_int, c_ushort};
use std::mem::{align_of, offset_of, size_of};

// `<linux/types.h>` spellings, so that generated fields keep them (the header includes that file itself).
type __u8 = u8;
type __u64 = u64;
type __be16 = u16;
type __be32 = u32;
type __be64 = u64;

/// The address family of native InfiniBand sockets, when the C library does not define it.
/// cbindgen:ignore
pub const AF_IB: c_int = 27;

/// The protocol family matching [`AF_IB`].
/// cbindgen:ignore
pub const PF_IB: c_int = AF_IB;

/// The four views of a 128-bit InfiniBand address (C: the untagged union member `ib_u` of `struct ib_addr`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ib_addr_u {
    /// As 16 bytes (`sib_addr8`, `sib_raw`).
    pub uib_addr8: [__u8; 16],
    /// As 8 big-endian 16-bit words (`sib_addr16`).
    pub uib_addr16: [__be16; 8],
    /// As 4 big-endian 32-bit words (`sib_addr32`).
    pub uib_addr32: [__be32; 4],
    /// As 2 big-endian 64-bit words (`sib_addr64`): subnet prefix, then interface id.
    pub uib_addr64: [__be64; 2],
}

/// A 128-bit InfiniBand address (a GID). C text: `cbindgen/infiniband/ib.h.pre`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ib_addr {
    /// The address bytes.
    pub ib_u: ib_addr_u,
}

/// A native InfiniBand socket address: a GID, a P_Key and a service id (`AF_IB`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sockaddr_ib {
    /// Always `AF_IB`.
    pub sib_family: c_ushort,
    /// Partition key, big-endian.
    pub sib_pkey: __be16,
    /// Flow label and traffic class, big-endian.
    pub sib_flowinfo: __be32,
    /// The port GID.
    pub sib_addr: ib_addr,
    /// Service id, big-endian.
    pub sib_sid: __be64,
    /// Mask applied to `sib_sid` when matching, big-endian.
    pub sib_sid_mask: __be64,
    /// Scope (interface index) for link-local GIDs.
    pub sib_scope_id: __u64,
}

const _: () = assert!(size_of::<ib_addr>() == 16 && align_of::<ib_addr>() == 8);
const _: () = assert!(size_of::<sockaddr_ib>() == 48 && align_of::<sockaddr_ib>() == 8);
const _: () = assert!(offset_of!(sockaddr_ib, sib_addr) == 8 && offset_of!(sockaddr_ib, sib_scope_id) == 40);
