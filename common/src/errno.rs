//! A positive errno value and the `Result` alias every internal function returns.
#![allow(unsafe_code)]

use std::fmt;

/// A positive `errno` value (`EINVAL`, `EOPNOTSUPP`, ...). Conversions to the C return conventions happen only in
/// [`crate::ffi`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

/// The result type of every fallible internal function.
pub type Result<T> = std::result::Result<T, Errno>;

impl Errno {
    pub const EPERM: Errno = Errno(libc::EPERM);
    pub const ENOENT: Errno = Errno(libc::ENOENT);
    pub const EINTR: Errno = Errno(libc::EINTR);
    pub const EIO: Errno = Errno(libc::EIO);
    pub const ENXIO: Errno = Errno(libc::ENXIO);
    pub const EHOSTUNREACH: Errno = Errno(libc::EHOSTUNREACH);
    pub const EBADF: Errno = Errno(libc::EBADF);
    pub const EAGAIN: Errno = Errno(libc::EAGAIN);
    pub const ENOMEM: Errno = Errno(libc::ENOMEM);
    pub const EACCES: Errno = Errno(libc::EACCES);
    pub const EFAULT: Errno = Errno(libc::EFAULT);
    pub const EBUSY: Errno = Errno(libc::EBUSY);
    pub const EEXIST: Errno = Errno(libc::EEXIST);
    pub const ENODEV: Errno = Errno(libc::ENODEV);
    pub const EINVAL: Errno = Errno(libc::EINVAL);
    pub const ENOSPC: Errno = Errno(libc::ENOSPC);
    pub const ERANGE: Errno = Errno(libc::ERANGE);
    pub const ENOSYS: Errno = Errno(libc::ENOSYS);
    pub const ENODATA: Errno = Errno(libc::ENODATA);
    pub const EPROTO: Errno = Errno(libc::EPROTO);
    pub const EOVERFLOW: Errno = Errno(libc::EOVERFLOW);
    pub const EOPNOTSUPP: Errno = Errno(libc::EOPNOTSUPP);
    pub const EADDRNOTAVAIL: Errno = Errno(libc::EADDRNOTAVAIL);
    pub const ETIMEDOUT: Errno = Errno(libc::ETIMEDOUT);
    pub const ECONNREFUSED: Errno = Errno(libc::ECONNREFUSED);
    pub const ENOTCONN: Errno = Errno(libc::ENOTCONN);
    pub const EISCONN: Errno = Errno(libc::EISCONN);

    /// The calling thread's current `errno`.
    #[inline]
    pub fn last() -> Errno {
        // SAFETY: __errno_location always returns a valid pointer to the thread's errno. (Read directly rather
        // than through std::io::Error, whose drop the data path would otherwise have to call.)
        Errno(unsafe { *libc::__errno_location() })
    }

    /// Store this value in the calling thread's `errno`.
    #[inline]
    pub fn set(self) {
        // SAFETY: __errno_location always returns a valid pointer to the thread's errno.
        unsafe { *libc::__errno_location() = self.0 };
    }

    /// The symbolic name (`EINVAL`), or `errno N` for a value without one here: for log lines.
    pub fn name(self) -> String {
        let n = match self.0 {
            libc::EPERM => "EPERM",
            libc::ENOENT => "ENOENT",
            libc::EINTR => "EINTR",
            libc::EIO => "EIO",
            libc::ENXIO => "ENXIO",
            libc::EBADF => "EBADF",
            libc::EAGAIN => "EAGAIN",
            libc::ENOMEM => "ENOMEM",
            libc::EACCES => "EACCES",
            libc::EFAULT => "EFAULT",
            libc::EBUSY => "EBUSY",
            libc::EEXIST => "EEXIST",
            libc::ENODEV => "ENODEV",
            libc::EINVAL => "EINVAL",
            libc::ENOSPC => "ENOSPC",
            libc::ERANGE => "ERANGE",
            libc::ENOSYS => "ENOSYS",
            libc::ENODATA => "ENODATA",
            libc::EPROTO => "EPROTO",
            libc::EOVERFLOW => "EOVERFLOW",
            libc::EOPNOTSUPP => "EOPNOTSUPP",
            libc::EADDRINUSE => "EADDRINUSE",
            libc::EADDRNOTAVAIL => "EADDRNOTAVAIL",
            libc::ENETUNREACH => "ENETUNREACH",
            libc::ECONNRESET => "ECONNRESET",
            libc::EISCONN => "EISCONN",
            libc::ENOTCONN => "ENOTCONN",
            libc::ETIMEDOUT => "ETIMEDOUT",
            libc::ECONNREFUSED => "ECONNREFUSED",
            libc::EHOSTUNREACH => "EHOSTUNREACH",
            n => return format!("errno {n}"),
        };
        n.to_string()
    }
}

impl From<std::io::Error> for Errno {
    fn from(e: std::io::Error) -> Errno {
        Errno(e.raw_os_error().unwrap_or(libc::EIO))
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.0, std::io::Error::from_raw_os_error(self.0))
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}
