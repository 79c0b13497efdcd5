#!/usr/bin/env python3
"""The rdma-core-rs test runner: `make test` calls it; `.ci/run` calls `make test`.

Runs, in order, the host checks (unsafe surface, import cycles, rustfmt, clippy, cargo tests with a floor per crate,
header freshness, C layout probe, export diff, the plug-in command comparison with rdma-core, C compile tests,
install, the Debian packages (make deb, lintian), bounded fuzzing: one `fuzz:<target>` result per target) and then the Soft-RoCE guest suite as a matrix of
cells, ONE boot of the test guest (tests/guest/run) per cell. A cell is a kernel series (GUEST_KERNEL), the
userlands it runs and the cases it runs (tests/guest/suite.sh's SUITE_CASES). `make test` runs the budgeted matrix
(MATRIX below: every axis covered at least once, the whole suite on the primary cell, within 45 minutes on a 2-core
machine); `make test-matrix` (--matrix full) the cross product: every kernel with every userland and every case.
Every check reports PASS or FAIL; the guest reports one `PASS name` / `FAIL name: reason` line per in-guest test,
recorded as `guest:<name>` for the 6.1 kernel and `guest:k<series>/<name>` for the others (the release cases name
their userland: guest:k6.12/trixie/ours/rc_pingpong). The last lines printed are each cell's time, the total time,
and the summary `N passed, N failed` (the format CI reads), counting every cell. Exit status: 0 only when nothing
failed.

  tests/runner.py [--no-guest] [--only SUBSTRING] [--guest-timeout SECS] [--matrix budget|full]
                  [--guest-kernels 6.1,6.12]

--guest-kernels (or $RDMA_GUEST_KERNELS) replaces the matrix by the whole bookworm suite on each kernel listed, in
order (the runner's behaviour before the matrix).
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "out")

results = []  # (name, ok, seconds, detail)


def record(name, ok, secs, detail=""):
    results.append((name, ok, secs, detail))
    status = "PASS" if ok else "FAIL"
    line = f"{status} {name} ({secs:.1f}s)"
    print(line, flush=True)
    if not ok and detail:
        for l in detail.rstrip().splitlines()[-40:]:
            print(f"    {l}")
        sys.stdout.flush()


def run(cmd, timeout, env=None):
    """Runs cmd (list) from the repo root; returns (rc, combined output). Never hangs past timeout."""
    e = dict(os.environ)
    if env:
        e.update(env)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, text=True, errors="replace")
        return p.returncode, p.stdout, time.time() - t0
    except subprocess.TimeoutExpired as ex:
        out = ex.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return 124, out + f"\n(timed out after {timeout}s)", time.time() - t0


def save(name, text):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name.replace("/", "_") + ".log"), "w") as f:
        f.write(text)


# The least each layer must report having checked: a layer that runs nothing (a guest that boots and prints no
# PASS/FAIL line, a cargo run with no test, a script that compares nothing) fails instead of passing.
# Cargo tests, per crate (package name; doc tests count for their crate), a little below the counts measured on
# 2026-11-26 after the house moves (ibverbs 192, rdma-core-common 18, rdmacm 47, exports-gen 1, gen-headers 0: 258), so that a crate whose
# tests stop running (a test module dropped from the tree, a `#[cfg(test)]` gone wrong) fails even while the others
# still add up. gen-headers has no unit test (headers-check exercises it); it is listed to be reported.
MIN_CARGO_TESTS = {"ibverbs": 180, "rdma-core-common": 15, "rdmacm": 44, "exports-gen": 1, "gen-headers": 0}
MIN_GUEST_CHECKS = 600     # the primary cell (the whole suite); each cell has its own floor in MATRIX
MIN_CASE_CHECKS = 3
MIN_RELEASE_CHECKS = 100   # each release case (70-release@<release>: ~150 checks)


def check(name, cmd, timeout=600, env=None, count=None, minimum=1):
    """Runs one layer; with `count` (a regex whose first group is a number in the output), also requires that
    number to be at least `minimum`."""
    rc, out, secs = run(cmd, timeout, env)
    save(name, out)
    ok = rc == 0
    if ok and count:
        nums = [int(m.group(1)) for m in re.finditer(count, out)]
        if not nums or max(nums) < minimum:
            ok = False
            out += f"\nrunner: expected at least {minimum} checks (/{count}/), found {nums or 'none'}\n"
    record(name, ok, secs, out if not ok else "")
    return ok


# The crate each cargo test binary belongs to, by the binary's name (target/<profile>/deps/<name>-<hash>, the
# `[lib]` name) or the name `Doc-tests` prints: the package names MIN_CARGO_TESTS uses.
CARGO_CRATES = {"ibverbs": "ibverbs", "rdma_common": "rdma-core-common", "rdmacm": "rdmacm",
                "gen_headers": "gen-headers", "exports_gen": "exports-gen"}


def cargo_counts(out):
    """Per crate, [passed, failed] from the `test result:` lines of a `cargo test` run, each credited to the crate
    of the `Running ... (target/.../deps/<name>-<hash>)` or `Doc-tests <name>` line before it."""
    counts = {}
    crate = "?"
    for line in out.splitlines():
        m = re.match(r"\s*Running .*\((?:.*/)?([^/()]+?)(?:-[0-9a-f]{8,})?\)\s*$", line)
        if not m:
            m = re.match(r"\s*Doc-tests (\S+)\s*$", line)
        if m:
            crate = CARGO_CRATES.get(m.group(1), m.group(1))
            continue
        m = re.search(r"test result: \w+\. (\d+) passed; (\d+) failed", line)
        if m:
            c = counts.setdefault(crate, [0, 0])
            c[0] += int(m.group(1))
            c[1] += int(m.group(2))
    return counts


def cargo_tests():
    """Each Rust unit test counts as one test in the summary; each crate must run at least its MIN_CARGO_TESTS."""
    # librdmacm's test binary needs our libibverbs.so.1 at run time (never the system's).
    libdir = os.environ.get("RDMA_CORE_RS_LIBDIR", os.path.join(ROOT, "build", "lib"))
    # Not `cargo --quiet`: its `Running` / `Doc-tests` lines name the crate of each `test result:` line. The test
    # harness itself is quiet (one character per test).
    rc, out, secs = run(["cargo", "test", "--workspace", "--no-fail-fast", "--", "--quiet"], 1800,
                        env={"LD_LIBRARY_PATH": libdir, "RDMA_CORE_RS_LIBDIR": libdir})
    save("cargo-test", out)
    counts = cargo_counts(out)
    passed = sum(c[0] for c in counts.values())
    failed = sum(c[1] for c in counts.values())
    for i in range(passed):
        results.append((f"cargo#{i}", True, 0, ""))
    for i in range(failed):
        results.append((f"cargo-failed#{i}", False, 0, ""))
    short = [f"{crate} ran {counts.get(crate, [0, 0])[0]} (at least {floor} expected)"
             for crate, floor in MIN_CARGO_TESTS.items() if counts.get(crate, [0, 0])[0] < floor]
    ok = rc == 0 and not short
    if not ok and failed == 0:
        what = "build or count" if rc != 0 else "too few tests: " + ", ".join(s.split(" ")[0] for s in short)
        results.append((f"cargo-test ({what})", False, secs, out + "".join(f"\nrunner: {s}" for s in short)))
    for crate in sorted(counts, key=lambda c: (c not in MIN_CARGO_TESTS, c)):
        p, f = counts[crate]
        floor = MIN_CARGO_TESTS.get(crate)
        print(f"    cargo-test {crate}: {p} passed, {f} failed" + (f" (floor {floor})" if floor is not None else ""))
    for crate in MIN_CARGO_TESTS:
        if crate not in counts:
            print(f"    cargo-test {crate}: no test result (floor {MIN_CARGO_TESTS[crate]})")
    print(f"{'PASS' if ok else 'FAIL'} cargo-test: {passed} passed, {failed} failed ({secs:.1f}s)", flush=True)
    if not ok and (rc != 0 or failed):
        for l in out.rstrip().splitlines()[-40:]:
            print(f"    {l}")
    for s in short:
        print(f"    runner: {s} (MIN_CARGO_TESTS in tests/runner.py)")


def fmt_check():
    """`cargo fmt --all -- --check` (rustfmt.toml's style): fails naming each file rustfmt would change."""
    rc, out, secs = run(["cargo", "fmt", "--all", "--", "--check"], 600)
    save("fmt", out)
    files = {}  # file -> the lines of its hunks ("Diff in <path>:<line>:", older rustfmt "... at line <line>:")
    for m in re.finditer(r"^Diff in (.+?)(?::| at line )(\d+):\s*$", out, re.M):
        f = os.path.relpath(m.group(1), ROOT) if os.path.isabs(m.group(1)) else m.group(1)
        files.setdefault(f, []).append(m.group(2))
    if rc == 0:
        record("fmt", True, secs)
    elif files:
        detail = "".join(f"{f}: {len(n)} hunk{'s' * (len(n) > 1)} (line{'s' * (len(n) > 1)} {', '.join(n)})\n"
                         for f, n in sorted(files.items()))
        detail += f"runner: {len(files)} files not formatted; `cargo fmt --all` formats them"
        detail += " (the diff: tests/out/fmt.log)\n"
        record(f"fmt ({len(files)} files not formatted)", False, secs, detail)
    else:  # rustfmt missing (tools/install-deps.sh adds it) or a file it cannot parse
        record("fmt", False, secs, out)


MIN_FUZZ_TARGETS = 8   # tools/fuzz.sh's ALL


def fuzz_checks():
    """tools/fuzz.sh: builds the cargo-fuzz targets and runs each for FUZZ_SECONDS (default 20 s); one result per
    target (`fuzz:<target>`). A build failure fails every target; fewer than MIN_FUZZ_TARGETS reported fails."""
    rc, out, secs = run(["tools/fuzz.sh"], 1500)
    save("fuzz", out)
    seen = failed = 0
    for line in out.splitlines():
        m = re.match(r"^(PASS|FAIL) (fuzz:\S+?):?( .*)?$", line.strip())
        if m:
            seen += 1
            ok = m.group(1) == "PASS"
            failed += not ok
            detail = m.group(3) or ""
            results.append((m.group(2), ok, 0, detail))
            print(f"{m.group(1)} {m.group(2)}{detail}", flush=True)
    if seen < MIN_FUZZ_TARGETS:
        record(f"fuzz (only {seen} targets reported, at least {MIN_FUZZ_TARGETS} expected)", False, secs, out)
    elif rc != 0 and failed == 0:
        record("fuzz (exit status)", False, secs, out)
    else:
        print(f"fuzz finished in {secs:.0f}s (log: tests/out/fuzz.log)", flush=True)
        if failed:
            for l in out.rstrip().splitlines()[-40:]:
                print(f"    {l}")


CASES_DIR = os.path.join(ROOT, "tests", "guest", "cases")
RELEASE_CASE = "70-release"
# Our Debian packages installed and removed in a Debian root: part of the whole suite (bookworm's root, on the
# primary cell), and once more in trixie's root on 6.12 and in sid's on 7.2 (docs/packaging.md).
DEB_CASE = "75-deb"


def suite_cases():
    """Every case of tests/guest/cases but the release case (which runs once per userland, as 70-release@<release>)."""
    return sorted(f[:-3] for f in os.listdir(CASES_DIR) if f.endswith(".sh") and f[:-3] != RELEASE_CASE)


# The cases run on every kernel of the budgeted matrix besides the release case (docs/testing.md, "The test matrix":
# what each costs and why it is there): the guest's own sanity, and the C conformance tests whose expectations follow
# the kernel ("Kernel differences"). The rest of the suite runs on the primary cell only.
KERNEL_CASES = ["00-stock", "25-verbs-c"]

# The budgeted matrix (`make test`): (kernel series, userlands, cases, floor of checks). The primary cell runs the
# whole bookworm suite on Debian 12's 6.1 (rxe and siw, native and plug-in providers); trixie runs on Debian 13's
# 6.12, sid on sid's 7.2, each with the kernel-sensitive cases.
FULL = None   # suite_cases(), computed when the runner starts
MATRIX = [
    ("6.1", ["bookworm"], FULL, MIN_GUEST_CHECKS),
    ("6.12", ["trixie"], KERNEL_CASES + [RELEASE_CASE + "@trixie", DEB_CASE + "@trixie"], 400),
    ("7.2", ["sid"], KERNEL_CASES + [RELEASE_CASE + "@sid", DEB_CASE + "@sid"], 400),
]
# The cross product (`make test-matrix`): each kernel boots once for the whole bookworm suite, both release cases and
# the packages in trixie's root.
FULL_AND_RELEASES = "full+releases"
MATRIX_FULL = [(k, ["bookworm", "trixie", "sid"], FULL_AND_RELEASES, 900) for k in ("6.1", "6.12", "7.2")]

cell_times = []   # (label, seconds, checks, failed)
lock_waits = []   # seconds each cell waited for RDMA_GUEST_LOCK (not counted as its time)


def guest_cell(timeout, series, userlands, cases, floor):
    """One boot on kernel `series` running `cases` (None: the whole suite). 6.1 keeps the plain names (guest:<check>,
    tests/out/guest.log); any other kernel's checks are prefixed k<series>/ (guest:k6.12/<check>, guest-k6.12.log)."""
    pre = "" if series == "6.1" else f"k{series}/"
    name = "guest" if not pre else f"guest-k{series}"
    if cases is None:
        cases = suite_cases()
    elif cases == FULL_AND_RELEASES:
        cases = (suite_cases() + [f"{RELEASE_CASE}@{u}" for u in userlands if u != "bookworm"]
                 + [f"{DEB_CASE}@{u}" for u in userlands if u != "bookworm"])
    label = f"k{series}/{'+'.join(userlands)}"
    env = {"GUEST_KERNEL": series, "SUITE_CASES": " ".join(cases)}
    rc, out, secs = run([os.path.join("tests", "guest", "run"), "--timeout", str(timeout), "-e", "SUITE_CASES", "--",
                         "tests/guest/suite.sh"], timeout + 120 + (86400 if os.environ.get("RDMA_GUEST_LOCK") else 0),
                        env=env)
    save(name, out)
    # Time spent waiting for another user's guest (RDMA_GUEST_LOCK, tests/guest/run) is not the cell's.
    waited = sum(int(w) for w in re.findall(r"^guest: waited (\d+) s for RDMA_GUEST_LOCK", out, re.M))
    secs -= waited
    lock_waits.append(waited)
    seen = failed = 0
    for line in out.splitlines():
        # Only a line that starts with PASS/FAIL is a check: the indented log tails under a FAIL are a program's
        # own output (tests/c/rsock_preload prints "FAIL connect: ..."), not checks.
        m = re.match(r"^(PASS|FAIL) (\S+)(.*)$", line.rstrip())
        if m:
            seen += 1
            ok = m.group(1) == "PASS"
            failed += not ok
            results.append((f"guest:{pre}{m.group(2)}", ok, 0, m.group(3)))
            print(f"{m.group(1)} guest:{pre}{m.group(2)}{m.group(3)}", flush=True)
    # Every case reports "<case>: N passed, M failed"; each must have run something, a release case at least
    # MIN_RELEASE_CHECKS.
    empty = []
    for m in re.finditer(r"^([\w/@.-]+): (\d+) passed, (\d+) failed", out, re.M):
        n = int(m.group(2)) + int(m.group(3))
        if n < MIN_CASE_CHECKS or (m.group(1).startswith(RELEASE_CASE) and n < MIN_RELEASE_CHECKS):
            empty.append(f"{m.group(1)} ({n})")
    if empty:
        record(f"{name} (cases that checked (almost) nothing: " + ", ".join(empty) + ")", False, secs, out)
    if seen < floor:
        record(f"{name} (only {seen} checks reported, at least {floor} expected)", False, secs, out)
    if rc != 0 and seen == 0:
        record(f"{name} (boot or harness)", False, secs, out)
    elif rc != 0 and failed == 0:
        record(f"{name} (suite exit status)", False, secs, out)
    else:
        print(f"guest cell {label} finished in {secs:.0f}s (log: tests/out/{name}.log)", flush=True)
    # The suite's per-case times, for docs/testing.md's table: tests/out/<log name>.times.
    times = re.findall(r"^# (\S+) took ([0-9.]+)s \(suite\)$", out, re.M)
    with open(os.path.join(OUT, name + ".times"), "w") as f:
        f.writelines(f"{c} {t}\n" for c, t in times)
    cell_times.append((label, secs, seen, failed))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-guest", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--guest-timeout", type=int, default=0,
                    help="seconds per cell (default: 3000 for a cell with the whole suite, 1800 for the others)")
    ap.add_argument("--matrix", choices=["budget", "full"], default="budget")
    ap.add_argument("--guest-kernels", default=os.environ.get("RDMA_GUEST_KERNELS", ""))
    a = ap.parse_args()
    want = lambda n: a.only in n
    t_start = time.time()

    if want("unsafe"):
        check("unsafe-surface", ["python3", "tools/unsafe-surface.py"], count=r"unsafe surface: (\d+) files")
    if want("cycles"):
        check("import-cycles", ["python3", "tools/import-cycles.py"], count=r"import-cycles: (\d+) folders, no cycle")
    if want("fmt"):
        fmt_check()
    if want("clippy"):
        check("clippy", ["cargo", "clippy", "--release", "--workspace", "--all-targets", "--quiet", "--",
                         "-D", "warnings"], timeout=1800)
    if want("cargo"):
        cargo_tests()
    if want("headers"):
        check("headers-check", ["cargo", "run", "-q", "-p", "gen-headers", "--", "--check", "."])
    if want("layout"):
        # Three references (rdma-core 65, 56.1, 44; ~13500 facts): fewer means one was not compared.
        check("layout", ["tests/layout/run.sh", "--rust"], count=r"layout: (\d+) facts compared", minimum=12000)
    if want("exports"):
        check("exports", ["tests/exports/run.sh"], count=r"exports: (\d+) symbols checked", minimum=200)
    if want("plugin-cmd"):
        check("plugin-cmd", ["tests/plugin-cmd/run.sh"], count=r"plugin-cmd: (\d+) commands compared", minimum=60)
    if want("c-compile") and os.path.exists(os.path.join(ROOT, "tests", "c", "compile.sh")):
        check("c-compile", ["tests/c/compile.sh"], count=r"c-compile: (\d+) passed", minimum=5)
        # The ASan/UBSan builds of the same tests, for guest case 57-sanitizers (tests/out/c-asan).
        check("c-compile-asan", ["tests/c/compile.sh", "--sanitize"], count=r"c-compile-asan: (\d+) passed",
              minimum=10)
    if want("install"):
        check("install", ["tests/install/run.sh"])
    if want("deb"):
        # make deb's packages: control fields, files, the diversion, lintian without errors, the stripped
        # libraries' exports (the install/remove round trip is guest case 75-deb).
        check("deb", ["tests/deb/run.sh"], count=r"deb: (\d+) passed", minimum=9)
    if want("fuzz"):
        fuzz_checks()
    t_host = time.time() - t_start
    if not a.no_guest and want("guest"):
        if a.guest_kernels:
            cells = [(k, ["bookworm"], FULL, MIN_GUEST_CHECKS) for k in a.guest_kernels.split(",") if k]
        else:
            cells = MATRIX if a.matrix == "budget" else MATRIX_FULL
        for series, userlands, cases, floor in cells:
            if not re.fullmatch(r"\d+\.\d+", series):
                record(f"guest (--guest-kernels: '{series}' is not a series such as 6.1)", False, 0)
                continue
            timeout = a.guest_timeout or (3000 if cases is None else 5400 if isinstance(cases, str) else 1800)
            guest_cell(timeout, series, userlands, cases, floor)

    passed = sum(1 for r in results if r[1])
    failed = sum(1 for r in results if not r[1])
    if failed:
        print("failed: " + ", ".join(r[0] for r in results if not r[1]))
    total = time.time() - t_start - sum(lock_waits)
    for label, secs, seen, nfail in cell_times:
        print(f"time: cell {label}: {secs / 60:.1f} min ({secs:.0f} s), {seen} checks, {nfail} failed")
    guest = sum(c[1] for c in cell_times)
    print(f"time: host checks {t_host / 60:.1f} min, guest {guest / 60:.1f} min, total {total / 60:.1f} min"
          + (" (make test's budget: 45 min)" if a.matrix == "budget" and not a.guest_kernels and cell_times else "")
          + (f"; not counted: {sum(lock_waits) / 60:.1f} min waiting for RDMA_GUEST_LOCK" if sum(lock_waits) else ""))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
