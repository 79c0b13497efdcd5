//! rdma-core 65's defaults for the memory ops a provider may lack: `reg_mr_ex` (the extended registration,
//! translated into the legacy `reg_mr` or `reg_dmabuf_mr` request) and `alloc_buf`/`free_buf` (page-aligned memory,
//! no dma-buf behind it). [`super::Provider`]'s default methods, and a plug-in driver without those ops, use these.
#![allow(unsafe_code)]

use super::verbs::*;
use rdma_common::errno::Result;
use rdma_common::Errno;
use std::ffi::{c_int, c_void};

/// A `reg_mr_ex` request as one of the legacy registrations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyReg {
    /// `reg_mr(pd, addr, length, iova, access)`.
    Addr { addr: *mut c_void, length: usize, iova: u64, access: c_int },
    /// `reg_dmabuf_mr(pd, offset, length, iova, fd, access)`.
    Dmabuf { offset: u64, length: usize, iova: u64, fd: c_int, access: c_int },
}

/// rdma-core 65's default `reg_mr_ex` (dummy_ops.c): only the `IOVA`, `ADDR`, `FD` and `FD_OFFSET` fields can be
/// expressed by the legacy ops (any other `comp_mask` bit, a DMA handle above all, is `EOPNOTSUPP`); a dma-buf
/// request (`FD`) needs `FD_OFFSET` and `IOVA` and must not have `ADDR`; an address request needs `ADDR` and must
/// not have `FD_OFFSET` (`EINVAL` otherwise); its I/O address is `iova` when `IOVA` is set, else the address.
pub fn legacy_form(attr: &ibv_mr_init_attr) -> Result<LegacyReg> {
    let m = attr.comp_mask;
    let supported = IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET;
    if m & !supported != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if m & IBV_REG_MR_MASK_FD != 0 {
        if m & IBV_REG_MR_MASK_ADDR != 0 || m & IBV_REG_MR_MASK_FD_OFFSET == 0 || m & IBV_REG_MR_MASK_IOVA == 0 {
            return Err(Errno::EINVAL);
        }
        return Ok(LegacyReg::Dmabuf {
            offset: attr.fd_offset,
            length: attr.length,
            iova: attr.iova,
            fd: attr.fd,
            access: attr.access,
        });
    }
    if m & IBV_REG_MR_MASK_ADDR == 0 || m & IBV_REG_MR_MASK_FD_OFFSET != 0 {
        return Err(Errno::EINVAL);
    }
    let iova = if m & IBV_REG_MR_MASK_IOVA != 0 { attr.iova } else { attr.addr as usize as u64 };
    Ok(LegacyReg::Addr { addr: attr.addr, length: attr.length, iova, access: attr.access })
}

/// rdma-core 65's default `alloc_buf`: `size` bytes aligned to the page size (`posix_memalign(3)`), described by
/// a new `struct ibv_buf` with no dma-buf behind it (`dmabuf_fd` -1). Returns the handle (whose `addr` is the
/// memory). Errors: `ENOMEM` (or `posix_memalign`'s errno).
pub fn alloc_buf(pd: *mut ibv_pd, size: usize) -> Result<*mut ibv_buf> {
    // SAFETY: sysconf has no preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => 4096,
    };
    let mut mem: *mut c_void = std::ptr::null_mut();
    // SAFETY: `mem` is a valid out-pointer; `page` is a power of two and a multiple of the pointer size.
    match unsafe { libc::posix_memalign(&mut mem, page, size) } {
        0 => {}
        e => return Err(Errno(e)),
    }
    Ok(Box::into_raw(Box::new(ibv_buf { addr: mem, size, pd, dmabuf_fd: -1 })))
}

/// rdma-core 65's default `free_buf`: frees the memory and the handle of an [`alloc_buf`] buffer.
///
/// # Safety
/// `buf` came from [`alloc_buf`] and is freed once.
pub unsafe fn free_buf(buf: *mut ibv_buf) {
    // SAFETY: caller's contract: our Box, its memory from posix_memalign.
    unsafe {
        let b = Box::from_raw(buf);
        libc::free(b.addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    fn attr(comp_mask: u64) -> ibv_mr_init_attr {
        ibv_mr_init_attr {
            length: 4096,
            access: 7,
            comp_mask,
            iova: 0x7000,
            addr: 0x1000 as *mut c_void,
            fd: 5,
            fd_offset: 64,
            dmah: null_mut(),
            buf: null_mut(),
        }
    }

    #[test]
    fn address_form() {
        let r = legacy_form(&attr(IBV_REG_MR_MASK_ADDR)).unwrap();
        assert_eq!(r, LegacyReg::Addr { addr: 0x1000 as *mut c_void, length: 4096, iova: 0x1000, access: 7 });
        let r = legacy_form(&attr(IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA)).unwrap();
        assert_eq!(r, LegacyReg::Addr { addr: 0x1000 as *mut c_void, length: 4096, iova: 0x7000, access: 7 });
        assert_eq!(legacy_form(&attr(0)), Err(Errno::EINVAL), "no address");
        assert_eq!(legacy_form(&attr(IBV_REG_MR_MASK_IOVA)), Err(Errno::EINVAL), "iova alone");
        assert_eq!(
            legacy_form(&attr(IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD_OFFSET)),
            Err(Errno::EINVAL),
            "an offset without an fd"
        );
    }

    #[test]
    fn dmabuf_form() {
        let all = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA;
        let r = legacy_form(&attr(all)).unwrap();
        assert_eq!(r, LegacyReg::Dmabuf { offset: 64, length: 4096, iova: 0x7000, fd: 5, access: 7 });
        assert_eq!(legacy_form(&attr(all | IBV_REG_MR_MASK_ADDR)), Err(Errno::EINVAL), "fd and address");
        assert_eq!(legacy_form(&attr(all & !IBV_REG_MR_MASK_IOVA)), Err(Errno::EINVAL), "no iova");
        assert_eq!(legacy_form(&attr(all & !IBV_REG_MR_MASK_FD_OFFSET)), Err(Errno::EINVAL), "no offset");
    }

    #[test]
    fn what_the_legacy_ops_cannot_express() {
        let a = IBV_REG_MR_MASK_ADDR;
        assert_eq!(legacy_form(&attr(a | IBV_REG_MR_MASK_DMAH)), Err(Errno::EOPNOTSUPP), "a DMA handle");
        assert_eq!(legacy_form(&attr(a | IBV_REG_MR_MASK_BUF)), Err(Errno::EOPNOTSUPP), "an unresolved buffer");
        assert_eq!(legacy_form(&attr(a | 1 << 40)), Err(Errno::EOPNOTSUPP), "an unknown bit");
        // The mask is checked before the forms: an invalid form with an unknown bit is EOPNOTSUPP.
        assert_eq!(legacy_form(&attr(IBV_REG_MR_MASK_DMAH)), Err(Errno::EOPNOTSUPP));
    }

    #[test]
    fn default_buffers_are_page_aligned_without_dmabuf() {
        let pd = 0x10 as *mut ibv_pd;
        let b = alloc_buf(pd, 10000).unwrap();
        // SAFETY: our new buffer.
        unsafe {
            assert_eq!((*b).addr as usize % 4096, 0);
            assert_eq!(((*b).size, (*b).pd, (*b).dmabuf_fd), (10000, pd, -1));
            std::ptr::write_bytes((*b).addr.cast::<u8>(), 0xa5, 10000);
            free_buf(b);
        }
        let b = alloc_buf(pd, 0).unwrap();
        // SAFETY: as above.
        unsafe { free_buf(b) };
        assert_eq!(alloc_buf(pd, usize::MAX - 4095).err(), Some(Errno::ENOMEM));
    }
}
