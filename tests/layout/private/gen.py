#!/usr/bin/env python3
"""Records the layout of an rdma-core release's provider-private structs (libibverbs/driver.h, cmd_ioctl.h,
kern-abi.h, and the few verbs.h structs whose size the provider interface depends on) as data: rdma-core installs
none of these headers, so the layout our Rust definitions must match is measured once from the release's sources and
kept in rdma-core-<release>.tsv (struct, member, offset, size; member "-" is the struct itself).

    tests/layout/private/gen.py [--release 44|56|65] [--src DIR] [--out FILE]

Releases: 44 (tag v44.0, Debian bookworm), 56 (v56.1, trixie), 65 (the mirror's HEAD, 65.0, sid); default 44.
DIR is a tree of that release; by default one is extracted (git archive) from the fetched mirror at
/work/.mirror/linux-rdma+rdma-core/repo. Only the generated C probe (ours) is compiled; nothing of rdma-core is
kept. The Rust side is checked against each table by common/src/abi/driver/'s tests (one per release).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = "/work/.mirror/linux-rdma+rdma-core/repo"
# release -> the mirror's revision of it.
RELEASES = {"44": "v44.0", "56": "v56.1", "65": "HEAD"}

# struct -> members whose offset and size are recorded (bit fields cannot be: they are left out, and their storage
# is covered by the struct's size and the next member's offset). verbs_context_ops' members are read from driver.h.
STRUCTS = {
    "verbs_match_ent": ["driver_data", "u", "vendor", "device", "kind"],
    "verbs_sysfs_dev": ["entry", "provider_data", "match", "flags", "sysfs_name", "sysfs_cdev", "ibdev_name",
                        "ibdev_path", "modalias", "node_guid", "driver_id", "node_type", "ibdev_idx", "num_ports",
                        "abi_ver", "time_created"],
    "verbs_device_ops": ["name", "match_min_abi_version", "match_max_abi_version", "match_table",
                         "static_providers", "match_device", "alloc_context", "import_context", "alloc_device",
                         "uninit_device"],
    "verbs_device": ["device", "ops", "refcount", "entry", "sysfs", "core_support"],
    "verbs_context_ops": None,
    "verbs_context": None,
    "verbs_xrcd": ["xrcd", "comp_mask", "handle"],
    "verbs_srq": ["srq", "srq_type", "xrcd", "cq", "srq_num"],
    "verbs_mr": ["ibv_mr", "mr_type", "access"],
    "verbs_qp": ["qp", "qp_ex", "comp_mask", "xrcd"],
    "verbs_cq": ["cq", "cq_ex"],
    "verbs_flow_action": ["action", "handle", "type"],
    "verbs_dm": ["dm", "handle"],
    "verbs_counters": ["counters", "handle"],
    "ibv_command_buffer": ["next", "next_attr", "last_attr", "uhw_in_idx", "uhw_out_idx", "uhw_in_headroom_dwords",
                           "uhw_out_headroom_dwords", "hdr"],
    "ex_hdr": ["hdr", "ex_hdr"],
    # verbs.h structs the provider interface passes by pointer, whose size changed between releases (recorded as a
    # size only): a provider's verbs_qp embeds an ibv_qp_ex, and ibv_cmd_query_port fills its caller's port attr.
    "ibv_qp_ex": [],
    "ibv_port_attr": [],
}
# Structs only some releases have (recorded where the release's headers define them).
LATER = {
    "verbs_create_cq_prov_attr": ["buffer"],
    "verbs_dmah": ["dmah", "handle"],
    "ibv_fd_arr": ["arr", "count"],
    "ibv_buf": ["addr", "size", "pd", "dmabuf_fd"],
}
# kern-abi.h's write() commands the ibv_cmd_* take: header + the kernel's core request (+ driver data after).
COMMANDS = ["ibv_get_context", "ibv_query_port", "ibv_alloc_pd", "ibv_open_xrcd", "ibv_reg_mr", "ibv_rereg_mr",
            "ibv_alloc_mw", "ibv_create_cq", "ibv_create_cq_ex", "ibv_resize_cq", "ibv_modify_cq", "ibv_create_srq",
            "ibv_create_xsrq", "ibv_modify_srq", "ibv_query_srq", "ibv_create_qp", "ibv_create_qp_ex", "ibv_open_qp",
            "ibv_query_qp", "ibv_modify_qp", "ibv_modify_qp_ex", "ibv_create_wq", "ibv_modify_wq"]


def tagless(kernel_h, out_h):
    """kern-abi.h's DECLARE_CMD macros need `_STRUCT_<name>`: each kernel struct as an untagged `struct { ... }`
    (rdma-core's build makes this header; this is our own few lines doing the same)."""
    out = []
    depth = 0
    for line in open(kernel_h):
        line = re.sub(r"/\*.*?\*/|//.*$", "", line.strip())
        if depth == 0:
            m = re.match(r"(struct|union)\s+(\w+)\s*\{", line)
            if m:
                out.append(f"#define _STRUCT_{m.group(2)} {m.group(1)} {{ \\")
                depth = 1
            continue
        depth += line.count("{") - line.count("}")
        if depth == 0:
            out.append(line.rstrip(";") + "\n")
        else:
            out.append(line + " \\")
    open(out_h, "w").write("\n".join(out) + "\n")


def ops_members(driver_h):
    text = open(driver_h).read()
    body = re.search(r"struct verbs_context_ops \{(.*?)\n\};", text, re.S).group(1)
    return re.findall(r"\(\*(\w+)\)", body)


def struct_members(header, struct):
    """The member names of `struct <struct> { ... };` in header, in order: function pointers by their `(*name)`,
    other members by the last identifier of their declaration."""
    text = re.sub(r"/\*.*?\*/", "", open(header).read(), flags=re.S)
    body = re.search(r"\nstruct " + struct + r" \{(.*?)\n\};", text, re.S).group(1)
    out = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        m = re.search(r"\(\*\s*(\w+)\)", decl) or re.search(r"(\w+)\s*(\[[^]]*\])?\s*$", decl)
        out.append(m.group(1))
    return out


def defines(header, struct):
    return re.search(r"\bstruct " + struct + r"\s*\{", open(header).read()) is not None


def pabi(src):
    """IBVERBS_PABI_VERSION of the tree's CMakeLists.txt."""
    return re.search(r'set\(IBVERBS_PABI_VERSION "(\d+)"\)', open(os.path.join(src, "CMakeLists.txt")).read()).group(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", default="44", choices=sorted(RELEASES))
    ap.add_argument("--src")
    ap.add_argument("--out")
    a = ap.parse_args()
    rev = RELEASES[a.release]
    out_file = a.out or os.path.join(HERE, f"rdma-core-{a.release}.tsv")
    with tempfile.TemporaryDirectory() as tmp:
        src = a.src
        if not src:
            src = os.path.join(tmp, "rdma-core")
            os.mkdir(src)
            arch = subprocess.run(["git", "-C", MIRROR, "archive", rev, "CMakeLists.txt", "libibverbs",
                                   "kernel-headers", "util", "ccan"], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", src], input=arch, check=True)
        inc = os.path.join(tmp, "include")
        os.makedirs(os.path.join(inc, "infiniband"))
        for h in ("driver.h", "kern-abi.h", "cmd_ioctl.h", "cmd_write.h", "verbs.h", "verbs_api.h", "opcode.h",
                  "tm_types.h", "ib_user_ioctl_verbs.h"):
            p = os.path.join(src, "libibverbs", h)
            if os.path.exists(p):
                os.symlink(p, os.path.join(inc, "infiniband", h))
        # The build generates these; stubs with what the headers use are enough for a layout probe.
        with open(os.path.join(inc, "config.h"), "w") as f:
            f.write("#define _GNU_SOURCE 1\n#define VERBS_PROVIDER_DIR \"\"\n"
                    f"#define IBVERBS_PABI_VERSION {pabi(src)}\n"
                    "#define HAVE_FUNC_ATTRIBUTE_ALWAYS_INLINE 1\n#define SIZEOF_LONG 8\n")
        uapi = os.path.join(src, "kernel-headers", "rdma")
        if not os.path.exists(os.path.join(inc, "infiniband", "ib_user_ioctl_verbs.h")):
            os.symlink(os.path.join(uapi, "ib_user_ioctl_verbs.h"), os.path.join(inc, "infiniband",
                                                                                  "ib_user_ioctl_verbs.h"))
        os.makedirs(os.path.join(inc, "kernel-abi"))
        for h in ("ib_user_verbs.h", "ib_user_ioctl_verbs.h", "rdma_user_ioctl_cmds.h", "ib_user_ioctl_cmds.h"):
            if os.path.exists(os.path.join(uapi, h)):
                tagless(os.path.join(uapi, h), os.path.join(inc, "kernel-abi", h))
        structs = dict(STRUCTS)
        driver_h = os.path.join(src, "libibverbs", "driver.h")
        verbs_h = os.path.join(src, "libibverbs", "verbs.h")
        structs["verbs_context_ops"] = ops_members(driver_h)
        structs["verbs_context"] = struct_members(verbs_h, "verbs_context")
        for s, m in LATER.items():
            if defines(driver_h, s) or defines(verbs_h, s):
                structs[s] = m
        lines = ["#include <config.h>", "#include <stddef.h>", "#include <stdio.h>",
                 "#include <infiniband/driver.h>",
                 "#define M(s, m) printf(\"%s\\t%s\\t%zu\\t%zu\\n\", #s, #m, offsetof(struct s, m), "
                 "sizeof(((struct s *)0)->m))",
                 "#define S(s) printf(\"%s\\t-\\t0\\t%zu\\n\", #s, sizeof(struct s))",
                 "int main(void) {"]
        for s, members in structs.items():
            lines.append(f"\tS({s});")
            lines += [f"\tM({s}, {m});" for m in members]
        for c in COMMANDS:
            lines.append(f"\tS({c});")
        lines += ["\treturn 0;", "}"]
        probe = os.path.join(tmp, "probe.c")
        open(probe, "w").write("\n".join(lines) + "\n")
        exe = os.path.join(tmp, "probe")
        cmd = ["cc", "-std=gnu11", "-w", "-I", inc, "-I", src, "-I", os.path.join(src, "kernel-headers"),
               "-I", os.path.join(src, "libibverbs"), "-o", exe, probe]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            sys.exit("gen: the probe does not compile:\n" + r.stderr[-3000:])
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    header = (f"# rdma-core {rev if rev != 'HEAD' else 'v65.0 (the mirror HEAD)'} provider-private layouts "
              f"(x86_64), generated by tests/layout/private/gen.py --release {a.release}; do not edit.\n"
              "# struct\tmember\toffset\tsize\n")
    open(out_file, "w").write(header + out)
    print(f"gen: {len(out.splitlines())} facts written to {out_file}")


if __name__ == "__main__":
    main()
