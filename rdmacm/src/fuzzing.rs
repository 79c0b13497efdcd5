//! Entry points for the cargo-fuzz targets of `fuzz/` (built only with the `fuzzing` feature, never by `make`).
//!
//! Each takes the fuzzer's bytes and feeds them to the library's own code for that outside input: the
//! `rdma_getaddrinfo` body, the processing of a kernel CM event, the parsers of the files librdmacm reads. Nothing
//! here makes a system call with the parsed data (`getaddrinfo` is asked for numeric hosts and services only).

/// `fuzz/fuzz_targets/getaddrinfo.rs`: see `cm::addrinfo::fuzz` for the layout of `data`.
pub fn getaddrinfo(data: &[u8]) {
    crate::cm::addrinfo::fuzz(data)
}

/// `fuzz/fuzz_targets/cm_event.rs`: `data` as a `struct rdma_ucm_event_resp`; see `cm::event::fuzz`.
pub fn cm_event(data: &[u8]) {
    crate::cm::event::fuzz(data)
}

/// `fuzz/fuzz_targets/cm_files.rs`: `data` (as UTF-8, which the readers require) as the files librdmacm reads:
/// an rdma_ucm `abi_version` (the whole text), `/proc/sys/net/ipv4/tcp_keepalive_time` (the whole text), and the
/// rsocket defaults of `/etc/rdma/rsocket/` (line N is the N-th file of `polling_time`, `wake_up_interval`,
/// `inline_default`, `sqsize_default`, `rqsize_default`, `mem_default`, `wmem_default`, `iomap_size`).
pub fn cm_files(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let _ = crate::kernel::parse_abi_version(s);
    let _ = crate::rsocket::options::keepalive_time_from(Some(s));
    const FILES: [&str; 8] = [
        "polling_time",
        "wake_up_interval",
        "inline_default",
        "sqsize_default",
        "rqsize_default",
        "mem_default",
        "wmem_default",
        "iomap_size",
    ];
    let lines: Vec<&str> = s.lines().collect();
    let _ = crate::rsocket::config::Defaults::from_files(|name| {
        let i = FILES.iter().position(|f| *f == name)?;
        lines.get(i).map(|l| l.to_string())
    });
}

/// `fuzz/fuzz_targets/rsock_stream.rs`: a connected stream rsocket (no device) takes the peer's connection data and
/// a sequence of its messages and writes, against the application's reads and sends; see `rsocket::fuzz::stream`.
pub fn rsock_stream(data: &[u8]) {
    crate::rsocket::fuzz::stream(data)
}

/// `fuzz/fuzz_targets/rsock_dgram.rs`: a datagram's UD receive completion (`byte_len`, the slot's bytes) as the
/// datagram path checks it; see `rsocket::fuzz::dgram`.
pub fn rsock_dgram(data: &[u8]) {
    crate::rsocket::fuzz::dgram(data)
}

/// `fuzz/fuzz_targets/rsock_udp_service.rs`: messages to a datagram rsocket's UDP address service, parsed and
/// planned against a simulated destination table; see `rsocket::fuzz::udp_service`.
pub fn rsock_udp_service(data: &[u8]) {
    crate::rsocket::fuzz::udp_service(data)
}
