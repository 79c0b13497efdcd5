//! rdma-core 65's completion counters (`IBVERBS_1.18`): a device object holding two 64-bit counts, completions
//! and errors, which the device advances for the operations of the QPs it is attached to, and which software can
//! set, increment and read.
//!
//! Layouts and values as rdma-core 65's `verbs.h` (x86-64). The static inline `ibv_query_comp_cntr_caps` is
//! hand-written in `cbindgen/infiniband/verbs.h.post`.

use super::*;
use std::ffi::c_int;

/// The operations that advance a counter attached to a QP (`ibv_qp_attach_comp_cntr_attr.op_mask`,
/// `ibv_comp_cntr_caps.supported_qp_attach_ops`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_attach_comp_cntr_op {
    IBV_QP_ATTACH_COMP_CNTR_OP_SEND = 1 << 0,
    IBV_QP_ATTACH_COMP_CNTR_OP_RECV = 1 << 1,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 1 << 2,
    IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 1 << 3,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 1 << 4,
    IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
}

/// What a device offers (`ibv_query_comp_cntr_caps`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ibv_comp_cntr_caps {
    /// The largest value a count holds.
    pub max_value: u64,
    /// How many counters the device has.
    pub max_counters: u32,
    /// `enum ibv_qp_attach_comp_cntr_op` bits.
    pub supported_qp_attach_ops: u32,
}

/// A completion counter (`ibv_create_comp_cntr`).
#[repr(C)]
pub struct ibv_comp_cntr {
    pub context: *mut ibv_context,
    /// The kernel's handle.
    pub handle: u32,
}

/// What a counter counts.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_comp_cntr_type {
    /// Work requests.
    IBV_COMP_CNTR_TYPE_WRS,
    /// Bytes.
    IBV_COMP_CNTR_TYPE_BYTES,
}

/// Input of `ibv_create_comp_cntr`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_comp_cntr_init_attr {
    /// Compatibility mask.
    pub comp_mask: u32,
    pub r#type: ibv_comp_cntr_type,
    pub flags: u32,
}

/// Input of `ibv_qp_attach_comp_cntr`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_qp_attach_comp_cntr_attr {
    /// Compatibility mask.
    pub comp_mask: u32,
    /// `enum ibv_qp_attach_comp_cntr_op` bits.
    pub op_mask: u32,
}

extern "C" {
    /// What `ibv_query_comp_cntr_caps` calls: zeroes `caps_size` bytes at `caps`, then asks the provider. 0, or a
    /// positive errno (`EOPNOTSUPP` where the provider has no counters).
    pub fn _ibv_query_comp_cntr_caps(
        context: *mut ibv_context,
        caps: *mut ibv_comp_cntr_caps,
        caps_size: usize,
    ) -> c_int;

    /// Creates a completion counter. NULL with errno set on failure (`EOPNOTSUPP` where the provider has none).
    pub fn ibv_create_comp_cntr(context: *mut ibv_context, cc_attr: *mut ibv_comp_cntr_init_attr)
        -> *mut ibv_comp_cntr;

    /// Destroys a completion counter. 0, or a positive errno.
    pub fn ibv_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int;

    /// Sets the completion count. 0, or a positive errno.
    pub fn ibv_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int;

    /// Sets the error count. 0, or a positive errno.
    pub fn ibv_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int;

    /// Adds `amount` to the completion count. 0, or a positive errno.
    pub fn ibv_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int;

    /// Adds `amount` to the error count. 0, or a positive errno.
    pub fn ibv_inc_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int;

    /// Reads the completion count into `*value`. 0, or a positive errno.
    pub fn ibv_read_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int;

    /// Reads the error count into `*value`. 0, or a positive errno.
    pub fn ibv_read_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int;

    /// Attaches a completion counter to a QP for the operations of `attr.op_mask`. 0, or a positive errno.
    pub fn ibv_qp_attach_comp_cntr(
        qp: *mut ibv_qp,
        comp_cntr: *mut ibv_comp_cntr,
        attr: *mut ibv_qp_attach_comp_cntr_attr,
    ) -> c_int;
}

#[cfg(test)]
mod tests {
    //! Sizes, alignments, offsets and values of rdma-core 65's `verbs.h`, for the types of this file and of
    //! `mr_ex.rs` (measured with gcc on x86-64 from Debian sid's `libibverbs-dev` 65.0 headers; `ibv_buf`, which no
    //! installed header lays out, from the four fields of rdma-core 65's `driver.h`).
    use super::super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn rdma_core_65_layouts() {
        assert_eq!((size_of::<ibv_dmah>(), align_of::<ibv_dmah>()), (8, 8));
        assert_eq!((size_of::<ibv_buf>(), align_of::<ibv_buf>()), (32, 8));
        assert_eq!(
            [
                offset_of!(ibv_buf, addr),
                offset_of!(ibv_buf, size),
                offset_of!(ibv_buf, pd),
                offset_of!(ibv_buf, dmabuf_fd)
            ],
            [0, 8, 16, 24]
        );
        assert_eq!((size_of::<ibv_mr_init_attr>(), align_of::<ibv_mr_init_attr>()), (72, 8));
        assert_eq!(
            [
                offset_of!(ibv_mr_init_attr, length),
                offset_of!(ibv_mr_init_attr, access),
                offset_of!(ibv_mr_init_attr, comp_mask),
                offset_of!(ibv_mr_init_attr, iova),
                offset_of!(ibv_mr_init_attr, addr),
                offset_of!(ibv_mr_init_attr, fd),
                offset_of!(ibv_mr_init_attr, fd_offset),
                offset_of!(ibv_mr_init_attr, dmah),
                offset_of!(ibv_mr_init_attr, buf),
            ],
            [0, 8, 16, 24, 32, 40, 48, 56, 64]
        );
        assert_eq!((size_of::<ibv_dmah_init_attr>(), align_of::<ibv_dmah_init_attr>()), (12, 4));
        assert_eq!(
            [
                offset_of!(ibv_dmah_init_attr, comp_mask),
                offset_of!(ibv_dmah_init_attr, cpu_id),
                offset_of!(ibv_dmah_init_attr, ph),
                offset_of!(ibv_dmah_init_attr, tph_mem_type),
            ],
            [0, 4, 8, 9]
        );
        assert_eq!((size_of::<ibv_comp_cntr_caps>(), align_of::<ibv_comp_cntr_caps>()), (16, 8));
        assert_eq!(
            [
                offset_of!(ibv_comp_cntr_caps, max_value),
                offset_of!(ibv_comp_cntr_caps, max_counters),
                offset_of!(ibv_comp_cntr_caps, supported_qp_attach_ops),
            ],
            [0, 8, 12]
        );
        assert_eq!((size_of::<ibv_comp_cntr>(), align_of::<ibv_comp_cntr>()), (16, 8));
        assert_eq!([offset_of!(ibv_comp_cntr, context), offset_of!(ibv_comp_cntr, handle)], [0, 8]);
        assert_eq!((size_of::<ibv_comp_cntr_init_attr>(), align_of::<ibv_comp_cntr_init_attr>()), (12, 4));
        assert_eq!(
            [
                offset_of!(ibv_comp_cntr_init_attr, comp_mask),
                offset_of!(ibv_comp_cntr_init_attr, r#type),
                offset_of!(ibv_comp_cntr_init_attr, flags),
            ],
            [0, 4, 8]
        );
        assert_eq!((size_of::<ibv_qp_attach_comp_cntr_attr>(), align_of::<ibv_qp_attach_comp_cntr_attr>()), (8, 4));
        assert_eq!(
            [offset_of!(ibv_qp_attach_comp_cntr_attr, comp_mask), offset_of!(ibv_qp_attach_comp_cntr_attr, op_mask)],
            [0, 4]
        );
    }

    #[test]
    fn rdma_core_65_values() {
        use crate::abi::enums::*;
        assert_eq!(
            [
                IBV_REG_MR_MASK_IOVA,
                IBV_REG_MR_MASK_ADDR,
                IBV_REG_MR_MASK_FD,
                IBV_REG_MR_MASK_FD_OFFSET,
                IBV_REG_MR_MASK_DMAH,
                IBV_REG_MR_MASK_BUF
            ],
            [1, 2, 4, 8, 16, 32]
        );
        assert_eq!([IBV_TPH_MEM_TYPE_VM, IBV_TPH_MEM_TYPE_PM], [0, 1]);
        assert_eq!(
            [IBV_DMAH_INIT_ATTR_MASK_CPU_ID, IBV_DMAH_INIT_ATTR_MASK_PH, IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE],
            [1, 2, 4]
        );
        assert_eq!(
            [
                IBV_QP_ATTACH_COMP_CNTR_OP_SEND,
                IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
                IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ,
                IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
                IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
                IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE
            ],
            [1, 2, 4, 8, 16, 32]
        );
        assert_eq!([IBV_COMP_CNTR_TYPE_WRS, IBV_COMP_CNTR_TYPE_BYTES], [0, 1]);
    }
}
