//! Diagnostics, controlled the way rdma-core controls its own.
//!
//! * `VERBS_LOG_LEVEL`: `0` none (default), `1` errors, `2` warnings, `3` info, `4` debug; we add `5` trace.
//!   Level names (`error`, `warn`, `info`, `debug`, `trace`) are accepted too.
//! * `VERBS_LOG_FILE`: a path to append to; standard error when unset or unopenable.
//!
//! Each library calls [`init`] once (from its first entry point that can log); it installs a `log` logger for
//! that library's copy of the `log` crate.

use once_cell::sync::OnceCell;
use parking_lot::Mutex;
use std::fs::{File, OpenOptions};
use std::io::Write;

struct Logger {
    lib: &'static str,
    out: Mutex<Option<File>>,
}

impl log::Log for Logger {
    fn enabled(&self, meta: &log::Metadata<'_>) -> bool {
        meta.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        self.write_line(&record.level().as_str().to_lowercase(), record.args());
    }

    fn flush(&self) {}
}

impl Logger {
    /// Writes one line `lib: level: text` to the sink.
    fn write_line(&self, level: &str, args: &std::fmt::Arguments<'_>) {
        let line = format!("{}: {}: {}\n", self.lib, level, args);
        let mut out = self.out.lock();
        match out.as_mut() {
            Some(f) => {
                let _ = f.write_all(line.as_bytes());
            }
            None => {
                let _ = std::io::stderr().write_all(line.as_bytes());
            }
        }
    }
}

static LOGGER: OnceCell<Logger> = OnceCell::new();

/// Parses a `VERBS_LOG_LEVEL` value.
pub fn parse_level(s: &str) -> log::LevelFilter {
    match s.trim().to_ascii_lowercase().as_str() {
        "0" | "none" | "off" | "" => log::LevelFilter::Off,
        "1" | "err" | "error" => log::LevelFilter::Error,
        "2" | "warn" | "warning" => log::LevelFilter::Warn,
        "3" | "info" => log::LevelFilter::Info,
        "4" | "debug" => log::LevelFilter::Debug,
        "5" | "trace" => log::LevelFilter::Trace,
        other => match other.parse::<u32>() {
            Ok(n) if n > 5 => log::LevelFilter::Trace,
            _ => log::LevelFilter::Off,
        },
    }
}

/// Installs this library's logger (idempotent, cheap after the first call). `lib` prefixes every line
/// (`"libibverbs"`, `"librdmacm"`).
pub fn init(lib: &'static str) {
    LOGGER.get_or_init(|| {
        let level = crate::env::var("VERBS_LOG_LEVEL").map(|v| parse_level(&v)).unwrap_or(log::LevelFilter::Off);
        // Never in a set-uid process (crate::env::path): it would create the file with the program's privileges.
        let out =
            crate::env::path("VERBS_LOG_FILE").and_then(|p| OpenOptions::new().create(true).append(true).open(p).ok());
        let logger = Logger { lib, out: Mutex::new(out) };
        log::set_max_level(level);
        logger
    });
    // set_logger fails harmlessly if another thread won the race.
    if let Some(l) = LOGGER.get() {
        let _ = log::set_logger(l);
    }
}

/// Writes `args` as an `info` line of this library's log whatever `VERBS_LOG_LEVEL` says (what the user asked for
/// by another variable, e.g. the counters of `RDMAV_STATS=1`): to `VERBS_LOG_FILE`, or standard error. Nothing
/// before [`init`].
pub fn always(args: std::fmt::Arguments<'_>) {
    if let Some(l) = LOGGER.get() {
        l.write_line("info", &args);
    }
}

/// Logs, once per process and `what`, that an entry point is not implemented and answers `EOPNOTSUPP`.
pub fn unsupported_once(what: &'static str) {
    static SEEN: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock();
    if !seen.contains(&what) {
        seen.push(what);
        log::warn!("{what}: not implemented; returning EOPNOTSUPP");
    }
}

#[cfg(test)]
mod tests {
    use super::parse_level;
    use log::LevelFilter;

    #[test]
    fn levels() {
        assert_eq!(parse_level("0"), LevelFilter::Off);
        assert_eq!(parse_level("1"), LevelFilter::Error);
        assert_eq!(parse_level("4"), LevelFilter::Debug);
        assert_eq!(parse_level("debug"), LevelFilter::Debug);
        assert_eq!(parse_level("9"), LevelFilter::Trace);
        assert_eq!(parse_level("junk"), LevelFilter::Off);
    }
}
