//! The Soft-iWARP control path: siw's [`Provider`] methods, as rdma-core 44's `providers/siw/siw.c` implements
//! them: the generic uverbs commands ([`cmd`]) with siw's driver data (`siw-abi.h`), then the queues mapped and the
//! per-object state built ([`qp_from_resp`], [`cq_from_resp`], [`srq_from_resp`]). When mapping fails after the
//! kernel created the object, the object is destroyed again and the error returned, as rdma-core does.
//!
//! | verb | what is sent |
//! |---|---|
//! | `ibv_open_device` | GET_CONTEXT with a `siw_uresp_alloc_ctx` response (the kernel refuses a context without one) |
//! | `ibv_query_device(_ex)` | the generic query; `fw_ver` printed `major.minor.sub_minor` |
//! | `ibv_query_port`, `ibv_query_qp`, PD, `ibv_dereg_mr`, destroys | the generic commands |
//! | `ibv_reg_mr` | REG_MR with `siw_ureq_reg_mr` (`stag_key` 0) and a `siw_uresp_reg_mr` response |
//! | `ibv_create_cq` | CREATE_CQ with `siw_uresp_create_cq`: `num_cqe` CQEs + the notification word mapped at `cq_key` |
//! | `ibv_create_qp` | CREATE_QP with `siw_uresp_create_qp`: SQ (and RQ unless SRQ) mapped at `sq_key`/`rq_key` |
//! | `ibv_create_srq` | CREATE_SRQ with `siw_uresp_create_srq`: mapped at `srq_key` |
//! | `ibv_modify_qp` / `ibv_modify_srq` | the generic command, with the QP's SQ and RQ locks (the SRQ's lock) held |
//!
//! What rdma-core's siw does not implement answers as its dummy ops (the trait defaults, `EOPNOTSUPP`):
//! `ibv_query_srq`, `ibv_resize_cq`, `ibv_rereg_mr`, `ibv_alloc_mw`/`ibv_bind_mw`, `ibv_create_ah`, multicast,
//! `ibv_create_cq_ex`, `ibv_create_qp_ex` and `ibv_create_srq_ex` beyond what their inlines turn into the basic
//! verbs, `ibv_modify_cq`, XRC, flows, WQs, DM, counters, parent/thread domains, `ibv_reg_dmabuf_mr`. The kernel
//! itself refuses QP types other than RC (`EOPNOTSUPP`).
#![allow(unsafe_code)]

use super::abi::{siw_ureq_reg_mr, siw_uresp_alloc_ctx, siw_uresp_create_cq, siw_uresp_create_qp};
use super::abi::{siw_uresp_create_srq, siw_uresp_reg_mr, AsBytes, FromBytes, SIW_ABI_VERSION};
use super::*;
use crate::kernel::CmdFd;
use crate::provider::{cmd, CqEventsReported, DataPathOps, DeviceMatch, Provider, ProviderCq, ProviderHost};
use crate::provider::{ProviderQp, ProviderSrq, Siw};
use std::ffi::{c_int, c_void};

/// The command fd of the context `ctx`.
///
/// # Safety
/// `ctx` is a live context of this provider.
unsafe fn fd_of<'a>(ctx: *const ibv_context) -> crate::kernel::Uverbs<'a> {
    // SAFETY: caller's contract.
    unsafe { cmd::uverbs(ctx, RDMA_DRIVER_SIW) }
}

/// rdma-core's `siw_alloc_context`: GET_CONTEXT with room for `siw_uresp_alloc_ctx` (whose `dev_id` nothing uses).
pub(crate) fn get_context_on(u: &(impl CmdFd + ?Sized)) -> Result<crate::kernel::device::Context> {
    let mut resp = siw_uresp_alloc_ctx::zeroed();
    crate::kernel::device::get_context(u, &[], resp.as_bytes_mut())
}

/// rdma-core's `siw_reg_mr`: REG_MR with `siw_ureq_reg_mr` (no STag key) and `siw_uresp_reg_mr` (the STag, which is
/// also the lkey and rkey the generic response carries).
///
/// # Safety
/// As [`Provider::reg_mr`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reg_mr_on(
    u: &(impl CmdFd + ?Sized),
    pd: *mut ibv_pd,
    mr: *mut ibv_mr,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
) -> Result<()> {
    let req = siw_ureq_reg_mr::zeroed();
    let mut resp = siw_uresp_reg_mr::zeroed();
    // SAFETY: caller's contract.
    unsafe { cmd::reg_mr(u, pd, mr, addr, length, hca_va, access, req.as_bytes(), resp.as_bytes_mut()) }
}

/// rdma-core's `siw_create_cq`: CREATE_CQ with `siw_uresp_create_cq`, then the CQ mapped from `map_fd`.
///
/// # Safety
/// As [`Provider::create_cq`].
pub(crate) unsafe fn create_cq_on(
    u: &(impl CmdFd + ?Sized),
    map_fd: BorrowedFd<'_>,
    ctx: *mut ibv_context,
    cq: *mut ibv_cq,
    attr: *mut ibv_cq_init_attr_ex,
) -> Result<SiwCq> {
    let mut resp = siw_uresp_create_cq::zeroed();
    // SAFETY: caller's contract.
    unsafe { cmd::create_cq(u, ctx, cq, attr, false, &[], resp.as_bytes_mut())? };
    cq_from_resp(map_fd, &resp).inspect_err(|e| {
        log::debug!("siw: mapping CQ {} failed: {e}", resp.cq_id);
        // SAFETY: the CQ the kernel just created.
        let _ = unsafe { cmd::destroy_cq(u, cq) };
    })
}

/// rdma-core's `siw_create_qp`: CREATE_QP with `siw_uresp_create_qp`, then the SQ and (unless the QP uses an SRQ)
/// the RQ mapped from `map_fd`.
///
/// # Safety
/// As [`Provider::create_qp`].
pub(crate) unsafe fn create_qp_on(
    u: &(impl CmdFd + ?Sized),
    map_fd: BorrowedFd<'_>,
    ctx: *mut ibv_context,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr_ex,
) -> Result<SiwQp> {
    let mut resp = siw_uresp_create_qp::zeroed();
    // SAFETY: caller's contract.
    let (has_srq, sig_all) = unsafe {
        cmd::create_qp(u, ctx, qp, attr, &[], resp.as_bytes_mut())?;
        (!(*attr).srq.is_null(), (*attr).sq_sig_all != 0)
    };
    qp_from_resp(map_fd, &resp, has_srq, sig_all).inspect_err(|e| {
        log::debug!("siw: mapping QP {} failed: {e}", resp.qp_id);
        // SAFETY: the QP the kernel just created.
        let _ = unsafe { cmd::destroy_qp(u, qp) };
    })
}

/// rdma-core's `siw_create_srq`: CREATE_SRQ with `siw_uresp_create_srq`, then the SRQ mapped from `map_fd`.
///
/// # Safety
/// As [`Provider::create_srq`].
pub(crate) unsafe fn create_srq_on(
    u: &(impl CmdFd + ?Sized),
    map_fd: BorrowedFd<'_>,
    ctx: *mut ibv_context,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr_ex,
) -> Result<SiwSrq> {
    let mut resp = siw_uresp_create_srq::zeroed();
    // SAFETY: caller's contract.
    unsafe { cmd::create_srq(u, ctx, srq, attr, false, &[], resp.as_bytes_mut())? };
    srq_from_resp(map_fd, &resp).inspect_err(|e| {
        log::debug!("siw: mapping SRQ failed: {e}");
        // SAFETY: the SRQ the kernel just created.
        let _ = unsafe { cmd::destroy_srq(u, srq) };
    })
}

// Every method receives pointers the entry-point layer checked (live objects of this provider, attribute structs
// of the right type): the `unsafe` blocks below rely on that contract of `Provider`.
impl<H: ProviderHost> Provider for Siw<H> {
    fn name(&self) -> &'static str {
        "siw"
    }

    fn driver_id(&self) -> u32 {
        RDMA_DRIVER_SIW
    }

    /// rdma-core's siw match table: driver id `RDMA_DRIVER_SIW` only (no name match), and uverbs ABI
    /// `SIW_ABI_VERSION` (1) exactly.
    fn matches(&self, dev: &DeviceMatch<'_>) -> bool {
        dev.driver_id == RDMA_DRIVER_SIW && dev.abi_ver == SIW_ABI_VERSION
    }

    fn data_path(&self) -> DataPathOps {
        data_path_ops::<H>()
    }

    fn get_context(&self, cmd_fd: BorrowedFd<'_>) -> Result<crate::kernel::device::Context> {
        get_context_on(&crate::kernel::Uverbs::new(cmd_fd, RDMA_DRIVER_SIW))
    }

    unsafe fn alloc_pd(&self, ctx: *mut ibv_context, pd: *mut ibv_pd) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::alloc_pd(&fd_of(ctx), ctx, pd, &[], &mut []) }
    }

    /// `EOPNOTSUPP` for an extended CQ (rdma-core's siw has no `create_cq_ex`); else [`create_cq_on`].
    unsafe fn create_cq(
        &self,
        ctx: *mut ibv_context,
        cq: *mut ibv_cq_ex,
        attr: *mut ibv_cq_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderCq> {
        if extended {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: Provider contract.
        unsafe {
            let u = fd_of(ctx);
            create_cq_on(&u, u.fd(), ctx, cq.cast(), attr).map(ProviderCq::Siw)
        }
    }

    /// `EOPNOTSUPP` for the extended op (rdma-core's siw has no `create_qp_ex`); else [`create_qp_on`].
    unsafe fn create_qp(
        &self,
        ctx: *mut ibv_context,
        qp: *mut ibv_qp_ex,
        attr: *mut ibv_qp_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderQp> {
        if extended {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: Provider contract.
        unsafe {
            let u = fd_of(ctx);
            create_qp_on(&u, u.fd(), ctx, qp.cast(), attr).map(ProviderQp::Siw)
        }
    }

    /// `EOPNOTSUPP` for the extended op (rdma-core's siw has no `create_srq_ex`); else [`create_srq_on`].
    unsafe fn create_srq(
        &self,
        ctx: *mut ibv_context,
        srq: *mut ibv_srq,
        attr: *mut ibv_srq_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderSrq> {
        if extended {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: Provider contract.
        unsafe {
            let u = fd_of(ctx);
            create_srq_on(&u, u.fd(), ctx, srq, attr).map(ProviderSrq::Siw)
        }
    }

    unsafe fn dealloc_pd(&self, pd: *mut ibv_pd) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::dealloc_pd(&fd_of((*pd).context), pd) }
    }

    unsafe fn dereg_mr(&self, mr: *mut ibv_mr) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::dereg_mr(&fd_of((*mr).context), mr) }
    }

    unsafe fn destroy_cq(&self, cq: *mut ibv_cq) -> Result<CqEventsReported> {
        // SAFETY: Provider contract.
        unsafe { cmd::destroy_cq(&fd_of((*cq).context), cq) }
    }

    unsafe fn destroy_qp(&self, qp: *mut ibv_qp) -> Result<u32> {
        // SAFETY: Provider contract.
        unsafe { cmd::destroy_qp(&fd_of((*qp).context), qp) }
    }

    unsafe fn destroy_srq(&self, srq: *mut ibv_srq) -> Result<u32> {
        // SAFETY: Provider contract.
        unsafe { cmd::destroy_srq(&fd_of((*srq).context), srq) }
    }

    /// rdma-core's `siw_modify_qp`: MODIFY_QP with the QP's SQ and RQ locks held.
    unsafe fn modify_qp(&self, qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> Result<()> {
        // SAFETY: Provider contract: a live QP of this provider.
        let st = unsafe { H::siw_qp(qp) }.ok_or(Errno::EIO)?;
        // SAFETY: Provider contract.
        st.with_queues_locked(|| unsafe { cmd::modify_qp(&fd_of((*qp).context), qp, attr, attr_mask) })
    }

    /// rdma-core's `siw_modify_srq`: MODIFY_SRQ with the SRQ lock held (the kernel refuses a resize,
    /// `IBV_SRQ_MAX_WR`, with `EOPNOTSUPP`).
    unsafe fn modify_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr, attr_mask: c_int) -> Result<()> {
        // SAFETY: Provider contract: a live SRQ of this provider.
        let st = unsafe { H::siw_srq(srq) }.ok_or(Errno::EIO)?;
        // SAFETY: Provider contract.
        st.with_queue_locked(|| unsafe { cmd::modify_srq(&fd_of((*srq).context), srq, attr, attr_mask, &[]) })
    }

    /// rdma-core's `siw_query_device`: the generic query, then `fw_ver` printed as `major.minor.sub_minor`.
    unsafe fn query_device_ex(
        &self,
        ctx: *mut ibv_context,
        input: *const ibv_query_device_ex_input,
        attr: *mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe {
            let resp = cmd::query_device_any(&fd_of(ctx), input, attr, attr_size)?;
            cmd::format_fw_ver(&mut (*attr).orig_attr.fw_ver, resp.base.fw_ver);
        }
        Ok(())
    }

    unsafe fn query_port(&self, ctx: *mut ibv_context, port_num: u8, attr: *mut ibv_port_attr) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::query_port(&fd_of(ctx), port_num, attr) }
    }

    unsafe fn query_qp(
        &self,
        qp: *mut ibv_qp,
        attr: *mut ibv_qp_attr,
        attr_mask: c_int,
        init_attr: *mut ibv_qp_init_attr,
    ) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::query_qp(&fd_of((*qp).context), qp, attr, attr_mask, init_attr) }
    }

    unsafe fn reg_mr(
        &self,
        pd: *mut ibv_pd,
        mr: *mut ibv_mr,
        addr: *mut c_void,
        length: usize,
        hca_va: u64,
        access: c_int,
    ) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { reg_mr_on(&fd_of((*pd).context), pd, mr, addr, length, hca_va, access) }
    }
}
