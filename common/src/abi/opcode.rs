//! `<infiniband/opcode.h>`: the InfiniBand base transport header (BTH) opcodes, as rdma-core 44 installs them.
//!
//! C declares them as one anonymous `enum` (several names share a value, which a Rust enum cannot hold) and builds
//! each real opcode with the `IBV_OPCODE(transport, op)` macro: transport base + operation. Here they are plain
//! constants of the opcode byte; the C text (enum and macro) is the fragment `cbindgen/infiniband/opcode.h.post`,
//! written with the same values. cbindgen emits nothing from this file.

// Transport bases: only used to compose the real opcodes.
/// Transport base of the reliable connected opcodes.
/// cbindgen:ignore
pub const IBV_OPCODE_RC: u8 = 0x00;
/// Transport base of the unreliable connected opcodes.
/// cbindgen:ignore
pub const IBV_OPCODE_UC: u8 = 0x20;
/// Transport base of the reliable datagram opcodes.
/// cbindgen:ignore
pub const IBV_OPCODE_RD: u8 = 0x40;
/// Transport base of the unreliable datagram opcodes.
/// cbindgen:ignore
pub const IBV_OPCODE_UD: u8 = 0x60;

// Operations: only used to compose the real opcodes.
/// Operation `SEND_FIRST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_SEND_FIRST: u8 = 0x00;
/// Operation `SEND_MIDDLE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_SEND_MIDDLE: u8 = 0x01;
/// Operation `SEND_LAST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_SEND_LAST: u8 = 0x02;
/// Operation `SEND_LAST_WITH_IMMEDIATE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE: u8 = 0x03;
/// Operation `SEND_ONLY` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_SEND_ONLY: u8 = 0x04;
/// Operation `SEND_ONLY_WITH_IMMEDIATE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE: u8 = 0x05;
/// Operation `RDMA_WRITE_FIRST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_WRITE_FIRST: u8 = 0x06;
/// Operation `RDMA_WRITE_MIDDLE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_WRITE_MIDDLE: u8 = 0x07;
/// Operation `RDMA_WRITE_LAST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_WRITE_LAST: u8 = 0x08;
/// Operation `RDMA_WRITE_LAST_WITH_IMMEDIATE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 = 0x09;
/// Operation `RDMA_WRITE_ONLY` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_WRITE_ONLY: u8 = 0x0a;
/// Operation `RDMA_WRITE_ONLY_WITH_IMMEDIATE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 = 0x0b;
/// Operation `RDMA_READ_REQUEST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_READ_REQUEST: u8 = 0x0c;
/// Operation `RDMA_READ_RESPONSE_FIRST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_READ_RESPONSE_FIRST: u8 = 0x0d;
/// Operation `RDMA_READ_RESPONSE_MIDDLE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_READ_RESPONSE_MIDDLE: u8 = 0x0e;
/// Operation `RDMA_READ_RESPONSE_LAST` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_READ_RESPONSE_LAST: u8 = 0x0f;
/// Operation `RDMA_READ_RESPONSE_ONLY` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_RDMA_READ_RESPONSE_ONLY: u8 = 0x10;
/// Operation `ACKNOWLEDGE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_ACKNOWLEDGE: u8 = 0x11;
/// Operation `ATOMIC_ACKNOWLEDGE` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_ATOMIC_ACKNOWLEDGE: u8 = 0x12;
/// Operation `COMPARE_SWAP` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_COMPARE_SWAP: u8 = 0x13;
/// Operation `FETCH_ADD` (add a transport base).
/// cbindgen:ignore
pub const IBV_OPCODE_FETCH_ADD: u8 = 0x14;

// RC: reliable connected.
/// RC `SEND_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_SEND_FIRST: u8 = IBV_OPCODE_RC + IBV_OPCODE_SEND_FIRST;
/// RC `SEND_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_SEND_MIDDLE: u8 = IBV_OPCODE_RC + IBV_OPCODE_SEND_MIDDLE;
/// RC `SEND_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_SEND_LAST: u8 = IBV_OPCODE_RC + IBV_OPCODE_SEND_LAST;
/// RC `SEND_LAST_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE: u8 = IBV_OPCODE_RC + IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE;
/// RC `SEND_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_SEND_ONLY: u8 = IBV_OPCODE_RC + IBV_OPCODE_SEND_ONLY;
/// RC `SEND_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_RC + IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE;
/// RC `RDMA_WRITE_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_WRITE_FIRST: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_WRITE_FIRST;
/// RC `RDMA_WRITE_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_WRITE_MIDDLE: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_WRITE_MIDDLE;
/// RC `RDMA_WRITE_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_WRITE_LAST: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_WRITE_LAST;
/// RC `RDMA_WRITE_LAST_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE;
/// RC `RDMA_WRITE_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_WRITE_ONLY: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_WRITE_ONLY;
/// RC `RDMA_WRITE_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
/// RC `RDMA_READ_REQUEST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_READ_REQUEST: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_READ_REQUEST;
/// RC `RDMA_READ_RESPONSE_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_FIRST: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_READ_RESPONSE_FIRST;
/// RC `RDMA_READ_RESPONSE_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_READ_RESPONSE_MIDDLE;
/// RC `RDMA_READ_RESPONSE_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_LAST: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_READ_RESPONSE_LAST;
/// RC `RDMA_READ_RESPONSE_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_RDMA_READ_RESPONSE_ONLY: u8 = IBV_OPCODE_RC + IBV_OPCODE_RDMA_READ_RESPONSE_ONLY;
/// RC `ACKNOWLEDGE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_ACKNOWLEDGE: u8 = IBV_OPCODE_RC + IBV_OPCODE_ACKNOWLEDGE;
/// RC `ATOMIC_ACKNOWLEDGE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_ATOMIC_ACKNOWLEDGE: u8 = IBV_OPCODE_RC + IBV_OPCODE_ATOMIC_ACKNOWLEDGE;
/// RC `COMPARE_SWAP`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_COMPARE_SWAP: u8 = IBV_OPCODE_RC + IBV_OPCODE_COMPARE_SWAP;
/// RC `FETCH_ADD`.
/// cbindgen:ignore
pub const IBV_OPCODE_RC_FETCH_ADD: u8 = IBV_OPCODE_RC + IBV_OPCODE_FETCH_ADD;

// UC: unreliable connected.
/// UC `SEND_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_SEND_FIRST: u8 = IBV_OPCODE_UC + IBV_OPCODE_SEND_FIRST;
/// UC `SEND_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_SEND_MIDDLE: u8 = IBV_OPCODE_UC + IBV_OPCODE_SEND_MIDDLE;
/// UC `SEND_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_SEND_LAST: u8 = IBV_OPCODE_UC + IBV_OPCODE_SEND_LAST;
/// UC `SEND_LAST_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE: u8 = IBV_OPCODE_UC + IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE;
/// UC `SEND_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_SEND_ONLY: u8 = IBV_OPCODE_UC + IBV_OPCODE_SEND_ONLY;
/// UC `SEND_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_UC + IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE;
/// UC `RDMA_WRITE_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_RDMA_WRITE_FIRST: u8 = IBV_OPCODE_UC + IBV_OPCODE_RDMA_WRITE_FIRST;
/// UC `RDMA_WRITE_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_RDMA_WRITE_MIDDLE: u8 = IBV_OPCODE_UC + IBV_OPCODE_RDMA_WRITE_MIDDLE;
/// UC `RDMA_WRITE_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_RDMA_WRITE_LAST: u8 = IBV_OPCODE_UC + IBV_OPCODE_RDMA_WRITE_LAST;
/// UC `RDMA_WRITE_LAST_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 = IBV_OPCODE_UC + IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE;
/// UC `RDMA_WRITE_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_RDMA_WRITE_ONLY: u8 = IBV_OPCODE_UC + IBV_OPCODE_RDMA_WRITE_ONLY;
/// UC `RDMA_WRITE_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_UC + IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE;

// RD: reliable datagram.
/// RD `SEND_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_SEND_FIRST: u8 = IBV_OPCODE_RD + IBV_OPCODE_SEND_FIRST;
/// RD `SEND_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_SEND_MIDDLE: u8 = IBV_OPCODE_RD + IBV_OPCODE_SEND_MIDDLE;
/// RD `SEND_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_SEND_LAST: u8 = IBV_OPCODE_RD + IBV_OPCODE_SEND_LAST;
/// RD `SEND_LAST_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE: u8 = IBV_OPCODE_RD + IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE;
/// RD `SEND_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_SEND_ONLY: u8 = IBV_OPCODE_RD + IBV_OPCODE_SEND_ONLY;
/// RD `SEND_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_RD + IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE;
/// RD `RDMA_WRITE_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_WRITE_FIRST: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_WRITE_FIRST;
/// RD `RDMA_WRITE_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_WRITE_MIDDLE: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_WRITE_MIDDLE;
/// RD `RDMA_WRITE_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_WRITE_LAST: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_WRITE_LAST;
/// RD `RDMA_WRITE_LAST_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE;
/// RD `RDMA_WRITE_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_WRITE_ONLY: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_WRITE_ONLY;
/// RD `RDMA_WRITE_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
/// RD `RDMA_READ_REQUEST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_READ_REQUEST: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_READ_REQUEST;
/// RD `RDMA_READ_RESPONSE_FIRST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_FIRST: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_READ_RESPONSE_FIRST;
/// RD `RDMA_READ_RESPONSE_MIDDLE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_READ_RESPONSE_MIDDLE;
/// RD `RDMA_READ_RESPONSE_LAST`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_LAST: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_READ_RESPONSE_LAST;
/// RD `RDMA_READ_RESPONSE_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_RDMA_READ_RESPONSE_ONLY: u8 = IBV_OPCODE_RD + IBV_OPCODE_RDMA_READ_RESPONSE_ONLY;
/// RD `ACKNOWLEDGE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_ACKNOWLEDGE: u8 = IBV_OPCODE_RD + IBV_OPCODE_ACKNOWLEDGE;
/// RD `ATOMIC_ACKNOWLEDGE`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_ATOMIC_ACKNOWLEDGE: u8 = IBV_OPCODE_RD + IBV_OPCODE_ATOMIC_ACKNOWLEDGE;
/// RD `COMPARE_SWAP`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_COMPARE_SWAP: u8 = IBV_OPCODE_RD + IBV_OPCODE_COMPARE_SWAP;
/// RD `FETCH_ADD`.
/// cbindgen:ignore
pub const IBV_OPCODE_RD_FETCH_ADD: u8 = IBV_OPCODE_RD + IBV_OPCODE_FETCH_ADD;

// UD: unreliable datagram.
/// UD `SEND_ONLY`.
/// cbindgen:ignore
pub const IBV_OPCODE_UD_SEND_ONLY: u8 = IBV_OPCODE_UD + IBV_OPCODE_SEND_ONLY;
/// UD `SEND_ONLY_WITH_IMMEDIATE`.
/// cbindgen:ignore
pub const IBV_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE: u8 = IBV_OPCODE_UD + IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composed() {
        assert_eq!(IBV_OPCODE_UC_SEND_ONLY, 0x24);
        assert_eq!(IBV_OPCODE_RD_FETCH_ADD, 0x54);
        assert_eq!(IBV_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE, 0x65);
    }
}
