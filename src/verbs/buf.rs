//! rdma-core 65's memory entry points: the extended registration `ibv_reg_mr_ex` (`IBVERBS_1.15`) and the
//! provider-allocated buffers `ibv_alloc_buf`, `ibv_reg_buf_mr`, `ibv_export_buf_dmabuf_fd`, `ibv_free_buf`
//! (`IBVERBS_1.17`, `_1.18`). rdma-core 65 has no man pages for them; its `verbs.h` comments and `verbs.c` are
//! what they follow.
//!
//! `ibv_reg_mr_ex` works on a copy of the caller's attributes (only the fields its `comp_mask` names), resolves a
//! buffer from `ibv_alloc_buf` ([`resolve_buf`]) into an address or dma-buf request, marks the range
//! `MADV_DONTFORK` when fork protection is on (not for on-demand or dma-buf MRs), drops the optional access bits
//! the kernel does not know, and registers through the driver (its `reg_mr_ex`, or rdma-core 65's translation into
//! `reg_mr`: `crate::provider::mr_ex`). On rxe and siw, as with rdma-core 65 there, an address request works and
//! anything else fails as the translation says (a DMA handle `EOPNOTSUPP`, a dma-buf `EOPNOTSUPP`).
#![allow(unsafe_code)]

use super::fork;
use crate::object::{registry, Kind};
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_int, c_uint, c_void};
use std::os::fd::IntoRawFd;
use std::ptr::null_mut;

/// rdma-core 65's `fill_mr_init_attr_from_buf`: turns an `IBV_REG_MR_MASK_BUF` request for the buffer `buf`
/// (whose PD must be `pd`) into an address request, or, for a dma-buf backed buffer, into a dma-buf request at the
/// range's offset in the buffer with the address as its I/O address. `EINVAL` when the PD differs, `ADDR` is
/// missing, the range leaves the buffer, `FD`/`FD_OFFSET` are given, or (dma-buf) `IOVA` is given.
pub(crate) fn resolve_buf(pd: *mut ibv_pd, attr: &mut ibv_mr_init_attr, buf: &ibv_buf) -> Result<()> {
    if pd != buf.pd || attr.comp_mask & IBV_REG_MR_MASK_ADDR == 0 {
        return Err(Errno::EINVAL);
    }
    let (base, addr) = (buf.addr as usize, attr.addr as usize);
    let off = addr.checked_sub(base).ok_or(Errno::EINVAL)?;
    if off > buf.size || attr.length > buf.size - off {
        return Err(Errno::EINVAL);
    }
    if attr.comp_mask & (IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET) != 0 {
        return Err(Errno::EINVAL);
    }
    attr.comp_mask &= !IBV_REG_MR_MASK_BUF;
    if buf.dmabuf_fd != -1 {
        if attr.comp_mask & IBV_REG_MR_MASK_IOVA != 0 {
            return Err(Errno::EINVAL);
        }
        attr.comp_mask &= !IBV_REG_MR_MASK_ADDR;
        attr.comp_mask |= IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA;
        attr.fd = buf.dmabuf_fd;
        attr.fd_offset = off as u64;
        attr.iova = addr as u64;
    }
    Ok(())
}

/// The fields of `a` its `comp_mask` names, the others zero (rdma-core 65 never reads or changes the rest of the
/// caller's struct).
fn masked_copy(a: &ibv_mr_init_attr) -> ibv_mr_init_attr {
    let m = a.comp_mask;
    let has = |bit: u64| m & bit != 0;
    ibv_mr_init_attr {
        length: a.length,
        access: a.access,
        comp_mask: m,
        iova: if has(IBV_REG_MR_MASK_IOVA) { a.iova } else { 0 },
        addr: if has(IBV_REG_MR_MASK_ADDR) { a.addr } else { null_mut() },
        fd: if has(IBV_REG_MR_MASK_FD) { a.fd } else { 0 },
        fd_offset: if has(IBV_REG_MR_MASK_FD_OFFSET) { a.fd_offset } else { 0 },
        dmah: if has(IBV_REG_MR_MASK_DMAH) { a.dmah } else { null_mut() },
        buf: if has(IBV_REG_MR_MASK_BUF) { a.buf } else { null_mut() },
    }
}

/// rdma-core 65's `ibv_reg_mr_ex` on a copy of the caller's attributes.
fn reg_mr_ex(pd: *mut ibv_pd, mut attr: ibv_mr_init_attr) -> Result<*mut ibv_mr> {
    // SAFETY: entry-point contract.
    let (pd, ctx) = unsafe { super::pd(pd) }?;
    if attr.comp_mask & IBV_REG_MR_MASK_BUF != 0 {
        let buf = registry::check(attr.buf, Kind::Buf)?;
        // SAFETY: a live buffer handed out by ibv_alloc_buf; read by value.
        let b = unsafe { buf.as_ptr().read() };
        resolve_buf(pd, &mut attr, &b)?;
    }
    let need_fork = attr.access as c_uint & IBV_ACCESS_ON_DEMAND == 0 && attr.comp_mask & IBV_REG_MR_MASK_FD == 0;
    if need_fork {
        fork::dontfork_range(attr.addr, attr.length)?;
    }
    if ctx.core_support() & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS == 0 {
        attr.access = (attr.access as c_uint & !IBV_ACCESS_OPTIONAL_RANGE) as c_int;
    }
    // SAFETY: the PD was checked live and of this context; `attr` is ours.
    let mr = match unsafe { ctx.device.driver.reg_mr_ex(ctx, pd, &mut attr) } {
        Ok(mr) => mr,
        Err(e) => {
            if need_fork {
                let _ = fork::dofork_range(attr.addr, attr.length);
            }
            return Err(e);
        }
    };
    // SAFETY: the driver's new MR.
    unsafe {
        (*mr).context = ctx.ibv();
        (*mr).length = attr.length;
        (*mr).pd = pd;
        (*mr).addr = match attr.comp_mask & IBV_REG_MR_MASK_ADDR {
            0 => attr.fd_offset as usize as *mut c_void,
            _ => attr.addr,
        };
    }
    registry::insert(mr, Kind::Mr);
    Ok(mr)
}

/// `ibv_reg_mr_ex` (rdma-core 65, `IBVERBS_1.15`): registers a memory region as `mr_init_attr` describes: its
/// `comp_mask` (`enum ibv_mr_init_attr_mask`) names the fields that are set: an address range (`ADDR`, `length`
/// bytes at `addr`), a dma-buf range (`FD` and `FD_OFFSET`, `length` bytes at `fd_offset` of the dma-buf `fd`), or
/// a range of a buffer from `ibv_alloc_buf` (`BUF` with `ADDR`), optionally its I/O virtual address (`IOVA`;
/// default the address) and a DMA handle (`DMAH`); `access` is `enum ibv_access_flags` bits. The caller's struct
/// is only read. Fills `lkey`, `rkey`, `handle`, `context`, `pd`, `length` and `addr` (for a dma-buf region the
/// offset, as `ibv_reg_dmabuf_mr(3)`).
///
/// Returns NULL with `errno` set: `EINVAL` for an invalid PD or buffer, a buffer of another PD or a range outside
/// it, and the mask combinations rdma-core 65 refuses (no `ADDR` nor `FD`, `FD` with `ADDR` or without
/// `FD_OFFSET`/`IOVA`, `FD_OFFSET` without `FD`); `EOPNOTSUPP` for what the provider cannot do (rxe and siw: a DMA
/// handle, a dma-buf, an unknown mask bit); `madvise(2)`'s errno when fork protection is on; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_ex(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr {
    ffi::boundary("ibv_reg_mr_ex", || {
        let a = ffi::nonnull(mr_init_attr)?;
        // SAFETY: the caller's attribute struct, read once.
        let a = masked_copy(unsafe { a.as_ref() });
        reg_mr_ex(pd, a)
    })
    .or_null_errno()
}

/// `ibv_reg_buf_mr` (rdma-core 65, `IBVERBS_1.17`): registers `length` bytes at `addr` (in bytes, within the
/// buffer `buf` from `ibv_alloc_buf`) with `access` (`enum ibv_access_flags`): `ibv_reg_mr_ex` with `BUF|ADDR`.
///
/// Returns NULL with `errno` set, as `ibv_reg_mr_ex`: `EINVAL` for an invalid PD or buffer, a buffer of another PD,
/// a range outside the buffer; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_buf_mr(
    pd: *mut ibv_pd,
    buf: *mut ibv_buf,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr {
    ffi::boundary("ibv_reg_buf_mr", || {
        let a = ibv_mr_init_attr {
            length,
            access,
            comp_mask: IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR,
            iova: 0,
            addr,
            fd: 0,
            fd_offset: 0,
            dmah: null_mut(),
            buf,
        };
        reg_mr_ex(pd, a)
    })
    .or_null_errno()
}

/// `ibv_alloc_buf` (rdma-core 65, `IBVERBS_1.17`): allocates `size` bytes the way the PD's provider wants memory
/// it registers, at least page aligned, and stores the handle for `ibv_reg_buf_mr`, `ibv_export_buf_dmabuf_fd` and
/// `ibv_free_buf` in `*buf`. rxe and siw (as every provider of rdma-core 65 but mlx5 in confidential-computing
/// guests) get rdma-core's default: ordinary page-aligned memory, no dma-buf.
///
/// Returns the memory, or NULL with `errno` set: `EINVAL` for an invalid PD or a NULL `buf`; `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_buf(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void {
    ffi::boundary("ibv_alloc_buf", || -> Result<*mut c_void> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        let out = ffi::nonnull(buf)?;
        // SAFETY: a live PD of this context.
        let b = unsafe { ctx.provider.alloc_buf(pd, size) }?;
        registry::insert(b, Kind::Buf);
        // SAFETY: the provider's new buffer; the caller's out-pointer.
        unsafe {
            out.as_ptr().write(b);
            Ok((*b).addr)
        }
    })
    .or_null_errno()
}

/// `ibv_export_buf_dmabuf_fd` (rdma-core 65, `IBVERBS_1.18`): a new close-on-exec file descriptor for the dma-buf
/// behind a buffer from `ibv_alloc_buf` (the caller closes it).
///
/// Returns the descriptor, or -1 with `errno` set: `ENODATA` when ordinary memory backs the buffer (always on rxe
/// and siw), `EINVAL` for an invalid buffer, `fcntl(2)`'s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_export_buf_dmabuf_fd(buf: *mut ibv_buf) -> c_int {
    ffi::boundary("ibv_export_buf_dmabuf_fd", || -> Result<c_int> {
        let b = registry::check(buf, Kind::Buf)?;
        // SAFETY: a live buffer.
        let fd = unsafe { (*b.as_ptr()).dmabuf_fd };
        if fd < 0 {
            return Err(Errno(libc::ENODATA));
        }
        Ok(rdma_common::sys::dup_cloexec(fd)?.into_raw_fd())
    })
    .or_minus_one_errno()
}

/// `ibv_free_buf` (rdma-core 65, `IBVERBS_1.17`): frees a buffer from `ibv_alloc_buf` (deregister its memory
/// regions first). Anything that is not a live buffer of this library is ignored (logged); so is a buffer whose
/// PD was already deallocated (its provider can no longer be reached: the buffer is leaked, where rdma-core would
/// read freed memory).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_free_buf(buf: *mut ibv_buf) {
    let _ = ffi::boundary("ibv_free_buf", || -> Result<()> {
        if buf.is_null() || !registry::remove(buf, Kind::Buf) {
            log::debug!("ibv_free_buf: {buf:p} is not a buffer of ibv_alloc_buf; ignored");
            return Err(Errno::EINVAL);
        }
        // SAFETY: a buffer we handed out (just unregistered).
        let pd = unsafe { (*buf).pd };
        // SAFETY: entry-point contract.
        match unsafe { super::pd(pd) } {
            // SAFETY: the buffer of this PD's provider, freed once (unregistered above).
            Ok((_, ctx)) => unsafe { ctx.provider.free_buf(buf) },
            Err(_) => log::warn!("ibv_free_buf: the PD {pd:p} of buffer {buf:p} is gone; buffer leaked"),
        }
        Ok(())
    });
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_reg_mr_ex, ibv_reg_buf_mr, ibv_alloc_buf, ibv_export_buf_dmabuf_fd, ibv_free_buf,
);

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(comp_mask: u64, addr: usize, length: usize) -> ibv_mr_init_attr {
        ibv_mr_init_attr {
            length,
            access: 1,
            comp_mask,
            iova: 0,
            addr: addr as *mut c_void,
            fd: 0,
            fd_offset: 0,
            dmah: null_mut(),
            buf: null_mut(),
        }
    }
    const PD: *mut ibv_pd = 0x40 as *mut ibv_pd;
    fn buf(dmabuf_fd: c_int) -> ibv_buf {
        ibv_buf { addr: 0x10000 as *mut c_void, size: 0x4000, pd: PD, dmabuf_fd }
    }
    const BA: u64 = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR;

    #[test]
    fn ordinary_buffer_becomes_an_address_request() {
        let mut a = attr(BA, 0x11000, 0x1000);
        resolve_buf(PD, &mut a, &buf(-1)).unwrap();
        assert_eq!(a.comp_mask, IBV_REG_MR_MASK_ADDR);
        assert_eq!((a.addr as usize, a.length), (0x11000, 0x1000));
        let mut a = attr(BA | IBV_REG_MR_MASK_IOVA, 0x10000, 0x4000);
        resolve_buf(PD, &mut a, &buf(-1)).expect("the whole buffer, with an iova");
        assert_eq!(a.comp_mask, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA);
    }

    #[test]
    fn dmabuf_buffer_becomes_a_dmabuf_request() {
        let mut a = attr(BA, 0x12000, 0x800);
        resolve_buf(PD, &mut a, &buf(7)).unwrap();
        assert_eq!(a.comp_mask, IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA);
        assert_eq!((a.fd, a.fd_offset, a.iova), (7, 0x2000, 0x12000));
        let mut a = attr(BA | IBV_REG_MR_MASK_IOVA, 0x12000, 0x800);
        assert_eq!(resolve_buf(PD, &mut a, &buf(7)), Err(Errno::EINVAL), "no iova of one's own on a dma-buf");
    }

    #[test]
    fn refusals() {
        let ok = |a: &mut ibv_mr_init_attr| resolve_buf(PD, a, &buf(-1));
        assert_eq!(resolve_buf(0x80 as *mut ibv_pd, &mut attr(BA, 0x10000, 1), &buf(-1)), Err(Errno::EINVAL), "PD");
        assert_eq!(ok(&mut attr(IBV_REG_MR_MASK_BUF, 0x10000, 1)), Err(Errno::EINVAL), "no ADDR");
        assert_eq!(ok(&mut attr(BA, 0xffff, 1)), Err(Errno::EINVAL), "below the buffer");
        assert_eq!(ok(&mut attr(BA, 0x13fff, 2)), Err(Errno::EINVAL), "past its end");
        assert_eq!(ok(&mut attr(BA, 0x14001, 0)), Err(Errno::EINVAL), "start past its end");
        ok(&mut attr(BA, 0x14000, 0)).expect("an empty range at the end is inside (rdma-core's check)");
        assert_eq!(ok(&mut attr(BA, 0x10000, usize::MAX)), Err(Errno::EINVAL), "no overflow");
        assert_eq!(ok(&mut attr(BA | IBV_REG_MR_MASK_FD, 0x10000, 1)), Err(Errno::EINVAL), "FD");
        assert_eq!(ok(&mut attr(BA | IBV_REG_MR_MASK_FD_OFFSET, 0x10000, 1)), Err(Errno::EINVAL), "FD_OFFSET");
    }

    #[test]
    fn only_the_masked_fields_are_copied() {
        let full = ibv_mr_init_attr {
            length: 9,
            access: 3,
            comp_mask: IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_BUF,
            iova: 5,
            addr: 0x1000 as *mut c_void,
            fd: 4,
            fd_offset: 6,
            dmah: 0x18 as *mut ibv_dmah,
            buf: 0x10 as *mut ibv_buf,
        };
        let c = masked_copy(&full);
        assert_eq!((c.length, c.access, c.comp_mask), (9, 3, full.comp_mask));
        assert_eq!((c.addr, c.buf), (full.addr, full.buf));
        assert_eq!((c.iova, c.fd, c.fd_offset, c.dmah), (0, 0, 0, null_mut()));
    }
}
