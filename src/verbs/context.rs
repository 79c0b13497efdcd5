//! Queries on an open context: device and port attributes, GID and P_Key tables (`ibv_query_device(3)`,
//! `ibv_query_device_ex(3)`, `ibv_query_port(3)`, `ibv_query_gid(3)`, `ibv_query_gid_ex(3)`,
//! `ibv_query_gid_table(3)`, `ibv_query_pkey(3)`, `ibv_get_pkey_index(3)`), and the `verbs_context` ops behind
//! the header's `ibv_query_port` and `ibv_query_device_ex` inlines.
//!
//! GIDs come from the QUERY_GID_ENTRY / QUERY_GID_TABLE ioctls, and from sysfs on kernels without them (as
//! rdma-core's `__ibv_query_gid_ex`); P_Keys from sysfs, as rdma-core reads them.
#![allow(unsafe_code)]

use crate::kernel::{self, sysfs, Uverbs};
use crate::object::Context;
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_gid_entry;
use rdma_common::uapi::{AsBytes, FromBytes};
use rdma_common::Errno;
use std::ffi::{c_int, CString};
use std::mem::{offset_of, size_of, MaybeUninit};

/// `sizeof(struct _compat_ibv_port_attr)`: `struct ibv_port_attr` up to, without, `port_cap_flags2`.
const COMPAT_PORT_ATTR_SIZE: usize = offset_of!(ibv_port_attr, port_cap_flags2);

/// The command fd of `ctx` for its provider.
fn uverbs(ctx: &Context) -> Uverbs<'_> {
    Uverbs::new(ctx.fd(), ctx.driver_id)
}

/// rdma-core's `__lib_query_port`: the port attributes into a caller struct of `len` bytes (smaller than ours:
/// the leading bytes of a full query; larger: zeroed, then filled).
unsafe fn query_port_into(ctx: &Context, port_num: u8, attr: *mut ibv_port_attr, len: usize) -> Result<()> {
    if len < size_of::<ibv_port_attr>() {
        let mut tmp = MaybeUninit::<ibv_port_attr>::zeroed();
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.query_port(ctx.ibv(), port_num, tmp.as_mut_ptr()) }?;
        // SAFETY: `attr` is writable for `len` bytes (caller's contract), tmp holds more.
        unsafe { std::ptr::copy_nonoverlapping(tmp.as_ptr().cast::<u8>(), attr.cast::<u8>(), len) };
        return Ok(());
    }
    // SAFETY: as above.
    unsafe { std::ptr::write_bytes(attr.cast::<u8>(), 0, len) };
    // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
    unsafe { ctx.provider.query_port(ctx.ibv(), port_num, attr) }
}

/// `verbs_context.query_port`, what the header's `ibv_query_port` inline calls with its `sizeof(struct
/// ibv_port_attr)`. Returns 0 or a positive errno (`EINVAL` for a NULL context (`EBADF`: closed or unknown) or NULL `port_attr`; the
/// kernel's, e.g. `EINVAL` for a port number the device does not have).
pub(crate) unsafe extern "C" fn lib_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    port_attr_len: usize,
) -> c_int {
    super::op_errno("ibv_query_port", || {
        // SAFETY: op contract.
        let ctx = unsafe { super::ctx(context) }?;
        ffi::nonnull(port_attr)?;
        // SAFETY: the caller's struct has `port_attr_len` bytes.
        unsafe { query_port_into(ctx, port_num, port_attr, port_attr_len) }
    })
}

/// `ibv_query_port(3)`, the exported symbol: reads the attributes of port `port_num` into the legacy layout (a
/// `struct ibv_port_attr` without `port_cap_flags2`). Applications compiled against `verbs.h` reach it through the
/// `ibv_query_port` macro only when the context has no extended `query_port` op (ours always has one).
///
/// Returns 0, or an errno value (`EINVAL` for NULL pointers, a NULL context (`EBADF`: closed or unknown) or port).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut _compat_ibv_port_attr,
) -> c_int {
    ffi::boundary("ibv_query_port", || -> Result<()> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        ffi::nonnull(port_attr)?;
        // SAFETY: the compat struct has COMPAT_PORT_ATTR_SIZE bytes.
        unsafe { query_port_into(ctx, port_num, port_attr.cast(), COMPAT_PORT_ATTR_SIZE) }
    })
    .ret_errno()
}

/// `ibv_query_device(3)`: reads the attributes of a device into `*device_attr` (the provider's
/// `query_device_ex` with the size of `struct ibv_device_attr`, as rdma-core does: the legacy QUERY_DEVICE).
///
/// Returns 0, or an errno value (`EINVAL` for NULL pointers or a NULL context (`EBADF`: closed or unknown); the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_device(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int {
    ffi::boundary("ibv_query_device", || -> Result<()> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        ffi::nonnull(device_attr)?;
        // `orig_attr` is the first member of `ibv_device_attr_ex`; only its bytes are written.
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe {
            ctx.provider.query_device_ex(ctx.ibv(), std::ptr::null(), device_attr.cast(), size_of::<ibv_device_attr>())
        }
    })
    .ret_errno()
}

/// `verbs_context.query_device_ex`, what the header's `ibv_query_device_ex` inline calls with its
/// `sizeof(struct ibv_device_attr_ex)`: the provider's query, then `phys_port_cnt_ex` from the port count
/// netlink reported (rdma-core's `sysfs_dev->num_ports`). Returns 0 or a positive errno (`EINVAL` for a
/// non-zero `input->comp_mask`, a struct smaller than `struct ibv_device_attr`, NULL or invalid arguments).
pub(crate) unsafe extern "C" fn query_device_ex_op(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
) -> c_int {
    super::op_errno("ibv_query_device_ex", || {
        // SAFETY: op contract.
        let ctx = unsafe { super::ctx(context) }?;
        ffi::nonnull(attr)?;
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.query_device_ex(ctx.ibv(), input, attr, attr_size) }?;
        if attr_size >= offset_of!(ibv_device_attr_ex, phys_port_cnt_ex) + size_of::<u32>() {
            if let Some(n) = ctx.device.info.num_ports {
                // SAFETY: the caller's struct reaches the field.
                unsafe { (*attr).phys_port_cnt_ex = n };
            }
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// GIDs
// ---------------------------------------------------------------------------------------------------------------

/// rdma-core's `VERBS_QUERY_GID_ATTR_*`: what the sysfs fallback reads.
const GID_ATTR_GID: u32 = 1 << 0;
const GID_ATTR_TYPE: u32 = 1 << 1;
const GID_ATTR_NDEV_IFINDEX: u32 = 1 << 2;
const GID_ATTR_ALL: u32 = GID_ATTR_GID | GID_ATTR_TYPE | GID_ATTR_NDEV_IFINDEX;

/// `sizeof(struct ibv_gid_entry)` = `sizeof(struct ib_uverbs_gid_entry)`.
const GID_ENTRY_SIZE: usize = size_of::<ib_uverbs_gid_entry>();
const _: () = assert!(GID_ENTRY_SIZE == size_of::<ibv_gid_entry>());

/// The link layer of a port (for telling IB from RoCE v1 GIDs in sysfs).
fn port_link_layer(ctx: &Context, port: u32) -> Result<u8> {
    let mut pa = MaybeUninit::<ibv_port_attr>::zeroed();
    // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
    unsafe { ctx.provider.query_port(ctx.ibv(), port as u8, pa.as_mut_ptr()) }?;
    // SAFETY: link_layer is a plain u8 the query wrote (or zero).
    Ok(unsafe { (*pa.as_ptr()).link_layer })
}

/// rdma-core's `query_sysfs_gid_entry`: a GID-table entry read from sysfs; `link_layer` of the port when known.
fn sysfs_gid_entry(
    ctx: &Context,
    port: u32,
    index: u32,
    mask: u32,
    link_layer: Option<u8>,
) -> Result<ib_uverbs_gid_entry> {
    let ibdev = &ctx.device.info.ibdev_sysfs_path;
    let mut e = ib_uverbs_gid_entry::zeroed();
    e.gid_index = index;
    e.port_num = port;
    if mask & GID_ATTR_GID != 0 {
        let g = sysfs::read_gid(ibdev, port, index).map_err(|_| Errno::EINVAL)?;
        e.as_bytes_mut()[..16].copy_from_slice(&g);
    }
    if mask & GID_ATTR_TYPE != 0 {
        e.gid_type = match sysfs::read_gid_type(ibdev, port, index).map_err(|_| Errno::EINVAL)? {
            sysfs::GidTypeSysfs::RoceV2 => IBV_GID_TYPE_ROCE_V2,
            sysfs::GidTypeSysfs::IbRoceV1 => {
                let ll = match link_layer {
                    Some(ll) => ll,
                    None => port_link_layer(ctx, port)?,
                };
                if ll == IBV_LINK_LAYER_ETHERNET {
                    IBV_GID_TYPE_ROCE_V1
                } else {
                    IBV_GID_TYPE_IB
                }
            }
        };
    }
    if mask & GID_ATTR_NDEV_IFINDEX != 0 {
        e.netdev_ifindex = match sysfs::read_gid_ndev(ibdev, port, index) {
            None => 0,
            Some(name) => {
                let c = CString::new(name).map_err(|_| Errno::EINVAL)?;
                // SAFETY: a NUL-terminated name.
                match unsafe { libc::if_nametoindex(c.as_ptr()) } {
                    0 => return Err(Errno::last()),
                    i => i,
                }
            }
        };
    }
    Ok(e)
}

fn is_zero_gid(e: &ib_uverbs_gid_entry) -> bool {
    e.gid == [0, 0]
}

/// rdma-core's `__ibv_query_gid_ex`: QUERY_GID_ENTRY, or sysfs (what `fallback_mask` asks for) when the kernel
/// has no such ioctl. Errors: `ENODATA` for an empty entry, `EINVAL` for a bad port or index, `EOPNOTSUPP` for
/// flags without the ioctl.
fn query_gid_entry(
    ctx: &Context,
    port: u32,
    index: u32,
    flags: u32,
    fallback_mask: u32,
) -> Result<ib_uverbs_gid_entry> {
    match kernel::device::query_gid_entry(&uverbs(ctx), port, index, flags) {
        Err(e) if kernel::ioctl_unsupported(e) => {
            if flags != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            let e = sysfs_gid_entry(ctx, port, index, fallback_mask, None)?;
            if fallback_mask & GID_ATTR_GID != 0 && is_zero_gid(&e) {
                return Err(Errno::ENODATA);
            }
            Ok(e)
        }
        r => r,
    }
}

/// Stores a kernel GID entry into a caller's `struct ibv_gid_entry` of `entry_size` bytes (the first
/// `min(entry_size, 32)` bytes; the rest zeroed, as the kernel does).
///
/// # Safety
/// `dst` is writable for `entry_size` bytes.
unsafe fn put_gid_entry(dst: *mut u8, e: &ib_uverbs_gid_entry, entry_size: usize) {
    let n = entry_size.min(GID_ENTRY_SIZE);
    // SAFETY: caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(e.as_bytes().as_ptr(), dst, n);
        std::ptr::write_bytes(dst.add(n), 0, entry_size - n);
    }
}

/// `ibv_query_gid(3)`: reads entry `index` of the GID table of port `port_num` into `*gid` (all zeros for an
/// empty entry, as rdma-core preserves).
///
/// Returns 0, or -1 with `errno` set (`EINVAL` for NULL pointers, a NULL context (`EBADF`: closed or unknown), port or index).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    gid: *mut ibv_gid,
) -> c_int {
    ffi::boundary("ibv_query_gid", || -> Result<c_int> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        let gid = ffi::nonnull(gid)?;
        let raw = match query_gid_entry(ctx, port_num.into(), index as u32, 0, GID_ATTR_GID) {
            Ok(e) => e.as_bytes()[..16].try_into().expect("16 bytes"),
            Err(e) if e == Errno::ENODATA => [0u8; 16],
            Err(e) => return Err(e),
        };
        // SAFETY: the caller's GID is writable; a GID is 16 plain bytes.
        unsafe { (*gid.as_ptr()).raw = raw };
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `_ibv_query_gid_ex`, the symbol behind the inline `ibv_query_gid_ex(3)`: reads GID-table entry `gid_index` of
/// port `port_num` into `*entry`, a struct of `entry_size` bytes (the caller's `sizeof(struct ibv_gid_entry)`);
/// `flags` must be 0.
///
/// Returns 0, or an errno value: `ENODATA` for an empty entry, `EINVAL` for bad arguments (NULL pointers, invalid
/// context, port or index, an `entry_size` smaller than `struct ibv_gid_entry`), `EOPNOTSUPP` for flags the
/// kernel does not know.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_gid_ex(
    context: *mut ibv_context,
    port_num: u32,
    gid_index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
    entry_size: usize,
) -> c_int {
    ffi::boundary("_ibv_query_gid_ex", || -> Result<()> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        let entry = ffi::nonnull(entry)?;
        if entry_size < GID_ENTRY_SIZE {
            return Err(Errno::EINVAL);
        }
        let e = query_gid_entry(ctx, port_num, gid_index, flags, GID_ATTR_ALL)?;
        // SAFETY: the caller's entry has `entry_size` bytes.
        unsafe { put_gid_entry(entry.as_ptr().cast(), &e, entry_size) };
        Ok(())
    })
    .ret_errno()
}

/// rdma-core's `ibv_query_gid_type` (an `IBVERBS_PRIVATE_34` symbol that `ibv_devinfo` imports): whether GID
/// `index` of `port_num` is RoCE v2 (`IBV_GID_TYPE_SYSFS_ROCE_V2`, 1) rather than IB / RoCE v1 (0, also for an
/// empty entry). Stores the type in `*type_` and returns 0, or -1 with `errno` set (`EINVAL` for an invalid
/// context, port or index, NULL `type_`).
///
/// # Safety
/// `type_`, when not NULL, is writable.
pub(crate) unsafe fn query_gid_type(context: *mut ibv_context, port_num: u8, index: u32, type_: *mut u32) -> c_int {
    ffi::boundary("ibv_query_gid_type", || -> Result<c_int> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        let out = ffi::nonnull(type_)?;
        let v2 = match query_gid_entry(ctx, port_num.into(), index, 0, GID_ATTR_TYPE) {
            Ok(e) => e.gid_type != IBV_GID_TYPE_IB && e.gid_type != IBV_GID_TYPE_ROCE_V1,
            Err(e) if e == Errno::ENODATA => false,
            Err(e) => return Err(e),
        };
        // SAFETY: the caller's enum, written as its number.
        unsafe { out.as_ptr().write(v2 as u32) };
        Ok(0)
    })
    .or_minus_one_errno()
}

/// rdma-core's `query_gid_table_fb`: the valid GIDs of every port, read from sysfs.
fn gid_table_sysfs(ctx: &Context, max_entries: usize) -> Result<Vec<ib_uverbs_gid_entry>> {
    let mut dev = MaybeUninit::<ibv_device_attr_ex>::zeroed();
    // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
    unsafe {
        ctx.provider.query_device_ex(ctx.ibv(), std::ptr::null(), dev.as_mut_ptr(), size_of::<ibv_device_attr>())
    }?;
    // SAFETY: a plain u8 the query wrote.
    let ports = unsafe { (*dev.as_ptr()).orig_attr.phys_port_cnt };
    let mut out = Vec::new();
    for port in 1..=ports as u32 {
        let mut pa = MaybeUninit::<ibv_port_attr>::zeroed();
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.query_port(ctx.ibv(), port as u8, pa.as_mut_ptr()) }?;
        // SAFETY: plain integers the query wrote.
        let (len, ll) = unsafe { ((*pa.as_ptr()).gid_tbl_len, (*pa.as_ptr()).link_layer) };
        for index in 0..len.max(0) as u32 {
            let e = sysfs_gid_entry(ctx, port, index, GID_ATTR_ALL, Some(ll))?;
            if is_zero_gid(&e) {
                continue;
            }
            if out.len() == max_entries {
                return Err(Errno::EINVAL);
            }
            out.push(e);
        }
    }
    Ok(out)
}

/// `_ibv_query_gid_table`, the symbol behind the inline `ibv_query_gid_table(3)`: stores every valid GID-table
/// entry of every port into `entries`, at most `max_entries` of `entry_size` bytes each; `flags` must be 0.
///
/// Returns the number of entries stored, or a negative errno value: `-EINVAL` for bad arguments (among them an
/// `entry_size` smaller than `struct ibv_gid_entry`, which rdma-core passes to the kernel) or when the valid
/// entries do not fit, `-EOPNOTSUPP` for flags the kernel does not know.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_gid_table(
    context: *mut ibv_context,
    entries: *mut ibv_gid_entry,
    max_entries: usize,
    flags: u32,
    entry_size: usize,
) -> libc::ssize_t {
    let r = ffi::boundary("_ibv_query_gid_table", || -> Result<libc::ssize_t> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        if entry_size < GID_ENTRY_SIZE || max_entries == 0 {
            // The kernel would store truncated entries for a smaller size; rdma-core lets it.
            log::debug!("ibv_query_gid_table: entry_size {entry_size} (< {GID_ENTRY_SIZE}) or max_entries 0: EINVAL");
            return Err(Errno::EINVAL);
        }
        let entries = ffi::nonnull(entries)?;
        // The attribute length is 16 bits: at most 2047 entries per call.
        let n = max_entries.min(u16::MAX as usize / GID_ENTRY_SIZE);
        let mut buf = vec![ib_uverbs_gid_entry::zeroed(); n];
        let got = match kernel::device::query_gid_table(&uverbs(ctx), flags, &mut buf) {
            Ok(got) => buf[..got].to_vec(),
            Err(e) if kernel::ioctl_unsupported(e) => {
                if flags != 0 {
                    return Err(Errno::EOPNOTSUPP);
                }
                gid_table_sysfs(ctx, max_entries)?
            }
            Err(e) => return Err(e),
        };
        for (i, e) in got.iter().enumerate() {
            // SAFETY: i < max_entries entries of entry_size bytes (caller's contract).
            unsafe { put_gid_entry(entries.as_ptr().cast::<u8>().add(i * entry_size), e, entry_size) };
        }
        Ok(got.len() as libc::ssize_t)
    });
    match r {
        Ok(n) => n,
        Err(e) => -(e.0 as libc::ssize_t),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// P_Keys
// ---------------------------------------------------------------------------------------------------------------

/// The P_Key at `index` of `port` (host order), from sysfs as rdma-core reads it.
fn pkey(ctx: &Context, port: u8, index: c_int) -> Result<u16> {
    let index = u32::try_from(index).map_err(|_| Errno::ENOENT)?;
    sysfs::read_pkey(&ctx.device.info.ibdev_sysfs_path, port.into(), index)
}

/// `ibv_query_pkey(3)`: reads entry `index` of the P_Key table of port `port_num` into `*pkey` (network order),
/// from sysfs.
///
/// Returns 0, or -1 with `errno` set (`ENOENT` for a port or index the table does not have, `EINVAL` for NULL
/// pointers or a NULL context (`EBADF`: closed or unknown)).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_pkey(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    pkey: *mut __be16,
) -> c_int {
    ffi::boundary("ibv_query_pkey", || -> Result<c_int> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        let out = ffi::nonnull(pkey)?;
        let v = self::pkey(ctx, port_num, index)?;
        // SAFETY: the caller's u16 is writable.
        unsafe { out.as_ptr().write(v.to_be()) };
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `ibv_get_pkey_index(3)`: returns the index of the P_Key `pkey` (network order) in the table of port
/// `port_num`, searching from index 0.
///
/// Returns the index, or -1 with `errno` set (from the first index that cannot be read: `ENOENT` when the P_Key
/// is not in the table; `EINVAL` for a NULL context (`EBADF`: closed or unknown)).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_pkey_index(context: *mut ibv_context, port_num: u8, pkey: __be16) -> c_int {
    ffi::boundary("ibv_get_pkey_index", || -> Result<c_int> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        for i in 0..c_int::MAX {
            if self::pkey(ctx, port_num, i)?.to_be() == pkey {
                return Ok(i);
            }
        }
        Err(Errno::ENOENT)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_query_device, ibv_query_port, ibv_query_gid, _ibv_query_gid_ex, _ibv_query_gid_table, ibv_query_pkey,
    ibv_get_pkey_index,
);
