//! The `ibv_cmd_*` half of `IBVERBS_PRIVATE_34`: the generic uverbs commands rdma-core's provider plug-ins
//! call with their driver data, the ioctl command buffer (`execute_ioctl`, `__ioctl_final_num_attrs`) and
//! `verbs_init_cq`. Prototypes: rdma-core v44.0 `libibverbs/driver.h`, `libibverbs/cmd_ioctl.h`.
//!
//! (Being implemented: the remaining stubs answer EOPNOTSUPP.)
#![allow(unsafe_code, unused_variables, clippy::missing_safety_doc)]

use crate::verbs::unsupported;
#[allow(unused_imports)]
use rdma_common::Errno;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr;

type verbs_context = c_void;
type verbs_xrcd = c_void;
type verbs_srq = c_void;
type verbs_qp = c_void;
type verbs_cq = c_void;
type verbs_mr = c_void;
type verbs_dm = c_void;
type verbs_counters = c_void;
type verbs_flow_action = c_void;
type ibv_context = c_void;
type ibv_comp_channel = c_void;
type ibv_pd = c_void;
type ibv_mw = c_void;
type ibv_cq = c_void;
type ibv_srq = c_void;
type ibv_qp = c_void;
type ibv_ah = c_void;
type ibv_wq = c_void;
type ibv_flow = c_void;
type ibv_rwq_ind_table = c_void;
type ibv_gid = c_void;
type ibv_sge = c_void;
type ibv_wc = c_void;
type ibv_send_wr = c_void;
type ibv_recv_wr = c_void;
type ibv_qp_attr = c_void;
type ibv_qp_init_attr = c_void;
type ibv_qp_init_attr_ex = c_void;
type ibv_qp_open_attr = c_void;
type ibv_srq_attr = c_void;
type ibv_srq_init_attr = c_void;
type ibv_srq_init_attr_ex = c_void;
type ibv_ah_attr = c_void;
type ibv_port_attr = c_void;
type ibv_device_attr_ex = c_void;
type ibv_query_device_ex_input = c_void;
type ibv_cq_init_attr_ex = c_void;
type ibv_modify_cq_attr = c_void;
type ibv_wq_init_attr = c_void;
type ibv_wq_attr = c_void;
type ibv_rwq_ind_table_init_attr = c_void;
type ibv_flow_attr = c_void;
type ibv_flow_action_esp_attr = c_void;
type ibv_counters_init_attr = c_void;
type ibv_alloc_dm_attr = c_void;
type ibv_xrcd_init_attr = c_void;
// The legacy write() command structs of kern-abi.h (`struct ibv_<cmd>`) and the kernel's response structs.
type ibv_get_context = c_void;
type ibv_query_port = c_void;
type ibv_alloc_pd = c_void;
type ibv_open_xrcd = c_void;
type ibv_reg_mr = c_void;
type ibv_rereg_mr = c_void;
type ibv_alloc_mw = c_void;
type ibv_create_cq = c_void;
type ibv_create_cq_ex = c_void;
type ibv_resize_cq = c_void;
type ibv_modify_cq = c_void;
type ibv_create_srq = c_void;
type ibv_create_xsrq = c_void;
type ibv_modify_srq = c_void;
type ibv_query_srq = c_void;
type ibv_create_qp = c_void;
type ibv_create_qp_ex = c_void;
type ibv_open_qp = c_void;
type ibv_query_qp = c_void;
type ibv_modify_qp = c_void;
type ibv_modify_qp_ex = c_void;
type ibv_create_wq = c_void;
type ibv_modify_wq = c_void;
type ib_uverbs_get_context_resp = c_void;
type ib_uverbs_ex_query_device_resp = c_void;
type ib_uverbs_alloc_pd_resp = c_void;
type ib_uverbs_open_xrcd_resp = c_void;
type ib_uverbs_reg_mr_resp = c_void;
type ib_uverbs_rereg_mr_resp = c_void;
type ib_uverbs_alloc_mw_resp = c_void;
type ib_uverbs_create_cq_resp = c_void;
type ib_uverbs_ex_create_cq_resp = c_void;
type ib_uverbs_resize_cq_resp = c_void;
type ib_uverbs_create_srq_resp = c_void;
type ib_uverbs_create_qp_resp = c_void;
type ib_uverbs_ex_create_qp_resp = c_void;
type ib_uverbs_ex_modify_qp_resp = c_void;
type ib_uverbs_create_ah_resp = c_void;
type ib_uverbs_ex_create_wq_resp = c_void;
type ib_uverbs_ex_create_rwq_ind_table_resp = c_void;

/// `EOPNOTSUPP` as a positive errno, logged once for `what`.
#[cold]
fn refuse(what: &'static str) -> c_int {
    unsupported(what).0
}

/// NULL with `errno = EOPNOTSUPP`, logged once for `what`.
#[cold]
#[allow(dead_code)]
fn refuse_null<T>(what: &'static str) -> *mut T {
    let e = unsupported(what);
    e.set();
    ptr::null_mut()
}

/// `-1` with `errno = EOPNOTSUPP`, logged once for `what`.
#[cold]
fn refuse_minus_one(what: &'static str) -> c_int {
    let e = unsupported(what);
    e.set();
    -1
}

/// `void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context, struct ibv_comp_channel *channel,
/// void *cq_context)`.
///
/// rdma-core: initialises the core fields of a provider-allocated CQ (context, channel reference, event counters,
/// mutex and condition variable). Here: does nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_init_cq(
    cq: *mut ibv_cq,
    context: *mut ibv_context,
    channel: *mut ibv_comp_channel,
    cq_context: *mut c_void,
) {
    unsupported("verbs_init_cq (rdma-core provider interface)");
}

// ---------------------------------------------------------------------------------------------------------------
// The ioctl command buffer
// ---------------------------------------------------------------------------------------------------------------

/// `struct ib_uverbs_attr` (rdma/rdma_user_ioctl_cmds.h): one ioctl attribute, 16 bytes. Only its size matters here.
#[repr(C)]
pub struct ib_uverbs_attr {
    attr_id: u16,
    len: u16,
    flags: u16,
    attr_data: u16,
    data: u64,
}

/// `struct ib_uverbs_ioctl_hdr` (rdma/rdma_user_ioctl_cmds.h), followed by its flexible `attrs[]` array.
#[repr(C)]
pub struct ib_uverbs_ioctl_hdr {
    length: u16,
    object_id: u16,
    method_id: u16,
    num_attrs: u16,
    reserved1: u64,
    driver_id: u32,
    reserved2: u32,
    attrs: [ib_uverbs_attr; 0],
}

/// The prefix of libibverbs' `struct ibv_command_buffer` (cmd_ioctl.h) that `__ioctl_final_num_attrs` reads: a
/// linked list of attribute blocks; `next_attr` is the first unfilled slot of this block's `hdr.attrs`. Public only
/// because it appears in exported prototypes; its fields stay private.
#[repr(C)]
pub struct ibv_command_buffer {
    next: *mut ibv_command_buffer,
    next_attr: *mut ib_uverbs_attr,
    last_attr: *mut ib_uverbs_attr,
    uhw_in_idx: u8,
    uhw_out_idx: u8,
    uhw_in_headroom_dwords: u8,
    uhw_out_headroom_dwords: u8,
    /// `buffer_error:1, fallback_require_ex:1, fallback_ioctl_only:1`.
    flags: u8,
    hdr: ib_uverbs_ioctl_hdr,
}
const _: () = {
    assert!(std::mem::size_of::<ib_uverbs_attr>() == 16);
    assert!(std::mem::size_of::<ib_uverbs_ioctl_hdr>() == 24);
    assert!(std::mem::offset_of!(ibv_command_buffer, hdr) == 32);
    assert!(std::mem::size_of::<ibv_command_buffer>() == 56);
};

/// `unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link)`.
///
/// rdma-core: sizes the stack buffer of the command that will be executed: `num_attrs` plus the attributes already
/// filled in every block of the `link` chain. Implemented as rdma-core does (it only reads the caller's buffers);
/// a caller still cannot get anywhere, since [`execute_ioctl`] refuses.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __ioctl_final_num_attrs(num_attrs: c_uint, link: *mut ibv_command_buffer) -> c_uint {
    let mut n = num_attrs;
    let mut link = link;
    while !link.is_null() {
        // SAFETY: the caller passes a chain of initialised command buffers; next_attr points into (or one past) the
        // block's own hdr.attrs array.
        unsafe {
            let attrs = ptr::addr_of_mut!((*link).hdr.attrs).cast::<ib_uverbs_attr>();
            n = n.wrapping_add((*link).next_attr.offset_from(attrs) as c_uint);
            link = (*link).next;
        }
    }
    n
}

/// `int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)`.
///
/// rdma-core: issues `RDMA_VERBS_IOCTL` on the context's command fd with the linearised attribute chain; returns 0
/// or a positive errno. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execute_ioctl(context: *mut ibv_context, cmd: *mut ibv_command_buffer) -> c_int {
    refuse("execute_ioctl (rdma-core provider interface)")
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_cmd_*: the kernel-command marshallers. rdma-core: each builds one uverbs command (the provider appends its
// driver-specific part through `cmd`/`resp` or a `link`ed command buffer), runs it, and fills the core object.
// Here: 0 is never returned; each answers EOPNOTSUPP as a positive errno unless noted.
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_cmd_get_context(struct verbs_context *context, struct ibv_get_context *cmd, size_t cmd_size,
/// struct ib_uverbs_get_context_resp *resp, size_t resp_size)`: rdma-core's GET_CONTEXT. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_get_context(
    context: *mut verbs_context,
    cmd: *mut ibv_get_context,
    cmd_size: usize,
    resp: *mut ib_uverbs_get_context_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_get_context (rdma-core provider interface)")
}

/// `int ibv_cmd_query_context(struct ibv_context *ctx, struct ibv_command_buffer *driver)`: rdma-core's
/// QUERY_CONTEXT ioctl. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_context(ctx: *mut ibv_context, driver: *mut ibv_command_buffer) -> c_int {
    refuse("ibv_cmd_query_context (rdma-core provider interface)")
}

/// `int ibv_cmd_query_device_any(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
/// struct ibv_device_attr_ex *attr, size_t attr_size, struct ib_uverbs_ex_query_device_resp *resp,
/// size_t *resp_size)`: rdma-core's QUERY_DEVICE (ioctl, extended or legacy). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_device_any(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut ib_uverbs_ex_query_device_resp,
    resp_size: *mut usize,
) -> c_int {
    refuse("ibv_cmd_query_device_any (rdma-core provider interface)")
}

/// `int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr,
/// struct ibv_query_port *cmd, size_t cmd_size)`: rdma-core's QUERY_PORT. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    cmd: *mut ibv_query_port,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_query_port (rdma-core provider interface)")
}

/// `int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
/// size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)`: ALLOC_PD. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_pd(
    context: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut ibv_alloc_pd,
    cmd_size: usize,
    resp: *mut ib_uverbs_alloc_pd_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_alloc_pd (rdma-core provider interface)")
}

/// `int ibv_cmd_dealloc_pd(struct ibv_pd *pd)`: DEALLOC_PD. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    refuse("ibv_cmd_dealloc_pd (rdma-core provider interface)")
}

/// `int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size,
/// struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd, size_t cmd_size,
/// struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)`: OPEN_XRCD. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_open_xrcd(
    context: *mut ibv_context,
    xrcd: *mut verbs_xrcd,
    vxrcd_size: c_int,
    attr: *mut ibv_xrcd_init_attr,
    cmd: *mut ibv_open_xrcd,
    cmd_size: usize,
    resp: *mut ib_uverbs_open_xrcd_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_open_xrcd (rdma-core provider interface)")
}

/// `int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)`: CLOSE_XRCD. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_close_xrcd(xrcd: *mut verbs_xrcd) -> c_int {
    refuse("ibv_cmd_close_xrcd (rdma-core provider interface)")
}

/// `int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
/// struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size, struct ib_uverbs_reg_mr_resp *resp,
/// size_t resp_size)`: REG_MR. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut ibv_reg_mr,
    cmd_size: usize,
    resp: *mut ib_uverbs_reg_mr_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_reg_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length, uint64_t hca_va,
/// int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
/// size_t resp_sz)`: REREG_MR. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_rereg_mr(
    vmr: *mut verbs_mr,
    flags: u32,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    pd: *mut ibv_pd,
    cmd: *mut ibv_rereg_mr,
    cmd_sz: usize,
    resp: *mut ib_uverbs_rereg_mr_resp,
    resp_sz: usize,
) -> c_int {
    refuse("ibv_cmd_rereg_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_dereg_mr(struct verbs_mr *vmr)`: DEREG_MR. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dereg_mr(vmr: *mut verbs_mr) -> c_int {
    refuse("ibv_cmd_dereg_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle)`: QUERY_MR (ioctl), used by
/// providers' `import_mr`. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_mr(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32) -> c_int {
    refuse("ibv_cmd_query_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
/// struct ibv_sge *sg_list, uint32_t num_sge)`: ADVISE_MR (ioctl). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_advise_mr(
    pd: *mut ibv_pd,
    advice: u32,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int {
    refuse("ibv_cmd_advise_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
/// int access, struct verbs_mr *vmr)`: REG_DMABUF_MR (ioctl). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
    vmr: *mut verbs_mr,
) -> c_int {
    refuse("ibv_cmd_reg_dmabuf_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
/// size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)`: ALLOC_MW. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_mw(
    pd: *mut ibv_pd,
    r#type: u32,
    mw: *mut ibv_mw,
    cmd: *mut ibv_alloc_mw,
    cmd_size: usize,
    resp: *mut ib_uverbs_alloc_mw_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_alloc_mw (rdma-core provider interface)")
}

/// `int ibv_cmd_dealloc_mw(struct ibv_mw *mw)`: DEALLOC_MW. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dealloc_mw(mw: *mut ibv_mw) -> c_int {
    refuse("ibv_cmd_dealloc_mw (rdma-core provider interface)")
}

/// `int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr, struct verbs_dm *dm,
/// struct ibv_command_buffer *link)`: ALLOC_DM (ioctl). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_dm(
    ctx: *mut ibv_context,
    dm_attr: *const ibv_alloc_dm_attr,
    dm: *mut verbs_dm,
    link: *mut ibv_command_buffer,
) -> c_int {
    refuse("ibv_cmd_alloc_dm (rdma-core provider interface)")
}

/// `int ibv_cmd_free_dm(struct verbs_dm *dm)`: FREE_DM (ioctl). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_free_dm(dm: *mut verbs_dm) -> c_int {
    refuse("ibv_cmd_free_dm (rdma-core provider interface)")
}

/// `int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length,
/// unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link)`: DM_MR_REG (ioctl). Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_dm_mr(
    pd: *mut ibv_pd,
    dm: *mut verbs_dm,
    offset: u64,
    length: usize,
    access: c_uint,
    vmr: *mut verbs_mr,
    link: *mut ibv_command_buffer,
) -> c_int {
    refuse("ibv_cmd_reg_dm_mr (rdma-core provider interface)")
}

/// `int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
/// int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd, size_t cmd_size,
/// struct ib_uverbs_create_cq_resp *resp, size_t resp_size)`: CREATE_CQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
    cq: *mut ibv_cq,
    cmd: *mut ibv_create_cq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_cq_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_cq (rdma-core provider interface)")
}

/// `int ibv_cmd_create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
/// struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp,
/// size_t resp_size, uint32_t cmd_flags)`: EX_CREATE_CQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq_ex(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut ibv_create_cq_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_cq_resp,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int {
    refuse("ibv_cmd_create_cq_ex (rdma-core provider interface)")
}

/// `int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)`: POLL_CQ through the kernel (software
/// providers). rdma-core returns the number of completions, or `-1` on failure. Here: `-1` with
/// `errno = EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    refuse_minus_one("ibv_cmd_poll_cq (rdma-core provider interface)")
}

/// `int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)`: REQ_NOTIFY_CQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    refuse("ibv_cmd_req_notify_cq (rdma-core provider interface)")
}

/// `int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
/// struct ib_uverbs_resize_cq_resp *resp, size_t resp_size)`: RESIZE_CQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_resize_cq(
    cq: *mut ibv_cq,
    cqe: c_int,
    cmd: *mut ibv_resize_cq,
    cmd_size: usize,
    resp: *mut ib_uverbs_resize_cq_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_resize_cq (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_cq(struct ibv_cq *cq)`: DESTROY_CQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_cq(cq: *mut ibv_cq) -> c_int {
    refuse("ibv_cmd_destroy_cq (rdma-core provider interface)")
}

/// `int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr, struct ibv_modify_cq *cmd,
/// size_t cmd_size)`: EX_MODIFY_CQ (moderation). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_cq(
    cq: *mut ibv_cq,
    attr: *mut ibv_modify_cq_attr,
    cmd: *mut ibv_modify_cq,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_modify_cq (rdma-core provider interface)")
}

/// `int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
/// struct ibv_create_srq *cmd, size_t cmd_size, struct ib_uverbs_create_srq_resp *resp, size_t resp_size)`:
/// CREATE_SRQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_srq(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut ibv_create_srq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_srq_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_srq (rdma-core provider interface)")
}

/// `int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
/// struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd, size_t cmd_size,
/// struct ib_uverbs_create_srq_resp *resp, size_t resp_size)`: CREATE_XSRQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_srq_ex(
    context: *mut ibv_context,
    srq: *mut verbs_srq,
    attr_ex: *mut ibv_srq_init_attr_ex,
    cmd: *mut ibv_create_xsrq,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_srq_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_srq_ex (rdma-core provider interface)")
}

/// `int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
/// struct ibv_modify_srq *cmd, size_t cmd_size)`: MODIFY_SRQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
    cmd: *mut ibv_modify_srq,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_modify_srq (rdma-core provider interface)")
}

/// `int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, struct ibv_query_srq *cmd,
/// size_t cmd_size)`: QUERY_SRQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    cmd: *mut ibv_query_srq,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_query_srq (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_srq(struct ibv_srq *srq)`: DESTROY_SRQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_srq(srq: *mut ibv_srq) -> c_int {
    refuse("ibv_cmd_destroy_srq (rdma-core provider interface)")
}

/// `int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
/// struct ibv_create_qp *cmd, size_t cmd_size, struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`:
/// CREATE_QP. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp(
    pd: *mut ibv_pd,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr,
    cmd: *mut ibv_create_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_qp (rdma-core provider interface)")
}

/// `int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
/// struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd, size_t cmd_size,
/// struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`: CREATE_QP with extended attributes (legacy
/// command). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_qp_ex (rdma-core provider interface)")
}

/// `int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
/// struct ibv_qp_init_attr_ex *qp_attr, struct ibv_create_qp_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size)`: EX_CREATE_QP. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex2(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut ibv_create_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_qp_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_qp_ex2 (rdma-core provider interface)")
}

/// `int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
/// struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
/// struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`: OPEN_QP (XRC). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_open_qp(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    vqp_sz: c_int,
    attr: *mut ibv_qp_open_attr,
    cmd: *mut ibv_open_qp,
    cmd_size: usize,
    resp: *mut ib_uverbs_create_qp_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_open_qp (rdma-core provider interface)")
}

/// `int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask,
/// struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd, size_t cmd_size)`: QUERY_QP. Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_qp(
    qp: *mut ibv_qp,
    qp_attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    qp_init_attr: *mut ibv_qp_init_attr,
    cmd: *mut ibv_query_qp,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_query_qp (rdma-core provider interface)")
}

/// `int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_modify_qp *cmd, size_t cmd_size)`: MODIFY_QP. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut ibv_modify_qp,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_modify_qp (rdma-core provider interface)")
}

/// `int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_modify_qp_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_modify_qp_resp *resp, size_t resp_size)`:
/// EX_MODIFY_QP. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_qp_ex(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut ibv_modify_qp_ex,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_modify_qp_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_modify_qp_ex (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_qp(struct ibv_qp *qp)`: DESTROY_QP. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_qp(qp: *mut ibv_qp) -> c_int {
    refuse("ibv_cmd_destroy_qp (rdma-core provider interface)")
}

/// `int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)`: POST_SEND
/// through the kernel (software providers). Here: `EOPNOTSUPP`, with `*bad_wr = wr` as any failed post reports.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_send(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    if !bad_wr.is_null() {
        // SAFETY: a non-NULL bad_wr points to the caller's out-pointer.
        unsafe { *bad_wr = wr };
    }
    refuse("ibv_cmd_post_send (rdma-core provider interface)")
}

/// `int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)`: POST_RECV
/// through the kernel. Here: `EOPNOTSUPP`, with `*bad_wr = wr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_recv(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if !bad_wr.is_null() {
        // SAFETY: a non-NULL bad_wr points to the caller's out-pointer.
        unsafe { *bad_wr = wr };
    }
    refuse("ibv_cmd_post_recv (rdma-core provider interface)")
}

/// `int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)`:
/// POST_SRQ_RECV through the kernel. Here: `EOPNOTSUPP`, with `*bad_wr = wr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if !bad_wr.is_null() {
        // SAFETY: a non-NULL bad_wr points to the caller's out-pointer.
        unsafe { *bad_wr = wr };
    }
    refuse("ibv_cmd_post_srq_recv (rdma-core provider interface)")
}

/// `int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
/// struct ib_uverbs_create_ah_resp *resp, size_t resp_size)`: CREATE_AH. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_ah(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut ib_uverbs_create_ah_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_ah (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_ah(struct ibv_ah *ah)`: DESTROY_AH. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_ah(ah: *mut ibv_ah) -> c_int {
    refuse("ibv_cmd_destroy_ah (rdma-core provider interface)")
}

/// `int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)`: ATTACH_MCAST. Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    refuse("ibv_cmd_attach_mcast (rdma-core provider interface)")
}

/// `int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)`: DETACH_MCAST. Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    refuse("ibv_cmd_detach_mcast (rdma-core provider interface)")
}

/// `int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id, struct ibv_flow_attr *flow_attr,
/// void *ucmd, size_t ucmd_size)`: EX_CREATE_FLOW. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_flow(
    qp: *mut ibv_qp,
    flow_id: *mut ibv_flow,
    flow_attr: *mut ibv_flow_attr,
    ucmd: *mut c_void,
    ucmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_flow (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)`: EX_DESTROY_FLOW. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_flow(flow_id: *mut ibv_flow) -> c_int {
    refuse("ibv_cmd_destroy_flow (rdma-core provider interface)")
}

/// `int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
/// struct verbs_flow_action *flow_action, struct ibv_command_buffer *driver)`: FLOW_ACTION_ESP_CREATE (ioctl).
/// Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_flow_action_esp(
    ctx: *mut ibv_context,
    attr: *mut ibv_flow_action_esp_attr,
    flow_action: *mut verbs_flow_action,
    driver: *mut ibv_command_buffer,
) -> c_int {
    refuse("ibv_cmd_create_flow_action_esp (rdma-core provider interface)")
}

/// `int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
/// struct ibv_flow_action_esp_attr *attr, struct ibv_command_buffer *driver)`: FLOW_ACTION_ESP_MODIFY (ioctl).
/// Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_flow_action_esp(
    flow_action: *mut verbs_flow_action,
    attr: *mut ibv_flow_action_esp_attr,
    driver: *mut ibv_command_buffer,
) -> c_int {
    refuse("ibv_cmd_modify_flow_action_esp (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)`: FLOW_ACTION_DESTROY (ioctl). Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_flow_action(action: *mut verbs_flow_action) -> c_int {
    refuse("ibv_cmd_destroy_flow_action (rdma-core provider interface)")
}

/// `int ibv_cmd_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
/// struct ibv_create_wq *cmd, size_t cmd_size, struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size)`:
/// EX_CREATE_WQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_wq(
    context: *mut ibv_context,
    wq_init_attr: *mut ibv_wq_init_attr,
    wq: *mut ibv_wq,
    cmd: *mut ibv_create_wq,
    cmd_size: usize,
    resp: *mut ib_uverbs_ex_create_wq_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_wq (rdma-core provider interface)")
}

/// `int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd,
/// size_t cmd_size)`: EX_MODIFY_WQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_wq(
    wq: *mut ibv_wq,
    attr: *mut ibv_wq_attr,
    cmd: *mut ibv_modify_wq,
    cmd_size: usize,
) -> c_int {
    refuse("ibv_cmd_modify_wq (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_wq(struct ibv_wq *wq)`: EX_DESTROY_WQ. Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_wq(wq: *mut ibv_wq) -> c_int {
    refuse("ibv_cmd_destroy_wq (rdma-core provider interface)")
}

/// `int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
/// struct ibv_rwq_ind_table_init_attr *init_attr, struct ibv_rwq_ind_table *rwq_ind_table,
/// struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size)`: EX_CREATE_RWQ_IND_TBL. Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_rwq_ind_table(
    context: *mut ibv_context,
    init_attr: *mut ibv_rwq_ind_table_init_attr,
    rwq_ind_table: *mut ibv_rwq_ind_table,
    resp: *mut ib_uverbs_ex_create_rwq_ind_table_resp,
    resp_size: usize,
) -> c_int {
    refuse("ibv_cmd_create_rwq_ind_table (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)`: EX_DESTROY_RWQ_IND_TBL. Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_rwq_ind_table(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int {
    refuse("ibv_cmd_destroy_rwq_ind_table (rdma-core provider interface)")
}

/// `int ibv_cmd_create_counters(struct ibv_context *context, struct ibv_counters_init_attr *init_attr,
/// struct verbs_counters *vcounters, struct ibv_command_buffer *link)`: COUNTERS_CREATE (ioctl). Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_counters(
    context: *mut ibv_context,
    init_attr: *mut ibv_counters_init_attr,
    vcounters: *mut verbs_counters,
    link: *mut ibv_command_buffer,
) -> c_int {
    refuse("ibv_cmd_create_counters (rdma-core provider interface)")
}

/// `int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)`: COUNTERS_DESTROY (ioctl). Here:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_counters(vcounters: *mut verbs_counters) -> c_int {
    refuse("ibv_cmd_destroy_counters (rdma-core provider interface)")
}

/// `int ibv_cmd_read_counters(struct verbs_counters *vcounters, uint64_t *counters_value, uint32_t ncounters,
/// uint32_t flags, struct ibv_command_buffer *link)`: COUNTERS_READ (ioctl). Here: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_read_counters(
    vcounters: *mut verbs_counters,
    counters_value: *mut u64,
    ncounters: u32,
    flags: u32,
    link: *mut ibv_command_buffer,
) -> c_int {
    refuse("ibv_cmd_read_counters (rdma-core provider interface)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::{__verbs_log, ibv_query_gid_type, ibv_read_ibdev_sysfs_file, verbs_open_device, verbs_register_driver_34};

    #[test]
    fn final_num_attrs_counts_the_chain() {
        let mut a: ibv_command_buffer = unsafe { std::mem::zeroed() };
        let mut b: ibv_command_buffer = unsafe { std::mem::zeroed() };
        // Pretend block a filled 3 attributes and block b none (pointers are only subtracted, never read).
        let base_a = ptr::addr_of_mut!(a.hdr.attrs).cast::<ib_uverbs_attr>();
        a.next_attr = base_a.wrapping_add(3);
        b.next_attr = ptr::addr_of_mut!(b.hdr.attrs).cast::<ib_uverbs_attr>();
        a.next = &mut b;
        assert_eq!(unsafe { __ioctl_final_num_attrs(2, &mut a) }, 5);
        assert_eq!(unsafe { __ioctl_final_num_attrs(7, ptr::null_mut()) }, 7);
    }

    #[test]
    fn stubs_follow_their_conventions() {
        unsafe {
            assert_eq!(ibv_cmd_dealloc_pd(ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(ibv_cmd_poll_cq(ptr::null_mut(), 1, ptr::null_mut()), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            Errno(0).set();
            assert!(verbs_open_device(ptr::null_mut(), ptr::null_mut()).is_null());
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            let mut bad: *mut ibv_send_wr = ptr::null_mut();
            let wr = 0x10 as *mut ibv_send_wr;
            assert_eq!(ibv_cmd_post_send(ptr::null_mut(), wr, &mut bad), libc::EOPNOTSUPP);
            assert_eq!(bad, wr);
            assert_eq!(ibv_query_gid_type(ptr::null_mut(), 1, 0, ptr::null_mut()), -1);
            assert_eq!(ibv_read_ibdev_sysfs_file(ptr::null_mut(), 0, ptr::null_mut(), ptr::null()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            // Registration and logging are harmless and keep errno.
            Errno::ENODEV.set();
            verbs_register_driver_34(ptr::null());
            __verbs_log(ptr::null_mut(), 1, c"x %d\n".as_ptr());
            assert_eq!(Errno::last(), Errno::ENODEV);
        }
    }
}
