//! The provider interface's SRQ commands: `ibv_cmd_create_srq(_ex)`, `_modify_srq`, `_query_srq`,
//! `_destroy_srq` and `_post_srq_recv` (rdma-core's `cmd_srq.c`, `cmd.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::qp::{post_recv_cmd, report_bad};
use crate::kernel;
use crate::object;
use crate::provider::cmd::{self as pcmd, SRQT_BASIC, SRQT_XRC, SRQ_INIT_ATTR_CQ, SRQ_INIT_ATTR_TYPE};
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::errno::Result;
use rdma_common::ffi;
use rdma_common::uapi::ib_user_verbs::*;
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::ptr::{self, addr_of, addr_of_mut};

/// rdma-core's `set_vsrq`: the `verbs_srq` fields of an XRC or TM SRQ.
///
/// # Safety
/// `vsrq` and `a` are the provider's.
unsafe fn set_vsrq(vsrq: *mut verbs_srq, a: &ibv_srq_init_attr_ex, srq_num: u32) {
    // SAFETY: caller's contract; `verbs_xrcd` begins with its `ibv_xrcd`.
    unsafe {
        let t = if a.comp_mask & SRQ_INIT_ATTR_TYPE != 0 { ffi::enum_raw(addr_of!(a.srq_type)) } else { SRQT_BASIC };
        (*vsrq).srq_type = t;
        if t == SRQT_XRC {
            (*vsrq).srq_num = srq_num;
            (*vsrq).xrcd = a.xrcd.cast();
        }
        if a.comp_mask & SRQ_INIT_ATTR_CQ != 0 {
            (*vsrq).cq = a.cq;
        }
    }
}

/// rdma-core's `ibv_icmd_create_srq` on the write ABI with a provider's buffers: sets `context` and the public
/// mutex/cond, then checks and builds the request as rdma-core does ([`pcmd::create_srq_cmd`]): CREATE_SRQ for a
/// basic SRQ or CREATE_XSRQ for an XRC/TM one (whose `verbs_srq` fields it fills), with the provider's driver
/// data; the granted sizes in `attr.attr`. `prov_cmd` is the size of the provider's `struct ibv_<cmd>`, after
/// which its driver data starts.
///
/// # Safety
/// The provider's objects and buffers.
unsafe fn create_srq(
    pd: *mut ibv_pd,
    vsrq: *mut verbs_srq,
    srq: *mut ibv_srq,
    a: &mut ibv_srq_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    prov_cmd: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let ctx = (*pd).context;
        let u = fd_of(ctx)?;
        (*srq).context = ctx;
        object::init_sync(addr_of_mut!((*srq).mutex), addr_of_mut!((*srq).cond));
        let udata = tail(cmd, cmd_size, prov_cmd);
        let prov_resp = size_of::<ib_uverbs_create_srq_resp>();
        let r: ib_uverbs_create_srq_resp = match pcmd::create_srq_cmd(srq, a, true, (*pd).handle, pcmd::Caller::Plugin)?
        {
            pcmd::CreateSrqCmd::Basic(req) => {
                write_uhw(&u, IB_USER_VERBS_CMD_CREATE_SRQ, &req, udata, resp, resp_size, prov_resp)?
            }
            pcmd::CreateSrqCmd::Xsrq(req) => {
                let r: ib_uverbs_create_srq_resp =
                    write_uhw(&u, IB_USER_VERBS_CMD_CREATE_XSRQ, &req, udata, resp, resp_size, prov_resp)?;
                set_vsrq(obj(vsrq)?, a, r.srqn);
                r
            }
        };
        (*srq).handle = r.srq_handle;
        a.attr.max_wr = r.max_wr;
        a.attr.max_sge = r.max_sge;
    }
    Ok(())
}

/// `int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
/// struct ibv_create_srq *cmd, size_t cmd_size, struct ib_uverbs_create_srq_resp *resp, size_t resp_size)`.
///
/// CREATE_SRQ of a basic SRQ on `pd` with the provider's driver data; `user_handle` is `srq`. Sets `context` and
/// the public mutex/cond, then `handle`; `attr->attr.max_wr`/`max_sge` become the sizes granted. Errors: the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_srq(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_srq", || {
        let (pd, srq, attr) = (obj(pd)?, obj(srq)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            // All zero is a valid value: its one enum, `srq_type`, is then IBV_SRQT_BASIC.
            let mut a: ibv_srq_init_attr_ex = std::mem::zeroed();
            a.srq_context = (*attr).srq_context;
            a.attr = (*attr).attr;
            create_srq(
                pd,
                ptr::null_mut(),
                srq,
                &mut a,
                cmd,
                cmd_size,
                abi::<ib_uverbs_create_srq>(),
                resp,
                resp_size,
            )?;
            (*attr).attr.max_wr = a.attr.max_wr;
            (*attr).attr.max_sge = a.attr.max_sge;
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
/// struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd, size_t cmd_size,
/// struct ib_uverbs_create_srq_resp *resp, size_t resp_size)`.
///
/// As [`ibv_cmd_create_srq`] from extended attributes: a basic SRQ with CREATE_SRQ, an XRC SRQ (on
/// `attr_ex->xrcd`, completions to `attr_ex->cq`) or a tag-matching one with CREATE_XSRQ, filling the
/// `verbs_srq` fields (`srq_type`, `srq_num` and `xrcd` for XRC, `cq`) for those. Errors: `EOPNOTSUPP` for unknown
/// `comp_mask` bits; `EINVAL` without a PD, an XRC SRQ without XRCD or CQ, a TM SRQ without CQ, TM
/// capabilities or tags; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_srq_ex(
    _context: *mut ibv_context,
    srq: *mut verbs_srq,
    attr_ex: *mut ibv_srq_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_srq_ex", || {
        let (vsrq, a) = (obj(srq)?, obj(attr_ex)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            pcmd::create_srq_ex_check(&*a)?;
            // As rdma-core, the SRQ belongs to the PD's context (`context` is not used).
            let pd = (*a).pd;
            let s = addr_of_mut!((*vsrq).srq);
            create_srq(pd, vsrq, s, &mut *a, cmd, cmd_size, abi::<ib_uverbs_create_xsrq>(), resp, resp_size)
        }
    })
}

/// `int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
/// struct ibv_modify_srq *cmd, size_t cmd_size)`.
///
/// MODIFY_SRQ (`IBV_SRQ_MAX_WR` resize, `IBV_SRQ_LIMIT` arm) with the provider's driver data (rxe passes the
/// address the kernel writes new queue geometry to). Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_srq", || {
        let (srq, attr) = (obj(srq)?, obj(srq_attr)?);
        // SAFETY: the provider's live SRQ and buffers (addresses in its driver data are its own).
        unsafe {
            let u = fd_of((*srq).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_modify_srq>());
            pcmd::modify_srq(&u, srq, attr, srq_attr_mask, udata)
        }
    })
}

/// `int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, struct ibv_query_srq *cmd,
/// size_t cmd_size)`: QUERY_SRQ; fills `max_wr`, `max_sge`, `srq_limit`. Driver data after the command, which no
/// provider passes and the kernel ignores, is not sent. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    _cmd: *mut c_void,
    _cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_query_srq", || {
        let (srq, attr) = (obj(srq)?, obj(srq_attr)?);
        // SAFETY: the provider's live SRQ.
        unsafe { pcmd::query_srq(&fd_of((*srq).context)?, srq, attr) }
    })
}

/// `int ibv_cmd_destroy_srq(struct ibv_srq *srq)`: DESTROY_SRQ, then waits until the async events the kernel
/// reported for it were acknowledged. Errors: `EBUSY` while QPs use it; a forgiven `EIO` (see
/// [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd)) returns 0 at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_srq(srq: *mut ibv_srq) -> c_int {
    ret("ibv_cmd_destroy_srq", || {
        let srq = obj(srq)?;
        // SAFETY: the provider's live SRQ, whose mutex/cond were initialised at creation.
        unsafe {
            let u = fd_of((*srq).context)?;
            if let Some(reported) = destroyed(kernel::srq::destroy_srq(&u, (*srq).handle))? {
                wait(addr_of_mut!((*srq).mutex), addr_of_mut!((*srq).cond), || {
                    object::all_acked("ibv_destroy_srq (async events)", (*srq).events_completed, reported)
                });
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)`:
/// POST_SRQ_RECV through the kernel, as [`ibv_cmd_post_recv`](super::qp::ibv_cmd_post_recv).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    let mut bad = 0u32;
    let r = ret("ibv_cmd_post_srq_recv", || {
        let srq = obj(srq)?;
        // SAFETY: the provider's live SRQ and the caller's list.
        let (b, r) = unsafe { post_recv_cmd((*srq).context, IB_USER_VERBS_CMD_POST_SRQ_RECV, (*srq).handle, wr) };
        bad = b;
        r
    });
    // SAFETY: the caller's list and out-pointer.
    unsafe { report_bad(wr, |w| (*w).next, bad, r != 0, bad_wr) };
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use crate::provider::cmd::{SRQ_INIT_ATTR_PD, SRQ_INIT_ATTR_RESERVED, SRQ_INIT_ATTR_XRCD};
    use rdma_common::uapi::AsBytes;
    use rdma_common::uapi::FromBytes;
    #[test]
    fn create_srq_ex_xrc_and_its_verbs_srq_fields() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_create_srq_resp::zeroed();
        kresp.srq_handle = 4;
        kresp.max_wr = 128;
        kresp.srqn = 0x99;
        f.reply(Reply::write(kresp.as_bytes()));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_create_xsrq>(), 0, &[]);
        let mut resp = [0u8; 16];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 2 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut xrcd: MaybeUninit<verbs_xrcd> = z();
        let mut srq: MaybeUninit<verbs_srq> = z();
        let mut a: MaybeUninit<ibv_srq_init_attr_ex> = z();
        unsafe {
            (*cq.as_mut_ptr()).handle = 8;
            (*xrcd.as_mut_ptr()).handle = 12;
            let x = a.as_mut_ptr();
            (*x).attr.max_wr = 100;
            (*x).comp_mask = SRQ_INIT_ATTR_TYPE | SRQ_INIT_ATTR_PD | SRQ_INIT_ATTR_XRCD | SRQ_INIT_ATTR_CQ;
            ffi::enum_store(addr_of_mut!((*x).srq_type), SRQT_XRC);
            (*x).pd = &mut pd;
            (*x).cq = cq.as_mut_ptr();
            (*x).xrcd = xrcd.as_mut_ptr().cast();
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_srq_ex(
                ctx.as_mut_ptr(),
                srq.as_mut_ptr(),
                a.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                16,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_CREATE_XSRQ);
        assert_ne!(u64_at(&w, 8), resp.as_ptr() as u64, "no driver response: a local buffer, as rdma-core");
        let req = ib_uverbs_create_xsrq::from_bytes(&w[8..]);
        assert_eq!(
            (req.srq_type, req.pd_handle, req.cq_handle, req.xrcd_handle, req.max_wr),
            (SRQT_XRC, 2, 8, 12, 100)
        );
        unsafe {
            let s = &*srq.as_ptr();
            assert_eq!((s.srq.handle, s.srq.context, s.srq_type, s.srq_num), (4, ctx.as_mut_ptr(), SRQT_XRC, 0x99));
            assert_eq!((s.xrcd, s.cq), (xrcd.as_mut_ptr(), cq.as_mut_ptr()));
            assert_eq!((*a.as_ptr()).attr.max_wr, 128);
            (*a.as_mut_ptr()).comp_mask = SRQ_INIT_ATTR_RESERVED;
            assert_eq!(
                with_fake(&f, || ibv_cmd_create_srq_ex(
                    ctx.as_mut_ptr(),
                    srq.as_mut_ptr(),
                    a.as_mut_ptr(),
                    ptr::null_mut(),
                    0,
                    ptr::null_mut(),
                    0
                )),
                libc::EOPNOTSUPP
            );
        }
    }

    #[test]
    fn the_other_srq_commands_marshal_as_the_kernel_expects() {
        let f = Fake::new();
        objects!(ctx, c, pd, cq, srq, qp, ch);
        let mut resp = [0u8; 16];
        // CREATE_SRQ (basic), MODIFY_SRQ with driver data, QUERY_SRQ, DESTROY_SRQ.
        let mut sa = ibv_srq_init_attr {
            srq_context: ptr::null_mut(),
            attr: ibv_srq_attr { max_wr: 10, max_sge: 1, srq_limit: 2 },
        };
        let mut cmd = prov_cmd(8, 32, 0x5a, &[]);
        let w = run(&f, Reply::write(&[8, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_create_srq(
                &mut pd,
                srq.as_mut_ptr(),
                &mut sa,
                cmd.as_mut_ptr().cast(),
                40,
                resp.as_mut_ptr().cast(),
                16,
            )
        });
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_CREATE_SRQ);
        let r = ib_uverbs_create_srq::from_bytes(&w[8..]);
        assert_eq!((r.user_handle, r.pd_handle, r.max_wr, r.max_sge, r.srq_limit), (srq.as_ptr() as u64, 2, 10, 1, 2));
        assert_eq!((sa.attr.max_wr, sa.attr.max_sge), (16, 2));
        unsafe { (*srq.as_mut_ptr()).handle = 4 };
        let mut sattr = ibv_srq_attr { max_wr: 30, max_sge: 0, srq_limit: 3 };
        let mut cmd = prov_cmd(8, 16, 0x5a, &[1; 8]);
        let w = run(&f, Reply::write(&[]), &mut || unsafe {
            ibv_cmd_modify_srq(srq.as_mut_ptr(), &mut sattr, 3, cmd.as_mut_ptr().cast(), 32)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_MODIFY_SRQ, 8, 0));
        assert_eq!((u32_at(&w, 8), u32_at(&w, 12), u32_at(&w, 16), u32_at(&w, 20)), (4, 3, 30, 3));
        assert_eq!(&w[24..], &[1; 8]);
        let w = run(&f, Reply::write(&[40, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_query_srq(srq.as_mut_ptr(), &mut sattr, ptr::null_mut(), 0)
        });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_QUERY_SRQ, 4));
        assert_eq!((sattr.max_wr, sattr.max_sge, sattr.srq_limit), (40, 2, 5));
        let w = run(&f, Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_destroy_srq(srq.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_DESTROY_SRQ, 4));
    }
}
