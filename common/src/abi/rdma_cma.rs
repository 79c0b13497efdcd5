//! `<rdma/rdma_cma.h>`: the RDMA connection manager's public types, constants and prototypes, as rdma-core 65
//! installs them (44's, plus the `RDMACM_1.4` calls, their events, `param.arg`, `RAI_SA` and `RAI_DNS`).
//!
//! Hand-written C (cbindgen cannot express it), with the Rust twin here under a name for each untagged union:
//! * `struct rdma_ib_addr` and `struct rdma_addr` (three untagged unions: the source and destination address as
//!   any `sockaddr` flavour, and `addr.ibaddr`) are in `cbindgen/rdma/rdma_cma.h.pre`, because the generated
//!   `struct rdma_route` embeds `rdma_addr`. Rust names the unions [`rdma_addr_src`], [`rdma_addr_dst`] and
//!   [`rdma_addr_addr`], with fields `src`, `dst` and `addr`; C code writes `addr.src_sin`, Rust `addr.src.src_sin`.
//! * `struct rdma_cm_event` (its `param` union) is in `rdma_cma.h.post`, after the generated structs it embeds.
//! * The anonymous enums (`RDMA_MAX_RESP_RES`, `RDMA_OPTION_*`) are in `rdma_cma.h.pre`; here they are constants.
//! * The `static inline` `rdma_get_local_addr` / `rdma_get_peer_addr` are in `rdma_cma.h.post`.
//!
//! `<rdma/rdma_verbs.h>` is entirely hand-written (`cbindgen/rdma/rdma_verbs.h.post`); the three library functions
//! it declares are in [`rdma_verbs`] here so that librdmacm can check its definitions against them.

use super::sa::ibv_sa_path_rec;
use super::verbs::{
    ibv_ah_attr, ibv_comp_channel, ibv_context, ibv_cq, ibv_ece, ibv_gid, ibv_pd, ibv_qp, ibv_qp_attr,
    ibv_qp_init_attr, ibv_qp_init_attr_ex, ibv_qp_type, ibv_srq,
};
use libc::{sockaddr, sockaddr_in, sockaddr_in6, sockaddr_storage, socklen_t};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::mem::{align_of, offset_of, size_of};

// `<linux/types.h>` spelling, so that the generated prototypes keep it.
type __be16 = u16;

/// The kind of a connection manager event (`rdma_cm_event::event`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum rdma_cm_event_type {
    /// `rdma_resolve_addr` completed.
    RDMA_CM_EVENT_ADDR_RESOLVED,
    /// `rdma_resolve_addr` failed.
    RDMA_CM_EVENT_ADDR_ERROR,
    /// `rdma_resolve_route` completed.
    RDMA_CM_EVENT_ROUTE_RESOLVED,
    /// `rdma_resolve_route` failed.
    RDMA_CM_EVENT_ROUTE_ERROR,
    /// A connection request arrived on a listening id (`event->id` is the new id).
    RDMA_CM_EVENT_CONNECT_REQUEST,
    /// The peer answered an `rdma_connect` on an id without a QP; finish with `rdma_establish`.
    RDMA_CM_EVENT_CONNECT_RESPONSE,
    /// Establishing the connection failed.
    RDMA_CM_EVENT_CONNECT_ERROR,
    /// The peer did not answer.
    RDMA_CM_EVENT_UNREACHABLE,
    /// The peer rejected the request (`status` holds the reason).
    RDMA_CM_EVENT_REJECTED,
    /// The connection is established.
    RDMA_CM_EVENT_ESTABLISHED,
    /// The connection was disconnected.
    RDMA_CM_EVENT_DISCONNECTED,
    /// The id's device went away: destroy the id and everything allocated on the device.
    RDMA_CM_EVENT_DEVICE_REMOVAL,
    /// A multicast join completed (`param.ud` describes the group).
    RDMA_CM_EVENT_MULTICAST_JOIN,
    /// A multicast join failed or the group went away.
    RDMA_CM_EVENT_MULTICAST_ERROR,
    /// The id's network address changed.
    RDMA_CM_EVENT_ADDR_CHANGE,
    /// The QP of a closed connection left its time-wait state.
    RDMA_CM_EVENT_TIMEWAIT_EXIT,
    /// `rdma_resolve_addrinfo` completed: `rdma_query_addrinfo` returns the result (rdma-core 65).
    RDMA_CM_EVENT_ADDRINFO_RESOLVED,
    /// `rdma_resolve_addrinfo` failed (`status` says why) (rdma-core 65).
    RDMA_CM_EVENT_ADDRINFO_ERROR,
    /// Written by `rdma_write_cm_event`: `param.arg` and `status` are the writer's (rdma-core 65).
    RDMA_CM_EVENT_USER,
    /// The library's own event (never returned to the application) (rdma-core 65).
    RDMA_CM_EVENT_INTERNAL,
}

/// The port space of an id: which protocol's port numbers it uses.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum rdma_port_space {
    /// IP over InfiniBand.
    RDMA_PS_IPOIB = 0x0002,
    /// Reliable connected, TCP port numbers.
    RDMA_PS_TCP = 0x0106,
    /// Unreliable datagram, UDP port numbers.
    RDMA_PS_UDP = 0x0111,
    /// Any QP type, InfiniBand service ids.
    RDMA_PS_IB = 0x013F,
}

// The `u64` suffixes make cbindgen write `ull`, keeping the C type `unsigned long long`.
/// Mask of the port-space bits of an InfiniBand service id.
pub const RDMA_IB_IP_PS_MASK: u64 = 0xFFFF_FFFF_FFFF_0000u64;
/// Mask of the port-number bits of an InfiniBand service id.
pub const RDMA_IB_IP_PORT_MASK: u64 = 0x0000_0000_0000_FFFFu64;
/// Service-id prefix of the TCP port space.
pub const RDMA_IB_IP_PS_TCP: u64 = 0x0000_0000_0106_0000u64;
/// Service-id prefix of the UDP port space.
pub const RDMA_IB_IP_PS_UDP: u64 = 0x0000_0000_0111_0000u64;
/// Service-id prefix of the IB port space.
pub const RDMA_IB_PS_IB: u64 = 0x0000_0000_013F_0000u64;

/// The Q_Key of the UD QPs and multicast groups the connection manager sets up.
pub const RDMA_UDP_QKEY: c_int = 0x0123_4567;

/// InfiniBand addressing of a route: GIDs and P_Key. C text: `cbindgen/rdma/rdma_cma.h.pre`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ib_addr {
    /// Source GID.
    pub sgid: ibv_gid,
    /// Destination GID.
    pub dgid: ibv_gid,
    /// Partition key, big-endian.
    pub pkey: __be16,
}

/// The source address of an [`rdma_addr`], as any `sockaddr` flavour (C: an untagged union).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_addr_src {
    /// As a generic `sockaddr` (read `sa_family` first).
    pub src_addr: sockaddr,
    /// As IPv4.
    pub src_sin: sockaddr_in,
    /// As IPv6.
    pub src_sin6: sockaddr_in6,
    /// As room for any family (`AF_IB` is a `sockaddr_ib`).
    pub src_storage: sockaddr_storage,
}

/// The destination address of an [`rdma_addr`], as any `sockaddr` flavour (C: an untagged union).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_addr_dst {
    /// As a generic `sockaddr` (read `sa_family` first).
    pub dst_addr: sockaddr,
    /// As IPv4.
    pub dst_sin: sockaddr_in,
    /// As IPv6.
    pub dst_sin6: sockaddr_in6,
    /// As room for any family (`AF_IB` is a `sockaddr_ib`).
    pub dst_storage: sockaddr_storage,
}

/// The transport addressing of an [`rdma_addr`] (C: the untagged union member `addr`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_addr_addr {
    /// InfiniBand addressing (GIDs, P_Key).
    pub ibaddr: rdma_ib_addr,
}

/// The source and destination addresses of an id. C text: `cbindgen/rdma/rdma_cma.h.pre` (untagged unions).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_addr {
    /// C: the anonymous union `src_addr` / `src_sin` / `src_sin6` / `src_storage`.
    pub src: rdma_addr_src,
    /// C: the anonymous union `dst_addr` / `dst_sin` / `dst_sin6` / `dst_storage`.
    pub dst: rdma_addr_dst,
    /// C: `addr.ibaddr`.
    pub addr: rdma_addr_addr,
}

/// The resolved route of an id: addresses and path records.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_route {
    /// Source and destination addresses.
    pub addr: rdma_addr,
    /// The path records (`num_paths` of them), owned by the library.
    pub path_rec: *mut ibv_sa_path_rec,
    /// Number of entries at `path_rec`.
    pub num_paths: c_int,
}

/// An event channel: the file descriptor on which the events of its ids are reported.
#[repr(C)]
pub struct rdma_event_channel {
    /// The descriptor (can be polled, or made non-blocking).
    pub fd: c_int,
}

/// A connection manager identifier, the RDMA analogue of a socket. The library allocates it; all-zero bytes are not
/// a valid Rust value of it (`ps` has no 0 variant), so build it field by field.
#[repr(C)]
pub struct rdma_cm_id {
    /// The device the id is bound to, or NULL before that.
    pub verbs: *mut ibv_context,
    /// The channel its events are reported on (NULL for a synchronous id).
    pub channel: *mut rdma_event_channel,
    /// The user's context.
    pub context: *mut c_void,
    /// The QP created with `rdma_create_qp`, or NULL.
    pub qp: *mut ibv_qp,
    /// The resolved route.
    pub route: rdma_route,
    /// The port space.
    pub ps: rdma_port_space,
    /// The device port the id is bound to.
    pub port_num: u8,
    /// The last event returned by a synchronous call, until acknowledged.
    pub event: *mut rdma_cm_event,
    /// Completion channel of `send_cq`.
    pub send_cq_channel: *mut ibv_comp_channel,
    /// Send completion queue.
    pub send_cq: *mut ibv_cq,
    /// Completion channel of `recv_cq`.
    pub recv_cq_channel: *mut ibv_comp_channel,
    /// Receive completion queue.
    pub recv_cq: *mut ibv_cq,
    /// The SRQ created with `rdma_create_srq`, or NULL.
    pub srq: *mut ibv_srq,
    /// The protection domain of the QP/SRQ.
    pub pd: *mut ibv_pd,
    /// The QP type of the id.
    pub qp_type: ibv_qp_type,
}

/// Largest `responder_resources` value.
/// cbindgen:ignore
pub const RDMA_MAX_RESP_RES: c_int = 0xFF;
/// Largest `initiator_depth` value.
/// cbindgen:ignore
pub const RDMA_MAX_INIT_DEPTH: c_int = 0xFF;

/// Connection parameters of `rdma_connect` / `rdma_accept`, and of connection events.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_conn_param {
    /// Data sent to the peer with the request or reply.
    pub private_data: *const c_void,
    /// Bytes at `private_data`.
    pub private_data_len: u8,
    /// Outstanding RDMA reads/atomics the peer may issue to us.
    pub responder_resources: u8,
    /// Outstanding RDMA reads/atomics we may issue to the peer.
    pub initiator_depth: u8,
    /// Nonzero when hardware flow control is provided.
    pub flow_control: u8,
    /// Retries on error (ignored when accepting).
    pub retry_count: u8,
    /// Retries on receiver-not-ready.
    pub rnr_retry_count: u8,
    /// Nonzero when the QP uses an SRQ (ignored when the id has a QP).
    pub srq: u8,
    /// QP number (ignored when the id has a QP).
    pub qp_num: u32,
}

/// Datagram parameters of UD and multicast events.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_ud_param {
    /// Data received from the peer.
    pub private_data: *const c_void,
    /// Bytes at `private_data`.
    pub private_data_len: u8,
    /// Address handle attributes to reach the peer or group.
    pub ah_attr: ibv_ah_attr,
    /// The remote QP number.
    pub qp_num: u32,
    /// The remote Q_Key.
    pub qkey: u32,
}

/// The parameters of an [`rdma_cm_event`] (C: the untagged union member `param`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union rdma_cm_event_param {
    /// Connected ids.
    pub conn: rdma_conn_param,
    /// UD ids and multicast.
    pub ud: rdma_ud_param,
    /// `RDMA_CM_EVENT_USER`: the value given to `rdma_write_cm_event` (rdma-core 65).
    pub arg: u64,
}

/// A connection manager event. C text: `cbindgen/rdma/rdma_cma.h.post` (untagged union).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct rdma_cm_event {
    /// The id the event is about (for a connection request: the new id).
    pub id: *mut rdma_cm_id,
    /// For a connection request: the listening id.
    pub listen_id: *mut rdma_cm_id,
    /// What happened.
    pub event: rdma_cm_event_type,
    /// 0, or an error / reject reason.
    pub status: c_int,
    /// Connection or datagram parameters, by the id's QP type.
    pub param: rdma_cm_event_param,
}

/// `rdma_addrinfo::ai_flags`: the addresses are for the passive (listening) side.
pub const RAI_PASSIVE: c_int = 0x0000_0001;
/// `rdma_addrinfo::ai_flags`: the node is a numeric address, do not resolve names.
pub const RAI_NUMERICHOST: c_int = 0x0000_0002;
/// `rdma_addrinfo::ai_flags`: do not resolve a route.
pub const RAI_NOROUTE: c_int = 0x0000_0004;
/// `rdma_addrinfo::ai_flags`: honour `ai_family` of the hints.
pub const RAI_FAMILY: c_int = 0x0000_0008;
/// `rdma_addrinfo::ai_flags`: resolve an InfiniBand service through the subnet administrator (rdma-core 65).
pub const RAI_SA: c_int = 0x0000_0010;
/// `rdma_addrinfo::ai_flags`: resolve through DNS; excludes `RAI_SA` (rdma-core 65).
pub const RAI_DNS: c_int = 0x0000_0020;

/// One result of `rdma_getaddrinfo`: addresses, port space, QP type and optional route and connect data.
#[repr(C)]
pub struct rdma_addrinfo {
    /// `RAI_*` flags.
    pub ai_flags: c_int,
    /// Address family (`AF_INET`, `AF_INET6`, `AF_IB`).
    pub ai_family: c_int,
    /// QP type (`IBV_QPT_*`).
    pub ai_qp_type: c_int,
    /// Port space (`RDMA_PS_*`).
    pub ai_port_space: c_int,
    /// Bytes at `ai_src_addr`.
    pub ai_src_len: socklen_t,
    /// Bytes at `ai_dst_addr`.
    pub ai_dst_len: socklen_t,
    /// Source address.
    pub ai_src_addr: *mut sockaddr,
    /// Destination address.
    pub ai_dst_addr: *mut sockaddr,
    /// Canonical name of the source.
    pub ai_src_canonname: *mut c_char,
    /// Canonical name of the destination.
    pub ai_dst_canonname: *mut c_char,
    /// Bytes at `ai_route`.
    pub ai_route_len: usize,
    /// Routing data (`struct ibv_path_data[]` for InfiniBand).
    pub ai_route: *mut c_void,
    /// Bytes at `ai_connect`.
    pub ai_connect_len: usize,
    /// Transport-specific connection data.
    pub ai_connect: *mut c_void,
    /// The next result, or NULL.
    pub ai_next: *mut rdma_addrinfo,
}

/// Bits of `rdma_cm_join_mc_attr_ex::comp_mask`: which fields are valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum rdma_cm_join_mc_attr_mask {
    /// `addr` is valid.
    RDMA_CM_JOIN_MC_ATTR_ADDRESS = 1 << 0,
    /// `join_flags` is valid.
    RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS = 1 << 1,
    /// First unused bit.
    RDMA_CM_JOIN_MC_ATTR_RESERVED = 1 << 2,
}

/// Values of `rdma_cm_join_mc_attr_ex::join_flags`: how to join.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum rdma_cm_mc_join_flags {
    /// Send and receive.
    RDMA_MC_JOIN_FLAG_FULLMEMBER,
    /// Send only.
    RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER,
    /// First unused value.
    RDMA_MC_JOIN_FLAG_RESERVED,
}

/// Arguments of `rdma_join_multicast_ex`.
#[repr(C)]
pub struct rdma_cm_join_mc_attr_ex {
    /// `rdma_cm_join_mc_attr_mask` bits.
    pub comp_mask: u32,
    /// An `rdma_cm_mc_join_flags` value.
    pub join_flags: u32,
    /// The multicast group address.
    pub addr: *mut sockaddr,
}

/// `rdma_set_option` level: the id itself.
/// cbindgen:ignore
pub const RDMA_OPTION_ID: c_int = 0;
/// `rdma_set_option` level: InfiniBand.
/// cbindgen:ignore
pub const RDMA_OPTION_IB: c_int = 1;
/// `RDMA_OPTION_ID` option: type of service (`uint8_t`).
/// cbindgen:ignore
pub const RDMA_OPTION_ID_TOS: c_int = 0;
/// `RDMA_OPTION_ID` option: allow reusing the address (`int`).
/// cbindgen:ignore
pub const RDMA_OPTION_ID_REUSEADDR: c_int = 1;
/// `RDMA_OPTION_ID` option: bind to IPv6 only, not IPv4-mapped (`int`).
/// cbindgen:ignore
pub const RDMA_OPTION_ID_AFONLY: c_int = 2;
/// `RDMA_OPTION_ID` option: QP ack timeout (`uint8_t`).
/// cbindgen:ignore
pub const RDMA_OPTION_ID_ACK_TIMEOUT: c_int = 3;
/// `RDMA_OPTION_IB` option: the path records to use (`struct ibv_path_data[]`).
/// cbindgen:ignore
pub const RDMA_OPTION_IB_PATH: c_int = 1;

extern "C" {
    /// Opens an event channel. `rdma_create_event_channel(3)`; NULL with `errno` on failure.
    pub fn rdma_create_event_channel() -> *mut rdma_event_channel;
    /// Closes an event channel (its ids must be destroyed first). `rdma_destroy_event_channel(3)`.
    pub fn rdma_destroy_event_channel(channel: *mut rdma_event_channel);
    /// Allocates a synchronous id from an `rdma_getaddrinfo` result, with a QP when `qp_init_attr` is given.
    /// `rdma_create_ep(3)`.
    pub fn rdma_create_ep(
        id: *mut *mut rdma_cm_id,
        res: *mut rdma_addrinfo,
        pd: *mut ibv_pd,
        qp_init_attr: *mut ibv_qp_init_attr,
    ) -> c_int;
    /// Destroys an id made by `rdma_create_ep`, with its QP and SRQ. `rdma_destroy_ep(3)`.
    pub fn rdma_destroy_ep(id: *mut rdma_cm_id);
    /// Destroys an id (its QP first, its events acknowledged). `rdma_destroy_id(3)`.
    pub fn rdma_destroy_id(id: *mut rdma_cm_id) -> c_int;
    /// Binds an id to a local address (and thereby, maybe, a device). `rdma_bind_addr(3)`.
    pub fn rdma_bind_addr(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int;
}

// These wait for an event (on a synchronous id, or in rdma_get_cm_event / rdma_get_request): a thread waiting
// there may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Resolves `dst_addr` (and binds `src_addr` if given) to an RDMA address. `rdma_resolve_addr(3)`.
    pub fn rdma_resolve_addr(
        id: *mut rdma_cm_id,
        src_addr: *mut sockaddr,
        dst_addr: *mut sockaddr,
        timeout_ms: c_int,
    ) -> c_int;
    /// Resolves the route to the resolved destination. `rdma_resolve_route(3)`.
    pub fn rdma_resolve_route(id: *mut rdma_cm_id, timeout_ms: c_int) -> c_int;
}

extern "C" {
    /// Creates the id's QP on `pd` (NULL: the device's default PD). `rdma_create_qp(3)`.
    pub fn rdma_create_qp(id: *mut rdma_cm_id, pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> c_int;
    /// Creates the id's QP with extended attributes. `rdma_create_qp_ex(3)`.
    pub fn rdma_create_qp_ex(id: *mut rdma_cm_id, qp_init_attr: *mut ibv_qp_init_attr_ex) -> c_int;
    /// Destroys the id's QP. `rdma_destroy_qp(3)`.
    pub fn rdma_destroy_qp(id: *mut rdma_cm_id);
}

// These wait for an event (on a synchronous id, or in rdma_get_cm_event / rdma_get_request): a thread waiting
// there may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Starts connecting to the resolved destination. `rdma_connect(3)`.
    pub fn rdma_connect(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int;
}

extern "C" {
    /// Completes an active connection on an id without a QP. `rdma_establish(3)`.
    pub fn rdma_establish(id: *mut rdma_cm_id) -> c_int;
    /// Listens for connection requests on the bound address. `rdma_listen(3)`.
    pub fn rdma_listen(id: *mut rdma_cm_id, backlog: c_int) -> c_int;
}

// These wait for an event (on a synchronous id, or in rdma_get_cm_event / rdma_get_request): a thread waiting
// there may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Waits for a connection request on a synchronous listening id. `rdma_get_request(3)`.
    pub fn rdma_get_request(listen: *mut rdma_cm_id, id: *mut *mut rdma_cm_id) -> c_int;
    /// Accepts a connection request. `rdma_accept(3)`.
    pub fn rdma_accept(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int;
}

extern "C" {
    /// Rejects a connection request, with optional private data. `rdma_reject(3)`.
    pub fn rdma_reject(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int;
    /// Rejects a connection request because of unsupported ECE options. `rdma_reject_ece(3)`.
    pub fn rdma_reject_ece(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int;
}

// These wait for an event (on a synchronous id, or in rdma_get_cm_event / rdma_get_request): a thread waiting
// there may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Disconnects, moving the QP to the error state. `rdma_disconnect(3)`.
    pub fn rdma_disconnect(id: *mut rdma_cm_id) -> c_int;
    /// Joins a multicast group and attaches the id's QP to it. `rdma_join_multicast(3)`.
    pub fn rdma_join_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr, context: *mut c_void) -> c_int;
}

extern "C" {
    /// Leaves a multicast group. `rdma_leave_multicast(3)`.
    pub fn rdma_leave_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int;
}

// These wait for an event (on a synchronous id, or in rdma_get_cm_event / rdma_get_request): a thread waiting
// there may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Joins a multicast group with join flags. `rdma_join_multicast_ex(3)`.
    pub fn rdma_join_multicast_ex(
        id: *mut rdma_cm_id,
        mc_join_attr: *mut rdma_cm_join_mc_attr_ex,
        context: *mut c_void,
    ) -> c_int;
    /// Returns the next event of a channel, blocking unless the fd is non-blocking. `rdma_get_cm_event(3)`.
    pub fn rdma_get_cm_event(channel: *mut rdma_event_channel, event: *mut *mut rdma_cm_event) -> c_int;
}

extern "C" {
    /// Releases an event returned by `rdma_get_cm_event`. `rdma_ack_cm_event(3)`.
    pub fn rdma_ack_cm_event(event: *mut rdma_cm_event) -> c_int;
    /// The id's source port, big-endian (0 when unbound). `rdma_get_src_port(3)`.
    pub fn rdma_get_src_port(id: *mut rdma_cm_id) -> __be16;
    /// The id's destination port, big-endian. `rdma_get_dst_port(3)`.
    pub fn rdma_get_dst_port(id: *mut rdma_cm_id) -> __be16;
    /// A NULL-terminated array of the opened RDMA devices; `*num_devices` gets the count. `rdma_get_devices(3)`.
    pub fn rdma_get_devices(num_devices: *mut c_int) -> *mut *mut ibv_context;
    /// Frees an array returned by `rdma_get_devices`. `rdma_free_devices(3)`.
    pub fn rdma_free_devices(list: *mut *mut ibv_context);
    /// Sets an option (`RDMA_OPTION_*`) of an id. `rdma_set_option(3)`.
    pub fn rdma_set_option(
        id: *mut rdma_cm_id,
        level: c_int,
        optname: c_int,
        optval: *mut c_void,
        optlen: usize,
    ) -> c_int;
    /// Moves an id to another event channel (NULL: make it synchronous). `rdma_migrate_id(3)`.
    pub fn rdma_migrate_id(id: *mut rdma_cm_id, channel: *mut rdma_event_channel) -> c_int;
    /// Resolves a node and service to RDMA addresses and routes. `rdma_getaddrinfo(3)`.
    pub fn rdma_getaddrinfo(
        node: *const c_char,
        service: *const c_char,
        hints: *const rdma_addrinfo,
        res: *mut *mut rdma_addrinfo,
    ) -> c_int;
    /// Frees a list returned by `rdma_getaddrinfo`. `rdma_freeaddrinfo(3)`.
    pub fn rdma_freeaddrinfo(res: *mut rdma_addrinfo);
    /// The QP attributes (and mask) to move an external QP to the id's next state. `rdma_init_qp_attr(3)`.
    pub fn rdma_init_qp_attr(id: *mut rdma_cm_id, qp_attr: *mut ibv_qp_attr, qp_attr_mask: *mut c_int) -> c_int;
    /// Sets the ECE options to send in REQ/REP for an external QP. `rdma_set_local_ece(3)`.
    pub fn rdma_set_local_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int;
    /// The ECE options the peer sent in REQ/REP. `rdma_get_remote_ece(3)`.
    pub fn rdma_get_remote_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int;
}

// RDMACM_1.4 (rdma-core 65). `rdma_resolve_addrinfo` waits for its event on a synchronous id, so it may be cancelled
// there (see `rdma_resolve_addr`).
extern "C-unwind" {
    /// Starts resolving `node`/`service` (DNS, or an InfiniBand service through the SA with `RAI_SA`); completion
    /// is an `RDMA_CM_EVENT_ADDRINFO_RESOLVED` or `_ERROR` event. `rdma_resolve_addrinfo(3)`.
    pub fn rdma_resolve_addrinfo(
        id: *mut rdma_cm_id,
        node: *const c_char,
        service: *const c_char,
        hints: *const rdma_addrinfo,
    ) -> c_int;
}

extern "C" {
    /// Takes the result of a completed `rdma_resolve_addrinfo` (free it with `rdma_freeaddrinfo`).
    /// `rdma_query_addrinfo(3)`.
    pub fn rdma_query_addrinfo(id: *mut rdma_cm_id, info: *mut *mut rdma_addrinfo) -> c_int;
}

// The functions that take a C enum by value. They are declared with the enum's integer type (`unsigned int` for
// these enums in gcc, the same ABI) so that a number outside the enum never becomes an invalid Rust enum in the
// library; their C prototypes, with the enum types, are hand-written in `cbindgen/rdma/rdma_cma.h.post`
// (cbindgen skips them through `export.exclude`).
extern "C" {
    /// Allocates an id in port space `ps`, reporting to `channel` (NULL: synchronous). `rdma_create_id(3)`.
    pub fn rdma_create_id(
        channel: *mut rdma_event_channel,
        id: *mut *mut rdma_cm_id,
        context: *mut c_void,
        ps: c_uint,
    ) -> c_int;
    /// Reports a QP asynchronous event (`IBV_EVENT_COMM_EST`) to the connection manager. `rdma_notify(3)`.
    pub fn rdma_notify(id: *mut rdma_cm_id, event: c_uint) -> c_int;
    /// The name of an event type (`"RDMA_CM_EVENT_ADDR_RESOLVED"`, ...). `rdma_event_str(3)`.
    pub fn rdma_event_str(event: c_uint) -> *const c_char;
    /// Queues an `RDMA_CM_EVENT_USER` event with `status` and `arg` on the id's channel (RDMACM_1.4).
    /// `rdma_write_cm_event(3)`.
    pub fn rdma_write_cm_event(id: *mut rdma_cm_id, event: c_uint, status: c_int, arg: u64) -> c_int;
}

/// The library functions `<rdma/rdma_verbs.h>` declares (its C text is all in `cbindgen/rdma/rdma_verbs.h.post`).
/// cbindgen:ignore
pub mod rdma_verbs {
    use super::super::verbs::{ibv_pd, ibv_srq_init_attr, ibv_srq_init_attr_ex};
    use super::rdma_cm_id;
    use std::ffi::c_int;

    extern "C" {
        /// Creates an SRQ on the id (`id->srq`), on `pd` or the default PD. `rdma_create_srq(3)`.
        pub fn rdma_create_srq(id: *mut rdma_cm_id, pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> c_int;
        /// Creates an SRQ on the id with extended attributes. `rdma_create_srq_ex(3)`.
        pub fn rdma_create_srq_ex(id: *mut rdma_cm_id, attr: *mut ibv_srq_init_attr_ex) -> c_int;
        /// Destroys the id's SRQ. `rdma_destroy_srq(3)`.
        pub fn rdma_destroy_srq(id: *mut rdma_cm_id);
    }
}

const _: () = assert!(size_of::<rdma_ib_addr>() == 40 && offset_of!(rdma_ib_addr, pkey) == 32);
const _: () = assert!(size_of::<rdma_addr>() == 296 && align_of::<rdma_addr>() == 8);
const _: () = assert!(offset_of!(rdma_addr, dst) == 128 && offset_of!(rdma_addr, addr) == 256);
const _: () = assert!(size_of::<rdma_route>() == 312 && offset_of!(rdma_route, num_paths) == 304);
const _: () = assert!(size_of::<rdma_event_channel>() == 4);
const _: () = assert!(size_of::<rdma_cm_id>() == 416 && offset_of!(rdma_cm_id, route) == 32);
const _: () = assert!(offset_of!(rdma_cm_id, ps) == 344 && offset_of!(rdma_cm_id, port_num) == 348);
const _: () = assert!(offset_of!(rdma_cm_id, event) == 352 && offset_of!(rdma_cm_id, qp_type) == 408);
const _: () = assert!(size_of::<rdma_conn_param>() == 24 && offset_of!(rdma_conn_param, qp_num) == 16);
const _: () = assert!(size_of::<rdma_ud_param>() == 56 && offset_of!(rdma_ud_param, ah_attr) == 16);
const _: () = assert!(offset_of!(rdma_ud_param, qkey) == 52);
const _: () = assert!(size_of::<rdma_cm_event>() == 80 && offset_of!(rdma_cm_event, param) == 24);
const _: () = assert!(size_of::<rdma_addrinfo>() == 96 && offset_of!(rdma_addrinfo, ai_next) == 88);
const _: () = assert!(offset_of!(rdma_addrinfo, ai_route_len) == 56);
const _: () = assert!(size_of::<rdma_cm_join_mc_attr_ex>() == 16 && offset_of!(rdma_cm_join_mc_attr_ex, addr) == 8);
const _: () = assert!(size_of::<rdma_cm_event_type>() == 4 && size_of::<rdma_port_space>() == 4);
