#!/usr/bin/env python3
"""ABI layout test: our generated headers against rdma-core 65's, 56.1's and 44's installed ones.

Ours must be rdma-core 65's, fact for fact. Against 56.1's and 44's headers every fact must hold too, except the
ones `known-56.txt` / `known-44.txt` list, each with the reason a binary built against that release still works
(structs that grew, `verbs_context` whose members keep their distance from `context`).

Everything the test checks is derived from the reference (*system*) headers, never from a hand-kept list:

  * `clang -Xclang -ast-dump=json` of a TU including the public headers gives every struct/union (tagged, typedef'd,
    anonymous members, nested named members, arrays of anonymous records), enum, enum constant, typedef, function
    and variable declared in them (file attribution follows the JSON dumper's elided-`file` location stream);
  * `gcc -E -dD` gives every macro defined in them (file attribution from the line markers).

From that a C probe is generated (one fact per line: sizeof/offsetof/element size/field type compatibility/bitfield
position of every field, size/alignment of every type, value of every enum constant, value and type of every integer
macro, value of pointer/string macros) and a second TU that redeclares every function/variable with the exact type
clang printed for it (a conflicting declaration is a compile error naming it) and takes its address (the object's
symbol table then says whether it is extern or static inline). Candidate lines that do not compile against the
system headers (e.g. macros that are not integer constant expressions) are dropped before the real run.

The probe is compiled, run and `nm`'d once against the reference headers and once with `-I <ours>` ahead of them;
the two fact lists are compared.  A probe line that does not compile against ours is a difference too: the
failing lines are removed and the compile retried, so one missing field costs one fact, not the whole run.
"""

import argparse
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# The headers in scope, relative to an include directory, in inclusion order.
HEADERS = [
    "infiniband/verbs.h",
    "infiniband/verbs_api.h",
    "infiniband/ib_user_ioctl_verbs.h",
    "infiniband/tm_types.h",
    "infiniband/sa.h",
    "infiniband/sa-kern-abi.h",
    "infiniband/ib.h",
    "infiniband/opcode.h",
    "infiniband/arch.h",
    "rdma/rdma_cma.h",
    "rdma/rdma_verbs.h",
    "rdma/rsocket.h",
]

CC = os.environ.get("CC", "gcc")
CLANG = os.environ.get("CLANG", "clang")
NM = os.environ.get("NM", "nm")
STD = "-std=gnu11"
GCC_DIAG = ["-fdiagnostics-plain-output", "-ftrack-macro-expansion=0", "-fmax-errors=0", "-fno-diagnostics-color"]

VERBOSE = False


def log(*a):
    if VERBOSE:
        print("layout:", *a, file=sys.stderr)


# --------------------------------------------------------------------------------------------------------------------
# include-path setup


class Side:
    """One set of headers to compile against."""

    def __init__(self, name, incdir, system, blockdir):
        self.name = name
        self.incdir = os.path.realpath(incdir) if incdir else None
        self.system = system  # the reference side (generation + pedantic trial)
        self.blockdir = blockdir

    def flags(self):
        f = []
        if self.incdir and self.incdir != "/usr/include":
            # a reference tree is treated as system headers (as /usr/include is); ours is searched with -I
            f += ["-isystem" if self.system else "-I", self.incdir]
        if not self.system:
            # an in-scope header missing from ours must not silently fall through to /usr/include
            f += ["-I", self.blockdir]
        return f

    def header_path(self, h):
        return os.path.join(self.incdir or "/usr/include", h)


def make_blockdir(work):
    d = os.path.join(work, "block")
    for h in HEADERS:
        p = os.path.join(d, h)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("/* layout test: this header is missing from the headers under test */\n")
    return d


def tu_prologue():
    return "".join("#include <%s>\n" % h for h in HEADERS)


# --------------------------------------------------------------------------------------------------------------------
# clang JSON AST walking


class LocTracker:
    """The JSON dumper omits `file`/`line` when equal to the previously *printed* location; replay that stream."""

    def __init__(self):
        self.file = None
        self.line = None

    def bare(self, loc):
        if "file" in loc:
            self.file = loc["file"]
        if "line" in loc:
            self.line = loc["line"]
        return (self.file, self.line)

    def location(self, loc):
        if not loc:
            return None
        if "spellingLoc" in loc or "expansionLoc" in loc:
            self.bare(loc.get("spellingLoc", {}))
            return self.bare(loc.get("expansionLoc", {}))
        return self.bare(loc)

    def visit(self, node):
        where = None
        for k, v in node.items():
            if k == "loc":
                where = self.location(v)
            elif k == "range":
                self.location(v.get("begin", {}))
                self.location(v.get("end", {}))
            elif k == "inner":
                for c in v:
                    self.visit(c)
            elif isinstance(v, (dict, list)):
                self.scan(v)
        node["_where"] = where

    def scan(self, v):
        if isinstance(v, dict):
            if "kind" in v and "id" in v:
                self.visit(v)
            elif "offset" in v or "spellingLoc" in v or "expansionLoc" in v:
                self.location(v)
            else:
                for x in v.values():
                    self.scan(x)
        elif isinstance(v, list):
            for x in v:
                self.scan(x)


def is_anon_type(qt):
    return "(unnamed " in qt or "(anonymous " in qt or "(anonymous at" in qt


ARRAY_RE = re.compile(r"^(.*?)\s*((?:\[\d*\])+)$")


def array_dims(qt):
    """'uint8_t [16]' -> ['16']; 'struct x []' -> ['']; pointer-to-array and non-arrays -> []."""
    m = ARRAY_RE.match(qt)
    if not m or re.search(r"\*[\s\w]*\)$", m.group(1)):  # 'int (*)[4]' is a pointer to an array
        return []
    return re.findall(r"\[(\d*)\]", m.group(2))


class Unit:
    """A group of probe lines producing some facts; removed as a whole if any of its lines fails to compile."""

    def __init__(self, keys, lines, header, item, group=None):
        self.keys = keys
        self.lines = lines
        self.header = header
        self.item = item
        self.group = group  # candidates of one macro share a group; the first surviving one is kept
        self.alive = True
        self.error = None


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Generator:
    def __init__(self, side):
        self.side = side
        self.scope = {}  # realpath -> header (relative name)
        for h in HEADERS:
            p = side.header_path(h)
            self.scope[os.path.realpath(p)] = h
            self.scope[p] = h
        self.probe = []  # Units of the run-time probe
        self.decls = []  # Units of the declaration TU
        self.meta = {}  # fact key -> (header, item)
        self.macro_plain = {}  # fact key -> value, for macros checked textually (from -dD of both sides)
        self.types = {}  # "type ..." / "func ..." fact key -> the type as clang prints it (to explain differences)
        self.paths = {}  # "struct X.a.b" -> ("struct X", ("a", None, "b"), array rank): for the Rust probe
        self.seen_records = set()
        self.seen_enums = set()
        self.anon_enum_no = collections.Counter()

    def in_scope(self, node):
        w = node.get("_where")
        if not w or not w[0]:
            return None
        f = w[0]
        return self.scope.get(f) or self.scope.get(os.path.realpath(f))

    def add(self, units, keys, lines, header, item, group=None):
        u = Unit(keys, lines, header, item, group)
        units.append(u)
        for k in keys:
            self.meta[k] = (header, item)
        return u

    # ---- records

    def record(self, tname, rec, header):
        if tname in self.seen_records:
            return
        self.seen_records.add(tname)
        self.add(self.probe, ["sizeof " + tname], ['V("sizeof %s", sizeof(%s));' % (tname, tname)], header, tname)
        self.add(self.probe, ["alignof " + tname], ['V("alignof %s", _Alignof(%s));' % (tname, tname)], header, tname)
        self.fields(tname, rec, "", header, ())

    def fields(self, tname, rec, prefix, header, segs):
        """segs: the member path as a tuple, None standing for an anonymous struct/union member (for the Rust probe)"""
        last_anon = None
        for c in rec.get("inner", []):
            k = c.get("kind")
            if k == "RecordDecl":
                if not c.get("name"):
                    last_anon = c
                else:
                    self.nested_tag(c)
            elif k == "EnumDecl":
                if not c.get("name"):
                    last_anon = c  # a field of anonymous enum type: a scalar, its constants are file-scope
                self.nested_tag(c)
            elif k == "FieldDecl":
                qt = c.get("type", {}).get("qualType", "")
                if not c.get("name"):
                    # anonymous struct/union member: its fields belong to the enclosing object
                    if last_anon is not None and is_anon_type(qt):
                        self.fields(tname, last_anon, prefix, header, segs + (None,))
                    continue
                rec = last_anon if is_anon_type(qt) and last_anon is not None and last_anon["kind"] == "RecordDecl" \
                    else None
                self.field(tname, c, prefix + c["name"], qt, rec, header, segs + (c["name"],))

    def field(self, tname, f, path, qt, anon_rec, header, segs):
        key = "%s.%s" % (tname, path)
        self.paths[key] = (tname, segs, len(array_dims(qt)))
        dims = array_dims(qt)
        flexible = bool(dims) and dims[0] == ""
        if f.get("isBitfield"):
            self.add(self.probe, ["bitfield " + key], ['BITS("bitfield %s", %s, %s);' % (key, tname, path)], header,
                     tname)
        else:
            self.add(self.probe, ["offsetof " + key],
                     ['V("offsetof %s", offsetof(%s, %s));' % (key, tname, path)], header, tname)
            if not flexible:
                self.add(self.probe, ["sizeof " + key],
                         ['V("sizeof %s", sizeof(((%s *)0)->%s));' % (key, tname, path)], header, tname)
        if dims:
            sub = path + "[0]" * len(dims)
            self.add(self.probe, ["elemsize " + key],
                     ['V("elemsize %s", sizeof(((%s *)0)->%s));' % (key, tname, sub), ], header, tname)
        self.types["type " + key] = qt
        if not is_anon_type(qt):
            self.add(self.probe, ["type " + key],
                     ['S("type %s", __builtin_types_compatible_p(__typeof__(((%s *)0)->%s), %s) ? %s : "<incompatible>");'
                      % (key, tname, path, qt, cstr(qt))], header, tname)
        elif anon_rec is not None:
            sub = path + "[0]" * len(dims) + "."
            self.fields(tname, anon_rec, sub, header, segs + ("[0]",) * len(dims))

    def nested_tag(self, node):
        # C has no nested scopes for tags: a named struct/enum defined inside a struct is a file-scope type
        h = self.in_scope(node)
        if not h:
            return
        if node["kind"] == "RecordDecl" and node.get("completeDefinition"):
            self.record("%s %s" % (node["tagUsed"], node["name"]), node, h)
        elif node["kind"] == "EnumDecl":
            self.enum(node, h, None)

    # ---- enums

    def enum(self, node, header, typedef_name):
        name = node.get("name")
        consts = [c for c in node.get("inner", []) if c.get("kind") == "EnumConstantDecl"]
        if name:
            tname = "enum " + name
        elif typedef_name:
            tname = typedef_name
        else:
            tname = None
        ident = tname or "anonymous enum {%s, ...}" % (consts[0]["name"] if consts else "")
        if ident in self.seen_enums:
            return
        self.seen_enums.add(ident)
        if tname and consts:
            self.add(self.probe, ["sizeof " + tname], ['V("sizeof %s", sizeof(%s));' % (tname, tname)], header, tname)
            self.add(self.probe, ["alignof " + tname], ['V("alignof %s", _Alignof(%s));' % (tname, tname)], header,
                     tname)
            self.add(self.probe, ["signed " + tname], ['V("signed %s", ((%s)-1 < 0));' % (tname, tname)], header,
                     tname)
        for c in consts:
            self.add(self.probe, ["enum " + c["name"]], ['V("enum %s", %s);' % (c["name"], c["name"])], header, ident)

    # ---- typedefs, functions, variables

    def typedef(self, node, header, anon):
        """anon: the anonymous struct/union/enum this typedef names directly (typedef struct { ... } name;)."""
        name = node["name"]
        qt = node.get("type", {}).get("qualType", "")
        if anon is not None and anon["kind"] == "EnumDecl":
            self.enum(anon, header, name)
            return
        self.add(self.probe, ["sizeof typedef " + name], ['V("sizeof typedef %s", sizeof(%s));' % (name, name)],
                 header, "typedef " + name)
        self.add(self.probe, ["alignof typedef " + name], ['V("alignof typedef %s", _Alignof(%s));' % (name, name)],
                 header, "typedef " + name)
        if anon is not None:
            self.seen_records.add(name)
            self.fields(name, anon, "", header, ())
            return
        self.types["type typedef " + name] = qt
        if not is_anon_type(qt):
            self.add(self.probe, ["type typedef " + name],
                     ['S("type typedef %s", __builtin_types_compatible_p(%s, %s) ? %s : "<incompatible>");'
                      % (name, name, qt, cstr(qt))], header, "typedef " + name)

    def function(self, node, header, n):
        name = node["name"]
        qt = node["type"]["qualType"]
        static = node.get("storageClass") == "static"
        key = "func " + name
        self.types[key] = qt
        self.add(self.decls, [key, "linkage " + name], [
            "void (*const layout_ref_%d)(void) = (void (*)(void))&(%s);" % (n, name),
            "%s __typeof__(%s) (%s);" % ("static" if static else "extern", qt, name),
        ], header, key)
        return (key, qt, name)

    def variable(self, node, header, n):
        name = node["name"]
        qt = node["type"]["qualType"]
        key = "var " + name
        self.types[key] = qt
        self.add(self.decls, [key, "linkage " + name], [
            "const void *const layout_ref_%d = (const void *)&(%s);" % (n, name),
            "%s __typeof__(%s) (%s);" % ("static" if node.get("storageClass") == "static" else "extern", qt, name),
        ], header, key)
        return (key, qt, name)

    def walk(self, ast):
        LocTracker().visit(ast)
        self.functions = {}
        nodes = ast.get("inner", [])
        # typedef struct/union/enum { ... } name;  -> the anonymous tag is known by the typedef's name
        anon = {n["id"]: n for n in nodes if n.get("kind") in ("RecordDecl", "EnumDecl") and not n.get("name")}
        named_by = {}
        for n in nodes:
            if n.get("kind") == "TypedefDecl" and n.get("inner"):
                t = n["inner"][0]
                ref = (t.get("ownedTagDecl") or {}).get("id") or (t.get("decl") or {}).get("id")
                if ref is None and t.get("kind") == "ElaboratedType" and t.get("inner"):
                    ref = (t["inner"][0].get("decl") or {}).get("id")
                if ref in anon:
                    named_by.setdefault(ref, n["id"])
        typedef_of = {v: anon[k] for k, v in named_by.items()}
        n = 0
        for node in nodes:
            k = node.get("kind")
            h = self.in_scope(node)
            if not h:
                continue
            if k in ("RecordDecl", "EnumDecl") and not node.get("name"):
                if node["id"] not in named_by and k == "EnumDecl":
                    self.enum(node, h, None)  # a plain list of constants
                continue
            if k == "RecordDecl":
                if node.get("completeDefinition"):
                    self.record("%s %s" % (node["tagUsed"], node["name"]), node, h)
            elif k == "EnumDecl":
                self.enum(node, h, None)
            elif k == "TypedefDecl":
                if not node.get("isImplicit"):
                    self.typedef(node, h, typedef_of.get(node["id"]))
            elif k == "FunctionDecl":
                if node["name"] not in self.functions and not node.get("isImplicit"):
                    n += 1
                    self.functions[node["name"]] = self.function(node, h, n)
            elif k == "VarDecl":
                if node["name"] not in self.functions and node.get("storageClass") != "static":
                    n += 1
                    self.functions[node["name"]] = self.variable(node, h, n)

    # ---- macros

    def macros(self, defs):
        """defs: name -> (header-or-None, params-or-None, body), the final state after the TU."""
        for name in sorted(defs):
            header, params, body = defs[name]
            if header is None:
                continue
            key = "macro " + name
            item = key
            if params is not None or not body.strip():
                self.meta[key] = (header, item)
                self.macro_plain[key] = macro_text(params, body)
                continue
            g = name
            self.meta[key] = (header, item)
            self.meta["macro-type " + name] = (header, item)
            undef = ['#else', 'S("macro %s", "<undefined>"); S("macro-type %s", "<undefined>");' % (name, name),
                     '#endif']
            # integer constant expression (the enum forces an ICE; pedantic trial rejects GNU folding)
            self.add(self.probe, [key, "macro-type " + name], [
                "#ifdef %s" % name,
                "{ enum { layout_ice = (%s) ? 1 : 1, layout_int = 1 / (__builtin_classify_type(%s) >= 1 &&"
                " __builtin_classify_type(%s) <= 4) }; V(\"macro %s\", (%s)); S(\"macro-type %s\", TN(%s)); }"
                % (name, name, name, name, name, name, name),
            ] + undef, header, item, group=g)
            # string literal
            self.add(self.probe, [key, "macro-type " + name], [
                "#ifdef %s" % name,
                "{ STR(\"macro %s\", \"\" %s \"\"); S(\"macro-type %s\", \"string\"); }" % (name, name, name),
            ] + undef, header, item, group=g)
            # address constant, e.g. ((void *)-1)
            self.add(self.probe, [key, "macro-type " + name], [
                "#ifdef %s" % name,
                "{ enum { layout_ptr = 1 / (__builtin_classify_type(%s) == 5 &&"
                " !__builtin_types_compatible_p(__typeof__(%s), __typeof__(*(%s)))) };"
                " static const void *const layout_p = (%s);"
                " PTR(\"macro %s\", layout_p); S(\"macro-type %s\", \"pointer\"); }" % ((name,) * 6),
            ] + undef, header, item, group=g)
            self.macro_plain[key] = macro_text(params, body)  # used only if no candidate survives


TOKEN_RE = re.compile(r"\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'"
                      r"|##|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\.\.\.|\S)")


def norm_tokens(body):
    return " ".join(TOKEN_RE.findall(body))


def macro_text(params, body):
    if params is not None:
        return "function-like macro (%s)" % ", ".join(p.strip() for p in params.split(",")) if params.strip() \
            else "function-like macro ()"
    if not body.strip():
        return "<empty>"
    return "-> " + norm_tokens(body)


def function_arity(text):
    """Parameters of function-like macros: only the count and variadicness matter, not the names."""
    m = re.match(r"function-like macro \((.*)\)$", text)
    if not m:
        return text
    ps = [p for p in m.group(1).split(", ") if p]
    var = ps and ps[-1].endswith("...")
    return "function-like macro, %d parameter%s%s" % (len(ps), "" if len(ps) == 1 else "s", ", variadic" if var else "")


DEFINE_RE = re.compile(r"#define ([A-Za-z_]\w*)(\(([^)]*)\))?(?: (.*))?$")


def macro_table(cc_flags, work, tag, scope):
    """Final macro state of the TU: name -> (header or None, params or None, body)."""
    src = os.path.join(work, "macros-%s.c" % tag)
    with open(src, "w") as f:
        f.write(tu_prologue())
    # our headers may not preprocess cleanly: take what there is, the probe's compile reports the errors
    out = run([CC, STD, "-E", "-dD", "-w"] + cc_flags + [src], check=(tag == "system")).stdout
    cur = None
    defs = {}
    for line in out.splitlines():
        if line.startswith("# "):
            m = re.match(r'# \d+ "([^"]*)"', line)
            if m:
                cur = m.group(1)
            continue
        if line.startswith("#define "):
            m = DEFINE_RE.match(line)
            if not m:
                continue
            h = None
            if cur:
                h = scope.get(cur) or scope.get(os.path.realpath(cur)) if not cur.startswith("<") else None
            defs[m.group(1)] = (h, m.group(3) if m.group(2) else None, m.group(4) or "")
        elif line.startswith("#undef "):
            defs.pop(line.split()[1], None)
    return defs


# --------------------------------------------------------------------------------------------------------------------
# C sources

PROBE_HEAD = r"""/* generated by tests/layout/layout.py from the system's rdma-core headers: do not edit */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
%s
static void L_s(const char *k, long long v) { printf("%%s = %%lld\n", k, v); }
static void L_u(const char *k, unsigned long long v) { printf("%%s = %%llu\n", k, v); }
#define V(k, x) (((x) < 0) ? L_s(k, (long long)(x)) : L_u(k, (unsigned long long)(x)))
#define S(k, s) printf("%%s = %%s\n", k, s)
static void PTR(const char *k, const void *p) { printf("%%s = ptr 0x%%llx\n", k, (unsigned long long)(uintptr_t)p); }
static void STR(const char *k, const char *s)
{
	printf("%%s = \"", k);
	for (; *s; s++)
		if (*s >= 0x20 && *s < 0x7f && *s != '\\' && *s != '"') putchar(*s); else printf("\\x%%02x", (unsigned char)*s);
	printf("\"\n");
}
#define TN(x) _Generic((x), _Bool: "_Bool", char: "char", signed char: "signed char", unsigned char: "unsigned char", \
	short: "short", unsigned short: "unsigned short", int: "int", unsigned int: "unsigned int", long: "long", \
	unsigned long: "unsigned long", long long: "long long", unsigned long long: "unsigned long long", \
	default: "other")
static void BF(const char *k, const unsigned char *b, size_t n, int sgn)
{
	long first = -1, last = -1;
	for (size_t i = 0; i < n * 8; i++)
		if (b[i / 8] & (1u << (i %% 8))) { if (first < 0) first = (long)i; last = (long)i; }
	printf("%%s = bit %%ld width %%ld %%s\n", k, first, last - first + 1, sgn ? "signed" : "unsigned");
}
#define BITS(k, T, m) do { union { T o; unsigned char b[sizeof(T)]; } u_; memset(&u_, 0, sizeof u_); \
	u_.o.m = -1; BF(k, u_.b, sizeof(T), u_.o.m < 0); } while (0)
"""

PROBE_TAIL = """int main(void)
{
	for (size_t i = 0; layout_units[i]; i++)
		layout_units[i]();
	return 0;
}"""

DECLS_HEAD = r"""/* generated by tests/layout/layout.py from the system's rdma-core headers: do not edit */
%s
"""


def render(units, head, tail, wrap=False):
    """Lay the units out one line each; returns (text, line -> unit).

    With wrap, each unit becomes its own function (gcc reports an undeclared identifier once per function only, so
    one function per unit makes every failing unit show up in the same round), called in order from main()."""
    lines = head.split("\n")
    owner = {}
    live = []
    for i, u in enumerate(units):
        if not u.alive:
            continue
        if wrap:
            lines.append("static void u%d(void) {" % i)
            live.append(i)
        for ln in u.lines:
            lines.append(ln)
            owner[len(lines)] = u
        if wrap:
            lines.append("}")
    if wrap:
        lines.append("static void (*const layout_units[])(void) = {")
        lines += ["\tu%d," % i for i in live]
        lines.append("\t0\n};")
    lines += tail.split("\n")
    return "\n".join(lines) + "\n", owner


def run(cmd, check=False, **kw):
    log(" ".join(shlex.quote(c) for c in cmd))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)
    if check and r.returncode != 0:
        raise SystemExit("layout: command failed: %s\n%s" % (" ".join(cmd), r.stderr[-4000:]))
    return r


ERR_RE = re.compile(r"^(.*?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$")


def compile_until_clean(units, head, tail, src, out, flags, mode, max_rounds=25):
    """Compile; drop units owning failing lines (recording the error) and retry. Returns header-level errors."""
    for _ in range(max_rounds):
        text, owner = render(units, head, tail, wrap=(mode == "exe"))
        with open(src, "w") as f:
            f.write(text)
        cmd = [CC, STD, "-w", "-O0"] + GCC_DIAG + flags + (["-c"] if mode == "obj" else []) + [src, "-o", out]
        r = run(cmd)
        if r.returncode == 0:
            return []
        hit = False
        other = []
        for line in r.stderr.splitlines():
            m = ERR_RE.match(line)
            if not m:
                continue
            if os.path.abspath(m.group(1)) == os.path.abspath(src):
                u = owner.get(int(m.group(2)))
                if u is not None:
                    if u.alive:
                        u.alive = False
                        u.error = m.group(3)
                    hit = True
                    continue
            other.append(line)
        if not hit:
            return other or r.stderr.splitlines()[-20:]
    return ["too many rounds of compile errors"]


def nm_linkage(obj):
    out = run([NM, obj], check=True).stdout
    ext, local = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] in ("U", "w", "v"):
            ext.add(p[1])
        elif len(p) == 3:
            (ext if p[1].isupper() else local).add(p[2])
    return ext, local


# --------------------------------------------------------------------------------------------------------------------
# the test


class Result:
    def __init__(self):
        self.facts = {}  # key -> value
        self.failed = {}  # key -> error text (did not compile)
        self.fatal = []  # header-level compile errors


def clone_units(units):
    return [Unit(u.keys, u.lines, u.header, u.item, u.group) for u in units]


def compile_both(probe_units, decl_units, work, tag, flags):
    """Compile the probe (executable) and the declaration TU (object) concurrently, dropping failing units."""
    exe = os.path.join(work, "probe-%s" % tag)
    obj = os.path.join(work, "decls-%s.o" % tag)
    with ThreadPoolExecutor(2) as ex:
        fp = ex.submit(compile_until_clean, probe_units, PROBE_HEAD % tu_prologue(), PROBE_TAIL,
                       os.path.join(work, "probe-%s.c" % tag), exe, flags, "exe")
        fd = ex.submit(compile_until_clean, decl_units, DECLS_HEAD % tu_prologue(), "",
                       os.path.join(work, "decls-%s.c" % tag), obj, flags, "obj")
        return exe, obj, fp.result(), fd.result()


def collect(gen, probe_units, decl_units, exe, obj, fatal_p, fatal_d, macro_defs, failures=True):
    res = Result()
    res.fatal = fatal_p + fatal_d
    if failures:
        for u in probe_units + decl_units:
            if not u.alive:
                for k in u.keys:
                    res.failed[k] = u.error
    if not fatal_p:
        out = run([exe], check=True).stdout
        for line in out.splitlines():
            k, _, v = line.partition(" = ")
            res.facts[k] = v
    if not fatal_d:
        ext, local = nm_linkage(obj)
        alive = {k for u in decl_units if u.alive for k in u.keys}
        for key, qt, name in gen.functions.values():
            if key not in alive:
                continue
            res.facts[key] = qt
            res.facts["linkage " + name] = "extern" if name in ext else "static" if name in local else "?"
    # textual macro facts: function-like, empty, and object-like ones no probe candidate could evaluate
    for key in gen.macro_plain:
        if key in gen.probe_macro_keys:
            continue
        d = macro_defs.get(key.split(" ", 1)[1])
        res.facts[key] = function_arity("<undefined>" if d is None else macro_text(d[1], d[2]))
    return res


def measure(gen, side, work, macro_defs):
    """Compile+run the probe and compile+nm the declaration TU against one side."""
    probe_units = clone_units(gen.probe)
    decl_units = clone_units(gen.decls)
    exe, obj, fatal_p, fatal_d = compile_both(probe_units, decl_units, work, side.name, side.flags())
    return collect(gen, probe_units, decl_units, exe, obj, fatal_p, fatal_d, macro_defs)


def parse_headers(side, work, tag):
    src = os.path.join(work, "tu-%s.c" % tag)
    with open(src, "w") as f:
        f.write(tu_prologue())
    r = run([CLANG, STD, "-w", "-fsyntax-only", "-Xclang", "-ast-dump=json"] + side.flags() + [src], check=side.system)
    gen = Generator(side)
    try:
        ast = json.loads(r.stdout)
    except ValueError:
        return gen
    gen.walk(ast)
    return gen


def generate(sysside, work):
    """Generate the probe from the system headers; returns (generator, system macros, system result)."""
    gen = parse_headers(sysside, work, "system")
    sys_macros = macro_table(sysside.flags(), work, "system", gen.scope)
    gen.macros(sys_macros)
    # Trial against the system headers; pedantic so that GNU constant folding does not pass for an integer constant
    # expression. Units that fail are not facts of the reference (macro candidates of the wrong kind, mostly).
    probe = clone_units(gen.probe)
    decls = clone_units(gen.decls)
    flags = sysside.flags() + ["-pedantic-errors"]
    exe, obj, fatal_p, fatal_d = compile_both(probe, decls, work, "system", flags)
    if fatal_p or fatal_d:
        raise SystemExit("layout: the generated probe does not compile against the system headers:\n" +
                         "\n".join((fatal_p + fatal_d)[:30]))
    kept_groups = collections.Counter()
    keep = []
    for u in probe:
        if not u.alive:
            if u.group is None:
                log("dropped (does not compile against the system headers): %s: %s" % (u.keys[0], u.error))
            continue
        kept_groups[u.group] += 1
        if u.group is None or kept_groups[u.group] == 1:
            keep.append(u)
    for u in decls:
        if not u.alive:
            log("dropped (does not compile against the system headers): %s: %s" % (u.keys[0], u.error))
    gen.probe = [Unit(u.keys, u.lines, u.header, u.item, u.group) for u in keep]
    gen.decls = [Unit(u.keys, u.lines, u.header, u.item, u.group) for u in decls if u.alive]
    gen.probe_macro_keys = {"macro " + g for g in kept_groups if g is not None}
    for k in list(gen.meta):
        if k.startswith("macro-type ") and "macro " + k[len("macro-type "):] not in gen.probe_macro_keys:
            del gen.meta[k]
    if any(n > 1 for g, n in kept_groups.items() if g is not None):
        sysres = measure(gen, sysside, work, sys_macros)  # the trial binary has more lines than the probe
    else:
        sysres = collect(gen, probe, decls, exe, obj, [], [], sys_macros, failures=False)
    return gen, sys_macros, sysres


def compare(gen, sysres, ours):
    """Returns (number of facts, list of (header, item, key, sysval, oursval, error))."""
    diffs = []
    keys = sorted(sysres.facts)
    for k in keys:
        # a function that does not compile has no linkage; a macro that is missing has no type: say it once
        kind, _, name = k.partition(" ")
        base = {"linkage": "func", "macro-type": "macro"}.get(kind)
        if base and (base + " " + name in ours.failed or
                     ours.facts.get(base + " " + name, "") == "<undefined>" != sysres.facts.get(base + " " + name)):
            continue
        if kind == "linkage" and ("var " + name) in ours.failed:
            continue
        sv = sysres.facts[k]
        header, item = gen.meta.get(k, ("?", k))
        if k in ours.failed:
            diffs.append((header, item, k, sv, None, ours.failed[k] or "does not compile"))
        elif k not in ours.facts:
            diffs.append((header, item, k, sv, None, NOT_MEASURED))
        elif ours.facts[k] != sv:
            diffs.append((header, item, k, sv, ours.facts[k], None))
    return len(keys), diffs


def explain(diffs, ours_types):
    """Replace '<incompatible>' and 'conflicting types' by the type our headers actually declare."""
    out = []
    for d in diffs:
        header, item, k, sv, ov, err = d
        t = ours_types.get(k)
        if k.startswith("type ") and ov == "<incompatible>" and t:
            ov = "%s (incompatible)" % t
        elif err and (k.startswith("func ") or k.startswith("var ")) and t and t != sv:
            ov, err = "%s (%s)" % (t, "conflicting types" if "conflicting types" in err else err), None
        out.append((header, item, k, sv, ov, err))
    return out


NOT_MEASURED = "not measured: the probe does not compile"


ITEM_KINDS = ("sizeof struct ", "sizeof union ", "sizeof enum ", "sizeof typedef ", "enum ", "func ", "var ")


ENUM_RE = re.compile(r"\benum\s+(\w+)")


def enum_mismatches(gen, sysres, ours, ours_types):
    """gcc finds `enum e` compatible with its underlying integer type; C++ and the API do not: where a field,
    typedef or prototype of rdma-core says `enum x`, ours must too (and vice versa)."""
    out = []
    for k, st in gen.types.items():
        ot = ours_types.get(k)
        if ot is None or k not in sysres.facts or ours.facts.get(k) != sysres.facts[k]:
            continue  # not measured, or already a difference
        if ENUM_RE.findall(st) != ENUM_RE.findall(ot):
            header, item = gen.meta.get(k, ("?", k))
            out.append((header, item, k, st, "%s (compatible for gcc, but not the same enum type)" % ot, None))
    return out


def extra_names(gen, sys_macros, gen_ours, ours_macros):
    """Types, constants, functions and macros our headers declare that the reference's do not."""
    def items(meta):
        out = set()
        for k in meta:
            for p in ITEM_KINDS:
                if k.startswith(p) and "." not in k:
                    out.add(k[len("sizeof "):] if p.startswith("sizeof") else k)
        return out
    extra = sorted(items(gen_ours.meta) - items(gen.meta))
    extra += sorted("macro " + m for m, d in ours_macros.items() if d[0] is not None and m not in sys_macros)
    return extra


def report(diffs, ours_side, fatal, missing_headers, totals, out):
    w = out.write
    byh = collections.OrderedDict((h, []) for h in HEADERS)
    for d in diffs:
        byh.setdefault(d[0], []).append(d)
    if fatal:
        w("our headers do not compile (errors outside the probe's own lines), so most facts could not be measured:\n")
        for l in fatal[:40]:
            w("  %s\n" % l)
        if len(fatal) > 40:
            w("  ... %d more\n" % (len(fatal) - 40))
    for h, ds in byh.items():
        if not ds:
            continue
        w("== %s: %d difference%s ==\n" % (h, len(ds), "" if len(ds) == 1 else "s"))
        if h in missing_headers:
            w("  the header is missing from %s: none of its %d facts could be checked\n" % (ours_side.incdir, len(ds)))
            continue
        unmeasured = [d for d in ds if d[4] is None and d[5] == NOT_MEASURED]
        ds = [d for d in ds if not (d[4] is None and d[5] == NOT_MEASURED)]
        # one item (struct, enum, function) that does not compile is one line, however many facts it has
        fails = collections.OrderedDict()
        for d in ds:
            if d[4] is None:
                fails.setdefault(d[1], []).append(d)
        shown = set()
        undeclared = []
        for d in ds:
            if d[4] is not None:
                w("  %s: system %s, ours %s\n" % (d[2], d[3], d[4]))
            elif d[1] not in shown:
                shown.add(d[1])
                grp = fails[d[1]]
                if len(grp) == 1 and "undeclared" in d[5]:
                    undeclared.append(d[2])
                elif len(grp) == 1:
                    w("  %s: system %s, ours does not compile: %s\n" % (d[2], d[3], d[5]))
                else:
                    keys = [x[2] for x in grp]
                    w("  %s: %d facts do not compile (%s): %s\n" % (
                        d[1], len(grp), d[5], ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "")))
        if undeclared:
            w("  %d undeclared in ours:\n" % len(undeclared))
            line = "   "
            for u in undeclared:
                if len(line) + len(u) + 2 > 118:
                    w(line.rstrip(",") + ",\n")
                    line = "   "
                line += " " + u + ","
            w(line.rstrip(",") + "\n")
        if unmeasured:
            w("  %d facts not measured (the probe as a whole does not compile against our headers)\n"
              % len(unmeasured))
    w("summary by header (differences / facts):\n")
    for h, ds in byh.items():
        w("  %-34s %5d / %-5d%s\n" % (h, len(ds), totals.get(h, 0), " (header missing)" if h in missing_headers else ""))


# The references: (name, label, Debian root under RDMA_ROOTS_DIR or None for the host's /usr/include, the version
# its libibverbs-dev must have, the file of its known differences or None: ours must equal it fact for fact).
REFERENCES = [
    ("65", "rdma-core 65", "sid", "65.", None),
    ("56", "rdma-core 56.1", "trixie", "56.", "known-56.txt"),
    ("44", "rdma-core 44", None, "44.", "known-44.txt"),
]


def roots_dir(repo):
    return os.environ.get("RDMA_ROOTS_DIR") or os.path.join(repo, "build", "roots")


def dpkg_version(root, pkg):
    """The version dpkg recorded for `pkg` in the root `root` ("/" for the host), or None."""
    if root == "/" and shutil.which("dpkg-query"):
        r = run(["dpkg-query", "-W", "-f", "${Version}", pkg])
        return r.stdout if r.returncode == 0 else None
    try:
        text = open(os.path.join(root, "var", "lib", "dpkg", "status"), errors="replace").read()
    except OSError:
        return None
    for para in text.split("\n\n"):
        if re.search(r"^Package: %s$" % re.escape(pkg), para, re.M):
            m = re.search(r"^Version: (\S+)$", para, re.M)
            return m.group(1) if m else None
    return None


class Known:
    """The facts of a reference that differ in ours on purpose, each with its reason (tests/layout/known-*.txt).

    A line is `key | reference value | our value | reason`. The key may end in `*` (a prefix). Instead of two
    values, `from MEMBER | from MEMBER` compares the offsets of the matching members relative to MEMBER's
    (struct verbs_context: every member keeps its distance from `context`, whatever grows in front)."""

    def __init__(self, path):
        self.path = path
        self.rules = []  # (key, refval, ourval, reason, lineno); refval = ("from", member) for relative rules
        for n, line in enumerate(open(path), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [x.strip() for x in line.split("|")]
            if len(parts) != 4 or not all(parts):
                raise SystemExit("layout: %s:%d: expected `key | reference | ours | reason`" % (path, n))
            key, refv, ourv, why = parts
            if refv.startswith("from ") and ourv == refv:
                refv = ("from", refv[len("from "):])
            self.rules.append((key, refv, ourv, why, n))
        self.seen = set()

    @staticmethod
    def matches(pattern, key):
        return key.startswith(pattern[:-1]) if pattern.endswith("*") else key == pattern

    def apply(self, diffs, sysres, ours):
        """Returns (remaining differences, known differences seen). Also checks the relative rules on every matching
        fact, differing or not."""
        known = []
        remaining = []
        by_key = {d[2]: d for d in diffs}
        for key, refv, ourv, why, n in self.rules:
            if not isinstance(refv, tuple):
                continue
            struct = key.split(" ", 1)[1].split(".", 1)[0]
            anchor = "offsetof %s.%s" % (struct, refv[1])
            for k in sysres.facts:
                if not self.matches(key, k) or k == anchor:
                    continue
                try:
                    srel = int(sysres.facts[k]) - int(sysres.facts[anchor])
                    orel = int(ours.facts[k]) - int(ours.facts[anchor])
                except (KeyError, ValueError):
                    continue  # not measured in ours: the plain difference stands
                d = by_key.pop(k, None)
                if srel != orel:
                    h = d[0] if d else "?"
                    remaining.append((h, k, k, "%d from %s" % (srel, refv[1]), "%d from %s" % (orel, refv[1]),
                                      None))
                elif d is not None:
                    self.seen.add(n)
                    known.append((d, why))
        for d in by_key.values():
            rule = next((r for r in self.rules if not isinstance(r[1], tuple) and self.matches(r[0], d[2])), None)
            if rule is None:
                remaining.append(d)
                continue
            key, refv, ourv, why, n = rule
            ov = d[4][:-len(" (incompatible)")] if d[4] and d[4].endswith(" (incompatible)") else d[4]
            if d[3] == refv and ov == ourv:
                self.seen.add(n)
                known.append((d, why))
                continue
            note = "a known difference expects %s, ours %s (%s:%d)" % (refv, ourv, os.path.basename(self.path), n)
            if d[4] is None:
                remaining.append(d[:5] + ((d[5] + "; " if d[5] else "") + note,))
            else:
                remaining.append(d[:4] + ("%s; %s" % (d[4], note), None))
        return remaining, known

    def unseen(self):
        return [(key, n) for key, refv, ourv, why, n in self.rules if not isinstance(refv, tuple) and n not in self.seen]


def check_reference(label, sysside, ours_dir, work, known, rust, verbose):
    """Compares our headers with one reference. Returns (facts, differences, known differences seen, rust rc)."""
    block = make_blockdir(work)
    sysside.blockdir = block
    for h in HEADERS:
        if not os.path.exists(sysside.header_path(h)):
            raise SystemExit("layout: %s: reference header %s missing" % (label, sysside.header_path(h)))
    gen, sys_macros, sysres = generate(sysside, work)
    if sysres.fatal or sysres.failed:
        raise SystemExit("layout: %s: probe fails against the reference headers: %s" %
                         (label, sysres.fatal[:10] or list(sysres.failed.items())[:10]))
    rust_rc = 0
    if rust:
        import rustprobe
        rust_rc = rustprobe.check(gen, sysres, rust["repo"], work, rust["strict"], verbose, rust["crate"])
        if rust["only"]:
            return len(sysres.facts), 0, False, [], rust_rc, sysres, None
    ours = Side("ours", ours_dir, False, block)
    if not os.path.isdir(ours.incdir):
        raise SystemExit("layout: %s does not exist" % ours.incdir)
    missing = [h for h in HEADERS if not os.path.exists(ours.header_path(h))]
    with ThreadPoolExecutor(2) as ex:
        # our own AST: to name the types behind incompatibilities, and to list what we declare beyond rdma-core
        f_gen = ex.submit(parse_headers, ours, work, "ours")
        ours_macros = macro_table(ours.flags(), work, "ours", Generator(ours).scope)
        oursres = measure(gen, ours, work, ours_macros)
        gen_ours = f_gen.result()
    nfacts, diffs = compare(gen, sysres, oursres)
    diffs = explain(diffs, gen_ours.types) + enum_mismatches(gen, sysres, oursres, gen_ours.types)
    seen = []
    if known:
        diffs, seen = known.apply(diffs, sysres, oursres)
    diffs.sort(key=lambda d: d[2])
    extras = extra_names(gen, sys_macros, gen_ours, ours_macros)
    if diffs or oursres.fatal or missing:
        print("layout: %s differs from %s (%s)" % (ours.incdir, label, sysside.incdir))
        totals = collections.Counter(gen.meta.get(k, ("?",))[0] for k in sysres.facts)
        report(diffs, ours, oursres.fatal, missing, totals, sys.stdout)
    if seen:
        print("layout: %s: %d known difference%s (%s), each allowed for its reason:" % (
            label, len(seen), "" if len(seen) == 1 else "s", os.path.relpath(known.path)))
        grouped = collections.OrderedDict()
        for d, why in sorted(seen, key=lambda x: x[0][2]):
            grouped.setdefault(why, []).append(d)
        for why, ds in grouped.items():
            if len(ds) == 1:
                print("  %s: %s %s, ours %s: %s" % (ds[0][2], label, ds[0][3], ds[0][4], why))
            else:
                print("  %d facts (%s, ...): %s" % (len(ds), ", ".join(d[2] for d in ds[:2]), why))
    if known and known.unseen():
        print("layout: %s: %d known difference%s not (yet) seen: %s" % (
            label, len(known.unseen()), "" if len(known.unseen()) == 1 else "s",
            ", ".join("%s (line %d)" % u for u in known.unseen())))
    extra = []
    if missing:
        extra.append("%d missing header%s" % (len(missing), "" if len(missing) == 1 else "s"))
    if oursres.fatal:
        extra.append("our headers have compile errors")
    failed = bool(diffs or missing or oursres.fatal)
    print("layout: %s: %d facts, %d differences%s%s" % (
        label, nfacts, len(diffs), ", %d known" % len(seen) if known else "", " (%s)" % "; ".join(extra) if extra
        else ""))
    if extras and verbose:
        print("layout: note: our headers declare %d name%s %s's do not (not an error): %s" % (
            len(extras), "" if len(extras) == 1 else "s", label, ", ".join(extras)))
    return nfacts, len(diffs), failed, seen, rust_rc, sysres, oursres


def main():
    global VERBOSE
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.join(here, "..", "..")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", default=os.path.join(repo, "include"),
                    help="include directory of the headers under test (default: <repo>/include)")
    ap.add_argument("--ref", action="append", choices=[r[0] for r in REFERENCES],
                    help="compare with this rdma-core release only (repeatable; default: 65, 56 and 44). 65 and "
                         "56 are read from $RDMA_ROOTS_DIR/{sid,trixie}/usr/include (default <repo>/build/roots, "
                         "made by tools/install-deps.sh), 44 from /usr/include")
    ap.add_argument("--system", help="compare with the headers in this include directory instead (one reference)")
    ap.add_argument("--label", default="the reference", help="with --system: its name in the report")
    ap.add_argument("--known", help="with --system: a file of known differences (see known-44.txt)")
    ap.add_argument("--work", help="keep generated files here (default: a temporary directory, kept on failure)")
    ap.add_argument("--facts", help="write the (first) reference's facts to this file")
    ap.add_argument("--ours-facts", help="write our facts (against the first reference) to this file")
    ap.add_argument("--generate-only", action="store_true", help="generate and measure the reference side only")
    ap.add_argument("--rust", action="store_true",
                    help="also check the Rust #[repr(C)] definitions (rdma_common::abi) against the first "
                         "reference's facts (rdma-core 65)")
    ap.add_argument("--rust-only", action="store_true", help="check the Rust definitions only, not the C headers")
    ap.add_argument("--rust-strict", action="store_true",
                    help="with --rust: a fact without a Rust counterpart is an error too")
    ap.add_argument("--rust-crate", help="the rdma-core-common crate to check (default: <repo>/common)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    VERBOSE = a.verbose
    for tool in (CC, CLANG, NM):
        if not shutil.which(tool):
            raise SystemExit("layout: %s not found (see tests/layout/README.md)" % tool)
    refs = []  # (label, include dir, known file or None)
    if a.system:
        refs.append((a.label, a.system, a.known))
    else:
        roots = roots_dir(repo)
        for name, label, root, version, known in REFERENCES:
            if a.ref and name not in a.ref:
                continue
            rootdir = os.path.join(roots, root) if root else "/"
            inc = os.path.join(rootdir, "usr", "include")
            if not os.path.exists(os.path.join(inc, HEADERS[0])):
                raise SystemExit("layout: the headers of %s are not in %s: run tools/install-deps.sh (it makes the "
                                 "Debian roots under build/roots), or point RDMA_ROOTS_DIR at roots that have them"
                                 % (label, inc) if root else
                                 "layout: the headers of %s are not in /usr/include: install libibverbs-dev and "
                                 "librdmacm-dev" % label)
            for pkg in ("libibverbs-dev", "librdmacm-dev"):
                v = dpkg_version(rootdir, pkg)
                if v is not None and not v.startswith(version):
                    print("layout: warning: %s in %s is %s, not %s: the reference is not the one we target"
                          % (pkg, rootdir, v, label), file=sys.stderr)
            refs.append((label, inc, os.path.join(here, known) if known else None))
    work = a.work or tempfile.mkdtemp(prefix="layout.")
    os.makedirs(work, exist_ok=True)
    ok = False
    try:
        total_facts = total_bad = 0
        any_failed = False
        summary = []
        rust_rc = 0
        for i, (label, inc, known) in enumerate(refs):
            sub = os.path.join(work, "ref%d" % i)
            os.makedirs(sub, exist_ok=True)
            sysside = Side("system", inc, True, None)
            if a.generate_only:
                sysside.blockdir = make_blockdir(sub)
                gen, _, sysres = generate(sysside, sub)
                if a.facts and i == 0:
                    write_facts(a.facts, sysres.facts)
                print("layout: %d facts generated from %s" % (len(sysres.facts), sysside.incdir))
                continue
            rust = None
            if i == 0 and (a.rust or a.rust_only or a.rust_strict):
                rust = {"repo": repo, "strict": a.rust_strict, "crate": a.rust_crate, "only": a.rust_only}
            n, ndiff, failed, seen, rrc, sysres, oursres = check_reference(
                label, sysside, a.ours, sub, Known(known) if known else None, rust, a.verbose)
            rust_rc = rust_rc or rrc
            if i == 0 and a.facts:
                write_facts(a.facts, sysres.facts)
            if i == 0 and a.ours_facts and oursres:
                write_facts(a.ours_facts, oursres.facts)
            if a.rust_only:
                ok = rust_rc == 0
                return rust_rc
            total_facts += n
            total_bad += ndiff
            any_failed = any_failed or failed
            summary.append("%s: %d/%d%s" % (label, ndiff, n, ", %d known" % len(seen) if known else ""))
        if a.generate_only:
            ok = True
            return 0
        ok = not any_failed and rust_rc == 0
        print("layout: %d facts compared, %d differences (%s)" % (total_facts, total_bad, "; ".join(summary)))
        return 0 if ok else 1
    finally:
        if not a.work:
            if ok:
                shutil.rmtree(work, ignore_errors=True)
            else:
                print("layout: generated files kept in %s" % work, file=sys.stderr)


def write_facts(path, facts):
    with open(path, "w") as f:
        for k in sorted(facts):
            f.write("%s = %s\n" % (k, facts[k]))


if __name__ == "__main__":
    sys.exit(main())
