//! Connections: CONNECT, LISTEN, ACCEPT, REJECT, DISCONNECT, INIT_QP_ATTR.

use super::{write_in, write_resp, UcmFd};
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_verbs::ib_uverbs_qp_attr;
use rdma_common::uapi::rdma_user_cm::*;
use rdma_common::uapi::FromBytes;

/// The kernel's connection parameters with `private_data` (at most [`RDMA_MAX_PRIVATE_DATA`] bytes) copied in.
/// Errors: `EINVAL` when it is longer. The caller sets the other fields (`valid` = 1 for CONNECT and ACCEPT).
pub fn conn_param(private_data: &[u8]) -> Result<rdma_ucm_conn_param> {
    let mut p = rdma_ucm_conn_param::zeroed();
    if private_data.len() > p.private_data.len() {
        return Err(Errno::EINVAL);
    }
    p.private_data[..private_data.len()].copy_from_slice(private_data);
    p.private_data_len = private_data.len() as u8;
    Ok(p)
}

/// CONNECT: sends a connection request (or, on a UD id, a service id resolution request) with `param` and the
/// ECE options `ece` (`vendor_id`, `attr_mod`). Errors: `EINVAL` (`param.valid` 0, private data too long for the
/// transport, route not resolved), ...
pub fn connect<F: UcmFd + ?Sized>(fd: &F, id: u32, param: &rdma_ucm_conn_param, ece: rdma_ucm_ece) -> Result<()> {
    let mut cmd = rdma_ucm_connect::zeroed();
    cmd.conn_param = *param;
    cmd.id = id;
    cmd.ece = ece;
    write_in(fd, RDMA_USER_CM_CMD_CONNECT, cmd)
}

/// LISTEN: listens on the bound address with at most `backlog` pending requests (the kernel caps it; 0 or a
/// negative number read as unsigned gives its maximum).
pub fn listen<F: UcmFd + ?Sized>(fd: &F, id: u32, backlog: u32) -> Result<()> {
    let cmd = rdma_ucm_listen { id, backlog };
    write_in(fd, RDMA_USER_CM_CMD_LISTEN, cmd)
}

/// ACCEPT: accepts the connection request of kernel id `id`; `uid` becomes the id's event cookie. With
/// `param.valid` 0 it is the active side's "establish" (send the RTU after a CONNECT_RESPONSE), as rdma-core uses
/// it. Errors: `EINVAL` (wrong state, private data too long), ...
pub fn accept<F: UcmFd + ?Sized>(
    fd: &F,
    id: u32,
    uid: u64,
    param: &rdma_ucm_conn_param,
    ece: rdma_ucm_ece,
) -> Result<()> {
    let mut cmd = rdma_ucm_accept::zeroed();
    cmd.uid = uid;
    cmd.conn_param = *param;
    cmd.id = id;
    cmd.ece = ece;
    write_in(fd, RDMA_USER_CM_CMD_ACCEPT, cmd)
}

/// REJECT: rejects the connection request of kernel id `id` with `private_data` (at most
/// [`RDMA_MAX_PRIVATE_DATA`] bytes; the transport's own limit is the kernel's check) and `reason` (0: consumer
/// defined; 35: ECE options not supported). Errors: `EINVAL`.
pub fn reject<F: UcmFd + ?Sized>(fd: &F, id: u32, reason: u8, private_data: &[u8]) -> Result<()> {
    let mut cmd = rdma_ucm_reject::zeroed();
    if private_data.len() > cmd.private_data.len() {
        return Err(Errno::EINVAL);
    }
    cmd.id = id;
    cmd.reason = reason;
    cmd.private_data[..private_data.len()].copy_from_slice(private_data);
    cmd.private_data_len = private_data.len() as u8;
    write_in(fd, RDMA_USER_CM_CMD_REJECT, cmd)
}

/// DISCONNECT: disconnects kernel id `id`. Errors: `EINVAL` when not connected, ...
pub fn disconnect<F: UcmFd + ?Sized>(fd: &F, id: u32) -> Result<()> {
    let cmd = rdma_ucm_disconnect { id };
    write_in(fd, RDMA_USER_CM_CMD_DISCONNECT, cmd)
}

/// INIT_QP_ATTR: the QP attributes (and `qp_attr_mask`) that move the id's QP to `qp_state` (`IBV_QPS_*`).
/// Errors: `EINVAL` for a state beyond `IBV_QPS_ERR` or one the connection does not allow yet.
pub fn init_qp_attr<F: UcmFd + ?Sized>(fd: &F, id: u32, qp_state: u32) -> Result<ib_uverbs_qp_attr> {
    let cmd = rdma_ucm_init_qp_attr { response: 0, id, qp_state };
    write_resp(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, cmd, |_| {})
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::AsBytes;

    #[test]
    fn connect_bytes() {
        let f = Fake::new();
        let mut p = conn_param(b"hello").unwrap();
        p.qp_num = 0x11;
        p.srq = 1;
        p.responder_resources = 2;
        p.initiator_depth = 3;
        p.flow_control = 4;
        p.retry_count = 5;
        p.rnr_retry_count = 6;
        p.valid = 1;
        f.reply(Reply::none());
        connect(&f, 9, &p, rdma_ucm_ece { vendor_id: 0x15b3, attr_mod: 7 }).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 288);
        assert_eq!(&w[0..8], &[6, 0, 0, 0, 0x20, 1, 0, 0]);
        assert_eq!(&w[8..16], &[0x11, 0, 0, 0, 0, 0, 0, 0]); // qp_num, qkey
        assert_eq!(&w[16..21], b"hello");
        assert!(w[21..272].iter().all(|&b| b == 0));
        assert_eq!(&w[272..280], &[5, 1, 2, 3, 4, 5, 6, 1]);
        assert_eq!(&w[280..288], &[9, 0, 0, 0, 0, 0, 0, 0]); // id, reserved
        assert_eq!(&w[288..296], &[0xb3, 0x15, 0, 0, 7, 0, 0, 0]);
        assert_eq!(conn_param(&[0; 257]).unwrap_err(), Errno::EINVAL);
    }

    #[test]
    fn accept_listen_reject_disconnect_bytes() {
        let f = Fake::new();
        let mut p = conn_param(&[]).unwrap();
        p.valid = 1;
        f.reply(Reply::none());
        accept(&f, 2, 0xdead_beef, &p, rdma_ucm_ece::zeroed()).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 296);
        assert_eq!(&w[0..8], &[8, 0, 0, 0, 0x28, 1, 0, 0]);
        assert_eq!(&w[8..16], &0xdead_beefu64.to_ne_bytes());
        assert_eq!(w[8 + 8 + 271], 1); // valid
        assert_eq!(&w[288..296], &[2, 0, 0, 0, 0, 0, 0, 0]);

        f.reply(Reply::none());
        listen(&f, 2, 1024).unwrap();
        assert_eq!(f.write(1), [7, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 0, 4, 0, 0]);

        f.reply(Reply::none());
        reject(&f, 2, 35, b"no").unwrap();
        let w = f.write(2);
        assert_eq!(w.len(), 8 + 264);
        assert_eq!(&w[0..16], &[9, 0, 0, 0, 8, 1, 0, 0, 2, 0, 0, 0, 2, 35, 0, 0]);
        assert_eq!(&w[16..18], b"no");
        assert_eq!(reject(&f, 2, 0, &[0; 257]), Err(Errno::EINVAL));

        f.reply(Reply::none());
        disconnect(&f, 2).unwrap();
        assert_eq!(f.write(3), [10, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn init_qp_attr_bytes() {
        let f = Fake::new();
        let mut r = ib_uverbs_qp_attr::zeroed();
        r.qp_attr_mask = 0x1 | 0x8 | 0x10 | 0x20;
        r.port_num = 1;
        r.pkey_index = 0;
        f.reply(Reply::ok(r.as_bytes()));
        let got = init_qp_attr(&f, 3, 1).unwrap();
        assert_eq!((got.qp_attr_mask, got.port_num), (0x39, 1));
        let w = f.write(0);
        assert_eq!(&w[0..8], &[11, 0, 0, 0, 16, 0, size_of::<ib_uverbs_qp_attr>() as u8, 0]);
        assert_eq!(&w[16..24], &[3, 0, 0, 0, 1, 0, 0, 0]);
    }
}
