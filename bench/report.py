#!/usr/bin/env python3
"""Turns the samples of one `make bench` run into the result files (see docs/bench.md).

    python3 bench/report.py RUNDIR [--results bench/results] [--runtime SECONDS]

RUNDIR holds samples.tsv (metric, column, rep, value or FAIL, note) and meta.tsv, as written by bench/guest.sh.
Writes into the results dir, named <date>-<kernel>[-stock-vs-stock]:
    .md           the table: each figure for rdma-core and for us, median and spread, ratio ours/rdma-core, verdict
    .csv          the same, one row per figure
    .png          bar chart of the ratios (skipped with a note if matplotlib is missing)
    .samples.tsv  every sample, for anyone who wants to recompute
and copies the .md to latest.md (latest-stock-vs-stock.md for a BENCH_OURS=stock run).

Every figure whose verdict is *worse* (outside noise) is listed once more at the end of the .md with its measured
reason from bench/gaps.tsv (metric pattern, reason, where the measurement is written), or "no reason on record".
"""
import argparse
import csv
import fnmatch
import math
import os
import random
import shutil
import statistics
import sys

# id -> (group, label, unit, better, deterministic, scale, decimals). better: "lower" or "higher".
# scale converts the sample into the unit shown.
GROUPS = [
    ("lat", "Latency (perftest, t_typical: the median of the iterations)"),
    ("latmin", "Latency, best case (perftest, t_min: the fastest iteration)"),
    ("rate", "Message rate and bandwidth (perftest)"),
    ("cm", "Connection setup (cmtime -c 100, wall time of each step / connections)"),
    ("rs", "rsockets (Debian's rstream over RC, both ends on the column's librdmacm)"),
    ("cpu", "Library CPU cost on the data path (callgrind, user-space instructions)"),
    ("plugin", "Through Debian's C rxe plug-in (librxe-rdmav34.so in both columns; ours: RDMAV_PROVIDER=plugin): "
               "library CPU cost (callgrind) and heap"),
    ("scale", "Scale: many objects in one process (bench/objects.c -s; wall time and resident set per object)"),
    ("siw", "Soft-iWARP (siw0/siw1, rdma-core's libsiw plug-in against our native siw provider): library CPU cost "
            "and perftest -R"),
    ("start", "Start-up (wall time of one process run)"),
    ("mem", "Memory (resident set and malloc heap)"),
]


def catalogue():
    c = {}
    for op in ("write", "send", "read"):
        for cm in ("", ".R"):
            for size in ("2", "64"):
                flag = " -R" if cm else ""
                c[f"lat.{op}.{size}{cm}"] = ("lat", f"ib_{op}_lat{flag}, {size} B", "µs", "lower", False, 1, 2)
    for op in ("write", "send", "read"):
        for cm in ("", ".R"):
            for size in ("2", "64"):
                flag = " -R" if cm else ""
                c[f"latmin.{op}.{size}{cm}"] = ("latmin", f"ib_{op}_lat{flag}, {size} B, t_min", "µs", "lower",
                                                False, 1, 2)
    for op in ("write", "send"):
        c[f"msgrate.{op}.64"] = ("rate", f"ib_{op}_bw, 64 B: message rate", "Mpps", "higher", False, 1, 4)
        c[f"bw.{op}.65536"] = ("rate", f"ib_{op}_bw, 64 KiB: bandwidth", "MB/s", "higher", False, 1, 2)
    for step in ("create id", "bind addr", "resolve addr", "resolve route", "create qp", "connect", "disconnect",
                 "destroy"):
        c["cm." + step.replace(" ", "_")] = ("cm", f"cmtime: {step}", "µs/conn", "lower", False, 1, 1)
        c["cm.siw." + step.replace(" ", "_")] = ("siw", f"siw: cmtime -c 50: {step}", "µs/conn", "lower", False, 1, 1)
    c["rs.bw.65536"] = ("rs", "rstream, 64 KiB transfers: bandwidth (64 KiB / time per transfer)", "MB/s", "higher",
                        False, 1, 1)
    c["rs.lat.64"] = ("rs", "rstream, 64 B transfers: time per transfer", "µs", "lower", False, 1, 2)
    c["cpu.post1"] = ("cpu", "ibv_post_send, 1 WR per call (64 B RDMA write)", "instr/WR", "lower", True, 1, 0)
    c["cpu.postlist"] = ("cpu", "ibv_post_send, list of 16 WRs per call", "instr/WR", "lower", True, 1, 0)
    c["cpu.poll16"] = ("cpu", "ibv_poll_cq, up to 16 per call", "instr/CQE", "lower", True, 1, 0)
    c["cpu.poll1"] = ("cpu", "ibv_poll_cq, 1 per call", "instr/CQE", "lower", True, 1, 0)
    c["cpu.pollempty"] = ("cpu", "ibv_poll_cq on an empty CQ", "instr/call", "lower", True, 1, 0)
    c["cpu.postrecv"] = ("cpu", "ibv_post_recv, 1 WR per call (UD QP)", "instr/WR", "lower", True, 1, 0)
    c["cpu.postud"] = ("cpu", "ibv_post_send, UD send with an AH, 1 WR per call", "instr/WR", "lower", True, 1, 0)
    c["cpu.wrapi"] = ("cpu", "ibv_wr_* (qp_ex): start, rdma_write + set_sge per WR, complete; 16 WRs",
                      "instr/WR", "lower", True, 1, 0)
    c["cpu.pollex"] = ("cpu", "ibv_start_poll / next_poll / end_poll (cq_ex), 16 per batch", "instr/CQE", "lower",
                       True, 1, 0)
    c["cpu.devlist"] = ("cpu", "ibv_get_device_list (first call)", "instr", "lower", True, 1, 0)
    c["cpu.open"] = ("cpu", "ibv_open_device", "instr", "lower", True, 1, 0)
    for key, label, unit in (("post1", "ibv_post_send, 1 WR per call (64 B RDMA write)", "instr/WR"),
                             ("postlist", "ibv_post_send, list of 16 WRs per call", "instr/WR"),
                             ("poll16", "ibv_poll_cq, up to 16 per call", "instr/CQE"),
                             ("poll1", "ibv_poll_cq, 1 per call", "instr/CQE"),
                             ("pollempty", "ibv_poll_cq on an empty CQ", "instr/call")):
        c[f"cpu.siw.{key}"] = ("siw", f"siw: {label}", unit, "lower", True, 1, 0)
    for op in ("write", "send", "read"):
        c[f"lat.siw.{op}.64.R"] = ("siw", f"siw: ib_{op}_lat -R, 64 B", "µs", "lower", False, 1, 2)
        c[f"latmin.siw.{op}.64.R"] = ("siw", f"siw: ib_{op}_lat -R, 64 B, t_min", "µs", "lower", False, 1, 2)
    for op in ("write", "send"):
        c[f"msgrate.siw.{op}.64.R"] = ("siw", f"siw: ib_{op}_bw -R, 64 B: message rate", "Mpps", "higher", False, 1,
                                       4)
        c[f"bw.siw.{op}.65536.R"] = ("siw", f"siw: ib_{op}_bw -R, 64 KiB: bandwidth", "MB/s", "higher", False, 1, 2)
    for key, label, unit in (("open_device", "ibv_open_device (first)", "instr"),
                             ("create_cq", "ibv_create_cq (64 CQEs)", "instr"),
                             ("create_qp", "ibv_create_qp (RC, 64+64 WRs)", "instr"),
                             ("reg_mr", "ibv_reg_mr (4 KiB)", "instr"),
                             ("modify_rts", "ibv_modify_qp RESET->INIT->RTR->RTS (3 calls)", "instr/QP"),
                             ("dereg_mr", "ibv_dereg_mr", "instr"),
                             ("destroy_qp", "ibv_destroy_qp", "instr"),
                             ("destroy_cq", "ibv_destroy_cq", "instr"),
                             ("post1", "ibv_post_send, 1 WR per call (64 B RDMA write)", "instr/WR"),
                             ("postlist", "ibv_post_send, list of 16 WRs per call", "instr/WR"),
                             ("poll16", "ibv_poll_cq, up to 16 per call", "instr/CQE"),
                             ("poll1", "ibv_poll_cq, 1 per call", "instr/CQE"),
                             ("pollempty", "ibv_poll_cq on an empty CQ", "instr/call")):
        c[f"cpu.plugin.{key}"] = ("plugin", f"plug-in: {label}", unit, "lower", True, 1, 0)
    for key, label in (("startup", "start-up: ibv_get_device_list + first ibv_open_device"),
                       ("context", "per further ibv_open_device"), ("pd", "per ibv_alloc_pd"),
                       ("cq", "per ibv_create_cq (256 CQEs)"), ("qp", "per ibv_create_qp (RC, 256+256 WRs)"),
                       ("mr", "per ibv_reg_mr (64 B)"), ("srq", "per ibv_create_srq (256 WRs)"),
                       ("ah", "per ibv_create_ah (RoCE, GRH)")):
        unit, scale, dec = ("KiB", 1 / 1024, 1) if key == "startup" else ("bytes", 1, 0)
        c[f"mem.plugin.{key}.heap"] = ("plugin", f"plug-in: heap, {label}", unit, "lower", True, scale, dec)
        c[f"mem.trixie.{key}.heap"] = ("plugin", f"trixie (rdma-core 56.1 and its plug-in): heap, {label}", unit,
                                       "lower", True, scale, dec)
    for num in ("1000", "10000"):
        n = f"{int(num):,}"
        c[f"scale.qp.{num}.create"] = ("scale", f"{n} RC QPs: create (CQ + QP)", "µs/QP", "lower", False, 1, 1)
        c[f"scale.qp.{num}.rts"] = ("scale", f"{n} RC QPs: RESET->INIT->RTR->RTS (no peer)", "µs/QP", "lower",
                                    False, 1, 1)
        c[f"scale.qp.{num}.destroy"] = ("scale", f"{n} RC QPs: destroy (QP + CQ)", "µs/QP", "lower", False, 1, 1)
        c[f"scale.qp.{num}.rss"] = ("scale", f"{n} RC QPs: resident growth over create", "bytes/QP", "lower",
                                    False, 1, 0)
        c[f"scale.qp.{num}.heap"] = ("scale", f"{n} RC QPs: heap growth over create", "bytes/QP", "lower", True,
                                     1, 0)
        c[f"scale.cm.{num}.create"] = ("scale", f"{n} rdma_create_id", "µs/id", "lower", False, 1, 1)
        c[f"scale.cm.{num}.destroy"] = ("scale", f"{n} rdma_destroy_id", "µs/id", "lower", False, 1, 1)
        c[f"scale.cm.{num}.rss"] = ("scale", f"{n} rdma_cm ids: resident growth over create", "bytes/id", "lower",
                                    False, 1, 0)
        c[f"scale.cm.{num}.heap"] = ("scale", f"{n} rdma_cm ids: heap growth over create", "bytes/id", "lower",
                                     True, 1, 0)
    c["start.ibv_devices"] = ("start", "ibv_devices", "ms", "lower", False, 1, 0)
    c["start.ibv_devinfo"] = ("start", "ibv_devinfo", "ms", "lower", False, 1, 0)
    mem = [("startup", "start-up: ibv_get_device_list + first ibv_open_device"),
           ("context", "per further ibv_open_device"), ("pd", "per ibv_alloc_pd"),
           ("cq", "per ibv_create_cq (256 CQEs)"), ("qp", "per ibv_create_qp (RC, 256+256 WRs)"),
           ("mr", "per ibv_reg_mr (64 B)"), ("srq", "per ibv_create_srq (256 WRs)"), ("ah", "per ibv_create_ah (RoCE, GRH)")]
    for key, label in mem:
        # start-up in KiB; per object in bytes. Resident pages vary a little from run to run (layout), heap does not.
        unit, scale = ("KiB", 1 / 1024) if key == "startup" else ("bytes", 1)
        dec = 1 if key == "startup" else 0
        c[f"mem.{key}.rss"] = ("mem", f"resident, {label}", unit, "lower", False, scale, dec)
        c[f"mem.{key}.heap"] = ("mem", f"heap, {label}", unit, "lower", True, scale, dec)
    return c


COLS = ("stock", "ours")
# A timed ratio closer to 1 than this is never called better or worse: the smallest difference that rdma-core
# against itself showed across rounds on this machine (docs/bench.md, "Noise").
NOISE_FLOOR = 0.05


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def fmt(v, decimals):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if decimals == 0:
        return f"{v:,.0f}"
    return f"{v:,.{decimals}f}"


def load(rundir):
    samples, meta = [], {}
    with open(os.path.join(rundir, "samples.tsv")) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            metric, col, rep, value = parts[:4]
            note = parts[4] if len(parts) > 4 else ""
            samples.append((metric, col, int(rep), value, note))
    mp = os.path.join(rundir, "meta.tsv")
    if os.path.exists(mp):
        with open(mp) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("\t")
                meta[k] = v  # later lines (reps_done) overwrite earlier ones
    return samples, meta


def analyse(samples, cat, noise=None):
    by = {}
    for metric, col, rep, value, note in samples:
        d = by.setdefault(metric, {c: {"vals": {}, "fails": []} for c in COLS})
        if col not in d:
            continue
        if value == "FAIL":
            d[col]["fails"].append(note)
        else:
            try:
                d[col]["vals"][rep] = float(value)
            except ValueError:
                d[col]["fails"].append(f"unparsable value {value!r}")
    rows = []
    order = {k: i for i, k in enumerate(cat)}
    for metric in sorted(by, key=lambda m: (order.get(m, 10**6), m)):
        group, label, unit, better, det, scale, dec = cat.get(metric, ("other", metric, "", "lower", False, 1, 2))
        d = by[metric]
        row = {"metric": metric, "group": group, "label": label, "unit": unit, "better": better,
               "deterministic": det, "decimals": dec}
        for c in COLS:
            vals = [v * scale for v in d[c]["vals"].values()]
            row[c] = {
                "n": len(vals), "fail": len(d[c]["fails"]), "why": d[c]["fails"][0] if d[c]["fails"] else "",
                "median": statistics.median(vals) if vals else None,
                "p25": percentile(vals, 0.25) if vals else None,
                "p75": percentile(vals, 0.75) if vals else None,
            }
        s, o = row["stock"], row["ours"]
        row["ratio"] = row["band"] = None
        if s["median"] == 0 and o["median"] == 0:
            row["ratio"] = 1.0   # e.g. no resident growth with either library
        elif s["median"] and o["median"] is not None:
            row["ratio"] = o["median"] / s["median"]
            row["band"] = bootstrap_ratio(d["stock"]["vals"], d["ours"]["vals"])
        row["noise"] = (noise or {}).get(metric)
        row["verdict"] = verdict(row, noise)
        rows.append(row)
    return rows


def bootstrap_ratio(stock, ours, draws=2000, seed=6):
    """95% interval of median(ours)/median(stock), resampling whole rounds (both columns of a round together, so
    the pairing that interleaving bought is kept). None with fewer than 3 rounds measured by both."""
    rounds = sorted(r for r in ours if r in stock)
    if len(rounds) < 3:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(draws):
        pick = [rng.choice(rounds) for _ in rounds]
        ms = statistics.median(stock[r] for r in pick)
        mo = statistics.median(ours[r] for r in pick)
        if ms:
            ratios.append(mo / ms)
        elif mo == 0:
            ratios.append(1.0)
    if not ratios:
        return None
    return percentile(ratios, 0.025), percentile(ratios, 0.975)


def load_noise(path):
    """metric -> ratio of the noise check (rdma-core against itself), from its CSV; {} if there is none."""
    noise = {}
    if path and os.path.exists(path):
        with open(path, newline="") as f:
            for rec in csv.DictReader(f):
                try:
                    noise[rec["metric"]] = float(rec["ratio_ours_over_rdma_core"])
                except (KeyError, ValueError):
                    pass
    return noise


def verdict(row, noise=None):
    s, o = row["stock"], row["ours"]
    if s["median"] is None and o["median"] is None:
        return "failed (both)"
    if o["median"] is None:
        return "failed (ours)"
    if s["median"] is None:
        return "failed (rdma-core)"
    r = row["ratio"]
    if r is None:
        return ""
    if abs(r - 1) < 1e-9:
        return "parity"
    if row["deterministic"]:
        if abs(r - 1) < 0.005:
            return "parity"
        noise = False
    else:
        band = row["band"]
        floor = math.log(1 + NOISE_FLOOR)
        if noise and noise.get(row["metric"]):
            # what rdma-core against itself showed for this figure in the newest noise check
            floor = max(floor, abs(math.log(noise[row["metric"]])))
        # a ratio of 0 (or below: growth that one library measured as none, or negative) has no logarithm; it is
        # within noise only if the bootstrap band says so
        near = r > 0 and abs(math.log(r)) <= floor
        noise = near or band is None or band[0] <= 1 <= band[1]
    good = r < 1 if row["better"] == "lower" else r > 1
    return ("better" if good else "worse") + (" (within noise)" if noise else "")


def cell(c, dec, det):
    if c["median"] is None:
        why = c["why"].replace("|", "/")
        return f"FAIL ({why[:70]})" if why else "FAIL"
    txt = fmt(c["median"], dec)
    if not det and c["n"] >= 2 and c["median"]:
        spread = (c["p75"] - c["p25"]) / 2 / abs(c["median"]) * 100
        txt += f" ±{spread:.0f}%"
    if not det or c["n"] > 1:
        txt += f" (n={c['n']}{', ' + str(c['fail']) + ' failed' if c['fail'] else ''})"
    return txt


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "metric", "figure", "unit", "better", "rdma_core_median", "rdma_core_p25",
                    "rdma_core_p75", "rdma_core_n", "rdma_core_failed", "ours_median", "ours_p25", "ours_p75",
                    "ours_n", "ours_failed", "ratio_ours_over_rdma_core", "ratio_95pct_low", "ratio_95pct_high",
                    "verdict", "failure_reason"])
        for r in rows:
            s, o = r["stock"], r["ours"]
            g = lambda v: "" if v is None else f"{v:.6g}"  # noqa: E731
            w.writerow([r["group"], r["metric"], r["label"], r["unit"], r["better"], g(s["median"]), g(s["p25"]),
                        g(s["p75"]), s["n"], s["fail"], g(o["median"]), g(o["p25"]), g(o["p75"]), o["n"], o["fail"],
                        g(r["ratio"]), g(r["band"][0] if r["band"] else None),
                        g(r["band"][1] if r["band"] else None), r["verdict"], o["why"] or s["why"]])


def write_png(path, rows, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (apt-get install python3-matplotlib): no chart"
    rows = list(reversed(rows))
    fig_h = max(4.0, 0.26 * len(rows) + 1.6)
    fig, ax = plt.subplots(figsize=(10, fig_h))
    ys = range(len(rows))
    lo_lim, hi_lim = 0.25, 4.0
    for y, r in zip(ys, rows):
        ratio = r["ratio"]
        if ratio is None:
            what = r["verdict"].replace("failed (", "").rstrip(")") or "no ratio"
            ax.text(1.0, y, f"  failed: {what}", va="center", ha="left", fontsize=7, color="#b00000")
            continue
        v = r["verdict"]
        color = "#9e9e9e" if "noise" in v or v == "parity" else ("#2e7d32" if v.startswith("better") else "#c62828")
        shown = min(max(ratio, lo_lim), hi_lim)
        left = min(shown, 1.0)
        ax.barh(y, abs(shown - 1.0), left=left, color=color, height=0.7)
        if r["band"]:
            b0, b1 = (min(max(b, lo_lim), hi_lim) for b in r["band"])
            ax.plot([b0, b1], [y, y], color="black", linewidth=0.8)
        ax.text(hi_lim * 1.02, y, f"{ratio:.2f}", va="center", fontsize=7)
    ax.set_xscale("log")
    ax.set_xlim(lo_lim, hi_lim)
    ticks = [0.25, 0.5, 0.75, 1, 1.5, 2, 4]
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([f"{r['label']} [{r['unit']}, {'↓' if r['better'] == 'lower' else '↑'}]" for r in rows],
                       fontsize=7)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    for y in range(1, len(rows)):   # a line between groups
        if rows[y]["group"] != rows[y - 1]["group"]:
            ax.axhline(y - 0.5, color="#555555", linewidth=0.6)
    ax.set_xlabel("ours / rdma-core of the medians (log scale; black line: 95% bootstrap interval over rounds)\n"
                  "↓ lower is better, ↑ higher is better; green better, red worse, grey within noise or parity",
                  fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def load_gaps(path):
    """[(metric pattern, reason, where)] from a gaps file (tab-separated; '#' lines are comments); [] if none."""
    gaps = []
    if not path or not os.path.exists(path):
        return gaps
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise SystemExit(f"report: {path}:{n}: want 3 tab-separated fields, found {len(parts)}")
            gaps.append(tuple(p.strip() for p in parts))
    return gaps


def gap_reason(metric, gaps):
    """The first (reason, where) whose pattern matches the metric id, or None."""
    for pattern, reason, where in gaps:
        if fnmatch.fnmatchcase(metric, pattern):
            return reason, where
    return None


def write_gaps(out, rows, gaps):
    """Appends the table of figures worse than rdma-core (outside noise), each with its reason; returns how many
    have none on record."""
    worse = [r for r in rows if r["verdict"] == "worse"]
    if not worse:
        return 0
    out.append("## Figures worse than rdma-core (outside noise), and the measured reason")
    out.append("")
    out.append("| figure | ours / rdma-core | reason | measured in |")
    out.append("| --- | ---: | --- | --- |")
    missing = 0
    for r in worse:
        found = gap_reason(r["metric"], gaps)
        if found is None:
            missing += 1
            found = ("**no reason on record**", "–")
        out.append(f"| {r['label']} | {r['ratio']:.3f} | {found[0]} | {found[1]} |")
    out.append("")
    return missing


def write_md(path, rows, meta, base, png_note, runtime, stock_vs_stock, host_load=None, noise_src=None,
             gaps=None):
    out = []
    ours_name = "rdma-core again (BENCH_OURS=stock)" if stock_vs_stock else "rdma-core-rs (`build/lib`)"
    title = "rdma-core vs rdma-core (noise check)" if stock_vs_stock else "rdma-core-rs vs rdma-core"
    out.append(f"# Benchmark: {title}, {meta.get('date', '?')[:10]}, kernel {meta.get('kernel', '?')}")
    out.append("")
    out.append(f"- Columns: **rdma-core** = Debian's rdma-core {meta.get('rdma_core', '?')} (system libraries); "
               f"**ours** = {ours_name}. Ratio = ours / rdma-core of the medians.")
    out.append(f"- Machine: Soft-RoCE (rxe0 on veth0 <-> rxe1 on veth1) in a QEMU TCG guest, {meta.get('cpus', '?')} "
               f"vCPUs; perftest {meta.get('perftest', '?')}, {meta.get('valgrind', 'valgrind ?')}.")
    reps = meta.get("reps_done", "0")
    mem_runs = max([r["stock"]["n"] + r["stock"]["fail"] for r in rows if r["group"] == "mem"] or [0])
    out.append(f"- Timed figures: {reps} interleaved rounds (planned {meta.get('reps', '?')}; quick mode "
               f"{'on' if meta.get('quick') == '1' else 'off'}); each round runs every test with both library sets, "
               f"alternating which goes first. Start-up: interleaved process runs. Instruction counts: one "
               f"callgrind run per library set (deterministic). Memory: {mem_runs} runs each.")
    out.append("- Cells: median ±half the interquartile range in % of the median (n = successful samples). "
               "Ratio: ours/rdma-core of the medians, in parentheses its 95% bootstrap interval (whole rounds "
               f"resampled). Verdict *within noise*: the interval includes 1, or the ratio is within "
               f"{NOISE_FLOOR:.0%} of 1, or fewer than 3 rounds were measured.")
    if runtime:
        out.append(f"- Run time: {runtime} (guest script {meta.get('elapsed_s', '?')} s).")
    if host_load:
        out.append(f"- Host load average (1/5/15 min): {host_load}. Timed figures are only as quiet as the host: "
                   f"see docs/bench.md.")
    out.append("- Reproduce: `make bench` (knobs `BENCH_REPS`, `BENCH_QUICK=1`, `BENCH_OURS=stock`); "
               "see docs/bench.md.")
    out.append("")
    if png_note:
        out.append(f"_{png_note}_")
    else:
        out.append(f"![ours / rdma-core ratios]({base}.png)")
    out.append("")
    # noise summary: deviation of timed ratios from 1
    timed = [r for r in rows if not r["deterministic"] and r["ratio"]]
    if timed:
        dev = sorted(abs(math.log(r["ratio"])) for r in timed)
        med = math.exp(statistics.median(dev)) - 1
        worst = max(timed, key=lambda r: abs(math.log(r["ratio"])))
        out.append(f"Timed figures: median |ratio − 1| = {med * 100:.1f}%; farthest from 1: {worst['label']} "
                   f"({worst['ratio']:.2f}).")
        out.append("")
    for gid, gtitle in GROUPS + [("other", "Other")]:
        grows = [r for r in rows if r["group"] == gid]
        if not grows:
            continue
        out.append(f"## {gtitle}")
        out.append("")
        if noise_src:
            out.append("| figure | unit | rdma-core | ours | ours / rdma-core | verdict | noise check |")
            out.append("| --- | --- | ---: | ---: | ---: | --- | ---: |")
        else:
            out.append("| figure | unit | rdma-core | ours | ours / rdma-core | verdict |")
            out.append("| --- | --- | ---: | ---: | ---: | --- |")
        for r in grows:
            arrow = "↓" if r["better"] == "lower" else "↑"
            ratio = f"{r['ratio']:.3f}" if r["ratio"] is not None else "–"
            if r["band"]:
                ratio += f" ({r['band'][0]:.2f}–{r['band'][1]:.2f})"
            line = (f"| {r['label']} | {r['unit']} {arrow} | {cell(r['stock'], r['decimals'], r['deterministic'])}"
                    f" | {cell(r['ours'], r['decimals'], r['deterministic'])} | {ratio} | {r['verdict']} |")
            if noise_src:
                line += f" {r['noise']:.3f} |" if r.get("noise") is not None else " – |"
            out.append(line)
        out.append("")
    missing = 0 if stock_vs_stock else write_gaps(out, rows, gaps or [])
    out.append("↓ lower is better, ↑ higher is better. Ratio in parentheses: 95% bootstrap interval over rounds.")
    if noise_src:
        out.append(f"Noise check: the same ratio with rdma-core in both columns, from `{noise_src}`; a timed figure "
                   "whose ratio is no farther from 1 than that is called *within noise*.")
    out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))
    return missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rundir")
    ap.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--runtime", type=float, default=None, help="wall time of the whole run, seconds")
    ap.add_argument("--name", default=None, help="base name of the result files (default <date>-<kernel>)")
    ap.add_argument("--host-load", default=None, help="the host's load average around the run (text)")
    ap.add_argument("--gaps", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "gaps.tsv"),
                    help="measured reasons of the figures worse than rdma-core (default bench/gaps.tsv)")
    ap.add_argument("--noise", default=None,
                    help="CSV of a noise check (default <results>/latest-stock-vs-stock.csv, for real runs)")
    args = ap.parse_args()

    samples, meta = load(args.rundir)
    if not samples:
        print(f"report: no samples in {args.rundir}", file=sys.stderr)
        return 1
    stock_vs_stock = meta.get("ours_mode") == "stock"
    base = args.name or f"{meta.get('date', '0000-00-00')[:10]}-{meta.get('kernel', 'unknown')}" + \
        ("-stock-vs-stock" if stock_vs_stock else "")
    os.makedirs(args.results, exist_ok=True)
    noise_csv = None if stock_vs_stock else (args.noise or os.path.join(args.results, "latest-stock-vs-stock.csv"))
    noise = load_noise(noise_csv)
    rows = analyse(samples, catalogue(), noise)
    runtime = None
    if args.runtime:
        runtime = f"{int(args.runtime) // 60} min {int(args.runtime) % 60} s"
    title = f"ours / rdma-core, {meta.get('date', '')[:10]}, {meta.get('kernel', '')}" + \
        (" (stock vs stock)" if stock_vs_stock else "")
    png_note = write_png(os.path.join(args.results, base + ".png"), rows, title)
    write_csv(os.path.join(args.results, base + ".csv"), rows)
    md = os.path.join(args.results, base + ".md")
    noise_src = os.path.basename(noise_csv) if noise else None
    missing = write_md(md, rows, meta, base, png_note, runtime, stock_vs_stock, args.host_load, noise_src,
                       load_gaps(args.gaps))
    shutil.copyfile(os.path.join(args.rundir, "samples.tsv"), os.path.join(args.results, base + ".samples.tsv"))
    latest = os.path.join(args.results, "latest-stock-vs-stock.md" if stock_vs_stock else "latest.md")
    shutil.copyfile(md, latest)
    shutil.copyfile(os.path.join(args.results, base + ".csv"), latest[:-3] + ".csv")
    nfail = sum(1 for r in rows if r["verdict"].startswith("failed"))
    print(f"report: {md} ({len(rows)} figures, {nfail} failed), copied to {latest}")
    if missing:
        print(f"report: {missing} figures worse than rdma-core have no reason in {args.gaps}")
    if png_note:
        print(f"report: {png_note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
