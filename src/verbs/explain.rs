//! Errors that say why: the reasons a control-path call failed, in the field's terms, for the log line the entry
//! point writes when it fails (at warning level: `VERBS_LOG_LEVEL=2` or above, to `VERBS_LOG_FILE` or standard
//! error). Nothing here changes what a call returns; it runs only on the failure path, so a call that succeeds
//! pays nothing.
//!
//! The QP transition check is the IBTA's table of legal state changes and of the attribute-mask bits each one
//! requires and allows, per QP type, as the kernel applies it before a driver modifies a QP (`ib_modify_qp_is_ok`,
//! `drivers/infiniband/core/verbs.c`): `IBV_QP_STATE` is always allowed, `IBV_QP_CUR_STATE` only from RTR, RTS,
//! SQD and SQE, and every transition to RESET or ERR needs nothing else.

use rdma_common::abi::verbs::{ibv_qp_attr_mask, ibv_qp_state, ibv_qp_type};

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
    use ibv_qp_type::*;
    match t {
        x if x == IBV_QPT_RC as u32 => "RC".into(),
        x if x == IBV_QPT_UC as u32 => "UC".into(),
        x if x == IBV_QPT_UD as u32 => "UD".into(),
        x if x == IBV_QPT_RAW_PACKET as u32 => "RAW_PACKET".into(),
        x if x == IBV_QPT_XRC_SEND as u32 => "XRC_SEND".into(),
        x if x == IBV_QPT_XRC_RECV as u32 => "XRC_RECV".into(),
        x if x == IBV_QPT_DRIVER as u32 => "DRIVER".into(),
        n => format!("type {n}"),
    }
}

// The attribute bits, as u32.
const STATE: u32 = ibv_qp_attr_mask::IBV_QP_STATE as u32;
const CUR_STATE: u32 = ibv_qp_attr_mask::IBV_QP_CUR_STATE as u32;
const EN_SQD: u32 = ibv_qp_attr_mask::IBV_QP_EN_SQD_ASYNC_NOTIFY as u32;
const ACCESS: u32 = ibv_qp_attr_mask::IBV_QP_ACCESS_FLAGS as u32;
const PKEY: u32 = ibv_qp_attr_mask::IBV_QP_PKEY_INDEX as u32;
const PORT: u32 = ibv_qp_attr_mask::IBV_QP_PORT as u32;
const QKEY: u32 = ibv_qp_attr_mask::IBV_QP_QKEY as u32;
const AV: u32 = ibv_qp_attr_mask::IBV_QP_AV as u32;
const MTU: u32 = ibv_qp_attr_mask::IBV_QP_PATH_MTU as u32;
const TIMEOUT: u32 = ibv_qp_attr_mask::IBV_QP_TIMEOUT as u32;
const RETRY: u32 = ibv_qp_attr_mask::IBV_QP_RETRY_CNT as u32;
const RNR_RETRY: u32 = ibv_qp_attr_mask::IBV_QP_RNR_RETRY as u32;
const RQ_PSN: u32 = ibv_qp_attr_mask::IBV_QP_RQ_PSN as u32;
const RD_ATOMIC: u32 = ibv_qp_attr_mask::IBV_QP_MAX_QP_RD_ATOMIC as u32;
const ALT_PATH: u32 = ibv_qp_attr_mask::IBV_QP_ALT_PATH as u32;
const RNR_TIMER: u32 = ibv_qp_attr_mask::IBV_QP_MIN_RNR_TIMER as u32;
const SQ_PSN: u32 = ibv_qp_attr_mask::IBV_QP_SQ_PSN as u32;
const DEST_RD_ATOMIC: u32 = ibv_qp_attr_mask::IBV_QP_MAX_DEST_RD_ATOMIC as u32;
const MIG: u32 = ibv_qp_attr_mask::IBV_QP_PATH_MIG_STATE as u32;
const DEST_QPN: u32 = ibv_qp_attr_mask::IBV_QP_DEST_QPN as u32;
const RATE_LIMIT: u32 = ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as u32;

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
    use ibv_qp_type::*;
    Some(match t {
        x if x == IBV_QPT_RC as u32 => T::Rc,
        x if x == IBV_QPT_UC as u32 => T::Uc,
        x if x == IBV_QPT_UD as u32 => T::Ud,
        x if x == IBV_QPT_RAW_PACKET as u32 => T::Raw,
        x if x == IBV_QPT_XRC_SEND as u32 => T::XrcIni,
        x if x == IBV_QPT_XRC_RECV as u32 => T::XrcTgt,
        _ => return None,
    })
}

/// For a legal transition `cur -> next` of QP type `t`: the required and the optional attribute bits (beside
/// `IBV_QP_STATE`). `None` for an illegal transition.
fn transition(t: T, cur: u32, next: u32) -> Option<(u32, u32)> {
    use ibv_qp_state::*;
    const RESET: u32 = IBV_QPS_RESET as u32;
    const INIT: u32 = IBV_QPS_INIT as u32;
    const RTR: u32 = IBV_QPS_RTR as u32;
    const RTS: u32 = IBV_QPS_RTS as u32;
    const SQD: u32 = IBV_QPS_SQD as u32;
    const SQE: u32 = IBV_QPS_SQE as u32;
    const ERR: u32 = IBV_QPS_ERR as u32;
    if cur > ERR || next > ERR {
        return None;
    }
    if next == RESET || next == ERR {
        return Some((0, 0));
    }
    let rc_like = matches!(t, T::Rc | T::XrcTgt);
    Some(match (cur, next) {
        (RESET, INIT) => match t {
            T::Ud => (PKEY | PORT | QKEY, 0),
            T::Raw => (PORT, 0),
            _ => (PKEY | PORT | ACCESS, 0),
        },
        (INIT, INIT) => match t {
            T::Ud => (0, PKEY | PORT | QKEY),
            T::Raw => (0, 0),
            _ => (0, PKEY | PORT | ACCESS),
        },
        (INIT, RTR) => match t {
            T::Ud => (0, PKEY | QKEY),
            T::Raw => (0, 0),
            _ if rc_like => (AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | RNR_TIMER, ALT_PATH | ACCESS | PKEY),
            _ => (AV | MTU | DEST_QPN | RQ_PSN, ALT_PATH | ACCESS | PKEY),
        },
        (RTR, RTS) => match t {
            T::Ud => (SQ_PSN, CUR_STATE | QKEY),
            T::Raw => (0, RATE_LIMIT),
            T::Uc => (SQ_PSN, CUR_STATE | ALT_PATH | ACCESS | MIG),
            T::Rc => {
                (TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC, CUR_STATE | ALT_PATH | ACCESS | RNR_TIMER | MIG)
            }
            T::XrcIni => (TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC, CUR_STATE | ALT_PATH | ACCESS | MIG),
            T::XrcTgt => (TIMEOUT | SQ_PSN, CUR_STATE | ALT_PATH | ACCESS | RNR_TIMER | MIG),
        },
        (RTS, RTS) | (SQD, RTS) => match t {
            T::Ud => (0, CUR_STATE | QKEY),
            T::Raw if cur == RTS => (0, RATE_LIMIT),
            T::Raw => (0, 0),
            _ if rc_like => (0, CUR_STATE | ACCESS | ALT_PATH | MIG | RNR_TIMER),
            _ => (0, CUR_STATE | ACCESS | ALT_PATH | MIG),
        },
        (RTS, SQD) => match t {
            T::Raw => (0, 0),
            _ => (0, EN_SQD),
        },
        (SQD, SQD) => match t {
            T::Ud => (0, PKEY | QKEY),
            T::Uc => (0, AV | ALT_PATH | ACCESS | PKEY | MIG),
            T::Rc => (
                0,
                PORT | AV
                    | TIMEOUT
                    | RETRY
                    | RNR_RETRY
                    | RD_ATOMIC
                    | DEST_RD_ATOMIC
                    | ALT_PATH
                    | ACCESS
                    | PKEY
                    | RNR_TIMER
                    | MIG,
            ),
            T::XrcIni => (0, PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | ALT_PATH | ACCESS | PKEY | MIG),
            T::XrcTgt => (0, PORT | AV | TIMEOUT | DEST_RD_ATOMIC | ALT_PATH | ACCESS | PKEY | RNR_TIMER | MIG),
            T::Raw => (0, 0),
        },
        (SQE, RTS) => match t {
            T::Ud => (0, CUR_STATE | QKEY),
            T::Uc => (0, CUR_STATE | ACCESS),
            _ => (0, 0),
        },
        _ => return None,
    })
}

/// Why `ibv_modify_qp` from state `cur` to `next` with `mask` breaks the IBTA table for QP type `qp_type`, or
/// `None` when the table allows it (or does not know the type). For example
/// `"INIT->RTR: missing IBV_QP_AV, IBV_QP_DEST_QPN; extra IBV_QP_SQ_PSN"`.
pub fn qp_transition(qp_type: u32, cur: u32, next: u32, mask: u32) -> Option<String> {
    let t = table_type(qp_type)?;
    let step = format!("{}->{}", state_name(cur), state_name(next));
    let Some((req, opt)) = transition(t, cur, next) else {
        return Some(format!("{step}: not a legal transition for {}", qp_type_name(qp_type)));
    };
    let mut why = Vec::new();
    if mask & CUR_STATE != 0 && !matches!(cur, 2..=5) {
        why.push(format!("IBV_QP_CUR_STATE is only allowed from RTR, RTS, SQD or SQE, not {}", state_name(cur)));
    }
    let missing = req & !mask;
    if missing != 0 {
        why.push(format!("missing {}", mask_names(missing)));
    }
    let extra = mask & !(req | opt | STATE) & !(if why.is_empty() { 0 } else { CUR_STATE });
    if extra != 0 {
        why.push(format!("extra {}", mask_names(extra)));
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
    use ibv_qp_type::*;

    const RC: u32 = IBV_QPT_RC as u32;
    const UD: u32 = IBV_QPT_UD as u32;

    #[test]
    fn the_pingpong_sequence_is_legal() {
        assert_eq!(qp_transition(RC, 0, 1, STATE | PKEY | PORT | ACCESS), None);
        let rtr = STATE | AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | RNR_TIMER;
        assert_eq!(qp_transition(RC, 1, 2, rtr), None);
        assert_eq!(qp_transition(RC, 2, 3, STATE | TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC), None);
        assert_eq!(qp_transition(UD, 0, 1, STATE | PKEY | PORT | QKEY), None);
        assert_eq!(qp_transition(UD, 1, 2, STATE), None);
        assert_eq!(qp_transition(UD, 2, 3, STATE | SQ_PSN), None);
        assert_eq!(qp_transition(RC, 3, 6, STATE), None);
        assert_eq!(qp_transition(RC, 6, 0, STATE), None);
    }

    #[test]
    fn missing_and_extra_bits_are_named() {
        let mask = STATE | MTU | RQ_PSN | DEST_RD_ATOMIC | RNR_TIMER | SQ_PSN;
        assert_eq!(
            qp_transition(RC, 1, 2, mask).as_deref(),
            Some("INIT->RTR: missing IBV_QP_AV, IBV_QP_DEST_QPN; extra IBV_QP_SQ_PSN")
        );
        assert_eq!(qp_transition(UD, 0, 1, STATE | PKEY | PORT).as_deref(), Some("RESET->INIT: missing IBV_QP_QKEY"));
        assert_eq!(qp_transition(RC, 0, 3, STATE).as_deref(), Some("RESET->RTS: not a legal transition for RC"));
        assert_eq!(
            qp_transition(RC, 1, 1, STATE | CUR_STATE).as_deref(),
            Some("INIT->INIT: IBV_QP_CUR_STATE is only allowed from RTR, RTS, SQD or SQE, not INIT")
        );
    }

    #[test]
    fn names() {
        assert_eq!(mask_names(STATE | DEST_QPN), "IBV_QP_STATE, IBV_QP_DEST_QPN");
        assert_eq!(mask_names(RATE_LIMIT), "IBV_QP_RATE_LIMIT");
        assert_eq!(state_name(9), "state 9");
        assert_eq!(qp_type_name(UD), "UD");
    }
}
