//! rdma-core 65's memory additions (`IBVERBS_1.15`, `_1.16`, `_1.17`): DMA handles (`ibv_alloc_dmah`), the
//! extended registration `ibv_reg_mr_ex` and its attributes, provider-allocated buffers (`ibv_alloc_buf`,
//! `ibv_reg_buf_mr`, `ibv_export_buf_dmabuf_fd`, `ibv_free_buf`), device-memory dma-buf export
//! (`ibv_dm_export_dmabuf_fd`) and the port's effective speed (`ibv_query_port_speed`).
//!
//! Layouts and values as rdma-core 65's `verbs.h` (x86-64); `struct ibv_buf` is opaque there (a forward
//! declaration) and laid out in its `driver.h`, which providers build against.

use super::*;
use std::ffi::{c_int, c_void};

/// A DMA handle (`ibv_alloc_dmah`): steering hints (TPH: CPU, processing hint, memory type) for the DMA of the
/// memory regions registered with it (`IBV_REG_MR_MASK_DMAH`).
#[repr(C)]
pub struct ibv_dmah {
    pub context: *mut ibv_context,
}

/// A buffer from `ibv_alloc_buf`: opaque to applications (`verbs.h` only declares it); providers see this layout
/// (rdma-core's `driver.h`).
///
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug)]
pub struct ibv_buf {
    /// The usable memory (page aligned).
    pub addr: *mut c_void,
    /// Its size in bytes.
    pub size: usize,
    /// The protection domain it was allocated for.
    pub pd: *mut ibv_pd,
    /// The dma-buf backing it, or -1 for ordinary memory.
    pub dmabuf_fd: c_int,
}

/// Which fields of `ibv_mr_init_attr` are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_mr_init_attr_mask {
    IBV_REG_MR_MASK_IOVA = 1 << 0,
    IBV_REG_MR_MASK_ADDR = 1 << 1,
    IBV_REG_MR_MASK_FD = 1 << 2,
    IBV_REG_MR_MASK_FD_OFFSET = 1 << 3,
    IBV_REG_MR_MASK_DMAH = 1 << 4,
    IBV_REG_MR_MASK_BUF = 1 << 5,
}

/// Input of `ibv_reg_mr_ex`: an address range (`IBV_REG_MR_MASK_ADDR`) or a dma-buf range (`IBV_REG_MR_MASK_FD`
/// with `IBV_REG_MR_MASK_FD_OFFSET`), optionally its I/O virtual address, a DMA handle, or a buffer from
/// `ibv_alloc_buf` that the address range lies in.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_mr_init_attr {
    /// Bytes to register.
    pub length: usize,
    /// `enum ibv_access_flags` bits.
    pub access: c_int,
    /// `enum ibv_mr_init_attr_mask` bits: which of the fields below are set.
    pub comp_mask: u64,
    pub iova: u64,
    pub addr: *mut c_void,
    pub fd: c_int,
    pub fd_offset: u64,
    pub dmah: *mut ibv_dmah,
    /// A handle from `ibv_alloc_buf`; `addr` must be set and lie in it.
    pub buf: *mut ibv_buf,
}

/// TPH memory types of a DMA handle (`ibv_dmah_init_attr.tph_mem_type`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_tph_mem_type {
    /// Volatile memory.
    IBV_TPH_MEM_TYPE_VM,
    /// Persistent memory.
    IBV_TPH_MEM_TYPE_PM,
}

/// Which fields of `ibv_dmah_init_attr` are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_dmah_init_attr_mask {
    IBV_DMAH_INIT_ATTR_MASK_CPU_ID = 1 << 0,
    IBV_DMAH_INIT_ATTR_MASK_PH = 1 << 1,
    IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE = 1 << 2,
}

/// Input of `ibv_alloc_dmah`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_dmah_init_attr {
    /// `enum ibv_dmah_init_attr_mask` bits.
    pub comp_mask: u32,
    /// The CPU the DMA is steered to.
    pub cpu_id: u32,
    /// The TPH processing hint.
    pub ph: u8,
    /// `enum ibv_tph_mem_type`.
    pub tph_mem_type: u8,
}

extern "C" {
    /// Writes the effective speed of port `port_num` to `*port_speed`, in units of 100 Mb/s. 0, or a positive errno
    /// (`EOPNOTSUPP` where the provider cannot tell).
    pub fn ibv_query_port_speed(context: *mut ibv_context, port_num: u32, port_speed: *mut u64) -> c_int;

    /// Registers a memory region as `mr_init_attr` describes (an address range, a dma-buf range, or a range of a
    /// buffer from `ibv_alloc_buf`). NULL with errno set on failure.
    pub fn ibv_reg_mr_ex(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr;

    /// Exports device memory as a dma-buf: a new file descriptor, or -1 with errno set.
    pub fn ibv_dm_export_dmabuf_fd(dm: *mut ibv_dm) -> c_int;

    /// Allocates `size` bytes the way the provider wants its registered memory (at least page aligned); the handle
    /// for `ibv_reg_buf_mr` and `ibv_free_buf` is stored in `*buf`. The memory, or NULL with errno set.
    pub fn ibv_alloc_buf(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void;

    /// A new close-on-exec file descriptor of the dma-buf backing a buffer from `ibv_alloc_buf`, or -1 with errno
    /// set (`ENODATA` when ordinary memory backs it).
    pub fn ibv_export_buf_dmabuf_fd(buf: *mut ibv_buf) -> c_int;

    /// Frees a buffer from `ibv_alloc_buf` (its memory regions must be deregistered first).
    pub fn ibv_free_buf(buf: *mut ibv_buf);

    /// Registers `length` bytes at `addr`, which lie in the buffer `buf` from `ibv_alloc_buf`, with `access`
    /// (`enum ibv_access_flags`). NULL with errno set on failure.
    pub fn ibv_reg_buf_mr(
        pd: *mut ibv_pd,
        buf: *mut ibv_buf,
        addr: *mut c_void,
        length: usize,
        access: c_int,
    ) -> *mut ibv_mr;

    /// Allocates a DMA handle. NULL with errno set on failure (`EOPNOTSUPP` where the provider has none).
    pub fn ibv_alloc_dmah(context: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> *mut ibv_dmah;

    /// Frees a DMA handle. 0, or a positive errno.
    pub fn ibv_dealloc_dmah(dmah: *mut ibv_dmah) -> c_int;
}
