//! The Soft-RoCE control path: rxe's [`Provider`] methods, as rdma-core 44's `providers/rxe/rxe.c` implements
//! them: the generic uverbs commands ([`cmd`]) with rxe's driver responses (`rdma_user_rxe.h`), then the rings
//! mapped and the per-object state built ([`qp_from_resp`], [`cq_from_resp`], [`srq_from_resp`],
//! [`ah_from_resp`]). When mapping fails after the kernel created the object, the object is destroyed again and
//! the mapping error returned, as rdma-core does.
//!
//! What rxe does not implement answers as rdma-core's dummy ops (the trait defaults): `rereg_mr`,
//! `reg_dmabuf_mr`, `modify_cq`, `get_srq_num`, XRC, flows, WQs, DM, counters, parent/thread domains.
//! Deliberate difference: an AH the kernel answers without an `ah_num` (kernels before 5.10, which need the
//! address vector resolved in user space with the neighbour table) is refused with `EOPNOTSUPP`.
#![allow(unsafe_code)]

use super::abi::{mminfo, rxe_create_ah_resp, rxe_create_cq_resp, rxe_create_qp_resp, rxe_create_srq_resp};
use super::abi::{rxe_modify_srq_cmd, rxe_resize_cq_resp};
use super::*;
use crate::provider::{
    cmd, CqEventsReported, DataPathOps, DeviceMatch, Provider, ProviderAh, ProviderCq, ProviderHost, ProviderQp,
    ProviderSrq, Rxe,
};
use rdma_common::abi::enums::*;
use rdma_common::ffi;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::c_void;
use std::ptr::addr_of;

/// The command fd of the context `ctx`.
///
/// # Safety
/// `ctx` is a live context of this provider.
unsafe fn fd_of<'a>(ctx: *const ibv_context) -> crate::kernel::Uverbs<'a> {
    // SAFETY: caller's contract.
    unsafe { cmd::uverbs(ctx, RDMA_DRIVER_RXE) }
}

// Every method receives pointers the entry-point layer checked (live objects of this provider, attribute structs
// of the right type): the `unsafe` blocks below rely on that contract of `Provider`.
impl<H: ProviderHost> Provider for Rxe<H> {
    fn name(&self) -> &'static str {
        "rxe"
    }

    fn driver_id(&self) -> u32 {
        RDMA_DRIVER_RXE
    }

    /// rdma-core's rxe match: driver id `RDMA_DRIVER_RXE`, else a device name starting with `rxe`; and ABI 1..=2
    /// on 64-bit machines (only 2 on 32-bit ones).
    fn matches(&self, dev: &DeviceMatch<'_>) -> bool {
        let ours = dev.driver_id == RDMA_DRIVER_RXE || dev.ibdev_name.starts_with("rxe");
        let min_abi = if size_of::<usize>() == 8 { 1 } else { 2 };
        ours && (min_abi..=2).contains(&dev.abi_ver)
    }

    fn data_path(&self) -> DataPathOps {
        data_path_ops::<H>()
    }

    unsafe fn alloc_mw(&self, pd: *mut ibv_pd, mw: *mut ibv_mw, type_: u32) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::alloc_mw(&fd_of((*pd).context), pd, mw, type_, &[], &mut []) }
    }

    unsafe fn alloc_pd(&self, ctx: *mut ibv_context, pd: *mut ibv_pd) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::alloc_pd(&fd_of(ctx), ctx, pd, &[], &mut []) }
    }

    unsafe fn attach_mcast(&self, qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::attach_mcast(&fd_of((*qp).context), qp, gid, lid) }
    }

    /// rdma-core's `rxe_create_ah`: CREATE_AH; UD WQEs then carry the kernel's `ah_num`.
    unsafe fn create_ah(&self, pd: *mut ibv_pd, ah: *mut ibv_ah, attr: *mut ibv_ah_attr) -> Result<ProviderAh> {
        // SAFETY: Provider contract.
        unsafe {
            let u = fd_of((*pd).context);
            let mut resp = rxe_create_ah_resp::zeroed();
            cmd::create_ah(&u, pd, ah, attr, resp.as_bytes_mut())?;
            if resp.ah_num == 0 {
                // Kernels before 5.10: the address vector would have to be built here (rdma-core's
                // rxe_create_av, with the neighbour table); not supported.
                let _ = cmd::destroy_ah(&u, ah);
                log::warn!("rxe: the kernel returned no AH index (kernel older than 5.10?); not supported");
                return Err(Errno::EOPNOTSUPP);
            }
            Ok(ProviderAh::Rxe(ah_from_resp(&resp)))
        }
    }

    /// rdma-core's `rxe_create_cq` / `rxe_create_cq_ex`: `EOPNOTSUPP` for `wc_flags` rxe cannot report (extended
    /// only), CREATE_CQ with `rxe_create_cq_resp`, the ring mapped; an extended CQ gets its polling functions.
    unsafe fn create_cq(
        &self,
        ctx: *mut ibv_context,
        cq: *mut ibv_cq_ex,
        attr: *mut ibv_cq_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderCq> {
        // SAFETY: Provider contract.
        unsafe {
            if extended {
                check_cq_wc_flags((*attr).wc_flags)?;
            }
            let u = fd_of(ctx);
            let mut resp = rxe_create_cq_resp::zeroed();
            cmd::create_cq(&u, ctx, cq.cast(), attr, extended, &[], resp.as_bytes_mut())?;
            let st = match cq_from_resp(u.fd(), &resp) {
                Ok(st) => st,
                Err(e) => {
                    let _ = cmd::destroy_cq(&u, cq.cast());
                    return Err(e);
                }
            };
            if extended {
                set_cq_ex_ops::<H>(&mut *cq, (*attr).wc_flags, st.elem_size());
            }
            Ok(ProviderCq::Rxe(st))
        }
    }

    /// rdma-core's `rxe_create_qp` / `rxe_create_qp_ex`: the extended admission check (`check_qp_init_attr`) and
    /// `wr_*` builders, CREATE_QP with `rxe_create_qp_resp`, both rings mapped (only the SQ with an SRQ) with the
    /// capabilities the kernel granted.
    unsafe fn create_qp(
        &self,
        ctx: *mut ibv_context,
        qp: *mut ibv_qp_ex,
        attr: *mut ibv_qp_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderQp> {
        // SAFETY: Provider contract.
        unsafe {
            let qp_type = ffi::enum_raw(addr_of!((*attr).qp_type));
            if extended {
                let a = &*attr;
                check_qp_init_attr(a.comp_mask, a.create_flags, qp_type, a.send_ops_flags)?;
                if a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0 {
                    set_qp_send_ops::<H>(&mut *qp, a.send_ops_flags);
                }
            }
            let u = fd_of(ctx);
            let mut resp = rxe_create_qp_resp::zeroed();
            cmd::create_qp(&u, ctx, qp.cast(), attr, &[], resp.as_bytes_mut())?;
            let a = &*attr;
            let caps = QpCaps {
                max_send_sge: a.cap.max_send_sge,
                max_inline_data: a.cap.max_inline_data,
                max_recv_sge: a.cap.max_recv_sge,
            };
            match qp_from_resp(u.fd(), &resp, caps, !a.srq.is_null(), qp_type) {
                Ok(st) => Ok(ProviderQp::Rxe(st)),
                Err(e) => {
                    let _ = cmd::destroy_qp(&u, qp.cast());
                    Err(e)
                }
            }
        }
    }

    /// rdma-core's `rxe_create_srq` / `rxe_create_srq_ex`: CREATE_SRQ with `rxe_create_srq_resp`, the ring mapped
    /// with the granted `max_sge`.
    unsafe fn create_srq(
        &self,
        ctx: *mut ibv_context,
        srq: *mut ibv_srq,
        attr: *mut ibv_srq_init_attr_ex,
        extended: bool,
    ) -> Result<ProviderSrq> {
        // SAFETY: Provider contract.
        unsafe {
            let u = fd_of(ctx);
            let mut resp = rxe_create_srq_resp::zeroed();
            cmd::create_srq(&u, ctx, srq, attr, extended, &[], resp.as_bytes_mut())?;
            match srq_from_resp(u.fd(), &resp, (*attr).attr.max_sge) {
                Ok(st) => Ok(ProviderSrq::Rxe(st)),
                Err(e) => {
                    let _ = cmd::destroy_srq(&u, srq);
                    Err(e)
                }
            }
        }
    }

    unsafe fn dealloc_mw(&self, mw: *mut ibv_mw) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::dealloc_mw(&fd_of((*mw).context), mw) }
    }

    unsafe fn dealloc_pd(&self, pd: *mut ibv_pd) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::dealloc_pd(&fd_of((*pd).context), pd) }
    }

    unsafe fn dereg_mr(&self, mr: *mut ibv_mr) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::dereg_mr(&fd_of((*mr).context), mr) }
    }

    unsafe fn destroy_ah(&self, ah: *mut ibv_ah) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::destroy_ah(&fd_of((*ah).context), ah) }
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

    unsafe fn detach_mcast(&self, qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::detach_mcast(&fd_of((*qp).context), qp, gid, lid) }
    }

    unsafe fn modify_qp(&self, qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::modify_qp(&fd_of((*qp).context), qp, attr, attr_mask) }
    }

    /// rdma-core's `rxe_modify_srq`: MODIFY_SRQ with `rxe_modify_srq_cmd.mmap_info_addr` pointing at an `mminfo`
    /// the kernel fills; a resize (`IBV_SRQ_MAX_WR`) then re-maps the ring, holding the SRQ lock throughout.
    unsafe fn modify_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr, attr_mask: c_int) -> Result<()> {
        // SAFETY: Provider contract: a live SRQ of this provider.
        let st = unsafe { H::srq(srq) }.ok_or(Errno::EIO)?;
        // SAFETY: Provider contract. The kernel writes the mminfo through the exposed address while the command
        // runs; it is read back (volatile) only after the command returned.
        unsafe {
            let u = fd_of((*srq).context);
            let mut mi = mminfo::zeroed();
            let mi_ptr = &raw mut mi;
            let mut drv = rxe_modify_srq_cmd::zeroed();
            drv.mmap_info_addr = mi_ptr.expose_provenance() as u64;
            let run = || -> Result<mminfo> {
                cmd::modify_srq(&u, srq, attr, attr_mask, drv.as_bytes())?;
                Ok(mi_ptr.read_volatile())
            };
            if attr_mask & IBV_SRQ_MAX_WR != 0 {
                st.resize(u.fd(), run)
            } else {
                run().map(|_| ())
            }
        }
    }

    /// rdma-core's `rxe_query_device`: the generic query, then `fw_ver` printed as `major.minor.sub_minor`.
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

    unsafe fn query_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Result<()> {
        // SAFETY: Provider contract.
        unsafe { cmd::query_srq(&fd_of((*srq).context), srq, attr) }
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
        unsafe { cmd::reg_mr(&fd_of((*pd).context), pd, mr, addr, length, hca_va, access, &[], &mut []) }
    }

    /// rdma-core's `rxe_resize_cq`: RESIZE_CQ with `rxe_resize_cq_resp` under the CQ lock, then the new ring
    /// mapped in place of the old.
    unsafe fn resize_cq(&self, cq: *mut ibv_cq, cqe: c_int) -> Result<()> {
        // SAFETY: Provider contract: a live CQ of this provider.
        let st = unsafe { H::cq(cq) }.ok_or(Errno::EIO)?;
        // SAFETY: Provider contract.
        unsafe {
            let u = fd_of((*cq).context);
            st.resize(u.fd(), || {
                let mut resp = rxe_resize_cq_resp::zeroed();
                cmd::resize_cq(&u, cq, cqe, &[], resp.as_bytes_mut())?;
                Ok(resp.mi)
            })
        }
    }
}
