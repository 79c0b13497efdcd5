//! `<infiniband/verbs_api.h>`: the `ibv_*` names of kernel (`ib_uverbs_*`) types and constants, and the
//! `RDMA_UAPI_PTR` macro, as rdma-core 44 installs them.
//!
//! In C every item of this header is a `#define` aliasing an `ib_uverbs_*` name, so the whole header is the
//! hand-written fragment `cbindgen/infiniband/verbs_api.h.{pre,post}` (the toml emits nothing). Here the same
//! aliases are Rust type aliases and consts, for the library's own use.

use super::ib_user_ioctl_verbs::*;
use crate::uapi::ib_user_ioctl_verbs::{IB_UVERBS_ACCESS_OPTIONAL_RANGE, IB_UVERBS_ADVISE_MR_FLAG_FLUSH};

/// `struct ibv_flow_action_esp_keymat` is `enum ib_uverbs_flow_action_esp_keymat`.
pub type ibv_flow_action_esp_keymat = ib_uverbs_flow_action_esp_keymat;
/// AES-GCM key material format.
pub const IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM: ibv_flow_action_esp_keymat =
    ib_uverbs_flow_action_esp_keymat::IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM;
/// IV generation algorithms of AES-GCM key material.
pub type ibv_flow_action_esp_keymat_aes_gcm_iv_algo = ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo;
/// Sequential IVs.
pub const IBV_FLOW_ACTION_IV_ALGO_SEQ: ibv_flow_action_esp_keymat_aes_gcm_iv_algo =
    ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo::IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ;
/// AES-GCM key material.
pub type ibv_flow_action_esp_keymat_aes_gcm = ib_uverbs_flow_action_esp_keymat_aes_gcm;
/// Anti-replay modes.
pub type ibv_flow_action_esp_replay = ib_uverbs_flow_action_esp_replay;
/// No anti-replay protection.
pub const IBV_FLOW_ACTION_ESP_REPLAY_NONE: ibv_flow_action_esp_replay =
    ib_uverbs_flow_action_esp_replay::IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE;
/// Bitmap anti-replay protection.
pub const IBV_FLOW_ACTION_ESP_REPLAY_BMP: ibv_flow_action_esp_replay =
    ib_uverbs_flow_action_esp_replay::IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP;
/// Bitmap anti-replay parameters.
pub type ibv_flow_action_esp_replay_bmp = ib_uverbs_flow_action_esp_replay_bmp;
/// ESP flow-action flags.
pub type ibv_flow_action_esp_flags = ib_uverbs_flow_action_esp_flags;
/// Crypto offload only (0, the default).
pub const IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO: ibv_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO;
/// Full protocol offload.
pub const IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD: ibv_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD;
/// Tunnel mode (0, the default).
pub const IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL: ibv_flow_action_esp_flags = IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL;
/// Transport mode.
pub const IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT: ibv_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT;
/// Decrypt (0, the default).
pub const IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT: ibv_flow_action_esp_flags = IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT;
/// Encrypt.
pub const IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT: ibv_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT;
/// Start a new ESN window.
pub const IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW: ibv_flow_action_esp_flags =
    ib_uverbs_flow_action_esp_flags::IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW;
/// An ESP encapsulation header.
pub type ibv_flow_action_esp_encap = ib_uverbs_flow_action_esp_encap;
/// ESP parameters.
pub type ibv_flow_action_esp = ib_uverbs_flow_action_esp;

/// Advice kinds of `ibv_advise_mr`.
pub type ibv_advise_mr_advice = ib_uverbs_advise_mr_advice;
/// Prefetch for reading.
pub const IBV_ADVISE_MR_ADVICE_PREFETCH: ibv_advise_mr_advice =
    ib_uverbs_advise_mr_advice::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH;
/// Prefetch for writing.
pub const IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE: ibv_advise_mr_advice =
    ib_uverbs_advise_mr_advice::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
/// Prefetch without faulting pages in.
pub const IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT: ibv_advise_mr_advice =
    ib_uverbs_advise_mr_advice::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
/// Complete the advice before returning.
pub const IBV_ADVISE_MR_FLAG_FLUSH: u32 = IB_UVERBS_ADVISE_MR_FLAG_FLUSH;

/// The port requires a GRH on every address handle (`ibv_port_attr.flags`).
///
/// Defined from the enum, not from `abi::enums` (which is generated from this module and the others: a use of it
/// here would be an import cycle), and not from the kernel's `u32` constant (a cast either way).
pub const IBV_QPF_GRH_REQUIRED: u8 = ib_uverbs_query_port_flags::IB_UVERBS_QPF_GRH_REQUIRED as u8;

/// The access flags the kernel may silently drop when it does not know them (bits 20..=29).
pub const IBV_ACCESS_OPTIONAL_RANGE: u32 = IB_UVERBS_ACCESS_OPTIONAL_RANGE;
/// The first optional access flag.
pub const IBV_ACCESS_OPTIONAL_FIRST: u32 = IB_UVERBS_ACCESS_OPTIONAL_FIRST;

const _: () = {
    assert!(
        IBV_ACCESS_OPTIONAL_RANGE
            == ((IB_UVERBS_ACCESS_OPTIONAL_LAST << 1) - 1) & !(IB_UVERBS_ACCESS_OPTIONAL_FIRST - 1)
    );
};
