//! The `rdma_*` entry points of `<rdma/rdma_cma.h>` and `<rdma/rdma_verbs.h>`, one file per family.
//!
//! | file | functions |
//! |---|---|
//! | [`event`] | event channels, `rdma_get_cm_event`, `rdma_ack_cm_event`, `rdma_event_str` |
//! | [`id`] | `rdma_create_id`, `rdma_destroy_id`, `rdma_create_ep`, `rdma_destroy_ep`, `rdma_migrate_id`, `rdma_set_option` |
//! | [`addr`] | `rdma_bind_addr`, `rdma_resolve_addr`, `rdma_resolve_route`, `rdma_get_src_port`, `rdma_get_dst_port` |
//! | [`conn`] | `rdma_connect`, `rdma_establish`, `rdma_listen`, `rdma_get_request`, `rdma_accept`, `rdma_reject`, `rdma_notify`, `rdma_disconnect` |
//! | [`qp`] | `rdma_create_qp(_ex)`, `rdma_destroy_qp`, `rdma_init_qp_attr`, `rdma_create_srq(_ex)`, `rdma_destroy_srq` |
//! | [`mcast`] | `rdma_join_multicast(_ex)`, `rdma_leave_multicast` |
//! | [`ece`] | `rdma_set_local_ece`, `rdma_get_remote_ece`, `rdma_reject_ece` |
//! | [`addrinfo`] | `rdma_getaddrinfo`, `rdma_freeaddrinfo` |
//! | [`device`] | `rdma_get_devices`, `rdma_free_devices` |
//!
//! Convention of the family (rdma-core's): functions returning `int` give `0` (or a value) on success and `-1` with
//! `errno` on failure ([`rdma_common::ffi::CResult::or_minus_one_errno`]); pointer-returning functions give NULL
//! with `errno`. Stubs take their parameters under the C names, unused until they are implemented.

pub mod addr;
pub mod addrinfo;
pub mod conn;
pub mod device;
pub mod ece;
pub mod event;
pub mod id;
pub mod mcast;
pub mod qp;
