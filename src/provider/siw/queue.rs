//! The arrays Soft-iWARP shares with the kernel: SQ, RQ and SRQ of WQEs we fill, CQs of CQEs the kernel fills.
//!
//! Unlike rxe's rings there is no shared index at all. Each side keeps its own free-running counter (ours lives in
//! the queue's state behind its lock: [`super::Sq::put`], [`super::Rq::put`], [`super::CqState::get`]), and each
//! slot's `flags` word says who owns the slot (Linux `drivers/infiniband/sw/siw`, unchanged from 5.3 to 6.12;
//! rdma-core 44 `providers/siw/siw.c`):
//!
//! | queue | slot free for the writer | writer publishes | reader takes it | reader hands it back |
//! |---|---|---|---|---|
//! | SQ, RQ, SRQ (we write) | `SIW_WQE_VALID` clear | we store `flags` with `SIW_WQE_VALID` | the kernel copies the WQE out | the kernel stores 0 |
//! | CQ (the kernel writes) | `flags` 0 | the kernel stores `SIW_WQE_VALID` | we copy the CQE out | we store 0 |
//!
//! So the ownership word is **the last thing written and the first thing read**:
//!
//! * publishing: every other byte of the slot is written first, then `flags` with a `Release` store, so the WQE
//!   bytes happen-before the kernel's read of the flag that reveals them;
//! * taking: `flags` is read first with an `Acquire` load; only when it says "ours" are the other bytes touched, so
//!   the kernel's writes of the CQE (or its reads of the WQE it recycled) happen-before ours;
//! * handing a CQE back: the 0 is stored with `Release`, so our reads of the CQE happen-before the kernel reuses
//!   the slot.
//!
//! Two places need more than that pairing, because we store one word and then load *another* that the kernel
//! stores before loading ours (the store-buffer pattern): the send doorbell's "was the SQ idle?" test (we publish
//! slot `n`, then look at slot `n - 1`; the kernel clears `n - 1`, then looks at `n`) and arming a CQ (we store
//! the notification word, then poll; the kernel publishes a CQE, then reads the word). The kernel puts a full
//! barrier between its store and its load (`smp_store_mb`); we put a `SeqCst` fence between ours
//! ([`WqeQueue::is_free_after_publish`], [`CqQueue::arm`]). Without them both sides could read the old values: a
//! WQE nobody rings for, or a completion nobody is notified of.
//!
//! Slot counts are powers of two (the kernel rounds every queue up), so a free-running `u32` counter masked by
//! `slots - 1` addresses the slots even across its wrap-around; the geometry is checked against the mapping once,
//! and every slot address masks its index, so no counter value can address memory outside the mapping.
#![allow(unsafe_code)]

use super::abi::{CQE_SIZE, CQ_CTRL_SIZE, WQE_FLAGS};
use rdma_common::sys::Mmap;
use rdma_common::{errno::Result, Errno};
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU16, AtomicU32, AtomicU8, Ordering};

use crate::provider::queue::Backing;
#[cfg(test)]
use crate::provider::queue::QueueMemory;

/// `2^n` slots of `elem` bytes at the start of some memory, followed by `trailer` bytes.
struct Slots {
    /// Owns the memory the slots lie in (dropping it unmaps); its address is the first slot's.
    mem: Backing,
    mask: u32,
    /// Bytes per slot (u32 beside `mask`: a CQ with this queue fits rdma-core's malloc chunk).
    elem: u32,
}

impl Slots {
    fn new(mem: Backing, num: u32, elem: usize, trailer: usize) -> Result<Slots> {
        let base = NonNull::new(mem.as_ptr()).ok_or(Errno::EINVAL)?;
        if !num.is_power_of_two() || elem & 7 != 0 || base.as_ptr() as usize & 7 != 0 {
            return Err(Errno::EINVAL);
        }
        let needed = (num as usize).checked_mul(elem).and_then(|n| n.checked_add(trailer)).ok_or(Errno::EINVAL)?;
        if needed > mem.size() {
            return Err(Errno::EINVAL);
        }
        let elem = u32::try_from(elem).map_err(|_| Errno::EINVAL)?;
        Ok(Slots { mem, mask: num - 1, elem })
    }

    /// The first slot (non-NULL: checked in `new`; the memory does not move).
    #[inline(always)]
    fn base(&self) -> NonNull<u8> {
        // SAFETY: non-NULL, checked in `new`.
        unsafe { NonNull::new_unchecked(self.mem.as_ptr()) }
    }

    #[inline(always)]
    fn slot(&self, index: u32) -> *mut u8 {
        // SAFETY: (index & mask) < num, and num * elem <= the memory's size (checked in `new`).
        unsafe { self.base().as_ptr().add((index & self.mask) as usize * self.elem as usize) }
    }

    #[inline(always)]
    fn num(&self) -> u32 {
        self.mask + 1
    }
}

/// The byte length of a queue of `num` slots of `elem` bytes plus `trailer` (the size the kernel registered for
/// the mapping), or `EINVAL` if it overflows.
fn queue_len(num: u32, elem: usize, trailer: usize) -> Result<usize> {
    (num as usize).checked_mul(elem).and_then(|n| n.checked_add(trailer)).ok_or(Errno::EINVAL)
}

/// A send, receive or shared receive queue: slots we fill and the kernel drains. Owns its memory (dropping it
/// unmaps). Every method that touches a slot requires the caller to hold the queue's lock (the SQ, RQ or SRQ lock),
/// which orders our own threads; the orderings below are between us and the kernel.
pub struct WqeQueue {
    slots: Slots,
}

// SAFETY: a handle to shared memory; the ownership words are accessed atomically and slot contents only by the
// holder of the queue's lock (documented on each method).
unsafe impl Send for WqeQueue {}
// SAFETY: as above.
unsafe impl Sync for WqeQueue {}

impl std::fmt::Debug for WqeQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WqeQueue").field("slots", &self.slots.num()).field("elem", &self.slots.elem).finish()
    }
}

impl WqeQueue {
    /// `num` slots of `elem` bytes (`siw_sqe` or `siw_rqe`) at the start of `mem`.
    ///
    /// Errors: `EINVAL` when `num` is not a power of two or the slots do not fit in `mem`.
    #[cfg(test)]
    pub fn new(mem: Box<dyn QueueMemory>, num: u32, elem: usize) -> Result<WqeQueue> {
        Ok(WqeQueue { slots: Slots::new(Backing::Other(mem), num, elem, 0)? })
    }

    /// Maps the queue the kernel registered at `key` (`sq_key`, `rq_key`, `srq_key`) for `num` slots of `elem`
    /// bytes, as rdma-core's `mmap(NULL, num * elem, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd, key)`.
    ///
    /// Errors: the `mmap` errno; `EINVAL` for a slot count that is not a power of two.
    pub fn map(fd: BorrowedFd<'_>, key: u64, num: u32, elem: usize) -> Result<WqeQueue> {
        if !num.is_power_of_two() {
            return Err(Errno::EINVAL);
        }
        let mem = Mmap::map_shared(fd, queue_len(num, elem, 0)?, key)?;
        Ok(WqeQueue { slots: Slots::new(Backing::Mapped(mem), num, elem, 0)? })
    }

    /// Number of slots.
    pub fn num_slots(&self) -> u32 {
        self.slots.num()
    }

    /// Bytes per slot.
    pub fn elem_size(&self) -> usize {
        self.slots.elem as usize
    }

    #[inline(always)]
    fn flags(&self, index: u32) -> &AtomicU16 {
        // SAFETY: in bounds (masked slot), 2-aligned (slots are 8-aligned, the word at offset 8); the kernel accesses
        // it only with single-word loads and stores. The reference never outlives `self`, which keeps the memory.
        unsafe { AtomicU16::from_ptr(self.slots.slot(index).add(WQE_FLAGS).cast()) }
    }

    /// The queue's geometry copied into a small value, for a posting loop to keep in registers (its stores into
    /// the slots could otherwise alias the queue object and force reloads). Same methods, same contracts.
    #[inline(always)]
    pub fn writer(&self) -> WqeWriter<'_> {
        WqeWriter {
            base: self.slots.base(),
            mask: self.slots.mask,
            elem: self.slots.elem as usize,
            _q: std::marker::PhantomData,
        }
    }

    /// Whether the slot for `index` is ours to fill (`SIW_WQE_VALID` clear).
    ///
    /// `Acquire`: pairs with the kernel's store of 0 after it copied the WQE out (`siw_activate_tx_from_sq`,
    /// `siw_rqe_get`, the flush paths), so its reads of the old WQE happen-before our writes of the new one.
    #[inline(always)]
    pub fn is_free(&self, index: u32) -> bool {
        self.flags(index).load(Ordering::Acquire) & super::abi::SIW_WQE_VALID as u16 == 0
    }

    /// The slot for `index`, to fill (every byte but `flags`) before [`WqeQueue::publish`]. Only for a slot
    /// [`WqeQueue::is_free`] said is ours.
    #[inline(always)]
    pub fn slot(&self, index: u32) -> *mut u8 {
        self.slots.slot(index)
    }

    /// Hands the slot for `index` to the kernel: stores its `flags` (which must include `SIW_WQE_VALID`).
    ///
    /// `Release`: every byte of the WQE written before happens-before the kernel's load of `flags` that finds it
    /// valid. This is the last write to the slot until the kernel hands it back.
    #[inline(always)]
    pub fn publish(&self, index: u32, flags: u16) {
        debug_assert!(flags & super::abi::SIW_WQE_VALID as u16 != 0);
        self.flags(index).store(flags, Ordering::Release)
    }

    /// After publishing new WQEs: whether the slot for `index` (the last WQE published before them) has been taken
    /// by the kernel, i.e. whether the kernel may have gone idle before seeing the new ones (rdma-core's test for
    /// ringing the doorbell).
    ///
    /// The `SeqCst` fence orders our `publish` stores before this load, against the kernel's clearing of that slot
    /// followed by `smp_store_mb`'s full barrier and its load of the next slot: either we see the slot cleared (and
    /// ring), or the kernel, still to clear it, will see our new WQEs when it looks at the next slot.
    #[inline(always)]
    pub fn is_free_after_publish(&self, index: u32) -> bool {
        fence(Ordering::SeqCst);
        self.is_free(index)
    }
}

/// A [`WqeQueue`] seen by a posting loop (see [`WqeQueue::writer`]).
#[derive(Clone, Copy)]
pub struct WqeWriter<'q> {
    base: NonNull<u8>,
    mask: u32,
    elem: usize,
    _q: std::marker::PhantomData<&'q WqeQueue>,
}

impl WqeWriter<'_> {
    /// As [`WqeQueue::slot`].
    #[inline(always)]
    pub fn slot(self, index: u32) -> *mut u8 {
        // SAFETY: (index & mask) < num, and num * elem fits in the memory (checked by `WqeQueue::new`).
        unsafe { self.base.as_ptr().add((index & self.mask) as usize * self.elem) }
    }

    #[inline(always)]
    fn flags(self, index: u32) -> &'static AtomicU16 {
        // SAFETY: as `WqeQueue::flags`. The 'static is a local convenience: the reference never outlives the
        // writer, which borrows the queue.
        unsafe { AtomicU16::from_ptr(self.slot(index).add(WQE_FLAGS).cast()) }
    }

    /// As [`WqeQueue::is_free`].
    #[inline(always)]
    pub fn is_free(self, index: u32) -> bool {
        self.flags(index).load(Ordering::Acquire) & super::abi::SIW_WQE_VALID as u16 == 0
    }

    /// As [`WqeQueue::publish`].
    #[inline(always)]
    pub fn publish(self, index: u32, flags: u16) {
        debug_assert!(flags & super::abi::SIW_WQE_VALID as u16 != 0);
        self.flags(index).store(flags, Ordering::Release)
    }

    /// As [`WqeQueue::num_slots`].
    #[inline(always)]
    pub fn num_slots(self) -> u32 {
        self.mask + 1
    }

    /// As [`WqeQueue::is_free_after_publish`] (the same `SeqCst` fence before the load).
    #[inline(always)]
    pub fn is_free_after_publish(self, index: u32) -> bool {
        let flags = self.flags(index);
        fence(Ordering::SeqCst);
        flags.load(Ordering::Acquire) & super::abi::SIW_WQE_VALID as u16 == 0
    }
}

/// A completion queue: `num` CQEs the kernel fills and we drain, then the notification word (`siw_cq_ctrl`).
/// Owns its memory. Slot methods require the caller to hold the CQ lock.
pub struct CqQueue {
    slots: Slots,
}

// SAFETY: as for `WqeQueue`.
unsafe impl Send for CqQueue {}
// SAFETY: as above; the notification word is only accessed atomically.
unsafe impl Sync for CqQueue {}

impl std::fmt::Debug for CqQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CqQueue").field("slots", &self.slots.num()).finish()
    }
}

/// A CQ seen by a polling loop (see [`CqQueue::reader`]): the same accesses as [`CqQueue`]'s, with the slot size
/// a constant.
#[derive(Clone, Copy)]
pub struct CqReader<'q> {
    base: NonNull<u8>,
    mask: u32,
    _q: std::marker::PhantomData<&'q CqQueue>,
}

impl CqReader<'_> {
    /// The slot for `index` (masked: inside the mapping).
    #[inline(always)]
    pub fn slot(self, index: u32) -> *const u8 {
        // SAFETY: (index & mask) < num, and num * CQE_SIZE fits in the memory (checked by `CqQueue::new`).
        unsafe { self.base.as_ptr().add((index & self.mask) as usize * CQE_SIZE) }
    }

    #[inline(always)]
    fn flags(self, index: u32) -> &'static AtomicU8 {
        // SAFETY: as `CqQueue::flags`. The 'static is a local convenience: the reference never outlives the
        // reader, which borrows the queue.
        unsafe { AtomicU8::from_ptr(self.slot(index).add(WQE_FLAGS).cast_mut()) }
    }

    /// As [`CqQueue::is_valid`].
    #[inline(always)]
    pub fn is_valid(self, index: u32) -> bool {
        self.flags(index).load(Ordering::Acquire) & super::abi::SIW_WQE_VALID as u8 != 0
    }

    /// As [`CqQueue::release`].
    #[inline(always)]
    pub fn release(self, index: u32) {
        self.flags(index).store(0, Ordering::Release)
    }

    /// The slot for `index` and the number of slots from it to the end of the ring (1 to the slot count): the
    /// run of slots `slot`, `slot + CQE_SIZE`, ... up to that number are consecutive in memory, so a polling
    /// loop can step a pointer through them instead of masking an index for each.
    #[inline(always)]
    pub fn run(self, index: u32) -> (*const u8, u32) {
        (self.slot(index), self.mask - (index & self.mask) + 1)
    }

    /// The CQE's bytes 8..12 at `slot` (`flags`, `opcode`, `status`, little-endian: `flags` in the low byte, `status`
    /// in the high half) in one `Acquire` load: the ownership test of [`CqReader::is_valid`] (`& SIW_WQE_VALID`),
    /// with the CQE's status in the same load. The status is only meaningful when the flag says the CQE is ours:
    /// the kernel writes it before the flag, and the `Acquire` load that finds the flag set sees it (one aligned
    /// load; the kernel stores neither while the slot is ours).
    ///
    /// # Safety
    /// `slot` is a slot of this CQ: from [`CqReader::slot`], or from [`CqReader::run`] stepped by `CQE_SIZE`
    /// fewer times than the run's length.
    #[inline(always)]
    pub unsafe fn head_at(self, slot: *const u8) -> u32 {
        const { assert!(WQE_FLAGS.is_multiple_of(4) && cfg!(target_endian = "little")) };
        // SAFETY: caller's contract (a slot of the mapping, 8-aligned, so the word at 8 is 4-aligned); the kernel
        // accesses these bytes with single loads and stores.
        let f = unsafe { AtomicU32::from_ptr(slot.add(WQE_FLAGS).cast::<u32>().cast_mut()) };
        f.load(Ordering::Acquire)
    }

    /// As [`CqReader::is_valid`], for the slot at `slot`.
    ///
    /// # Safety
    /// As [`CqReader::head_at`].
    #[inline(always)]
    pub unsafe fn is_valid_at(self, slot: *const u8) -> bool {
        // SAFETY: caller's contract.
        (unsafe { self.head_at(slot) }) & super::abi::SIW_WQE_VALID != 0
    }

    /// As [`CqReader::release`], for the slot at `slot`.
    ///
    /// # Safety
    /// As [`CqReader::head_at`].
    #[inline(always)]
    pub unsafe fn release_at(self, slot: *const u8) {
        // SAFETY: as `is_valid_at`.
        let f = unsafe { AtomicU8::from_ptr(slot.add(WQE_FLAGS).cast_mut()) };
        f.store(0, Ordering::Release)
    }
}

impl CqQueue {
    /// `num` CQEs and the notification word at the start of `mem`. The word is set to `SIW_NOTIFY_NOT` (not armed),
    /// as rdma-core does.
    ///
    /// Errors: `EINVAL` when `num` is not a power of two or the CQ does not fit in `mem`.
    #[cfg(test)]
    pub fn new(mem: Box<dyn QueueMemory>, num: u32) -> Result<CqQueue> {
        CqQueue::with_backing(Backing::Other(mem), num)
    }

    fn with_backing(mem: Backing, num: u32) -> Result<CqQueue> {
        let q = CqQueue { slots: Slots::new(mem, num, CQE_SIZE, CQ_CTRL_SIZE)? };
        // Relaxed: no QP can complete into a CQ that is not created yet; later arms order themselves.
        q.notify().store(super::abi::SIW_NOTIFY_NOT, Ordering::Relaxed);
        Ok(q)
    }

    /// Maps the CQ the kernel registered at `cq_key` for `num_cqe` CQEs (rdma-core's mapping of
    /// `num_cqe * sizeof(siw_cqe) + sizeof(siw_cq_ctrl)` bytes).
    ///
    /// Errors: the `mmap` errno; `EINVAL` for a CQE count that is not a power of two.
    pub fn map(fd: BorrowedFd<'_>, key: u64, num: u32) -> Result<CqQueue> {
        if !num.is_power_of_two() {
            return Err(Errno::EINVAL);
        }
        let mem = Mmap::map_shared(fd, queue_len(num, CQE_SIZE, CQ_CTRL_SIZE)?, key)?;
        CqQueue::with_backing(Backing::Mapped(mem), num)
    }

    /// Number of CQEs.
    pub fn num_slots(&self) -> u32 {
        self.slots.num()
    }

    #[inline(always)]
    fn flags(&self, index: u32) -> &AtomicU8 {
        // SAFETY: in bounds (masked slot); a byte; the kernel accesses it with single-byte loads and stores.
        unsafe { AtomicU8::from_ptr(self.slots.slot(index).add(WQE_FLAGS)) }
    }

    #[inline(always)]
    fn notify(&self) -> &AtomicU32 {
        // SAFETY: the word right after the CQEs (num * 32, so 8-aligned), inside the memory (`Slots::new` checked
        // the trailer); the kernel reads and writes it as one u32.
        unsafe { AtomicU32::from_ptr(self.slots.base().as_ptr().add(self.slots.num() as usize * CQE_SIZE).cast()) }
    }

    /// The CQ's geometry copied into a small value, for a polling loop to keep in registers (stores into
    /// the caller's `ibv_wc` array could otherwise alias the queue object and force reloads).
    #[inline(always)]
    pub fn reader(&self) -> CqReader<'_> {
        CqReader { base: self.slots.base(), mask: self.slots.mask, _q: std::marker::PhantomData }
    }

    /// Whether the slot for `index` holds a CQE for us (`SIW_WQE_VALID` set).
    ///
    /// `Acquire`: pairs with the kernel's store of the flag after it wrote the CQE (`siw_sqe_complete`,
    /// `siw_rqe_complete`), so the CQE bytes are visible to the reads that follow.
    #[inline(always)]
    pub fn is_valid(&self, index: u32) -> bool {
        self.flags(index).load(Ordering::Acquire) & super::abi::SIW_WQE_VALID as u8 != 0
    }

    /// The slot for `index`, to read after [`CqQueue::is_valid`] said it holds a CQE and before
    /// [`CqQueue::release`].
    #[inline(always)]
    pub fn slot(&self, index: u32) -> *const u8 {
        self.slots.slot(index)
    }

    /// Hands the slot for `index` back to the kernel (flags 0).
    ///
    /// `Release`: our reads of the CQE happen-before the kernel's check that the slot is free and its new CQE.
    #[inline(always)]
    pub fn release(&self, index: u32) {
        self.flags(index).store(0, Ordering::Release)
    }

    /// Arms the CQ: stores `flags` (`SIW_NOTIFY_*`) in the notification word the kernel reads when it adds a
    /// CQE (and resets to `SIW_NOTIFY_NOT` when it notifies: the arm is one-shot).
    ///
    /// `Release` store, then a `SeqCst` fence: a poll after the arm cannot read the CQ before the word is visible,
    /// which pairs with the kernel's CQE publication, full barrier, then read of the word. Either the kernel sees
    /// the arm and notifies, or our next poll sees its CQE.
    #[inline(always)]
    pub fn arm(&self, flags: u32) {
        self.notify().store(flags, Ordering::Release);
        fence(Ordering::SeqCst);
    }

    /// The notification word (tests, debugging).
    pub fn notify_flags(&self) -> u32 {
        self.notify().load(Ordering::Acquire)
    }
}

/// Heap memory laid out like the kernel's queues, and the kernel's side of the protocol, for unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::super::abi::*;
    use super::*;
    use std::cell::Cell;

    pub use crate::provider::queue::testing::HeapMemory;

    pub fn sq(num: u32) -> WqeQueue {
        WqeQueue::new(HeapMemory::new(num as usize * SQE_SIZE), num, SQE_SIZE).unwrap()
    }
    pub fn rq(num: u32) -> WqeQueue {
        WqeQueue::new(HeapMemory::new(num as usize * RQE_SIZE), num, RQE_SIZE).unwrap()
    }
    pub fn cq(num: u32) -> CqQueue {
        CqQueue::new(HeapMemory::new(num as usize * CQE_SIZE + CQ_CTRL_SIZE), num).unwrap()
    }

    /// The kernel's consumer side of an SQ/RQ/SRQ: its private `sq_get`/`rq_get`. It holds raw pointers into the
    /// queue's memory (a separate allocation), not a borrow of the object owning the queue, so a test can post
    /// through `&mut` the object while playing the kernel; the queue must outlive it.
    pub struct KernelWq {
        base: *mut u8,
        mask: u32,
        elem: usize,
        pub get: Cell<u32>,
    }

    impl KernelWq {
        pub fn new(q: &WqeQueue) -> KernelWq {
            KernelWq {
                base: q.slots.base().as_ptr(),
                mask: q.slots.mask,
                elem: q.slots.elem as usize,
                get: Cell::new(0),
            }
        }
        fn slot(&self, i: u32) -> *mut u8 {
            unsafe { self.base.add((i & self.mask) as usize * self.elem) }
        }
        fn flags(&self, i: u32) -> &AtomicU16 {
            unsafe { AtomicU16::from_ptr(self.slot(i).add(WQE_FLAGS).cast()) }
        }
        /// `sq_get_next` + copy + recycle (`smp_store_mb(flags, 0)`): the bytes of the next valid WQE, if any.
        pub fn take(&self) -> Option<Vec<u8>> {
            let i = self.get.get();
            let flags = self.flags(i);
            if flags.load(Ordering::Acquire) & SIW_WQE_VALID as u16 == 0 {
                return None;
            }
            // SAFETY: a valid slot of the test queue, `elem` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(self.slot(i), self.elem) }.to_vec();
            flags.store(0, Ordering::SeqCst);
            self.get.set(i.wrapping_add(1));
            Some(bytes)
        }
        /// The flags of the slot `offset` after the kernel's next index.
        pub fn peek_flags(&self, offset: u32) -> u16 {
            self.flags(self.get.get().wrapping_add(offset)).load(Ordering::Relaxed)
        }
    }

    /// One CQE as the kernel writes it (`siw_sqe_complete` / `siw_rqe_complete` for a user CQ).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Cqe {
        pub id: u64,
        pub opcode: u8,
        pub status: u16,
        pub bytes: u32,
        pub qp_id: u32,
        /// 0: `SIW_WQE_VALID`.
        pub flags: u8,
    }

    /// The kernel's producer side of a CQ: its private `cq_put`. Raw pointers, as [`KernelWq`].
    pub struct KernelCq {
        base: *mut u8,
        mask: u32,
        pub put: Cell<u32>,
    }

    impl KernelCq {
        pub fn new(q: &CqQueue) -> KernelCq {
            KernelCq { base: q.slots.base().as_ptr(), mask: q.slots.mask, put: Cell::new(0) }
        }
        fn slot(&self, i: u32) -> *mut u8 {
            unsafe { self.base.add((i & self.mask) as usize * CQE_SIZE) }
        }
        fn flags(&self, i: u32) -> &AtomicU8 {
            unsafe { AtomicU8::from_ptr(self.slot(i).add(WQE_FLAGS)) }
        }
        fn notify(&self) -> &AtomicU32 {
            unsafe { AtomicU32::from_ptr(self.base.add((self.mask as usize + 1) * CQE_SIZE).cast()) }
        }
        /// Writes `c` into the next slot if it is free (`None`: CQ overflow), then the flag; then reads and clears
        /// the notification word the way `siw_cq_notify_now` does, answering whether it notifies.
        pub fn complete(&self, c: Cqe, solicited: bool) -> Option<bool> {
            let i = self.put.get();
            let flags = self.flags(i);
            if flags.load(Ordering::Acquire) != 0 {
                return None;
            }
            let p = self.slot(i);
            // SAFETY: a free slot of the test queue.
            unsafe {
                p.add(WQE_ID).cast::<u64>().write(c.id);
                p.add(CQE_OPCODE).write(c.opcode);
                p.add(CQE_STATUS).cast::<u16>().write(c.status);
                p.add(CQE_BYTES).cast::<u32>().write(c.bytes);
                p.add(CQE_IMM).cast::<u64>().write(0);
                p.add(CQE_QP_ID).cast::<u64>().write(c.qp_id as u64);
            }
            let f = if c.flags == 0 { SIW_WQE_VALID as u8 } else { c.flags };
            flags.store(f, Ordering::Release);
            self.put.set(i.wrapping_add(1));
            fence(Ordering::SeqCst);
            let n = self.notify().load(Ordering::Relaxed);
            let now = n & SIW_NOTIFY_NEXT_COMPLETION != 0 || (n & SIW_NOTIFY_SOLICITED != 0 && solicited);
            if now {
                self.notify().store(SIW_NOTIFY_NOT, Ordering::Relaxed);
            }
            Some(now)
        }
        /// The raw flags byte of slot `i`.
        pub fn flags_at(&self, i: u32) -> u8 {
            self.flags(i).load(Ordering::Relaxed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::abi::*;
    use super::testing::*;
    use super::*;
    use std::os::fd::{AsFd, FromRawFd, OwnedFd};

    #[test]
    fn geometry_is_checked() {
        assert_eq!(WqeQueue::new(HeapMemory::new(3 * SQE_SIZE), 3, SQE_SIZE).unwrap_err(), Errno::EINVAL, "2^n");
        assert_eq!(WqeQueue::new(HeapMemory::new(3 * SQE_SIZE), 4, SQE_SIZE).unwrap_err(), Errno::EINVAL, "fits");
        assert_eq!(CqQueue::new(HeapMemory::new(4 * CQE_SIZE), 4).unwrap_err(), Errno::EINVAL, "room for the word");
        let q = sq(4);
        assert_eq!(q.slot(1) as usize - q.slot(0) as usize, 120);
        assert_eq!(q.slot(5), q.slot(1), "indices are masked");
        assert_eq!(q.slot(u32::MAX), q.slot(3), "a free-running counter wraps onto the same slots");
        let c = cq(8);
        assert_eq!(c.notify().as_ptr() as usize - c.slot(0) as usize, 8 * 32, "the word follows the CQEs");
        assert_eq!(c.notify_flags(), SIW_NOTIFY_NOT);
    }

    #[test]
    fn wqe_ownership_round_trip() {
        let q = rq(2);
        let k = KernelWq::new(&q);
        assert!(q.is_free(0) && q.is_free(1));
        unsafe { q.slot(0).cast::<u64>().write(0xabc) };
        assert_eq!(k.take(), None, "nothing is the kernel's before the flag");
        q.publish(0, SIW_WQE_VALID as u16);
        assert!(!q.is_free(0));
        let bytes = k.take().unwrap();
        assert_eq!(u64::from_ne_bytes(bytes[0..8].try_into().unwrap()), 0xabc);
        assert_eq!(u16::from_ne_bytes(bytes[8..10].try_into().unwrap()), SIW_WQE_VALID as u16);
        assert!(q.is_free(0), "the kernel recycled the slot");
        assert!(q.is_free_after_publish(0));
    }

    #[test]
    fn cqe_ownership_round_trip_and_arm() {
        let q = cq(2);
        let k = KernelCq::new(&q);
        assert!(!q.is_valid(0));
        assert_eq!(k.complete(Cqe { id: 1, ..Cqe::default() }, false), Some(false), "not armed: no event");
        assert_eq!(k.complete(Cqe { id: 2, ..Cqe::default() }, false), Some(false));
        assert_eq!(k.complete(Cqe { id: 3, ..Cqe::default() }, false), None, "full until we hand a slot back");
        assert!(q.is_valid(0) && q.is_valid(1));
        q.release(0);
        assert_eq!(k.flags_at(0), 0);
        q.arm(SIW_NOTIFY_SOLICITED);
        assert_eq!(k.complete(Cqe { id: 3, ..Cqe::default() }, false), Some(false), "solicited-only arm");
        assert_eq!(q.notify_flags(), SIW_NOTIFY_SOLICITED, "still armed");
        q.release(1);
        assert_eq!(k.complete(Cqe { id: 4, ..Cqe::default() }, true), Some(true));
        assert_eq!(q.notify_flags(), SIW_NOTIFY_NOT, "one-shot");
    }

    #[test]
    fn maps_a_shared_file_like_the_kernel_queues() {
        // A memfd stands in for the uverbs fd; the keys are offsets into it, as rdma_user_mmap_get_offset's are.
        let raw = unsafe { libc::memfd_create(c"siw-queue-test".as_ptr(), 0) };
        assert!(raw >= 0);
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        assert_eq!(unsafe { libc::ftruncate(raw, 3 * 4096) }, 0);
        let q = WqeQueue::map(fd.as_fd(), 4096, 8, SQE_SIZE).unwrap();
        unsafe { q.slot(1).cast::<u64>().write(0x1122) };
        q.publish(1, SIW_WQE_VALID as u16);
        let mut b = [0u8; 10];
        assert_eq!(unsafe { libc::pread(raw, b.as_mut_ptr().cast(), 10, 4096 + 120) }, 10);
        assert_eq!(u64::from_ne_bytes(b[0..8].try_into().unwrap()), 0x1122, "MAP_SHARED at the key");
        assert_eq!(u16::from_ne_bytes(b[8..10].try_into().unwrap()), 1);
        let c = CqQueue::map(fd.as_fd(), 2 * 4096, 16).unwrap();
        c.arm(SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION);
        let mut w = [0u8; 4];
        assert_eq!(unsafe { libc::pread(raw, w.as_mut_ptr().cast(), 4, 2 * 4096 + 16 * 32) }, 4);
        assert_eq!(u32::from_ne_bytes(w), 3, "the notification word follows the 16 CQEs");
        assert_eq!(WqeQueue::map(fd.as_fd(), 0, 6, SQE_SIZE).unwrap_err(), Errno::EINVAL);
        assert_eq!(CqQueue::map(fd.as_fd(), 0, 0).unwrap_err(), Errno::EINVAL);
    }
}
