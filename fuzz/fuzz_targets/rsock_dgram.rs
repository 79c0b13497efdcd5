//! Fuzz target `rsock_dgram`: see `rdmacm::fuzzing::rsock_dgram` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmacm::fuzzing::rsock_dgram(data));
