//! The provider interface of PABI 65 (rdma-core 65, Debian sid; generation
//! [`Generation::R65`](super::Generation::R65)), where it differs from PABI 34's.
//!
//! Its `verbs_qp` is rdma-core 56's ([`super::r56::verbs_qp`]). `struct verbs_context` gained six slots in front
//! (the public struct of this library is 65's; PABI 34's is [`super::verbs_context_34`]); `struct
//! verbs_context_ops` gained 17 members, inserted in alphabetical order, so most members moved; `ibv_cmd_get_context`
//! takes an fd array, `ibv_cmd_create_cq_ex(2)` a [`verbs_create_cq_prov_attr`]. Checked against
//! `tests/layout/private/rdma-core-65.tsv`.
#![allow(non_camel_case_types)]

use super::AnyOp;
use std::ffi::c_int;
use std::mem::{offset_of, size_of};

pub use super::r56::{verbs_qp, PORT_ATTR_SIZE, QP_EX_SIZE};

macro_rules! context_ops {
    ($($n:ident),* $(,)?) => {
        /// `struct verbs_context_ops` of rdma-core 65: a provider's verbs, sorted by name, NULL where it has none.
        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct verbs_context_ops {
            $(pub $n: AnyOp,)*
        }

        /// The members of rdma-core 65's `verbs_context_ops`, in order.
        pub const VERBS_CONTEXT_OPS_NAMES: &[&str] = &[$(stringify!($n)),*];
    };
}

context_ops!(
    advise_mr,
    alloc_buf,
    alloc_dm,
    alloc_dmah,
    alloc_mw,
    alloc_null_mr,
    alloc_parent_domain,
    alloc_pd,
    alloc_td,
    async_event,
    attach_counters_point_flow,
    attach_mcast,
    bind_mw,
    close_xrcd,
    cq_event,
    create_ah,
    create_comp_cntr,
    create_counters,
    create_cq,
    create_cq_ex,
    create_flow,
    create_flow_action_esp,
    create_qp,
    create_qp_ex,
    create_rwq_ind_table,
    create_srq,
    create_srq_ex,
    create_wq,
    dealloc_dmah,
    dealloc_mw,
    dealloc_pd,
    dealloc_td,
    dereg_mr,
    destroy_ah,
    destroy_comp_cntr,
    destroy_counters,
    destroy_cq,
    destroy_flow,
    destroy_flow_action,
    destroy_qp,
    destroy_rwq_ind_table,
    destroy_srq,
    destroy_wq,
    detach_mcast,
    dm_export_dmabuf_fd,
    free_buf,
    free_context,
    free_dm,
    get_srq_num,
    import_dm,
    import_mr,
    import_pd,
    inc_comp_cntr,
    inc_err_comp_cntr,
    modify_cq,
    modify_flow_action_esp,
    modify_qp,
    modify_qp_rate_limit,
    modify_srq,
    modify_wq,
    open_qp,
    open_xrcd,
    poll_cq,
    post_recv,
    post_send,
    post_srq_ops,
    post_srq_recv,
    qp_attach_comp_cntr,
    query_comp_cntr_caps,
    query_device_ex,
    query_ece,
    query_port,
    query_port_speed,
    query_qp,
    query_qp_data_in_order,
    query_rt_values,
    query_srq,
    read_comp_cntr,
    read_counters,
    read_err_comp_cntr,
    reg_dm_mr,
    reg_dmabuf_mr,
    reg_mr,
    reg_mr_ex,
    req_notify_cq,
    rereg_mr,
    resize_cq,
    set_comp_cntr,
    set_ece,
    set_err_comp_cntr,
    unimport_dm,
    unimport_mr,
    unimport_pd,
);

/// The buffer of `struct verbs_create_cq_prov_attr`: where the provider allocated the CQ's ring.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_create_cq_prov_attr_buffer {
    pub length: u64,
    /// `ptr` (`CREATE_CQ_CMD_FLAGS_WITH_MEM_VA`) or `dmabuf.offset` (`..._WITH_MEM_DMABUF`).
    pub ptr_or_offset: u64,
    /// `dmabuf.fd` (`..._WITH_MEM_DMABUF`).
    pub dmabuf_fd: c_int,
}

/// `struct verbs_create_cq_prov_attr` (rdma-core 59): a CQ ring the provider allocated itself, passed to
/// `ibv_cmd_create_cq_ex(2)` with `CREATE_CQ_CMD_FLAGS_WITH_MEM_VA` or `_WITH_MEM_DMABUF`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_create_cq_prov_attr {
    pub buffer: verbs_create_cq_prov_attr_buffer,
}

/// `CREATE_CQ_CMD_FLAGS_WITH_MEM_VA`: the CQ ring is `prov_attr->buffer.ptr`, `length` bytes.
pub const CREATE_CQ_CMD_FLAGS_WITH_MEM_VA: u32 = 1 << 1;
/// `CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF`: the CQ ring is `length` bytes at `offset` of the dma-buf `fd`.
pub const CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF: u32 = 1 << 2;

/// `struct ibv_fd_arr` (verbs.h, rdma-core 57): file descriptors `ibv_cmd_get_context` passes to the kernel (mlx5's
/// UCAP fds).
#[repr(C)]
pub struct ibv_fd_arr {
    pub arr: *mut c_int,
    pub count: u32,
}

/// `struct verbs_dmah` (rdma-core 59): a DMA handle as the provider allocates it: the public `ibv_dmah` (its
/// `context`), then the kernel's handle.
#[repr(C)]
pub struct verbs_dmah {
    /// `struct ibv_dmah`: `{ struct ibv_context *context; }`.
    pub dmah: *mut crate::abi::verbs::ibv_context,
    pub handle: u32,
}

/// `struct ibv_buf` (driver.h, rdma-core 64): a provider-aware buffer, allocated by the provider's `alloc_buf`.
#[repr(C)]
pub struct ibv_buf {
    pub addr: *mut std::ffi::c_void,
    pub size: usize,
    pub pd: *mut crate::abi::verbs::ibv_pd,
    /// The dma-buf fd backing it, or -1.
    pub dmabuf_fd: c_int,
}

const _: () = {
    assert!(size_of::<verbs_context_ops>() == 93 * 8);
    assert!(size_of::<verbs_create_cq_prov_attr>() == 24);
    assert!(offset_of!(verbs_create_cq_prov_attr_buffer, dmabuf_fd) == 16);
    assert!(size_of::<ibv_fd_arr>() == 16);
    assert!(size_of::<verbs_dmah>() == 16);
    assert!(size_of::<ibv_buf>() == 32);
};
