//! `<infiniband/tm_types.h>`: the headers of tag-matching messages (the TMH and the rendezvous header), as
//! rdma-core 44 installs them. Everything here is generated; the guard, the includes and the C++ `extern "C"`
//! block come from `cbindgen/infiniband/tm_types.h.{pre,post}`.

use std::mem::{align_of, offset_of, size_of};

/// `<linux/types.h>` spellings (the header gets them from there; not emitted).
pub type __be32 = u32;
/// See [`__be32`].
pub type __be64 = u64;

/// The operation a tag-matching header announces (`ibv_tmh.opcode`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_tmh_op {
    /// A message without a tag.
    IBV_TMH_NO_TAG = 0,
    /// A rendezvous request (followed by an `ibv_rvh`).
    IBV_TMH_RNDV = 1,
    /// The end of a rendezvous transfer.
    IBV_TMH_FIN = 2,
    /// An eager message carrying its payload.
    IBV_TMH_EAGER = 3,
}

/// The tag-matching header at the start of a tagged message.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_tmh {
    /// An `enum ibv_tmh_op` value.
    pub opcode: u8,
    /// Zero.
    pub reserved: [u8; 3],
    /// Application data, opaque to the library (big-endian).
    pub app_ctx: __be32,
    /// The tag matched against posted receive buffers (big-endian).
    pub tag: __be64,
}

/// The rendezvous header following a `IBV_TMH_RNDV` TMH: where the sender's data is.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_rvh {
    /// Remote virtual address (big-endian).
    pub va: __be64,
    /// Remote key of that memory (big-endian).
    pub rkey: __be32,
    /// Length in bytes (big-endian).
    pub len: __be32,
}

const _: () = {
    assert!(size_of::<ibv_tmh_op>() == 4);
    assert!(size_of::<ibv_tmh>() == 16 && align_of::<ibv_tmh>() == 8);
    assert!(offset_of!(ibv_tmh, app_ctx) == 4 && offset_of!(ibv_tmh, tag) == 8);
    assert!(size_of::<ibv_rvh>() == 16 && align_of::<ibv_rvh>() == 8);
    assert!(offset_of!(ibv_rvh, rkey) == 8 && offset_of!(ibv_rvh, len) == 12);
};
