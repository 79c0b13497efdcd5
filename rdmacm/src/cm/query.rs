//! The kernel queries that fill an id's `route` (rdma-core's `ucma_query_addr`, `_gid`, `_path`, `_route`): what
//! the kernel knows of the id after a bind, an address or route resolution, or a connection request; and the
//! service records an InfiniBand service resolution found (`ucma_query_ib_service`). Event handling (`event.rs`)
//! and the address calls (`addr.rs`) both use them; they use nothing of `cm` but the id.
#![allow(unsafe_code)] // writes into the id's C struct (`id->route`)
use crate::kernel;
use crate::state::{self, CmId};
use crate::verbs::path_rec_from_kern;
use rdma_common::abi::enums::RDMA_PS_IB;
use rdma_common::abi::ib::{ib_addr, ib_addr_u, sockaddr_ib, AF_IB};
use rdma_common::abi::rdma_cma::{rdma_addrinfo, rdma_cm_id, RAI_SA};
use rdma_common::abi::sa::{ibv_path_data, ibv_path_record, ibv_sa_path_rec};
use rdma_common::abi::verbs::ibv_gid;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_sa::ib_path_rec_data;
use std::ffi::c_int;
use std::ptr::addr_of_mut;
use std::sync::Arc;

/// `ucma_query_addr`: the id's source and destination addresses; the first time the kernel names a device, binds
/// the id to it (`verbs`, `pd`, `port_num`, `pkey`).
pub(crate) fn query_addr(id: &Arc<CmId>) -> Result<()> {
    let r = kernel::addr::query_addr(&id.channel().fd(), id.handle())?;
    // SAFETY: `__kernel_sockaddr_storage` is plain bytes; its size is 128.
    let (src, dst): (&[u8; 128], &[u8; 128]) =
        unsafe { (&*std::ptr::addr_of!(r.src_addr).cast(), &*std::ptr::addr_of!(r.dst_addr).cast()) };
    set_addr(id.c(), true, &src[..(r.src_size as usize).min(128)]);
    set_addr(id.c(), false, &dst[..(r.dst_size as usize).min(128)]);
    if id.dev().is_null() && r.node_guid != 0 && id.attach_device(r.node_guid, r.ibdev_index)? {
        id.set_port_num(r.port_num);
        set_pkey(id.c(), r.pkey);
    }
    Ok(())
}

/// `ucma_query_gid`: the source and destination GIDs (`id->route.addr.addr.ibaddr`).
pub(crate) fn query_gid(id: &Arc<CmId>) -> Result<()> {
    let r = kernel::addr::query_gid(&id.channel().fd(), id.handle())?;
    // SAFETY: as in query_addr; the addresses are `sockaddr_ib`, whose GID is bytes 8..24.
    let (src, dst): (&[u8; 128], &[u8; 128]) =
        unsafe { (&*std::ptr::addr_of!(r.src_addr).cast(), &*std::ptr::addr_of!(r.dst_addr).cast()) };
    set_gids(id.c(), src[8..24].try_into().unwrap(), dst[8..24].try_into().unwrap());
    Ok(())
}

/// `ucma_query_path`: the resolved path records, converted from the packed form.
pub(crate) fn query_path(id: &Arc<CmId>) -> Result<()> {
    let paths = kernel::addr::query_path(&id.channel().fd(), id.handle())?;
    set_paths(id.c(), paths.iter().map(convert_path))
}

/// `ucma_query_route`: addresses (as `sockaddr_in6` room), GIDs, P_Key and up to two path records; the first time
/// the kernel names a device, binds the id to it.
pub(crate) fn query_route(id: &Arc<CmId>) -> Result<()> {
    let r = kernel::addr::query_route(&id.channel().fd(), id.handle())?;
    let n = (r.num_paths as usize).min(r.ib_route.len());
    set_paths(id.c(), r.ib_route[..n].iter().map(path_rec_from_kern))?;
    set_gids(id.c(), r.ib_route[0].sgid, r.ib_route[0].dgid);
    set_pkey(id.c(), r.ib_route[0].pkey);
    set_addr(id.c(), true, state::as_bytes(&r.src_addr));
    set_addr(id.c(), false, state::as_bytes(&r.dst_addr));
    if id.dev().is_null() && r.node_guid != 0 && id.attach_device(r.node_guid, r.ibdev_index)? {
        id.set_port_num(r.port_num);
    }
    Ok(())
}

/// How many service records the first QUERY(IB_SERVICE) makes room for (rdma-core's first guess).
const FIRST_SERVICE_ROOM: usize = 6;

/// `ucma_query_ib_service`: the service records the kernel found for `id` (after RESOLVE_IB_SERVICE), as an
/// `rdma_addrinfo` list of `AF_IB` destinations (see [`service_recs_to_ai`]), once the id's addresses are read again
/// (the kernel made the first record the id's destination). Errors: `ENOENT` when the kernel holds no record,
/// `ENODATA` when it never resolved one, `ENOMEM`, the kernel's.
pub(crate) fn query_ib_service(id: &Arc<CmId>) -> Result<*mut rdma_addrinfo> {
    let mut room = FIRST_SERVICE_ROOM;
    let recs = loop {
        let (held, recs) = kernel::addr::query_ib_service(&id.channel().fd(), id.handle(), room)?;
        if held == 0 {
            return Err(Errno::ENOENT);
        }
        if held > room && room < kernel::addr::MAX_SERVICE_RECS {
            room = held;
            continue;
        }
        break recs;
    };
    query_addr(id)?;
    service_recs_to_ai(&recs)
}

/// `ucma_convert_service_recs`: one `rdma_addrinfo` per service record (`struct ib_user_service_rec` bytes), in
/// order: `RAI_SA`, family `AF_IB`, port space `RDMA_PS_IB`, the destination a `sockaddr_ib` with the record's GID,
/// P_Key and service id (both kept big-endian) and an all-ones service-id mask. Allocated with the C allocator, as
/// [`state::free_addrinfo`] frees it. Errors: `ENOMEM` (nothing left allocated).
pub(crate) fn service_recs_to_ai(recs: &[[u8; kernel::addr::SERVICE_REC_LEN]]) -> Result<*mut rdma_addrinfo> {
    let mut head: *mut rdma_addrinfo = std::ptr::null_mut();
    let mut tail: *mut rdma_addrinfo = std::ptr::null_mut();
    for r in recs {
        // SAFETY: calloc of a zeroed struct (integers and pointers: zero is valid), checked.
        let ai = unsafe { libc::calloc(1, size_of::<rdma_addrinfo>()) }.cast::<rdma_addrinfo>();
        // SAFETY: as above.
        let sib = unsafe { libc::calloc(1, size_of::<sockaddr_ib>()) }.cast::<sockaddr_ib>();
        if ai.is_null() || sib.is_null() {
            // SAFETY: ours; `head` is a list of ours (or NULL), `ai`/`sib` NULL or fresh blocks.
            unsafe {
                libc::free(ai.cast());
                libc::free(sib.cast());
                state::free_addrinfo(head);
            }
            return Err(Errno::ENOMEM);
        }
        let gid: [u8; 16] = r[8..24].try_into().unwrap();
        // SAFETY: both blocks are ours and of their types' sizes; `tail` is the last node of ours.
        unsafe {
            sib.write(sockaddr_ib {
                sib_family: AF_IB as u16,
                sib_pkey: u16::from_ne_bytes([r[24], r[25]]),
                sib_flowinfo: 0,
                sib_addr: ib_addr { ib_u: ib_addr_u { uib_addr8: gid } },
                sib_sid: u64::from_ne_bytes(r[0..8].try_into().unwrap()),
                sib_sid_mask: u64::MAX,
                sib_scope_id: 0,
            });
            (*ai).ai_flags = RAI_SA;
            (*ai).ai_family = AF_IB;
            (*ai).ai_port_space = RDMA_PS_IB as c_int;
            (*ai).ai_dst_addr = sib.cast();
            (*ai).ai_dst_len = size_of::<sockaddr_ib>() as libc::socklen_t;
            if tail.is_null() {
                head = ai;
            } else {
                (*tail).ai_next = ai;
            }
        }
        tail = ai;
    }
    Ok(head)
}

/// Copies socket address bytes into `id->route.addr.src_addr` (or `dst_addr`); the rest is left as it was, as
/// rdma-core's `memcpy` does.
pub(crate) fn set_addr(id: *mut rdma_cm_id, src: bool, bytes: &[u8]) {
    let n = bytes.len().min(size_of::<libc::sockaddr_storage>());
    // SAFETY: the public struct is valid; each address union is a sockaddr_storage (128 bytes), `n` at most that.
    unsafe {
        let p = if src {
            addr_of_mut!((*id).route.addr.src).cast::<u8>()
        } else {
            addr_of_mut!((*id).route.addr.dst).cast::<u8>()
        };
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, n);
    }
}

fn set_gids(id: *mut rdma_cm_id, sgid: [u8; 16], dgid: [u8; 16]) {
    // SAFETY: the public struct is valid.
    unsafe {
        addr_of_mut!((*id).route.addr.addr.ibaddr.sgid).write(ibv_gid { raw: sgid });
        addr_of_mut!((*id).route.addr.addr.ibaddr.dgid).write(ibv_gid { raw: dgid });
    }
}

fn set_pkey(id: *mut rdma_cm_id, pkey: u16) {
    // SAFETY: the public struct is valid.
    unsafe { addr_of_mut!((*id).route.addr.addr.ibaddr.pkey).write(pkey) }
}

/// Replaces `id->route.path_rec` with `recs` (kept when `recs` is empty, as rdma-core does). Errors: `ENOMEM`.
fn set_paths(id: *mut rdma_cm_id, recs: impl ExactSizeIterator<Item = ibv_sa_path_rec>) -> Result<()> {
    let n = recs.len();
    if n == 0 {
        return Ok(());
    }
    // SAFETY: calloc of `n` records; checked for NULL.
    let p = unsafe { libc::calloc(n, size_of::<ibv_sa_path_rec>()) }.cast::<ibv_sa_path_rec>();
    if p.is_null() {
        return Err(Errno::ENOMEM);
    }
    // SAFETY: `p` holds `n` records, written in place (no intermediate vector); the public struct is valid and
    // `path_rec` is NULL or ours.
    unsafe {
        for (i, r) in recs.take(n).enumerate() {
            p.add(i).write(r);
        }
        state::free_path_rec(id);
        addr_of_mut!((*id).route.path_rec).write(p);
        addr_of_mut!((*id).route.num_paths).write(n as c_int);
    }
    Ok(())
}

/// `ucma_convert_path`: a packed path record (with its `IB_PATH_*` flags) as `struct ibv_sa_path_rec`.
pub(crate) fn convert_path(d: &ib_path_rec_data) -> ibv_sa_path_rec {
    let mut raw = [0u8; size_of::<ibv_path_record>()];
    for (i, w) in d.path_rec.iter().enumerate() {
        raw[i * 4..i * 4 + 4].copy_from_slice(&w.to_ne_bytes());
    }
    // SAFETY: `ibv_path_record` is 64 bytes of integers (and a GID union of bytes): any bytes are a valid value.
    let p: ibv_path_record = unsafe { std::ptr::read_unaligned(raw.as_ptr().cast()) };
    let data = ibv_path_data { flags: d.flags, reserved: 0, path: p };
    let fl_hop = u32::from_be(data.path.flowlabel_hoplimit);
    ibv_sa_path_rec {
        dgid: data.path.dgid,
        sgid: data.path.sgid,
        dlid: data.path.dlid,
        slid: data.path.slid,
        raw_traffic: 0,
        flow_label: (fl_hop >> 8).to_be(),
        hop_limit: fl_hop as u8,
        traffic_class: data.path.tclass,
        reversible: c_int::from(data.path.reversible_numpath >> 7),
        numb_path: 1,
        pkey: data.path.pkey,
        sl: (u16::from_be(data.path.qosclass_sl) & 0xf) as u8,
        mtu_selector: 2,
        mtu: data.path.mtu & 0x1f,
        rate_selector: 2,
        rate: data.path.rate & 0x1f,
        packet_life_time_selector: 2,
        packet_life_time: data.path.packetlifetime & 0x1f,
        preference: data.flags as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_records() {
        let mut recs = [[0u8; kernel::addr::SERVICE_REC_LEN]; 2];
        recs[0][0..8].copy_from_slice(&0x1000_0000_0000_0001u64.to_be_bytes());
        recs[0][8..24].copy_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        recs[0][24..26].copy_from_slice(&0x8001u16.to_be_bytes());
        recs[1][0..8].copy_from_slice(&0x22u64.to_be_bytes());
        let ai = service_recs_to_ai(&recs).unwrap();
        // SAFETY: a list of two nodes just built, each with an AF_IB destination.
        unsafe {
            assert_eq!(((*ai).ai_flags, (*ai).ai_family, (*ai).ai_port_space), (RAI_SA, AF_IB, RDMA_PS_IB as c_int));
            assert_eq!((*ai).ai_dst_len, 48);
            assert!((*ai).ai_src_addr.is_null() && (*ai).ai_qp_type == 0);
            let sib = &*(*ai).ai_dst_addr.cast::<sockaddr_ib>();
            assert_eq!(sib.sib_family, AF_IB as u16);
            assert_eq!(u64::from_be(sib.sib_sid), 0x1000_0000_0000_0001);
            assert_eq!(sib.sib_sid_mask, u64::MAX);
            assert_eq!(u16::from_be(sib.sib_pkey), 0x8001);
            assert_eq!(sib.sib_addr.ib_u.uib_addr8[15], 8);
            let next = (*ai).ai_next;
            assert_eq!(u64::from_be((*(*next).ai_dst_addr.cast::<sockaddr_ib>()).sib_sid), 0x22);
            assert!((*next).ai_next.is_null());
            state::free_addrinfo(ai);
        }
        assert!(service_recs_to_ai(&[]).unwrap().is_null());
    }

    #[test]
    fn packed_path_conversion() {
        // A RoCE v2 path as the kernel packs it (ib_sa_pack_path): big-endian fields at the wire offsets.
        let mut raw = [0u8; 64];
        raw[0..8].copy_from_slice(&0x0000_0000_0106_1c1eu64.to_be_bytes()); // service id
        raw[8..24].copy_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]); // dgid
        raw[24..40].copy_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9]); // sgid
        raw[40..42].copy_from_slice(&0x0011u16.to_be_bytes()); // dlid
        raw[42..44].copy_from_slice(&0x0022u16.to_be_bytes()); // slid
        raw[44..48].copy_from_slice(&((0x12345u32 << 8) | 64).to_be_bytes()); // flow label, hop limit
        raw[48] = 0x20; // tclass
        raw[49] = 0x81; // reversible, 1 path
        raw[50..52].copy_from_slice(&0xffffu16.to_be_bytes()); // pkey
        raw[52..54].copy_from_slice(&0x0003u16.to_be_bytes()); // qos class 0, sl 3
        raw[54] = 0x80 | 3; // mtu selector 2, mtu 1024
        raw[55] = 0x80 | 7; // rate
        raw[56] = 0x80 | 18; // packet lifetime
        raw[57] = 0;
        let mut d = ib_path_rec_data { flags: 0x13, reserved: 0, path_rec: [0; 16] };
        for i in 0..16 {
            d.path_rec[i] = u32::from_ne_bytes(raw[i * 4..i * 4 + 4].try_into().unwrap());
        }
        let r = convert_path(&d);
        // SAFETY: gids are plain bytes.
        unsafe {
            assert_eq!(r.dgid.raw[8..], [1, 2, 3, 4, 5, 6, 7, 8]);
            assert_eq!(r.sgid.raw[8..], [9; 8]);
        }
        assert_eq!((u16::from_be(r.dlid), u16::from_be(r.slid)), (0x11, 0x22));
        assert_eq!((u32::from_be(r.flow_label), r.hop_limit, r.traffic_class), (0x12345, 64, 0x20));
        assert_eq!((r.reversible, r.numb_path, r.pkey, r.sl), (1, 1, 0xffff, 3));
        assert_eq!((r.mtu_selector, r.mtu, r.rate_selector, r.rate), (2, 3, 2, 7));
        assert_eq!((r.packet_life_time_selector, r.packet_life_time, r.preference), (2, 18, 0x13));
    }
}
