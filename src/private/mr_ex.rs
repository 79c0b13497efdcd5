//! The provider interface's extended registration (rdma-core 65, `IBVERBS_PRIVATE_65`): `ibv_cmd_reg_mr_ex`, MR's
//! REG_MR ioctl method (Linux 6.17+), with rdma-core's fallback to the legacy REG_MR write command for an address
//! request on a kernel without the method (rdma-core's `cmd_mr.c`). Only mlx5 calls it.
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::buffers::*;
use super::dmah::verbs_dmah;
use super::ioctl::Cmdb;
use crate::kernel;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::{self, addr_of_mut};

/// What REG_MR carries besides the PD: checked and derived from the attributes as rdma-core 65 does.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    fd_based: bool,
    /// `length` for the kernel (`UINT64_MAX` for an implicit on-demand MR).
    length: u64,
    iova: u64,
}

/// rdma-core 65's checks: a dma-buf request needs `FD_OFFSET` and `IOVA` and no `ADDR`; an address request needs
/// `ADDR` and no `FD_OFFSET`, its I/O address defaults to the address, and an on-demand `SIZE_MAX` length (the
/// whole address space) needs a NULL address. `EINVAL` otherwise.
fn request(a: &ibv_mr_init_attr) -> Result<Request> {
    let m = a.comp_mask;
    let fd_based = m & IBV_REG_MR_MASK_FD != 0;
    let mut length = a.length as u64;
    if fd_based {
        if m & IBV_REG_MR_MASK_FD_OFFSET == 0 || m & IBV_REG_MR_MASK_ADDR != 0 {
            return Err(Errno::EINVAL);
        }
    } else {
        if m & IBV_REG_MR_MASK_FD_OFFSET != 0 || m & IBV_REG_MR_MASK_ADDR == 0 {
            return Err(Errno::EINVAL);
        }
        if a.access as c_uint & IBV_ACCESS_ON_DEMAND != 0 && a.length == usize::MAX {
            if !a.addr.is_null() {
                return Err(Errno::EINVAL);
            }
            length = u64::MAX;
        }
    }
    let iova = match (m & IBV_REG_MR_MASK_IOVA != 0, fd_based) {
        (true, _) => a.iova,
        (false, false) => a.addr as usize as u64,
        (false, true) => return Err(Errno::EINVAL),
    };
    Ok(Request { fd_based, length, iova })
}

/// `int ibv_cmd_reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr, struct ibv_mr_init_attr *mr_init_attr)`.
///
/// REG_MR (ioctl): an address range (`addr`) or a dma-buf range (`fd`, `fd_offset`) of `length` bytes, seen at
/// `iova`, with `access` and, with `IBV_REG_MR_MASK_DMAH`, the DMA handle's; fills `handle`, `context`, `lkey`,
/// `rkey`, `mr_type` (`IBV_MR_TYPE_DMABUF_MR` for a dma-buf, else `IBV_MR_TYPE_MR`) and `access`. On a kernel
/// without the method (`ENOTTY`/`EPROTONOSUPPORT`), an address request goes as the legacy REG_MR write command
/// ([`super::mr::ibv_cmd_reg_mr`]); a dma-buf or DMA-handle request is `EOPNOTSUPP`. Errors: `EINVAL` for NULL
/// pointers and the combinations [`request`] refuses; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_mr_ex(
    pd: *mut ibv_pd,
    vmr: *mut verbs_mr,
    mr_init_attr: *mut ibv_mr_init_attr,
) -> c_int {
    ret("ibv_cmd_reg_mr_ex", || {
        let (pd, vmr, a) = (obj(pd)?, obj(vmr)?, obj(mr_init_attr)?);
        // SAFETY: the provider's objects and attributes; a context of ours (checked by fd_of).
        unsafe {
            let a = &*a;
            let r = request(a)?;
            let u = fd_of((*pd).context)?;
            let (mut lkey, mut rkey) = (0u32, 0u32);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_MR);
            if r.fd_based {
                c.in_u64(UVERBS_ATTR_REG_MR_FD_OFFSET, a.fd_offset);
                c.in_fd(UVERBS_ATTR_REG_MR_FD, a.fd);
            } else {
                c.in_u64(UVERBS_ATTR_REG_MR_ADDR, a.addr as usize as u64);
            }
            c.in_u64(UVERBS_ATTR_REG_MR_IOVA, r.iova);
            let h = c.out_obj(UVERBS_ATTR_REG_MR_HANDLE);
            c.out_ptr(UVERBS_ATTR_REG_MR_RESP_LKEY, addr_of_mut!(lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_REG_MR_RESP_RKEY, addr_of_mut!(rkey).cast(), 4)?;
            c.in_obj(UVERBS_ATTR_REG_MR_PD_HANDLE, (*pd).handle);
            c.in_u64(UVERBS_ATTR_REG_MR_LENGTH, r.length);
            c.in_u32(UVERBS_ATTR_REG_MR_ACCESS_FLAGS, a.access as u32);
            let with_dmah = a.comp_mask & IBV_REG_MR_MASK_DMAH != 0;
            if with_dmah {
                let d = obj(a.dmah)?.cast::<verbs_dmah>();
                c.in_obj(UVERBS_ATTR_REG_MR_DMA_HANDLE, (*d).handle);
            }
            match c.exec(&u, ptr::null_mut()) {
                Ok(()) => {}
                Err(e) if kernel::ioctl_unsupported(e) => {
                    if r.fd_based || with_dmah {
                        return Err(Errno::EOPNOTSUPP);
                    }
                    return legacy(pd, vmr, a, r.length, r.iova);
                }
                Err(e) => return Err(e),
            }
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = c.data(h) as u32;
            (*m).context = (*pd).context;
            (*m).lkey = lkey;
            (*m).rkey = rkey;
            (*vmr).mr_type = if r.fd_based { IBV_MR_TYPE_DMABUF_MR } else { IBV_MR_TYPE_MR };
            (*vmr).access = a.access;
        }
        Ok(())
    })
}

/// rdma-core's write fallback: `ibv_cmd_reg_mr` with a command and response of its own (no driver data).
///
/// # Safety
/// As [`ibv_cmd_reg_mr_ex`].
unsafe fn legacy(pd: *mut ibv_pd, vmr: *mut verbs_mr, a: &ibv_mr_init_attr, length: u64, iova: u64) -> Result<()> {
    let mut cmd = [0u8; abi::<ib_uverbs_reg_mr>()];
    let mut resp = [0u8; std::mem::size_of::<ib_uverbs_reg_mr_resp>()];
    // SAFETY: our buffers of the kern-abi sizes; the provider's objects (caller's contract).
    let r = unsafe {
        super::mr::ibv_cmd_reg_mr(
            pd,
            a.addr,
            length as usize,
            iova,
            a.access,
            vmr,
            cmd.as_mut_ptr().cast::<c_void>(),
            cmd.len(),
            resp.as_mut_ptr().cast::<c_void>(),
            resp.len(),
        )
    };
    match r {
        0 => Ok(()),
        e => Err(Errno(e as c_int)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::buffers::testing::*;
    use super::*;

    fn attr(mask: u64) -> ibv_mr_init_attr {
        ibv_mr_init_attr {
            length: 4096,
            access: 1,
            comp_mask: mask,
            iova: 0x9000,
            addr: 0x5000 as *mut c_void,
            fd: 6,
            fd_offset: 128,
            dmah: ptr::null_mut(),
            buf: ptr::null_mut(),
        }
    }

    #[test]
    fn the_request_rules() {
        let (a, i, f, o) = (IBV_REG_MR_MASK_ADDR, IBV_REG_MR_MASK_IOVA, IBV_REG_MR_MASK_FD, IBV_REG_MR_MASK_FD_OFFSET);
        assert_eq!(request(&attr(a)), Ok(Request { fd_based: false, length: 4096, iova: 0x5000 }));
        assert_eq!(request(&attr(a | i)), Ok(Request { fd_based: false, length: 4096, iova: 0x9000 }));
        assert_eq!(request(&attr(f | o | i)), Ok(Request { fd_based: true, length: 4096, iova: 0x9000 }));
        assert_eq!(request(&attr(f | o)), Err(Errno::EINVAL), "an fd request needs its iova");
        assert_eq!(request(&attr(f | i)), Err(Errno::EINVAL), "and its offset");
        assert_eq!(request(&attr(f | o | i | a)), Err(Errno::EINVAL), "and no address");
        assert_eq!(request(&attr(a | o)), Err(Errno::EINVAL));
        assert_eq!(request(&attr(i)), Err(Errno::EINVAL));
        let mut odp = attr(a);
        odp.access = IBV_ACCESS_ON_DEMAND as c_int;
        odp.length = usize::MAX;
        assert_eq!(request(&odp), Err(Errno::EINVAL), "the whole address space from an address");
        odp.addr = ptr::null_mut();
        assert_eq!(request(&odp), Ok(Request { fd_based: false, length: u64::MAX, iova: 0 }));
    }

    #[test]
    fn ioctl_then_write_fallback() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut pd = ibv_pd { context: c, handle: 2 };
        let mut vmr: MaybeUninit<verbs_mr> = z();
        let mut a = attr(IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA);
        f.reply(
            Reply::ioctl()
                .new_obj(UVERBS_ATTR_REG_MR_HANDLE, 12)
                .out(UVERBS_ATTR_REG_MR_RESP_LKEY, &0x11u32.to_ne_bytes())
                .out(UVERBS_ATTR_REG_MR_RESP_RKEY, &0x22u32.to_ne_bytes()),
        );
        // SAFETY: our buffers.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_reg_mr_ex(&mut pd, vmr.as_mut_ptr(), &mut a) }), 0);
        // SAFETY: filled by the call.
        let m = unsafe { vmr.assume_init_ref() };
        assert_eq!((m.ibv_mr.handle, m.ibv_mr.lkey, m.ibv_mr.rkey), (12, 0x11, 0x22));
        assert_eq!((m.mr_type, m.access), (IBV_MR_TYPE_DMABUF_MR, 1));
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_MR, UVERBS_METHOD_REG_MR));
        let first: Vec<(u16, u16)> = ids(&f, 0)[..3].to_vec();
        let want = [(UVERBS_ATTR_REG_MR_FD_OFFSET, 8), (UVERBS_ATTR_REG_MR_FD, 0), (UVERBS_ATTR_REG_MR_IOVA, 8)];
        assert_eq!(first, want.map(|(i, l)| (i as u16, l)));
        assert_eq!(u64_at(&f.ioctl(0), 24 + 16 + 8), 6, "the fd in data");

        // No REG_MR method: a dma-buf request cannot fall back; an address request goes as the write command.
        f.reply(Reply::fail(Errno(libc::EPROTONOSUPPORT)));
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_reg_mr_ex(&mut pd, vmr.as_mut_ptr(), &mut a) }), libc::EOPNOTSUPP);
        let mut a = attr(IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA);
        f.reply(Reply::fail(Errno(libc::EPROTONOSUPPORT)));
        f.reply(Reply::write(&[7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0]));
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_reg_mr_ex(&mut pd, vmr.as_mut_ptr(), &mut a) }), 0);
        // SAFETY: as above.
        let m = unsafe { vmr.assume_init_ref() };
        assert_eq!((m.ibv_mr.handle, m.ibv_mr.lkey, m.ibv_mr.rkey, m.mr_type), (7, 8, 9, IBV_MR_TYPE_MR));
        let w = f.write(0);
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_REG_MR);
        assert_eq!((u64_at(&w, 16), u64_at(&w, 24), u64_at(&w, 32)), (0x5000, 4096, 0x9000), "start, length, hca_va");
    }
}
