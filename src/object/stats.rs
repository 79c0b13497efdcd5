//! The counters of `RDMAV_STATS=1` (docs/diagnostics.md, "Counters"): one record per context, QP, CQ and SRQ in a
//! fixed table of [`NSLOTS`] slots of [`SLOT_BYTES`] bytes (each on its own cache lines), kept in a file a reader
//! maps (`$RDMAV_STATS_DIR` or `/dev/shm`, `rdma-core-rs-stats.<pid>`; anonymous memory when it cannot be
//! created), removed at exit.
//!
//! The table is an open-addressed hash on the object's address (the pointer C holds): slot 0 is the header, a
//! slot's key word is 0 when never used, 1 when freed (the probe goes on past it), the object's address when live.
//! The data path ([`lookup`], then relaxed `fetch_add`s on the object's own slot) takes no lock; inserting and
//! removing (the control path) take [`Table::lock`]. A slot is filled before its key is published (Release) and
//! freed by storing the tombstone key after its counters were folded into its context's slot, so a context's
//! totals are its own slot plus its live objects' slots.
//!
//! Nothing here exists unless `RDMAV_STATS` is set when a context is opened: with it unset no table is made, no
//! file created, and no op is wrapped (the data path is the provider's own functions, as without this module).
//!
//! [`StatsObjects`] is the object layer's host for the native providers of a counting context: the same accessors
//! as [`super::Objects`], plus a count of each doorbell the provider rings.
#![allow(unsafe_code)]

use super::Objects;
use crate::provider::rxe::{self, RxeAh, RxeCq, RxeQp, RxeSrq};
use crate::provider::siw::{self, SiwCq, SiwQp, SiwSrq};
use crate::provider::verbs::*;
use crate::provider::ProviderHost;
use once_cell::sync::OnceCell;
use parking_lot::Mutex;
use rdma_common::errno::Result;
use rdma_common::sys::Mmap;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Slots in the table, the header included (1023 objects at once; more are counted in their context only).
pub const NSLOTS: usize = 1024;
/// 64-bit words per slot.
pub const SLOT_WORDS: usize = 64;
/// Bytes per slot (eight cache lines).
pub const SLOT_BYTES: usize = SLOT_WORDS * 8;
/// The header's first word: `"RDMASTA1"` in memory order.
pub const MAGIC: u64 = u64::from_le_bytes(*b"RDMASTA1");
/// The layout's version (the header's second word).
pub const VERSION: u64 = 1;

/// Word of a slot holding its key: 0 never used, 1 freed, else the live object's address.
pub const W_KEY: usize = 0;
/// Word holding `kind | id << 32` ([`Kind`]; QP number, CQ/SRQ handle, a context's own slot index).
pub const W_KIND_ID: usize = 1;
/// Word holding `parent | flags << 32` (the context's slot index, [`NO_PARENT`] for a context; [`FLAG_DOORBELLS`]).
pub const W_PARENT: usize = 2;
/// First of the two words holding a context's device name (NUL-padded, at most 15 bytes).
pub const W_NAME: usize = 3;
/// An extended QP's WRs built since its `ibv_wr_start` (counted as sent when `ibv_wr_complete` succeeds).
pub const W_BATCH: usize = 5;
/// First counter word ([`Counter`] order).
pub const W_COUNTERS: usize = 8;
/// First of the per-`ibv_wc_status` words (word `W_STATUS + status`; the last one also takes larger statuses).
pub const W_STATUS: usize = 32;
/// Number of per-status words.
pub const N_STATUS: usize = 32;

/// The key of a slot never used (ends a probe) and of a freed one (a probe goes on past it).
const EMPTY: u64 = 0;
const FREED: u64 = 1;
/// `parent` of a context.
pub const NO_PARENT: u32 = u32::MAX;
/// Context flag: the provider's doorbells are counted (native providers; a plug-in rings its own).
pub const FLAG_DOORBELLS: u32 = 1;

/// What a slot counts (word [`W_KIND_ID`]'s low half).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    /// An open context (`ibv_open_device`).
    Context = 1,
    /// A QP.
    Qp = 2,
    /// A CQ.
    Cq = 3,
    /// An SRQ.
    Srq = 4,
}

/// The counters of a slot, in word order from [`W_COUNTERS`].
#[derive(Clone, Copy, Debug)]
#[repr(usize)]
pub enum Counter {
    /// Send WRs the provider accepted (`ibv_post_send`).
    SendWrs = 0,
    /// Receive WRs accepted (`ibv_post_recv`).
    RecvWrs,
    /// SRQ receive WRs accepted (`ibv_post_srq_recv`).
    SrqRecvWrs,
    /// Post calls (any of the three).
    PostCalls,
    /// Post calls that returned an error.
    PostErrors,
    /// Doorbells the provider rang (the `POST_SEND` command of rxe and siw).
    Doorbells,
    /// Poll calls (`ibv_poll_cq`, `ibv_start_poll`, `ibv_next_poll`).
    PollCalls,
    /// Completions polled.
    Cqes,
    /// Completions polled with a status other than `IBV_WC_SUCCESS`.
    ErrCqes,
    /// `ibv_req_notify_cq` calls.
    NotifyCalls,
    /// Completion events read (`ibv_get_cq_event`).
    CompEvents,
    /// Async events read (`ibv_get_async_event`).
    AsyncEvents,
}

/// Number of [`Counter`]s.
pub const N_COUNTERS: usize = 12;
/// Their names, as the log and the `ibv_stats` tool print them.
pub const COUNTER_NAMES: [&str; N_COUNTERS] = [
    "send_wrs",
    "recv_wrs",
    "srq_recv_wrs",
    "post_calls",
    "post_errors",
    "doorbells",
    "poll_calls",
    "cqes",
    "err_cqes",
    "notify_calls",
    "comp_events",
    "async_events",
];

/// One slot: eight cache lines of 64-bit words, shared with readers of the file.
#[repr(C, align(64))]
pub struct Slot {
    /// The words (see the `W_*` indices).
    pub w: [AtomicU64; SLOT_WORDS],
}

const _: () = assert!(size_of::<Slot>() == SLOT_BYTES);
const _: () = assert!(W_COUNTERS + N_COUNTERS <= W_STATUS && W_STATUS + N_STATUS == SLOT_WORDS);
use std::mem::size_of;

impl Slot {
    /// Adds `n` to counter `c` (relaxed: a statistic, read after the fact).
    #[inline(always)]
    pub fn add(&self, c: Counter, n: u64) {
        self.w[W_COUNTERS + c as usize].fetch_add(n, Ordering::Relaxed);
    }

    /// Counts one completion of `status` (an `ibv_wc_status` number).
    #[inline(always)]
    pub fn add_status(&self, status: u32) {
        if status != 0 {
            self.add(Counter::ErrCqes, 1);
        }
        self.w[W_STATUS + (status as usize).min(N_STATUS - 1)].fetch_add(1, Ordering::Relaxed);
    }

    /// Counter `c`.
    pub fn get(&self, c: usize) -> u64 {
        self.w[W_COUNTERS + c].load(Ordering::Relaxed)
    }

    /// The completions of status `s`.
    pub fn status(&self, s: usize) -> u64 {
        self.w[W_STATUS + s].load(Ordering::Relaxed)
    }

    /// The slot's kind and id (QP number, CQ or SRQ handle, context: its index).
    pub fn kind_id(&self) -> (u32, u32) {
        let v = self.w[W_KIND_ID].load(Ordering::Relaxed);
        (v as u32, (v >> 32) as u32)
    }

    /// The parent context's slot index ([`NO_PARENT`] for a context) and the flags.
    pub fn parent_flags(&self) -> (u32, u32) {
        let v = self.w[W_PARENT].load(Ordering::Relaxed);
        (v as u32, (v >> 32) as u32)
    }

    /// The device name stored in a context's slot.
    pub fn name(&self) -> String {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.w[W_NAME].load(Ordering::Relaxed).to_le_bytes());
        b[8..].copy_from_slice(&self.w[W_NAME + 1].load(Ordering::Relaxed).to_le_bytes());
        let n = b.iter().position(|&c| c == 0).unwrap_or(16);
        String::from_utf8_lossy(&b[..n]).into_owned()
    }

    /// Whether the slot holds a live object.
    pub fn live(&self) -> bool {
        self.w[W_KEY].load(Ordering::Acquire) > FREED
    }
}

/// Where the slots live: the mapped file, or our own memory when it could not be made.
enum Backing {
    File(Mmap, PathBuf),
    Heap(#[allow(dead_code)] Box<[Slot]>),
}

/// The table of one process.
pub struct Table {
    base: *const Slot,
    backing: Backing,
    /// Serialises insertions and removals (the control path).
    lock: Mutex<()>,
    /// The process that made the table (a forked child must not remove its parent's file).
    pid: u32,
}

// SAFETY: `base` points into `backing`, which lives as long as the table (for the process); slots are atomics.
unsafe impl Send for Table {}
// SAFETY: as above.
unsafe impl Sync for Table {}

/// Function pointers of the ops a counting context wraps, per slot (the real ones its wrappers call): for a
/// context its `ibv_context.ops` data path, for an extended CQ its `start_poll`/`next_poll`, for an extended QP
/// its `ibv_wr_*` builders and `wr_start`/`wr_complete`/`wr_abort`. In process memory only (not in the file).
pub struct Orig {
    /// The function pointers, 0 where none was wrapped.
    pub f: [AtomicUsize; ORIG_FNS],
}

/// Wrapped functions per slot, at most.
pub const ORIG_FNS: usize = 16;

static ORIG: [Orig; NSLOTS] = [const { Orig { f: [const { AtomicUsize::new(0) }; ORIG_FNS] } }; NSLOTS];

/// The wrapped functions of slot `i`.
#[inline(always)]
pub fn orig(i: u32) -> &'static Orig {
    &ORIG[i as usize % NSLOTS]
}

static TABLE: OnceCell<Option<Table>> = OnceCell::new();

/// Whether `RDMAV_STATS` asks for counters (read once per process: set and not `0`).
pub fn wanted() -> bool {
    static WANTED: OnceCell<bool> = OnceCell::new();
    *WANTED.get_or_init(|| rdma_common::env::flag("RDMAV_STATS"))
}

/// The table, made on first use when [`wanted`]; `None` when counters are off.
pub fn table() -> Option<&'static Table> {
    TABLE.get_or_init(|| wanted().then(Table::new)).as_ref()
}

/// The table if it was ever made (for the data path and the exit hook: never makes it).
#[inline(always)]
pub fn table_if_made() -> Option<&'static Table> {
    TABLE.get().and_then(Option::as_ref)
}

/// The file of process `pid` in the stats directory (`$RDMAV_STATS_DIR`, ignored set-uid, else `/dev/shm`).
pub fn file_path(pid: u32) -> PathBuf {
    let dir = rdma_common::env::path("RDMAV_STATS_DIR").map(PathBuf::from).unwrap_or_else(|| "/dev/shm".into());
    dir.join(format!("rdma-core-rs-stats.{pid}"))
}

/// Creates the file (mode 0600, never through a symbolic link; a stale file of a dead process of the same pid is
/// replaced) and maps it.
fn map_file(path: &PathBuf) -> std::io::Result<Mmap> {
    let open = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)
    };
    let f = match open() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            open()?
        }
        r => r?,
    };
    f.set_len((NSLOTS * SLOT_BYTES) as u64)?;
    Mmap::map_shared(f.as_fd(), NSLOTS * SLOT_BYTES, 0).map_err(|e| std::io::Error::from_raw_os_error(e.0))
}

impl Table {
    fn new() -> Table {
        let pid = std::process::id();
        let path = file_path(pid);
        let backing = match map_file(&path) {
            Ok(m) => Backing::File(m, path),
            Err(e) => {
                log::warn!("RDMAV_STATS: cannot create {}: {e}; counting in memory only", path.display());
                Backing::Heap((0..NSLOTS).map(|_| Slot { w: [const { AtomicU64::new(0) }; SLOT_WORDS] }).collect())
            }
        };
        let base = match &backing {
            Backing::File(m, _) => m.as_ptr().cast::<Slot>().cast_const(),
            Backing::Heap(b) => b.as_ptr(),
        };
        let t = Table { base, backing, lock: Mutex::new(()), pid };
        let h = t.slot(0);
        for (i, v) in [MAGIC, VERSION, NSLOTS as u64, SLOT_BYTES as u64, pid as u64].into_iter().enumerate() {
            h.w[i].store(v, Ordering::Release);
        }
        // SAFETY: a plain extern "C" function without arguments; registering it has no memory effects of ours.
        unsafe { libc::atexit(at_exit) };
        t
    }

    /// Slot `i` (< [`NSLOTS`]).
    #[inline(always)]
    pub fn slot(&self, i: u32) -> &Slot {
        // SAFETY: `base` has NSLOTS slots (the index is reduced into range), alive as long as the table.
        unsafe { &*self.base.add(i as usize % NSLOTS) }
    }

    /// The file the table lives in, if any.
    pub fn path(&self) -> Option<&PathBuf> {
        match &self.backing {
            Backing::File(_, p) => Some(p),
            Backing::Heap(_) => None,
        }
    }

    /// The slot index of the live object at `addr`, if it has one. Lock-free.
    #[inline(always)]
    pub fn lookup(&self, addr: usize) -> Option<u32> {
        let h = hash(addr);
        for i in 0..NSLOTS - 1 {
            let idx = 1 + ((h + i) % (NSLOTS - 1)) as u32;
            match self.slot(idx).w[W_KEY].load(Ordering::Acquire) {
                k if k == addr as u64 => return Some(idx),
                EMPTY => return None,
                _ => {}
            }
        }
        None
    }

    /// Gives the object at `addr` a zeroed slot of `kind` (`id`: QP number, handle; `parent`: its context's slot,
    /// [`NO_PARENT`] for a context; `name`: a context's device). `None` when the table is full (logged once).
    pub fn insert(&self, addr: usize, kind: Kind, id: u32, parent: u32, flags: u32, name: &str) -> Option<u32> {
        let _g = self.lock.lock();
        let h = hash(addr);
        let mut free = None;
        for i in 0..NSLOTS - 1 {
            let idx = 1 + ((h + i) % (NSLOTS - 1)) as u32;
            match self.slot(idx).w[W_KEY].load(Ordering::Acquire) {
                k if k == addr as u64 => {
                    // An object freed without its destroy (its context was closed): the slot is reused.
                    free = Some(idx);
                    break;
                }
                EMPTY => {
                    free = free.or(Some(idx));
                    break;
                }
                FREED => free = free.or(Some(idx)),
                _ => {}
            }
        }
        let Some(idx) = free else {
            static FULL: std::sync::Once = std::sync::Once::new();
            FULL.call_once(|| log::warn!("RDMAV_STATS: the table of {} slots is full", NSLOTS - 1));
            return None;
        };
        let s = self.slot(idx);
        s.w[W_KEY].store(FREED, Ordering::Release);
        for w in &s.w[1..] {
            w.store(0, Ordering::Relaxed);
        }
        s.w[W_KIND_ID].store(kind as u64 | (id as u64) << 32, Ordering::Relaxed);
        s.w[W_PARENT].store(parent as u64 | (flags as u64) << 32, Ordering::Relaxed);
        let mut b = [0u8; 16];
        let n = name.len().min(15);
        b[..n].copy_from_slice(&name.as_bytes()[..n]);
        s.w[W_NAME].store(u64::from_le_bytes(b[..8].try_into().unwrap_or_default()), Ordering::Relaxed);
        s.w[W_NAME + 1].store(u64::from_le_bytes(b[8..].try_into().unwrap_or_default()), Ordering::Relaxed);
        for f in &orig(idx).f {
            f.store(0, Ordering::Relaxed);
        }
        s.w[W_KEY].store(addr as u64, Ordering::Release);
        Some(idx)
    }

    /// Frees slot `idx` of an object destroyed: its counters are added to its context's slot first.
    pub fn remove(&self, idx: u32) {
        let _g = self.lock.lock();
        self.fold_and_free(idx);
    }

    fn fold_and_free(&self, idx: u32) {
        let s = self.slot(idx);
        let (parent, _) = s.parent_flags();
        if parent != NO_PARENT {
            let p = self.slot(parent);
            for w in W_COUNTERS..SLOT_WORDS {
                if !(W_COUNTERS + N_COUNTERS..W_STATUS).contains(&w) {
                    p.w[w].fetch_add(s.w[w].load(Ordering::Relaxed), Ordering::Relaxed);
                }
            }
        }
        s.w[W_KEY].store(FREED, Ordering::Release);
    }

    /// Frees the slot of a context closed, and those of its objects still alive (folded into it first).
    pub fn remove_context(&self, idx: u32) {
        let _g = self.lock.lock();
        for i in self.children(idx) {
            self.fold_and_free(i);
        }
        self.fold_and_free(idx);
    }

    /// The live objects of context slot `ctx`.
    pub fn children(&self, ctx: u32) -> Vec<u32> {
        (1..NSLOTS as u32).filter(|&i| self.slot(i).live() && self.slot(i).parent_flags().0 == ctx).collect()
    }

    /// The live contexts.
    pub fn contexts(&self) -> Vec<u32> {
        (1..NSLOTS as u32)
            .filter(|&i| self.slot(i).live() && self.slot(i).kind_id().0 == Kind::Context as u32)
            .collect()
    }

    /// A context's totals: its own slot (objects destroyed, async events) plus its live objects; `(counters,
    /// statuses)`.
    pub fn totals(&self, ctx: u32) -> ([u64; N_COUNTERS], [u64; N_STATUS]) {
        let (mut c, mut st) = ([0u64; N_COUNTERS], [0u64; N_STATUS]);
        for i in std::iter::once(ctx).chain(self.children(ctx)) {
            let s = self.slot(i);
            for (k, v) in c.iter_mut().enumerate() {
                *v += s.get(k);
            }
            for (k, v) in st.iter_mut().enumerate() {
                *v += s.status(k);
            }
        }
        (c, st)
    }
}

/// The slot index of an address (Fibonacci hashing; objects are at least 16-byte aligned).
#[inline(always)]
fn hash(addr: usize) -> usize {
    ((addr as u64 >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
}

/// What runs at process exit (registered with `atexit` when the table is made): the hook the entry-point layer
/// installed (printing the contexts never closed), then the file is removed.
extern "C" fn at_exit() {
    let _ = rdma_common::ffi::boundary("RDMAV_STATS at exit", || -> Result<()> {
        if let Some(f) = EXIT_HOOK.get() {
            f();
        }
        if let Some(t) = table_if_made() {
            if let (Some(p), true) = (t.path(), t.pid == std::process::id()) {
                let _ = std::fs::remove_file(p);
            }
        }
        Ok(())
    });
}

/// The printer [`at_exit`] calls first (set by the entry-point layer, which formats the log lines).
pub static EXIT_HOOK: OnceCell<fn()> = OnceCell::new();

// ---------------------------------------------------------------------------------------------------------------
// The host of the native providers on a counting context: Objects, plus the doorbells.
// ---------------------------------------------------------------------------------------------------------------

/// The object layer for the native providers of a context opened with `RDMAV_STATS=1`: [`Objects`]' accessors,
/// and each doorbell counted on its QP's slot. Contexts opened without it use `Objects`, whose code is untouched.
pub struct StatsObjects;

impl ProviderHost for StatsObjects {}

/// Counts a doorbell rung for `qp`.
#[inline(always)]
fn count_doorbell(qp: *mut ibv_qp) {
    if let Some(t) = table_if_made() {
        if let Some(i) = t.lookup(qp as usize) {
            t.slot(i).add(Counter::Doorbells, 1);
        }
    }
}

// SAFETY: forwards to Objects, whose contract is the same (every object of a native context is ours).
unsafe impl rxe::RxeHost for StatsObjects {
    #[inline(always)]
    unsafe fn qp<'a>(qp: *mut ibv_qp) -> Option<&'a RxeQp> {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::qp(qp) }
    }
    #[inline(always)]
    unsafe fn cq<'a>(cq: *mut ibv_cq) -> Option<&'a RxeCq> {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::cq(cq) }
    }
    #[inline(always)]
    unsafe fn qp_wr_room(qp: *mut ibv_qp) -> *mut u32 {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::qp_wr_room(qp) }
    }
    #[inline(always)]
    unsafe fn cq_cursor(cq: *mut ibv_cq) -> *mut rxe::PollCursor {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::cq_cursor(cq) }
    }
    #[inline(always)]
    unsafe fn srq<'a>(srq: *mut ibv_srq) -> Option<&'a RxeSrq> {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::srq(srq) }
    }
    #[inline(always)]
    unsafe fn ah<'a>(ah: *mut ibv_ah) -> Option<&'a RxeAh> {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::ah(ah) }
    }
    #[inline(always)]
    unsafe fn post_send_doorbell(qp: *mut ibv_qp) -> Result<()> {
        count_doorbell(qp);
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::post_send_doorbell(qp) }
    }
    #[inline(always)]
    unsafe fn req_notify_cq(cq: *mut ibv_cq, solicited_only: bool) -> Result<()> {
        // SAFETY: forwarded.
        unsafe { <Objects as rxe::RxeHost>::req_notify_cq(cq, solicited_only) }
    }
}

// SAFETY: as for rxe.
unsafe impl siw::SiwHost for StatsObjects {
    #[inline(always)]
    unsafe fn siw_qp<'a>(qp: *mut ibv_qp) -> Option<&'a SiwQp> {
        // SAFETY: forwarded.
        unsafe { <Objects as siw::SiwHost>::siw_qp(qp) }
    }
    #[inline(always)]
    unsafe fn siw_cq<'a>(cq: *mut ibv_cq) -> Option<&'a SiwCq> {
        // SAFETY: forwarded.
        unsafe { <Objects as siw::SiwHost>::siw_cq(cq) }
    }
    #[inline(always)]
    unsafe fn siw_srq<'a>(srq: *mut ibv_srq) -> Option<&'a SiwSrq> {
        // SAFETY: forwarded.
        unsafe { <Objects as siw::SiwHost>::siw_srq(srq) }
    }
    #[inline(always)]
    unsafe fn siw_post_send_doorbell(qp: *mut ibv_qp) -> Result<()> {
        count_doorbell(qp);
        // SAFETY: forwarded.
        unsafe { <Objects as siw::SiwHost>::siw_post_send_doorbell(qp) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heap_table() -> Table {
        let b: Box<[Slot]> = (0..NSLOTS).map(|_| Slot { w: [const { AtomicU64::new(0) }; SLOT_WORDS] }).collect();
        Table { base: b.as_ptr(), backing: Backing::Heap(b), lock: Mutex::new(()), pid: 0 }
    }

    #[test]
    fn insert_lookup_fold_remove() {
        let t = heap_table();
        let c = t.insert(0x1000, Kind::Context, 0, NO_PARENT, FLAG_DOORBELLS, "rxe0").unwrap();
        let q = t.insert(0x2000, Kind::Qp, 0x11, c, 0, "").unwrap();
        assert_eq!(t.lookup(0x1000), Some(c));
        assert_eq!(t.lookup(0x2000), Some(q));
        assert_eq!(t.lookup(0x3000), None);
        assert_eq!(t.slot(c).name(), "rxe0");
        t.slot(q).add(Counter::SendWrs, 5);
        t.slot(q).add_status(0);
        t.slot(q).add_status(12);
        assert_eq!(t.totals(c).0[Counter::SendWrs as usize], 5);
        assert_eq!(t.totals(c).0[Counter::ErrCqes as usize], 1);
        t.remove(q);
        assert_eq!(t.lookup(0x2000), None);
        let (c2, st) = t.totals(c);
        assert_eq!(c2[Counter::SendWrs as usize], 5, "folded into the context");
        assert_eq!((st[0], st[12]), (1, 1));
        // A freed slot does not end the probe of a later key in the same chain.
        let many: Vec<u32> =
            (0..600).map(|i| t.insert(0x10_0000 + i * 64, Kind::Cq, i as u32, c, 0, "").unwrap()).collect();
        for (i, &idx) in many.iter().enumerate().step_by(2) {
            t.remove(idx);
            assert_eq!(t.lookup(0x10_0000 + i * 64), None);
        }
        for (i, &idx) in many.iter().enumerate().skip(1).step_by(2) {
            assert_eq!(t.lookup(0x10_0000 + i * 64), Some(idx));
        }
        assert_eq!(t.children(c).len(), 300);
        t.remove_context(c);
        assert!(t.contexts().is_empty() && t.children(c).is_empty());
    }

    #[test]
    fn full_table_refuses() {
        let t = heap_table();
        for i in 0..NSLOTS - 1 {
            assert!(t.insert(0x100 + i * 16, Kind::Cq, 0, NO_PARENT, 0, "").is_some());
        }
        assert!(t.insert(0x1, Kind::Cq, 0, NO_PARENT, 0, "").is_none());
    }
}
