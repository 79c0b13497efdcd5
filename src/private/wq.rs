//! The provider interface's work queue commands: `ibv_cmd_create_wq`, `_modify_wq`, `_destroy_wq` and the
//! receive WQ indirection tables (`_create_rwq_ind_table`, `_destroy_rwq_ind_table`) (rdma-core's `cmd.c`,
//! `cmd_wq.c`, `cmd_rwq_ind.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use crate::kernel;
use crate::object;
use crate::provider::verbs::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::Errno;
use rdma_common::ffi;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_void};
use std::mem::{offset_of, size_of};
use std::ptr::{addr_of, addr_of_mut};

/// `int ibv_cmd_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
/// struct ibv_create_wq *cmd, size_t cmd_size, struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size)`.
///
/// EX_CREATE_WQ (a receive work queue on `pd` completing to `cq`) with the provider's driver data; `user_handle`
/// is `wq`. Sets `context`, `cq`, `pd`, `wq_type` first, then `handle`, `wq_num`, and the granted `max_wr` /
/// `max_sge` in `wq_init_attr`. Errors: `EINVAL` for unknown `comp_mask` bits, `EOPNOTSUPP` for unknown creation
/// flags; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_wq(
    context: *mut ibv_context,
    wq_init_attr: *mut ibv_wq_init_attr,
    wq: *mut ibv_wq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_wq", || {
        let (a, wq) = (obj(wq_init_attr)?, obj(wq)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let a = &mut *a;
            if a.comp_mask >= IBV_WQ_INIT_ATTR_RESERVED {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let wq_type = ffi::enum_raw(addr_of!(a.wq_type));
            (*wq).context = context;
            (*wq).cq = a.cq;
            (*wq).pd = a.pd;
            ffi::enum_store(addr_of_mut!((*wq).wq_type), wq_type);
            if a.comp_mask & IBV_WQ_INIT_ATTR_FLAGS != 0 && a.create_flags & !(IBV_WQ_FLAGS_RESERVED - 1) != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            let mut req = ib_uverbs_ex_create_wq::zeroed();
            req.user_handle = wq as usize as u64;
            req.pd_handle = (*obj(a.pd)?).handle;
            req.cq_handle = (*obj(a.cq)?).handle;
            req.max_wr = a.max_wr;
            req.max_sge = a.max_sge;
            req.wq_type = wq_type;
            req.create_flags = a.create_flags;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_create_wq>());
            let r: ib_uverbs_ex_create_wq_resp = write_uhw_ex(
                &u,
                IB_USER_VERBS_EX_CMD_CREATE_WQ,
                &req,
                udata,
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_create_wq_resp>(),
            )?;
            (*wq).handle = r.wq_handle;
            a.max_wr = r.max_wr;
            a.max_sge = r.max_sge;
            (*wq).wq_num = r.wqn;
        }
        Ok(())
    })
}

/// `int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd,
/// size_t cmd_size)`.
///
/// EX_MODIFY_WQ (state, flags) with the provider's driver data; the core request is built from zero (rdma-core
/// zeroes and fills the provider's struct). `wq->state` follows a successful state change. Errors: `EINVAL` for
/// unknown `attr_mask` bits, `EOPNOTSUPP` for unknown flags; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_wq(
    wq: *mut ibv_wq,
    attr: *mut ibv_wq_attr,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_wq", || {
        let (wq, attr) = (obj(wq)?, obj(attr)?);
        // SAFETY: the provider's live WQ, attributes and buffers.
        unsafe {
            let a = &*attr;
            if a.attr_mask >= IBV_WQ_ATTR_RESERVED {
                return Err(Errno::EINVAL);
            }
            let full = abi_ex::<ib_uverbs_ex_modify_wq>();
            if cmd.is_null() || cmd_size < full {
                return Err(Errno::EINVAL);
            }
            let mut req = ib_uverbs_ex_modify_wq::zeroed();
            req.curr_wq_state = ffi::enum_raw(addr_of!(a.curr_wq_state));
            req.wq_state = ffi::enum_raw(addr_of!(a.wq_state));
            if a.attr_mask & IBV_WQ_ATTR_FLAGS != 0 {
                if a.flags_mask & !(IBV_WQ_FLAGS_RESERVED - 1) != 0 {
                    return Err(Errno::EOPNOTSUPP);
                }
                req.flags = a.flags;
                req.flags_mask = a.flags_mask;
            }
            req.wq_handle = (*wq).handle;
            req.attr_mask = a.attr_mask;
            let u = fd_of((*wq).context)?;
            let udata = tail(cmd, cmd_size, full);
            kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_MODIFY_WQ, req.as_bytes(), udata, None)?;
            if a.attr_mask & IBV_WQ_ATTR_STATE != 0 {
                ffi::enum_store(addr_of_mut!((*wq).state), ffi::enum_raw(addr_of!(a.wq_state)));
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_wq(struct ibv_wq *wq)`: EX_DESTROY_WQ, then waits until the async events the kernel
/// reported for it were acknowledged. Errors: the kernel's; a forgiven `EIO` (see [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd))
/// returns 0 at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_wq(wq: *mut ibv_wq) -> c_int {
    ret("ibv_cmd_destroy_wq", || {
        let wq = obj(wq)?;
        // SAFETY: the provider's live WQ, whose mutex/cond were initialised at creation (`ibv_create_wq`).
        unsafe {
            let u = fd_of((*wq).context)?;
            let mut req = ib_uverbs_ex_destroy_wq::zeroed();
            req.wq_handle = (*wq).handle;
            let mut out = [0u8; size_of::<ib_uverbs_ex_destroy_wq_resp>()];
            let n = out.len();
            let r = kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_DESTROY_WQ, req.as_bytes(), &[], Some((&mut out, n)));
            if destroyed(r)?.is_some() {
                let reported = ib_uverbs_ex_destroy_wq_resp::from_bytes(&out).events_reported;
                wait(addr_of_mut!((*wq).mutex), addr_of_mut!((*wq).cond), || {
                    object::all_acked("ibv_destroy_wq (async events)", (*wq).events_completed, reported)
                });
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
/// struct ibv_rwq_ind_table_init_attr *init_attr, struct ibv_rwq_ind_table *rwq_ind_table,
/// struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size)`.
///
/// EX_CREATE_RWQ_IND_TBL of the `2^log_ind_tbl_size` WQs `init_attr->ind_tbl` (the command padded to 8 bytes),
/// the response straight into `resp`; fills `ind_tbl_handle`, `ind_tbl_num`, `context`. Errors: `EINVAL` for
/// unknown `comp_mask` bits, a table too large for one command, or a response shorter than the kernel's struct;
/// the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_rwq_ind_table(
    context: *mut ibv_context,
    init_attr: *mut ibv_rwq_ind_table_init_attr,
    rwq_ind_table: *mut ibv_rwq_ind_table,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_rwq_ind_table", || {
        let (a, t) = (obj(init_attr)?, obj(rwq_ind_table)?);
        // SAFETY: the provider's objects, its array of WQ pointers and its response buffer.
        unsafe {
            let a = &*a;
            if a.comp_mask >= IBV_CREATE_IND_TABLE_RESERVED {
                return Err(Errno::EINVAL);
            }
            if a.log_ind_tbl_size > 16 {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let n = 1usize << a.log_ind_tbl_size;
            let head = size_of::<ib_uverbs_ex_create_rwq_ind_table>();
            // The whole command (extended header included) is padded to 8 bytes.
            let len = (EX_HDR + head + 4 * n).div_ceil(8) * 8 - EX_HDR;
            let mut core = Bytes(vec![0u8; len]);
            core.u32(offset_of!(ib_uverbs_ex_create_rwq_ind_table, log_ind_tbl_size), a.log_ind_tbl_size);
            let list = obj(a.ind_tbl)?;
            for i in 0..n {
                core.u32(head + 4 * i, (*obj(*list.add(i))?).handle);
            }
            let r: ib_uverbs_ex_create_rwq_ind_table_resp = write_ex_direct(
                &u,
                IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
                &core.0,
                &[],
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_create_rwq_ind_table_resp>(),
            )?;
            if (r.response_length as usize) < size_of::<ib_uverbs_ex_create_rwq_ind_table_resp>() {
                return Err(Errno::EINVAL);
            }
            (*t).ind_tbl_handle = r.ind_tbl_handle as c_int;
            (*t).ind_tbl_num = r.ind_tbl_num as c_int;
            (*t).context = context;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)`: EX_DESTROY_RWQ_IND_TBL. Errors:
/// the kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_rwq_ind_table(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int {
    ret("ibv_cmd_destroy_rwq_ind_table", || {
        let t = obj(rwq_ind_table)?;
        // SAFETY: the provider's live table.
        unsafe {
            let u = fd_of((*t).context)?;
            let mut req = ib_uverbs_ex_destroy_rwq_ind_table::zeroed();
            req.ind_tbl_handle = (*t).ind_tbl_handle as u32;
            destroyed(kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL, req.as_bytes(), &[], None))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    #[test]
    fn wq_lifecycle_and_indirection_table() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_ex_create_wq_resp::zeroed();
        kresp.wq_handle = 3;
        kresp.max_wr = 256;
        kresp.wqn = 0x31;
        f.reply(Reply::write(kresp.as_bytes()));
        let core = size_of::<ib_uverbs_ex_create_wq>();
        let mut cmd = prov_cmd(24, core, 0, &[6; 8]);
        let mut resp = vec![0u8; size_of::<ib_uverbs_ex_create_wq_resp>()];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 1 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut wq: MaybeUninit<ibv_wq> = z();
        let mut a: MaybeUninit<ibv_wq_init_attr> = z();
        unsafe {
            (*cq.as_mut_ptr()).handle = 2;
            let x = a.as_mut_ptr();
            (*x).max_wr = 200;
            (*x).max_sge = 1;
            (*x).pd = &mut pd;
            (*x).cq = cq.as_mut_ptr();
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_wq(
                ctx.as_mut_ptr(),
                a.as_mut_ptr(),
                wq.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                resp.len(),
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_WQ, (core / 8) as u16, 3));
        assert_eq!(u16_at(&w, 16), 1, "driver data words");
        let req = ib_uverbs_ex_create_wq::from_bytes(&w[24..]);
        assert_eq!((req.user_handle, req.pd_handle, req.cq_handle, req.max_wr), (wq.as_ptr() as u64, 1, 2, 200));
        unsafe {
            assert_eq!(((*wq.as_ptr()).handle, (*wq.as_ptr()).wq_num, (*a.as_ptr()).max_wr), (3, 0x31, 256));
        }

        f.reply(Reply::write(&[]));
        let mut cmd = prov_cmd(24, size_of::<ib_uverbs_ex_modify_wq>(), 0x5a, &[]);
        let mut wa = ibv_wq_attr {
            attr_mask: IBV_WQ_ATTR_STATE,
            wq_state: ibv_wq_state::IBV_WQS_RDY,
            curr_wq_state: ibv_wq_state::IBV_WQS_RESET,
            flags: 0,
            flags_mask: 0,
        };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_wq(wq.as_mut_ptr(), &mut wa, cmd.as_mut_ptr().cast(), cmd.len())
        });
        assert_eq!(rc, 0);
        let req = ib_uverbs_ex_modify_wq::from_bytes(&f.write(1)[24..]);
        assert_eq!((req.attr_mask, req.wq_handle, req.wq_state, req.flags), (1, 3, 1, 0));
        unsafe { assert_eq!(ffi::enum_raw(addr_of!((*wq.as_ptr()).state)), 1) };

        // Destroy waits until the reported events were acknowledged (here: already).
        let mut d = ib_uverbs_ex_destroy_wq_resp::zeroed();
        d.events_reported = 2;
        f.reply(Reply::write(d.as_bytes()));
        unsafe {
            let p = wq.as_mut_ptr();
            object::init_sync(addr_of_mut!((*p).mutex), addr_of_mut!((*p).cond));
            (*p).events_completed = 2;
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_wq(p)), 0);
        }

        // An indirection table of 2^1 WQs: 8 + 2 * 4 bytes, padded to 8 with the 24-byte header.
        let mut r = ib_uverbs_ex_create_rwq_ind_table_resp::zeroed();
        r.response_length = 16;
        r.ind_tbl_handle = 9;
        f.reply(Reply::write(r.as_bytes()));
        let mut wqs = [wq.as_mut_ptr(), wq.as_mut_ptr()];
        let mut ia = ibv_rwq_ind_table_init_attr { log_ind_tbl_size: 1, ind_tbl: wqs.as_mut_ptr(), comp_mask: 0 };
        let mut t: MaybeUninit<ibv_rwq_ind_table> = z();
        let mut resp = [0u8; 16];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_rwq_ind_table(ctx.as_mut_ptr(), &mut ia, t.as_mut_ptr(), resp.as_mut_ptr().cast(), 16)
        });
        assert_eq!(rc, 0);
        let w = f.write(3);
        assert_eq!(w.len(), 24 + 16);
        assert_eq!(hdr(&w).1, 2);
        assert_eq!((u32_at(&w, 28), u32_at(&w, 32), u32_at(&w, 36)), (1, 3, 3));
        unsafe { assert_eq!((*t.as_ptr()).ind_tbl_handle, 9) };
    }
}
