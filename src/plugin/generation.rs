//! Which rdma-core release built a plug-in that registered through `verbs_register_driver_34`.
//!
//! rdma-core 44 and rdma-core 45 to 56 both export `IBVERBS_PRIVATE_34`, and their plug-ins are all named
//! `lib<name>-rdmav34.so`, but the interface changed in between (a longer `ibv_qp_ex` inside every `verbs_qp`, a
//! longer `ibv_port_attr`, an 8th argument to `ibv_cmd_reg_dmabuf_mr`; [`Generation`]). Nothing in
//! `verbs_device_ops` says which one a plug-in expects, so the library decides once, when the plug-in registers,
//! from the first of these that answers (docs/providers.md, "Generations"):
//!
//! 1. `RDMAV_PLUGIN_GENERATION=44` or `56` (an override for every PABI-34 plug-in of the process);
//! 2. the package version in the real name of the plug-in's file (`dladdr` of its ops, then `realpath`:
//!    `libmlx5-rdmav34.so -> libmlx5.so.1.25.56.1`), or, for a module whose name carries none
//!    (`librxe-rdmav34.so`), in the real names of the shared providers beside it (`lib{mlx5,mlx4,efa,hns,mana}-
//!    rdmav34.so` in the same directory; Debian builds all plug-ins of a system in one package): below 45 is
//!    rdma-core 44's generation, anything later the 56 one;
//! 3. imports only the later releases have (`ibv_cmd_create_cq_ex2`, `ibv_wr_opcode_str`) in the plug-in's
//!    `.dynsym`: the 56 generation;
//! 4. dpkg's record of `ibverbs-providers` in the root the plug-in lives in (`<root>/var/lib/dpkg/status`);
//! 5. otherwise the 56 generation, with a warning: taking a 44 plug-in for a 56 one only misplaces the `xrcd`
//!    word of XRC QPs, taking a 56 plug-in for a 44 one breaks every extended QP.

#![allow(unsafe_code)]

use rdma_common::abi::driver::Generation;
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};

/// The override variable (a setting, not a path: honoured in set-uid processes too).
pub const OVERRIDE_VAR: &str = "RDMAV_PLUGIN_GENERATION";

/// The shared providers whose real file names carry the package version (rdma-core's `rdma_shared_provider`).
const SHARED_PROVIDERS: [&str; 5] = ["mlx5", "mlx4", "efa", "hns", "mana"];

/// Imports that only plug-ins built by rdma-core 45 and later have.
const LATER_IMPORTS: [&str; 2] = ["ibv_cmd_create_cq_ex2", "ibv_wr_opcode_str"];

/// The generation of a PABI-34 plug-in, with the evidence that decided it (for the log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub generation: Generation,
    pub reason: String,
}

/// The override, if `RDMAV_PLUGIN_GENERATION` names a PABI-34 generation (44, 56); anything else is ignored
/// with a warning.
pub fn override_generation() -> Option<Generation> {
    parse_override(rdma_common::env::var(OVERRIDE_VAR).as_deref())
}

fn parse_override(v: Option<&str>) -> Option<Generation> {
    match v.map(str::trim) {
        None | Some("") => None,
        Some("44") => Some(Generation::R44),
        Some("56") => Some(Generation::R56),
        Some(other) => {
            log::warn!("{OVERRIDE_VAR}={other}: not a generation of IBVERBS_PRIVATE_34 (44, 56); ignored");
            None
        }
    }
}

/// The generation a PABI-34 plug-in gets when nothing tells: the override, else rdma-core 56's.
pub fn default_34() -> Generation {
    override_generation().unwrap_or(Generation::R56)
}

/// The generation of a release's PABI-34 plug-ins: rdma-core 44's up to 44, the later one from 45.
fn of_release(major: u32) -> Generation {
    if major < 45 {
        Generation::R44
    } else {
        Generation::R56
    }
}

/// The package's major version in a shared provider's real file name: `libmlx5.so.1.25.56.1` -> 56 (the name is
/// `lib<name>.so.<soversion>.<minor>.<package version>`, the package version `MAJOR.MINOR`).
pub fn release_of_file_name(name: &str) -> Option<u32> {
    let (_, tail) = name.split_once(".so.")?;
    let parts: Vec<&str> = tail.split('.').collect();
    if parts.len() < 4 || !parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    parts[2].parse().ok()
}

/// The release in the real file name of `path` (symbolic links followed).
fn release_of_path(path: &Path) -> Option<u32> {
    let real = std::fs::canonicalize(path).ok()?;
    release_of_file_name(real.file_name()?.to_str()?)
}

/// The release the shared providers in `dir` were built by (`lib<name>-rdmav34.so` followed to its real name),
/// if those present agree.
fn release_of_siblings(dir: &Path) -> Option<u32> {
    let found: Vec<u32> =
        SHARED_PROVIDERS.iter().filter_map(|n| release_of_path(&dir.join(format!("lib{n}-rdmav34.so")))).collect();
    let first = *found.first()?;
    if found.iter().all(|&r| r == first) {
        Some(first)
    } else {
        log::warn!("shared providers in {} come from different rdma-core releases: {found:?}", dir.display());
        None
    }
}

/// The undefined dynamic symbols of an ELF64 little-endian shared object (its `.dynsym` entries with section
/// index `SHN_UNDEF`); `None` if the file cannot be read or is not such an object.
pub fn undefined_symbols(path: &Path) -> Option<Vec<String>> {
    let b = std::fs::read(path).ok()?;
    let u16_at = |o: usize| -> Option<u16> { Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?)) };
    let u32_at = |o: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?)) };
    let u64_at =
        |o: usize| -> Option<usize> { usize::try_from(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?)).ok() };
    // ELF magic, ELFCLASS64, ELFDATA2LSB.
    if b.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(0x28)?, u16_at(0x3a)? as usize, u16_at(0x3c)? as usize);
    let section = |i: usize| -> Option<(u32, usize, usize, usize)> {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        // sh_type, sh_offset, sh_size, sh_link.
        Some((u32_at(h + 4)?, u64_at(h + 0x18)?, u64_at(h + 0x20)?, u32_at(h + 0x28)? as usize))
    };
    const SHT_DYNSYM: u32 = 11;
    let (_, off, size, link) = (0..shnum).filter_map(section).find(|s| s.0 == SHT_DYNSYM)?;
    let (_, stroff, strsize, _) = section(link)?;
    let strtab = b.get(stroff..stroff.checked_add(strsize)?)?;
    let mut out = Vec::new();
    // Elf64_Sym: st_name u32, st_info u8, st_other u8, st_shndx u16, st_value u64, st_size u64.
    for s in (off..off.checked_add(size)?).step_by(24).skip(1) {
        if u16_at(s + 6)? != 0 {
            continue;
        }
        let name = strtab.get(u32_at(s)? as usize..)?;
        let name = CStr::from_bytes_until_nul(name).ok()?;
        out.push(name.to_string_lossy().into_owned());
    }
    Some(out)
}

/// The root directory a plug-in at `path` is installed under: what precedes its `/usr/lib...` or `/lib...`
/// directory (`/work/roots/trixie/usr/lib/x86_64-linux-gnu/libibverbs/x.so` -> `/work/roots/trixie`; `/` for a
/// system's own plug-ins).
fn root_of(path: &Path) -> PathBuf {
    let s = path.to_string_lossy();
    let cut = s.rfind("/usr/lib").or_else(|| s.rfind("/lib"));
    match cut {
        Some(0) | None => PathBuf::from("/"),
        Some(i) => PathBuf::from(&s[..i]),
    }
}

/// The major version of the installed `ibverbs-providers` package in a dpkg status file's text.
pub fn release_in_dpkg_status(text: &str) -> Option<u32> {
    for stanza in text.split("\n\n") {
        let field = |name: &str| {
            stanza.lines().find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(':')).map(str::trim))
        };
        if field("Package") != Some("ibverbs-providers") || !field("Status").is_some_and(|s| s.ends_with(" installed"))
        {
            continue;
        }
        // "56.1-1", "44.0-2", maybe with an epoch "1:65.0-1".
        let v = field("Version")?;
        let v = v.split_once(':').map_or(v, |(_, v)| v);
        return v.split(['.', '-']).next()?.parse().ok();
    }
    None
}

/// Decides the generation of a PABI-34 plug-in whose ops lie in the file `loaded` (the path it was loaded from,
/// as `dladdr` reports it), by the rule of the module docs; `override_` is the override's value.
pub fn decide(override_: Option<Generation>, loaded: Option<&Path>) -> Decision {
    let d = |generation, reason: String| Decision { generation, reason };
    if let Some(g) = override_ {
        return d(g, OVERRIDE_VAR.to_string());
    }
    let Some(loaded) = loaded else {
        return d(Generation::R56, "no file known for its ops: assumed".into());
    };
    let real = std::fs::canonicalize(loaded).unwrap_or_else(|_| loaded.to_path_buf());
    if let Some(r) = real.file_name().and_then(|n| n.to_str()).and_then(release_of_file_name) {
        return d(of_release(r), format!("its file {} is of rdma-core {r}", real.display()));
    }
    if let Some(r) = loaded.parent().and_then(release_of_siblings) {
        return d(of_release(r), format!("the shared providers beside it are of rdma-core {r}"));
    }
    if let Some(syms) = undefined_symbols(&real) {
        if let Some(s) = syms.iter().find(|s| LATER_IMPORTS.contains(&s.as_str())) {
            return d(Generation::R56, format!("it imports {s}"));
        }
    }
    let status = root_of(&real).join("var/lib/dpkg/status");
    if let Some(r) = std::fs::read_to_string(&status).ok().as_deref().and_then(release_in_dpkg_status) {
        return d(of_release(r), format!("{} records ibverbs-providers {r}", status.display()));
    }
    d(Generation::R56, "nothing tells which rdma-core built it: assumed".into())
}

/// The file the address `addr` (a plug-in's ops) was loaded from (`dladdr`).
pub fn file_of(addr: usize) -> Option<PathBuf> {
    let mut info: libc::Dl_info = empty_dl_info();
    // SAFETY: dladdr only looks the address up in the loader's maps (never dereferences it) and fills `info`.
    if unsafe { libc::dladdr(addr as *const c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr's file name is a NUL-terminated string owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
}

fn empty_dl_info() -> libc::Dl_info {
    libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    }
}

/// The generation of the PABI-34 plug-in whose `verbs_device_ops` are at `ops`, logged with its evidence (a
/// warning when nothing told).
pub fn detect_34(ops: *const c_void, name: &str) -> Generation {
    let file = file_of(ops as usize);
    let d = decide(override_generation(), file.as_deref());
    let file = file.as_deref().map_or_else(|| "?".into(), |f| f.display().to_string());
    if d.reason.ends_with("assumed") {
        log::warn!("provider plug-in '{name}' ({file}): {}; serving it as {}", d.reason, d.generation);
    } else {
        log::debug!("provider plug-in '{name}' ({file}): {}, so {}", d.reason, d.generation);
    }
    d.generation
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("plugin-gen-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn release_in_file_names() {
        assert_eq!(release_of_file_name("libmlx5.so.1.24.44.0"), Some(44));
        assert_eq!(release_of_file_name("libmlx5.so.1.25.56.1"), Some(56));
        assert_eq!(release_of_file_name("libefa.so.1.3.56.1"), Some(56));
        assert_eq!(release_of_file_name("libhns.so.1.0.65.0"), Some(65));
        assert_eq!(release_of_file_name("libmlx5.so.1"), None);
        assert_eq!(release_of_file_name("librxe-rdmav34.so"), None);
        assert_eq!(release_of_file_name("libx.so.1.2.3"), None);
        assert_eq!(release_of_file_name("libx.so.1.2.a.0"), None);
        assert_eq!(of_release(44), Generation::R44);
        assert_eq!(of_release(45), Generation::R56);
        assert_eq!(of_release(56), Generation::R56);
    }

    #[test]
    fn override_values() {
        assert_eq!(parse_override(None), None);
        assert_eq!(parse_override(Some("44")), Some(Generation::R44));
        assert_eq!(parse_override(Some(" 56 ")), Some(Generation::R56));
        assert_eq!(parse_override(Some("65")), None, "65 is decided by the registration function");
        assert_eq!(parse_override(Some("x")), None);
        let d = decide(Some(Generation::R44), Some(Path::new("/nonexistent/libmlx5.so.1.25.56.1")));
        assert_eq!(d.generation, Generation::R44, "the override wins over the file name");
    }

    #[test]
    fn dpkg_status() {
        let text = "Package: libfoo\nStatus: install ok installed\nVersion: 1.0\n\n\
                    Package: ibverbs-providers\nStatus: deinstall ok config-files\nVersion: 44.0-2\n\n\
                    Package: ibverbs-providers\nStatus: install ok installed\nArchitecture: amd64\n\
                    Version: 56.1-1\n";
        assert_eq!(release_in_dpkg_status(text), Some(56));
        assert_eq!(
            release_in_dpkg_status("Package: ibverbs-providers\nStatus: install ok installed\nVersion: 1:65.0-1.1\n"),
            Some(65)
        );
        assert_eq!(release_in_dpkg_status("Package: other\n"), None);
        assert_eq!(
            root_of(Path::new("/work/roots/trixie/usr/lib/x86_64-linux-gnu/libibverbs/x.so")),
            PathBuf::from("/work/roots/trixie")
        );
        assert_eq!(root_of(Path::new("/usr/lib/x86_64-linux-gnu/libibverbs/x.so")), PathBuf::from("/"));
        assert_eq!(root_of(Path::new("/lib/x86_64-linux-gnu/x.so")), PathBuf::from("/"));
    }

    /// A fake provider directory: `libibverbs/` with the given shared providers (symlinks to
    /// `../lib<n>.so.1.0.<release>`) and a module `librxe-rdmav34.so` (a copy of `module`, or empty).
    fn fake_tree(tag: &str, shared: &[(&str, &str)], module: Option<&Path>) -> (PathBuf, PathBuf) {
        let root = tmp(tag);
        let lib = root.join("usr/lib/x86_64-linux-gnu");
        let dir = lib.join("libibverbs");
        std::fs::create_dir_all(&dir).unwrap();
        for (n, v) in shared {
            let real = format!("lib{n}.so.1.0.{v}");
            std::fs::write(lib.join(&real), b"").unwrap();
            symlink(format!("../{real}"), dir.join(format!("lib{n}-rdmav34.so"))).unwrap();
        }
        let rxe = dir.join("librxe-rdmav34.so");
        match module {
            Some(m) => {
                std::fs::copy(m, &rxe).unwrap();
            }
            None => std::fs::write(&rxe, b"").unwrap(),
        }
        (root, rxe)
    }

    #[test]
    fn decided_by_file_names() {
        let (root, rxe) = fake_tree("names", &[("mlx5", "44.0"), ("efa", "44.0")], None);
        let d = decide(None, Some(&rxe));
        assert_eq!(d.generation, Generation::R44, "{}", d.reason);
        let d = decide(None, Some(&root.join("usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so")));
        assert_eq!(d.generation, Generation::R44, "{}", d.reason);
        std::fs::remove_dir_all(&root).unwrap();

        let (root, rxe) = fake_tree("names56", &[("mlx4", "56.1"), ("hns", "56.1")], None);
        assert_eq!(decide(None, Some(&rxe)).generation, Generation::R56);
        std::fs::remove_dir_all(&root).unwrap();

        // Disagreeing siblings tell nothing; an empty module file has no imports; no dpkg record: assumed 56.
        let (root, rxe) = fake_tree("mixed", &[("mlx5", "44.0"), ("efa", "56.1")], None);
        let d = decide(None, Some(&rxe));
        assert_eq!(d.generation, Generation::R56);
        assert!(d.reason.ends_with("assumed"), "{}", d.reason);
        // ... unless dpkg's record in that root says 44.
        std::fs::create_dir_all(root.join("var/lib/dpkg")).unwrap();
        std::fs::write(
            root.join("var/lib/dpkg/status"),
            "Package: ibverbs-providers\nStatus: install ok installed\nVersion: 44.0-2\n",
        )
        .unwrap();
        let d = decide(None, Some(&rxe));
        assert_eq!(d.generation, Generation::R44, "{}", d.reason);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// A Debian root made by tools/install-deps.sh (build/roots/<suite>, or $RDMA_ROOTS_DIR/<suite>), if present.
    fn root(suite: &str) -> Option<PathBuf> {
        let dir = std::env::var_os("RDMA_ROOTS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("build/roots"));
        let r = dir.join(suite);
        r.join("usr/lib/x86_64-linux-gnu/libibverbs").exists().then_some(r)
    }

    #[test]
    fn decided_by_imports() {
        // A real rdma-core 56 shared provider imports ibv_cmd_create_cq_ex2; copied under a name without a
        // version, into a directory without siblings, only its imports tell.
        let Some(trixie) = root("trixie") else {
            eprintln!("skipped: no trixie root");
            return;
        };
        let mlx5 = trixie.join("usr/lib/x86_64-linux-gnu/libmlx5.so.1");
        let mlx5 = mlx5.as_path();
        let syms = undefined_symbols(mlx5).unwrap();
        assert!(syms.iter().any(|s| s == "ibv_cmd_create_cq_ex2"));
        assert!(syms.iter().any(|s| s == "verbs_register_driver_34"));
        let (root, rxe) = fake_tree("imports", &[], Some(mlx5));
        let d = decide(None, Some(&rxe));
        assert_eq!(d.generation, Generation::R56);
        assert!(d.reason.contains("ibv_cmd_create_cq_ex2"), "{}", d.reason);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(undefined_symbols(Path::new("/nonexistent")), None);
    }

    #[test]
    fn debian_systems() {
        // The PABI-34 plug-ins of Debian's own systems, where installed: bookworm's (this host), trixie's root.
        let trixie = root("trixie").map(|r| r.join("usr/lib/x86_64-linux-gnu/libibverbs"));
        for (dir, want) in
            [(Some(PathBuf::from("/usr/lib/x86_64-linux-gnu/libibverbs")), Generation::R44), (trixie, Generation::R56)]
        {
            let Some(dir) = dir else { continue };
            let Ok(rd) = std::fs::read_dir(&dir) else { continue };
            for e in rd.flatten() {
                let p = e.path();
                if p.to_string_lossy().ends_with("-rdmav34.so") {
                    let d = decide(None, Some(&p));
                    assert_eq!(d.generation, want, "{}: {}", p.display(), d.reason);
                }
            }
        }
    }
}
