//! Event channels and events: `rdma_create_event_channel`, `rdma_destroy_event_channel`, `rdma_get_cm_event`,
//! `rdma_ack_cm_event`, `rdma_event_str`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::rdma_cma::{rdma_cm_event, rdma_event_channel};
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::{c_char, c_int, c_uint, CStr};

/// `rdma_create_event_channel(3)`: opens an event channel (a descriptor of `/dev/infiniband/rdma_cm`) on which the
/// events of its ids are reported. Returns the channel, or NULL with `errno`.
///
/// Not implemented yet: NULL with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_create_event_channel() -> *mut rdma_event_channel {
    ffi::boundary("rdma_create_event_channel", || -> Result<*mut rdma_event_channel> {
        Err(unsupported("rdma_create_event_channel"))
    })
    .or_null_errno()
}

/// `rdma_destroy_event_channel(3)`: closes `channel` and frees it. Its ids must have been destroyed and its events
/// acknowledged first. No return value.
///
/// Not implemented yet: only logs (no channel can exist).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_destroy_event_channel(channel: *mut rdma_event_channel) {
    unsupported("rdma_destroy_event_channel");
}

/// `rdma_get_cm_event(3)`: stores in `*event` the next event of `channel`, blocking until there is one unless the
/// channel's descriptor is non-blocking (then `EAGAIN`). Each event must be released with `rdma_ack_cm_event`.
/// Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_cm_event(channel: *mut rdma_event_channel, event: *mut *mut rdma_cm_event) -> c_int {
    ffi::boundary("rdma_get_cm_event", || -> Result<c_int> {
        Err(unsupported("rdma_get_cm_event"))
    })
    .or_minus_one_errno()
}

/// `rdma_ack_cm_event(3)`: releases `event`, returned by `rdma_get_cm_event`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_ack_cm_event(event: *mut rdma_cm_event) -> c_int {
    ffi::boundary("rdma_ack_cm_event", || -> Result<c_int> {
        Err(unsupported("rdma_ack_cm_event"))
    })
    .or_minus_one_errno()
}

/// The names of `enum rdma_cm_event_type`, indexed by value.
const EVENT_NAMES: [&CStr; 16] = [
    c"RDMA_CM_EVENT_ADDR_RESOLVED",
    c"RDMA_CM_EVENT_ADDR_ERROR",
    c"RDMA_CM_EVENT_ROUTE_RESOLVED",
    c"RDMA_CM_EVENT_ROUTE_ERROR",
    c"RDMA_CM_EVENT_CONNECT_REQUEST",
    c"RDMA_CM_EVENT_CONNECT_RESPONSE",
    c"RDMA_CM_EVENT_CONNECT_ERROR",
    c"RDMA_CM_EVENT_UNREACHABLE",
    c"RDMA_CM_EVENT_REJECTED",
    c"RDMA_CM_EVENT_ESTABLISHED",
    c"RDMA_CM_EVENT_DISCONNECTED",
    c"RDMA_CM_EVENT_DEVICE_REMOVAL",
    c"RDMA_CM_EVENT_MULTICAST_JOIN",
    c"RDMA_CM_EVENT_MULTICAST_ERROR",
    c"RDMA_CM_EVENT_ADDR_CHANGE",
    c"RDMA_CM_EVENT_TIMEWAIT_EXIT",
];

/// The name rdma-core gives a value outside `enum rdma_cm_event_type`.
const UNKNOWN_EVENT: &CStr = c"UNKNOWN EVENT";

/// `rdma_event_str(3)`: the name of an event type, e.g. `"RDMA_CM_EVENT_ADDR_RESOLVED"`, or `"UNKNOWN EVENT"` for
/// a value outside the enum. The string is static; never NULL, `errno` untouched.
///
/// `event` is the enum's integer (the C prototype says `enum rdma_cm_event_type`, same ABI), so any number is safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_event_str(event: c_uint) -> *const c_char {
    EVENT_NAMES
        .get(event as usize)
        .copied()
        .unwrap_or(UNKNOWN_EVENT)
        .as_ptr()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_create_event_channel, rdma_destroy_event_channel, rdma_get_cm_event, rdma_ack_cm_event, rdma_event_str);

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_common::abi::rdma_cma::rdma_cm_event_type::{self, *};

    #[test]
    fn event_names_match_the_enum() {
        let all: [rdma_cm_event_type; 16] = [
            RDMA_CM_EVENT_ADDR_RESOLVED,
            RDMA_CM_EVENT_ADDR_ERROR,
            RDMA_CM_EVENT_ROUTE_RESOLVED,
            RDMA_CM_EVENT_ROUTE_ERROR,
            RDMA_CM_EVENT_CONNECT_REQUEST,
            RDMA_CM_EVENT_CONNECT_RESPONSE,
            RDMA_CM_EVENT_CONNECT_ERROR,
            RDMA_CM_EVENT_UNREACHABLE,
            RDMA_CM_EVENT_REJECTED,
            RDMA_CM_EVENT_ESTABLISHED,
            RDMA_CM_EVENT_DISCONNECTED,
            RDMA_CM_EVENT_DEVICE_REMOVAL,
            RDMA_CM_EVENT_MULTICAST_JOIN,
            RDMA_CM_EVENT_MULTICAST_ERROR,
            RDMA_CM_EVENT_ADDR_CHANGE,
            RDMA_CM_EVENT_TIMEWAIT_EXIT,
        ];
        for e in all {
            // SAFETY: rdma_event_str returns a static NUL-terminated string.
            let s = unsafe { CStr::from_ptr(rdma_event_str(e as c_uint)) };
            assert_eq!(s.to_str().unwrap(), format!("{e:?}"));
        }
        for bad in [16, 17, u32::MAX] {
            // SAFETY: as above.
            assert_eq!(unsafe { CStr::from_ptr(rdma_event_str(bad)) }, UNKNOWN_EVENT);
        }
    }
}
