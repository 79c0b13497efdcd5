//! The provider interface's CQ commands: `verbs_init_cq` and `ibv_cmd_create_cq(_ex)`, `_poll_cq`,
//! `_req_notify_cq`, `_resize_cq`, `_destroy_cq`, `_modify_cq` (rdma-core's `cmd_cq.c`, `cmd.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::ioctl::{chain_needs_ioctl, Cmdb};
use crate::kernel;
use crate::object::{self, Context};
use crate::provider::cmd as pcmd;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::ptr::{self, addr_of_mut};

/// `void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context, struct ibv_comp_channel *channel,
/// void *cq_context)`.
///
/// Initialises the generic fields of a CQ a provider allocated: `context`, `channel` (whose `refcnt` it takes,
/// under the context's lock), `cq_context`, the event counters (zero) and the public `mutex`/`cond`. NULL `cq` is
/// ignored. For a context not of this library it still fills the fields, locking the public `context->mutex` as
/// rdma-core does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_init_cq(
    cq: *mut ibv_cq,
    context: *mut ibv_context,
    channel: *mut ibv_comp_channel,
    cq_context: *mut c_void,
) {
    let _ = ffi::boundary("verbs_init_cq", || {
        let cq = obj(cq)?;
        // SAFETY: a CQ under construction by the provider; the channel is live (provider contract).
        unsafe {
            match Context::from_ibv(context) {
                Ok(ctx) => object::native::init_cq(ctx, cq, channel, cq_context),
                Err(_) => {
                    (*cq).context = context;
                    (*cq).channel = channel;
                    if !channel.is_null() && !context.is_null() {
                        let m = addr_of_mut!((*context).mutex);
                        libc::pthread_mutex_lock(m);
                        (*channel).refcnt += 1;
                        libc::pthread_mutex_unlock(m);
                    }
                    (*cq).cq_context = cq_context;
                    (*cq).comp_events_completed = 0;
                    (*cq).async_events_completed = 0;
                    object::init_sync(addr_of_mut!((*cq).mutex), addr_of_mut!((*cq).cond));
                }
            }
        }
        Ok(())
    });
}

/// `int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
/// int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd, size_t cmd_size,
/// struct ib_uverbs_create_cq_resp *resp, size_t resp_size)`.
///
/// CREATE_CQ of at least `cqe` entries reporting to `channel` (NULL: none) on `comp_vector`, with the provider's
/// driver data; `user_handle` is `cq`. Sets `cq->context` (first, as rdma-core), then `handle` and `cqe` (the size
/// granted). The other generic fields are `verbs_init_cq`'s. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
    cq: *mut ibv_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let u = fd_of(context)?;
            (*cq).context = context;
            let req =
                kernel::cq::create_cq_cmd(cq as u64, cqe as u32, pcmd::comp_channel_fd(channel), comp_vector as u32);
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_create_cq>());
            let r: ib_uverbs_create_cq_resp = write_uhw(
                &u,
                IB_USER_VERBS_CMD_CREATE_CQ,
                &req,
                udata,
                resp,
                resp_size,
                size_of::<ib_uverbs_create_cq_resp>(),
            )?;
            (*cq).handle = r.cq_handle;
            (*cq).cqe = r.cqe as c_int;
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
/// struct verbs_create_cq_prov_attr *prov_attr, struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags)`, `@@IBVERBS_PRIVATE_65`
/// (rdma-core 59 added `prov_attr`).
///
/// As [`ibv_cmd_create_cq`] from `ibv_cq_init_attr_ex`: creation flags are derived from the attributes
/// (completion timestamps, `IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN`). With none, or only the timestamp flag while
/// `cmd_flags` has `CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX`, the legacy CREATE_CQ is sent (the kernel's response then
/// lands right before the provider's driver response, as rdma-core places it); otherwise EX_CREATE_CQ with the
/// flags. A ring the provider allocated itself (`cmd_flags` `CREATE_CQ_CMD_FLAGS_WITH_MEM_VA`: `prov_attr`'s
/// `buffer.ptr` and `length`; `..._WITH_MEM_DMABUF`: its `dmabuf.fd`, `dmabuf.offset` and `length`) can only be
/// described in an ioctl: CQ_CREATE is then sent as one (`EOPNOTSUPP` on a kernel without it). Errors:
/// `EOPNOTSUPP` for `comp_mask` bits beyond FLAGS and PD; `EINVAL` for either buffer flag without `prov_attr`; the
/// kernel's. ([`ibv_cmd_create_cq_ex_34`]: the PABI-34 prototype, without `prov_attr`.)
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq_ex(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    prov_attr: *mut r65::verbs_create_cq_prov_attr,
    cq: *mut verbs_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int {
    ret("ibv_cmd_create_cq_ex", || {
        // SAFETY: forwarded C contract.
        unsafe {
            let prov = prov_attr.as_ref();
            create_cq_ex(context, cq_attr, prov, cq, (cmd, cmd_size), (resp, resp_size), cmd_flags, ptr::null_mut())
        }
    })
}

/// `ibv_cmd_create_cq_ex@IBVERBS_PRIVATE_34`: `int ibv_cmd_create_cq_ex(struct ibv_context *context,
/// const struct ibv_cq_init_attr_ex *cq_attr, struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags)` of rdma-core 44 to 56:
/// [`ibv_cmd_create_cq_ex`] without a provider's ring (`cmd_flags` other than `CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX`
/// mean nothing there, as in rdma-core 56).
pub unsafe extern "C" fn ibv_cmd_create_cq_ex_34(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int {
    ret("ibv_cmd_create_cq_ex", || {
        let flags = cmd_flags & CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX;
        // SAFETY: forwarded C contract.
        unsafe { create_cq_ex(context, cq_attr, None, cq, (cmd, cmd_size), (resp, resp_size), flags, ptr::null_mut()) }
    })
}

/// `int ibv_cmd_create_cq_ex2(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
/// struct verbs_create_cq_prov_attr *prov_attr, struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags,
/// struct ibv_command_buffer *driver)`, `@@IBVERBS_PRIVATE_65`.
///
/// [`ibv_cmd_create_cq_ex`] with the provider's own ioctl attributes `driver` linked (rdma-core 65's mlx5 and efa
/// create their CQs with it). When they can only travel in an ioctl (a mandatory attribute, such as mlx5's UAR page
/// index), or the provider allocated the ring, CQ_CREATE is sent as an ioctl: the core attributes in rdma-core's
/// order, the provider's driver data and response as `UHW_IN`/`UHW_OUT`, then the linked blocks; a kernel without
/// that ioctl makes it `EOPNOTSUPP`, as rdma-core. Otherwise (no chain, or only optional attributes, which the
/// write command cannot carry and rdma-core drops too) exactly as [`ibv_cmd_create_cq_ex`]. Errors: as
/// [`ibv_cmd_create_cq_ex`]; `EINVAL` for a corrupt chain. ([`ibv_cmd_create_cq_ex2_34`]: rdma-core 56's, without
/// `prov_attr`.)
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq_ex2(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    prov_attr: *mut r65::verbs_create_cq_prov_attr,
    cq: *mut verbs_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    cmd_flags: u32,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_cq_ex2", || {
        // SAFETY: forwarded C contract.
        unsafe {
            let prov = prov_attr.as_ref();
            create_cq_ex(context, cq_attr, prov, cq, (cmd, cmd_size), (resp, resp_size), cmd_flags, driver)
        }
    })
}

/// `ibv_cmd_create_cq_ex2@IBVERBS_PRIVATE_34`: `int ibv_cmd_create_cq_ex2(struct ibv_context *context,
/// const struct ibv_cq_init_attr_ex *cq_attr, struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags,
/// struct ibv_command_buffer *driver)` of rdma-core 45 to 56 (rdma-core 56.1's mlx5 creates its CQs with it):
/// [`ibv_cmd_create_cq_ex2`] without a provider's ring.
pub unsafe extern "C" fn ibv_cmd_create_cq_ex2_34(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    cmd_flags: u32,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_cq_ex2", || {
        let flags = cmd_flags & CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX;
        // SAFETY: forwarded C contract.
        unsafe { create_cq_ex(context, cq_attr, None, cq, (cmd, cmd_size), (resp, resp_size), flags, driver) }
    })
}

/// The body of every `ibv_cmd_create_cq_ex(2)` (rdma-core's `ibv_icmd_create_cq_ex`): `cmd` and `resp` are the
/// provider's buffers with their sizes, `prov` its ring (for the `..._WITH_MEM_*` `cmd_flags`), `driver` its
/// attribute chain (NULL: none).
///
/// # Safety
/// The provider's objects, buffers and chain.
unsafe fn create_cq_ex(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    prov: Option<&r65::verbs_create_cq_prov_attr>,
    vcq: *mut verbs_cq,
    (cmd, cmd_size): (*mut c_void, usize),
    (resp, resp_size): (*mut c_void, usize),
    cmd_flags: u32,
    driver: *mut ibv_command_buffer,
) -> Result<()> {
    let ring = cmd_flags & (r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA | r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF);
    let ring = match (ring, prov) {
        (0, _) => None,
        (_, None) => return Err(Errno::EINVAL),
        (r, Some(p)) => Some((r & r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA != 0, p)),
    };
    let (a, vcq) = (obj(cq_attr.cast_mut())?, obj(vcq)?);
    // SAFETY: the provider's objects and buffers; a context of ours (checked).
    unsafe {
        let a = &*a;
        let flags = pcmd::create_cq_flags(a)?;
        let u = fd_of(context)?;
        let cq = addr_of_mut!((*vcq).cq_ex).cast::<ibv_cq>();
        (*cq).context = context;
        let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_create_cq>());
        let prov_resp = size_of::<ib_uverbs_ex_create_cq_resp>();
        let (handle, cqe) = if ring.is_some() || chain_needs_ioctl(driver)? {
            let resp_out = if resp.is_null() { &mut [][..] } else { resp_bytes(resp, resp_size)? };
            let resp_out = resp_out.get_mut(prov_resp..).unwrap_or_default();
            create_cq_ioctl(&u, context, cq, a, flags, ring, udata, resp_out, driver)?
        } else {
            let legacy = flags == 0
                || (flags & !IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION == 0
                    && cmd_flags & CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX != 0);
            if legacy {
                let req = kernel::cq::create_cq_cmd(cq as u64, a.cqe, pcmd::comp_channel_fd(a.channel), a.comp_vector);
                let r: ib_uverbs_create_cq_resp =
                    write_uhw(&u, IB_USER_VERBS_CMD_CREATE_CQ, &req, udata, resp, resp_size, prov_resp)?;
                (r.cq_handle, r.cqe)
            } else {
                let req = pcmd::create_cq_ex_cmd(cq, a, flags);
                let r: ib_uverbs_ex_create_cq_resp =
                    write_uhw_ex(&u, IB_USER_VERBS_EX_CMD_CREATE_CQ, &req, udata, resp, resp_size, prov_resp)?;
                (r.base.cq_handle, r.base.cqe)
            }
        };
        (*cq).handle = handle;
        (*cq).cqe = cqe as c_int;
    }
    Ok(())
}

/// CQ_CREATE as an ioctl (rdma-core's `ibv_icmd_create_cq` when its command buffer cannot fall back to a write):
/// the core attributes, the provider's ring `ring` (`(true, _)`: at a virtual address, `(false, _)`: in a
/// dma-buf), the provider's driver data `udata` and driver response `uresp` as `UHW_IN`/`UHW_OUT`, then the chain
/// `driver`. Returns the new CQ's handle and size. A kernel without the ioctl: `EOPNOTSUPP`.
///
/// # Safety
/// As [`create_cq_ex`]; `cq` is the provider's CQ of `context`.
unsafe fn create_cq_ioctl(
    u: &Fd<'_>,
    context: *mut ibv_context,
    cq: *mut ibv_cq,
    a: &ibv_cq_init_attr_ex,
    flags: u32,
    ring: Option<(bool, &r65::verbs_create_cq_prov_attr)>,
    udata: &[u8],
    uresp: &mut [u8],
    driver: *mut ibv_command_buffer,
) -> Result<(u32, u32)> {
    let mut resp_cqe = 0u32;
    let mut c = Cmdb::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
    let h = c.out_obj(UVERBS_ATTR_CREATE_CQ_HANDLE);
    c.out_ptr(UVERBS_ATTR_CREATE_CQ_RESP_CQE, addr_of_mut!(resp_cqe).cast(), 4)?;
    c.in_u32(UVERBS_ATTR_CREATE_CQ_CQE, a.cqe);
    c.in_u64(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, cq as u64);
    // SAFETY: the caller's channel and context.
    let (channel_fd, async_fd) = unsafe { (pcmd::comp_channel_fd(a.channel), (*context).async_fd) };
    if channel_fd >= 0 {
        c.in_obj(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, channel_fd as u32);
    }
    c.in_u32(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, a.comp_vector);
    if async_fd >= 0 {
        let i = c.in_obj(UVERBS_ATTR_CREATE_CQ_EVENT_FD, async_fd as u32);
        c.optional(i);
    }
    match ring {
        Some((true, p)) => {
            c.in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_VA, p.buffer.ptr_or_offset);
            c.in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, p.buffer.length);
        }
        Some((false, p)) => {
            if p.buffer.dmabuf_fd >= 0 {
                c.in_obj(UVERBS_ATTR_CREATE_CQ_BUFFER_FD, p.buffer.dmabuf_fd as u32);
            }
            c.in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, p.buffer.ptr_or_offset);
            c.in_u64(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, p.buffer.length);
        }
        None => {}
    }
    if flags != 0 {
        c.in_u32(UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
    }
    if !udata.is_empty() {
        // SAFETY: the provider's command buffer, valid until the command ran.
        unsafe { c.in_ptr(UVERBS_ATTR_UHW_IN, udata.as_ptr().cast(), udata.len()) }?;
    }
    if !uresp.is_empty() {
        c.out_ptr(UVERBS_ATTR_UHW_OUT, uresp.as_mut_ptr().cast(), uresp.len())?;
    }
    // SAFETY: every pointer filled above is live; the provider's chain.
    match unsafe { c.exec(u, driver) } {
        Ok(()) => Ok((c.data(h) as u32, resp_cqe)),
        Err(e) if kernel::ioctl_unsupported(e) => Err(Errno::EOPNOTSUPP),
        Err(e) => Err(e),
    }
}

/// `int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)`.
///
/// POLL_CQ through the kernel (drivers without a user-space CQ): up to `ne` completions into `wc`, each field
/// rdma-core copies (`wr_id`, `status`, `opcode`, `vendor_err`, `byte_len`, `imm_data`, `qp_num`, `src_qp`,
/// `wc_flags`, `pkey_index`, `slid`, `sl`, `dlid_path_bits`). Returns the number of completions, or `-1` with
/// `errno` set (`EINVAL` for NULL pointers or a negative `ne`; the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    let r = ffi::boundary("ibv_cmd_poll_cq", || -> Result<c_int> {
        let cq = obj(cq)?;
        let n = usize::try_from(ne).map_err(|_| Errno::EINVAL)?;
        if n > 0 {
            obj(wc)?;
        }
        // SAFETY: the provider's live CQ and its array of `ne` completions.
        unsafe {
            let u = fd_of((*cq).context)?;
            let mut k = vec![ib_uverbs_wc::zeroed(); n];
            let count = kernel::cq::poll_cq(&u, (*cq).handle, &mut k)?;
            for (i, s) in k.iter().take(count).enumerate() {
                let d = wc.add(i);
                (*d).wr_id = s.wr_id;
                ffi::enum_store(addr_of_mut!((*d).status), s.status);
                ffi::enum_store(addr_of_mut!((*d).opcode), s.opcode);
                (*d).vendor_err = s.vendor_err;
                (*d).byte_len = s.byte_len;
                (*d).imm.imm_data = s.ex.imm_data;
                (*d).qp_num = s.qp_num;
                (*d).src_qp = s.src_qp;
                (*d).wc_flags = s.wc_flags;
                (*d).pkey_index = s.pkey_index;
                (*d).slid = s.slid;
                (*d).sl = s.sl;
                (*d).dlid_path_bits = s.dlid_path_bits;
            }
            Ok(count as c_int)
        }
    });
    ffi::CResult::or_minus_one_errno(r)
}

/// `int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)`: REQ_NOTIFY_CQ (arms the CQ in the kernel
/// for the next completion, or the next solicited one). Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    ret("ibv_cmd_req_notify_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's live CQ.
        unsafe { kernel::cq::req_notify_cq(&fd_of((*cq).context)?, (*cq).handle, solicited_only != 0) }
    })
}

/// `int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
/// struct ib_uverbs_resize_cq_resp *resp, size_t resp_size)`.
///
/// RESIZE_CQ to at least `cqe` entries with the provider's driver data, the response straight into `resp`;
/// `cq->cqe` becomes the size granted. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_resize_cq(
    cq: *mut ibv_cq,
    cqe: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_resize_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's live CQ and buffers.
        unsafe {
            let req = kernel::cq::resize_cq_cmd(core_of(cmd, cmd_size, HDR)?, (*cq).handle, cqe as u32);
            let u = fd_of((*cq).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_resize_cq>());
            let r: ib_uverbs_resize_cq_resp =
                write_direct(&u, IB_USER_VERBS_CMD_RESIZE_CQ, req.as_bytes(), udata, resp, resp_size)?;
            (*cq).cqe = r.cqe as c_int;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_cq(struct ibv_cq *cq)`.
///
/// DESTROY_CQ, then waits (under the CQ's public mutex) until the completion and async events the kernel reported
/// for it were acknowledged. The channel's reference is the caller's to drop. Errors: `EBUSY` while QPs use it; a
/// forgiven `EIO` (see [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd)) returns 0 at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_cq(cq: *mut ibv_cq) -> c_int {
    ret("ibv_cmd_destroy_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's live CQ, whose mutex/cond were initialised (verbs_init_cq).
        unsafe {
            let u = fd_of((*cq).context)?;
            if let Some(r) = destroyed(kernel::cq::destroy_cq_write(&u, (*cq).handle))? {
                wait(addr_of_mut!((*cq).mutex), addr_of_mut!((*cq).cond), || {
                    object::all_acked(
                        "ibv_destroy_cq (completion events)",
                        (*cq).comp_events_completed,
                        r.comp_events_reported,
                    ) && object::all_acked(
                        "ibv_destroy_cq (async events)",
                        (*cq).async_events_completed,
                        r.async_events_reported,
                    )
                });
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr, struct ibv_modify_cq *cmd,
/// size_t cmd_size)`.
///
/// EX_MODIFY_CQ (moderation: `cq_count` completions or `cq_period` microseconds) with the provider's driver data.
/// Errors: `EINVAL` for `attr_mask` bits from `IBV_CQ_ATTR_RESERVED` up; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_cq(
    cq: *mut ibv_cq,
    attr: *mut ibv_modify_cq_attr,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_cq", || {
        let (cq, attr) = (obj(cq)?, obj(attr)?);
        // SAFETY: the provider's live CQ, attributes and buffers.
        unsafe {
            let a = &*attr;
            if a.attr_mask >= IBV_CQ_ATTR_RESERVED {
                return Err(Errno::EINVAL);
            }
            let mut req: ib_uverbs_ex_modify_cq = core_of(cmd, cmd_size, EX_HDR)?;
            req.cq_handle = (*cq).handle;
            req.attr_mask = a.attr_mask;
            req.attr.cq_count = a.moderate.cq_count;
            req.attr.cq_period = a.moderate.cq_period;
            req.reserved = 0;
            let u = fd_of((*cq).context)?;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_modify_cq>());
            kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_MODIFY_CQ, req.as_bytes(), udata, None)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use std::ptr::{self, addr_of};
    #[test]
    fn create_cq_ex_without_flags_sends_legacy_create_cq_before_the_driver_response() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_create_cq_resp::zeroed();
        kresp.cq_handle = 3;
        kresp.cqe = 63;
        let mut bytes = kresp.as_bytes().to_vec();
        bytes.extend_from_slice(&[0xee; 8]);
        f.reply(Reply::write(&bytes));
        // ibv_create_cq_ex (24 + 32) + 8 bytes of driver data; response: ex resp (16) + 8 of driver data.
        let mut cmd = prov_cmd(24, 32, 0x77, &[9; 8]);
        let mut resp = [0u8; 24];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut cq: MaybeUninit<verbs_cq> = z();
        let mut attr: MaybeUninit<ibv_cq_init_attr_ex> = z();
        let mut ch: MaybeUninit<ibv_comp_channel> = z();
        unsafe {
            (*ch.as_mut_ptr()).fd = 42;
            let a = attr.as_mut_ptr();
            (*a).cqe = 10;
            (*a).comp_vector = 2;
            (*a).channel = ch.as_mut_ptr();
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_cq_ex_34(
                ctx.as_mut_ptr(),
                attr.as_ptr(),
                cq.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                resp.len(),
                0,
            )
        });
        assert_eq!(rc, 0);
        let c = unsafe { &(*cq.as_ptr()).cq_ex };
        assert_eq!((c.handle, c.cqe, c.context), (3, 63, ctx.as_mut_ptr()));
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_CQ, (8 + 32 + 8) / 4, (8 + 8) / 4));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64 + 8, "kernel response right before the driver's");
        let req = ib_uverbs_create_cq::from_bytes(&w[8..]);
        assert_eq!(req.user_handle, cq.as_ptr() as u64);
        assert_eq!((req.cqe, req.comp_vector, req.comp_channel, req.reserved), (10, 2, 42, 0));
        assert_eq!(&w[40..], &[9; 8]);
        assert_eq!(&resp[16..], &[0xee; 8]);

        // IGNORE_OVERRUN needs the extended command.
        f.reply(Reply::write(&[0u8; 24]));
        unsafe {
            let a = attr.as_mut_ptr();
            (*a).comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
            (*a).flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
            let rc = with_fake(&f, || {
                ibv_cmd_create_cq_ex_34(
                    ctx.as_mut_ptr(),
                    attr.as_ptr(),
                    cq.as_mut_ptr(),
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    resp.len(),
                    0,
                )
            });
            assert_eq!(rc, 0);
        }
        let w = f.write(1);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ, 4, 2));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        assert_eq!((u16_at(&w, 16), u16_at(&w, 18)), (1, 1), "provider in/out words");
        let req = ib_uverbs_ex_create_cq::from_bytes(&w[24..]);
        assert_eq!(req.flags, IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN);

        // Unknown comp_mask bits.
        unsafe {
            (*attr.as_mut_ptr()).comp_mask = 1 << 5;
            let rc = with_fake(&f, || {
                ibv_cmd_create_cq_ex_34(
                    ctx.as_mut_ptr(),
                    attr.as_ptr(),
                    cq.as_mut_ptr(),
                    ptr::null_mut(),
                    0,
                    ptr::null_mut(),
                    0,
                    0,
                )
            });
            assert_eq!(rc, libc::EOPNOTSUPP);
        }
    }

    #[test]
    fn create_cq_ex2_sends_an_ioctl_only_for_attributes_a_write_cannot_carry() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        unsafe { (*ctx.as_mut_ptr()).async_fd = 12 };
        let mut cq: MaybeUninit<verbs_cq> = z();
        let mut attr: MaybeUninit<ibv_cq_init_attr_ex> = z();
        let mut ch: MaybeUninit<ibv_comp_channel> = z();
        unsafe {
            (*ch.as_mut_ptr()).fd = 42;
            let a = attr.as_mut_ptr();
            (*a).cqe = 10;
            (*a).comp_vector = 2;
            (*a).channel = ch.as_mut_ptr();
        }
        let mut cmd = prov_cmd(24, 32, 0x77, &[9; 8]);
        let mut resp = [0u8; 24];
        let (cqp, respp) = (cq.as_mut_ptr(), resp.as_mut_ptr());
        let mut call = |driver: *mut ibv_command_buffer| {
            with_fake(&f, || unsafe {
                ibv_cmd_create_cq_ex2_34(
                    ctx.as_mut_ptr(),
                    attr.as_ptr(),
                    cqp,
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    respp.cast(),
                    24,
                    0,
                    driver,
                )
            })
        };
        // No chain, or one with an optional attribute only: the legacy write, as create_cq_ex.
        f.reply(Reply::write(&[3, 0, 0, 0, 63, 0, 0, 0, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee]));
        assert_eq!(call(ptr::null_mut()), 0);
        assert_eq!(hdr(&f.write(0)).0, IB_USER_VERBS_CMD_CREATE_CQ);
        let mut opt = cbuf(UVERBS_OBJECT_CQ as u16, UVERBS_METHOD_CQ_CREATE as u16);
        add(&mut opt, 0x1002, 4, 1);
        unsafe { (*opt.b.next_attr.sub(1)).flags = 0 };
        f.reply(Reply::write(&[4, 0, 0, 0, 63, 0, 0, 0]));
        assert_eq!(call(&mut opt.b), 0);
        assert_eq!(f.writes().len(), 2);
        // A mandatory driver attribute (mlx5's UAR page index, the first id after UHW_IN/UHW_OUT): CQ_CREATE as an
        // ioctl, the chain after the core's.
        let mut drv = cbuf(UVERBS_OBJECT_CQ as u16, UVERBS_METHOD_CQ_CREATE as u16);
        add(&mut drv, 0x1002, 4, 5);
        f.reply(
            Reply::ioctl()
                .new_obj(UVERBS_ATTR_CREATE_CQ_HANDLE, 0x55)
                .out(UVERBS_ATTR_CREATE_CQ_RESP_CQE, &[127, 0, 0, 0]),
        );
        assert_eq!(call(&mut drv.b), 0);
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE));
        let a = |id: u32, len: u16| (id as u16, len);
        assert_eq!(
            ids(&f, 0),
            [
                a(UVERBS_ATTR_CREATE_CQ_HANDLE, 0),
                a(UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4),
                a(UVERBS_ATTR_CREATE_CQ_CQE, 4),
                a(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8),
                a(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, 0),
                a(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4),
                a(UVERBS_ATTR_CREATE_CQ_EVENT_FD, 0),
                a(UVERBS_ATTR_UHW_IN, 8),
                a(UVERBS_ATTR_UHW_OUT, 8),
                (0x1002, 4)
            ]
        );
        let b = f.ioctl(0);
        assert_eq!(u16_at(&b, 24 + 16 * 6 + 4), 0, "the async event fd is optional");
        assert_eq!(u64_at(&b, 24 + 16 * 7 + 8), 0x0909_0909_0909_0909, "driver data inline");
        assert_eq!(u64_at(&b, 24 + 16 * 8 + 8), respp as u64 + 16, "driver response after the core's");
        let c = unsafe { &(*cqp).cq_ex };
        assert_eq!((c.handle, c.cqe), (0x55, 127));
        // A kernel without the ioctl: what rdma-core's fallback answers.
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        assert_eq!(call(&mut drv.b), libc::EOPNOTSUPP);
    }

    #[test]
    fn create_cq_ex_65_describes_the_providers_ring_in_an_ioctl() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        unsafe { (*ctx.as_mut_ptr()).async_fd = -1 };
        let mut cq: MaybeUninit<verbs_cq> = z();
        let mut attr: MaybeUninit<ibv_cq_init_attr_ex> = z();
        unsafe { (*attr.as_mut_ptr()).cqe = 8 };
        let mut cmd = prov_cmd(24, 32, 0, &[]);
        let mut resp = [0u8; 16];
        let ring = [0u64; 64];
        let mut prov = r65::verbs_create_cq_prov_attr {
            buffer: r65::verbs_create_cq_prov_attr_buffer {
                length: 512,
                ptr_or_offset: ring.as_ptr() as u64,
                dmabuf_fd: 0,
            },
        };
        let (ctxp, cqp, ap) = (ctx.as_mut_ptr(), cq.as_mut_ptr(), attr.as_ptr());
        let mut call = |prov: *mut r65::verbs_create_cq_prov_attr, flags: u32| {
            with_fake(&f, || unsafe {
                ibv_cmd_create_cq_ex(
                    ctxp,
                    ap,
                    prov,
                    cqp,
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    resp.len(),
                    flags,
                )
            })
        };
        assert_eq!(call(ptr::null_mut(), r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA), libc::EINVAL, "no prov_attr");
        f.reply(
            Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_CQ_HANDLE, 9).out(UVERBS_ATTR_CREATE_CQ_RESP_CQE, &[8, 0, 0, 0]),
        );
        assert_eq!(call(&mut prov, r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_VA), 0);
        let sent = ids(&f, 0);
        assert_eq!(&sent[5..], [(8, 8), (9, 8)], "BUFFER_VA, BUFFER_LENGTH after the comp vector");
        assert_eq!(u64_at(&f.ioctl(0), 24 + 16 * 5 + 8), ring.as_ptr() as u64);
        unsafe { assert_eq!(((*cqp).cq_ex.handle, (*cqp).cq_ex.cqe), (9, 8)) };
        // A dma-buf ring: its fd, offset and length.
        prov.buffer.dmabuf_fd = 7;
        prov.buffer.ptr_or_offset = 4096;
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_CQ_HANDLE, 10));
        assert_eq!(call(&mut prov, r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF), 0);
        assert_eq!(&ids(&f, 1)[5..], [(10, 0), (11, 8), (9, 8)]);
        // Without the ioctl the ring cannot be described: EOPNOTSUPP, as rdma-core's fallback answers.
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        assert_eq!(call(&mut prov, r65::CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF), libc::EOPNOTSUPP);
        // The PABI-34 prototype knows no ring: the flag means nothing there, the legacy write is sent.
        f.reply(Reply::write(&[3, 0, 0, 0, 8, 0, 0, 0]));
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_cq_ex_34(ctxp, ap, cqp, cmd.as_mut_ptr().cast(), cmd.len(), resp.as_mut_ptr().cast(), 16, 2)
        });
        assert_eq!((rc, hdr(&f.write(0)).0), (0, IB_USER_VERBS_CMD_CREATE_CQ));
    }

    #[test]
    fn poll_cq_converts_completions() {
        let f = Fake::new();
        let mut kwc = ib_uverbs_wc::zeroed();
        kwc.wr_id = 77;
        kwc.status = 5;
        kwc.byte_len = 100;
        kwc.qp_num = 0x10;
        let mut bytes = 1u32.to_ne_bytes().to_vec();
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(kwc.as_bytes());
        f.reply(Reply::write(&bytes));
        let mut cq: MaybeUninit<ibv_cq> = z();
        unsafe { (*cq.as_mut_ptr()).handle = 2 };
        let mut wc: [MaybeUninit<ibv_wc>; 2] = [z(), z()];
        let n = with_fake(&f, || unsafe { ibv_cmd_poll_cq(cq.as_mut_ptr(), 2, wc.as_mut_ptr().cast()) });
        assert_eq!(n, 1);
        unsafe {
            let w = &*wc[0].as_ptr();
            assert_eq!((w.wr_id, w.byte_len, w.qp_num), (77, 100, 0x10));
            assert_eq!(ffi::enum_raw(addr_of!(w.status)), 5);
        }
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_POLL_CQ, 6, ((8 + 2 * size_of::<ib_uverbs_wc>()) / 4) as u16));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20)), (2, 2));
    }

    #[test]
    fn destroy_cq_waits_or_forgives() {
        let f = Fake::new();
        // DESTROY_CQ waits for the acknowledgements (already there); EIO is an error unless forgiven.
        let mut d = ib_uverbs_destroy_cq_resp::zeroed();
        d.comp_events_reported = 1;
        f.reply(Reply::write(d.as_bytes()));
        let mut cq: MaybeUninit<ibv_cq> = z();
        unsafe {
            let p = cq.as_mut_ptr();
            object::init_sync(addr_of_mut!((*p).mutex), addr_of_mut!((*p).cond));
            (*p).comp_events_completed = 1;
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_cq(p)), 0);
            f.reply(Reply::fail(Errno::EIO));
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_cq(p)), libc::EIO);
            verbs_allow_disassociate_destroy.store(true, std::sync::atomic::Ordering::Relaxed);
            f.reply(Reply::fail(Errno::EIO));
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_cq(p)), 0);
            verbs_allow_disassociate_destroy.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }

    #[test]
    fn the_other_cq_commands_marshal_as_the_kernel_expects() {
        let f = Fake::new();
        objects!(ctx, c, pd, cq, srq, qp, ch);
        // CREATE_CQ: the channel's fd, the CQ as user handle, driver data; the response in the provider's buffer.
        let mut cmd = prov_cmd(8, 32, 0x5a, &[7; 8]);
        let mut resp = [0u8; 16];
        let w = run(&f, Reply::write(&[1, 0, 0, 0, 64, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9]), &mut || unsafe {
            ibv_cmd_create_cq(
                c,
                50,
                ch.as_mut_ptr(),
                1,
                cq.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                48,
                resp.as_mut_ptr().cast(),
                16,
            )
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_CQ, 12, 4));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        let r = ib_uverbs_create_cq::from_bytes(&w[8..]);
        assert_eq!((r.user_handle, r.cqe, r.comp_vector, r.comp_channel), (cq.as_ptr() as u64, 50, 1, 9));
        assert_eq!(&w[40..], &[7; 8]);
        unsafe { assert_eq!(((*cq.as_ptr()).handle, (*cq.as_ptr()).cqe), (1, 64)) };
        unsafe { (*cq.as_mut_ptr()).handle = 3 };

        // RESIZE_CQ, REQ_NOTIFY_CQ, EX_MODIFY_CQ.
        let mut cmd = prov_cmd(8, 16, 0x5a, &[]);
        let w = run(&f, Reply::write(&[200, 0, 0, 0, 0, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_resize_cq(cq.as_mut_ptr(), 128, cmd.as_mut_ptr().cast(), 24, resp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_RESIZE_CQ, 6, 2));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20)), (3, 128));
        unsafe { assert_eq!((*cq.as_ptr()).cqe, 200) };
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_req_notify_cq(cq.as_mut_ptr(), 2) });
        assert_eq!(w, [IB_USER_VERBS_CMD_REQ_NOTIFY_CQ as u8, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0]);
        let mut ma = ibv_modify_cq_attr { attr_mask: 1, moderate: ibv_moderate_cq { cq_count: 7, cq_period: 9 } };
        let mut cmd = prov_cmd(24, 16, 0x5a, &[6; 8]);
        let w = run(&f, Reply::write(&[]), &mut || unsafe {
            ibv_cmd_modify_cq(cq.as_mut_ptr(), &mut ma, cmd.as_mut_ptr().cast(), 48)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_CQ, 2, 0));
        assert_eq!(u16_at(&w, 16), 1);
        assert_eq!((u32_at(&w, 24), u32_at(&w, 28), u16_at(&w, 32), u16_at(&w, 34), u32_at(&w, 36)), (3, 1, 7, 9, 0));
    }
}
