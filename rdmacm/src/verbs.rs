//! librdmacm's calls into libibverbs: only its exported C functions (declared in `rdma_common::abi::verbs`), and
//! the `static inline` helpers of `<infiniband/verbs.h>` that rdma-core's librdmacm compiles in from the header
//! (`ibv_create_qp_ex`, `ibv_create_srq_ex`, `ibv_open_xrcd`, `ibv_close_xrcd`, `___ibv_query_port`), repeated
//! here: they find the extended op in the context's `struct verbs_context` exactly as the header does
//! (`verbs_get_ctx_op`).
//!
//! The conversions from the kernel's structs are libibverbs' exported marshalling helpers
//! (`ibv_copy_qp_attr_from_kern`, `ibv_copy_ah_attr_from_kern`, `ibv_copy_path_rec_from_kern`, declared in
//! `rdma_common::abi::marshall`), called as rdma-core's librdmacm calls them; they live and are tested in
//! libibverbs (`src/provider/marshall.rs`).
//!
//! C structs with enum fields (`ibv_qp_attr`, `ibv_port_attr`, `ibv_device_attr`) are never materialised as Rust
//! values from foreign bytes: [`QpAttr`] is an integer-only twin of `ibv_qp_attr` (layout asserted), and the
//! others are read field by field out of `MaybeUninit` storage.
#![allow(unsafe_code)]

use rdma_common::abi::enums::*;
use rdma_common::abi::marshall::{ibv_copy_ah_attr_from_kern, ibv_copy_path_rec_from_kern, ibv_copy_qp_attr_from_kern};
use rdma_common::abi::sa::ibv_sa_path_rec;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_sa::ib_user_path_rec;
use rdma_common::uapi::ib_user_verbs::{ib_uverbs_ah_attr, ib_uverbs_qp_attr};
use std::ffi::c_int;
use std::mem::{offset_of, size_of, MaybeUninit};
use std::ptr::addr_of;

/// A positive-errno return (`0` or an errno value) as a `Result`.
pub(crate) fn rc(ret: c_int) -> Result<()> {
    match ret {
        0 => Ok(()),
        e if e > 0 => Err(Errno(e)),
        // Some callers' conventions are -1 + errno; take errno then.
        _ => Err(last_errno()),
    }
}

/// `errno` after a failed libibverbs call, never 0 (a provider that forgot to set it reads as `ENOMEM`).
pub(crate) fn last_errno() -> Errno {
    match Errno::last() {
        Errno(0) => Errno::ENOMEM,
        e => e,
    }
}

/// A pointer return (NULL with `errno`) as a `Result`.
pub(crate) fn ptr<T>(p: *mut T) -> Result<*mut T> {
    if p.is_null() {
        Err(last_errno())
    } else {
        Ok(p)
    }
}

/// `ibv_qp_attr` with its four enum fields as plain `u32`: the same layout (asserted below), so any bytes are a
/// valid value and a pointer to it can be passed as `struct ibv_qp_attr *`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct QpAttr {
    pub qp_state: u32,
    pub cur_qp_state: u32,
    pub path_mtu: u32,
    pub path_mig_state: u32,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    pub qp_access_flags: u32,
    pub cap: ibv_qp_cap,
    pub ah_attr: ibv_ah_attr,
    pub alt_ah_attr: ibv_ah_attr,
    pub pkey_index: u16,
    pub alt_pkey_index: u16,
    pub en_sqd_async_notify: u8,
    pub sq_draining: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub min_rnr_timer: u8,
    pub port_num: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub alt_port_num: u8,
    pub alt_timeout: u8,
    pub rate_limit: u32,
}

const _: () = {
    assert!(size_of::<QpAttr>() == size_of::<ibv_qp_attr>());
    assert!(offset_of!(QpAttr, qkey) == offset_of!(ibv_qp_attr, qkey));
    assert!(offset_of!(QpAttr, cap) == offset_of!(ibv_qp_attr, cap));
    assert!(offset_of!(QpAttr, ah_attr) == offset_of!(ibv_qp_attr, ah_attr));
    assert!(offset_of!(QpAttr, alt_ah_attr) == offset_of!(ibv_qp_attr, alt_ah_attr));
    assert!(offset_of!(QpAttr, pkey_index) == offset_of!(ibv_qp_attr, pkey_index));
    assert!(offset_of!(QpAttr, max_dest_rd_atomic) == offset_of!(ibv_qp_attr, max_dest_rd_atomic));
    assert!(offset_of!(QpAttr, port_num) == offset_of!(ibv_qp_attr, port_num));
    assert!(offset_of!(QpAttr, alt_timeout) == offset_of!(ibv_qp_attr, alt_timeout));
    assert!(offset_of!(QpAttr, rate_limit) == offset_of!(ibv_qp_attr, rate_limit));
};

impl QpAttr {
    /// All zero (a valid value: every field is an integer or a union of integers).
    pub(crate) fn zeroed() -> QpAttr {
        // SAFETY: see above.
        unsafe { MaybeUninit::<QpAttr>::zeroed().assume_init() }
    }

    /// Only the state set, the rest zero.
    pub(crate) fn with_state(qp_state: u32) -> QpAttr {
        QpAttr { qp_state, ..QpAttr::zeroed() }
    }

    /// As `struct ibv_qp_attr *` for libibverbs.
    pub(crate) fn as_c(&mut self) -> *mut ibv_qp_attr {
        (self as *mut QpAttr).cast()
    }

    /// `ibv_copy_qp_attr_from_kern` (libibverbs): every field but `rate_limit` from the kernel's answer (its
    /// `qp_state` is the state asked for).
    pub(crate) fn copy_from_kern(&mut self, k: &ib_uverbs_qp_attr) {
        // SAFETY: a writable ibv_qp_attr (layout asserted above) and a readable kernel struct libibverbs only reads.
        unsafe { ibv_copy_qp_attr_from_kern(self.as_c(), std::ptr::from_ref(k).cast_mut()) }
    }
}

/// `ibv_copy_ah_attr_from_kern` (libibverbs).
pub(crate) fn ah_attr_from_kern(k: &ib_uverbs_ah_attr) -> ibv_ah_attr {
    let mut a = MaybeUninit::<ibv_ah_attr>::zeroed();
    // SAFETY: a writable struct, filled from a readable one that libibverbs only reads.
    unsafe { ibv_copy_ah_attr_from_kern(a.as_mut_ptr(), std::ptr::from_ref(k).cast_mut()) };
    // SAFETY: zeroed, then filled; every field is an integer or bytes.
    unsafe { a.assume_init() }
}

/// `ibv_copy_path_rec_from_kern` (libibverbs).
pub(crate) fn path_rec_from_kern(k: &ib_user_path_rec) -> ibv_sa_path_rec {
    let mut r = MaybeUninit::<ibv_sa_path_rec>::zeroed();
    // SAFETY: as in `ah_attr_from_kern`.
    unsafe { ibv_copy_path_rec_from_kern(r.as_mut_ptr(), std::ptr::from_ref(k).cast_mut()) };
    // SAFETY: as in `ah_attr_from_kern`.
    unsafe { r.assume_init() }
}

/// The device limits librdmacm keeps (`ibv_query_device`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DeviceCaps {
    pub phys_port_cnt: u8,
    /// rdma-core keeps it for rsocket's queue sizing (`ucma_max_qpsize`); unused while rsocket is not implemented.
    #[allow(dead_code)]
    pub max_qp_wr: i32,
    pub max_qp_rd_atom: i32,
    pub max_qp_init_rd_atom: i32,
}

/// `ibv_query_device`, keeping the fields librdmacm uses.
///
/// # Safety
/// `ctx` is an open context.
pub(crate) unsafe fn query_device(ctx: *mut ibv_context) -> Result<DeviceCaps> {
    let mut a = MaybeUninit::<ibv_device_attr>::zeroed();
    // SAFETY: `a` is writable storage of the struct's size; only integer fields are read back, by raw pointer.
    unsafe {
        rc(ibv_query_device(ctx, a.as_mut_ptr()))?;
        let p = a.as_ptr();
        Ok(DeviceCaps {
            phys_port_cnt: addr_of!((*p).phys_port_cnt).read(),
            max_qp_wr: addr_of!((*p).max_qp_wr).read(),
            max_qp_rd_atom: addr_of!((*p).max_qp_rd_atom).read(),
            max_qp_init_rd_atom: addr_of!((*p).max_qp_init_rd_atom).read(),
        })
    }
}

/// The `struct verbs_context` of `ctx` when it has the extended op at `op_offset` (`verbs_get_ctx_op`): the
/// context must be marked extended, and `sz` must cover the op (ops are laid out newest first).
///
/// # Safety
/// `ctx` is an open context (or NULL).
unsafe fn vctx_with(ctx: *mut ibv_context, op_offset: usize) -> Option<*mut verbs_context> {
    if ctx.is_null() {
        return None;
    }
    // SAFETY: an open context is readable; when marked extended it is the last member of a verbs_context.
    unsafe {
        if addr_of!((*ctx).abi_compat).read() != __VERBS_ABI_IS_EXTENDED {
            return None;
        }
        let v = ctx.byte_sub(offset_of!(verbs_context, context)).cast::<verbs_context>();
        if addr_of!((*v).sz).read() < size_of::<verbs_context>() - op_offset {
            return None;
        }
        Some(v)
    }
}

macro_rules! vctx_op {
    ($ctx:expr, $op:ident) => {{
        #[allow(unused_unsafe)]
        // SAFETY: the caller's `ctx` is an open context; the op is read only when `sz` covers it.
        let op = unsafe { vctx_with($ctx, offset_of!(verbs_context, $op)).and_then(|v| addr_of!((*v).$op).read()) };
        op
    }};
}

/// `___ibv_query_port` (what `ibv_query_port` expands to), keeping `link_layer`.
///
/// # Safety
/// `ctx` is an open context.
pub(crate) unsafe fn query_port_link_layer(ctx: *mut ibv_context, port: u8) -> Result<u8> {
    let mut a = MaybeUninit::<ibv_port_attr>::zeroed();
    // SAFETY: `a` is zeroed writable storage of `sizeof(struct ibv_port_attr)`; only `link_layer` (a u8) is read.
    unsafe {
        match vctx_op!(ctx, query_port) {
            Some(f) => rc(f(ctx, port, a.as_mut_ptr(), size_of::<ibv_port_attr>()))?,
            None => rc(ibv_query_port(ctx, port, a.as_mut_ptr().cast()))?,
        }
        Ok(addr_of!((*a.as_ptr()).link_layer).read())
    }
}

/// What datagram rsockets and `rdma_getaddrinfo`'s `RAI_SA` look-up need of a port (`ibv_query_port(3)`).
pub(crate) struct PortInfo {
    /// `IBV_LINK_LAYER_*`.
    pub link_layer: u8,
    /// The active MTU in bytes (256 for an unknown code).
    pub mtu: usize,
    /// LID mask control.
    pub lmc: u8,
    /// Entries in the GID table.
    pub gid_tbl_len: c_int,
    /// `IBV_PORT_*` (`enum ibv_port_state`).
    pub state: u32,
}

/// `___ibv_query_port` for the fields of [`PortInfo`].
///
/// # Safety
/// `ctx` is an open context.
pub(crate) unsafe fn query_port_info(ctx: *mut ibv_context, port: u8) -> Result<PortInfo> {
    let mut a = MaybeUninit::<ibv_port_attr>::zeroed();
    // SAFETY: as in query_port_link_layer; the MTU enum is read as an integer.
    unsafe {
        match vctx_op!(ctx, query_port) {
            Some(f) => rc(f(ctx, port, a.as_mut_ptr(), size_of::<ibv_port_attr>()))?,
            None => rc(ibv_query_port(ctx, port, a.as_mut_ptr().cast()))?,
        }
        let p = a.as_ptr();
        let code = rdma_common::ffi::enum_raw(addr_of!((*p).active_mtu));
        Ok(PortInfo {
            link_layer: addr_of!((*p).link_layer).read(),
            mtu: if (1..=5).contains(&code) { 128usize << code } else { 256 },
            lmc: addr_of!((*p).lmc).read(),
            gid_tbl_len: addr_of!((*p).gid_tbl_len).read(),
            state: rdma_common::ffi::enum_raw(addr_of!((*p).state)),
        })
    }
}

/// `ibv_create_qp_ex` (header inline): `ibv_create_qp` when only the PD is given, else the extended op.
///
/// # Safety
/// `ctx` is an open context; `attr` a valid `ibv_qp_init_attr_ex`.
pub(crate) unsafe fn create_qp_ex(ctx: *mut ibv_context, attr: *mut ibv_qp_init_attr_ex) -> Result<*mut ibv_qp> {
    // SAFETY: the caller's contract; `ibv_qp_init_attr` is the prefix of `ibv_qp_init_attr_ex`.
    unsafe {
        let mask = addr_of!((*attr).comp_mask).read();
        if mask == IBV_QP_INIT_ATTR_PD {
            return ptr(ibv_create_qp(addr_of!((*attr).pd).read(), attr.cast()));
        }
        match vctx_op!(ctx, create_qp_ex) {
            Some(f) => ptr(f(ctx, attr)),
            None => Err(Errno::EOPNOTSUPP),
        }
    }
}

/// `ibv_create_srq_ex` (header inline): `ibv_create_srq` for a basic SRQ with only PD/type, else the extended op.
///
/// # Safety
/// `ctx` is an open context; `attr` a valid `ibv_srq_init_attr_ex`.
pub(crate) unsafe fn create_srq_ex(ctx: *mut ibv_context, attr: *mut ibv_srq_init_attr_ex) -> Result<*mut ibv_srq> {
    use ibv_srq_init_attr_mask::*;
    let (pd_bit, type_bit) = (IBV_SRQ_INIT_ATTR_PD as u32, IBV_SRQ_INIT_ATTR_TYPE as u32);
    // SAFETY: the caller's contract; `ibv_srq_init_attr` is the prefix of `ibv_srq_init_attr_ex`; the enum field is
    // read as its integer.
    unsafe {
        let mask = addr_of!((*attr).comp_mask).read();
        let srq_type = rdma_common::ffi::enum_raw(addr_of!((*attr).srq_type));
        if mask & !(pd_bit | type_bit) == 0
            && mask & pd_bit != 0
            && (mask & type_bit == 0 || srq_type == IBV_SRQT_BASIC)
        {
            return ptr(ibv_create_srq(addr_of!((*attr).pd).read(), attr.cast()));
        }
        match vctx_op!(ctx, create_srq_ex) {
            Some(f) => ptr(f(ctx, attr)),
            None => Err(Errno::EOPNOTSUPP),
        }
    }
}

/// `ibv_open_xrcd` (header inline) with rdma-core's default attributes: a private domain (`fd` -1, `O_CREAT`).
///
/// # Safety
/// `ctx` is an open context.
pub(crate) unsafe fn open_xrcd(ctx: *mut ibv_context) -> Result<*mut ibv_xrcd> {
    let mut attr = ibv_xrcd_init_attr {
        comp_mask: IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
        fd: -1,
        oflags: libc::O_CREAT,
    };
    match vctx_op!(ctx, open_xrcd) {
        // SAFETY: `attr` lives for the call.
        Some(f) => ptr(unsafe { f(ctx, &mut attr) }),
        None => Err(Errno::EOPNOTSUPP),
    }
}

/// `ibv_close_xrcd` (header inline).
///
/// # Safety
/// `xrcd` came from [`open_xrcd`] on `ctx` and is not used afterwards.
pub(crate) unsafe fn close_xrcd(ctx: *mut ibv_context, xrcd: *mut ibv_xrcd) {
    if let Some(f) = vctx_op!(ctx, close_xrcd) {
        // SAFETY: the caller's contract.
        unsafe { f(xrcd) };
    }
}

/// `ibv_modify_qp` with a [`QpAttr`].
///
/// # Safety
/// `qp` is a live QP.
pub(crate) unsafe fn modify_qp(qp: *mut ibv_qp, attr: &mut QpAttr, mask: c_int) -> Result<()> {
    // SAFETY: the caller's contract; `attr` has `ibv_qp_attr`'s layout.
    rc(unsafe { ibv_modify_qp(qp, attr.as_c(), mask) })
}

/// `ibv_query_ece`: `Ok(None)` when the provider has no ECE (`EOPNOTSUPP`).
///
/// # Safety
/// `qp` is a live QP.
pub(crate) unsafe fn query_ece(qp: *mut ibv_qp) -> Result<Option<ibv_ece>> {
    let mut ece = ibv_ece { vendor_id: 0, options: 0, comp_mask: 0 };
    // SAFETY: the caller's contract; `ece` lives for the call.
    match rc(unsafe { ibv_query_ece(qp, &mut ece) }) {
        Ok(()) => Ok(Some(ece)),
        Err(Errno::EOPNOTSUPP) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `ibv_set_ece`; a provider without ECE (`EOPNOTSUPP`) is not an error.
///
/// # Safety
/// `qp` is a live QP.
pub(crate) unsafe fn set_ece(qp: *mut ibv_qp, vendor_id: u32, options: u32) -> Result<()> {
    let mut ece = ibv_ece { vendor_id, options, comp_mask: 0 };
    // SAFETY: the caller's contract; `ece` lives for the call.
    match rc(unsafe { ibv_set_ece(qp, &mut ece) }) {
        Err(Errno::EOPNOTSUPP) => Ok(()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    #[test]
    fn errno_conventions() {
        assert_eq!(rc(0), Ok(()));
        assert_eq!(rc(libc::EINVAL), Err(Errno::EINVAL));
        Errno(0).set();
        assert_eq!(ptr::<u8>(null_mut()), Err(Errno::ENOMEM));
        Errno::EBUSY.set();
        assert_eq!(ptr::<u8>(null_mut()), Err(Errno::EBUSY));
    }
}
