//! The provider interface's memory commands: MRs (`ibv_cmd_reg_mr`, `_rereg_mr`, `_dereg_mr`, `_query_mr`,
//! `_advise_mr`, `_reg_dmabuf_mr`), memory windows (`_alloc_mw`, `_dealloc_mw`) and device memory (`_alloc_dm`,
//! `_free_dm`, `_reg_dm_mr`) (rdma-core's `cmd.c`, `cmd_mr.c`, `cmd_mw.c`, `cmd_dm.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::kernel;
use crate::provider::cmd as pcmd;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::Errno;
use rdma_common::ffi;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::AsBytes;
use std::ffi::{c_int, c_uint, c_void};
use std::mem::size_of;
use std::ptr::{self, addr_of_mut};

/// `int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
/// struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size, struct ib_uverbs_reg_mr_resp *resp,
/// size_t resp_size)`.
///
/// REG_MR of `length` bytes at `addr`, seen by the device at `hca_va`, with the provider's driver data; an
/// on-demand (`IBV_ACCESS_ON_DEMAND`) region of `SIZE_MAX` bytes at NULL is the implicit ODP MR (length
/// `UINT64_MAX` for the kernel). Fills `handle`, `lkey`, `rkey`, `context`, `mr_type = IBV_MR_TYPE_MR` and
/// `access`. Errors: `EINVAL` for `SIZE_MAX` on-demand bytes at a non-NULL address; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_reg_mr", || {
        let (pd, vmr) = (obj(pd)?, obj(vmr)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let base: ib_uverbs_reg_mr = core_of(cmd, cmd_size, HDR)?;
            let len = pcmd::reg_mr_length(addr, length, access)?;
            let req = kernel::mr::reg_mr_cmd(base, (*pd).handle, addr as u64, len, hca_va, access as u32);
            let u = fd_of((*pd).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_reg_mr>());
            let r: ib_uverbs_reg_mr_resp =
                write_direct(&u, IB_USER_VERBS_CMD_REG_MR, req.as_bytes(), udata, resp, resp_size)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = r.mr_handle;
            (*m).lkey = r.lkey;
            (*m).rkey = r.rkey;
            (*m).context = (*pd).context;
            (*vmr).mr_type = IBV_MR_TYPE_MR;
            (*vmr).access = access;
        }
        Ok(())
    })
}

/// `int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length, uint64_t hca_va,
/// int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
/// size_t resp_sz)`.
///
/// REREG_MR (`flags`: `IBV_REREG_MR_CHANGE_TRANSLATION`/`_PD`/`_ACCESS`; the PD handle is sent only with
/// `_CHANGE_PD`); updates `lkey`, `rkey` and, with `_CHANGE_PD`, `context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_rereg_mr(
    vmr: *mut verbs_mr,
    flags: u32,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    pd: *mut ibv_pd,
    cmd: *mut c_void,
    cmd_sz: usize,
    resp: *mut c_void,
    resp_sz: usize,
) -> c_int {
    ret("ibv_cmd_rereg_mr", || {
        let vmr = obj(vmr)?;
        let change_pd = flags & ibv_rereg_mr_flags::IBV_REREG_MR_CHANGE_PD as u32 != 0;
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let m = addr_of_mut!((*vmr).ibv_mr);
            let mut req: ib_uverbs_rereg_mr = core_of(cmd, cmd_sz, HDR)?;
            req.mr_handle = (*m).handle;
            req.flags = flags;
            req.start = addr as usize as u64;
            req.length = length as u64;
            req.hca_va = hca_va;
            req.pd_handle = if change_pd { (*obj(pd)?).handle } else { 0 };
            req.access_flags = access as u32;
            let u = fd_of((*m).context)?;
            let udata = tail(cmd, cmd_sz, abi::<ib_uverbs_rereg_mr>());
            let r: ib_uverbs_rereg_mr_resp =
                write_direct(&u, IB_USER_VERBS_CMD_REREG_MR, req.as_bytes(), udata, resp, resp_sz)?;
            (*m).lkey = r.lkey;
            (*m).rkey = r.rkey;
            if change_pd {
                (*m).context = (*pd).context;
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_dereg_mr(struct verbs_mr *vmr)`: DEREG_MR. Errors: `EBUSY` while memory windows are bound to it;
/// a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dereg_mr(vmr: *mut verbs_mr) -> c_int {
    ret("ibv_cmd_dereg_mr", || {
        let vmr = obj(vmr)?;
        // SAFETY: the provider's live MR.
        unsafe {
            let u = fd_of((*vmr).ibv_mr.context)?;
            destroyed(kernel::mr::dereg_mr(&u, (*vmr).ibv_mr.handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle)`.
///
/// QUERY_MR (ioctl only), what providers' `import_mr` uses: the kernel writes `lkey`, `rkey` and `length` of the
/// MR `mr_handle` straight into `vmr`; then `handle`, `context`, `pd`, `addr = NULL` and
/// `mr_type = IBV_MR_TYPE_IMPORTED_MR` are filled. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_mr(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32) -> c_int {
    ret("ibv_cmd_query_mr", || {
        let (pd, vmr) = (obj(pd)?, obj(vmr)?);
        // SAFETY: the provider's objects; a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
            c.in_obj(UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
            c.out_ptr(UVERBS_ATTR_QUERY_MR_RESP_LKEY, addr_of_mut!((*m).lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_QUERY_MR_RESP_RKEY, addr_of_mut!((*m).rkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, addr_of_mut!((*m).length).cast(), size_of::<usize>())?;
            c.exec(&u, ptr::null_mut())?;
            (*m).handle = mr_handle;
            (*m).context = (*pd).context;
            (*m).pd = pd;
            (*m).addr = ptr::null_mut();
            (*vmr).mr_type = IBV_MR_TYPE_IMPORTED_MR;
        }
        Ok(())
    })
}

/// `int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
/// struct ibv_sge *sg_list, uint32_t num_sge)`.
///
/// ADVISE_MR (ioctl only): prefetch advice for on-demand MRs, `num_sge` ranges at `sg_list`. Errors: `EINVAL`
/// for a list over 65535 bytes; the kernel's (`EOPNOTSUPP` without ODP).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_advise_mr(
    pd: *mut ibv_pd,
    advice: u32,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int {
    ret("ibv_cmd_advise_mr", || {
        let pd = obj(pd)?;
        // SAFETY: the provider's PD and SGE array.
        unsafe {
            let u = fd_of((*pd).context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
            c.in_obj(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, (*pd).handle);
            c.in_u64(UVERBS_ATTR_ADVISE_MR_ADVICE, advice as u64);
            c.in_u32(UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
            let len = (num_sge as usize).checked_mul(size_of::<ibv_sge>()).ok_or(Errno::EINVAL)?;
            c.in_ptr(UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list.cast(), len)?;
            c.exec(&u, ptr::null_mut())
        }
    })
}

/// `int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
/// int access, struct verbs_mr *vmr, struct ibv_command_buffer *driver)`.
///
/// REG_DMABUF_MR (ioctl only): registers `length` bytes at `offset` of the dma-buf `fd`, seen at `iova`, with the
/// provider's attributes `driver` linked; fills `handle`, `context`, `lkey`, `rkey`, `pd`, `addr = offset`,
/// `length` and `mr_type = IBV_MR_TYPE_DMABUF_MR`. Errors: the kernel's (`EOPNOTSUPP` for drivers without dma-buf
/// support, such as rxe and siw).
///
/// rdma-core 53 added `driver` without a new version node: a plug-in of rdma-core 44's generation calls this with
/// seven arguments and leaves whatever its stack holds where `driver` is read, so `driver` is used (and only then
/// read as a pointer) for plug-ins of the later generations alone (rdma-core 56.1's mlx5 is the one that passes
/// one).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
    vmr: *mut verbs_mr,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_reg_dmabuf_mr", || {
        let (pd, vmr) = (obj(pd)?, obj(vmr)?);
        // SAFETY: the provider's objects; a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            let link = match generation_of((*pd).context) {
                Generation::R44 => ptr::null_mut(),
                Generation::R56 | Generation::R65 => driver,
            };
            let (mut lkey, mut rkey) = (0u32, 0u32);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
            let h = c.out_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
            c.out_ptr(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, addr_of_mut!(lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, addr_of_mut!(rkey).cast(), 4)?;
            c.in_obj(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, (*pd).handle);
            c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
            c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length as u64);
            c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
            c.in_u32(UVERBS_ATTR_REG_DMABUF_MR_FD, fd as u32);
            c.in_u32(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access as u32);
            c.exec(&u, link)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = c.data(h) as u32;
            (*m).context = (*pd).context;
            (*m).lkey = lkey;
            (*m).rkey = rkey;
            (*m).pd = pd;
            (*m).addr = offset as usize as *mut c_void;
            (*m).length = length;
            (*vmr).mr_type = IBV_MR_TYPE_DMABUF_MR;
        }
        Ok(())
    })
}

/// `int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
/// size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)`.
///
/// ALLOC_MW of `type` (1 or 2) with the provider's driver data; fills `context`, `pd`, `rkey`, `handle`, `type`.
/// Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_mw(
    pd: *mut ibv_pd,
    r#type: u32,
    mw: *mut ibv_mw,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_alloc_mw", || {
        let (pd, mw) = (obj(pd)?, obj(mw)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            // As C assignment: the 8 bits the command has for the type.
            let req = kernel::mw::alloc_mw_cmd(core_of(cmd, cmd_size, HDR)?, (*pd).handle, r#type as u8);
            let u = fd_of((*pd).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_alloc_mw>());
            let r: ib_uverbs_alloc_mw_resp =
                write_direct(&u, IB_USER_VERBS_CMD_ALLOC_MW, req.as_bytes(), udata, resp, resp_size)?;
            (*mw).context = (*pd).context;
            (*mw).pd = pd;
            (*mw).rkey = r.rkey;
            (*mw).handle = r.mw_handle;
            ffi::enum_store(addr_of_mut!((*mw).r#type), r#type);
        }
        Ok(())
    })
}

/// `int ibv_cmd_dealloc_mw(struct ibv_mw *mw)`: DEALLOC_MW. Errors: the kernel's; a forgiven `EIO` as for
/// [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dealloc_mw(mw: *mut ibv_mw) -> c_int {
    ret("ibv_cmd_dealloc_mw", || {
        let mw = obj(mw)?;
        // SAFETY: the provider's live MW.
        unsafe {
            let u = fd_of((*mw).context)?;
            destroyed(kernel::mw::dealloc_mw(&u, (*mw).handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr, struct verbs_dm *dm,
/// struct ibv_command_buffer *link)`.
///
/// DM_ALLOC (ioctl only) of `dm_attr->length` bytes of device memory aligned to `2^log_align_req`, with the
/// provider's attributes `link`; fills `dm->handle`, `dm->dm.handle`, `dm->dm.comp_mask = IBV_DM_MASK_HANDLE`,
/// `dm->dm.context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_dm(
    ctx: *mut ibv_context,
    dm_attr: *const ibv_alloc_dm_attr,
    dm: *mut verbs_dm,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_alloc_dm", || {
        let (a, dm) = (obj(dm_attr.cast_mut())?, obj(dm)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            let u = fd_of(ctx)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
            let h = c.out_obj(UVERBS_ATTR_ALLOC_DM_HANDLE);
            c.in_u64(UVERBS_ATTR_ALLOC_DM_LENGTH, (*a).length as u64);
            c.in_u32(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, (*a).log_align_req);
            c.exec(&u, link)?;
            (*dm).handle = c.data(h) as u32;
            (*dm).dm.handle = (*dm).handle;
            (*dm).dm.comp_mask = IBV_DM_MASK_HANDLE;
            (*dm).dm.context = ctx;
        }
        Ok(())
    })
}

/// `int ibv_cmd_free_dm(struct verbs_dm *dm)`: DM_FREE (ioctl only). Errors: the kernel's; a forgiven `EIO` as
/// for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_free_dm(dm: *mut verbs_dm) -> c_int {
    ret("ibv_cmd_free_dm", || {
        let dm = obj(dm)?;
        // SAFETY: the provider's live DM.
        unsafe {
            let u = fd_of((*dm).dm.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE);
            c.in_obj(UVERBS_ATTR_FREE_DM_HANDLE, (*dm).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length,
/// unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link)`.
///
/// DM_MR_REG (ioctl only): an MR over `length` bytes at `offset` of device memory `dm`, with the provider's
/// attributes `link`; fills `handle`, `context`, `lkey`, `rkey`, `length`, `pd`, `addr = NULL`,
/// `mr_type = IBV_MR_TYPE_MR`. Errors: `EINVAL` without `IBV_ACCESS_ZERO_BASED` (device memory MRs are always zero
/// based); the kernel's.
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
    ret("ibv_cmd_reg_dm_mr", || {
        if access & IBV_ACCESS_ZERO_BASED == 0 {
            return Err(Errno::EINVAL);
        }
        let (pd, dm, vmr) = (obj(pd)?, obj(dm)?, obj(vmr)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            let (mut lkey, mut rkey) = (0u32, 0u32);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG);
            let h = c.out_obj(UVERBS_ATTR_REG_DM_MR_HANDLE);
            c.out_ptr(UVERBS_ATTR_REG_DM_MR_RESP_LKEY, addr_of_mut!(lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_REG_DM_MR_RESP_RKEY, addr_of_mut!(rkey).cast(), 4)?;
            c.in_obj(UVERBS_ATTR_REG_DM_MR_PD_HANDLE, (*pd).handle);
            c.in_obj(UVERBS_ATTR_REG_DM_MR_DM_HANDLE, (*dm).handle);
            c.in_u64(UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
            c.in_u64(UVERBS_ATTR_REG_DM_MR_LENGTH, length as u64);
            c.in_u32(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
            c.exec(&u, link)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = c.data(h) as u32;
            (*m).context = (*pd).context;
            (*m).lkey = lkey;
            (*m).rkey = rkey;
            (*m).length = length;
            (*m).pd = pd;
            (*m).addr = ptr::null_mut();
            (*vmr).mr_type = IBV_MR_TYPE_MR;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use rdma_common::uapi::FromBytes;
    #[test]
    fn reg_rereg_mr_and_alloc_mw() {
        let f = Fake::new();
        f.reply(Reply::write(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_reg_mr>(), 0, &[]);
        let mut resp = [0u8; 12];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 5 };
        let mut mr: MaybeUninit<verbs_mr> = z();
        let access = ibv_access_flags::IBV_ACCESS_ON_DEMAND as c_int | 1;
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_reg_mr(
                &mut pd,
                ptr::null_mut(),
                usize::MAX,
                0,
                access,
                mr.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                12,
            )
        });
        assert_eq!(rc, 0);
        let req = ib_uverbs_reg_mr::from_bytes(&f.write(0)[8..]);
        assert_eq!((req.length, req.pd_handle, req.access_flags), (u64::MAX, 5, access as u32), "implicit ODP");
        unsafe {
            let m = &*mr.as_ptr();
            assert_eq!((m.ibv_mr.handle, m.ibv_mr.lkey, m.ibv_mr.rkey, m.mr_type, m.access), (1, 2, 3, 0, access));
            let rc = with_fake(&f, || {
                ibv_cmd_reg_mr(
                    &mut pd,
                    8 as *mut c_void,
                    usize::MAX,
                    0,
                    access,
                    mr.as_mut_ptr(),
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    12,
                )
            });
            assert_eq!(rc, libc::EINVAL);
        }

        f.reply(Reply::write(&[7, 0, 0, 0, 8, 0, 0, 0]));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_rereg_mr>(), 0, &[]);
        let mut resp = [0u8; 8];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_rereg_mr(
                mr.as_mut_ptr(),
                1,
                0x1000 as *mut c_void,
                64,
                0x1000,
                1,
                ptr::null_mut(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        let req = ib_uverbs_rereg_mr::from_bytes(&f.write(1)[8..]);
        assert_eq!((req.mr_handle, req.flags, req.start, req.pd_handle), (1, 1, 0x1000, 0));
        unsafe { assert_eq!(((*mr.as_ptr()).ibv_mr.lkey, (*mr.as_ptr()).ibv_mr.rkey), (7, 8)) };

        f.reply(Reply::write(&[4, 0, 0, 0, 5, 0, 0, 0]));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_alloc_mw>(), 0xff, &[]);
        let mut mw: MaybeUninit<ibv_mw> = z();
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_alloc_mw(
                &mut pd,
                2,
                mw.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(2);
        let req = ib_uverbs_alloc_mw::from_bytes(&w[8..]);
        assert_eq!((req.pd_handle, req.mw_type, req.reserved), (5, 2, [0; 3]));
        unsafe { assert_eq!(((*mw.as_ptr()).handle, (*mw.as_ptr()).rkey), (4, 5)) };
    }

    #[test]
    fn alloc_dm_query_mr_and_reg_dm_mr_link_the_drivers_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_ALLOC_DM_HANDLE, 3));
        let mut dm: MaybeUninit<verbs_dm> = z();
        let da = ibv_alloc_dm_attr { length: 4096, log_align_req: 12, comp_mask: 0 };
        let rc = with_fake(&f, || unsafe { ibv_cmd_alloc_dm(ctx.as_mut_ptr(), &da, dm.as_mut_ptr(), ptr::null_mut()) });
        assert_eq!(rc, 0);
        unsafe {
            let d = &*dm.as_ptr();
            assert_eq!((d.handle, d.dm.handle, d.dm.comp_mask), (3, 3, 1));
        }
        let b = f.ioctl(0);
        assert_eq!((u16_at(&b, 40), u16_at(&b, 42), u64_at(&b, 48)), (UVERBS_ATTR_ALLOC_DM_LENGTH as u16, 8, 4096));
        assert_eq!((u16_at(&b, 58), u32_at(&b, 64)), (4, 12));

        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 2 };
        let mut mr: MaybeUninit<verbs_mr> = z();
        f.reply(
            Reply::ioctl()
                .out(UVERBS_ATTR_QUERY_MR_RESP_LKEY, &[1, 0, 0, 0])
                .out(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &[0, 0x10, 0, 0, 0, 0, 0, 0]),
        );
        let rc = with_fake(&f, || unsafe { ibv_cmd_query_mr(&mut pd, mr.as_mut_ptr(), 44) });
        assert_eq!(rc, 0);
        unsafe {
            let m = &*mr.as_ptr();
            assert_eq!(
                (m.ibv_mr.handle, m.ibv_mr.lkey, m.ibv_mr.length, m.mr_type),
                (44, 1, 0x1000, IBV_MR_TYPE_IMPORTED_MR)
            );
        }

        f.reply(Reply::fail(Errno(libc::EOPNOTSUPP)));
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_reg_dm_mr(&mut pd, dm.as_mut_ptr(), 0, 64, 0, mr.as_mut_ptr(), ptr::null_mut())
        });
        assert_eq!(rc, libc::EINVAL, "device memory MRs must be zero based");
    }

    #[test]
    fn the_other_mr_commands_carry_rdma_cores_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut pd = ibv_pd { context: c, handle: 2 };
        let mut sge = [ibv_sge { addr: 1, length: 2, lkey: 3 }; 2];
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_advise_mr(&mut pd, 1, 1, sge.as_mut_ptr(), 2) }), 0);
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR));
        assert_eq!(ids(&f, 0)[3], (UVERBS_ATTR_ADVISE_MR_SGE_LIST as u16, 32));

        let mut mr: MaybeUninit<verbs_mr> = z();
        // rdma-core 44's plug-ins pass seven arguments: whatever is in the eighth is never read.
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0x41));
        let garbage = 0x5a5a_5a5a_5a5a as *mut ibv_command_buffer;
        let rc = with_generation(Generation::R44, || {
            with_fake(&f, || unsafe { ibv_cmd_reg_dmabuf_mr(&mut pd, 8, 4096, 0, 5, 1, mr.as_mut_ptr(), garbage) })
        });
        assert_eq!(rc, 0);
        assert_eq!(obj_method(&f, 1), (UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR));
        assert_eq!(ids(&f, 1).len(), 9);
        unsafe {
            assert_eq!(
                ((*mr.as_ptr()).ibv_mr.handle, (*mr.as_ptr()).mr_type, (*mr.as_ptr()).ibv_mr.addr as usize),
                (0x41, IBV_MR_TYPE_DMABUF_MR, 8)
            )
        };
        // rdma-core 56's mlx5 links its own attributes.
        let mut drv = cbuf(UVERBS_OBJECT_MR as u16, UVERBS_METHOD_REG_DMABUF_MR as u16);
        add(&mut drv, 0x1000, 4, 7);
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0x44));
        let rc = with_generation(Generation::R56, || {
            with_fake(&f, || unsafe { ibv_cmd_reg_dmabuf_mr(&mut pd, 8, 4096, 0, 5, 1, mr.as_mut_ptr(), &mut drv.b) })
        });
        assert_eq!(rc, 0);
        let sent = ids(&f, 2);
        assert_eq!((sent.len(), sent[9]), (10, (0x1000, 4)));
        // ... and may pass none.
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0x45));
        let rc = with_generation(Generation::R56, || {
            with_fake(&f, || unsafe {
                ibv_cmd_reg_dmabuf_mr(&mut pd, 8, 4096, 0, 5, 1, mr.as_mut_ptr(), ptr::null_mut())
            })
        });
        assert_eq!((rc, ids(&f, 3).len()), (0, 9));

        let mut dm: MaybeUninit<verbs_dm> = z();
        unsafe {
            (*dm.as_mut_ptr()).dm.context = c;
            (*dm.as_mut_ptr()).handle = 0x42;
        }
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_REG_DM_MR_HANDLE, 0x43));
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_reg_dm_mr(&mut pd, dm.as_mut_ptr(), 0, 64, IBV_ACCESS_ZERO_BASED, mr.as_mut_ptr(), ptr::null_mut())
        });
        assert_eq!(rc, 0);
        assert_eq!(obj_method(&f, 4), (UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG));
        assert_eq!(ids(&f, 4)[4], (UVERBS_ATTR_REG_DM_MR_DM_HANDLE as u16, 0));
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_free_dm(dm.as_mut_ptr()) }), 0);
        assert_eq!((obj_method(&f, 5), u64_at(&f.ioctl(5), 32)), ((UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE), 0x42));
    }
}
