//! Fuzz target `rsock_udp_service`: see `rdmacm::fuzzing::rsock_udp_service` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmacm::fuzzing::rsock_udp_service(data));
