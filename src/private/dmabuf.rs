//! The provider interface's dma-buf helpers (rdma-core 65, `IBVERBS_PRIVATE_65`): `ibv_cmd_export_dmabuf_fd`
//! (DMABUF_ALLOC, Linux 7.2: a dma-buf of a device page, what mlx5's `dm_export_dmabuf_fd` uses), and the DMA-buf
//! heap allocator mlx5 backs `ibv_alloc_buf` with in confidential-computing guests: `ibv_dmabuf_heap_cc_shared_init`,
//! `ibv_dmabuf_heap_destroy`, `ibv_dmabuf_heap_alloc`, `ibv_dmabuf_heap_free` (rdma-core's `cmd_dmabuf.c`,
//! `dmabuf_heap.c`). The heap is `/dev/dma_heap/system_cc_shared`; buffers are `DMA_HEAP_IOCTL_ALLOC` dma-bufs mapped
//! shared.
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::provider::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::sys::{self, Mmap};
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use std::ffi::{c_int, c_void};
use std::os::fd::{AsFd, FromRawFd, IntoRawFd, OwnedFd};
use std::path::Path;
use std::ptr;

/// `int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off)`.
///
/// DMABUF_ALLOC: a new dma-buf file descriptor for the device page at page offset `pg_off` of the context's
/// mappings. Returns the descriptor, or -1 with `errno` set: `EINVAL` for a context that is not ours; the kernel's
/// (`EPROTONOSUPPORT` before Linux 7.2; `EOPNOTSUPP` from drivers that export none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_export_dmabuf_fd(ctx: *mut ibv_context, pg_off: libc::off_t) -> c_int {
    ffi::boundary("ibv_cmd_export_dmabuf_fd", || -> Result<c_int> {
        // SAFETY: a context of ours (checked by fd_of).
        let u = unsafe { fd_of(ctx) }?;
        let mut c = Cmdb::new(UVERBS_OBJECT_DMABUF, UVERBS_METHOD_DMABUF_ALLOC);
        let h = c.out_obj(UVERBS_ATTR_ALLOC_DMABUF_HANDLE);
        c.in_u64(UVERBS_ATTR_ALLOC_DMABUF_PGOFF, pg_off as u64);
        // SAFETY: no pointer attribute.
        unsafe { c.exec(&u, ptr::null_mut()) }?;
        Ok(c.data(h) as c_int)
    })
    .or_minus_one_errno()
}

/// rdma-core's `struct ibv_dmabuf_heap` (opaque to providers): the heap device, open.
pub struct DmabufHeap {
    fd: OwnedFd,
}

/// The heap `/dev/dma_heap/<name>`, opened read-write, close-on-exec. Errors: `open(2)`'s.
fn heap_open(name: &str) -> Result<Box<DmabufHeap>> {
    let fd = sys::open_rdwr(&Path::new("/dev/dma_heap").join(name))?;
    Ok(Box::new(DmabufHeap { fd }))
}

/// `struct ibv_dmabuf_heap *ibv_dmabuf_heap_cc_shared_init(void)`: opens the confidential-computing shared heap
/// `/dev/dma_heap/system_cc_shared`. Returns the heap, or NULL with `errno` set (`ENOENT` where the kernel has no
/// such heap: every guest here).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dmabuf_heap_cc_shared_init() -> *mut DmabufHeap {
    ffi::boundary("ibv_dmabuf_heap_cc_shared_init", || heap_open("system_cc_shared").map(Box::into_raw)).or_null_errno()
}

/// `void ibv_dmabuf_heap_destroy(struct ibv_dmabuf_heap *heap)`: closes the heap and frees the handle (NULL:
/// nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dmabuf_heap_destroy(heap: *mut DmabufHeap) {
    if !heap.is_null() {
        // SAFETY: a heap of ibv_dmabuf_heap_cc_shared_init, destroyed once (caller's contract).
        drop(unsafe { Box::from_raw(heap) });
    }
}

/// `DMA_HEAP_IOCTL_ALLOC` (`_IOWR('H', 0, struct dma_heap_allocation_data)`, 24 bytes) of `<linux/dma-heap.h>`.
const DMA_HEAP_IOCTL_ALLOC: u32 = 0xc018_4800;

/// `struct dma_heap_allocation_data`.
#[repr(C)]
struct DmaHeapAllocation {
    len: u64,
    fd: u32,
    fd_flags: u32,
    heap_flags: u64,
}
const _: () = assert!(std::mem::size_of::<DmaHeapAllocation>() == 24);

/// A dma-buf of `size` bytes from `heap`, mapped shared read-write.
fn heap_alloc(heap: &DmabufHeap, size: usize) -> Result<(Mmap, OwnedFd)> {
    let mut d =
        DmaHeapAllocation { len: size as u64, fd: 0, fd_flags: (libc::O_RDWR | libc::O_CLOEXEC) as u32, heap_flags: 0 };
    // SAFETY: DMA_HEAP_IOCTL_ALLOC reads and writes exactly this 24-byte struct.
    unsafe { sys::ioctl(heap.fd.as_fd(), DMA_HEAP_IOCTL_ALLOC, ptr::addr_of_mut!(d).cast::<c_void>()) }?;
    // SAFETY: the descriptor the kernel just installed for us.
    let fd = unsafe { sys::adopt_fd(d.fd as i32) }?;
    let map = Mmap::map_shared(fd.as_fd(), size, 0)?;
    Ok((map, fd))
}

/// `void *ibv_dmabuf_heap_alloc(struct ibv_dmabuf_heap *heap, size_t size, int *dmabuf_fd)`: a dma-buf of `size`
/// bytes from `heap`, mapped shared read-write; its descriptor is stored in `*dmabuf_fd`. Returns the mapping, or
/// NULL with `errno` set: `EINVAL` for NULL pointers or a zero size; the ioctl's or `mmap(2)`'s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dmabuf_heap_alloc(
    heap: *mut DmabufHeap,
    size: usize,
    dmabuf_fd: *mut c_int,
) -> *mut c_void {
    ffi::boundary("ibv_dmabuf_heap_alloc", || -> Result<*mut c_void> {
        let (h, out) = (ffi::nonnull(heap)?, ffi::nonnull(dmabuf_fd)?);
        // SAFETY: a live heap (caller's contract).
        let (map, fd) = heap_alloc(unsafe { h.as_ref() }, size)?;
        // SAFETY: the caller's out-pointer.
        unsafe { out.as_ptr().write(fd.into_raw_fd()) };
        Ok(map.into_raw().0.cast::<c_void>())
    })
    .or_null_errno()
}

/// `void ibv_dmabuf_heap_free(void *buf, size_t size, int dmabuf_fd)`: unmaps a buffer of `ibv_dmabuf_heap_alloc`
/// and closes its descriptor (a NULL `buf` only closes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dmabuf_heap_free(buf: *mut c_void, size: usize, dmabuf_fd: c_int) {
    let _ = ffi::boundary("ibv_dmabuf_heap_free", || -> Result<()> {
        if !buf.is_null() {
            // SAFETY: a mapping of ibv_dmabuf_heap_alloc of `size` bytes (caller's contract), unmapped on drop.
            drop(unsafe { Mmap::from_raw(buf.cast::<u8>(), size) }?);
        }
        if dmabuf_fd >= 0 {
            // SAFETY: the descriptor ibv_dmabuf_heap_alloc handed out, closed once (caller's contract).
            drop(unsafe { OwnedFd::from_raw_fd(dmabuf_fd) });
        }
        Ok(())
    });
}

#[cfg(test)]
mod tests {
    use super::super::buffers::testing::*;
    use super::*;
    use rdma_common::Errno;

    #[test]
    fn export_sends_the_page_offset() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_ALLOC_DMABUF_HANDLE, 33));
        // SAFETY: our buffers.
        let fd = with_fake(&f, || unsafe { ibv_cmd_export_dmabuf_fd(ctx.as_mut_ptr(), 5) });
        assert_eq!(fd, 33);
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_DMABUF, UVERBS_METHOD_DMABUF_ALLOC));
        assert_eq!(
            ids(&f, 0),
            [(UVERBS_ATTR_ALLOC_DMABUF_HANDLE as u16, 0), (UVERBS_ATTR_ALLOC_DMABUF_PGOFF as u16, 8)]
        );
        assert_eq!(u64_at(&f.ioctl(0), 24 + 16 + 8), 5);
        f.reply(Reply::fail(Errno(libc::EPROTONOSUPPORT)));
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_export_dmabuf_fd(ctx.as_mut_ptr(), 0) }), -1);
        assert_eq!(Errno::last(), Errno(libc::EPROTONOSUPPORT));
    }

    #[test]
    fn heaps() {
        // SAFETY: no heap handle exists yet; NULL is accepted by destroy and free.
        unsafe {
            let h = ibv_dmabuf_heap_cc_shared_init();
            if h.is_null() {
                assert_ne!(Errno::last(), Errno(0), "errno set");
            }
            ibv_dmabuf_heap_destroy(h);
            ibv_dmabuf_heap_free(ptr::null_mut(), 0, -1);
            let mut fd = -1;
            assert!(ibv_dmabuf_heap_alloc(ptr::null_mut(), 4096, &mut fd).is_null());
            assert_eq!((Errno::last(), fd), (Errno::EINVAL, -1));
        }
        // The ordinary system heap, where the machine has one: a shared mapping of the dma-buf.
        if let Ok(h) = heap_open("system") {
            let h = Box::into_raw(h);
            let mut fd = -1;
            // SAFETY: our heap; the mapping is used within its size and freed once.
            unsafe {
                let p = ibv_dmabuf_heap_alloc(h, 8192, &mut fd);
                assert!(!p.is_null() && fd >= 0);
                ptr::write_bytes(p.cast::<u8>(), 0x3c, 8192);
                ibv_dmabuf_heap_free(p, 8192, fd);
                ibv_dmabuf_heap_destroy(h);
            }
        }
    }
}
