//! The provider interface's PD and XRC domain commands: `ibv_cmd_alloc_pd`, `_dealloc_pd`, `_open_xrcd`,
//! `_close_xrcd` (rdma-core's `cmd.c`, `cmd_pd.c`, `cmd_xrcd.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use crate::kernel;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::Errno;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::AsBytes;
use std::ffi::{c_int, c_void};
use std::mem::offset_of;

/// `int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
/// size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)`.
///
/// ALLOC_PD with the provider's driver data, the response straight into `resp`; fills `pd->handle` and
/// `pd->context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_pd(
    context: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_alloc_pd", || {
        let pd = obj(pd)?;
        // SAFETY: a context of ours (checked) and the provider's buffers.
        unsafe {
            let u = fd_of(context)?;
            let req: ib_uverbs_alloc_pd = core_of(cmd, cmd_size, HDR)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_alloc_pd>());
            let r: ib_uverbs_alloc_pd_resp =
                write_direct(&u, IB_USER_VERBS_CMD_ALLOC_PD, req.as_bytes(), udata, resp, resp_size)?;
            (*pd).handle = r.pd_handle;
            (*pd).context = context;
        }
        Ok(())
    })
}

/// `int ibv_cmd_dealloc_pd(struct ibv_pd *pd)`: DEALLOC_PD. Errors: `EBUSY` while objects use it; `EIO` from a
/// disassociated device counts as success when `verbs_allow_disassociate_destroy` is set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    ret("ibv_cmd_dealloc_pd", || {
        let pd = obj(pd)?;
        // SAFETY: the provider's live PD of a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            destroyed(kernel::pd::dealloc_pd(&u, (*pd).handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size,
/// struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd, size_t cmd_size,
/// struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)`.
///
/// OPEN_XRCD of the inode behind `attr->fd` with `attr->oflags`; fills `xrcd->xrcd.context`, and `handle` with
/// `comp_mask = VERBS_XRCD_HANDLE` when `vxrcd_size` covers it (else `comp_mask` 0). Errors: `EOPNOTSUPP` for
/// unknown `comp_mask` bits, `EINVAL` without the FD and OFLAGS bits; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_open_xrcd(
    context: *mut ibv_context,
    xrcd: *mut verbs_xrcd,
    vxrcd_size: c_int,
    attr: *mut ibv_xrcd_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_open_xrcd", || {
        let (xrcd, attr) = (obj(xrcd)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let a = &*attr;
            if a.comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED {
                return Err(Errno::EOPNOTSUPP);
            }
            let need = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
            if a.comp_mask & need != need {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let req = kernel::xrcd::open_xrcd_cmd(core_of(cmd, cmd_size, HDR)?, a.fd, a.oflags as u32);
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_open_xrcd>());
            let r: ib_uverbs_open_xrcd_resp =
                write_direct(&u, IB_USER_VERBS_CMD_OPEN_XRCD, req.as_bytes(), udata, resp, resp_size)?;
            (*xrcd).xrcd.context = context;
            (*xrcd).comp_mask = 0;
            if offset_of!(verbs_xrcd, handle) < vxrcd_size.max(0) as usize {
                (*xrcd).comp_mask = VERBS_XRCD_HANDLE;
                (*xrcd).handle = r.xrcd_handle;
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)`: CLOSE_XRCD. Errors: `EBUSY` while QPs or SRQs use it; a
/// forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_close_xrcd(xrcd: *mut verbs_xrcd) -> c_int {
    ret("ibv_cmd_close_xrcd", || {
        let x = obj(xrcd)?;
        // SAFETY: the provider's live XRCD.
        unsafe {
            let u = fd_of((*x).xrcd.context)?;
            destroyed(kernel::xrcd::close_xrcd(&u, (*x).handle))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use std::ptr;
    #[test]
    fn alloc_pd_writes_the_providers_command_and_response_in_place() {
        let f = Fake::new();
        f.reply(Reply::write(&[7, 0, 0, 0, 0xd1, 0xd2, 0xd3, 0xd4]));
        let mut cmd = prov_cmd(8, 8, 0x55, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut resp = [0u8; 8];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ptr::null_mut(), handle: 0 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_alloc_pd(ctx.as_mut_ptr(), &mut pd, cmd.as_mut_ptr().cast(), cmd.len(), resp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(rc, 0);
        assert_eq!((pd.handle, pd.context), (7, ctx.as_mut_ptr()));
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_ALLOC_PD, 6, 2));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64, "response is the provider's buffer");
        assert_eq!(&w[16..], &[1, 2, 3, 4, 5, 6, 7, 8], "driver data appended");
        assert_eq!(&resp[4..], &[0xd1, 0xd2, 0xd3, 0xd4], "driver response in place");
    }
}
