#!/usr/bin/env python3
"""The rdma-core-rs test runner: `make test` calls it; `.ci/run` calls `make test`.

Runs, in order, the host checks (cargo tests, header freshness, C layout probe, export diff, the plug-in command
comparison with rdma-core, C compile tests, install, bounded fuzzing: one `fuzz:<target>` result per target) and
then the Soft-RoCE guest suite in ONE boot of the test guest (tests/guest/run) per guest kernel: Debian's 6.1, then
its 6.12 (GUEST_KERNEL=6.12). Every check reports PASS or FAIL; the guest suite reports one `PASS name` /
`FAIL name: reason` line per in-guest test, recorded as `guest:<name>` for 6.1 and `guest:k6.12/<name>` for 6.12. The
last line printed is the summary `N passed, N failed` (the format CI reads), counting both kernels. Exit status: 0
only when nothing failed.

  tests/runner.py [--no-guest] [--only SUBSTRING] [--guest-timeout SECS] [--guest-kernels 6.1,6.12]

--guest-kernels (default: $RDMA_GUEST_KERNELS, else 6.1,6.12) lists the kernel series to boot, in order.
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
MIN_CARGO_TESTS = 100
MIN_GUEST_CHECKS = 600
MIN_CASE_CHECKS = 3


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


def cargo_tests():
    """Each Rust unit test counts as one test in the summary."""
    # librdmacm's test binary needs our libibverbs.so.1 at run time (never the system's).
    libdir = os.environ.get("RDMA_CORE_RS_LIBDIR", os.path.join(ROOT, "build", "lib"))
    rc, out, secs = run(["cargo", "test", "--workspace", "--no-fail-fast", "--quiet"], 1800,
                        env={"LD_LIBRARY_PATH": libdir, "RDMA_CORE_RS_LIBDIR": libdir})
    save("cargo-test", out)
    passed = failed = 0
    for m in re.finditer(r"test result: \w+\. (\d+) passed; (\d+) failed", out):
        passed += int(m.group(1))
        failed += int(m.group(2))
    for i in range(passed):
        results.append((f"cargo#{i}", True, 0, ""))
    for i in range(failed):
        results.append((f"cargo-failed#{i}", False, 0, ""))
    ok = rc == 0 and passed >= MIN_CARGO_TESTS
    if not ok and failed == 0:
        if rc == 0:
            out += f"\nrunner: only {passed} cargo tests ran (at least {MIN_CARGO_TESTS} expected)\n"
        results.append(("cargo-test (build or count)", False, secs, out))
    print(f"{'PASS' if ok else 'FAIL'} cargo-test: {passed} passed, {failed} failed ({secs:.1f}s)", flush=True)
    if not ok:
        for l in out.rstrip().splitlines()[-40:]:
            print(f"    {l}")


MIN_FUZZ_TARGETS = 4


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


def guest_suite(timeout, series):
    """One boot of the guest suite on kernel `series` (GUEST_KERNEL). 6.1 keeps the plain names (guest:<check>,
    tests/out/guest.log); any other kernel's checks are prefixed k<series>/ (guest:k6.12/<check>, guest-k6.12.log)."""
    pre = "" if series == "6.1" else f"k{series}/"
    name = "guest" if not pre else f"guest-k{series}"
    rc, out, secs = run([os.path.join("tests", "guest", "run"), "--timeout", str(timeout), "--",
                         "tests/guest/suite.sh"], timeout + 120, env={"GUEST_KERNEL": series})
    save(name, out)
    seen = failed = 0
    for line in out.splitlines():
        m = re.match(r"^(PASS|FAIL) (\S+)(.*)$", line.strip())
        if m:
            seen += 1
            ok = m.group(1) == "PASS"
            failed += not ok
            results.append((f"guest:{pre}{m.group(2)}", ok, 0, m.group(3)))
            print(f"{m.group(1)} guest:{pre}{m.group(2)}{m.group(3)}", flush=True)
    # Every case reports "<case>: N passed, M failed"; each must have run something.
    empty = [m.group(1) for m in re.finditer(r"^([\w/-]+): (\d+) passed, (\d+) failed", out, re.M)
             if int(m.group(2)) + int(m.group(3)) < MIN_CASE_CHECKS]
    if empty:
        record(f"{name} (cases that checked nothing: " + ", ".join(empty) + ")", False, secs, out)
    if seen < MIN_GUEST_CHECKS:
        record(f"{name} (only {seen} checks reported, at least {MIN_GUEST_CHECKS} expected)", False, secs, out)
    if rc != 0 and seen == 0:
        record(f"{name} (boot or harness)", False, secs, out)
    elif rc != 0 and failed == 0:
        record(f"{name} (suite exit status)", False, secs, out)
    else:
        print(f"guest suite ({series}) finished in {secs:.0f}s (log: tests/out/{name}.log)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-guest", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--guest-timeout", type=int, default=3000)
    ap.add_argument("--guest-kernels", default=os.environ.get("RDMA_GUEST_KERNELS", "6.1,6.12"))
    a = ap.parse_args()
    want = lambda n: a.only in n

    if want("unsafe"):
        check("unsafe-surface", ["python3", "tools/unsafe-surface.py"], count=r"unsafe surface: (\d+) files")
    if want("cycles"):
        check("import-cycles", ["python3", "tools/import-cycles.py"], count=r"import-cycles: (\d+) folders, no cycle")
    if want("clippy"):
        check("clippy", ["cargo", "clippy", "--release", "--workspace", "--all-targets", "--quiet", "--",
                         "-D", "warnings"], timeout=1800)
    if want("cargo"):
        cargo_tests()
    if want("headers"):
        check("headers-check", ["cargo", "run", "-q", "-p", "gen-headers", "--", "--check", "."])
    if want("layout"):
        check("layout", ["tests/layout/run.sh", "--rust"], count=r"(\d+) facts compared", minimum=1000)
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
    if want("fuzz"):
        fuzz_checks()
    if not a.no_guest and want("guest"):
        for series in [k for k in a.guest_kernels.split(",") if k]:
            if not re.fullmatch(r"\d+\.\d+", series):
                record(f"guest (--guest-kernels: '{series}' is not a series such as 6.1)", False, 0)
                continue
            guest_suite(a.guest_timeout, series)

    passed = sum(1 for r in results if r[1])
    failed = sum(1 for r in results if not r[1])
    if failed:
        print("failed: " + ", ".join(r[0] for r in results if not r[1]))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
