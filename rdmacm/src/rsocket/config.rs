//! The defaults rdma-core's rsockets read once per process from `/etc/rdma/rsocket/` (one number per file), with
//! rdma-core's built-in values when a file is missing or unreadable (65's: `wake_up_interval` went from 44's 5000 ms
//! to 500).
//!
//! | file | default | meaning |
//! |---|---|---|
//! | `polling_time` | 10 | microseconds a blocking call polls the CQ before sleeping |
//! | `wake_up_interval` | 500 | milliseconds `rpoll` sleeps at most before checking every rsocket again |
//! | `inline_default` | 64 | inline data bytes of the send queue |
//! | `sqsize_default`, `rqsize_default` | 384 | send / receive queue depths |
//! | `mem_default` | 131072 | receive buffer bytes (at least 1) |
//! | `wmem_default` | 131072 | send buffer bytes (below 2048: 4096) |
//! | `iomap_size` | 0 | `riomap` slots (rounded as the protocol scales them) |

use super::wire::{scale_to_value, value_to_scale, SNDLOWAT};
use once_cell::sync::Lazy;
use std::path::Path;

/// The directory rdma-core reads (`RS_CONF_DIR`).
pub(super) const CONF_DIR: &str = "/etc/rdma/rsocket";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Defaults {
    pub polling_time_us: u32,
    pub wake_up_interval_ms: i32,
    pub inline: u16,
    pub sqsize: u16,
    pub rqsize: u16,
    pub mem: u32,
    pub wmem: u32,
    pub iomap_size: u16,
}

impl Defaults {
    pub(super) const BUILT_IN: Defaults = Defaults {
        polling_time_us: 10,
        wake_up_interval_ms: 500,
        inline: 64,
        sqsize: 384,
        rqsize: 384,
        mem: 1 << 17,
        wmem: 1 << 17,
        iomap_size: 0,
    };

    /// Reads the files of `dir` over the built-in values.
    pub(super) fn load(dir: &Path) -> Defaults {
        Defaults::from_files(|name| std::fs::read_to_string(dir.join(name)).ok())
    }

    /// The defaults from the file texts `file(name)` gives (None: missing or unreadable), over the built-in values:
    /// each file's first word, as a decimal number (anything else is ignored).
    pub(crate) fn from_files(file: impl Fn(&str) -> Option<String>) -> Defaults {
        let mut d = Defaults::BUILT_IN;
        let read = |name: &str| -> Option<i64> { file(name)?.split_whitespace().next()?.parse::<i64>().ok() };
        if let Some(v) = read("polling_time") {
            d.polling_time_us = v as u32;
        }
        if let Some(v) = read("wake_up_interval") {
            d.wake_up_interval_ms = v as i32;
        }
        if let Some(v) = read("inline_default") {
            d.inline = v as u16;
        }
        if let Some(v) = read("sqsize_default") {
            d.sqsize = v as u16;
        }
        if let Some(v) = read("rqsize_default") {
            d.rqsize = v as u16;
        }
        if let Some(v) = read("mem_default") {
            d.mem = (v as u32).max(1);
        }
        if let Some(v) = read("wmem_default") {
            d.wmem = v as u32;
            if d.wmem < SNDLOWAT {
                d.wmem = SNDLOWAT << 1;
            }
        }
        if let Some(v) = read("iomap_size") {
            let v = v as u16;
            d.iomap_size = value_to_scale(scale_to_value(i32::from(v), 8) as u16 as i32, 8) as u8 as u16;
        }
        log::debug!("rsocket defaults: {d:?}");
        d
    }
}

static DEFAULTS: Lazy<Defaults> = Lazy::new(|| Defaults::load(Path::new(CONF_DIR)));

/// The process's defaults (read at the first use).
pub(super) fn defaults() -> Defaults {
    *DEFAULTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_override_built_ins() {
        let dir = std::env::temp_dir().join(format!("rsock-conf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(Defaults::load(&dir), Defaults::BUILT_IN);
        std::fs::write(dir.join("sqsize_default"), "128\n").unwrap();
        std::fs::write(dir.join("wmem_default"), "100").unwrap();
        std::fs::write(dir.join("mem_default"), "0").unwrap();
        std::fs::write(dir.join("inline_default"), "junk").unwrap();
        std::fs::write(dir.join("iomap_size"), "300").unwrap();
        let d = Defaults::load(&dir);
        assert_eq!((d.sqsize, d.wmem, d.mem, d.inline), (128, 4096, 1, 64));
        assert_eq!(d.iomap_size, value_to_scale(scale_to_value(300, 8), 8) as u8 as u16);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
