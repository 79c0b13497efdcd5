//! The sysfs helpers rdma-core exports (declared in its uninstalled `driver.h`, used by providers and tools):
//! `ibv_get_sysfs_path` and `ibv_read_sysfs_file`. Both are implemented, with rdma-core 44's behaviour.
#![allow(unsafe_code)]

use once_cell::sync::OnceCell;
use rdma_common::abi::verbs::IBV_SYSFS_PATH_MAX;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use rdma_common::Errno;
use std::ffi::{c_char, c_int, CStr, CString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

/// The sysfs mount point, decided once per process.
static SYSFS_PATH: OnceCell<CString> = OnceCell::new();

/// What `ibv_get_sysfs_path` answers: `$SYSFS_PATH`, cut to `IBV_SYSFS_PATH_MAX` bytes and without trailing
/// slashes, when it is set and the process is not set-uid; `/sys` otherwise.
fn sysfs_path() -> &'static CStr {
    SYSFS_PATH.get_or_init(|| {
        match rdma_common::env::path("SYSFS_PATH") {
            Some(v) => {
                let mut bytes = v.as_bytes();
                bytes = &bytes[..bytes.len().min(IBV_SYSFS_PATH_MAX)];
                while let [rest @ .., b'/'] = bytes {
                    bytes = rest;
                }
                // An environment string holds no NUL.
                CString::new(bytes).unwrap_or_default()
            }
            None => c"/sys".to_owned(),
        }
    })
}

/// `ibv_get_sysfs_path`: the directory sysfs is mounted on, for building sysfs paths: `/sys`, or the `SYSFS_PATH`
/// environment variable (without trailing slashes) when set in a process that is not set-uid. The string is
/// static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_sysfs_path() -> *const c_char {
    sysfs_path().as_ptr()
}

/// Reads `dir/file` into `buf` with one `read`, as `ibv_read_sysfs_file` does: a trailing newline becomes the NUL
/// terminator; otherwise a NUL is appended when there is room, and a file that fills `buf` exactly is an error
/// (`EOVERFLOW`) rather than an unterminated string. An empty file gives 0 and leaves `buf` alone.
fn read_sysfs_file(dir: &CStr, file: &CStr, buf: &mut [u8]) -> Result<usize> {
    let mut path = dir.to_bytes().to_vec();
    path.push(b'/');
    path.extend_from_slice(file.to_bytes());
    let mut f = std::fs::File::open(std::ffi::OsStr::from_bytes(&path))?;
    let mut len = f.read(buf)?;
    if len > 0 {
        if buf[len - 1] == b'\n' {
            len -= 1;
            buf[len] = 0;
        } else if len < buf.len() {
            buf[len] = 0;
        } else {
            return Err(Errno::EOVERFLOW);
        }
    }
    Ok(len)
}

/// `ibv_read_sysfs_file`: reads the sysfs attribute `dir/file` into `buf` (at most `size` bytes) and
/// NUL-terminates it, dropping one trailing newline.
///
/// Returns the length of the string, or -1 with `errno` set (from `open`/`read`; `EOVERFLOW` when the contents
/// fill `buf` with no room for the terminator; `EINVAL` for NULL pointers).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_sysfs_file(
    dir: *const c_char,
    file: *const c_char,
    buf: *mut c_char,
    size: usize,
) -> c_int {
    ffi::boundary("ibv_read_sysfs_file", || -> Result<c_int> {
        let dir = ffi::nonnull_const(dir)?;
        let file = ffi::nonnull_const(file)?;
        let buf = ffi::nonnull(buf)?;
        // SAFETY: the caller passes NUL-terminated strings and a writable buffer of `size` bytes.
        let (dir, file, buf) = unsafe {
            (
                CStr::from_ptr(dir.as_ptr()),
                CStr::from_ptr(file.as_ptr()),
                std::slice::from_raw_parts_mut(buf.as_ptr().cast::<u8>(), size),
            )
        };
        let len = read_sysfs_file(dir, file, buf)?;
        // A single read(2) returns at most 0x7ffff000 bytes.
        Ok(c_int::try_from(len).unwrap_or(c_int::MAX))
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_get_sysfs_path, ibv_read_sysfs_file);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_rdma_core() {
        let dir = std::env::temp_dir().join(format!("ibv-sysfs-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("nl"), b"4: ACTIVE\n").unwrap();
        std::fs::write(dir.join("raw"), b"abc").unwrap();
        std::fs::write(dir.join("empty"), b"").unwrap();
        let d = CString::new(dir.as_os_str().as_bytes()).unwrap();
        let mut buf = [0x55u8; 16];
        assert_eq!(read_sysfs_file(&d, c"nl", &mut buf), Ok(9));
        assert_eq!(&buf[..10], b"4: ACTIVE\0");
        let mut buf = [0x55u8; 4];
        assert_eq!(read_sysfs_file(&d, c"raw", &mut buf), Ok(3));
        assert_eq!(&buf, b"abc\0");
        let mut buf = [0x55u8; 3];
        assert_eq!(read_sysfs_file(&d, c"raw", &mut buf), Err(Errno::EOVERFLOW));
        let mut buf = [0x55u8; 3];
        assert_eq!(read_sysfs_file(&d, c"empty", &mut buf), Ok(0));
        assert_eq!(buf, [0x55; 3]);
        assert_eq!(read_sysfs_file(&d, c"missing", &mut buf), Err(Errno::ENOENT));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sysfs_path_is_sys_or_env() {
        let p = sysfs_path().to_str().unwrap();
        match std::env::var("SYSFS_PATH") {
            Ok(v) => assert_eq!(p, v.trim_end_matches('/')),
            Err(_) => assert_eq!(p, "/sys"),
        }
    }
}
