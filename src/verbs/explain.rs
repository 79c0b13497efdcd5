//! Errors that say why: the reasons a control-path call failed, in the field's terms, for the log line the entry
//! point writes when it fails (at warning level: `VERBS_LOG_LEVEL=2` or above, to `VERBS_LOG_FILE` or standard
//! error). Nothing here changes what a call returns; it runs only on the failure path, so a call that succeeds
//! pays nothing.
//!
//! The QP transition check is the IBTA's table of legal state changes and of the attribute-mask bits each one
//! requires and allows, per QP type, as the kernel applies it before a driver modifies a QP (`ib_modify_qp_is_ok`,
//! `drivers/infiniband/core/verbs.c`): `IBV_QP_STATE` is always allowed, `IBV_QP_CUR_STATE` only from RTR, RTS,
//! SQD and SQE, and every transition to RESET or ERR needs nothing else.

use rdma_common::abi::enums::*;
use std::ffi::c_int;

/// The names of the `enum ibv_qp_attr_mask` bits, lowest first.
const MASK_NAMES: [&str; 26] = [
    "IBV_QP_STATE",
    "IBV_QP_CUR_STATE",
    "IBV_QP_EN_SQD_ASYNC_NOTIFY",
    "IBV_QP_ACCESS_FLAGS",
    "IBV_QP_PKEY_INDEX",
    "IBV_QP_PORT",
    "IBV_QP_QKEY",
    "IBV_QP_AV",
    "IBV_QP_PATH_MTU",
    "IBV_QP_TIMEOUT",
    "IBV_QP_RETRY_CNT",
    "IBV_QP_RNR_RETRY",
    "IBV_QP_RQ_PSN",
    "IBV_QP_MAX_QP_RD_ATOMIC",
    "IBV_QP_ALT_PATH",
    "IBV_QP_MIN_RNR_TIMER",
    "IBV_QP_SQ_PSN",
    "IBV_QP_MAX_DEST_RD_ATOMIC",
    "IBV_QP_PATH_MIG_STATE",
    "IBV_QP_CAP",
    "IBV_QP_DEST_QPN",
    "bit 21",
    "bit 22",
    "bit 23",
    "bit 24",
    "IBV_QP_RATE_LIMIT",
];

/// `a, b, c` for the bits of `mask`, lowest first.
pub fn mask_names(mask: u32) -> String {
    let mut out = Vec::new();
    for (bit, name) in MASK_NAMES.iter().enumerate() {
        if mask & (1 << bit) != 0 {
            out.push((*name).to_string());
        }
    }
    if mask >> MASK_NAMES.len() != 0 {
        out.push(format!("{:#x}", mask >> MASK_NAMES.len() << MASK_NAMES.len()));
    }
    out.join(", ")
}

/// The symbolic name of an errno value (`EINVAL`), or its number, for log lines.
pub fn errno_name(e: rdma_common::Errno) -> String {
    e.name()
}

/// The name of a QP state number (`RESET`, `INIT`, ...).
pub fn state_name(s: u32) -> String {
    match s {
        0 => "RESET".into(),
        1 => "INIT".into(),
        2 => "RTR".into(),
        3 => "RTS".into(),
        4 => "SQD".into(),
        5 => "SQE".into(),
        6 => "ERR".into(),
        n => format!("state {n}"),
    }
}

/// The name of a QP type number (`RC`, `UD`, ...).
pub fn qp_type_name(t: u32) -> String {
    match t {
        IBV_QPT_RC => "RC".into(),
        IBV_QPT_UC => "UC".into(),
        IBV_QPT_UD => "UD".into(),
        IBV_QPT_RAW_PACKET => "RAW_PACKET".into(),
        IBV_QPT_XRC_SEND => "XRC_SEND".into(),
        IBV_QPT_XRC_RECV => "XRC_RECV".into(),
        IBV_QPT_DRIVER => "DRIVER".into(),
        n => format!("type {n}"),
    }
}

/// The QP types the table distinguishes (XRC_SEND is the kernel's XRC_INI, XRC_RECV its XRC_TGT).
#[derive(Clone, Copy, PartialEq, Eq)]
enum T {
    Rc,
    Uc,
    Ud,
    Raw,
    XrcIni,
    XrcTgt,
}

fn table_type(t: u32) -> Option<T> {
    Some(match t {
        IBV_QPT_RC => T::Rc,
        IBV_QPT_UC => T::Uc,
        IBV_QPT_UD => T::Ud,
        IBV_QPT_RAW_PACKET => T::Raw,
        IBV_QPT_XRC_SEND => T::XrcIni,
        IBV_QPT_XRC_RECV => T::XrcTgt,
        _ => return None,
    })
}

/// For a legal transition `cur -> next` of QP type `t`: the required and the optional attribute bits (beside
/// `IBV_QP_STATE`). `None` for an illegal transition.
fn transition(t: T, cur: u32, next: u32) -> Option<(c_int, c_int)> {
    if cur > IBV_QPS_ERR || next > IBV_QPS_ERR {
        return None;
    }
    if next == IBV_QPS_RESET || next == IBV_QPS_ERR {
        return Some((0, 0));
    }
    let rc_like = matches!(t, T::Rc | T::XrcTgt);
    Some(match (cur, next) {
        (IBV_QPS_RESET, IBV_QPS_INIT) => match t {
            T::Ud => (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0),
            T::Raw => (IBV_QP_PORT, 0),
            _ => (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0),
        },
        (IBV_QPS_INIT, IBV_QPS_INIT) => match t {
            T::Ud => (0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
            T::Raw => (0, 0),
            _ => (0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
        },
        (IBV_QPS_INIT, IBV_QPS_RTR) => match t {
            T::Ud => (0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY),
            T::Raw => (0, 0),
            _ if rc_like => (
                IBV_QP_AV
                    | IBV_QP_PATH_MTU
                    | IBV_QP_DEST_QPN
                    | IBV_QP_RQ_PSN
                    | IBV_QP_MAX_DEST_RD_ATOMIC
                    | IBV_QP_MIN_RNR_TIMER,
                IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
            ),
            _ => (
                IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
                IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
            ),
        },
        (IBV_QPS_RTR, IBV_QPS_RTS) => match t {
            T::Ud => (IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY),
            T::Raw => (0, IBV_QP_RATE_LIMIT),
            T::Uc => (IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE),
            T::Rc => (
                IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
                IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE,
            ),
            T::XrcIni => (
                IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
                IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE,
            ),
            T::XrcTgt => (
                IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
                IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE,
            ),
        },
        (IBV_QPS_RTS, IBV_QPS_RTS) | (IBV_QPS_SQD, IBV_QPS_RTS) => match t {
            T::Ud => (0, IBV_QP_CUR_STATE | IBV_QP_QKEY),
            T::Raw if cur == IBV_QPS_RTS => (0, IBV_QP_RATE_LIMIT),
            T::Raw => (0, 0),
            _ if rc_like => (
                0,
                IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER,
            ),
            _ => (0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE),
        },
        (IBV_QPS_RTS, IBV_QPS_SQD) => match t {
            T::Raw => (0, 0),
            _ => (0, IBV_QP_EN_SQD_ASYNC_NOTIFY),
        },
        (IBV_QPS_SQD, IBV_QPS_SQD) => {
            // What every connected type may change while drained; then the initiator's and the responder's own.
            let sqd = IBV_QP_PORT
                | IBV_QP_AV
                | IBV_QP_TIMEOUT
                | IBV_QP_ALT_PATH
                | IBV_QP_ACCESS_FLAGS
                | IBV_QP_PKEY_INDEX
                | IBV_QP_PATH_MIG_STATE;
            let initiator = IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
            let responder = IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
            match t {
                T::Ud => (0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY),
                T::Uc => {
                    (0, IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE)
                }
                T::Rc => (0, sqd | initiator | responder),
                T::XrcIni => (0, sqd | initiator),
                T::XrcTgt => (0, sqd | responder),
                T::Raw => (0, 0),
            }
        }
        (IBV_QPS_SQE, IBV_QPS_RTS) => match t {
            T::Ud => (0, IBV_QP_CUR_STATE | IBV_QP_QKEY),
            T::Uc => (0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS),
            _ => (0, 0),
        },
        _ => return None,
    })
}

/// Why `ibv_modify_qp` from state `cur` to `next` with `mask` breaks the IBTA table for QP type `qp_type`, or
/// `None` when the table allows it (or does not know the type). For example
/// `"INIT->RTR: missing IBV_QP_AV, IBV_QP_DEST_QPN; extra IBV_QP_SQ_PSN"`.
pub fn qp_transition(qp_type: u32, cur: u32, next: u32, mask: u32) -> Option<String> {
    // The caller's `int attr_mask`, as it handed it over.
    let mask = mask as c_int;
    let t = table_type(qp_type)?;
    let step = format!("{}->{}", state_name(cur), state_name(next));
    let Some((req, opt)) = transition(t, cur, next) else {
        return Some(format!("{step}: not a legal transition for {}", qp_type_name(qp_type)));
    };
    let mut why = Vec::new();
    if mask & IBV_QP_CUR_STATE != 0 && !matches!(cur, 2..=5) {
        why.push(format!("IBV_QP_CUR_STATE is only allowed from RTR, RTS, SQD or SQE, not {}", state_name(cur)));
    }
    let missing = req & !mask;
    if missing != 0 {
        why.push(format!("missing {}", mask_names(missing as u32)));
    }
    let extra = mask & !(req | opt | IBV_QP_STATE) & !(if why.is_empty() { 0 } else { IBV_QP_CUR_STATE });
    if extra != 0 {
        why.push(format!("extra {}", mask_names(extra as u32)));
    }
    if why.is_empty() {
        None
    } else {
        Some(format!("{step}: {}", why.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`qp_transition`] with the mask as C's `int`.
    fn check(qp_type: u32, cur: u32, next: u32, mask: c_int) -> Option<String> {
        qp_transition(qp_type, cur, next, mask as u32)
    }

    #[test]
    fn the_pingpong_sequence_is_legal() {
        assert_eq!(check(IBV_QPT_RC, 0, 1, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), None);
        let rtr = IBV_QP_STATE
            | IBV_QP_AV
            | IBV_QP_PATH_MTU
            | IBV_QP_DEST_QPN
            | IBV_QP_RQ_PSN
            | IBV_QP_MAX_DEST_RD_ATOMIC
            | IBV_QP_MIN_RNR_TIMER;
        assert_eq!(check(IBV_QPT_RC, 1, 2, rtr), None);
        assert_eq!(
            check(
                IBV_QPT_RC,
                2,
                3,
                IBV_QP_STATE
                    | IBV_QP_TIMEOUT
                    | IBV_QP_RETRY_CNT
                    | IBV_QP_RNR_RETRY
                    | IBV_QP_SQ_PSN
                    | IBV_QP_MAX_QP_RD_ATOMIC
            ),
            None
        );
        assert_eq!(check(IBV_QPT_UD, 0, 1, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), None);
        assert_eq!(check(IBV_QPT_UD, 1, 2, IBV_QP_STATE), None);
        assert_eq!(check(IBV_QPT_UD, 2, 3, IBV_QP_STATE | IBV_QP_SQ_PSN), None);
        assert_eq!(check(IBV_QPT_RC, 3, 6, IBV_QP_STATE), None);
        assert_eq!(check(IBV_QPT_RC, 6, 0, IBV_QP_STATE), None);
    }

    #[test]
    fn missing_and_extra_bits_are_named() {
        let mask = IBV_QP_STATE
            | IBV_QP_PATH_MTU
            | IBV_QP_RQ_PSN
            | IBV_QP_MAX_DEST_RD_ATOMIC
            | IBV_QP_MIN_RNR_TIMER
            | IBV_QP_SQ_PSN;
        assert_eq!(
            check(IBV_QPT_RC, 1, 2, mask).as_deref(),
            Some("INIT->RTR: missing IBV_QP_AV, IBV_QP_DEST_QPN; extra IBV_QP_SQ_PSN")
        );
        assert_eq!(
            check(IBV_QPT_UD, 0, 1, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT).as_deref(),
            Some("RESET->INIT: missing IBV_QP_QKEY")
        );
        assert_eq!(check(IBV_QPT_RC, 0, 3, IBV_QP_STATE).as_deref(), Some("RESET->RTS: not a legal transition for RC"));
        assert_eq!(
            check(IBV_QPT_RC, 1, 1, IBV_QP_STATE | IBV_QP_CUR_STATE).as_deref(),
            Some("INIT->INIT: IBV_QP_CUR_STATE is only allowed from RTR, RTS, SQD or SQE, not INIT")
        );
    }

    #[test]
    fn sqd_to_sqd_splits_initiator_and_responder_bits() {
        let (ini, resp) = (IBV_QP_STATE | IBV_QP_RETRY_CNT, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER);
        assert_eq!(check(IBV_QPT_RC, 4, 4, ini | resp | IBV_QP_PORT), None);
        assert_eq!(check(IBV_QPT_XRC_SEND, 4, 4, ini | IBV_QP_PORT), None);
        assert_eq!(check(IBV_QPT_XRC_RECV, 4, 4, resp | IBV_QP_PORT), None);
        assert_eq!(check(IBV_QPT_XRC_SEND, 4, 4, resp).as_deref(), Some("SQD->SQD: extra IBV_QP_MIN_RNR_TIMER"));
        assert_eq!(check(IBV_QPT_XRC_RECV, 4, 4, ini).as_deref(), Some("SQD->SQD: extra IBV_QP_RETRY_CNT"));
    }

    #[test]
    fn names() {
        assert_eq!(mask_names((IBV_QP_STATE | IBV_QP_DEST_QPN) as u32), "IBV_QP_STATE, IBV_QP_DEST_QPN");
        assert_eq!(mask_names(IBV_QP_RATE_LIMIT as u32), "IBV_QP_RATE_LIMIT");
        assert_eq!(state_name(9), "state 9");
        assert_eq!(qp_type_name(IBV_QPT_UD), "UD");
    }
}
