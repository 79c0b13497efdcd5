//! The ring Soft-RoCE shares with the kernel: `struct rxe_queue_buf` followed by `2^n` slots.
//!
//! ```text
//!   offset 0    log2_elem_size, index_mask       written once by the kernel at create/resize time
//!   offset 128  producer_index                   its own cache line
//!   offset 256  consumer_index                   its own cache line
//!   offset 384  slot[0] .. slot[index_mask]      each 1 << log2_elem_size bytes
//! ```
//!
//! The protocol (Linux 6.1 `drivers/infiniband/sw/rxe/rxe_queue.h`, unchanged through 6.12; rdma-core 44
//! `providers/rxe/rxe_queue.h`):
//!
//! * Indices always lie in `[0, index_mask]`; whoever advances one masks the new value. The queue is empty when
//!   `producer == consumer` and full when `(producer + 1) & index_mask == consumer`: one slot always stays empty,
//!   so a queue of `index_mask + 1` slots holds at most `index_mask` entries.
//! * Each index has exactly one writer. Send, receive and shared receive queues are *produced by us* and consumed
//!   by the kernel (its `QUEUE_TYPE_FROM_CLIENT`); completion queues are *produced by the kernel* and consumed by
//!   us (`QUEUE_TYPE_TO_CLIENT`). The kernel keeps a private copy of the index it owns and only ever *stores* it
//!   into the shared page, so nothing we write there can steer the kernel.
//! * The only ordering needed is between us and the kernel. Between our own threads each side of a queue is
//!   serialised by a lock held by the caller (SQ/RQ/SRQ lock for producing, CQ lock for consuming): that lock is
//!   the reason the loads of our *own* index can be `Relaxed`.
//!
//! The two roles are two types, [`Producer`] and [`Consumer`] wrappers over one [`RxeQueue`], so the orderings
//! below are written once and a queue cannot be driven from the wrong side.
//!
//! The header's `index_mask` and `log2_elem_size` are read once, validated against the mapping's length and cached:
//! every slot address computed later masks its index with the cached mask, so no value read from the shared page
//! (or passed by a caller) can address memory outside the mapping.
#![allow(unsafe_code)]

use super::abi::{mminfo, rxe_queue_buf, QUEUE_DATA_OFFSET};
use crate::provider::queue::Backing;
#[cfg(test)]
use crate::provider::queue::QueueMemory;
use rdma_common::sys::Mmap;
use rdma_common::{errno::Result, Errno};
use std::marker::PhantomData;
use std::mem::offset_of;
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

/// A mapped `rxe_queue_buf` with its slot geometry cached. Owns its memory (RAII: dropping it unmaps).
///
/// 24 bytes in the library (the mapping's address and length, the two cached header words): a CQ holds one, a QP
/// two, and every 8 bytes here moved a CQ or QP into a larger malloc chunk than rdma-core's. The
/// [`Geometry`] the ring code works with is rebuilt from these on demand (three loads, as copying it would be).
pub struct RxeQueue {
    mem: Backing,
    log2_elem_size: u32,
    index_mask: u32,
}

/// Where a queue's header and slots are and how the slots are laid out: validated once by [`RxeQueue::new`],
/// never changed. [`Producer`] and [`Consumer`] carry a copy, so that a loop over slots keeps it in registers
/// (a store into the shared ring could otherwise alias the queue object, and the compiler would reload it).
#[derive(Clone, Copy)]
struct Geometry {
    base: NonNull<u8>,
    log2_elem_size: u32,
    index_mask: u32,
}

impl Geometry {
    /// The first slot (`QUEUE_DATA_OFFSET` past the header, inside the memory: checked by `with_backing`).
    #[inline(always)]
    fn data(&self) -> *mut u8 {
        // SAFETY: QUEUE_DATA_OFFSET <= the memory's length (checked when the queue was made).
        unsafe { self.base.as_ptr().add(QUEUE_DATA_OFFSET) }
    }

    /// `(index + 1) & index_mask`.
    #[inline(always)]
    fn next(&self, index: u32) -> u32 {
        index.wrapping_add(1) & self.index_mask
    }

    /// Address of the slot for `index` (masked, so always inside the mapping).
    #[inline(always)]
    fn slot(&self, index: u32) -> *mut u8 {
        let off = ((index & self.index_mask) as usize) << self.log2_elem_size;
        // SAFETY: off < num_slots << log2_elem_size, which `RxeQueue::new` checked fits in the memory.
        unsafe { self.data().add(off) }
    }

    #[inline(always)]
    fn producer(&self) -> &AtomicU32 {
        // SAFETY: in bounds and 4-aligned (base is 8-aligned, offset 128); shared memory accessed atomically by
        // both sides. The mapping outlives every Geometry copy (they live in the queue or in a Producer/Consumer
        // that borrows it).
        unsafe { AtomicU32::from_ptr(self.base.as_ptr().add(offset_of!(rxe_queue_buf, producer_index)).cast()) }
    }

    #[inline(always)]
    fn consumer(&self) -> &AtomicU32 {
        // SAFETY: as for `producer` (offset 256).
        unsafe { AtomicU32::from_ptr(self.base.as_ptr().add(offset_of!(rxe_queue_buf, consumer_index)).cast()) }
    }
}

// SAFETY: the queue is a handle to shared memory; all mutation of the indices is atomic and slot access is
// serialised by the caller's lock (documented on each method).
unsafe impl Send for RxeQueue {}
unsafe impl Sync for RxeQueue {}

impl std::fmt::Debug for RxeQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RxeQueue")
            .field("slots", &self.num_slots())
            .field("elem_size", &self.elem_size())
            .field("producer", &self.geo().producer().load(Ordering::Relaxed))
            .field("consumer", &self.geo().consumer().load(Ordering::Relaxed))
            .finish()
    }
}

impl RxeQueue {
    /// Wraps memory that holds an initialised `rxe_queue_buf` (the kernel fills the header before it returns the
    /// `mminfo`). `min_elem_size` is the smallest slot the caller will read or write (e.g. `sizeof(ib_uverbs_wc)`).
    ///
    /// Errors: `EINVAL` when the header is inconsistent (mask not `2^n - 1`, slots smaller than `min_elem_size`,
    /// or slots extending past the memory).
    #[cfg(test)]
    pub fn new(mem: Box<dyn QueueMemory>, min_elem_size: usize) -> Result<RxeQueue> {
        RxeQueue::with_backing(Backing::Other(mem), min_elem_size)
    }

    fn with_backing(mem: Backing, min_elem_size: usize) -> Result<RxeQueue> {
        let base = NonNull::new(mem.as_ptr()).ok_or(Errno::EINVAL)?;
        let len = mem.size();
        if len < QUEUE_DATA_OFFSET || base.as_ptr() as usize & 7 != 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the header lies within the memory (checked above). These two words are written by the kernel
        // before the create command returns and never change for the life of this mapping.
        let (log2_elem_size, index_mask) = unsafe {
            let hdr = base.as_ptr().cast::<rxe_queue_buf>();
            (
                std::ptr::addr_of!((*hdr).log2_elem_size).read_volatile(),
                std::ptr::addr_of!((*hdr).index_mask).read_volatile(),
            )
        };
        let slots = (index_mask as u64) + 1;
        if !slots.is_power_of_two() || log2_elem_size >= 32 || (1u64 << log2_elem_size) < min_elem_size as u64 {
            return Err(Errno::EINVAL);
        }
        let needed = (QUEUE_DATA_OFFSET as u64).checked_add(slots << log2_elem_size).ok_or(Errno::EINVAL)?;
        if needed > len as u64 {
            return Err(Errno::EINVAL);
        }
        Ok(RxeQueue { mem, log2_elem_size, index_mask })
    }

    /// The geometry, for the ring code (and a [`Producer`]'s register copy).
    #[inline(always)]
    fn geo(&self) -> Geometry {
        // SAFETY: non-NULL: checked when the queue was made, and the memory does not move.
        let base = unsafe { NonNull::new_unchecked(self.mem.as_ptr()) };
        Geometry { base, log2_elem_size: self.log2_elem_size, index_mask: self.index_mask }
    }

    /// Maps the queue the kernel described in `mi` (from `rxe_create_{cq,qp,srq}_resp`, `rxe_resize_cq_resp`, or
    /// the `mminfo` a SRQ resize wrote) from the uverbs command fd, as rdma-core's
    /// `mmap(NULL, mi.size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd, mi.offset)`.
    ///
    /// Errors: the `mmap` errno; `EINVAL` for an inconsistent header (see [`RxeQueue::new`]).
    pub fn map(fd: BorrowedFd<'_>, mi: &mminfo, min_elem_size: usize) -> Result<RxeQueue> {
        let mem = Mmap::map_shared(fd, mi.size as usize, mi.offset)?;
        RxeQueue::with_backing(Backing::Mapped(mem), min_elem_size)
    }

    /// Number of slots (`index_mask + 1`).
    pub fn num_slots(&self) -> u32 {
        self.index_mask.wrapping_add(1)
    }

    /// Most entries the queue can hold at once (`index_mask`: one slot always stays empty).
    pub fn capacity(&self) -> u32 {
        self.index_mask
    }

    /// Bytes per slot.
    pub fn elem_size(&self) -> usize {
        1usize << self.log2_elem_size
    }

    /// The cached `index_mask`.
    pub fn index_mask(&self) -> u32 {
        self.index_mask
    }

    /// `log2` of the slot size.
    #[inline(always)]
    pub fn log2_elem_size(&self) -> u32 {
        self.log2_elem_size
    }

    /// The slots' length in bytes, `num_slots << log2_elem_size`, as a `u32` (wrapping: callers that need it
    /// exact check [`RxeQueue::ring_bytes_fit`] once, as a CQ does when it takes a ring).
    #[inline(always)]
    pub fn ring_bytes(&self) -> u32 {
        self.index_mask.wrapping_add(1).wrapping_shl(self.log2_elem_size)
    }

    /// Whether the slots' length in bytes fits a `u32`, so that [`RxeQueue::ring_bytes`] is exact.
    pub fn ring_bytes_fit(&self) -> bool {
        u64::from(self.num_slots()) << self.log2_elem_size <= u64::from(u32::MAX)
    }

    /// Address of the slot at byte offset `off` from the first slot.
    ///
    /// # Safety
    /// `off < ring_bytes()` (and exact: see there).
    #[inline(always)]
    pub unsafe fn slot_at(&self, off: u32) -> *mut u8 {
        // SAFETY: caller's contract; the slots fit in the memory (checked when the queue was made).
        unsafe { self.geo().data().add(off as usize) }
    }

    /// Length of the underlying memory.
    pub fn mapped_len(&self) -> usize {
        self.mem.size()
    }

    /// `(index + 1) & index_mask`.
    #[inline(always)]
    pub fn next(&self, index: u32) -> u32 {
        self.geo().next(index)
    }

    /// Address of the slot for `index` (masked, so always inside the mapping).
    #[inline(always)]
    pub fn slot(&self, index: u32) -> *mut u8 {
        self.geo().slot(index)
    }

    /// Offset of the slot for `index` from the start of the queue's memory (masked: the slot is inside the
    /// mapping; at least the header's length, so never 0).
    #[inline(always)]
    pub fn slot_offset(&self, index: u32) -> u32 {
        QUEUE_DATA_OFFSET as u32 + ((index & self.index_mask) << self.log2_elem_size)
    }

    /// Address at byte offset `off` from the start of the queue's memory.
    ///
    /// # Safety
    /// `off` is a [`RxeQueue::slot_offset`] of this queue.
    #[inline(always)]
    pub unsafe fn at_offset(&self, off: u32) -> *mut u8 {
        // SAFETY: caller's contract: inside the mapping.
        unsafe { self.geo().base.as_ptr().add(off as usize) }
    }

    /// This queue seen from the side that fills it (SQ, RQ, SRQ).
    #[inline(always)]
    pub fn producer_side(&self) -> Producer<'_> {
        Producer { geo: self.geo(), _queue: PhantomData }
    }

    /// This queue seen from the side that drains it (CQ).
    #[inline(always)]
    pub fn consumer_side(&self) -> Consumer<'_> {
        Consumer { q: self }
    }

    /// Raw pointer to the header, for tests that play the kernel.
    #[cfg(test)]
    pub(crate) fn header(&self) -> *mut rxe_queue_buf {
        self.geo().base.as_ptr().cast()
    }
}

/// The user side of a send, receive or shared receive queue: we own `producer_index`, the kernel owns
/// `consumer_index`. Every method requires the caller to hold the queue's producer lock (SQ/RQ/SRQ lock).
#[derive(Clone, Copy)]
pub struct Producer<'q> {
    geo: Geometry,
    _queue: PhantomData<&'q RxeQueue>,
}

impl<'q> Producer<'q> {
    /// Our producer index. `Relaxed`: only we store it, and the caller's producer lock orders our threads.
    #[inline(always)]
    pub fn index(self) -> u32 {
        self.geo.producer().load(Ordering::Relaxed) & self.geo.index_mask
    }

    /// Whether the slot at `prod` may not be filled (the queue would look empty after advancing past it).
    ///
    /// `Acquire` on the kernel's consumer index: pairs with the kernel's `smp_store_release` after it finished
    /// reading a WQE, so its reads of the slots it consumed happen-before we overwrite those slots.
    #[inline(always)]
    pub fn is_full_at(self, prod: u32) -> bool {
        let cons = self.geo.consumer().load(Ordering::Acquire) & self.geo.index_mask;
        self.geo.next(prod) == cons
    }

    /// The kernel's consumer index, masked (`Acquire`, as in [`Producer::is_full_at`]).
    #[inline(always)]
    pub fn consumer(self) -> u32 {
        self.geo.consumer().load(Ordering::Acquire) & self.geo.index_mask
    }

    /// Slot for index `prod` (to fill before [`Producer::publish`]).
    #[inline(always)]
    pub fn slot(self, prod: u32) -> *mut u8 {
        self.geo.slot(prod)
    }

    /// `(prod + 1) & index_mask`.
    #[inline(always)]
    pub fn next(self, prod: u32) -> u32 {
        self.geo.next(prod)
    }

    /// Makes every slot before `prod` visible to the kernel.
    ///
    /// `Release`: our writes of the WQE bytes happen-before the kernel's `smp_load_acquire` of the producer index
    /// that reveals them.
    #[inline(always)]
    pub fn publish(self, prod: u32) {
        self.geo.producer().store(prod & self.geo.index_mask, Ordering::Release)
    }
}

/// The user side of a completion queue: the kernel owns `producer_index`, we own `consumer_index`. Every method
/// requires the caller to hold the CQ lock.
#[derive(Clone, Copy)]
pub struct Consumer<'q> {
    // A reference, not a copy of the geometry as in Producer: polling an empty CQ then loads only what it needs.
    q: &'q RxeQueue,
}

impl<'q> Consumer<'q> {
    /// Our consumer index. `Relaxed`: only we store it, and the caller's CQ lock orders our threads.
    #[inline(always)]
    pub fn index(self) -> u32 {
        self.q.geo().consumer().load(Ordering::Relaxed) & self.q.geo().index_mask
    }

    /// The kernel's producer index, masked.
    ///
    /// `Acquire`: pairs with the kernel's `smp_store_release` after it wrote a CQE, so the CQE bytes of every
    /// slot before the returned index are visible to our subsequent reads.
    #[inline(always)]
    pub fn producer(self) -> u32 {
        self.q.geo().producer().load(Ordering::Acquire) & self.q.geo().index_mask
    }

    /// Whether no CQE is available at `cons` (an `Acquire` load of the kernel's producer index, see
    /// [`Consumer::producer`]).
    #[inline(always)]
    pub fn is_empty_at(self, cons: u32) -> bool {
        self.producer() == cons & self.q.geo().index_mask
    }

    /// How many CQEs are available from `cons` on (an `Acquire` load of the kernel's producer index, see
    /// [`Consumer::producer`]).
    #[inline(always)]
    pub fn available(self, cons: u32) -> u32 {
        // (p - c) & mask is the same whether or not p and c were masked first (mask = 2^n - 1).
        self.q.geo().producer().load(Ordering::Acquire).wrapping_sub(cons) & self.q.geo().index_mask
    }

    /// `(cons + n) & index_mask`.
    #[inline(always)]
    pub fn advance(self, cons: u32, n: u32) -> u32 {
        cons.wrapping_add(n) & self.q.geo().index_mask
    }

    /// The slot geometry, copied out of the queue so that a loop over slots keeps it in registers (stores to the
    /// shared indices would otherwise make the compiler reload it from the queue each time).
    #[inline(always)]
    pub fn slots(self) -> Slots {
        Slots {
            data: self.q.geo().data(),
            elem_size: 1usize << self.q.geo().log2_elem_size,
            index_mask: self.q.geo().index_mask,
        }
    }

    /// Slot for index `cons` (to read before [`Consumer::release`]).
    #[inline(always)]
    pub fn slot(self, cons: u32) -> *const u8 {
        self.q.geo().slot(cons)
    }

    /// `(cons + 1) & index_mask`.
    #[inline(always)]
    pub fn next(self, cons: u32) -> u32 {
        self.q.geo().next(cons)
    }

    /// Hands every slot before `cons` back to the kernel.
    ///
    /// `Release`: our reads of those CQEs happen-before the kernel's `smp_load_acquire` of the consumer index that
    /// lets it overwrite them.
    #[inline(always)]
    pub fn release(self, cons: u32) {
        self.q.geo().consumer().store(cons & self.q.geo().index_mask, Ordering::Release)
    }
}

/// A queue's slot geometry (see [`Consumer::slots`]), valid while the queue lives.
#[derive(Clone, Copy)]
pub struct Slots {
    data: *mut u8,
    elem_size: usize,
    index_mask: u32,
}

impl Slots {
    /// Address of the slot for `index` (masked, so always inside the mapping), as [`RxeQueue::slot`].
    #[inline(always)]
    pub fn at(self, index: u32) -> *const u8 {
        // A multiplication rather than RxeQueue::slot's shift: no masking of the shift count.
        let off = (index & self.index_mask) as usize * self.elem_size;
        // SAFETY: off < num_slots * elem_size, which `RxeQueue::new` checked fits in the memory.
        unsafe { self.data.add(off) }
    }
}

/// A heap buffer laid out like a kernel queue, for unit tests that play the kernel's side.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    pub use crate::provider::queue::testing::HeapMemory;

    /// Heap memory for `2^log2_slots` slots of `2^log2_elem_size` bytes, header initialised as the kernel's
    /// `rxe_queue_init` does (indices 0).
    pub fn heap_queue(log2_slots: u32, log2_elem_size: u32) -> Box<HeapMemory> {
        let mem = HeapMemory::new(QUEUE_DATA_OFFSET + ((1usize << log2_slots) << log2_elem_size));
        let hdr = mem.as_ptr().cast::<rxe_queue_buf>();
        // SAFETY: the buffer is larger than the header.
        unsafe {
            (*hdr).log2_elem_size = log2_elem_size;
            (*hdr).index_mask = (1u32 << log2_slots) - 1;
        }
        mem
    }

    /// A queue over a fresh [`heap_queue`].
    pub fn queue(log2_slots: u32, log2_elem_size: u32) -> RxeQueue {
        RxeQueue::new(heap_queue(log2_slots, log2_elem_size), 1).unwrap()
    }

    /// The kernel's view of a queue: its private index and the shared one, as `rxe_queue.h` drives them.
    pub struct Kernel<'q> {
        pub q: &'q RxeQueue,
    }

    impl<'q> Kernel<'q> {
        fn hdr(&self) -> *mut rxe_queue_buf {
            self.q.header()
        }
        fn prod(&self) -> &AtomicU32 {
            // SAFETY: header field of a live test queue.
            unsafe { AtomicU32::from_ptr(std::ptr::addr_of_mut!((*self.hdr()).producer_index)) }
        }
        fn cons(&self) -> &AtomicU32 {
            // SAFETY: header field of a live test queue.
            unsafe { AtomicU32::from_ptr(std::ptr::addr_of_mut!((*self.hdr()).consumer_index)) }
        }
        /// `queue_count(q, QUEUE_TYPE_FROM_CLIENT)`.
        pub fn count_from_client(&self) -> u32 {
            let prod = self.prod().load(Ordering::Acquire);
            let cons = self.cons().load(Ordering::Relaxed);
            prod.wrapping_sub(cons) & self.q.index_mask()
        }
        /// `queue_head` + `queue_advance_consumer` on a queue the client fills: returns the slot consumed.
        pub fn consume(&self) -> Option<*mut u8> {
            if self.count_from_client() == 0 {
                return None;
            }
            let cons = self.cons().load(Ordering::Relaxed);
            let slot = self.q.slot(cons);
            self.cons().store(self.q.next(cons), Ordering::Release);
            Some(slot)
        }
        /// `queue_full(q, QUEUE_TYPE_TO_CLIENT)`.
        pub fn full_to_client(&self) -> bool {
            let prod = self.prod().load(Ordering::Relaxed);
            let cons = self.cons().load(Ordering::Acquire);
            (prod.wrapping_add(1).wrapping_sub(cons) & self.q.index_mask()) == 0
        }
        /// `queue_producer_addr` + write + `queue_advance_producer` on a queue the client drains.
        pub fn produce(&self, bytes: &[u8]) -> bool {
            if self.full_to_client() {
                return false;
            }
            assert!(bytes.len() <= self.q.elem_size());
            let prod = self.prod().load(Ordering::Relaxed);
            // SAFETY: in-bounds slot of the test queue.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.q.slot(prod), bytes.len()) };
            self.prod().store(self.q.next(prod), Ordering::Release);
            true
        }
        /// Raw shared indices `(producer, consumer)`.
        pub fn indices(&self) -> (u32, u32) {
            (self.prod().load(Ordering::Relaxed), self.cons().load(Ordering::Relaxed))
        }
        /// Overwrites the shared indices (to test masking of hostile values).
        pub fn set_indices(&self, prod: u32, cons: u32) {
            self.prod().store(prod, Ordering::Relaxed);
            self.cons().store(cons, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn geometry_and_validation() {
        let q = queue(3, 6);
        assert_eq!((q.num_slots(), q.capacity(), q.elem_size()), (8, 7, 64));
        assert_eq!(q.slot(0) as usize - q.header() as usize, 384);
        assert_eq!(q.slot(9), q.slot(1), "indices are masked");
        // Mask not 2^n - 1.
        let bad = heap_queue(3, 6);
        unsafe { (*bad.as_ptr().cast::<rxe_queue_buf>()).index_mask = 6 };
        assert_eq!(RxeQueue::new(bad, 1).unwrap_err(), Errno::EINVAL);
        // Slots past the end of the mapping.
        let bad = heap_queue(3, 6);
        unsafe { (*bad.as_ptr().cast::<rxe_queue_buf>()).index_mask = 15 };
        assert_eq!(RxeQueue::new(bad, 1).unwrap_err(), Errno::EINVAL);
        // Slots smaller than the caller needs.
        assert_eq!(RxeQueue::new(heap_queue(3, 5), 48).unwrap_err(), Errno::EINVAL);
    }

    #[test]
    fn produce_until_full_then_kernel_drains_with_wraparound() {
        let q = queue(2, 4); // 4 slots, 3 usable
        let k = Kernel { q: &q };
        let p = q.producer_side();
        for round in 0..5u32 {
            let mut prod = p.index();
            let mut n = 0;
            while !p.is_full_at(prod) {
                unsafe { p.slot(prod).cast::<u32>().write(round * 10 + n) };
                prod = p.next(prod);
                p.publish(prod);
                n += 1;
            }
            assert_eq!(n, 3, "one slot always stays empty");
            assert_eq!(k.count_from_client(), 3);
            for i in 0..3 {
                let s = k.consume().unwrap();
                assert_eq!(unsafe { s.cast::<u32>().read() }, round * 10 + i);
            }
            assert!(k.consume().is_none());
            let (kp, kc) = k.indices();
            assert_eq!(kp, kc);
            assert!(kp <= q.index_mask(), "stored indices are always masked");
        }
    }

    #[test]
    fn kernel_produces_user_consumes_with_wraparound() {
        let q = queue(3, 6);
        let k = Kernel { q: &q };
        let c = q.consumer_side();
        let mut seq = 0u64;
        for burst in [1usize, 7, 3, 7, 5] {
            for _ in 0..burst {
                assert!(k.produce(&seq.to_ne_bytes()));
                seq += 1;
            }
            if burst == 7 {
                assert!(!k.produce(&[0]), "8 slots hold 7 CQEs");
            }
            let mut cons = c.index();
            let mut got = vec![];
            while !c.is_empty_at(cons) {
                got.push(unsafe { c.slot(cons).cast::<u64>().read() });
                cons = c.next(cons);
            }
            c.release(cons);
            assert_eq!(got.len(), burst);
            assert!(got.windows(2).all(|w| w[1] == w[0] + 1));
        }
        assert_eq!(seq, 23);
    }

    #[test]
    fn maps_a_shared_file_like_the_kernel_queue() {
        use std::os::fd::{AsFd, FromRawFd, OwnedFd};
        // A memfd stands in for the uverbs fd: the header is written through the file, read through the mapping.
        let raw = unsafe { libc::memfd_create(c"rxe-queue-test".as_ptr(), 0) };
        assert!(raw >= 0);
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let len = QUEUE_DATA_OFFSET + 16 * 64;
        assert_eq!(unsafe { libc::ftruncate(raw, len as libc::off_t) }, 0);
        let hdr: [u32; 2] = [6, 15];
        assert_eq!(unsafe { libc::pwrite(raw, hdr.as_ptr().cast(), 8, 0) }, 8);
        let mi = mminfo { offset: 0, size: len as u32, pad: 0 };
        let q = RxeQueue::map(fd.as_fd(), &mi, 48).unwrap();
        assert_eq!((q.num_slots(), q.elem_size(), q.mapped_len()), (16, 64, len));
        // Our producer index reaches the file (MAP_SHARED).
        let p = q.producer_side();
        p.publish(p.next(p.index()));
        let mut prod = 0u32;
        assert_eq!(unsafe { libc::pread(raw, (&mut prod as *mut u32).cast(), 4, 128) }, 4);
        assert_eq!(prod, 1);
        let short = mminfo { offset: 0, size: (QUEUE_DATA_OFFSET + 64) as u32, pad: 0 };
        assert_eq!(RxeQueue::map(fd.as_fd(), &short, 48).unwrap_err(), Errno::EINVAL, "slots past the mapping");
    }

    #[test]
    fn hostile_indices_are_masked() {
        let q = queue(2, 4);
        let k = Kernel { q: &q };
        k.set_indices(0xffff_fff1, 0x8000_0002);
        let c = q.consumer_side();
        assert_eq!(c.producer(), 1);
        assert_eq!(c.index(), 2);
        let p = q.producer_side();
        assert_eq!(p.index(), 1);
        assert!(p.is_full_at(1), "(1 + 1) & 3 == 2");
        let s = p.slot(p.index()) as usize;
        assert!(s >= q.slot(0) as usize && s < q.slot(0) as usize + 4 * 16);
    }
}
