//! The queue lock of the native providers: a test-and-test-and-set spin lock, the kind rdma-core's rxe and siw
//! providers take around every ring operation (`pthread_spin_lock` on `sq->lock`, `rq->lock`, `cq->lock`).
//!
//! It is the only lock on the data path (docs/architecture.md). Uncontended, `lock` is one atomic exchange and
//! `unlock` one release store, both inlined into the caller (a `parking_lot` mutex needs a compare-exchange on
//! each side, and its out-of-line slow paths can unwind, which costs every `extern "C"` data-path function a
//! landing pad). Contended, it spins on a plain load, yielding the CPU after a short while; the critical
//! sections it guards are a handful of stores into a ring, except between `ibv_wr_start` and `ibv_wr_complete`
//! (or `ibv_start_poll` and `ibv_end_poll`), where the application holds it across calls, as with rdma-core.
//!
//! The API mirrors the subset of `parking_lot::Mutex` the providers use: [`SpinLock::lock`] returns an RAII
//! guard; [`SpinLock::is_locked`], [`SpinLock::data_ptr`] and [`SpinLock::force_unlock`] serve the extended APIs,
//! whose critical section spans several C calls.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// A value guarded by a spin lock, with `extra`: a small value beside the lock byte that the lock does not guard
/// (it fills the padding the lock byte leaves before an 8-aligned `T`, so a field stored there costs no bytes).
pub struct SpinLock<T, E = ()> {
    locked: AtomicBool,
    /// Not guarded by the lock: readable at any time (an atomic when it changes after creation).
    pub extra: E,
    data: UnsafeCell<T>,
}

// SAFETY: the lock hands out access to `data` to one thread at a time (Acquire on lock, Release on unlock);
// `extra` is an ordinary field, Send when `E` is.
unsafe impl<T: Send, E: Send> Send for SpinLock<T, E> {}
// SAFETY: as above; `T: Send` suffices because the guard gives exclusive access, as std's Mutex; `extra` is
// shared as `&E`, so it needs `E: Sync`.
unsafe impl<T: Send, E: Sync> Sync for SpinLock<T, E> {}

impl<T> SpinLock<T> {
    /// An unlocked lock around `value`.
    pub const fn new(value: T) -> SpinLock<T> {
        SpinLock { locked: AtomicBool::new(false), extra: (), data: UnsafeCell::new(value) }
    }
}

impl<T, E> SpinLock<T, E> {
    /// An unlocked lock around `value`, with `extra` beside the lock byte.
    pub const fn with_extra(value: T, extra: E) -> SpinLock<T, E> {
        SpinLock { locked: AtomicBool::new(false), extra, data: UnsafeCell::new(value) }
    }

    /// Takes the lock (spinning while another thread holds it) and returns the guard that releases it.
    #[inline(always)]
    pub fn lock(&self) -> SpinGuard<'_, T, E> {
        // Acquire: pairs with the Release store of the previous holder's unlock.
        if self.locked.swap(true, Ordering::Acquire) {
            self.lock_contended();
        }
        SpinGuard { lock: self }
    }

    /// Takes the lock if it is free, without waiting.
    #[inline(always)]
    pub fn try_lock(&self) -> Option<SpinGuard<'_, T, E>> {
        // Acquire when we take it; when it was already taken, the swap changed nothing.
        if self.locked.swap(true, Ordering::Acquire) {
            None
        } else {
            Some(SpinGuard { lock: self })
        }
    }

    #[cold]
    #[inline(never)]
    fn lock_contended(&self) {
        let mut spins = 0u32;
        loop {
            while self.locked.load(Ordering::Relaxed) {
                if spins < 128 {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    // SAFETY: no arguments, no memory touched; only gives up the CPU.
                    unsafe { libc::sched_yield() };
                }
            }
            if !self.locked.swap(true, Ordering::Acquire) {
                return;
            }
        }
    }

    /// Whether some thread holds the lock (a snapshot; meaningful to the holder itself).
    #[inline(always)]
    pub fn is_locked(&self) -> bool {
        self.locked.load(Ordering::Relaxed)
    }

    /// The guarded value's address. Dereferencing it is up to the caller, who must hold the lock.
    #[inline(always)]
    pub fn data_ptr(&self) -> *mut T {
        self.data.get()
    }

    /// Releases a lock whose guard was forgotten (`std::mem::forget`).
    ///
    /// # Safety
    /// The calling context holds the lock, and no reference obtained under it is used afterwards.
    #[inline(always)]
    pub unsafe fn force_unlock(&self) {
        // Release: everything written under the lock happens-before the next holder's Acquire.
        self.locked.store(false, Ordering::Release);
    }

    /// The value, through exclusive access to the lock (no locking needed).
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T, E> std::fmt::Debug for SpinLock<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The value is not shown: reading it would need the lock.
        f.debug_struct("SpinLock").field("locked", &self.is_locked()).finish_non_exhaustive()
    }
}

/// Holds a [`SpinLock`]; releases it when dropped.
pub struct SpinGuard<'a, T, E = ()> {
    lock: &'a SpinLock<T, E>,
}

impl<T, E> Deref for SpinGuard<'_, T, E> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T, E> DerefMut for SpinGuard<'_, T, E> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock, and `&mut self` makes this the only reference through it.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T, E> Drop for SpinGuard<'_, T, E> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the guard holds the lock; the references it handed out borrow the guard, so they are gone.
        unsafe { self.lock.force_unlock() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn guards_and_force_unlock() {
        let l = SpinLock::new(5u32);
        assert!(!l.is_locked());
        {
            let mut g = l.lock();
            assert!(l.is_locked());
            *g += 1;
        }
        assert!(!l.is_locked());
        std::mem::forget(l.lock());
        assert!(l.is_locked());
        assert!(l.try_lock().is_none());
        // SAFETY: held by the forgotten guard above, in this thread.
        unsafe { l.force_unlock() };
        assert_eq!(*l.lock(), 6);
    }

    #[test]
    fn excludes_other_threads() {
        let l = Arc::new(SpinLock::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let l = Arc::clone(&l);
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        let mut g = l.lock();
                        let v = *g;
                        std::hint::black_box(&v);
                        *g = v + 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*l.lock(), 80_000);
    }
}
