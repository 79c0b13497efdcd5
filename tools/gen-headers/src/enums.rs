//! Writes `common/src/abi/enums.rs`: every enumerator of the C enums of `common/src/abi` as an integer constant with
//! its C name, in the integer type of the C fields that hold it ([`TYPES`]), plus compile-time checks that each
//! constant keeps its enumerator's value and that no name clashes with a glob import of the other ABI modules.
//!
//! The enums are the `#[repr(..)]` fieldless `pub enum`s of every file under `common/src/abi` (the generated file
//! aside), read with `syn`; they are written in path order, then in source order. The output is what rustfmt
//! (`rustfmt.toml`) leaves as it is.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The generated file, relative to the repository root.
pub const OUT: &str = "common/src/abi/enums.rs";

/// The integer type of an enum's constants where it is not the C enum's own, with the C field or parameter that
/// decides it: a constant has the type of what holds its values, so that code compares and masks without a cast.
/// Every other enum gets the C enum's own type: `c_int` when a value is negative, else `c_uint` (as gcc lays out an
/// enum without a fixed type), which is also the type of the C fields that hold those enums (the enum itself,
/// `unsigned int`, `uint32_t`: `comp_mask`s, `create_flags`, `wc_flags` of `struct ibv_wc`, `send_flags`, ...).
pub const TYPES: &[(&str, &str, &str)] = &[
    ("ib_uverbs_core_support", "u64", "the kernel's `UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT` (a u64 attribute)"),
    ("ib_uverbs_query_port_flags", "u8", "`ibv_port_attr.flags`"),
    ("ibv_create_cq_wc_flags", "u64", "`ibv_cq_init_attr_ex.wc_flags`"),
    ("ibv_mr_init_attr_mask", "u64", "`ibv_mr_init_attr.comp_mask`"),
    ("ibv_odp_general_caps", "u64", "`ibv_odp_caps.general_caps`"),
    ("ibv_ops_flags", "c_int", "`ibv_ops_wr.flags`"),
    ("ibv_pci_atomic_op_size", "u16", "`ibv_pci_atomic_caps.fetch_add`, `.swap`, `.compare_swap`"),
    ("ibv_port_cap_flags2", "u16", "`ibv_port_attr.port_cap_flags2`"),
    ("ibv_qp_attr_mask", "c_int", "the `int attr_mask` of `ibv_modify_qp` and `ibv_query_qp`"),
    ("ibv_qp_create_send_ops_flags", "u64", "`ibv_qp_init_attr_ex.send_ops_flags`"),
    ("ibv_rate", "u8", "`ibv_ah_attr.static_rate`"),
    ("ibv_rereg_mr_flags", "c_int", "the `int flags` of `ibv_rereg_mr`"),
    ("ibv_rx_hash_fields", "u64", "`ibv_rx_hash_conf.rx_hash_fields_mask`, `ibv_rss_caps.rx_hash_fields_mask`"),
    ("ibv_rx_hash_function_flags", "u8", "`ibv_rx_hash_conf.rx_hash_function`, `ibv_rss_caps.rx_hash_function`"),
    ("ibv_srq_attr_mask", "c_int", "the `int srq_attr_mask` of `ibv_modify_srq`"),
    ("ibv_tmh_op", "u8", "`ibv_tmh.opcode`"),
    ("ibv_tph_mem_type", "u8", "`ibv_dmah_init_attr.tph_mem_type`"),
];

/// The modules the check module glob-imports beside this one: the `pub mod`s of `common/src/abi/mod.rs` and
/// `common/src/uapi/mod.rs` (but this module and bindgen's raw `bindings`), less a uapi module that holds one of our
/// names in another type (listed in the generated header).
fn glob_modules(root: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for dir in ["abi", "uapi"] {
        let path = root.join("common/src").join(dir).join("mod.rs");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for item in ast.items {
            if let syn::Item::Mod(m) = item {
                let name = m.ident.to_string();
                if matches!(m.vis, syn::Visibility::Public(_)) && name != "enums" && name != "bindings" {
                    out.push(format!("crate::{dir}::{name}"));
                }
            }
        }
    }
    Ok(out)
}

/// One C enum.
struct Enum {
    /// The module of `abi` that exports it (`verbs` for the files of `abi/verbs/`, which it re-exports).
    module: String,
    /// Its file, relative to `common/src/abi`.
    file: String,
    name: String,
    /// The enumerators and whether any is negative.
    variants: Vec<String>,
    negative: bool,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in rd {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn has_repr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("repr"))
}

/// Whether an enumerator's value is written negative (`-1`), the only way a C enum here gets one.
fn is_negative(expr: &syn::Expr) -> bool {
    matches!(expr, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)))
}

fn collect(root: &Path) -> Result<Vec<Enum>, String> {
    let abi = root.join("common/src/abi");
    let mut files = Vec::new();
    rust_files(&abi, &mut files)?;
    files.sort();
    let mut enums = Vec::new();
    for path in files.iter().filter(|p| !p.ends_with("enums.rs")) {
        let rel = path.strip_prefix(&abi).unwrap().to_string_lossy().into_owned();
        let module = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for item in ast.items {
            let syn::Item::Enum(e) = item else { continue };
            let fieldless = e.variants.iter().all(|v| matches!(v.fields, syn::Fields::Unit));
            if !matches!(e.vis, syn::Visibility::Public(_)) || !has_repr(&e.attrs) || !fieldless {
                continue;
            }
            let negative = e.variants.iter().any(|v| v.discriminant.as_ref().is_some_and(|(_, x)| is_negative(x)));
            let variants = e.variants.iter().map(|v| v.ident.to_string()).collect();
            enums.push(Enum {
                module: module.clone(),
                file: rel.clone(),
                name: e.ident.to_string(),
                variants,
                negative,
            });
        }
    }
    Ok(enums)
}

/// The enumerators the kernel uapi (`common/src/uapi`, bindgen) already defines as constants: name -> (the uapi
/// module that exports it, its integer type with the `c_*` aliases resolved: `u32`, `i32`, ...).
type Uapi = std::collections::HashMap<String, (String, String)>;

/// The primitive behind a `c_*` name, for comparing a uapi constant's type with a constant's here.
fn primitive(ty: &str) -> &str {
    match ty {
        "c_uint" => "u32",
        "c_int" => "i32",
        "c_uchar" => "u8",
        "c_schar" => "i8",
        "c_ushort" | "__u16" => "u16",
        "c_short" => "i16",
        "c_ulonglong" | "__u64" => "u64",
        "c_longlong" => "i64",
        "__u32" => "u32",
        t => t,
    }
}

fn last_segment(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn use_names(tree: &syn::UseTree, out: &mut Vec<String>) {
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, out),
        syn::UseTree::Name(n) => out.push(n.ident.to_string()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
        _ => {}
    }
}

fn read_uapi(root: &Path) -> Result<Uapi, String> {
    let dir = root.join("common/src/uapi");
    let parse = |path: &Path| -> Result<syn::File, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let (mut aliases, mut consts) = (std::collections::HashMap::new(), Vec::new());
    for item in parse(&dir.join("bindings.rs"))?.items {
        match item {
            syn::Item::Type(t) => {
                if let Some(ty) = last_segment(&t.ty) {
                    aliases.insert(t.ident.to_string(), ty);
                }
            }
            syn::Item::Const(c) => {
                if let Some(ty) = last_segment(&c.ty) {
                    consts.push((c.ident.to_string(), ty));
                }
            }
            _ => {}
        }
    }
    // The module that re-exports each name (the first in path order).
    let mut files = Vec::new();
    rust_files(&dir, &mut files)?;
    files.sort();
    let mut module_of = std::collections::HashMap::new();
    for path in files.iter().filter(|p| !p.ends_with("bindings.rs") && !p.ends_with("mod.rs")) {
        let module = path.file_stem().unwrap().to_string_lossy().into_owned();
        for item in parse(path)?.items {
            if let syn::Item::Use(u) = item {
                let mut names = Vec::new();
                use_names(&u.tree, &mut names);
                for n in names {
                    module_of.entry(n).or_insert_with(|| module.clone());
                }
            }
        }
    }
    let mut uapi = Uapi::new();
    for (name, mut ty) in consts {
        while let Some(t) = aliases.get(&ty) {
            ty = t.clone();
        }
        if let Some(m) = module_of.get(&name) {
            uapi.insert(name, (m.clone(), primitive(&ty).to_string()));
        }
    }
    Ok(uapi)
}

/// `(type, why)` of an enum's constants.
fn type_of(e: &Enum) -> (&'static str, String) {
    match TYPES.iter().find(|t| t.0 == e.name) {
        Some(&(_, ty, why)) => (ty, format!("as {why}")),
        None if e.negative => ("c_int", "the C enum's own (a value is negative)".into()),
        None => ("c_uint", "the C enum's own".into()),
    }
}

/// A `pub const` line as rustfmt writes it: broken after `=` when longer than 120 columns.
fn const_item(out: &mut String, name: &str, ty: &str, value: &str) {
    let line = format!("pub const {name}: {ty} = {value};");
    if line.len() <= 120 {
        writeln!(out, "{line}").unwrap();
    } else {
        writeln!(out, "pub const {name}: {ty} =\n    {value};").unwrap();
    }
}

/// A `//!` bullet (one line, possibly empty), wrapped at 120 columns with its continuation lines indented.
fn wrap_doc(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.trim_end().split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > 120 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("//!  ");
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A `//` comment, wrapped at 120 columns.
fn comment(out: &mut String, text: &str) {
    let mut line = String::from("//");
    for word in text.split(' ') {
        if line.len() + 1 + word.len() > 120 {
            writeln!(out, "{line}").unwrap();
            line = String::from("//");
        }
        line.push(' ');
        line.push_str(word);
    }
    writeln!(out, "{line}").unwrap();
}

const HEADER: &str = r#"//! Every enumerator of the C enums of the installed headers (`verbs.h`, `ib_user_ioctl_verbs.h`, `tm_types.h`,
//! `rdma_cma.h`) as an integer constant with its C name, in the type of the C fields that hold it: the C fields are
//! integers in Rust (an application may write any number there), the enums are Rust enums, and this module is where
//! the two meet, so that no file keeps its own `const X: u32 = ibv_x::X as u32`.
//!
//! Generated by `tools/gen-headers` (`src/enums.rs`) from the `#[repr]` enums of `common/src/abi`; do not edit.
//! After changing an enum, or the generator's type table, run `make headers` and commit the result;
//! `make headers-check` (the runner's `headers-check` layer) fails while this file is stale.
//!
//! # Using it
//!
//! `use rdma_common::abi::enums::*;` beside `use rdma_common::abi::verbs::*;` (or `rdma_cma::*`): the names are the
//! C enumerators', which those modules hold only inside their enums, so the two globs never meet (the `check` module
//! below proves it for every ABI module and every kernel uapi module it globs). An enumerator that the kernel uapi
//! (`rdma_common::uapi`) also defines, in the same type, is re-exported from there, so both globs name one item.
//! Two imports do clash, and a file that has one names the constants through the module instead
//! (`enums::IBV_QPT_RC`), or drops the other glob:
//! - a glob of an enum's variants (`use ibv_qp_type::*;`, `use rdma_cm_event_type::*;`) at module level, which
//!   brings the same names as enum values (one inside a function shadows this glob instead, without an error);
{CLASHES}//!
//! The other `abi` modules never use this one: it is generated from them, and an import would be a cycle
//! (`tools/import-cycles.py`).
//!
//! C enumerators that repeat another's value (`IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL`, `RDMA_DRIVER_IRDMA`, the
//! `IBV_FLOW_ACTION_*` / `IBV_ADVISE_MR_*` aliases of `verbs_api.h`) are constants of the enum type in their own
//! modules, not here.
//!
//! # Types
//!
//! An enum's constants have the C enum's own type, `c_uint` (`c_int` when a value is negative), unless the fields
//! that hold them say otherwise:
//!
//! | enum | type | because of |
//! |---|---|---|
"#;

/// The text of `common/src/abi/enums.rs`.
pub fn generate(root: &Path) -> Result<String, String> {
    let enums = collect(root)?;
    for (name, ..) in TYPES {
        if !enums.iter().any(|e| e.name == *name) {
            return Err(format!("enums: the type table names `{name}`, which is not an enum of common/src/abi"));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for v in enums.iter().flat_map(|e| &e.variants) {
        if !seen.insert(v) {
            return Err(format!("enums: `{v}` is an enumerator of two enums"));
        }
    }
    let uapi = read_uapi(root)?;
    // The uapi modules holding a name of ours in another type: a glob of one of them clashes with this module's.
    let mut clashes: Vec<(&str, &str)> = Vec::new();
    for e in &enums {
        let ty = type_of(e).0;
        for v in &e.variants {
            if let Some((m, _)) = uapi.get(v).filter(|(_, t)| t != primitive(ty)) {
                clashes.push((v, m));
            }
        }
    }
    let mut text = String::from("//! - a glob of a kernel uapi module that holds one of these names in another type:");
    let mut by_module: Vec<(&str, &str)> = clashes.iter().map(|&(v, m)| (m, v)).collect();
    by_module.sort();
    let mut last = "";
    for (m, v) in by_module {
        let item = if m == last { format!(" `{v}`,") } else { format!(" `uapi::{m}::*` (`{v}`,") };
        last = m;
        text.push_str(&item);
    }
    let text = if clashes.is_empty() { String::new() } else { format!("{}).\n", text.trim_end_matches(',')) };
    let mut out = HEADER.replace("{CLASHES}", &wrap_doc(&text));
    for (name, ty, why) in TYPES {
        writeln!(out, "//! | `{name}` | `{ty}` | {why} |").unwrap();
    }
    let mut modules: Vec<&str> = enums.iter().map(|e| e.module.as_str()).collect();
    modules.sort();
    modules.dedup();
    out.push('\n');
    let mut ffi: Vec<&str> = enums.iter().map(|e| type_of(e).0).filter(|t| t.starts_with("c_")).collect();
    ffi.sort();
    ffi.dedup();
    for m in &modules {
        writeln!(out, "use super::{m}::*;").unwrap();
    }
    writeln!(out, "use std::ffi::{{{}}};", ffi.join(", ")).unwrap();
    for e in &enums {
        let (ty, why) = type_of(e);
        let twin = |v: &String| uapi.get(v).filter(|(_, t)| t == primitive(ty)).map(|(m, _)| m.clone());
        let mut reexports: Vec<(String, &String)> = e.variants.iter().filter_map(|v| Some((twin(v)?, v))).collect();
        reexports.sort();
        out.push('\n');
        let mut text = format!("enum {} ({}): {ty}, {why}.", e.name, e.file);
        if !reexports.is_empty() {
            text.push_str(
                " The kernel uapi's constants of the same type are re-exported (one item, so globs of both agree).",
            );
        }
        comment(&mut out, &text);
        for (m, v) in &reexports {
            writeln!(out, "pub use crate::uapi::{m}::{v};").unwrap();
        }
        for v in e.variants.iter().filter(|v| twin(v).is_none()) {
            writeln!(out, "/// `{v}` of `enum {}`.", e.name).unwrap();
            const_item(&mut out, v, ty, &format!("{}::{v} as {ty}", e.name));
        }
    }
    out.push_str(
        "\n/// Compile-time checks: each constant has its enumerator's value (no bit lost, no sign changed), and no \
         name here\n/// clashes with a glob import of another ABI or kernel uapi module (an ambiguous name is an \
         error where it is used).\n#[allow(unused_imports)]\nmod check {\n    use super::*;\n",
    );
    for g in glob_modules(root)?.iter().filter(|g| !clashes.iter().any(|(_, m)| g.ends_with(&format!("uapi::{m}")))) {
        writeln!(out, "    use {g}::*;").unwrap();
    }
    out.push_str(
        "\n    macro_rules! same {\n        ($($m:ident::$e:ident { $($v:ident),+ })+) => {\n            const _: () = \
         {\n                $($(assert!($v as i128 == crate::abi::$m::$e::$v as i128);)+)+\n            };\n        \
         };\n    }\n\n    same! {\n",
    );
    for e in &enums {
        // The names filled into lines of 120 columns (rustfmt leaves a macro call in braces as it is).
        let mut line = format!("        {}::{} {{", e.module, e.name);
        for (i, v) in e.variants.iter().enumerate() {
            let word = if i + 1 == e.variants.len() { format!("{v} }}") } else { format!("{v},") };
            if line.len() + 1 + word.len() > 120 {
                writeln!(out, "{line}").unwrap();
                line = String::from("           ");
            }
            line.push(' ');
            line.push_str(&word);
        }
        writeln!(out, "{line}").unwrap();
    }
    out.push_str("    }\n}\n");
    Ok(out)
}
