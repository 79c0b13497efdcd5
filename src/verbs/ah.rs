//! Address handles (`ibv_create_ah(3)`, `ibv_destroy_ah(3)`, `ibv_init_ah_from_wc(3)`,
//! `ibv_create_ah_from_wc(3)`) and RoCE L2 resolution (`ibv_resolve_eth_l2_from_gid`).
//!
//! On RoCE (Soft-RoCE) an address must carry a GRH (`is_global = 1`, `grh.dgid`, `grh.sgid_index`); the kernel
//! resolves the destination MAC itself when it creates the AH.
#![allow(unsafe_code)]

use crate::object::{registry, Kind};
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::c_int;
use std::mem::MaybeUninit;

/// Whether `rate` is a value of `enum ibv_rate` (`IBV_RATE_MAX` 0, then 2 to `IBV_RATE_1200_GBPS` 24; 1 is none).
/// rdma-core passes any byte to the kernel, which stores it unchecked; we refuse the others with `EINVAL`.
pub(crate) fn valid_static_rate(rate: u8) -> bool {
    rate == IBV_RATE_MAX || (2..=IBV_RATE_1200_GBPS).contains(&rate)
}

/// `ibv_create_ah(3)`: creates an address handle for UD sends on `pd` from `attr`.
///
/// Returns NULL with `errno` set on failure: `EINVAL` for an invalid PD or NULL `attr`, a `static_rate` that is not
/// an `enum ibv_rate` (rdma-core lets the kernel store it), a bad port or SGID index,
/// no GRH on a RoCE port (the kernel's); `ENETUNREACH`/`EHOSTUNREACH` when the kernel cannot resolve the
/// destination; `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah {
    ffi::boundary("ibv_create_ah", || -> Result<*mut ibv_ah> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        let attr = ffi::nonnull(attr)?.as_ptr();
        // SAFETY: the caller's attributes (a plain byte).
        let rate = unsafe { (*attr).static_rate };
        if !valid_static_rate(rate) {
            log::debug!("ibv_create_ah: static_rate {rate} is not an enum ibv_rate: EINVAL");
            return Err(Errno::EINVAL);
        }
        // SAFETY: the objects were checked live and of this context, the attribute pointer non-NULL.
        let ah = unsafe { ctx.device.driver.create_ah(ctx, pd, attr) }?;
        registry::insert(ah, Kind::Ah);
        Ok(ah)
    })
    .or_null_errno()
}

/// `ibv_destroy_ah(3)`: destroys an address handle.
///
/// Returns 0, or an errno value: `EINVAL` for NULL, `ENOENT` for a pointer that is not a live AH of this
/// library (what the kernel answers rdma-core); the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_ah(ah: *mut ibv_ah) -> c_int {
    ffi::boundary("ibv_destroy_ah", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (ah, ctx) =
            unsafe { super::object_dying(ah, Kind::Ah) }.map_err(|e| super::unknown_handle(ah, e, Errno::ENOENT))?;
        registry::destroy_begun(ah, Kind::Ah, || {
            // SAFETY: checked live and of this context.
            unsafe { ctx.device.driver.destroy_ah(ctx, ah) }
        })
    })
    .ret_errno()
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_init_ah_from_wc: rdma-core's GRH parsing, for RoCE v1 (an IPv6-like GRH) and v2 (an IPv4 header in the last
// 20 bytes of the 40-byte GRH area, or an IPv6 header).
// ---------------------------------------------------------------------------------------------------------------

/// `IPPROTO_UDP`: a RoCE v2 GRH's next header.
const NEXT_HDR_UDP: u8 = 17;
/// `IB_NEXT_HDR`: an IB / RoCE v1 GRH's next header.
const NEXT_HDR_IB: u8 = 0x1b;

/// The 20-byte IPv4 header RoCE v2 puts at byte 20 of the GRH area.
fn ip4_header(grh: &[u8; 40]) -> &[u8] {
    &grh[20..40]
}

/// rdma-core's `ipv4_calc_hdr_csum`: the ones' complement of the (once-folded) sum of the header's 10 16-bit
/// words with the checksum field zeroed.
fn ipv4_header_csum(h: &[u8]) -> u16 {
    let mut sum = 0u32;
    for i in 0..10 {
        let w = if i == 5 { 0 } else { u16::from_ne_bytes([h[2 * i], h[2 * i + 1]]) };
        sum += w as u32;
    }
    sum = (sum & 0xffff) + (sum >> 16);
    !(sum as u16)
}

/// rdma-core's `get_grh_header_version`: 4 or 6, or `EPROTONOSUPPORT`.
fn grh_version(grh: &[u8; 40]) -> Result<u8> {
    let vtf = u32::from_be_bytes(grh[0..4].try_into().expect("4 bytes"));
    let ip4 = ip4_header(grh);
    let (ip4_version, ip4_ihl) = (ip4[0] >> 4, ip4[0] & 0xf);
    if (vtf >> 28) & 0xf != 6 {
        return if ip4_version == 4 { Ok(4) } else { Err(Errno(libc::EPROTONOSUPPORT)) };
    }
    if ip4_ihl != 5 {
        return Ok(6);
    }
    let check = u16::from_ne_bytes([ip4[10], ip4[11]]);
    Ok(if check == ipv4_header_csum(ip4) { 4 } else { 6 })
}

/// An IPv4 address (network order bytes) as an IPv4-mapped GID.
fn v4_mapped(a: [u8; 4]) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[10] = 0xff;
    g[11] = 0xff;
    g[12..].copy_from_slice(&a);
    g
}

/// rdma-core's `ibv_query_gid_type`: true for RoCE v2, false for IB / RoCE v1 (and empty entries).
fn gid_is_roce_v2(ctx: *mut ibv_context, port: u8, index: c_int) -> Result<bool> {
    let mut t = 0u32;
    // SAFETY: a local out value.
    match unsafe { super::context::query_gid_type(ctx, port, index as u32, &mut t) } {
        0 => Ok(t == 1),
        _ => Err(Errno::last()),
    }
}

/// rdma-core's `ibv_find_gid_index`: the first index of `port`'s GID table holding `gid` of the given type;
/// the query's error (`EINVAL` past the end of the table) when there is none.
fn find_gid_index(ctx: *mut ibv_context, port: u8, gid: &[u8; 16], roce_v2: bool) -> Result<u8> {
    for i in 0..c_int::MAX {
        let mut g = ibv_gid { raw: [0; 16] };
        // SAFETY: a local GID.
        if unsafe { super::context::ibv_query_gid(ctx, port, i, &mut g) } != 0 {
            return Err(Errno::last());
        }
        // SAFETY: a GID is 16 plain bytes.
        if unsafe { &g.raw } == gid && gid_is_roce_v2(ctx, port, i)? == roce_v2 {
            return Ok(i as u8);
        }
    }
    Err(Errno::EINVAL)
}

/// The body of `ibv_init_ah_from_wc(3)`: fills `ah_attr` (zeroed first).
///
/// # Safety
/// `wc` readable, `grh` readable for 40 bytes when not NULL, `ah_attr` writable.
unsafe fn init_ah_from_wc(
    ctx: *mut ibv_context,
    port_num: u8,
    wc: *const ibv_wc,
    grh: *const ibv_grh,
    ah_attr: *mut ibv_ah_attr,
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let w = &*wc;
        let has_grh = w.wc_flags & IBV_WC_GRH != 0;
        if has_grh && grh.is_null() {
            return Err(Errno::EINVAL);
        }
        let g: Option<[u8; 40]> = (!grh.is_null()).then(|| grh.cast::<[u8; 40]>().read_unaligned());
        let mut a = std::mem::zeroed::<ibv_ah_attr>();
        if let Some(g) = &g {
            let vtf = u32::from_be_bytes(g[0..4].try_into().expect("4 bytes"));
            a.grh.flow_label = vtf & 0xfffff;
        }
        a.dlid = w.slid;
        a.sl = w.sl;
        a.src_path_bits = w.dlid_path_bits;
        a.port_num = port_num;
        if has_grh {
            let g = g.expect("checked above");
            a.is_global = 1;
            match grh_version(&g)? {
                4 => {
                    let ip4 = ip4_header(&g);
                    let saddr: [u8; 4] = ip4[12..16].try_into().expect("4 bytes");
                    let daddr: [u8; 4] = ip4[16..20].try_into().expect("4 bytes");
                    if daddr[0] & 0xf0 == 0xe0 {
                        // Multicast: not in the GID table.
                        return Err(Errno::EINVAL);
                    }
                    a.grh.sgid_index = find_gid_index(ctx, port_num, &v4_mapped(daddr), true)?;
                    a.grh.dgid.raw = v4_mapped(saddr);
                    a.grh.hop_limit = ip4[8];
                    a.grh.traffic_class = ip4[1];
                }
                _ => {
                    let sgid: [u8; 16] = g[8..24].try_into().expect("16 bytes");
                    let dgid: [u8; 16] = g[24..40].try_into().expect("16 bytes");
                    if dgid[0] == 0xff {
                        return Err(Errno::EINVAL);
                    }
                    a.grh.dgid.raw = sgid;
                    let v2 = match g[6] {
                        NEXT_HDR_UDP => true,
                        NEXT_HDR_IB => false,
                        _ => return Err(Errno(libc::EPROTONOSUPPORT)),
                    };
                    a.grh.sgid_index = find_gid_index(ctx, port_num, &dgid, v2)?;
                    let vtf = u32::from_be_bytes(g[0..4].try_into().expect("4 bytes"));
                    a.grh.hop_limit = g[7];
                    a.grh.traffic_class = ((vtf >> 20) & 0xff) as u8;
                }
            }
        }
        ah_attr.write(a);
    }
    Ok(())
}

/// `ibv_init_ah_from_wc(3)`: fills `*ah_attr` with the address that replies to the sender of the completion `wc`
/// received on `port_num`; `grh` (the first 40 bytes of the receive buffer) is read when `wc` has `IBV_WC_GRH`
/// (a RoCE v2 IPv4 header is recognised in its last 20 bytes). The source GID index is the local GID the packet
/// was sent to.
///
/// Returns 0, or -1 with `errno` set: `EINVAL` for NULL pointers, a NULL context (`EBADF`: closed or unknown), a multicast destination or
/// a destination GID not in the table; `EPROTONOSUPPORT` for a header that is neither IPv4 nor IPv6/IB.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_init_ah_from_wc(
    context: *mut ibv_context,
    port_num: u8,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    ah_attr: *mut ibv_ah_attr,
) -> c_int {
    ffi::boundary("ibv_init_ah_from_wc", || -> Result<c_int> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { crate::object::Context::from_ibv(context) }?;
        let wc = ffi::nonnull(wc)?;
        let out = ffi::nonnull(ah_attr)?;
        // SAFETY: the caller's structs.
        unsafe { init_ah_from_wc(ctx.ibv(), port_num, wc.as_ptr(), grh, out.as_ptr()) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `ibv_create_ah_from_wc(3)`: creates an address handle that replies to the sender of the completion `wc`
/// received on `port_num` (see `ibv_init_ah_from_wc(3)`).
///
/// Returns NULL with `errno` set on failure (as `ibv_init_ah_from_wc(3)` and `ibv_create_ah(3)`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_ah_from_wc(
    pd: *mut ibv_pd,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    port_num: u8,
) -> *mut ibv_ah {
    ffi::boundary("ibv_create_ah_from_wc", || -> Result<*mut ibv_ah> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        let wc = ffi::nonnull(wc)?;
        let mut a = std::mem::MaybeUninit::<ibv_ah_attr>::zeroed();
        // SAFETY: the caller's structs and our local.
        unsafe {
            init_ah_from_wc(ctx.ibv(), port_num, wc.as_ptr(), grh, a.as_mut_ptr())?;
            let ah = ibv_create_ah(pd, a.as_mut_ptr());
            if ah.is_null() {
                return Err(Errno::last());
            }
            Ok(ah)
        }
    })
    .or_null_errno()
}

/// `ibv_resolve_eth_l2_from_gid`: resolves the destination MAC (`eth_mac`, `ETHERNET_LL_SIZE` bytes) and, when
/// `vid` is not NULL, the VLAN id of the RoCE address `attr` through the kernel's neighbour table.
///
/// Plug-ins for RoCE hardware (mlx5, ...) call it when creating an AH. It queries the source GID
/// (`attr->grh.sgid_index` on `attr->port_num`), then [`crate::kernel::neigh::resolve`] asks the kernel what
/// rdma-core asks: the route to the destination by the interface owning the source address (the interface's own
/// MAC for a local route), the address the destination encodes (multicast, IPv6 link-local), or the neighbour
/// entry on that interface (resolved with a probe, waiting up to 3 s); `*vid` is the interface's VLAN id or
/// `0xffff`.
///
/// Returns 0; `ibv_query_gid(3)`'s positive errno when the source GID cannot be read; as rdma-core, a *negative*
/// errno for its own failures: `-EINVAL` (NULL pointers, a NULL context (`EBADF`: closed or unknown), no interface
/// owns the source address), `-EHOSTUNREACH` (no usable route, or the destination does not answer).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_resolve_eth_l2_from_gid(
    context: *mut ibv_context,
    attr: *mut ibv_ah_attr,
    eth_mac: *mut u8,
    vid: *mut u16,
) -> c_int {
    let r = ffi::boundary("ibv_resolve_eth_l2_from_gid", || -> Result<c_int> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { crate::object::Context::from_ibv(context) }?;
        let attr = ffi::nonnull(attr)?.as_ptr();
        let mac_out = ffi::nonnull(eth_mac)?.as_ptr();
        // SAFETY: the caller's attributes.
        let (port, sgid_index, dgid) = unsafe { ((*attr).port_num, (*attr).grh.sgid_index, (*attr).grh.dgid.raw) };
        let mut sgid = MaybeUninit::<ibv_gid>::zeroed();
        // SAFETY: a live context and our out buffer; rdma-core returns ibv_query_gid's result as is.
        let q = unsafe { super::context::ibv_query_gid(ctx.ibv(), port, c_int::from(sgid_index), sgid.as_mut_ptr()) };
        if q != 0 {
            return Ok(q);
        }
        // SAFETY: filled by ibv_query_gid.
        let sgid = unsafe { sgid.assume_init().raw };
        use crate::kernel::neigh::{resolve, GidAddr};
        match resolve(GidAddr::from_gid(&sgid), GidAddr::from_gid(&dgid)) {
            Ok(l2) => {
                // SAFETY: the caller's 6-byte buffer and optional vid.
                unsafe {
                    std::ptr::copy_nonoverlapping(l2.mac.as_ptr(), mac_out, 6);
                    if !vid.is_null() {
                        *vid = l2.vid;
                    }
                }
                Ok(0)
            }
            // rdma-core returns its own failures as negative errnos.
            Err(e) => Ok(-e.0),
        }
    });
    match r {
        Ok(v) => v,
        Err(e) => -e.0,
    }
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_create_ah, ibv_destroy_ah, ibv_init_ah_from_wc, ibv_create_ah_from_wc, ibv_resolve_eth_l2_from_gid,
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A RoCE v2 IPv4 GRH area: 20 bytes of garbage, then a real IPv4 header with a valid checksum.
    fn roce_v2_v4(saddr: [u8; 4], daddr: [u8; 4]) -> [u8; 40] {
        let mut g = [0u8; 40];
        let h = &mut g[20..40];
        h[0] = 0x45;
        h[1] = 0x02; // tos
        h[2..4].copy_from_slice(&60u16.to_be_bytes());
        h[8] = 64; // ttl
        h[9] = 17; // UDP
        h[12..16].copy_from_slice(&saddr);
        h[16..20].copy_from_slice(&daddr);
        let c = ipv4_header_csum(h);
        h[10..12].copy_from_slice(&c.to_ne_bytes());
        g
    }

    #[test]
    fn grh_versions() {
        let g = roce_v2_v4([198, 18, 0, 2], [198, 18, 0, 1]);
        assert_eq!(grh_version(&g), Ok(4));
        let mut v6 = [0u8; 40];
        v6[0] = 0x60;
        v6[6] = NEXT_HDR_UDP;
        assert_eq!(grh_version(&v6), Ok(6));
        let mut bad = [0u8; 40];
        bad[0] = 0x40;
        assert_eq!(grh_version(&bad), Err(Errno(libc::EPROTONOSUPPORT)));
        // A v6 header whose "IPv4 part" looks like an IPv4 header with a bad checksum is v6.
        let mut amb = roce_v2_v4([1, 2, 3, 4], [5, 6, 7, 8]);
        amb[0] = 0x60;
        amb[30] ^= 0xff;
        assert_eq!(grh_version(&amb), Ok(6));
    }

    #[test]
    fn mapped() {
        assert_eq!(v4_mapped([198, 18, 0, 1])[10..], [0xff, 0xff, 198, 18, 0, 1]);
    }
}
