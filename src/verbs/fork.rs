//! fork() support (`ibv_fork_init(3)`, `ibv_is_fork_initialized(3)`, and the `ibv_dontfork_range` /
//! `ibv_dofork_range` helpers rdma-core exports for providers), as rdma-core's `memory.c`.
//!
//! Once `ibv_fork_init(3)` ran (or `RDMAV_FORK_SAFE` / `IBV_FORK_SAFE` made the first `ibv_get_device_list(3)` run
//! it), every registered range is marked `MADV_DONTFORK` so a child never shares (and copy-on-write never breaks)
//! pages the device writes. Ranges are reference-counted per page, since registrations may overlap: a page is
//! marked when its count goes 0 -> 1 and unmarked (`MADV_DOFORK`) when it goes back to 0. Pages are the system
//! page size, or with `RDMAV_HUGEPAGES_SAFE` the page size of the mapping (`/proc/self/smaps`).
//!
//! Registering memory before `ibv_fork_init(3)` makes a later `ibv_fork_init(3)` fail with `EINVAL`, as in
//! rdma-core. Kernels since 5.13 copy DMA-pinned pages on fork: `ibv_is_fork_initialized(3)` then answers
//! `IBV_FORK_UNNEEDED`, and `ibv_fork_init(3)` succeeds at once without marking anything (rdma-core 56's change;
//! 44 still marked ranges there, and refused after a registration).
#![allow(unsafe_code)]

use crate::kernel::netlink;
use parking_lot::Mutex;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use rdma_common::Errno;
use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

/// The marked ranges: disjoint `[start, end)` page ranges with a positive count, by start.
struct Ranges {
    page_size: usize,
    huge_pages: bool,
    map: BTreeMap<usize, (usize, u32)>,
}

/// `None` until `ibv_fork_init(3)` succeeded (rdma-core's `mm_root`).
static RANGES: Mutex<Option<Ranges>> = Mutex::new(None);
/// A range was (un)registered before `ibv_fork_init(3)` (rdma-core's `too_late`).
static TOO_LATE: AtomicBool = AtomicBool::new(false);
/// `RDMAV_HUGEPAGES_SAFE` was set at an `ibv_fork_init(3)`.
static HUGE_PAGES: AtomicBool = AtomicBool::new(false);

fn system_page_size() -> usize {
    // SAFETY: sysconf has no memory effects.
    let ps = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if ps > 0 {
        ps as usize
    } else {
        4096
    }
}

/// The page size of the mapping containing `addr` (`KernelPageSize` in `/proc/self/smaps`), else `default`.
fn mapping_page_size(addr: usize, default: usize) -> usize {
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else { return default };
    smaps_page_size(&smaps, addr, default)
}

/// [`mapping_page_size`] on the text of an smaps file: the `KernelPageSize` of the mapping containing `addr`, else
/// `default` (also for a zero or absurd size).
pub fn smaps_page_size(smaps: &str, addr: usize, default: usize) -> usize {
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ') {
            if let Some((a, b)) = range.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                    inside = addr >= a && addr < b;
                    continue;
                }
            }
        }
        if inside {
            if let Some(rest) = line.strip_prefix("KernelPageSize:") {
                let kb: usize = rest.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                return kb.checked_mul(1024).filter(|&b| b > 0).unwrap_or(default);
            }
        }
    }
    default
}

fn madvise(start: usize, len: usize, advice: c_int) -> Result<()> {
    // SAFETY: madvise with DONTFORK/DOFORK changes only fork-inheritance flags of existing mappings.
    if unsafe { libc::madvise(start as *mut c_void, len, advice) } != 0 {
        return Err(Errno::last());
    }
    Ok(())
}

/// rdma-core's `do_madvise`: a failed `MADV_DOFORK` over several pages is retried page by page and ignored.
fn do_madvise(start: usize, len: usize, advice: c_int, page: usize) -> Result<()> {
    let r = madvise(start, len, advice);
    if r.is_ok() || advice == libc::MADV_DONTFORK {
        return r;
    }
    if len > page {
        let mut p = start;
        while p < start + len {
            let _ = madvise(p, page, libc::MADV_DOFORK);
            p += page;
        }
    }
    Ok(())
}

impl Ranges {
    /// Splits the segment containing `at` (strictly inside) in two.
    fn split_at(&mut self, at: usize) {
        let found = self.map.range(..at).next_back().map(|(&s, &(e, c))| (s, e, c));
        if let Some((s, e, c)) = found {
            if s < at && at < e {
                self.map.insert(s, (at, c));
                self.map.insert(at, (e, c));
            }
        }
    }

    /// The pieces of `[start, end)`: existing segments and the gaps between them (count 0).
    fn pieces(&self, start: usize, end: usize) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        let mut cur = start;
        for (&s, &(e, c)) in self.map.range(start..end) {
            if s > cur {
                out.push((cur, s, 0));
            }
            out.push((s, e.min(end), c));
            cur = e.min(end);
        }
        if cur < end {
            out.push((cur, end, 0));
        }
        out
    }

    /// rdma-core's `ibv_madvise_range`: counts `[base, base + size)` in (`dontfork`) or out, marking or unmarking
    /// the pages whose count crosses zero. On a failed `MADV_DONTFORK` what was done is undone and the counts
    /// are unchanged.
    fn apply(&mut self, base: usize, size: usize, dontfork: bool) -> Result<()> {
        if size == 0 || base == 0 {
            return Ok(());
        }
        let page = if self.huge_pages { mapping_page_size(base, self.page_size) } else { self.page_size };
        let start = base & !(page - 1);
        let end = base.checked_add(size).and_then(|e| e.checked_add(page - 1)).ok_or(Errno::EINVAL)? & !(page - 1);
        self.split_at(start);
        self.split_at(end);
        let pieces = self.pieces(start, end);
        let (advice, undo) =
            if dontfork { (libc::MADV_DONTFORK, libc::MADV_DOFORK) } else { (libc::MADV_DOFORK, libc::MADV_DONTFORK) };
        let crossing = |c: u32| if dontfork { c == 0 } else { c == 1 };
        let mut done: Vec<(usize, usize)> = Vec::new();
        for &(s, e, c) in &pieces {
            if crossing(c) {
                if let Err(err) = do_madvise(s, e - s, advice, page) {
                    for &(s, e) in done.iter().rev() {
                        let _ = do_madvise(s, e - s, undo, page);
                    }
                    self.merge();
                    return Err(err);
                }
                done.push((s, e));
            }
        }
        for (s, e, c) in pieces {
            let n = if dontfork { c + 1 } else { c.saturating_sub(1) };
            if n == 0 {
                self.map.remove(&s);
            } else {
                self.map.insert(s, (e, n));
            }
        }
        self.merge();
        Ok(())
    }

    /// Merges adjacent segments with equal counts.
    fn merge(&mut self) {
        let mut merged: BTreeMap<usize, (usize, u32)> = BTreeMap::new();
        let mut last: Option<(usize, usize, u32)> = None;
        for (&s, &(e, c)) in &self.map {
            match last {
                Some((ls, le, lc)) if le == s && lc == c => last = Some((ls, e, c)),
                Some((ls, le, lc)) => {
                    merged.insert(ls, (le, lc));
                    last = Some((s, e, c));
                }
                None => last = Some((s, e, c)),
            }
        }
        if let Some((ls, le, lc)) = last {
            merged.insert(ls, (le, lc));
        }
        self.map = merged;
    }
}

/// rdma-core's `ibv_fork_init`: 0, or `EINVAL` (memory was registered already), `ENOSYS` (the kernel has no
/// `MADV_DONTFORK`), `ENOMEM`. As rdma-core 56: on a kernel that copies DMA-pinned pages on fork (it says so over
/// netlink, Linux 5.13+) there is nothing to do, so 0 at once (also after registrations), and no range is ever
/// marked.
pub(crate) fn fork_init() -> c_int {
    if rdma_common::env::is_set("RDMAV_HUGEPAGES_SAFE") {
        HUGE_PAGES.store(true, Ordering::Relaxed);
    }
    let mut r = RANGES.lock();
    if let Some(r) = r.as_mut() {
        r.huge_pages = HUGE_PAGES.load(Ordering::Relaxed);
        return 0;
    }
    if kernel_copies_on_fork() {
        return 0;
    }
    if TOO_LATE.load(Ordering::Relaxed) {
        return libc::EINVAL;
    }
    let page = system_page_size();
    let huge = HUGE_PAGES.load(Ordering::Relaxed);
    // Probe MADV_DONTFORK on one page of our own.
    let mut probe = vec![0u8; 2 * page];
    let aligned = (probe.as_mut_ptr() as usize + page - 1) & !(page - 1);
    let (at, len) = if huge {
        let size = mapping_page_size(aligned, page);
        (aligned & !(size - 1), size)
    } else {
        (aligned, page)
    };
    if madvise(at, len, libc::MADV_DONTFORK).is_err() || madvise(at, len, libc::MADV_DOFORK).is_err() {
        return libc::ENOSYS;
    }
    drop(probe);
    *r = Some(Ranges { page_size: page, huge_pages: huge, map: BTreeMap::new() });
    0
}

/// Whether the kernel copies DMA-pinned pages on fork (RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, Linux 5.13+); false when
/// netlink cannot say.
fn kernel_copies_on_fork() -> bool {
    netlink::open().and_then(|s| netlink::Nldev::new(&s).copy_on_fork()).unwrap_or(false)
}

/// rdma-core's `ibv_dontfork_range` (what `ibv_reg_mr` does first): counts the range in and marks its pages
/// `MADV_DONTFORK` when fork protection is on; otherwise notes that `ibv_fork_init(3)` is now too late.
pub(crate) fn dontfork_range(base: *mut c_void, size: usize) -> Result<()> {
    match RANGES.lock().as_mut() {
        Some(r) => r.apply(base as usize, size, true),
        None => {
            TOO_LATE.store(true, Ordering::Relaxed);
            Ok(())
        }
    }
}

/// rdma-core's `ibv_dofork_range` (what `ibv_dereg_mr` does last): the inverse of [`dontfork_range`].
pub(crate) fn dofork_range(base: *mut c_void, size: usize) -> Result<()> {
    match RANGES.lock().as_mut() {
        Some(r) => r.apply(base as usize, size, false),
        None => {
            TOO_LATE.store(true, Ordering::Relaxed);
            Ok(())
        }
    }
}

/// `ibv_fork_init(3)`: makes memory registered afterwards safe across `fork()` (by marking it `MADV_DONTFORK`);
/// must be called before any registration. Calling it again is harmless. As rdma-core 56 and later: on a kernel
/// that copies DMA-pinned pages on fork (`ibv_is_fork_initialized(3)` is `IBV_FORK_UNNEEDED`), 0 at once, even
/// after registrations (rdma-core 44 answered `EINVAL` there).
///
/// Returns 0, or an errno value: `EINVAL` when memory was registered before (on kernels that need fork support),
/// `ENOSYS` when the kernel cannot mark pages.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_fork_init() -> c_int {
    ffi::boundary("ibv_fork_init", || match fork_init() {
        0 => Ok(()),
        e => Err(Errno(e)),
    })
    .ret_errno()
}

/// `ibv_is_fork_initialized(3)`: `IBV_FORK_UNNEEDED` when the kernel copies DMA-pinned pages on fork (it says so
/// over netlink, Linux 5.13+), else `IBV_FORK_ENABLED` after a successful `ibv_fork_init(3)`, else
/// `IBV_FORK_DISABLED`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_is_fork_initialized() -> ibv_fork_status {
    if kernel_copies_on_fork() {
        ibv_fork_status::IBV_FORK_UNNEEDED
    } else if RANGES.lock().is_some() {
        ibv_fork_status::IBV_FORK_ENABLED
    } else {
        ibv_fork_status::IBV_FORK_DISABLED
    }
}

/// `ibv_dontfork_range`: marks the pages of `[base, base + size)` `MADV_DONTFORK` when fork support is enabled
/// (a provider helper; not declared in `verbs.h`). Returns 0, or an errno value (`madvise(2)`'s).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dontfork_range(base: *mut c_void, size: usize) -> c_int {
    ffi::boundary("ibv_dontfork_range", || dontfork_range(base, size)).ret_errno()
}

/// `ibv_dofork_range`: undoes `ibv_dontfork_range` for `[base, base + size)` (a provider helper; not declared in
/// `verbs.h`). Returns 0, or an errno value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dofork_range(base: *mut c_void, size: usize) -> c_int {
    ffi::boundary("ibv_dofork_range", || dofork_range(base, size)).ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_fork_init, ibv_is_fork_initialized, ibv_dontfork_range, ibv_dofork_range,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smaps_page_sizes() {
        let smaps = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0\nKernelPageSize:     2048 kB\n\
                     7f0000200000-7f0000201000 rw-p 00000000 00:00 0\nKernelPageSize:        0 kB\n\
                     7f0000300000-7f0000301000 rw-p 00000000 00:00 0\nKernelPageSize: 7954489891797073919 kB\n";
        assert_eq!(smaps_page_size(smaps, 0x7f00_0010_0000, 4096), 2 << 20);
        assert_eq!(smaps_page_size(smaps, 0x7f00_0020_0000, 4096), 4096, "0 kB: the default");
        // Found by fuzz/sysfs: `kb * 1024` overflowed (a panic with overflow checks) for an absurd size.
        assert_eq!(smaps_page_size(smaps, 0x7f00_0030_0000, 4096), 4096);
        assert_eq!(smaps_page_size(smaps, 0x1000, 4096), 4096, "outside every mapping");
    }

    fn counts(r: &Ranges) -> Vec<(usize, usize, u32)> {
        r.map.iter().map(|(&s, &(e, c))| (s, e, c)).collect()
    }

    #[test]
    fn overlapping_ranges_are_counted_per_page() {
        let page = system_page_size();
        // Real memory: madvise needs mapped pages.
        let mut buf = vec![0u8; 8 * page];
        let base = (buf.as_mut_ptr() as usize + page - 1) & !(page - 1);
        let mut r = Ranges { page_size: page, huge_pages: false, map: BTreeMap::new() };
        r.apply(base, 3 * page, true).unwrap();
        r.apply(base + page, 3 * page, true).unwrap();
        assert_eq!(
            counts(&r),
            vec![(base, base + page, 1), (base + page, base + 3 * page, 2), (base + 3 * page, base + 4 * page, 1)]
        );
        r.apply(base, 3 * page, false).unwrap();
        assert_eq!(counts(&r), vec![(base + page, base + 4 * page, 1)]);
        r.apply(base + page, 3 * page, false).unwrap();
        assert!(r.map.is_empty());
        // Unaligned bases and lengths cover whole pages.
        r.apply(base + 10, page, true).unwrap();
        assert_eq!(counts(&r), vec![(base, base + 2 * page, 1)]);
        r.apply(base + 10, page, false).unwrap();
        assert!(r.map.is_empty());
        // A range never registered is ignored on the way out.
        r.apply(base, page, false).unwrap();
        assert!(r.map.is_empty());
        drop(buf);
    }

    #[test]
    fn failed_dontfork_changes_nothing() {
        let page = system_page_size();
        let mut r = Ranges { page_size: page, huge_pages: false, map: BTreeMap::new() };
        // Page 1 is never mapped (mmap_min_addr): madvise fails with ENOMEM.
        assert_eq!(r.apply(page, page, true), Err(Errno::ENOMEM));
        assert!(r.map.is_empty());
    }
}
