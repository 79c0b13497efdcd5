//! The ioctl command buffer engine of the provider interface: `execute_ioctl` and `__ioctl_final_num_attrs`
//! (rdma-core's `cmd_ioctl.c`), and [`Cmdb`], the commands the `ibv_cmd_*` build for the ioctl ABI with the
//! driver's attribute blocks linked after the core attributes.
//!
//! As everywhere in this library ([`crate::kernel`]'s table), an `ibv_cmd_*` sends the write command where one
//! exists (rdma-core 44 tries the ioctl first and falls back to the same write), the ioctl first for GET_CONTEXT
//! and QUERY_PORT (then the write), and the ioctl for the commands that only exist as ioctls (QUERY_CONTEXT,
//! REG_DMABUF_MR, QUERY_MR, ADVISE_MR, DM, flow actions, counters).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use crate::kernel::CmdFd;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::rdma_user_ioctl_cmds::{ib_uverbs_attr, UVERBS_ATTR_F_MANDATORY};
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_uint, c_void};
use std::mem::size_of;
use std::ptr::{self, addr_of_mut};
use std::slice;

/// At most this many attributes in one command (the kernel's own limit is far lower); guards against a corrupt
/// `next_attr`.
const MAX_ATTRS: usize = 1024;

/// The filled attributes of one C command buffer block (`hdr.attrs[..next_attr]`).
///
/// # Safety
/// `b` points to an initialised `ibv_command_buffer` whose `next_attr` points into (or one past) its attributes.
unsafe fn block_attrs<'a>(b: *mut ibv_command_buffer) -> Result<&'a mut [ib_uverbs_attr]> {
    // SAFETY: caller's contract; only addresses are compared before the slice is made.
    unsafe {
        let base = addr_of_mut!((*b).hdr.attrs).cast::<ib_uverbs_attr>();
        let bytes = ((*b).next_attr as usize).checked_sub(base as usize).ok_or(Errno::EINVAL)?;
        if bytes % size_of::<ib_uverbs_attr>() != 0 || bytes / size_of::<ib_uverbs_attr>() > MAX_ATTRS {
            return Err(Errno::EINVAL);
        }
        Ok(slice::from_raw_parts_mut(base, bytes / size_of::<ib_uverbs_attr>()))
    }
}

/// One `RDMA_VERBS_IOCTL` (rdma-core's `execute_ioctl`): the header and `own` attributes, then those of every
/// block linked from `link`, in one contiguous buffer; afterwards every attribute is copied back where it came
/// from (the kernel sets `UVERBS_ATTR_F_VALID_OUTPUT` and writes new object ids and fds into `data`). `uhw_in`
/// is the index of a `UVERBS_ATTR_UHW_IN` whose `data` still points to its bytes (libibverbs' compat scheme; a
/// linked block may name one with `uhw_in_idx`); at most 8 bytes are inlined before sending, as the kernel wants.
/// Returns the number of attributes sent.
///
/// Errors: `EINVAL` for a block marked `buffer_error` or a corrupt chain; the kernel's errno.
///
/// # Safety
/// Every block of `link` is an initialised command buffer; every attribute's pointer is valid for its length.
unsafe fn run_ioctl(
    u: &(impl CmdFd + ?Sized),
    object_id: u16,
    method_id: u16,
    own: &mut [ib_uverbs_attr],
    mut uhw_in: Option<usize>,
    link: *mut ibv_command_buffer,
) -> Result<usize> {
    let mut blocks: Vec<&mut [ib_uverbs_attr]> = Vec::new();
    let mut seen: Vec<*mut ibv_command_buffer> = Vec::new();
    let mut total = own.len();
    let mut b = link;
    while !b.is_null() {
        // A block linked twice (or the root linked again) would be a cycle, and aliased here.
        // SAFETY: only the address of the block's attribute array is computed.
        let attrs = unsafe { addr_of_mut!((*b).hdr.attrs) }.cast::<ib_uverbs_attr>();
        if seen.contains(&b) || seen.len() >= 64 || attrs == own.as_mut_ptr() {
            return Err(Errno::EINVAL);
        }
        seen.push(b);
        // SAFETY: caller's contract.
        unsafe {
            if (*b).flags & BUFFER_ERROR != 0 {
                return Err(Errno::EINVAL);
            }
            let a = block_attrs(b)?;
            if (*b).uhw_in_idx != UHW_NO_INDEX && uhw_in.is_none() {
                uhw_in = Some(total + (*b).uhw_in_idx as usize);
            }
            total += a.len();
            blocks.push(a);
            b = (*b).next;
        }
    }
    if total > MAX_ATTRS {
        return Err(Errno::EINVAL);
    }
    let hdr_len = size_of::<ib_uverbs_ioctl_hdr>();
    let alen = size_of::<ib_uverbs_attr>();
    let len = hdr_len + alen * total;
    let mut hdr = rdma_common::uapi::rdma_user_ioctl_cmds::ib_uverbs_ioctl_hdr::zeroed();
    hdr.length = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
    hdr.object_id = object_id;
    hdr.method_id = method_id;
    hdr.num_attrs = total as u16;
    hdr.driver_id = u.driver_id();
    // The buffer the kernel reads: on the stack for a command of up to STACK_ATTRS attributes, else on the heap.
    const STACK_WORDS: usize = (size_of::<ib_uverbs_ioctl_hdr>() + STACK_ATTRS * size_of::<ib_uverbs_attr>()) / 8;
    let mut stack = [0u64; STACK_WORDS];
    let mut heap = Vec::new();
    let buf: &mut [u64] = if len / 8 <= STACK_WORDS {
        &mut stack[..len / 8]
    } else {
        heap.resize(len / 8, 0u64);
        &mut heap
    };
    {
        // SAFETY: u64 memory viewed as bytes, same length.
        let bytes = unsafe { slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), len) };
        bytes[..hdr_len].copy_from_slice(&hdr.as_bytes()[..hdr_len]);
        let all = own.iter().chain(blocks.iter().flat_map(|b| b.iter()));
        for (i, a) in all.enumerate() {
            bytes[hdr_len + i * alen..hdr_len + (i + 1) * alen].copy_from_slice(a.as_bytes());
        }
        if let Some(i) = uhw_in.filter(|&i| i < total) {
            let a = ib_uverbs_attr::from_bytes(&bytes[hdr_len + i * alen..]);
            // SAFETY: both union members are plain integers.
            let p = unsafe { a.__bindgen_anon_1.data } as usize as *const u8;
            if a.attr_id as u32 == UVERBS_ATTR_UHW_IN && a.len <= 8 && !p.is_null() {
                let mut d = [0u8; 8];
                // SAFETY: the attribute's pointer is valid for its length (caller's contract).
                unsafe { ptr::copy_nonoverlapping(p, d.as_mut_ptr(), a.len as usize) };
                bytes[hdr_len + i * alen + 8..hdr_len + (i + 1) * alen].copy_from_slice(&d);
            }
        }
    }
    // SAFETY: every attribute pointer is valid for its length (caller's contract) and the buffers they point to
    // are not touched by us until the call returns.
    unsafe { u.ioctl_verbs(buf) }.inspect_err(|e| {
        log::trace!("plug-in ioctl object {object_id} method {method_id}: {e}");
    })?;
    // SAFETY: as above.
    let bytes = unsafe { slice::from_raw_parts(buf.as_ptr().cast::<u8>(), len) };
    let all = own.iter_mut().chain(blocks.iter_mut().flat_map(|b| b.iter_mut()));
    for (i, a) in all.enumerate() {
        *a = ib_uverbs_attr::from_bytes(&bytes[hdr_len + i * alen..]);
    }
    Ok(total)
}

/// `ibv_command_buffer.flags`: `fallback_ioctl_only` (bit 2 of the bit fields).
const FALLBACK_IOCTL_ONLY: u8 = 1 << 2;

/// Whether a provider's attribute chain `link` can only travel in an ioctl (rdma-core's `_check_legacy`): a block
/// marked `fallback_ioctl_only`, or a mandatory attribute other than the `UHW_IN`/`UHW_OUT` a write command can
/// carry as its driver data. An empty chain (or NULL) can use the write command. `EINVAL` for a corrupt chain.
///
/// # Safety
/// `link` is NULL or a chain of initialised command buffers.
pub(super) unsafe fn chain_needs_ioctl(link: *mut ibv_command_buffer) -> Result<bool> {
    let mut b = link;
    let mut n = 0;
    while !b.is_null() {
        n += 1;
        if n > 64 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: caller's contract.
        unsafe {
            if (*b).flags & FALLBACK_IOCTL_ONLY != 0 {
                return Ok(true);
            }
            let mandatory = block_attrs(b)?.iter().any(|a| {
                let id = a.attr_id as u32;
                id != UVERBS_ATTR_UHW_IN && id != UVERBS_ATTR_UHW_OUT && a.flags as u32 & UVERBS_ATTR_F_MANDATORY != 0
            });
            if mandatory {
                return Ok(true);
            }
            b = (*b).next;
        }
    }
    Ok(false)
}

/// How many attributes [`run_ioctl`] sends from a stack buffer, and one [`Cmdb`] holds (the most any of its commands
/// adds is 14: CQ_CREATE with a buffer, its flags and driver data).
const STACK_ATTRS: usize = 24;

/// A command built here for the ioctl ABI: rdma-core's `DECLARE_COMMAND_BUFFER(_LINK)` + `fill_attr_*`, the
/// attributes in the order rdma-core adds them (every one `UVERBS_ATTR_F_MANDATORY` unless made optional). On the
/// stack: at most [`STACK_ATTRS`] attributes; one more makes [`Cmdb::exec`] answer `EINVAL`. The header and the
/// attributes lie as the kernel reads them, so a command without a driver's chain is sent from where it was built.
#[repr(C)]
pub(super) struct Cmdb {
    hdr: rdma_common::uapi::rdma_user_ioctl_cmds::ib_uverbs_ioctl_hdr,
    attrs: [ib_uverbs_attr; STACK_ATTRS],
    len: usize,
    /// An attribute beyond [`STACK_ATTRS`] was added (and dropped).
    overflow: bool,
}

impl Cmdb {
    pub(super) fn new(object_id: u32, method_id: u32) -> Cmdb {
        let mut hdr = rdma_common::uapi::rdma_user_ioctl_cmds::ib_uverbs_ioctl_hdr::zeroed();
        hdr.object_id = object_id as u16;
        hdr.method_id = method_id as u16;
        Cmdb { hdr, attrs: [ib_uverbs_attr::zeroed(); STACK_ATTRS], len: 0, overflow: false }
    }

    fn push(&mut self, id: u32, len: u16, data: u64) -> usize {
        let mut a = ib_uverbs_attr::zeroed();
        a.attr_id = id as u16;
        a.len = len;
        a.flags = UVERBS_ATTR_F_MANDATORY as u16;
        a.__bindgen_anon_1.data = data;
        match self.attrs.get_mut(self.len) {
            Some(slot) => {
                *slot = a;
                self.len += 1;
                self.len - 1
            }
            None => {
                self.overflow = true;
                STACK_ATTRS - 1
            }
        }
    }

    /// `fill_attr_in_obj`: an existing object by handle.
    pub(super) fn in_obj(&mut self, id: u32, handle: u32) -> usize {
        self.push(id, 0, handle as u64)
    }

    /// `fill_attr_out_obj`: the kernel writes the new object's id into `data`.
    pub(super) fn out_obj(&mut self, id: u32) -> usize {
        self.push(id, 0, 0)
    }

    /// `fill_attr_in_fd`: a file descriptor in `data` (sign-extended), no length; rdma-core leaves the attribute
    /// out for -1 (so does this: `None`).
    pub(super) fn in_fd(&mut self, id: u32, fd: c_int) -> Option<usize> {
        (fd != -1).then(|| self.push(id, 0, fd as i64 as u64))
    }

    /// `fill_attr_in_uint64` / `fill_attr_const_in`.
    pub(super) fn in_u64(&mut self, id: u32, v: u64) -> usize {
        self.push(id, 8, v)
    }

    /// `fill_attr_in_uint32`: 4 bytes in `data`'s first bytes.
    pub(super) fn in_u32(&mut self, id: u32, v: u32) -> usize {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&v.to_ne_bytes());
        self.push(id, 4, u64::from_ne_bytes(b))
    }

    /// `fill_attr_in`: `len` bytes at `p`, inline when at most 8. `EINVAL` over 65535 bytes (rdma-core's
    /// `buffer_error`) or for NULL with a length.
    ///
    /// # Safety
    /// `p` is valid for `len` bytes, and stays so until the command ran when `len > 8`.
    pub(super) unsafe fn in_ptr(&mut self, id: u32, p: *const c_void, len: usize) -> Result<usize> {
        let l = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
        if len <= 8 {
            let mut b = [0u8; 8];
            if len > 0 {
                if p.is_null() {
                    return Err(Errno::EINVAL);
                }
                // SAFETY: caller's contract.
                unsafe { ptr::copy_nonoverlapping(p.cast::<u8>(), b.as_mut_ptr(), len) };
            }
            Ok(self.push(id, l, u64::from_ne_bytes(b)))
        } else {
            Ok(self.push(id, l, p as usize as u64))
        }
    }

    /// `fill_attr_in_enum`: [`Cmdb::in_ptr`] naming the element `elem_id` of an enum attribute.
    ///
    /// # Safety
    /// As [`Cmdb::in_ptr`].
    pub(super) unsafe fn in_enum(&mut self, id: u32, elem_id: u8, p: *const c_void, len: usize) -> Result<usize> {
        // SAFETY: caller's contract.
        let i = unsafe { self.in_ptr(id, p, len) }?;
        self.attrs[i].attr_data.enum_data.elem_id = elem_id;
        Ok(i)
    }

    /// `fill_attr_out`: the kernel writes up to `len` bytes at `p`. `EINVAL` over 65535 bytes.
    pub(super) fn out_ptr(&mut self, id: u32, p: *mut c_void, len: usize) -> Result<usize> {
        let l = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
        Ok(self.push(id, l, p as usize as u64))
    }

    /// `attr_optional`: the kernel may ignore attribute `i` if it does not know it.
    pub(super) fn optional(&mut self, i: usize) {
        self.attrs[i].flags &= !(UVERBS_ATTR_F_MANDATORY as u16);
    }

    /// The `data` of attribute `i` after the command ran (a new object's id).
    pub(super) fn data(&self, i: usize) -> u64 {
        // SAFETY: both union members are plain integers.
        unsafe { self.attrs[i].__bindgen_anon_1.data }
    }

    /// Runs the command with the driver's blocks `link` appended (see [`run_ioctl`]); `EINVAL` when more than
    /// [`STACK_ATTRS`] attributes were added.
    ///
    /// # Safety
    /// Every pointer given to the fill functions is still valid; `link` is NULL or a valid chain.
    pub(super) unsafe fn exec(&mut self, u: &(impl CmdFd + ?Sized), link: *mut ibv_command_buffer) -> Result<()> {
        if self.overflow {
            return Err(Errno::EINVAL);
        }
        let (object_id, method_id) = (self.hdr.object_id, self.hdr.method_id);
        if !link.is_null() {
            // SAFETY: caller's contract.
            return unsafe { run_ioctl(u, object_id, method_id, &mut self.attrs[..self.len], None, link) }.map(|_| ());
        }
        const HDR_LEN: usize = size_of::<ib_uverbs_ioctl_hdr>();
        const _: () = assert!(HDR_LEN.is_multiple_of(8) && std::mem::offset_of!(Cmdb, attrs) == HDR_LEN);
        let len = HDR_LEN + size_of::<ib_uverbs_attr>() * self.len;
        self.hdr.length = len as u16;
        self.hdr.num_attrs = self.len as u16;
        self.hdr.driver_id = u.driver_id();
        // SAFETY: `Cmdb` is `repr(C)`, 8-byte aligned, the header at offset 0 and the attributes right after it: its
        // first `len` bytes are initialised plain integers, viewed as `len / 8` words. Every attribute pointer is
        // valid for its length (caller's contract), and the kernel writes its answers back into these attributes.
        unsafe {
            let words = slice::from_raw_parts_mut(ptr::from_mut(self).cast::<u64>(), len / 8);
            u.ioctl_verbs(words)
        }
        .inspect_err(|e| log::trace!("plug-in ioctl object {object_id} method {method_id}: {e}"))
    }
}

/// `unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link)`.
///
/// rdma-core: sizes the command buffer of the frame that will execute a command: `num_attrs` plus the attributes
/// already filled in every block of the `link` chain. Pure arithmetic on the caller's buffers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __ioctl_final_num_attrs(num_attrs: c_uint, link: *mut ibv_command_buffer) -> c_uint {
    let mut n = num_attrs;
    let mut link = link;
    while !link.is_null() {
        // SAFETY: the caller passes a chain of initialised command buffers; next_attr points into (or one past) the
        // block's own hdr.attrs array. Only addresses are subtracted.
        unsafe {
            let attrs = addr_of_mut!((*link).hdr.attrs) as usize;
            let filled = ((*link).next_attr as usize).wrapping_sub(attrs) / size_of::<ib_uverbs_attr>();
            n = n.wrapping_add(filled as c_uint);
            link = (*link).next;
        }
    }
    n
}

/// `int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)`.
///
/// rdma-core's ioctl executor, which providers also call directly (mlx5's DV commands): sends `RDMA_VERBS_IOCTL`
/// on the context's command fd with `cmd`'s attributes followed by those of every block linked from `cmd->next`,
/// the header carrying the context's driver id; afterwards each attribute (with the kernel's
/// `UVERBS_ATTR_F_VALID_OUTPUT` flags, new object ids and fds) is copied back into the block it came from, and
/// `cmd->hdr` holds the header sent (`length`, `num_attrs`, `driver_id`). Returns 0 or a positive errno (also in
/// `errno`): `EINVAL` for a buffer marked `buffer_error` (a fill function got what the ABI cannot carry), NULL
/// pointers or a context not of this library; otherwise the kernel's (`ENOTTY`/`EPROTONOSUPPORT` where the
/// method is unknown).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execute_ioctl(context: *mut ibv_context, cmd: *mut ibv_command_buffer) -> c_int {
    ret("execute_ioctl", || {
        let cmd = obj(cmd)?;
        // SAFETY: a context from C (checked); the caller's command buffer chain.
        unsafe {
            let u = fd_of(context)?;
            if (*cmd).flags & BUFFER_ERROR != 0 {
                return Err(Errno::EINVAL);
            }
            let own = block_attrs(cmd)?;
            let uhw = ((*cmd).uhw_in_idx != UHW_NO_INDEX).then_some((*cmd).uhw_in_idx as usize);
            let (object_id, method_id) = ((*cmd).hdr.object_id, (*cmd).hdr.method_id);
            let n = run_ioctl(&u, object_id, method_id, own, uhw, (*cmd).next)?;
            let h = addr_of_mut!((*cmd).hdr);
            (*h).num_attrs = n as u16;
            (*h).length = (size_of::<ib_uverbs_ioctl_hdr>() + n * size_of::<ib_uverbs_attr>()) as u16;
            (*h).reserved1 = 0;
            (*h).reserved2 = 0;
            (*h).driver_id = u.driver_id();
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use std::ptr::addr_of;
    #[test]
    fn final_num_attrs_counts_the_chain() {
        let mut a: ibv_command_buffer = unsafe { std::mem::zeroed() };
        let mut b: ibv_command_buffer = unsafe { std::mem::zeroed() };
        // Pretend block a filled 3 attributes and block b none (pointers are only subtracted, never read).
        let base_a = addr_of_mut!(a.hdr.attrs).cast::<ib_uverbs_attr>();
        a.next_attr = base_a.wrapping_add(3);
        b.next_attr = addr_of_mut!(b.hdr.attrs).cast::<ib_uverbs_attr>();
        a.next = &mut b;
        assert_eq!(unsafe { __ioctl_final_num_attrs(2, &mut a) }, 5);
        assert_eq!(unsafe { __ioctl_final_num_attrs(7, ptr::null_mut()) }, 7);
    }

    #[test]
    fn execute_ioctl_linearises_the_chain_and_copies_back() {
        let f = Fake::with_driver_id(4);
        let mut out = [0u8; 4];
        f.reply(Reply::ioctl().new_obj(1, 0x55).out(0x1000, &[9, 8, 7, 6]));
        let mut root = cbuf(7, 3);
        add(&mut root, 1, 0, 0);
        let mut drv = cbuf(7, 3);
        add(&mut drv, 0x1000, 4, out.as_mut_ptr() as u64);
        drv.b.flags = 0;
        root.b.next = &mut drv.b;
        let mut ctx: MaybeUninit<ibv_context> = z();
        let rc = with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) });
        assert_eq!(rc, 0);
        let b = f.ioctl(0);
        assert_eq!(b.len(), 24 + 2 * 16);
        assert_eq!((u16_at(&b, 2), u16_at(&b, 4), u16_at(&b, 6), u32_at(&b, 16)), (7, 3, 2, 4));
        assert_eq!(u16_at(&b, 24 + 16), 0x1000, "the driver's attribute after the core one");
        unsafe {
            let own = &*addr_of!(root.b.hdr.attrs).cast::<ib_uverbs_attr>();
            assert_eq!(own.__bindgen_anon_1.data, 0x55, "new object id copied back");
            let d = &*addr_of!(drv.b.hdr.attrs).cast::<ib_uverbs_attr>();
            assert_ne!(d.flags as u32 & rdma_common::uapi::rdma_user_ioctl_cmds::UVERBS_ATTR_F_VALID_OUTPUT, 0);
        }
        assert_eq!(out, [9, 8, 7, 6]);
        assert_eq!((root.b.hdr.num_attrs, root.b.hdr.length, root.b.hdr.driver_id), (2, 56, 4));

        root.b.flags = BUFFER_ERROR;
        assert_eq!(with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) }), libc::EINVAL);
        // A chain that links back to a block already in it.
        root.b.flags = 0;
        drv.b.next = &mut drv.b;
        assert_eq!(with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) }), libc::EINVAL);
        drv.b.next = &mut root.b;
        assert_eq!(with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) }), libc::EINVAL);
    }

    #[test]
    fn cmdb_without_a_chain_is_sent_in_place() {
        let f = Fake::with_driver_id(4);
        let mut out = [0u8; 4];
        f.reply(Reply::ioctl().new_obj(1, 0x55).out(0x1000, &[9, 8, 7, 6]));
        let mut c = Cmdb::new(7, 3);
        let obj = c.out_obj(1);
        c.out_ptr(0x1000, out.as_mut_ptr().cast(), 4).unwrap();
        let opt = c.in_u32(0x2000, 0xabcd);
        c.optional(opt);
        assert_eq!(unsafe { c.exec(&f, ptr::null_mut()) }, Ok(()));
        let b = f.ioctl(0);
        assert_eq!(b.len(), 24 + 3 * 16);
        assert_eq!((u16_at(&b, 0), u16_at(&b, 2), u16_at(&b, 4), u16_at(&b, 6), u32_at(&b, 16)), (72, 7, 3, 3, 4));
        assert_eq!((u16_at(&b, 24 + 32), u16_at(&b, 24 + 32 + 4)), (0x2000, 0), "the last attribute made optional");
        assert_eq!(c.data(obj), 0x55, "the new object's id read where the kernel wrote it");
        assert_eq!(out, [9, 8, 7, 6]);

        let mut c = Cmdb::new(7, 3);
        for i in 0..=STACK_ATTRS as u32 {
            c.in_u64(i, 0);
        }
        assert_eq!(unsafe { c.exec(&f, ptr::null_mut()) }, Err(Errno::EINVAL), "one attribute too many");
    }
}
