//! Fuzz target `rsock_stream`: see `rdmacm::fuzzing::rsock_stream` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmacm::fuzzing::rsock_stream(data));
