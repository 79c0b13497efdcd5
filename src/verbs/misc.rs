//! Pure helpers that need no device: the descriptions of enum values (`ibv_wc_status_str(3)`,
//! `ibv_node_type_str(3)`, `ibv_port_state_str(3)`, `ibv_event_type_str(3)`, rdma-core 56's `ibv_wr_opcode_str`) and the static-rate conversions
//! (`ibv_rate_to_mult(3)`, `mult_to_ibv_rate(3)`, `ibv_rate_to_mbps(3)`, `mbps_to_ibv_rate(3)`).
//!
//! All are implemented, with rdma-core 44's exact strings and tables. The enum arguments arrive as integers (see
//! `rdma_common::abi::verbs::funcs`), so any number a C caller passes is handled: out of range gives `"unknown"`,
//! -1 or `IBV_RATE_MAX`, as in rdma-core.
#![allow(unsafe_code)]

use rdma_common::abi::verbs::ibv_rate::{self, *};
use std::ffi::{c_char, c_int, c_uint, CStr};

/// Indexes a description table; `"unknown"` outside it.
fn describe(table: &[&'static CStr], index: i64) -> *const c_char {
    usize::try_from(index).ok().and_then(|i| table.get(i)).copied().unwrap_or(c"unknown").as_ptr()
}

/// `enum ibv_wc_status` descriptions, by value.
const WC_STATUS: [&CStr; 24] = [
    c"success",
    c"local length error",
    c"local QP operation error",
    c"local EE context operation error",
    c"local protection error",
    c"Work Request Flushed Error",
    c"memory management operation error",
    c"bad response error",
    c"local access error",
    c"remote invalid request error",
    c"remote access error",
    c"remote operation error",
    c"transport retry counter exceeded",
    c"RNR retry counter exceeded",
    c"local RDD violation error",
    c"remote invalid RD request",
    c"aborted error",
    c"invalid EE context number",
    c"invalid EE context state",
    c"fatal error",
    c"response timeout error",
    c"general error",
    c"TM error",
    c"TM software rendezvous",
];

/// `enum ibv_node_type` descriptions, by value; 0 (and `IBV_NODE_UNKNOWN`) have none.
const NODE_TYPE: [&CStr; 8] = [
    c"unknown",
    c"InfiniBand channel adapter",
    c"InfiniBand switch",
    c"InfiniBand router",
    c"iWARP NIC",
    c"usNIC",
    c"usNIC UDP",
    c"unspecified",
];

/// `enum ibv_port_state` descriptions, by value.
const PORT_STATE: [&CStr; 6] = [c"no state change (NOP)", c"down", c"init", c"armed", c"active", c"active defer"];

/// `enum ibv_event_type` descriptions, by value.
const EVENT_TYPE: [&CStr; 20] = [
    c"CQ error",
    c"local work queue catastrophic error",
    c"invalid request local work queue error",
    c"local access violation work queue error",
    c"communication established",
    c"send queue drained",
    c"path migrated",
    c"path migration request error",
    c"local catastrophic error",
    c"port active",
    c"port error",
    c"LID change",
    c"P_Key change",
    c"SM change",
    c"SRQ catastrophic error",
    c"SRQ limit reached",
    c"last WQE reached",
    c"client reregistration",
    c"GID table change",
    c"WQ fatal",
];

/// `ibv_wc_status_str(3)`: a static, NUL-terminated description of the completion status `status`
/// (`"success"`, `"remote access error"`, ...); `"unknown"` for a value outside `enum ibv_wc_status`.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_wc_status_str(status: c_uint) -> *const c_char {
    describe(&WC_STATUS, status.into())
}

/// `ibv_node_type_str(3)`: a static description of the node type `node_type` (`"InfiniBand channel adapter"`,
/// `"iWARP NIC"`, ...); `"unknown"` for `IBV_NODE_UNKNOWN` and values outside `enum ibv_node_type`.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_node_type_str(node_type: c_int) -> *const c_char {
    describe(&NODE_TYPE, node_type.into())
}

/// `ibv_port_state_str(3)`: a static description of the port state `port_state` (`"down"`, `"active"`, ...);
/// `"unknown"` for a value outside `enum ibv_port_state`.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_port_state_str(port_state: c_uint) -> *const c_char {
    describe(&PORT_STATE, port_state.into())
}

/// `ibv_event_type_str(3)`: a static description of the asynchronous event type `event` (`"CQ error"`,
/// `"port active"`, ...); `"unknown"` for a value outside `enum ibv_event_type`.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_event_type_str(event: c_uint) -> *const c_char {
    describe(&EVENT_TYPE, event.into())
}

/// `enum ibv_wr_opcode` names, by value (rdma-core 56's): `None` for the numbers between `IBV_WR_DRIVER1` (11) and
/// `IBV_WR_FLUSH` (14) that name no opcode.
const WR_OPCODE: [Option<&CStr>; 16] = [
    Some(c"rdma-write"),
    Some(c"rdma-write-with-imm"),
    Some(c"send"),
    Some(c"send-with-imm"),
    Some(c"rdma-read"),
    Some(c"atomic-cmp-and-swp"),
    Some(c"atomic-fetch-and-add"),
    Some(c"local-inv"),
    Some(c"bind-mw"),
    Some(c"send-with-inv"),
    Some(c"tso"),
    Some(c"driver1"),
    None,
    None,
    Some(c"flush"),
    Some(c"atomic-write"),
];

/// `const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)`: a static, NUL-terminated name of the work request
/// opcode `opcode` (`"rdma-write"`, `"send-with-imm"`, `"atomic-write"`, ...); `"unknown"` above
/// `IBV_WR_ATOMIC_WRITE`, and NULL for the two numbers inside that range that name no opcode (12 and 13), as
/// rdma-core 56 and 65 answer. Declared in rdma-core 56's public `verbs.h` but exported in the provider-interface
/// node (`IBVERBS_PRIVATE_34` since rdma-core 45, `IBVERBS_PRIVATE_65` in 65), where applications that call it
/// bind it too.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_wr_opcode_str(opcode: c_uint) -> *const c_char {
    match WR_OPCODE.get(opcode as usize) {
        Some(Some(s)) => s.as_ptr(),
        Some(None) => std::ptr::null(),
        None => c"unknown".as_ptr(),
    }
}

/// The rates that are whole multiples of 2.5 Gb/s, with that multiple. The others (FDR, EDR and HDR lane
/// rates, 14.0625 Gb/s and so on) have no multiple, as in rdma-core.
const RATE_MULT: [(ibv_rate, c_int); 15] = [
    (IBV_RATE_2_5_GBPS, 1),
    (IBV_RATE_5_GBPS, 2),
    (IBV_RATE_10_GBPS, 4),
    (IBV_RATE_20_GBPS, 8),
    (IBV_RATE_30_GBPS, 12),
    (IBV_RATE_40_GBPS, 16),
    (IBV_RATE_60_GBPS, 24),
    (IBV_RATE_80_GBPS, 32),
    (IBV_RATE_120_GBPS, 48),
    (IBV_RATE_28_GBPS, 11),
    (IBV_RATE_50_GBPS, 20),
    (IBV_RATE_400_GBPS, 160),
    (IBV_RATE_600_GBPS, 240),
    (IBV_RATE_800_GBPS, 320),
    (IBV_RATE_1200_GBPS, 480),
];

/// Every rate but `IBV_RATE_MAX`, with its speed in Mb/s (the signalling rate after encoding overhead, so
/// 14 Gb/s FDR is 14062).
const RATE_MBPS: [(ibv_rate, c_int); 23] = [
    (IBV_RATE_2_5_GBPS, 2500),
    (IBV_RATE_5_GBPS, 5000),
    (IBV_RATE_10_GBPS, 10000),
    (IBV_RATE_20_GBPS, 20000),
    (IBV_RATE_30_GBPS, 30000),
    (IBV_RATE_40_GBPS, 40000),
    (IBV_RATE_60_GBPS, 60000),
    (IBV_RATE_80_GBPS, 80000),
    (IBV_RATE_120_GBPS, 120000),
    (IBV_RATE_14_GBPS, 14062),
    (IBV_RATE_56_GBPS, 56250),
    (IBV_RATE_112_GBPS, 112500),
    (IBV_RATE_168_GBPS, 168750),
    (IBV_RATE_25_GBPS, 25781),
    (IBV_RATE_100_GBPS, 103125),
    (IBV_RATE_200_GBPS, 206250),
    (IBV_RATE_300_GBPS, 309375),
    (IBV_RATE_28_GBPS, 28125),
    (IBV_RATE_50_GBPS, 53125),
    (IBV_RATE_400_GBPS, 425000),
    (IBV_RATE_600_GBPS, 637500),
    (IBV_RATE_800_GBPS, 850000),
    (IBV_RATE_1200_GBPS, 1275000),
];

/// The value paired with the raw rate `rate` in `table`, or -1.
fn rate_lookup(table: &[(ibv_rate, c_int)], rate: c_uint) -> c_int {
    table.iter().find(|(r, _)| *r as c_uint == rate).map_or(-1, |&(_, v)| v)
}

/// The rate paired with `value` in `table`, or `IBV_RATE_MAX`.
fn rate_of(table: &[(ibv_rate, c_int)], value: c_int) -> ibv_rate {
    table.iter().find(|(_, v)| *v == value).map_or(ibv_rate::IBV_RATE_MAX, |&(r, _)| r)
}

/// `ibv_rate_to_mult(3)`: the static rate `rate` (an `enum ibv_rate` value) as a multiple of 2.5 Gb/s
/// (`IBV_RATE_5_GBPS` -> 2), or -1 when it is not one (`IBV_RATE_MAX`, the 14.0625 Gb/s-lane rates, unknown
/// values).
#[unsafe(no_mangle)]
pub extern "C" fn ibv_rate_to_mult(rate: c_uint) -> c_int {
    rate_lookup(&RATE_MULT, rate)
}

/// `mult_to_ibv_rate(3)`: the static rate that is `mult` times 2.5 Gb/s, or `IBV_RATE_MAX` when there is none.
#[unsafe(no_mangle)]
pub extern "C" fn mult_to_ibv_rate(mult: c_int) -> ibv_rate {
    rate_of(&RATE_MULT, mult)
}

/// `ibv_rate_to_mbps(3)`: the static rate `rate` (an `enum ibv_rate` value) in Mb/s (`IBV_RATE_5_GBPS` -> 5000,
/// `IBV_RATE_14_GBPS` -> 14062), or -1 for `IBV_RATE_MAX` and unknown values.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_rate_to_mbps(rate: c_uint) -> c_int {
    rate_lookup(&RATE_MBPS, rate)
}

/// `mbps_to_ibv_rate(3)`: the static rate of exactly `mbps` Mb/s (as `ibv_rate_to_mbps(3)` reports them), or
/// `IBV_RATE_MAX` when there is none.
#[unsafe(no_mangle)]
pub extern "C" fn mbps_to_ibv_rate(mbps: c_int) -> ibv_rate {
    rate_of(&RATE_MBPS, mbps)
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_wc_status_str, ibv_node_type_str, ibv_port_state_str, ibv_event_type_str, ibv_rate_to_mult,
    mult_to_ibv_rate, ibv_rate_to_mbps, mbps_to_ibv_rate,
);

#[cfg(test)]
mod tests {
    use super::*;

    fn s(p: *const c_char) -> &'static str {
        // SAFETY: every description is a static C string.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    /// Outputs recorded from rdma-core 44's libibverbs (Debian bookworm) for -3..30 and a few far values.
    #[test]
    fn descriptions_match_rdma_core() {
        for i in -3i32..30 {
            let u = i as c_uint;
            let node = match i {
                1 => "InfiniBand channel adapter",
                2 => "InfiniBand switch",
                3 => "InfiniBand router",
                4 => "iWARP NIC",
                5 => "usNIC",
                6 => "usNIC UDP",
                7 => "unspecified",
                _ => "unknown",
            };
            assert_eq!(s(ibv_node_type_str(i)), node, "node {i}");
            let port = PORT_STATE.get(i as usize).filter(|_| i >= 0).map_or("unknown", |c| c.to_str().unwrap());
            assert_eq!(s(ibv_port_state_str(u)), port, "port {i}");
            let ev = EVENT_TYPE.get(i as usize).filter(|_| i >= 0).map_or("unknown", |c| c.to_str().unwrap());
            assert_eq!(s(ibv_event_type_str(u)), ev, "event {i}");
            let wc = WC_STATUS.get(i as usize).filter(|_| i >= 0).map_or("unknown", |c| c.to_str().unwrap());
            assert_eq!(s(ibv_wc_status_str(u)), wc, "wc {i}");
        }
        assert_eq!(s(ibv_wc_status_str(5)), "Work Request Flushed Error");
        assert_eq!(s(ibv_wc_status_str(23)), "TM software rendezvous");
        assert_eq!(s(ibv_port_state_str(5)), "active defer");
        assert_eq!(s(ibv_event_type_str(19)), "WQ fatal");
        assert_eq!(s(ibv_wc_status_str(0x7fff_ffff)), "unknown");
        // rdma-core 56's ibv_wr_opcode_str, same in 65.
        let names = [
            "rdma-write",
            "rdma-write-with-imm",
            "send",
            "send-with-imm",
            "rdma-read",
            "atomic-cmp-and-swp",
            "atomic-fetch-and-add",
            "local-inv",
            "bind-mw",
            "send-with-inv",
            "tso",
            "driver1",
        ];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(s(ibv_wr_opcode_str(i as c_uint)), *n);
        }
        assert!(ibv_wr_opcode_str(12).is_null() && ibv_wr_opcode_str(13).is_null());
        assert_eq!((s(ibv_wr_opcode_str(14)), s(ibv_wr_opcode_str(15))), ("flush", "atomic-write"));
        assert_eq!((s(ibv_wr_opcode_str(16)), s(ibv_wr_opcode_str(u32::MAX))), ("unknown", "unknown"));
        assert_eq!(s(ibv_node_type_str(i32::MIN)), "unknown");
    }

    #[test]
    fn rates_match_rdma_core() {
        // (enum value, ibv_rate_to_mult, ibv_rate_to_mbps) as rdma-core 44 returns them for -3..30.
        let expect: [(i32, c_int, c_int); 28] = [
            (-3, -1, -1),
            (-1, -1, -1),
            (0, -1, -1),
            (1, -1, -1),
            (2, 1, 2500),
            (3, 4, 10000),
            (4, 12, 30000),
            (5, 2, 5000),
            (6, 8, 20000),
            (7, 16, 40000),
            (8, 24, 60000),
            (9, 32, 80000),
            (10, 48, 120000),
            (11, -1, 14062),
            (12, -1, 56250),
            (13, -1, 112500),
            (14, -1, 168750),
            (15, -1, 25781),
            (16, -1, 103125),
            (17, -1, 206250),
            (18, -1, 309375),
            (19, 11, 28125),
            (20, 20, 53125),
            (21, 160, 425000),
            (22, 240, 637500),
            (23, 320, 850000),
            (24, 480, 1275000),
            (25, -1, -1),
        ];
        for (r, mult, mbps) in expect {
            assert_eq!(ibv_rate_to_mult(r as c_uint), mult, "mult {r}");
            assert_eq!(ibv_rate_to_mbps(r as c_uint), mbps, "mbps {r}");
        }
        for (m, r) in [(-1, 0), (0, 0), (1, 2), (2, 5), (3, 0), (4, 3), (11, 19), (20, 20), (480, 24), (100, 0)] {
            assert_eq!(mult_to_ibv_rate(m) as i32, r, "m2r {m}");
        }
        for (b, r) in [(-1, 0), (0, 0), (2500, 2), (14062, 11), (14000, 0), (103125, 16), (100000, 0), (1275000, 24)] {
            assert_eq!(mbps_to_ibv_rate(b) as i32, r, "b2r {b}");
        }
    }
}
