//! [`Mmap`]: a shared mapping of kernel memory (rxe's queues, siw's rings), unmapped on drop.
#![allow(unsafe_code)]

use crate::errno::{Errno, Result};
use std::ffi::c_void;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::ptr::NonNull;

/// A `MAP_SHARED`, read-write mapping of `len` bytes of a file (a uverbs fd, at the `offset` key the kernel gave in
/// a command response), unmapped when dropped.
///
/// The memory is shared with the kernel, which reads and writes it concurrently: it is only ever reached through
/// the raw pointer [`Mmap::as_ptr`], never through a Rust reference, and each access states who owns the slot and
/// the ordering it needs (see the provider's queue code).
#[derive(Debug)]
pub struct Mmap {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a Mmap is an address range; moving or sharing the handle between threads is safe, and every access to
// the memory goes through raw pointers whose synchronisation is the user's (the queue protocol).
unsafe impl Send for Mmap {}
// SAFETY: as above; `&Mmap` only exposes the address and length.
unsafe impl Sync for Mmap {}

impl Mmap {
    /// `mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)`.
    /// Errors: `EINVAL` for `len == 0` or an offset beyond `off_t`; otherwise the `mmap(2)` errno.
    pub fn map_shared(fd: BorrowedFd<'_>, len: usize, offset: u64) -> Result<Mmap> {
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        let off = libc::off_t::try_from(offset).map_err(|_| Errno::EINVAL)?;
        // SAFETY: a fresh mapping chosen by the kernel (NULL hint) cannot alias any Rust object.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                off,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Errno::last());
        }
        Ok(Mmap { ptr: NonNull::new(p.cast::<u8>()).ok_or(Errno::EIO)?, len })
    }

    /// The first byte of the mapping.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The mapping's length in bytes (as requested; the kernel rounds the mapping itself up to pages).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Gives the mapping up to a C caller (rdma-core's `ibv_dmabuf_heap_alloc` returns the address): the address and
    /// length, no longer unmapped on drop; [`Mmap::from_raw`] takes it back.
    pub fn into_raw(self) -> (*mut u8, usize) {
        let r = (self.ptr.as_ptr(), self.len);
        std::mem::forget(self);
        r
    }

    /// The mapping [`Mmap::into_raw`] gave up (to unmap it by dropping). `EINVAL` for NULL.
    ///
    /// # Safety
    /// `ptr` and `len` come from [`Mmap::into_raw`] and the range was not unmapped since.
    pub unsafe fn from_raw(ptr: *mut u8, len: usize) -> Result<Mmap> {
        Ok(Mmap { ptr: NonNull::new(ptr).ok_or(Errno::EINVAL)?, len })
    }

    /// Always false: a mapping has at least one byte.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        // SAFETY: this range was returned by mmap and is unmapped exactly once, here; no reference into it exists.
        let r = unsafe { libc::munmap(self.ptr.as_ptr().cast::<c_void>(), self.len) };
        if r != 0 {
            log::warn!("munmap({:p}, {}) failed: {}", self.ptr, self.len, Errno::last());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsFd;

    #[test]
    fn shared_mapping_reaches_the_file() {
        let mut f = tempfile();
        f.write_all(&[0u8; 8192]).unwrap();
        let m = Mmap::map_shared(f.as_fd(), 8192, 4096).unwrap();
        assert_eq!(m.len(), 8192);
        // SAFETY: the mapping is 8192 writable bytes and nothing else accesses it.
        unsafe { m.as_ptr().add(1).write(0x5a) };
        drop(m);
        let mut buf = Vec::new();
        f.rewind().unwrap();
        f.read_to_end(&mut buf).unwrap();
        assert_eq!(buf[4097], 0x5a);
        assert_eq!(Mmap::map_shared(f.as_fd(), 0, 0).unwrap_err(), Errno::EINVAL);
        assert_eq!(Mmap::map_shared(f.as_fd(), 4096, 1).unwrap_err(), Errno::EINVAL);
        // unaligned offset
    }

    fn tempfile() -> std::fs::File {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("rdma-common-mmap-{}-{:?}", std::process::id(), std::thread::current().id()));
        let f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        f
    }
}
