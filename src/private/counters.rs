//! The provider interface's counters commands (ioctl only): `ibv_cmd_create_counters`, `_destroy_counters`,
//! `_read_counters` (rdma-core's `cmd_counters.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::errno::Errno;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use std::ffi::c_int;
use std::ptr::{self};

/// `int ibv_cmd_create_counters(struct ibv_context *context, struct ibv_counters_init_attr *init_attr,
/// struct verbs_counters *vcounters, struct ibv_command_buffer *link)`.
///
/// COUNTERS_CREATE (ioctl only) with the provider's attributes `link`; fills `counters.context` and `handle`.
/// Errors: `EOPNOTSUPP` for any `comp_mask` bit; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_counters(
    context: *mut ibv_context,
    init_attr: *mut ibv_counters_init_attr,
    vcounters: *mut verbs_counters,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_counters", || {
        let (a, vc) = (obj(init_attr)?, obj(vcounters)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            if (*a).comp_mask != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            let u = fd_of(context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE);
            let h = c.out_obj(UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
            c.exec(&u, link)?;
            (*vc).counters.context = context;
            (*vc).handle = c.data(h) as u32;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)`: COUNTERS_DESTROY (ioctl only). Errors: the
/// kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_counters(vcounters: *mut verbs_counters) -> c_int {
    ret("ibv_cmd_destroy_counters", || {
        let vc = obj(vcounters)?;
        // SAFETY: the provider's live counters object.
        unsafe {
            let u = fd_of((*vc).counters.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY);
            c.in_obj(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, (*vc).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_read_counters(struct verbs_counters *vcounters, uint64_t *counters_value, uint32_t ncounters,
/// uint32_t flags, struct ibv_command_buffer *link)`: COUNTERS_READ (ioctl only) of `ncounters` values into
/// `counters_value`, with the provider's attributes `link`. Errors: `EINVAL` for more than 8191 counters; the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_read_counters(
    vcounters: *mut verbs_counters,
    counters_value: *mut u64,
    ncounters: u32,
    flags: u32,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_read_counters", || {
        let vc = obj(vcounters)?;
        // SAFETY: the provider's live counters object, its value array and attribute chain.
        unsafe {
            let u = fd_of((*vc).counters.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ);
            c.in_obj(UVERBS_ATTR_READ_COUNTERS_HANDLE, (*vc).handle);
            let len = (ncounters as usize).checked_mul(8).ok_or(Errno::EINVAL)?;
            c.out_ptr(UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value.cast(), len)?;
            c.in_u32(UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
            c.exec(&u, link)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    #[test]
    fn create_counters_links_the_drivers_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 6));
        let mut drv = cbuf(UVERBS_OBJECT_COUNTERS as u16, UVERBS_METHOD_COUNTERS_CREATE as u16);
        add(&mut drv, 0x1000, 8, 0x0102030405060708);
        let mut vc: MaybeUninit<verbs_counters> = z();
        let mut ia = ibv_counters_init_attr { comp_mask: 0 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_counters(ctx.as_mut_ptr(), &mut ia, vc.as_mut_ptr(), &mut drv.b)
        });
        assert_eq!(rc, 0);
        unsafe { assert_eq!(((*vc.as_ptr()).handle, (*vc.as_ptr()).counters.context), (6, ctx.as_mut_ptr())) };
        let b = f.ioctl(0);
        assert_eq!(u16_at(&b, 6), 2);
        assert_eq!(
            (u16_at(&b, 24), u16_at(&b, 40), u64_at(&b, 48)),
            (UVERBS_ATTR_CREATE_COUNTERS_HANDLE as u16, 0x1000, 0x0102030405060708)
        );
    }

    #[test]
    fn read_and_destroy_counters_carry_rdma_cores_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut vc: MaybeUninit<verbs_counters> = z();
        let mut vals = [0u64; 2];
        unsafe { (*vc.as_mut_ptr()).counters.context = c };
        f.reply(Reply::ioctl().out(UVERBS_ATTR_READ_COUNTERS_BUFF, &[1, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(
            with_fake(&f, || unsafe {
                ibv_cmd_read_counters(vc.as_mut_ptr(), vals.as_mut_ptr(), 2, 1, ptr::null_mut())
            }),
            0
        );
        assert_eq!(
            ids(&f, 0),
            [
                (UVERBS_ATTR_READ_COUNTERS_HANDLE as u16, 0),
                (UVERBS_ATTR_READ_COUNTERS_BUFF as u16, 16),
                (UVERBS_ATTR_READ_COUNTERS_FLAGS as u16, 4)
            ]
        );
        assert_eq!(vals[0], 1);
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_destroy_counters(vc.as_mut_ptr()) }), 0);
        assert_eq!(obj_method(&f, 1), (UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY));
    }
}
