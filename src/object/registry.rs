//! The registry of live objects: every object this library handed to C, by address and type.
//!
//! C passes objects back as raw pointers. Before the control path dereferences one it asks the registry whether
//! that address is a live object of the expected type, so that NULL, a destroyed object, an object of another
//! type or a pointer that never came from this library is answered with `EINVAL` instead of a crash.
//!
//! Limits, by construction:
//! * the data path (`ibv_post_send`, `ibv_poll_cq`, the `ibv_wr_*` and `ibv_*_poll` inlines, ...) is never checked:
//!   applications call it through function pointers stored in the objects themselves, so a stale pointer is
//!   dereferenced by the application before any code of ours runs;
//! * an address freed and then reused by a new object of the same type is that new object (ABA);
//! * a check and the use that follows are not atomic with a concurrent destroy of the same object by another
//!   thread (rdma-core forbids that too); destroys themselves take the object out of the registry first (or, for
//!   CQs, QPs and SRQs, whose destroy waits for event acknowledgements, mark it dying: [`begin_destroy`]), so two
//!   concurrent destroys of one object cannot both proceed.
#![allow(unsafe_code)]

use rdma_common::registry::Registry;
use rdma_common::{errno::Result, Errno};
use std::ptr::NonNull;

/// The type of a registered object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `struct ibv_device *` (never unregistered: devices live as long as the process).
    Device,
    /// An array from `ibv_get_device_list(3)`.
    DeviceList,
    /// `struct ibv_context *` (the `context` member of our `verbs_context`).
    Context,
    Pd,
    Mr,
    Mw,
    CompChannel,
    /// `struct ibv_cq *` / `struct ibv_cq_ex *` (one address).
    Cq,
    /// `struct ibv_qp *` / `struct ibv_qp_ex *` (one address).
    Qp,
    Srq,
    Ah,
}

/// A registered object: its type, and whether a destroy is under way (it then accepts only acknowledgements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    kind: Kind,
    dying: bool,
    /// Where our state for the object is, when it is not at the object's own address (a plug-in's device).
    side: usize,
}

static LIVE: Registry<Entry> = Registry::new();

/// Registers `p` as a live object of type `kind` (when it is handed to C).
pub fn insert<T>(p: *const T, kind: Kind) {
    insert_side(p, kind, p as usize);
}

/// Lists `p` as a live object of `kind` whose state is at `side`.
pub fn insert_side<T>(p: *const T, kind: Kind, side: usize) {
    LIVE.insert(p, Entry { kind, dying: false, side });
}

/// The state address recorded for a live `p` of `kind` (`EINVAL` if not live).
pub fn side<T>(p: *const T, kind: Kind) -> Result<usize> {
    match LIVE.lock().get(p) {
        Some(e) if e.kind == kind && !e.dying => Ok(e.side),
        _ => Err(Errno::EINVAL),
    }
}

/// Unregisters `p` if it is a live (or dying) object of type `kind`; false if it is not (already destroyed,
/// another type, never ours). A destroy takes the object out first, and puts it back with [`insert`] if the
/// kernel refuses.
pub fn remove<T>(p: *const T, kind: Kind) -> bool {
    let mut live = LIVE.lock();
    match live.get(p) {
        Some(e) if e.kind == kind => {
            live.remove(p);
            true
        }
        _ => false,
    }
}

/// Marks a live object of type `kind` dying (a destroy that must still accept acknowledgements has begun): later
/// checks fail, except [`contains_or_dying`]. False if it is not live (or already dying).
pub fn begin_destroy<T>(p: *const T, kind: Kind) -> bool {
    match LIVE.lock().get_mut(p) {
        Some(e) if e.kind == kind && !e.dying => {
            e.dying = true;
            true
        }
        _ => false,
    }
}

/// Undoes [`begin_destroy`] (the kernel refused the destroy).
/// Ends a destruction begun with [`begin_destroy`] once the object is gone: removes the entry only if it is
/// still the dying one (a new object that meanwhile got the same address stays listed).
pub fn finish_destroy<T>(p: *const T, kind: Kind) {
    let mut live = LIVE.lock();
    if live.get(p).is_some_and(|e| e.kind == kind && e.dying) {
        live.remove(p);
    }
}

pub fn abort_destroy<T>(p: *const T, kind: Kind) {
    if let Some(e) = LIVE.lock().get_mut(p) {
        if e.kind == kind {
            e.dying = false;
        }
    }
}

/// Whether `p` is a live object of type `kind`.
pub fn contains<T>(p: *const T, kind: Kind) -> bool {
    LIVE.lock().get(p).is_some_and(|e| e.kind == kind && !e.dying)
}

/// Whether `p` is a live or dying object of type `kind` (for acknowledgements, which a destroy waits for).
pub fn contains_or_dying<T>(p: *const T, kind: Kind) -> bool {
    LIVE.lock().get(p).is_some_and(|e| e.kind == kind)
}

/// `p` if it is a live object of type `kind`; `EINVAL` for NULL or anything else.
pub fn check<T>(p: *mut T, kind: Kind) -> Result<NonNull<T>> {
    let nn = NonNull::new(p).ok_or(Errno::EINVAL)?;
    if contains(p, kind) {
        Ok(nn)
    } else {
        log::debug!("{:?} {:p} is not a live object of this library", kind, p);
        Err(Errno::EINVAL)
    }
}

/// As [`check`], for a pointer that may be NULL (an optional argument): `Ok(None)` for NULL.
pub fn check_opt<T>(p: *mut T, kind: Kind) -> Result<Option<NonNull<T>>> {
    if p.is_null() {
        Ok(None)
    } else {
        check(p, kind).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_dead_and_foreign() {
        let a = Box::into_raw(Box::new(1u64));
        assert_eq!(check(a, Kind::Pd), Err(Errno::EINVAL));
        insert(a, Kind::Pd);
        assert!(check(a, Kind::Pd).is_ok());
        assert_eq!(check(a, Kind::Mr), Err(Errno::EINVAL), "another type");
        assert!(!remove(a, Kind::Qp));
        assert!(remove(a, Kind::Pd));
        assert!(!remove(a, Kind::Pd), "twice");
        assert_eq!(check(a, Kind::Pd), Err(Errno::EINVAL), "destroyed");
        assert_eq!(check(std::ptr::null_mut::<u64>(), Kind::Pd), Err(Errno::EINVAL));
        assert_eq!(check_opt(std::ptr::null_mut::<u64>(), Kind::Pd), Ok(None));
        insert(a, Kind::Cq);
        assert!(begin_destroy(a, Kind::Cq));
        assert!(!begin_destroy(a, Kind::Cq), "twice");
        assert_eq!(check(a, Kind::Cq), Err(Errno::EINVAL), "dying");
        assert!(contains_or_dying(a, Kind::Cq));
        abort_destroy(a, Kind::Cq);
        assert!(check(a, Kind::Cq).is_ok());
        assert!(begin_destroy(a, Kind::Cq));
        assert!(remove(a, Kind::Cq));
        assert!(!contains_or_dying(a, Kind::Cq));
        drop(unsafe { Box::from_raw(a) });
    }
}
