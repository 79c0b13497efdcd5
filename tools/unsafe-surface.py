#!/usr/bin/env python3
"""The unsafe surface is opt-in per file: the workspace denies `unsafe_code` and a file that uses `unsafe` says
`#![allow(unsafe_code...)]` itself. Rust lets a module's allow cover its child files, so this check keeps the
markers true: every .rs file that contains unsafe code carries its own allow, and no file carries one it does not
need. Prints the surface (one line per file) and exits non-zero on any mismatch.

    tools/unsafe-surface.py [ROOT]
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
# An unsafe block, fn or impl, or an unsafe extern fn *definition* (not the `unsafe extern "C" fn(..)` type).
USES = re.compile(r'\bunsafe\s*(\{|fn\b|impl\b|extern\s+"C"\s+fn\s+\w)|\bglobal_asm!')
ALLOW = re.compile(r"^\s*#!\[allow\([^\]]*\bunsafe_code\b")


def code_lines(text):
    """The lines outside comments and string literals (good enough for this tree: no unsafe in strings)."""
    for line in text.splitlines():
        s = line.split("//", 1)[0]
        if s.strip():
            yield s


bad = []
surface = []
for f in sorted(root.glob("**/*.rs")):
    if "target" in f.parts or ".git" in f.parts:
        continue
    text = f.read_text(errors="replace")
    uses = any(USES.search(l) for l in code_lines(text))
    allows = any(ALLOW.match(l) for l in text.splitlines())
    if uses:
        surface.append(str(f))
    if uses and not allows:
        bad.append(f"{f}: uses unsafe without its own #![allow(unsafe_code)]")
    if allows and not uses:
        bad.append(f"{f}: has #![allow(unsafe_code)] but no unsafe code")

print(f"unsafe surface: {len(surface)} files")
for b in bad:
    print("FAIL", b)
sys.exit(1 if bad else 0)
