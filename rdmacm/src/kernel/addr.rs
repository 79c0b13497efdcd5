//! Addresses and routes: BIND_IP, BIND, RESOLVE_IP, RESOLVE_ADDR, RESOLVE_ROUTE, QUERY_ROUTE, QUERY (ADDR, PATH,
//! GID, IB_SERVICE), RESOLVE_IB_SERVICE.
//!
//! Socket addresses travel as their bytes (`sockaddr_in`, `sockaddr_in6` or `sockaddr_ib`, the length the family
//! implies). The `_IP` commands (ABI 4's originals) hold a `sockaddr_in6`, so they take IPv4/IPv6 only; BIND,
//! RESOLVE_ADDR and QUERY hold a `sockaddr_storage` and take `AF_IB` too (rdma-core uses them when the kernel
//! supports `AF_IB`).

use super::{
    put, put_addr, write_in, write_io, write_resp, UcmFd, RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE,
    RDMA_USER_CM_IB_SERVICE_FLAG_ID, RDMA_USER_CM_IB_SERVICE_FLAG_NAME, RDMA_USER_CM_IB_SERVICE_NAME_SIZE,
    RDMA_USER_CM_QUERY_IB_SERVICE,
};
use rdma_common::errno::Result;
use rdma_common::uapi::ib_user_sa::ib_path_rec_data;
use rdma_common::uapi::rdma_user_cm::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::mem::{offset_of, size_of};

/// The most path records QUERY(PATH) returns here (rdma-core asks for 6: primary, alternate, in each direction).
pub const MAX_PATHS: usize = 6;

/// BIND_IP: binds kernel id `id` to IPv4/IPv6 address `addr`. Errors: `EADDRINUSE`, `EADDRNOTAVAIL`, `EINVAL`
/// (also for an address longer than a `sockaddr_in6`).
pub fn bind_ip<F: UcmFd + ?Sized>(fd: &F, id: u32, addr: &[u8]) -> Result<()> {
    let mut cmd = rdma_ucm_bind_ip::zeroed();
    cmd.id = id;
    let off = offset_of!(rdma_ucm_bind_ip, addr);
    put_addr(&mut cmd.as_bytes_mut()[off..off + size_of::<libc::sockaddr_in6>()], addr)?;
    write_in(fd, RDMA_USER_CM_CMD_BIND_IP, cmd)
}

/// BIND: binds kernel id `id` to `addr` of any supported family (`AF_IB` included). Errors as [`bind_ip`].
pub fn bind<F: UcmFd + ?Sized>(fd: &F, id: u32, addr: &[u8]) -> Result<()> {
    let mut b = [0u8; size_of::<rdma_ucm_bind>()];
    put(&mut b, offset_of!(rdma_ucm_bind, id), id.to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_bind, addr_size), (addr.len() as u16).to_ne_bytes());
    let off = offset_of!(rdma_ucm_bind, addr);
    put_addr(&mut b[off..], addr)?;
    write_in(fd, RDMA_USER_CM_CMD_BIND, b)
}

/// RESOLVE_IP: starts resolving IPv4/IPv6 `dst` (from `src` when not empty) within `timeout_ms`; completion is an
/// `ADDR_RESOLVED` / `ADDR_ERROR` event. Errors: `EINVAL`, `EADDRNOTAVAIL`, ...
pub fn resolve_ip<F: UcmFd + ?Sized>(fd: &F, id: u32, src: &[u8], dst: &[u8], timeout_ms: u32) -> Result<()> {
    let mut cmd = rdma_ucm_resolve_ip::zeroed();
    cmd.id = id;
    cmd.timeout_ms = timeout_ms;
    let s = offset_of!(rdma_ucm_resolve_ip, src_addr);
    let d = offset_of!(rdma_ucm_resolve_ip, dst_addr);
    let n = size_of::<libc::sockaddr_in6>();
    put_addr(&mut cmd.as_bytes_mut()[s..s + n], src)?;
    put_addr(&mut cmd.as_bytes_mut()[d..d + n], dst)?;
    write_in(fd, RDMA_USER_CM_CMD_RESOLVE_IP, cmd)
}

/// RESOLVE_ADDR: as [`resolve_ip`] for any family, with explicit address sizes.
pub fn resolve_addr<F: UcmFd + ?Sized>(fd: &F, id: u32, src: &[u8], dst: &[u8], timeout_ms: u32) -> Result<()> {
    let mut b = [0u8; size_of::<rdma_ucm_resolve_addr>()];
    put(&mut b, offset_of!(rdma_ucm_resolve_addr, id), id.to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_resolve_addr, timeout_ms), timeout_ms.to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_resolve_addr, src_size), (src.len() as u16).to_ne_bytes());
    put(&mut b, offset_of!(rdma_ucm_resolve_addr, dst_size), (dst.len() as u16).to_ne_bytes());
    let s = offset_of!(rdma_ucm_resolve_addr, src_addr);
    let d = offset_of!(rdma_ucm_resolve_addr, dst_addr);
    put_addr(&mut b[s..d], src)?;
    put_addr(&mut b[d..], dst)?;
    write_in(fd, RDMA_USER_CM_CMD_RESOLVE_ADDR, b)
}

/// RESOLVE_ROUTE: starts resolving the route to the resolved destination within `timeout_ms`; completion is a
/// `ROUTE_RESOLVED` / `ROUTE_ERROR` event.
pub fn resolve_route<F: UcmFd + ?Sized>(fd: &F, id: u32, timeout_ms: u32) -> Result<()> {
    let cmd = rdma_ucm_resolve_route { id, timeout_ms };
    write_in(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, cmd)
}

/// QUERY_ROUTE: the id's addresses (as `sockaddr_in6` room), device (`node_guid`, `ibdev_index`, `port_num`) and
/// up to two path records. `ibdev_index` reads `u32::MAX` (rdma-core's `UCMA_INVALID_IB_INDEX`) from kernels that
/// do not report it.
pub fn query_route<F: UcmFd + ?Sized>(fd: &F, id: u32) -> Result<rdma_ucm_query_route_resp> {
    let cmd = rdma_ucm_query { response: 0, id, option: 0 };
    write_resp(fd, RDMA_USER_CM_CMD_QUERY_ROUTE, cmd, |out| {
        put(out, offset_of!(rdma_ucm_query_route_resp, ibdev_index), u32::MAX.to_ne_bytes())
    })
}

fn query<F: UcmFd + ?Sized>(fd: &F, id: u32, option: u32, out: &mut [u8]) -> Result<()> {
    let cmd = rdma_ucm_query { response: 0, id, option };
    write_io(fd, RDMA_USER_CM_CMD_QUERY, cmd, out)
}

/// QUERY(ADDR): the id's source and destination addresses (any family, with sizes), device and P_Key.
/// `ibdev_index` as in [`query_route`].
pub fn query_addr<F: UcmFd + ?Sized>(fd: &F, id: u32) -> Result<rdma_ucm_query_addr_resp> {
    let cmd = rdma_ucm_query { response: 0, id, option: RDMA_USER_CM_QUERY_ADDR };
    write_resp(fd, RDMA_USER_CM_CMD_QUERY, cmd, |out| {
        put(out, offset_of!(rdma_ucm_query_addr_resp, ibdev_index), u32::MAX.to_ne_bytes())
    })
}

/// QUERY(GID): the source and destination GIDs, as `sockaddr_ib` in the address fields of the ADDR response.
pub fn query_gid<F: UcmFd + ?Sized>(fd: &F, id: u32) -> Result<rdma_ucm_query_addr_resp> {
    let cmd = rdma_ucm_query { response: 0, id, option: RDMA_USER_CM_QUERY_GID };
    write_resp(fd, RDMA_USER_CM_CMD_QUERY, cmd, |_| {})
}

/// Path records as QUERY(PATH) returns them: at most [`MAX_PATHS`], held in place (no heap allocation: a route
/// resolution runs this once per connection). Reads as a slice of the records the kernel gave.
pub struct Paths {
    n: usize,
    recs: [ib_path_rec_data; MAX_PATHS],
}

impl std::ops::Deref for Paths {
    type Target = [ib_path_rec_data];
    fn deref(&self) -> &[ib_path_rec_data] {
        &self.recs[..self.n]
    }
}

/// QUERY(PATH): the resolved path records (at most [`MAX_PATHS`]), packed (`struct ibv_path_record` layout) with
/// their `IB_PATH_*` flags.
pub fn query_path<F: UcmFd + ?Sized>(fd: &F, id: u32) -> Result<Paths> {
    const HDR: usize = 8; // num_paths, reserved
    const ONE: usize = size_of::<ib_path_rec_data>();
    let mut out = [0u8; HDR + ONE * MAX_PATHS];
    query(fd, id, RDMA_USER_CM_QUERY_PATH, &mut out)?;
    let n = (u32::from_ne_bytes(out[0..4].try_into().unwrap()) as usize).min(MAX_PATHS);
    let mut p = Paths { n, recs: [ib_path_rec_data::zeroed(); MAX_PATHS] };
    for (i, r) in p.recs[..n].iter_mut().enumerate() {
        *r = ib_path_rec_data::from_bytes(&out[HDR + i * ONE..HDR + (i + 1) * ONE]);
    }
    Ok(p)
}

/// What RESOLVE_IB_SERVICE looks for: a service id or a service name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IbService {
    /// A 64-bit service id.
    Id(u64),
    /// A name, at most `RDMA_USER_CM_IB_SERVICE_NAME_SIZE - 1` bytes (longer ones are cut, as rdma-core's `strncpy`).
    Name(Vec<u8>),
}

/// RESOLVE_IB_SERVICE: starts a subnet-administrator query for the service records of `svc` from the port kernel id
/// `id` is bound to; completion is an `RDMA_CM_EVENT_ADDRINFO_RESOLVED` / `_ADDRINFO_ERROR` event. The payload is
/// rdma-core 65's: `id`, 4 bytes of padding, then `struct rdma_ucm_ib_service` (`service_id`, 64 bytes of name,
/// `flags`, `reserved`). Errors: `EINVAL` for an id not bound to a device, and on kernels without the command (6.1,
/// 6.12); `EOPNOTSUPP` for a port without an SA (RoCE, iWARP).
pub fn resolve_ib_service<F: UcmFd + ?Sized>(fd: &F, id: u32, svc: &IbService) -> Result<()> {
    let mut b = [0u8; 16 + RDMA_USER_CM_IB_SERVICE_NAME_SIZE + 8];
    b[0..4].copy_from_slice(&id.to_ne_bytes());
    let flags = match svc {
        IbService::Id(sid) => {
            b[8..16].copy_from_slice(&sid.to_ne_bytes());
            RDMA_USER_CM_IB_SERVICE_FLAG_ID
        }
        IbService::Name(name) => {
            let n = name.len().min(RDMA_USER_CM_IB_SERVICE_NAME_SIZE - 1);
            b[16..16 + n].copy_from_slice(&name[..n]);
            RDMA_USER_CM_IB_SERVICE_FLAG_NAME
        }
    };
    let f = 16 + RDMA_USER_CM_IB_SERVICE_NAME_SIZE;
    b[f..f + 4].copy_from_slice(&flags.to_ne_bytes());
    write_in(fd, RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE, b)
}

/// Bytes of one `struct ib_user_service_rec` (rdma-core's `ucma_user_service_rec`): `id` (big-endian) at 0, `gid` at
/// 8, `pkey` (big-endian) at 24, `lease` at 28, `key` at 32, `name` at 48, the data fields from 112.
pub const SERVICE_REC_LEN: usize = 176;

/// The most records one QUERY(IB_SERVICE) can return (the response length is a 16-bit `out`).
pub const MAX_SERVICE_RECS: usize = (u16::MAX as usize - 8) / SERVICE_REC_LEN;

/// QUERY(IB_SERVICE): the service records RESOLVE_IB_SERVICE found, with room for `room` of them (at most
/// [`MAX_SERVICE_RECS`]). Returns how many the kernel holds and the records returned (at most `room`; the caller asks
/// again with more room when the first number is larger). Errors: `ENODATA` when the id has none, `EINVAL` on
/// kernels without the option.
pub fn query_ib_service<F: UcmFd + ?Sized>(
    fd: &F,
    id: u32,
    room: usize,
) -> Result<(usize, Vec<[u8; SERVICE_REC_LEN]>)> {
    let room = room.min(MAX_SERVICE_RECS);
    let mut out = vec![0u8; 8 + room * SERVICE_REC_LEN];
    query(fd, id, RDMA_USER_CM_QUERY_IB_SERVICE, &mut out)?;
    let total = u32::from_ne_bytes(out[0..4].try_into().unwrap()) as usize;
    let recs = out[8..].chunks_exact(SERVICE_REC_LEN).take(total.min(room)).map(|c| c.try_into().unwrap()).collect();
    Ok((total, recs))
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;

    fn sin(a: [u8; 4], port: u16) -> Vec<u8> {
        let mut v = vec![0u8; 16];
        v[0..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        v[2..4].copy_from_slice(&port.to_be_bytes());
        v[4..8].copy_from_slice(&a);
        v
    }

    #[test]
    fn bind_ip_and_bind_bytes() {
        let f = Fake::new();
        let a = sin([198, 18, 0, 1], 7174);
        f.reply(Reply::none());
        bind_ip(&f, 3, &a).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 48);
        assert_eq!(&w[0..8], &[2, 0, 0, 0, 40, 0, 0, 0]);
        assert_eq!(&w[8..16], &[0; 8]); // response: none
        assert_eq!(&w[16..32], &a[..]);
        assert_eq!(&w[32..44], &[0; 12]); // rest of the sockaddr_in6 room
        assert_eq!(&w[44..48], &[3, 0, 0, 0]);

        f.reply(Reply::none());
        bind(&f, 3, &a).unwrap();
        let w = f.write(1);
        assert_eq!(w.len(), 144);
        assert_eq!(&w[0..8], &[20, 0, 0, 0, 136, 0, 0, 0]);
        assert_eq!(&w[8..16], &[3, 0, 0, 0, 16, 0, 0, 0]);
        assert_eq!(&w[16..32], &a[..]);
        assert!(w[32..].iter().all(|&b| b == 0));

        assert!(bind_ip(&f, 3, &[0; 29]).is_err()); // does not fit a sockaddr_in6
        assert_eq!(f.count(), 2);
    }

    #[test]
    fn resolve_bytes() {
        let f = Fake::new();
        let s = sin([198, 18, 0, 2], 0);
        let d = sin([198, 18, 0, 1], 7174);
        f.reply(Reply::none());
        resolve_ip(&f, 5, &s, &d, 2000).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 72);
        assert_eq!(&w[0..8], &[3, 0, 0, 0, 64, 0, 0, 0]);
        assert_eq!(&w[8..24], &s[..]);
        assert_eq!(&w[36..52], &d[..]);
        assert_eq!(&w[64..72], &[5, 0, 0, 0, 0xd0, 0x07, 0, 0]);

        f.reply(Reply::none());
        resolve_addr(&f, 5, &[], &d, 2000).unwrap();
        let w = f.write(1);
        assert_eq!(w.len(), 280);
        assert_eq!(&w[0..8], &[21, 0, 0, 0, 16, 1, 0, 0]);
        assert_eq!(&w[8..24], &[5, 0, 0, 0, 0xd0, 0x07, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0]);
        assert!(w[24..152].iter().all(|&b| b == 0));
        assert_eq!(&w[152..168], &d[..]);

        f.reply(Reply::none());
        resolve_route(&f, 5, 1000).unwrap();
        assert_eq!(f.write(2), [4, 0, 0, 0, 8, 0, 0, 0, 5, 0, 0, 0, 0xe8, 0x03, 0, 0]);
    }

    #[test]
    fn queries() {
        let f = Fake::new();
        let mut r = rdma_ucm_query_route_resp::zeroed();
        r.node_guid = 0x1234;
        r.num_paths = 1;
        r.port_num = 1;
        r.ibdev_index = 2;
        r.ib_route[0].pkey = 0xffff;
        f.reply(Reply::ok(r.as_bytes()));
        let got = query_route(&f, 8).unwrap();
        assert_eq!((got.node_guid, got.num_paths, got.port_num, got.ibdev_index), (0x1234, 1, 1, 2));
        assert_eq!(got.ib_route[0].pkey, 0xffff);
        let w = f.write(0);
        assert_eq!(&w[0..8], &[5, 0, 0, 0, 16, 0, 208, 0]);
        assert_eq!(&w[16..24], &[8, 0, 0, 0, 0, 0, 0, 0]);

        // An old kernel writing only the first 200 bytes leaves ibdev_index at "invalid".
        f.reply(Reply::ok(&r.as_bytes()[..200]));
        assert_eq!(query_route(&f, 8).unwrap().ibdev_index, u32::MAX);

        f.reply(Reply::ok(&[1, 0, 0, 0, 0, 0, 0, 0, 1]));
        let a = query_addr(&f, 8).unwrap();
        assert_eq!((a.node_guid, a.port_num, a.ibdev_index), (1, 1, u32::MAX));
        let w = f.write(2);
        assert_eq!(&w[0..8], &[19, 0, 0, 0, 16, 0, 0x18, 1]); // out 280
        assert_eq!(&w[16..24], &[8, 0, 0, 0, 0, 0, 0, 0]); // option ADDR

        f.reply(Reply::none());
        query_gid(&f, 8).unwrap();
        assert_eq!(&f.write(3)[16..24], &[8, 0, 0, 0, 2, 0, 0, 0]);

        let mut p = vec![0u8; 8 + 72 * 2];
        p[0] = 2;
        p[8] = 0x13; // flags of path 0
        p[80 + 8] = 0xfe; // first byte of path 1's record
        f.reply(Reply::ok(&p));
        let paths = query_path(&f, 8).unwrap();
        assert_eq!(paths.len(), 2);
        assert_eq!(paths[0].flags, 0x13);
        assert_eq!(paths[1].path_rec[0].to_ne_bytes()[0], 0xfe);
        let w = f.write(4);
        assert_eq!(&w[0..8], &[19, 0, 0, 0, 16, 0, 0xb8, 1]); // out 440
        assert_eq!(&w[16..24], &[8, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn ib_service_bytes() {
        let f = Fake::new();
        f.reply(Reply::none());
        resolve_ib_service(&f, 9, &IbService::Id(0x0102_0304_0506_0708)).unwrap();
        let w = f.write(0);
        // rdma-core 65: cmd 23, in 88, out 0; id, padding, service_id, name[64], flags, reserved.
        assert_eq!(w.len(), 96);
        assert_eq!(&w[0..8], &[23, 0, 0, 0, 88, 0, 0, 0]);
        assert_eq!(&w[8..16], &[9, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&w[16..24], &0x0102_0304_0506_0708u64.to_ne_bytes());
        assert!(w[24..88].iter().all(|&b| b == 0));
        assert_eq!(&w[88..96], &[1, 0, 0, 0, 0, 0, 0, 0]);

        f.reply(Reply::none());
        resolve_ib_service(&f, 9, &IbService::Name(vec![b'x'; 100])).unwrap();
        let w = f.write(1);
        assert_eq!(&w[16..24], &[0; 8]);
        assert!(w[24..87].iter().all(|&b| b == b'x'));
        assert_eq!(w[87], 0); // at most 63 bytes: NUL-terminated
        assert_eq!(&w[88..92], &[2, 0, 0, 0]);

        // Two records held, room for 6 asked (out 8 + 6 * 176).
        let mut r = vec![0u8; 8 + 2 * SERVICE_REC_LEN];
        r[0] = 2;
        r[8] = 0xaa;
        r[8 + SERVICE_REC_LEN + 24] = 0xbb;
        f.reply(Reply::ok(&r));
        let (n, recs) = query_ib_service(&f, 9, 6).unwrap();
        assert_eq!((n, recs.len(), recs[0][0], recs[1][24]), (2, 2, 0xaa, 0xbb));
        let w = f.write(2);
        assert_eq!(&w[0..8], &[19, 0, 0, 0, 16, 0, 0x28, 4]); // out 1064
        assert_eq!(&w[16..24], &[9, 0, 0, 0, 3, 0, 0, 0]); // option IB_SERVICE
                                                           // More held than room: only `room` returned, the count says how many to ask for.
        let mut r = vec![0u8; 8 + SERVICE_REC_LEN];
        r[0] = 9;
        f.reply(Reply::ok(&r));
        let (n, recs) = query_ib_service(&f, 9, 1).unwrap();
        assert_eq!((n, recs.len()), (9, 1));
    }
}
