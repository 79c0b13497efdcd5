//! `RDMAV_STATS=1`: the counting ops of a context, and the counters' log lines (docs/diagnostics.md, "Counters").
//!
//! When the variable is set as a context is opened, [`context_opened`] gives the context a slot in the counter
//! table (`object::stats`) and replaces the data-path entries of its `ibv_context.ops` (`post_send`, `post_recv`,
//! `post_srq_recv`, `poll_cq`, `req_notify_cq`) with the counting functions below, which find the object's slot,
//! call the provider's own function (kept in the table's `Orig` of the context) and count what it accepted or
//! returned. Extended CQs get counting `start_poll`/`next_poll` the same way. A native provider's context also
//! runs the provider instantiated for `StatsObjects`, which counts its doorbells. Unset, none of this runs: the
//! ops are the provider's functions and no table exists.
//!
//! Log lines (printed whatever `VERBS_LOG_LEVEL` says, to `VERBS_LOG_FILE` or standard error): one per QP, CQ and
//! SRQ as it is destroyed, and at `ibv_close_device` (or at exit for a context never closed) one per object still
//! alive, then the context's totals.
#![allow(unsafe_code)]

use crate::object::stats::{
    self, orig, table_if_made, Counter, Kind, Table, COUNTER_NAMES, FLAG_DOORBELLS, NO_PARENT, N_STATUS,
};
use crate::object::Device;
use crate::provider::verbs::*;

use rdma_common::ffi;
use std::ffi::{c_int, CStr};
use std::fmt::Write as _;
use std::ptr::addr_of;
use std::sync::atomic::Ordering::Relaxed;

/// Indices of the wrapped functions in a context's (or an extended CQ's) `Orig`.
const POST_SEND: usize = 0;
const POST_RECV: usize = 1;
const POST_SRQ_RECV: usize = 2;
const POLL_CQ: usize = 3;
const REQ_NOTIFY_CQ: usize = 4;
const START_POLL: usize = 0;
const NEXT_POLL: usize = 1;

type PostSendFn = unsafe extern "C" fn(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr) -> c_int;
type PostRecvFn = unsafe extern "C" fn(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int;
type PostSrqRecvFn = unsafe extern "C" fn(*mut ibv_srq, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int;
type PollCqFn = unsafe extern "C" fn(*mut ibv_cq, c_int, *mut ibv_wc) -> c_int;
type ReqNotifyFn = unsafe extern "C" fn(*mut ibv_cq, c_int) -> c_int;
type StartPollFn = unsafe extern "C" fn(*mut ibv_cq_ex, *mut ibv_poll_cq_attr) -> c_int;
type NextPollFn = unsafe extern "C" fn(*mut ibv_cq_ex) -> c_int;

/// Gives a context just opened (its ops final, registered) its slot and counting ops, when `RDMAV_STATS` is set;
/// nothing otherwise. `native`: our provider, whose doorbells the host counts.
///
/// # Safety
/// `ibv` is a live context of `dev` that C has not seen yet.
pub(crate) unsafe fn context_opened(ibv: *mut ibv_context, dev: &Device, native: bool) {
    let Some(t) = stats::table() else { return };
    let flags = if native { FLAG_DOORBELLS } else { 0 };
    let Some(idx) = t.insert(ibv as usize, Kind::Context, 0, NO_PARENT, flags, &dev.info.name) else { return };
    // Its own index as id (what the tool shows).
    t.slot(idx).w[stats::W_KIND_ID].store(Kind::Context as u64 | (idx as u64) << 32, Relaxed);
    // SAFETY: the context's own ops table, not yet visible to the application.
    let ops = unsafe { &mut (*ibv).ops };
    let o = &orig(idx).f;
    o[POST_SEND].store(ops.post_send.map_or(0, |f| f as usize), Relaxed);
    o[POST_RECV].store(ops.post_recv.map_or(0, |f| f as usize), Relaxed);
    o[POST_SRQ_RECV].store(ops.post_srq_recv.map_or(0, |f| f as usize), Relaxed);
    o[POLL_CQ].store(ops.poll_cq.map_or(0, |f| f as usize), Relaxed);
    o[REQ_NOTIFY_CQ].store(ops.req_notify_cq.map_or(0, |f| f as usize), Relaxed);
    ops.post_send = Some(post_send);
    ops.post_recv = Some(post_recv);
    ops.post_srq_recv = Some(post_srq_recv);
    ops.poll_cq = Some(poll_cq);
    ops.req_notify_cq = Some(req_notify_cq);
    let _ = stats::EXIT_HOOK.set(print_all_at_exit);
    if let Some(p) = t.path() {
        log::debug!("RDMAV_STATS: {} counted in {}", dev.info.name, p.display());
    }
}

/// Whether this process counts (a context was opened with `RDMAV_STATS` set).
#[inline(always)]
pub(crate) fn on() -> bool {
    table_if_made().is_some()
}

/// Gives an object just created on a counting context its slot (`id`: QP number, CQ/SRQ handle); an extended CQ
/// (`extended`) also gets the counting `start_poll`/`next_poll`, an extended QP the counting `ibv_wr_*`.
///
/// # Safety
/// `obj` is a live QP, CQ or SRQ (as `kind` says) of the live context `ctx`, not yet returned to C.
pub(crate) unsafe fn object_created(
    ctx: *mut ibv_context,
    obj: *mut std::ffi::c_void,
    kind: Kind,
    id: u32,
    extended: bool,
) {
    let Some(t) = table_if_made() else { return };
    let Some(c) = t.lookup(ctx as usize) else { return };
    let Some(idx) = t.insert(obj as usize, kind, id, c, 0, "") else { return };
    if extended && kind == Kind::Qp {
        // SAFETY: caller's contract: an extended QP (an `ibv_qp_ex`), not yet handed out.
        unsafe { wrap_qp_ex(&mut *obj.cast::<ibv_qp_ex>(), idx) };
    }
    if extended && kind == Kind::Cq {
        let cq = obj.cast::<ibv_cq_ex>();
        let o = &orig(idx).f;
        // SAFETY: caller's contract: our CQ, not yet handed out.
        unsafe {
            if let (Some(s), Some(n)) = ((*cq).start_poll, (*cq).next_poll) {
                o[START_POLL].store(s as usize, Relaxed);
                o[NEXT_POLL].store(n as usize, Relaxed);
                (*cq).start_poll = Some(start_poll);
                (*cq).next_poll = Some(next_poll);
            }
        }
    }
}

/// Prints and frees the slot of a QP, CQ or SRQ being destroyed (after the provider destroyed it).
pub(crate) fn object_destroyed(obj: *mut std::ffi::c_void) {
    let Some(t) = table_if_made() else { return };
    let Some(idx) = t.lookup(obj as usize) else { return };
    print_object(t, idx, "destroyed");
    t.remove(idx);
}

/// Prints a context's counters (its live objects, then its totals) and frees its slots: `ibv_close_device`.
pub(crate) fn context_closing(ibv: *mut ibv_context) {
    let Some(t) = table_if_made() else { return };
    let Some(idx) = t.lookup(ibv as usize) else { return };
    print_context(t, idx, "ibv_close_device");
    t.remove_context(idx);
}

/// Counts an async event read on `ctx`, on the context and on the object it names (`element`, NULL for a port
/// or device event).
pub(crate) fn async_event(ctx: *mut ibv_context, element: *mut std::ffi::c_void) {
    let Some(t) = table_if_made() else { return };
    let Some(c) = t.lookup(ctx as usize) else { return };
    match (!element.is_null()).then(|| t.lookup(element as usize)).flatten() {
        Some(o) => t.slot(o).add(Counter::AsyncEvents, 1),
        None => t.slot(c).add(Counter::AsyncEvents, 1),
    }
}

/// Counts a completion event read for `cq`.
pub(crate) fn comp_event(cq: *mut ibv_cq) {
    let Some(t) = table_if_made() else { return };
    if let Some(i) = t.lookup(cq as usize) {
        t.slot(i).add(Counter::CompEvents, 1);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Log lines.
// ---------------------------------------------------------------------------------------------------------------

fn kind_name(k: u32) -> &'static str {
    match k {
        x if x == Kind::Context as u32 => "context",
        x if x == Kind::Qp as u32 => "qp",
        x if x == Kind::Cq as u32 => "cq",
        x if x == Kind::Srq as u32 => "srq",
        _ => "?",
    }
}

/// `name=value ...` of every counter, then the error completions by status.
fn counters_text(c: &[u64], st: &[u64], doorbells_counted: bool) -> String {
    let mut s = String::new();
    for (i, name) in COUNTER_NAMES.iter().enumerate() {
        if i == Counter::Doorbells as usize && !doorbells_counted {
            let _ = write!(s, " {name}=-");
        } else {
            let _ = write!(s, " {name}={}", c[i]);
        }
    }
    for (status, &n) in st.iter().enumerate().take(N_STATUS).skip(1) {
        if n != 0 {
            // SAFETY: a static NUL-terminated string.
            let d = unsafe { CStr::from_ptr(super::misc::ibv_wc_status_str(status as u32)) };
            let _ = write!(s, " wc_status_{status}={n} ({})", d.to_string_lossy());
        }
    }
    s
}

fn print_object(t: &Table, idx: u32, when: &str) {
    let s = t.slot(idx);
    let (kind, id) = s.kind_id();
    let (parent, _) = s.parent_flags();
    let p = t.slot(parent);
    let counted = p.parent_flags().1 & FLAG_DOORBELLS != 0;
    let c: Vec<u64> = (0..COUNTER_NAMES.len()).map(|i| s.get(i)).collect();
    let st: Vec<u64> = (0..N_STATUS).map(|i| s.status(i)).collect();
    let what = if kind == Kind::Qp as u32 { format!("qp {id:#x}") } else { format!("{} {id}", kind_name(kind)) };
    rdma_common::logging::always(format_args!(
        "stats: {} {what} ({when}):{}",
        p.name(),
        counters_text(&c, &st, counted)
    ));
}

fn print_context(t: &Table, idx: u32, when: &str) {
    for i in t.children(idx) {
        print_object(t, i, "alive");
    }
    let s = t.slot(idx);
    let (c, st) = t.totals(idx);
    let counted = s.parent_flags().1 & FLAG_DOORBELLS != 0;
    rdma_common::logging::always(format_args!(
        "stats: {} context {idx} totals ({when}, pid {}):{}",
        s.name(),
        std::process::id(),
        counters_text(&c, &st, counted)
    ));
}

/// The exit hook: every context never closed.
fn print_all_at_exit() {
    if let Some(t) = table_if_made() {
        for c in t.contexts() {
            print_context(t, c, "exit");
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The counting ops. Each finds its object's slot (lock-free), calls the provider's function the context had, and
// counts; a panic (none is expected: plain arithmetic) is contained and answered EIO, never unwound into C.
// ---------------------------------------------------------------------------------------------------------------

/// The object's slot (or, without one, its context's) and the context's slot index, for an object of `ctx`.
#[inline(always)]
fn slots(t: &Table, obj: usize, ctx: *mut ibv_context) -> Option<(u32, u32)> {
    match t.lookup(obj) {
        Some(i) => Some((i, t.slot(i).parent_flags().0)),
        None => t.lookup(ctx as usize).map(|c| (c, c)),
    }
}

/// WRs of a chain from `first` up to, without, `stop` (NULL: the whole chain).
///
/// # Safety
/// A chain of live WRs (the caller's, as just posted).
#[inline(always)]
unsafe fn chain_len<T>(first: *mut T, stop: *mut T, next: impl Fn(*mut T) -> *mut T) -> u64 {
    let (mut p, mut n) = (first, 0u64);
    while !p.is_null() && p != stop {
        n += 1;
        p = next(p);
    }
    n
}

/// Counts a post: `posted` WRs accepted, `r` the provider's answer.
#[inline(always)]
fn count_post(t: &Table, slot: u32, c: Counter, posted: u64, r: c_int) {
    let s = t.slot(slot);
    s.add(Counter::PostCalls, 1);
    s.add(c, posted);
    if r != 0 {
        s.add(Counter::PostErrors, 1);
    }
}

/// The WRs accepted by a post that returned `r` with `*bad` (on failure, the first WR not posted).
///
/// # Safety
/// `wr` is the caller's chain, `bad` NULL or its out pointer.
#[inline(always)]
unsafe fn accepted<T>(wr: *mut T, bad: *mut *mut T, r: c_int, next: impl Fn(*mut T) -> *mut T) -> u64 {
    let stop = if r == 0 {
        std::ptr::null_mut()
    } else if bad.is_null() {
        wr
    } else {
        // SAFETY: the caller's out pointer, written by the provider on failure.
        unsafe { *bad }
    };
    // SAFETY: the caller's chain.
    unsafe { chain_len(wr, stop, next) }
}

/// The counting `ops.post_send` (`ibv_post_send(3)`): the provider's answer (0 or a positive errno; `EIO` if the
/// context has no slot, which cannot happen while it is open), the accepted WRs counted on the QP.
unsafe extern "C" fn post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad: *mut *mut ibv_send_wr) -> c_int {
    ffi::datapath_boundary("ibv_post_send", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        // SAFETY: a live QP (the inline read its context).
        let (slot, c) = slots(t, qp as usize, unsafe { (*qp).context }).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(c).f[POST_SEND].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the context's own post_send, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, PostSendFn>(f) };
        // SAFETY: the caller's arguments, passed on.
        let r = unsafe { f(qp, wr, bad) };
        // SAFETY: the caller's chain.
        let n = unsafe { accepted(wr, bad, r, |p| (*p).next) };
        count_post(t, slot, Counter::SendWrs, n, r);
        Ok(r)
    })
    .unwrap_or_else(|e| e.0)
}

/// The counting `ops.post_recv` (`ibv_post_recv(3)`): as [`post_send`], for receive WRs.
unsafe extern "C" fn post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad: *mut *mut ibv_recv_wr) -> c_int {
    ffi::datapath_boundary("ibv_post_recv", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        // SAFETY: a live QP.
        let (slot, c) = slots(t, qp as usize, unsafe { (*qp).context }).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(c).f[POST_RECV].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the context's own post_recv, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, PostRecvFn>(f) };
        // SAFETY: the caller's arguments, passed on.
        let r = unsafe { f(qp, wr, bad) };
        // SAFETY: the caller's chain.
        let n = unsafe { accepted(wr, bad, r, |p| (*p).next) };
        count_post(t, slot, Counter::RecvWrs, n, r);
        Ok(r)
    })
    .unwrap_or_else(|e| e.0)
}

/// The counting `ops.post_srq_recv` (`ibv_post_srq_recv(3)`): as [`post_send`], counted on the SRQ.
unsafe extern "C" fn post_srq_recv(srq: *mut ibv_srq, wr: *mut ibv_recv_wr, bad: *mut *mut ibv_recv_wr) -> c_int {
    ffi::datapath_boundary("ibv_post_srq_recv", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        // SAFETY: a live SRQ.
        let (slot, c) = slots(t, srq as usize, unsafe { (*srq).context }).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(c).f[POST_SRQ_RECV].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the context's own post_srq_recv, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, PostSrqRecvFn>(f) };
        // SAFETY: the caller's arguments, passed on.
        let r = unsafe { f(srq, wr, bad) };
        // SAFETY: the caller's chain.
        let n = unsafe { accepted(wr, bad, r, |p| (*p).next) };
        count_post(t, slot, Counter::SrqRecvWrs, n, r);
        Ok(r)
    })
    .unwrap_or_else(|e| e.0)
}

/// The counting `ops.poll_cq` (`ibv_poll_cq(3)`): the provider's answer (a count, or a negative errno), the
/// completions and their statuses counted on the CQ.
unsafe extern "C" fn poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    ffi::datapath_boundary("ibv_poll_cq", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        // SAFETY: a live CQ.
        let (slot, c) = slots(t, cq as usize, unsafe { (*cq).context }).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(c).f[POLL_CQ].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the context's own poll_cq, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, PollCqFn>(f) };
        // SAFETY: the caller's arguments, passed on.
        let n = unsafe { f(cq, num_entries, wc) };
        let s = t.slot(slot);
        s.add(Counter::PollCalls, 1);
        if n > 0 {
            s.add(Counter::Cqes, n as u64);
            for i in 0..n as usize {
                // SAFETY: the provider wrote n completions into the caller's array; the status as its number.
                s.add_status(unsafe { ffi::enum_raw(addr_of!((*wc.add(i)).status)) });
            }
        }
        Ok(n)
    })
    .unwrap_or_else(|e| -e.0)
}

/// The counting `ops.req_notify_cq` (`ibv_req_notify_cq(3)`): the provider's answer, counted on the CQ.
unsafe extern "C" fn req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    ffi::datapath_boundary("ibv_req_notify_cq", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        // SAFETY: a live CQ.
        let (slot, c) = slots(t, cq as usize, unsafe { (*cq).context }).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(c).f[REQ_NOTIFY_CQ].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the context's own req_notify_cq, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, ReqNotifyFn>(f) };
        t.slot(slot).add(Counter::NotifyCalls, 1);
        // SAFETY: the caller's arguments, passed on.
        Ok(unsafe { f(cq, solicited_only) })
    })
    .unwrap_or_else(|e| e.0)
}

/// Counts one extended poll (`start_poll`/`next_poll`) that returned `r`: a completion when 0 (its status in the
/// CQ's `status`).
///
/// # Safety
/// `cq` is a live CQ inside a poll (its `status` written when `r == 0`).
#[inline(always)]
unsafe fn count_ex_poll(t: &Table, slot: u32, cq: *mut ibv_cq_ex, r: c_int) {
    let s = t.slot(slot);
    s.add(Counter::PollCalls, 1);
    if r == 0 {
        s.add(Counter::Cqes, 1);
        // SAFETY: caller's contract; the status as its number.
        s.add_status(unsafe { ffi::enum_raw(addr_of!((*cq).status)) });
    }
}

/// The counting `ibv_cq_ex.start_poll` (`ibv_start_poll(3)`): 0 (a completion, counted with its status),
/// `ENOENT` (none) or the provider's errno.
unsafe extern "C" fn start_poll(cq: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int {
    ffi::datapath_boundary("ibv_start_poll", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        let slot = t.lookup(cq as usize).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(slot).f[START_POLL].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the CQ's own start_poll, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, StartPollFn>(f) };
        // SAFETY: the caller's arguments, passed on.
        let r = unsafe { f(cq, attr) };
        // SAFETY: a live CQ, polled.
        unsafe { count_ex_poll(t, slot, cq, r) };
        Ok(r)
    })
    .unwrap_or_else(|e| e.0)
}

/// The counting `ibv_cq_ex.next_poll` (`ibv_next_poll(3)`): as [`start_poll`].
unsafe extern "C" fn next_poll(cq: *mut ibv_cq_ex) -> c_int {
    ffi::datapath_boundary("ibv_next_poll", || {
        let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
        let slot = t.lookup(cq as usize).ok_or(rdma_common::Errno::EIO)?;
        let f = orig(slot).f[NEXT_POLL].load(Relaxed);
        if f == 0 {
            return Err(rdma_common::Errno::EOPNOTSUPP);
        }
        // SAFETY: the CQ's own next_poll, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, NextPollFn>(f) };
        // SAFETY: the caller's argument, passed on.
        let r = unsafe { f(cq) };
        // SAFETY: a live CQ, polled.
        unsafe { count_ex_poll(t, slot, cq, r) };
        Ok(r)
    })
    .unwrap_or_else(|e| e.0)
}

// ---------------------------------------------------------------------------------------------------------------
// The extended QP (`ibv_wr_*`): each builder counts one WR into the QP's batch word, `wr_complete` adds the batch
// to `send_wrs` when it succeeds (a failed batch posts nothing), `wr_start` and `wr_abort` clear it.
// ---------------------------------------------------------------------------------------------------------------

const WR_START: usize = 0;
const WR_COMPLETE: usize = 1;
const WR_ABORT: usize = 2;

/// The slot of an extended QP and its wrapped function `i`, for the builders' wrappers.
#[inline(always)]
fn qp_ex_fn(qp: *mut ibv_qp_ex, i: usize) -> rdma_common::errno::Result<(&'static Table, u32, usize)> {
    let t = table_if_made().ok_or(rdma_common::Errno::EIO)?;
    let slot = t.lookup(qp as usize).ok_or(rdma_common::Errno::EIO)?;
    match orig(slot).f[i].load(Relaxed) {
        0 => Err(rdma_common::Errno::EOPNOTSUPP),
        f => Ok((t, slot, f)),
    }
}

/// Defines the counting wrapper of builder `$field` (wrapped function `$i`) with the builder's arguments.
macro_rules! builder {
    ($($field:ident = $i:expr, ($($a:ident: $t:ty),*);)*) => {
        $(
            /// A counting `ibv_qp_ex` builder (`ibv_wr_post(3)`): one WR into the QP's batch, then the provider's.
            unsafe extern "C" fn $field(qp: *mut ibv_qp_ex $(, $a: $t)*) {
                let _ = ffi::datapath_boundary(stringify!($field), || {
                    let (t, slot, f) = qp_ex_fn(qp, $i)?;
                    // SAFETY: the QP's own builder, stored with this type.
                    let f = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut ibv_qp_ex $(, $t)*)>(f) };
                    t.slot(slot).w[stats::W_BATCH].fetch_add(1, Relaxed);
                    // SAFETY: the caller's arguments, passed on.
                    unsafe { f(qp $(, $a)*) };
                    Ok(())
                });
            }
        )*

        /// Replaces the builders `qpx` has, and `wr_start`/`wr_complete`/`wr_abort`, with the counting ones (the
        /// provider's kept in slot `idx`'s `Orig`).
        fn wrap_qp_ex(qpx: &mut ibv_qp_ex, idx: u32) {
            let o = &orig(idx).f;
            let (Some(s), Some(c), Some(a)) = (qpx.wr_start, qpx.wr_complete, qpx.wr_abort) else { return };
            o[WR_START].store(s as usize, Relaxed);
            o[WR_COMPLETE].store(c as usize, Relaxed);
            o[WR_ABORT].store(a as usize, Relaxed);
            qpx.wr_start = Some(wr_start);
            qpx.wr_complete = Some(wr_complete);
            qpx.wr_abort = Some(wr_abort);
            $(
                if let Some(f) = qpx.$field {
                    o[$i].store(f as usize, Relaxed);
                    qpx.$field = Some($field);
                }
            )*
        }
    };
}

builder! {
    wr_atomic_cmp_swp = 3, (rkey: u32, remote_addr: u64, compare: u64, swap: u64);
    wr_atomic_fetch_add = 4, (rkey: u32, remote_addr: u64, add: u64);
    wr_bind_mw = 5, (mw: *mut ibv_mw, rkey: u32, bind_info: *const ibv_mw_bind_info);
    wr_local_inv = 6, (invalidate_rkey: u32);
    wr_rdma_read = 7, (rkey: u32, remote_addr: u64);
    wr_rdma_write = 8, (rkey: u32, remote_addr: u64);
    wr_rdma_write_imm = 9, (rkey: u32, remote_addr: u64, imm_data: __be32);
    wr_send = 10, ();
    wr_send_imm = 11, (imm_data: __be32);
    wr_send_inv = 12, (invalidate_rkey: u32);
    wr_send_tso = 13, (hdr: *mut std::ffi::c_void, hdr_sz: u16, mss: u16);
    wr_atomic_write = 14, (rkey: u32, remote_addr: u64, atomic_wr: *const std::ffi::c_void);
    wr_flush = 15, (rkey: u32, remote_addr: u64, len: usize, r#type: u8, level: u8);
}

/// The counting `ibv_qp_ex.wr_start` (`ibv_wr_start(3)`): clears the QP's batch count, then the provider's.
unsafe extern "C" fn wr_start(qp: *mut ibv_qp_ex) {
    let _ = ffi::datapath_boundary("ibv_wr_start", || {
        let (t, slot, f) = qp_ex_fn(qp, WR_START)?;
        // SAFETY: the QP's own wr_start, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut ibv_qp_ex)>(f) };
        t.slot(slot).w[stats::W_BATCH].store(0, Relaxed);
        // SAFETY: the caller's argument, passed on.
        unsafe { f(qp) };
        Ok(())
    });
}

/// The counting `ibv_qp_ex.wr_complete` (`ibv_wr_complete(3)`): the provider's answer (0 or a positive errno);
/// on 0 the batch's WRs are added to `send_wrs`.
unsafe extern "C" fn wr_complete(qp: *mut ibv_qp_ex) -> c_int {
    ffi::datapath_boundary("ibv_wr_complete", || {
        let (t, slot, f) = qp_ex_fn(qp, WR_COMPLETE)?;
        // SAFETY: the QP's own wr_complete, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut ibv_qp_ex) -> c_int>(f) };
        // SAFETY: the caller's argument, passed on.
        let r = unsafe { f(qp) };
        let s = t.slot(slot);
        let n = s.w[stats::W_BATCH].swap(0, Relaxed);
        count_post(t, slot, Counter::SendWrs, if r == 0 { n } else { 0 }, r);
        Ok(r)
    })
    .unwrap_or_else(|e| e.0)
}

/// The counting `ibv_qp_ex.wr_abort` (`ibv_wr_abort(3)`): clears the batch count, then the provider's.
unsafe extern "C" fn wr_abort(qp: *mut ibv_qp_ex) {
    let _ = ffi::datapath_boundary("ibv_wr_abort", || {
        let (t, slot, f) = qp_ex_fn(qp, WR_ABORT)?;
        // SAFETY: the QP's own wr_abort, stored with this type.
        let f = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut ibv_qp_ex)>(f) };
        t.slot(slot).w[stats::W_BATCH].store(0, Relaxed);
        // SAFETY: the caller's argument, passed on.
        unsafe { f(qp) };
        Ok(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_wrs_of_a_chain() {
        // SAFETY: zeroed recv WRs are valid (NULL pointers, zero counts).
        let mut w: [ibv_recv_wr; 3] = unsafe { std::mem::zeroed() };
        let base = w.as_mut_ptr();
        // SAFETY: linking the three WRs of the local array.
        unsafe {
            (*base).next = base.add(1);
            (*base.add(1)).next = base.add(2);
        }
        // SAFETY: called on the WRs of the local array only.
        let next = |p: *mut ibv_recv_wr| unsafe { (*p).next };
        let mut bad: *mut ibv_recv_wr = std::ptr::null_mut();
        // SAFETY: the local chain and out pointer.
        unsafe {
            assert_eq!(accepted(base, &mut bad, 0, next), 3, "success: the whole chain");
            bad = base.add(1);
            assert_eq!(accepted(base, &mut bad, libc::ENOMEM, next), 1, "failure: the WRs before *bad_wr");
            bad = base;
            assert_eq!(accepted(base, &mut bad, libc::EINVAL, next), 0);
            assert_eq!(accepted(base, std::ptr::null_mut(), libc::EINVAL, next), 0, "no bad_wr: none counted");
            assert_eq!(accepted(std::ptr::null_mut(), &mut bad, 0, next), 0, "empty chain");
        }
    }
}
