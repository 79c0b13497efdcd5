//! Protection domains, thread and parent domains, XRC domains, memory regions, memory windows and device memory:
//! `ibv_alloc_pd(3)`, `ibv_alloc_td(3)`, `ibv_alloc_parent_domain(3)`, `ibv_open_xrcd(3)`, `ibv_reg_mr(3)`,
//! `ibv_rereg_mr(3)`, `ibv_alloc_mw(3)`, `ibv_bind_mw(3)`, `ibv_alloc_dm(3)`.

use super::*;
use std::ffi::{c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};

/// Access rights of memory regions and windows (`access` arguments, `mw_access_flags`, `qp_access_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_access_flags {
    IBV_ACCESS_LOCAL_WRITE = 1,
    IBV_ACCESS_REMOTE_WRITE = 1 << 1,
    IBV_ACCESS_REMOTE_READ = 1 << 2,
    IBV_ACCESS_REMOTE_ATOMIC = 1 << 3,
    IBV_ACCESS_MW_BIND = 1 << 4,
    IBV_ACCESS_ZERO_BASED = 1 << 5,
    /// On-demand paging.
    IBV_ACCESS_ON_DEMAND = 1 << 6,
    IBV_ACCESS_HUGETLB = 1 << 7,
    /// The region may be the target of an RDMA FLUSH to global visibility (rdma-core 56; Linux 6.2).
    IBV_ACCESS_FLUSH_GLOBAL = 1 << 8,
    /// The region may be the target of an RDMA FLUSH to persistence (rdma-core 56; Linux 6.2).
    IBV_ACCESS_FLUSH_PERSISTENT = 1 << 9,
    /// Optional (`IBV_ACCESS_OPTIONAL_FIRST`): dropped when the kernel does not know it.
    IBV_ACCESS_RELAXED_ORDERING = 1 << 20,
}

/// What a memory window is bound to.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_mw_bind_info {
    /// The region, or NULL to unbind.
    pub mr: *mut ibv_mr,
    /// Start of the window, in the region's address space.
    pub addr: u64,
    pub length: u64,
    /// `enum ibv_access_flags` bits.
    pub mw_access_flags: c_uint,
}

/// A protection domain (`ibv_alloc_pd(3)`).
#[repr(C)]
pub struct ibv_pd {
    pub context: *mut ibv_context,
    pub handle: u32,
}

/// Input of `ibv_alloc_td(3)` (`comp_mask` must be 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_td_init_attr {
    pub comp_mask: u32,
}

/// A thread domain (`ibv_alloc_td(3)`).
#[repr(C)]
pub struct ibv_td {
    pub context: *mut ibv_context,
}

/// Fields of `ibv_xrcd_init_attr` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_xrcd_init_attr_mask {
    IBV_XRCD_INIT_ATTR_FD = 1 << 0,
    IBV_XRCD_INIT_ATTR_OFLAGS = 1 << 1,
    IBV_XRCD_INIT_ATTR_RESERVED = 1 << 2,
}

/// Input of `ibv_open_xrcd(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_xrcd_init_attr {
    /// `enum ibv_xrcd_init_attr_mask` bits.
    pub comp_mask: u32,
    /// A file identifying a shared XRC domain, or -1.
    pub fd: c_int,
    /// `O_CREAT` and/or `O_EXCL`.
    pub oflags: c_int,
}

/// An XRC domain (`ibv_open_xrcd(3)`).
#[repr(C)]
pub struct ibv_xrcd {
    pub context: *mut ibv_context,
}

/// What `ibv_rereg_mr(3)` changes (`flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_rereg_mr_flags {
    IBV_REREG_MR_CHANGE_TRANSLATION = 1 << 0,
    IBV_REREG_MR_CHANGE_PD = 1 << 1,
    IBV_REREG_MR_CHANGE_ACCESS = 1 << 2,
    /// All the above.
    IBV_REREG_MR_FLAGS_SUPPORTED = (1 << 3) - 1,
}

/// A memory region (`ibv_reg_mr(3)`).
#[repr(C)]
pub struct ibv_mr {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    /// Start of the registered memory.
    pub addr: *mut c_void,
    pub length: usize,
    pub handle: u32,
    /// Local key, for SGEs.
    pub lkey: u32,
    /// Remote key, for peers' RDMA and atomics.
    pub rkey: u32,
}

/// Memory window types.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_mw_type {
    /// Bound with `ibv_bind_mw(3)`.
    IBV_MW_TYPE_1 = 1,
    /// Bound with a `IBV_WR_BIND_MW` work request.
    IBV_MW_TYPE_2 = 2,
}

/// A memory window (`ibv_alloc_mw(3)`).
#[repr(C)]
pub struct ibv_mw {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub rkey: u32,
    pub handle: u32,
    pub r#type: ibv_mw_type,
}

/// Input of `ibv_alloc_dm(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_alloc_dm_attr {
    /// Bytes.
    pub length: usize,
    /// log2 of the required alignment.
    pub log_align_req: u32,
    pub comp_mask: u32,
}

/// Valid fields of `ibv_dm` (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_dm_mask {
    IBV_DM_MASK_HANDLE = 1 << 0,
}

/// Device memory (`ibv_alloc_dm(3)`).
#[repr(C)]
pub struct ibv_dm {
    pub context: *mut ibv_context,
    /// `ibv_memcpy_to_dm(3)`.
    pub memcpy_to_dm:
        Option<unsafe extern "C" fn(dm: *mut ibv_dm, dm_offset: u64, host_addr: *const c_void, length: usize) -> c_int>,
    /// `ibv_memcpy_from_dm(3)`.
    pub memcpy_from_dm:
        Option<unsafe extern "C" fn(host_addr: *mut c_void, dm: *mut ibv_dm, dm_offset: u64, length: usize) -> c_int>,
    /// `enum ibv_dm_mask` bits.
    pub comp_mask: u32,
    pub handle: u32,
}

/// The negative values `ibv_rereg_mr(3)` returns on failure.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_rereg_mr_err_code {
    /// The old MR is still valid: invalid input.
    IBV_REREG_MR_ERR_INPUT = -1,
    /// The old MR is still valid: marking the new range don't-fork failed.
    IBV_REREG_MR_ERR_DONT_FORK_NEW = -2,
    /// The new MR is valid: marking the old range do-fork failed.
    IBV_REREG_MR_ERR_DO_FORK_OLD = -3,
    /// The MR must not be used: the command failed.
    IBV_REREG_MR_ERR_CMD = -4,
    /// The MR must not be used: the command failed and the new range's fork state is wrong.
    IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW = -5,
}

/// Input of `ibv_bind_mw(3)` (type 1 windows).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_mw_bind {
    /// Reported in the bind's completion.
    pub wr_id: u64,
    /// `enum ibv_send_flags` bits.
    pub send_flags: c_uint,
    pub bind_info: ibv_mw_bind_info,
}

/// Fields of `ibv_parent_domain_init_attr` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_parent_domain_init_attr_mask {
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS = 1 << 0,
    IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT = 1 << 1,
    /// The domain's allocations need not be bounced for confidential computing (rdma-core 65).
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC = 1 << 2,
}

/// What a parent domain's `alloc` returns to let the provider allocate itself (`(void *)-1`; C text:
/// `verbs.h.pre`).
/// cbindgen:ignore
pub const IBV_ALLOCATOR_USE_DEFAULT: *mut c_void = usize::MAX as *mut c_void;

/// Input of `ibv_alloc_parent_domain(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_parent_domain_init_attr {
    /// The protection domain; not NULL.
    pub pd: *mut ibv_pd,
    /// A thread domain, or NULL.
    pub td: *mut ibv_td,
    /// `enum ibv_parent_domain_init_attr_mask` bits.
    pub comp_mask: u32,
    /// Custom allocator for the provider's queue memory.
    pub alloc: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            pd_context: *mut c_void,
            size: usize,
            alignment: usize,
            resource_type: u64,
        ) -> *mut c_void,
    >,
    /// Frees what `alloc` returned.
    pub free:
        Option<unsafe extern "C" fn(pd: *mut ibv_pd, pd_context: *mut c_void, ptr: *mut c_void, resource_type: u64)>,
    /// Passed to `alloc` and `free`.
    pub pd_context: *mut c_void,
}

const _: () = {
    assert!(size_of::<ibv_mw_bind_info>() == 32);
    assert!(size_of::<ibv_pd>() == 16);
    assert!(size_of::<ibv_td>() == 8);
    assert!(size_of::<ibv_xrcd_init_attr>() == 12);
    assert!(size_of::<ibv_mr>() == 48 && offset_of!(ibv_mr, lkey) == 36 && offset_of!(ibv_mr, rkey) == 40);
    assert!(size_of::<ibv_mw>() == 32 && offset_of!(ibv_mw, r#type) == 24);
    assert!(size_of::<ibv_alloc_dm_attr>() == 16);
    assert!(size_of::<ibv_dm>() == 32 && offset_of!(ibv_dm, handle) == 28);
    assert!(size_of::<ibv_mw_bind>() == 48 && offset_of!(ibv_mw_bind, bind_info) == 16);
    assert!(size_of::<ibv_parent_domain_init_attr>() == 48);
    assert!(offset_of!(ibv_parent_domain_init_attr, alloc) == 24);
};
