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

use parking_lot::{Mutex, MutexGuard};
use rdma_common::registry::AddrHasher;
use rdma_common::{errno::Result, Errno};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// The type of a registered object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// `struct ibv_device *` (never unregistered: devices live as long as the process).
    Device = 1,
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
    /// `struct ibv_buf *` from `ibv_alloc_buf` (rdma-core 65).
    Buf,
    /// `struct ibv_dmah *` (rdma-core 65).
    Dmah,
    /// `struct ibv_comp_cntr *` (rdma-core 65).
    CompCntr,
}

/// One registered object, as the set stores it: the address in the low 56 bits, the [`Kind`] in the top 4, and
/// whether a destroy is under way (it then accepts only acknowledgements) in bit 59. User-space addresses on Linux
/// stay below 2^56 (2^47 with 4-level paging, 2^56 with 5-level), so the tag never meets an address bit; 8 bytes
/// per object (plus the table's control byte and slack) is the whole cost of knowing what is live.
type Key = u64;

const DYING: u64 = 1 << 59;

fn key<T>(p: *const T, kind: Kind, dying: bool) -> Key {
    (p as usize as u64 & ((1 << 56) - 1)) | (kind as u64) << 60 | if dying { DYING } else { 0 }
}

type Set = HashSet<Key, BuildHasherDefault<AddrHasher>>;

/// How many objects the set holds room for before it first grows: 448 (a 512-slot table, 4.6 KiB, allocated at
/// the first call, which rdma-core's start-up heap of ~41 KiB dwarfs). An application with a few hundred devices,
/// PDs, CQs, QPs, MRs, SRQs and AHs never pays a rehash, and no object's creation pays for a doubling of the table.
const INITIAL_CAPACITY: usize = 448;

static LIVE: Mutex<Option<Set>> = Mutex::new(None);

/// Where our state for a device is (plug-in devices: not at the public address). Devices only.
static SIDES: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn live() -> parking_lot::MappedMutexGuard<'static, Set> {
    MutexGuard::map(LIVE.lock(), |s| {
        s.get_or_insert_with(|| Set::with_capacity_and_hasher(INITIAL_CAPACITY, Default::default()))
    })
}

/// Makes the table now (the library's first call), so that no later verb pays for it.
pub fn init() {
    drop(live());
}

/// Registers `p` as a live object of type `kind` (when it is handed to C).
pub fn insert<T>(p: *const T, kind: Kind) {
    if (p as usize as u64) >> 56 != 0 {
        log::warn!("registry: address {p:p} above 2^56; its checks may fail");
    }
    let mut live = live();
    live.remove(&key(p, kind, true));
    live.insert(key(p, kind, false));
}

/// Lists `p` as a live object of `kind` whose state is at `side`.
pub fn insert_side<T>(p: *const T, kind: Kind, side: usize) {
    insert(p, kind);
    SIDES.lock().get_or_insert_with(HashMap::new).insert(p as usize, side);
}

/// The state address recorded for a live `p` of `kind`: the one given to [`insert_side`], else `p` itself
/// (`EINVAL` if not live).
pub fn side<T>(p: *const T, kind: Kind) -> Result<usize> {
    if !contains(p, kind) {
        return Err(Errno::EINVAL);
    }
    Ok(SIDES.lock().as_ref().and_then(|m| m.get(&(p as usize)).copied()).unwrap_or(p as usize))
}

/// Unregisters `p` if it is a live (or dying) object of type `kind`; false if it is not (already destroyed,
/// another type, never ours). A destroy takes the object out first, and puts it back with [`insert`] if the
/// kernel refuses.
pub fn remove<T>(p: *const T, kind: Kind) -> bool {
    let mut live = live();
    let removed = live.remove(&key(p, kind, false)) | live.remove(&key(p, kind, true));
    forget(kind);
    removed
}

/// Marks a live object of type `kind` dying (a destroy that must still accept acknowledgements has begun): later
/// checks fail, except [`contains_or_dying`]. False if it is not live (or already dying).
pub fn begin_destroy<T>(p: *const T, kind: Kind) -> bool {
    let mut live = live();
    if live.remove(&key(p, kind, false)) {
        live.insert(key(p, kind, true));
        forget(kind);
        true
    } else {
        false
    }
}

/// Ends a destruction begun with [`begin_destroy`] once the object is gone: removes the entry only if it is
/// still the dying one (a new object that meanwhile got the same address stays listed).
pub fn finish_destroy<T>(p: *const T, kind: Kind) {
    live().remove(&key(p, kind, true));
}

/// A destroy with the registry's bookkeeping around it: marks `p` dying ([`begin_destroy`]; `EINVAL` when it is
/// not a live object of type `kind`, e.g. a second destroy racing this one), runs `destroy`, then takes the entry
/// out ([`finish_destroy`]) or, when `destroy` fails (the kernel refused), makes it live again
/// ([`abort_destroy`]) and returns that error.
pub fn destroy_with<T>(p: *const T, kind: Kind, destroy: impl FnOnce() -> Result<()>) -> Result<()> {
    if !begin_destroy(p, kind) {
        return Err(Errno::EINVAL);
    }
    match destroy() {
        Ok(()) => {
            finish_destroy(p, kind);
            Ok(())
        }
        Err(e) => {
            abort_destroy(p, kind);
            Err(e)
        }
    }
}

/// The second half of [`destroy_with`], for a destroy begun by [`check_with_context_begin_destroy`]: runs
/// `destroy`, then takes the dying entry out ([`finish_destroy`]) or, when `destroy` fails, makes it live again
/// ([`abort_destroy`]) and returns that error.
pub fn destroy_begun<T>(p: *const T, kind: Kind, destroy: impl FnOnce() -> Result<()>) -> Result<()> {
    let r = destroy();
    match r {
        Ok(()) if acknowledged(kind) => finish_destroy(p, kind),
        // Not listed at all since the destroy began: nothing left to take out.
        Ok(()) => {}
        Err(_) => abort_begun(p, kind),
    }
    r
}

/// Undoes [`check_with_context_begin_destroy`] (the destroy did not happen): `p` is live again.
pub fn abort_begun<T>(p: *const T, kind: Kind) {
    if acknowledged(kind) {
        abort_destroy(p, kind);
    } else {
        live().insert(key(p, kind, false));
    }
}

/// Whether a destroy of `kind` must still accept event acknowledgements ([`contains_or_dying`]): CQs, QPs and
/// SRQs (their destroy waits for them). Those are marked dying while their destroy runs; any other object is
/// simply taken out (a second destroy, or any other check, fails all the same) and put back if the destroy fails.
fn acknowledged(kind: Kind) -> bool {
    matches!(kind, Kind::Cq | Kind::Qp | Kind::Srq)
}

/// Undoes [`begin_destroy`] (the kernel refused the destroy).
pub fn abort_destroy<T>(p: *const T, kind: Kind) {
    let mut live = live();
    if live.remove(&key(p, kind, true)) {
        live.insert(key(p, kind, false));
    }
}

/// How many times a context has left the registry (closed, or a close begun): a context found live while this
/// count was N is still live while it is N (see [`context_epoch`]).
static CONTEXT_EPOCH: AtomicU64 = AtomicU64::new(0);

/// The count of contexts that have left the registry so far. A caller that read this count, then found a context
/// live, may treat the context as live for as long as the count has not changed since, without asking
/// again (`Context::from_ibv`'s per-thread memo). This is no weaker than a registry check: a check and the use
/// that follows are not atomic with a concurrent close either.
#[inline(always)]
pub fn context_epoch() -> u64 {
    CONTEXT_EPOCH.load(Ordering::Acquire)
}

/// A context leaving the registry ends every proof that it was live ([`context_epoch`]). Called under the lock,
/// after the entry left the set: a checker that read the count before this bump sees it change; one that reads it
/// after finds the entry gone.
#[inline(always)]
fn forget(kind: Kind) {
    if kind == Kind::Context {
        CONTEXT_EPOCH.fetch_add(1, Ordering::AcqRel);
    }
}

/// `p` if it is a live object of type `kind` whose first field, a context pointer, is a live context: both under
/// one lock. `EINVAL` for NULL, when `p` is not live or its context pointer is NULL; `EBADF` when its context is not
/// live (as [`Context::from_ibv`](super::Context::from_ibv)).
///
/// # Safety
/// Every object of `kind` begins with its `struct ibv_context *`.
pub unsafe fn check_with_context<T, C>(p: *mut T, kind: Kind) -> Result<(NonNull<T>, *mut C)> {
    let nn = NonNull::new(p).ok_or(Errno::EINVAL)?;
    let live = live();
    if !live.contains(&key(p, kind, false)) {
        drop(live);
        log::debug!("{:?} {:p} is not a live object of this library", kind, p);
        return Err(Errno::EINVAL);
    }
    // SAFETY: a live object of `kind`, which begins with its context pointer (caller's contract).
    let c = unsafe { p.cast::<*mut C>().read() };
    if c.is_null() {
        return Err(Errno::EINVAL);
    }
    if !live.contains(&key(c, Kind::Context, false)) {
        return Err(Errno::EBADF);
    }
    Ok((nn, c))
}

/// [`check_with_context`] and [`begin_destroy`] under one lock, for a destroy entry point: `p` if it was a live
/// object of type `kind` whose context is live, now marked dying, or for a kind that takes no acknowledgements
/// taken out of the set (finish with [`destroy_begun`], or undo with [`abort_begun`]). The errors are
/// [`check_with_context`]'s, and `p` is then left as it was.
///
/// # Safety
/// As for [`check_with_context`].
pub unsafe fn check_with_context_begin_destroy<T, C>(p: *mut T, kind: Kind) -> Result<(NonNull<T>, *mut C)> {
    let nn = NonNull::new(p).ok_or(Errno::EINVAL)?;
    let mut live = live();
    // Taking the live entry out is the check: one probe for both.
    if !live.remove(&key(p, kind, false)) {
        drop(live);
        log::debug!("{:?} {:p} is not a live object of this library", kind, p);
        return Err(Errno::EINVAL);
    }
    // SAFETY: a live object of `kind` (its entry was there), which begins with its context pointer (caller's
    // contract).
    let c = unsafe { p.cast::<*mut C>().read() };
    let e = if c.is_null() {
        Errno::EINVAL
    } else if !live.contains(&key(c, Kind::Context, false)) {
        Errno::EBADF
    } else {
        if acknowledged(kind) {
            live.insert(key(p, kind, true));
        }
        forget(kind);
        return Ok((nn, c));
    };
    live.insert(key(p, kind, false));
    Err(e)
}

/// For an object made of others (a QP of its PD, CQs and SRQ): each non-NULL `(p, kind)` of `members` is a live
/// object of `kind` of the live context `ctx` (its first field, a context pointer, is `ctx`), all under one lock.
/// `EINVAL` for one that is not live or belongs to another live context (or none), `EBADF` for one whose context
/// is not live: each member's errors as [`check_with_context`] and then `verbs::same_context` give them.
///
/// # Safety
/// Every object of the listed kinds begins with its `struct ibv_context *`.
pub unsafe fn check_members<C>(ctx: *mut C, members: &[(*mut std::ffi::c_void, Kind)]) -> Result<()> {
    let live = live();
    for &(p, kind) in members {
        if p.is_null() {
            continue;
        }
        if !live.contains(&key(p, kind, false)) {
            drop(live);
            log::debug!("{:?} {:p} is not a live object of this library", kind, p);
            return Err(Errno::EINVAL);
        }
        // SAFETY: a live object of `kind`, which begins with its context pointer (caller's contract).
        let c = unsafe { p.cast::<*mut C>().read() };
        if c != ctx {
            return Err(if c.is_null() || live.contains(&key(c, Kind::Context, false)) {
                Errno::EINVAL
            } else {
                Errno::EBADF
            });
        }
    }
    Ok(())
}

/// Whether `p` is a live object of type `kind`.
pub fn contains<T>(p: *const T, kind: Kind) -> bool {
    live().contains(&key(p, kind, false))
}

/// Whether `p` is a live or dying object of type `kind` (for acknowledgements, which a destroy waits for).
pub fn contains_or_dying<T>(p: *const T, kind: Kind) -> bool {
    let live = live();
    live.contains(&key(p, kind, false)) || live.contains(&key(p, kind, true))
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
    fn members_are_checked_live_and_of_the_context() {
        let (ctx, other) = (Box::into_raw(Box::new(0u64)), Box::into_raw(Box::new(0u64)));
        let cq = Box::into_raw(Box::new(ctx as usize)).cast::<std::ffi::c_void>();
        let foreign = Box::into_raw(Box::new(other as usize)).cast::<std::ffi::c_void>();
        insert(ctx, Kind::Context);
        let none: *mut std::ffi::c_void = std::ptr::null_mut();
        assert_eq!(unsafe { check_members(ctx, &[(cq, Kind::Cq)]) }, Err(Errno::EINVAL), "not live");
        insert(cq, Kind::Cq);
        insert(foreign, Kind::Cq);
        assert_eq!(unsafe { check_members(ctx, &[(none, Kind::Pd), (cq, Kind::Cq), (cq, Kind::Cq)]) }, Ok(()));
        assert_eq!(unsafe { check_members(ctx, &[(cq, Kind::Srq)]) }, Err(Errno::EINVAL), "another type");
        assert_eq!(unsafe { check_members(ctx, &[(foreign, Kind::Cq)]) }, Err(Errno::EBADF), "context not live");
        insert(other, Kind::Context);
        assert_eq!(unsafe { check_members(ctx, &[(foreign, Kind::Cq)]) }, Err(Errno::EINVAL), "another context");
        for (p, k) in [(cq, Kind::Cq), (foreign, Kind::Cq)] {
            assert!(remove(p, k));
        }
        assert!(remove(ctx, Kind::Context) && remove(other, Kind::Context));
        unsafe {
            drop(Box::from_raw(cq.cast::<usize>()));
            drop(Box::from_raw(foreign.cast::<usize>()));
            drop(Box::from_raw(ctx));
            drop(Box::from_raw(other));
        }
    }

    #[test]
    fn a_destroy_marks_dying_under_the_check() {
        let ctx = Box::into_raw(Box::new(0u64));
        let obj = Box::into_raw(Box::new(ctx as usize));
        insert(obj, Kind::Qp);
        assert_eq!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Qp) }.err(), Some(Errno::EBADF));
        assert!(contains(obj, Kind::Qp), "left as it was");
        insert(ctx, Kind::Context);
        assert!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Qp) }.is_ok());
        assert!(!contains(obj, Kind::Qp) && contains_or_dying(obj, Kind::Qp), "dying");
        assert_eq!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Qp) }.err(), Some(Errno::EINVAL));
        assert_eq!(destroy_begun(obj, Kind::Qp, || Err(Errno::EBUSY)), Err(Errno::EBUSY));
        assert!(contains(obj, Kind::Qp), "live again after a refused destroy");
        assert!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Qp) }.is_ok());
        assert_eq!(destroy_begun(obj, Kind::Qp, || Ok(())), Ok(()));
        assert!(!contains_or_dying(obj, Kind::Qp), "gone");
        // A kind without acknowledgements is taken out while its destroy runs, and put back if it fails.
        insert(obj, Kind::Mr);
        assert!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Mr) }.is_ok());
        assert!(!contains_or_dying(obj, Kind::Mr));
        assert_eq!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Mr) }.err(), Some(Errno::EINVAL));
        assert_eq!(destroy_begun(obj, Kind::Mr, || Err(Errno::EBUSY)), Err(Errno::EBUSY));
        assert!(contains(obj, Kind::Mr), "live again after a refused destroy");
        assert!(unsafe { check_with_context_begin_destroy::<usize, u64>(obj, Kind::Mr) }.is_ok());
        assert_eq!(destroy_begun(obj, Kind::Mr, || Ok(())), Ok(()));
        assert!(!contains_or_dying(obj, Kind::Mr), "gone");
        assert!(remove(ctx, Kind::Context));
        unsafe {
            drop(Box::from_raw(obj));
            drop(Box::from_raw(ctx));
        }
    }

    #[test]
    fn a_context_leaving_ends_the_proofs_and_one_lock_checks_both() {
        // An object whose first field is its context pointer, as every verbs object.
        let ctx = Box::into_raw(Box::new(0u64));
        let obj = Box::into_raw(Box::new(ctx as usize));
        assert_eq!(unsafe { check_with_context::<usize, u64>(obj, Kind::Pd) }.err(), Some(Errno::EINVAL));
        insert(obj, Kind::Pd);
        assert_eq!(unsafe { check_with_context::<usize, u64>(obj, Kind::Pd) }.err(), Some(Errno::EBADF));
        insert(ctx, Kind::Context);
        let (o, c) = unsafe { check_with_context::<usize, u64>(obj, Kind::Pd) }.unwrap();
        assert_eq!((o.as_ptr(), c), (obj, ctx));
        let e = context_epoch();
        assert!(remove(obj, Kind::Pd));
        assert_eq!(context_epoch(), e, "only contexts count");
        assert!(remove(ctx, Kind::Context));
        assert!(context_epoch() > e, "a context left");
        unsafe {
            drop(Box::from_raw(obj));
            drop(Box::from_raw(ctx));
        }
    }

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
