//! Every environment variable both libraries read goes through here (`std::env` is called nowhere else).
//!
//! Two kinds:
//! * [`path`]: a variable that names a file, a directory or a library (`VERBS_LOG_FILE`, `SYSFS_PATH`,
//!   `RDMAV_DRIVERS`, `IBV_DRIVERS`, `RDMAV_STATS_DIR`). In a set-uid, set-gid or otherwise privileged process ([`secure`], the
//!   kernel's `AT_SECURE`, or real and effective ids that differ) it reads as unset, as glibc's `secure_getenv`
//!   does: the caller of a set-uid program must not make it create, append to or load files with its privileges.
//!   rdma-core 44 guards `SYSFS_PATH` and the driver list (`getuid() == geteuid()`) but opens `VERBS_LOG_FILE`
//!   even then; we guard all of them.
//! * [`var`] / [`flag`]: settings (levels, modes, on/off switches), read as they are in any process.
#![allow(unsafe_code)]

use std::ffi::OsString;

/// Whether the process is privileged in `secure_getenv`'s sense: the kernel set `AT_SECURE` (set-uid, set-gid,
/// file capabilities, an LSM transition), or its real and effective user or group ids differ.
pub fn secure() -> bool {
    // SAFETY: plain libc queries with no memory arguments; they cannot fail.
    unsafe {
        libc::getauxval(libc::AT_SECURE) != 0 || libc::getuid() != libc::geteuid() || libc::getgid() != libc::getegid()
    }
}

/// A variable naming a file, directory or library: its value, or `None` when unset or when the process is
/// [`secure`] (logged at debug level when a set value is ignored).
pub fn path(name: &str) -> Option<OsString> {
    let v = std::env::var_os(name)?;
    if secure() {
        log::debug!("{name} ignored: the process is set-uid/set-gid (AT_SECURE)");
        return None;
    }
    Some(v)
}

/// A setting's value as UTF-8 (`None` when unset or not UTF-8).
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Whether a switch is set at all (any value, as rdma-core's `getenv(name) != NULL`).
pub fn is_set(name: &str) -> bool {
    std::env::var_os(name).is_some()
}

/// rdma-core's `check_env`: set and not `"0"`.
pub fn flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v != "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_secure_in_tests() {
        // cargo test runs unprivileged: paths read through.
        assert!(!secure());
        assert_eq!(path("RDMA_CORE_RS_SURELY_UNSET_VARIABLE"), None);
        assert!(path("PATH").is_some() || std::env::var_os("PATH").is_none());
    }
}
