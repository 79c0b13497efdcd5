//! The provider interface's address handle and multicast commands: `ibv_cmd_create_ah`, `_destroy_ah`,
//! `_attach_mcast`, `_detach_mcast` (rdma-core's `cmd.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use crate::kernel;
use crate::provider::marshall;
use crate::provider::verbs::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::AsBytes;
use std::ffi::{c_int, c_void};

/// `int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
/// struct ib_uverbs_create_ah_resp *resp, size_t resp_size)`.
///
/// CREATE_AH of the address vector `attr` on `pd` (`user_handle` is `ah`), the response and the driver's straight
/// into `resp`; fills `handle` and `context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_ah(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_ah", || {
        let (pd, ah, attr) = (obj(pd)?, obj(ah)?, obj(attr)?);
        // SAFETY: the provider's objects and buffer.
        unsafe {
            let req = kernel::ah::create_ah_cmd(ah as u64, (*pd).handle, &marshall::ah_attr_to_kern(&*attr));
            let u = fd_of((*pd).context)?;
            let r: ib_uverbs_create_ah_resp =
                write_direct(&u, IB_USER_VERBS_CMD_CREATE_AH, req.as_bytes(), &[], resp, resp_size)?;
            (*ah).handle = r.ah_handle;
            (*ah).context = (*pd).context;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_ah(struct ibv_ah *ah)`: DESTROY_AH. Errors: the kernel's; a forgiven `EIO` as for
/// [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_ah(ah: *mut ibv_ah) -> c_int {
    ret("ibv_cmd_destroy_ah", || {
        let ah = obj(ah)?;
        // SAFETY: the provider's live AH.
        unsafe {
            let u = fd_of((*ah).context)?;
            destroyed(kernel::ah::destroy_ah(&u, (*ah).handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)`: ATTACH_MCAST of the QP
/// to the group `gid`/`lid`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    ret("ibv_cmd_attach_mcast", || {
        let (qp, gid) = (obj(qp)?, obj(gid.cast_mut())?);
        // SAFETY: the provider's live QP; a GID is 16 plain bytes.
        unsafe { kernel::mcast::attach_mcast(&fd_of((*qp).context)?, (*qp).handle, &(*gid).raw, lid) }
    })
}

/// `int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)`: DETACH_MCAST. Errors:
/// the kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    ret("ibv_cmd_detach_mcast", || {
        let (qp, gid) = (obj(qp)?, obj(gid.cast_mut())?);
        // SAFETY: the provider's live QP; a GID is 16 plain bytes.
        unsafe {
            destroyed(kernel::mcast::detach_mcast(&fd_of((*qp).context)?, (*qp).handle, &(*gid).raw, lid))?;
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
    fn ah_and_multicast_commands_marshal_as_the_kernel_expects() {
        let f = Fake::new();
        objects!(ctx, c, pd, cq, srq, qp, ch);
        // CREATE_AH (response and driver response in the provider's buffer), DESTROY_AH, multicast.
        let mut ah: MaybeUninit<ibv_ah> = z();
        let mut aa: MaybeUninit<ibv_ah_attr> = z();
        unsafe {
            (*aa.as_mut_ptr()).dlid = 0x77;
            (*aa.as_mut_ptr()).grh.dgid.raw = [1; 16];
        }
        let mut aresp = [0u8; 8];
        let w = run(&f, Reply::write(&[0x21, 0, 0, 0, 5, 5, 5, 5]), &mut || unsafe {
            ibv_cmd_create_ah(&mut pd, ah.as_mut_ptr(), aa.as_mut_ptr(), aresp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_AH, 16, 2));
        assert_eq!(u64_at(&w, 8), aresp.as_ptr() as u64);
        let r = ib_uverbs_create_ah::from_bytes(&w[8..]);
        assert_eq!((r.user_handle, r.pd_handle, r.attr.dlid, r.attr.grh.dgid), (ah.as_ptr() as u64, 2, 0x77, [1; 16]));
        assert_eq!(aresp, [0x21, 0, 0, 0, 5, 5, 5, 5]);
        unsafe { (*ah.as_mut_ptr()).context = c };
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_destroy_ah(ah.as_mut_ptr()) });
        assert_eq!(w, [IB_USER_VERBS_CMD_DESTROY_AH as u8, 0, 0, 0, 3, 0, 0, 0, 0x21, 0, 0, 0]);
        let gid = ibv_gid { raw: [2; 16] };
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_attach_mcast(qp.as_mut_ptr(), &gid, 0xc001) });
        assert_eq!(
            (hdr(&w), &w[8..24], u32_at(&w, 24), u16_at(&w, 28)),
            ((IB_USER_VERBS_CMD_ATTACH_MCAST, 8, 0), &[2u8; 16][..], 5, 0xc001)
        );
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_detach_mcast(qp.as_mut_ptr(), &gid, 0xc001) });
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_DETACH_MCAST);
    }
}
