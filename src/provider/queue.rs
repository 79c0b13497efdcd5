//! What the native providers' queues live in: [`QueueMemory`], the memory a queue shared with the kernel is mapped
//! at (the kernel's pages from the uverbs fd, an [`Mmap`]; in unit tests a heap buffer). rxe's rings
//! (`rxe::queue`) and siw's slot arrays (`siw::queue`) both own one; each provider's own layout and protocol stay
//! in its directory.
#![allow(unsafe_code)]

use rdma_common::sys::Mmap;

/// Memory a queue lives in: the kernel's pages mapped from the uverbs fd, or (in tests) a heap buffer.
///
/// # Safety
/// `as_ptr()` must be valid for reads and writes of `len()` bytes, aligned to 8 bytes at least, for as long as
/// the value lives, and must not move.
pub unsafe trait QueueMemory: Send + Sync {
    /// Start of the memory (for rxe, the `rxe_queue_buf` header; for siw, the first slot).
    fn as_ptr(&self) -> *mut u8;
    /// Length in bytes.
    fn size(&self) -> usize;
}

// SAFETY: a live MAP_SHARED mapping, page-aligned, unmapped only on drop.
unsafe impl QueueMemory for Mmap {
    fn as_ptr(&self) -> *mut u8 {
        Mmap::as_ptr(self)
    }
    fn size(&self) -> usize {
        Mmap::len(self)
    }
}

/// What holds a queue's memory: the kernel's mapping itself (no allocation beside the queue), or, in unit tests
/// only, any other [`QueueMemory`] (heap rings). A one-variant enum in the library: exactly an [`Mmap`], 16 bytes
/// (a `Box<dyn QueueMemory>` beside a copy of its address took 24). rxe's and siw's queues both hold one.
pub(crate) enum Backing {
    Mapped(Mmap),
    #[cfg(test)]
    Other(Box<dyn QueueMemory>),
}

impl Backing {
    /// Start of the memory (for rxe, the `rxe_queue_buf` header; for siw, the first slot).
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        match self {
            Backing::Mapped(m) => m.as_ptr(),
            #[cfg(test)]
            Backing::Other(m) => m.as_ptr(),
        }
    }

    /// Length in bytes.
    pub(crate) fn size(&self) -> usize {
        match self {
            Backing::Mapped(m) => m.len(),
            #[cfg(test)]
            Backing::Other(m) => m.size(),
        }
    }
}

/// Heap memory standing in for the kernel's queues in unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::QueueMemory;

    /// Zeroed, 8-aligned heap memory (the kernel's queues come from `vmalloc_user`: zeroed).
    pub struct HeapMemory {
        buf: Box<[u64]>,
    }

    // SAFETY: the boxed slice never moves and is 8-aligned.
    unsafe impl QueueMemory for HeapMemory {
        fn as_ptr(&self) -> *mut u8 {
            self.buf.as_ptr() as *mut u8
        }
        fn size(&self) -> usize {
            self.buf.len() * 8
        }
    }

    impl HeapMemory {
        /// `len` zero bytes (rounded up to a multiple of 8).
        pub fn new(len: usize) -> Box<HeapMemory> {
            Box::new(HeapMemory { buf: vec![0u64; len.div_ceil(8)].into_boxed_slice() })
        }
    }
}
