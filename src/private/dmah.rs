//! The provider interface's DMA-handle commands (rdma-core 65, `IBVERBS_PRIVATE_65`; ioctl only):
//! `ibv_cmd_alloc_dmah`, `ibv_cmd_free_dmah` (rdma-core's `cmd_dmah.c`). Only mlx5 calls them.
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::provider::verbs::*;
use rdma_common::abi::enums::*;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use std::ffi::c_int;
use std::ptr::{self, addr_of};

/// rdma-core 65's `struct verbs_dmah` (driver.h): the public handle and the kernel's handle after it, 16 bytes.
#[repr(C)]
pub struct verbs_dmah {
    pub dmah: ibv_dmah,
    pub handle: u32,
}
const _: () = assert!(std::mem::size_of::<verbs_dmah>() == 16 && std::mem::offset_of!(verbs_dmah, handle) == 8);

/// `int ibv_cmd_alloc_dmah(struct ibv_context *ctx, struct verbs_dmah *dmah, struct ibv_dmah_init_attr *attr)`.
///
/// DMAH_ALLOC: a DMA handle with the attributes `attr->comp_mask` names (`CPU_ID` as a u32, `TPH_MEM_TYPE` as the
/// enum's element, `PH` as one byte); fills `handle` and `dmah.context`. Errors: `EINVAL` for NULL pointers; the
/// kernel's (`EPROTONOSUPPORT` before Linux 6.17, which has no DMAH object; `EOPNOTSUPP` from drivers without it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_dmah(
    ctx: *mut ibv_context,
    dmah: *mut verbs_dmah,
    attr: *mut ibv_dmah_init_attr,
) -> c_int {
    ret("ibv_cmd_alloc_dmah", || {
        let (d, a) = (obj(dmah)?, obj(attr)?);
        // SAFETY: the provider's objects; a context of ours (checked by fd_of).
        unsafe {
            let u = fd_of(ctx)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_ALLOC);
            let h = c.out_obj(UVERBS_ATTR_ALLOC_DMAH_HANDLE);
            let m = (*a).comp_mask;
            if m & IBV_DMAH_INIT_ATTR_MASK_CPU_ID != 0 {
                c.in_u32(UVERBS_ATTR_ALLOC_DMAH_CPU_ID, (*a).cpu_id);
            }
            if m & IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE != 0 {
                c.in_enum(UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE, (*a).tph_mem_type, ptr::null(), 0)?;
            }
            if m & IBV_DMAH_INIT_ATTR_MASK_PH != 0 {
                c.in_ptr(UVERBS_ATTR_ALLOC_DMAH_PH, addr_of!((*a).ph).cast(), 1)?;
            }
            c.exec(&u, ptr::null_mut())?;
            (*d).handle = c.data(h) as u32;
            (*d).dmah.context = ctx;
        }
        Ok(())
    })
}

/// `int ibv_cmd_free_dmah(struct verbs_dmah *dmah)`: DMAH_FREE. Errors: `EINVAL` for NULL; the kernel's (`EBUSY`
/// while a memory region uses it); a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_free_dmah(dmah: *mut verbs_dmah) -> c_int {
    ret("ibv_cmd_free_dmah", || {
        let d = obj(dmah)?;
        // SAFETY: the provider's live handle.
        unsafe {
            let u = fd_of((*d).dmah.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_FREE);
            c.in_obj(UVERBS_ATTR_FREE_DMA_HANDLE, (*d).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::buffers::testing::*;
    use super::*;

    #[test]
    fn alloc_sends_only_the_masked_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut d: MaybeUninit<verbs_dmah> = z();
        let mut a = ibv_dmah_init_attr {
            comp_mask: IBV_DMAH_INIT_ATTR_MASK_CPU_ID | IBV_DMAH_INIT_ATTR_MASK_PH,
            cpu_id: 3,
            ph: 2,
            tph_mem_type: 1,
        };
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_ALLOC_DMAH_HANDLE, 41));
        // SAFETY: our buffers.
        let r = with_fake(&f, || unsafe { ibv_cmd_alloc_dmah(c, d.as_mut_ptr(), &mut a) });
        assert_eq!(r, 0);
        // SAFETY: filled by the call.
        unsafe { assert_eq!(((*d.as_ptr()).handle, (*d.as_ptr()).dmah.context), (41, c)) };
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_ALLOC));
        let got: Vec<u32> = ids(&f, 0).iter().map(|&(i, _)| i as u32).collect();
        assert_eq!(got, [UVERBS_ATTR_ALLOC_DMAH_HANDLE, UVERBS_ATTR_ALLOC_DMAH_CPU_ID, UVERBS_ATTR_ALLOC_DMAH_PH]);
        let b = f.ioctl(0);
        assert_eq!(u32_at(&b, 24 + 16 + 8), 3, "cpu id inline");
        assert_eq!(b[24 + 32 + 8], 2, "ph inline");
        a.comp_mask = IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE;
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_ALLOC_DMAH_HANDLE, 42));
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_alloc_dmah(c, d.as_mut_ptr(), &mut a) }), 0);
        let b = f.ioctl(1);
        assert_eq!(u16_at(&b, 24 + 16) as u32, UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE);
        assert_eq!((u16_at(&b, 24 + 16 + 2), b[24 + 16 + 6]), (0, 1), "no data; the element is the memory type");
        f.reply(Reply::ioctl());
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_free_dmah(d.as_mut_ptr()) }), 0);
        assert_eq!(ids(&f, 2), [(UVERBS_ATTR_FREE_DMA_HANDLE as u16, 0)]);
        assert_eq!(u32_at(&f.ioctl(2), 24 + 8), 42);
    }
}
