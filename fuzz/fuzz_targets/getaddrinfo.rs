//! Fuzz target `getaddrinfo`: see `rdmacm::fuzzing::getaddrinfo` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmacm::fuzzing::getaddrinfo(data));
