#!/usr/bin/env python3
"""Figures and tables of the decimal study (per product, sum(price × quantity) in
decimal128, decimal64 and double, a GPU group-by against the CPU, CUB and DuckDB).

usage: plot_decimal.py RESULTS.json [MORE.json ...] OUT_DIR

Reads result files of `bench decimal`: the GPU's run, its host's CPU run and DuckDB's run
(scripts/duckdb/duckdb_anchor.mjs) are separate files (results/h100/decimal/,
results/h100-host/decimal/), drawn together. Writes into OUT_DIR; a missing file or a figure without
records is skipped with one line on stderr (exit 0). Only records that ran and validated are used
(lpresults.timed). Per type, the records drawn share one price type (the commonest price_precision
and price_scale) and one overflow policy (on_overflow "null" where there is one); where several
records land on one point of a line (e.g. CPU thread counts), the fastest is drawn. Each figure is
at the largest n of the GPU's records; a variant without records at that n is drawn at its own
largest n, which its legend entry names.

  decimal_<distribution>.png  time per row (ns, log axis) against the group count m (log2 axis), a
                 panel per type (decimal128, decimal64, double), one line per variant: ours solid,
                 CUB dashed, the CPU dash-dot, DuckDB dotted; the read ceiling (the minimal bytes per
                 row over the read GB/s measured in the GPU's run) a black dashed line, its value in
                 the legend.
  decimal_types.png  auto's time per row against m for decimal128, decimal64 and double (a colour
                 per type), with the fastest CPU variant of each type (dash-dot) and DuckDB
                 (decimal128, dotted) where present; a panel per distribution.
  decimal_targets.md  the decimal study's targets as measured ratios at n = 2^26 (the worst m of each, met or
                 not met), and the double query's wrong groups (float total differing from the exact
                 one in cents) at each m.
"""
import math
import os
import statistics
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
from matplotlib.ticker import LogFormatterMathtext, NullLocator  # noqa: E402

STYLE = {  # variant: (label, colour, marker, line style); solid = ours, dashed = CUB, dash-dot = CPU, dotted = DuckDB
    "auto": ("auto (ours: picks a variant per m)", "tab:red", "o", "-"),
    "shared_privatized": ("shared_privatized (16-byte carry buckets in shared memory)", "tab:orange", "s", "-"),
    "shared_words": ("shared_words (32-bit words in 64-bit counters)", "tab:olive", "^", "-"),
    "cluster_privatized": ("cluster_privatized (buckets over a cluster's shared memory)", "tab:brown", "D", "-"),
    "global_atomics": ("global_atomics (buckets in global memory)", "tab:pink", "v", "-"),
    "sort_reduce": ("sort_reduce (ours: sort by product, reduce)", "tab:purple", "P", "-"),
    "cub_sort_reduce_by_key": ("CUB radix sort + reduce_by_key", "tab:blue", "s", "--"),
    "cpu_sequential": ("CPU sequential (1 thread)", "black", "*", "-."),
    "cpu_mt": ("CPU multithreaded", "#555555", "x", "-."),
    "duckdb": ("DuckDB group-by, DECIMAL(38,s)", "#7f7f7f", "^", ":"),
    "duckdb_window": ("DuckDB window sum, then min (the article's plan)", "#aaaaaa", "<", ":"),
}
style = lpresults.variant_style(STYLE)
ORDER = {v: i for i, v in enumerate(STYLE)}
TYPES = ("decimal128", "decimal64", "double")
TYPE_NAME = {"decimal128": "decimal128 (__int128 sums)", "decimal64": "decimal64 (int64 products, summed as two 32-bit halves; overflow checked)",
             "double": "double (float sums)"}
TYPE_COLOUR = {"decimal128": "tab:red", "decimal64": "tab:blue", "double": "tab:green"}
CPU = ("cpu_sequential", "cpu_mt")
DUCKDB = ("duckdb", "duckdb_window")
N_TARGET = 1 << 26
BYTES_PER_ROW = 16  # a 4-byte product id, an 8-byte price, a 4-byte quantity; read from the records where they say


def order(v):
    return ORDER.get(v, len(ORDER))


def dist_key(p):
    """The distribution of a point: ("uniform", None) or ("zipf", s)."""
    return (p["distribution"], p.get("zipf_s") if p["distribution"] == "zipf" else None)


def dist_name(d):
    return d[0] if d[1] is None else f"{d[0]} s={d[1]:g}"


def canonical(recs):
    """Per type, the records of one price type (the commonest precision and scale) and one overflow
    policy ("null" where the type has it); then the fastest record per (variant, type, distribution,
    n, m)."""
    keep = []
    for t in sorted({r["params"]["type"] for r in recs}):
        rs = [r for r in recs if r["params"]["type"] == t]
        pol = Counter(r["params"].get("on_overflow") for r in rs)
        want_pol = "null" if "null" in pol else pol.most_common(1)[0][0]
        price = Counter((r["params"].get("price_precision"), r["params"].get("price_scale")) for r in rs)
        want_price = min(price, key=lambda k: (-price[k], str(k)))
        keep += [r for r in rs if r["params"].get("on_overflow") == want_pol
                 and (r["params"].get("price_precision"), r["params"].get("price_scale")) == want_price]
    best = {}
    for r in keep:
        p = r["params"]
        k = (r["variant"], p["type"], dist_key(p), p["n"], p["m"])
        if k not in best or r["time_ms"]["median"] < best[k]["time_ms"]["median"]:
            best[k] = r
    return list(best.values())


def gpu_doc(docs):
    """The file of the GPU's run: the one that holds ours/peer records (else any with a GPU)."""
    for d in docs:
        if any(r["kind"] in ("ours", "peer") for r in d["records"]):
            return d
    return next((d for d in docs if d["meta"].get("gpu", {}).get("present")), None)


def read_ceiling(docs):
    g = gpu_doc(docs)
    return ((g or {}).get("ceilings") or {}).get("read_GBps")


def host_of(doc):
    h = doc["meta"].get("host") or {}
    return f"{h.get('cpu', 'unknown CPU')}, {h.get('cores', '?')} cores"


def machines(docs):
    g = gpu_doc(docs)
    gpu = lpresults.gpu_label(g) if g else "no GPU"
    if g:
        gpu += f" (commit {g['meta'].get('git_commit', '?')}, {g['meta'].get('date', '?')[:10]})"
    cpu = next((host_of(d) for d in docs if any(r["kind"] == "cpu" for r in d["records"])), None)
    return f"GPU: {gpu}" + (f"; CPU: {cpu}" if cpu else "")


def bytes_per_row(recs):
    """The minimal bytes per row the records count (GB/s × ns per row), their median; else 16."""
    b = [r["GBps"] * r["ns_per_input"] for r in recs if r["kind"] in ("ours", "peer") and r.get("GBps") and r.get("ns_per_input")]
    return round(statistics.median(b), 3) if b else BYTES_PER_ROW


def figure_n(recs):
    """The n of the sweep: the one with the most m values among the GPU records (a few points at a
    larger n sit beside the sweep), the larger n on a tie."""
    gpu = [r for r in recs if r["kind"] in ("ours", "peer")] or recs
    ms = {}
    for r in gpu:
        ms.setdefault(r["params"]["n"], set()).add(r["params"]["m"])
    return max(ms, key=lambda n: (len(ms[n]), n), default=None)


def at_n(recs, n):
    """Per variant, its records at n, or at its own largest n (then named in the legend)."""
    out, other = [], {}
    for v in {r["variant"] for r in recs}:
        rs = [r for r in recs if r["variant"] == v]
        here = [r for r in rs if r["params"]["n"] == n]
        if not here:
            own = max(r["params"]["n"] for r in rs)
            here = [r for r in rs if r["params"]["n"] == own]
            other[v] = own
        out += here
    return out, other


def m_axis(ax, ms):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_minor_locator(NullLocator())
    if ms:
        lo, hi = math.floor(math.log2(min(ms))), math.ceil(math.log2(max(ms)))
        step = 1 if hi - lo <= 8 else 2 * math.ceil((hi - lo) / 28)
        ax.set_xticks([2.0**k for k in range(lo + lo % step, hi + 1, step)])
        ax.xaxis.set_major_formatter(LogFormatterMathtext(base=2))
        ax.set_xlim(2.0**lo / 1.3, 2.0**hi * 1.3)
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)


def line(ax, pts, **kw):
    pts = sorted(pts)
    ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=4, lw=1.3, **kw)


def ceiling_line(ax, b, read):
    ns = b / read
    ax.axhline(ns, color="black", ls="--", lw=1.2, zorder=1,
               label=f"read ceiling: {b:g} B/row at {read:.0f} GB/s = {ns:.4f} ns/row")


def legend_right(fig, axes):
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)


def scale_of(recs):
    s = {r["params"].get("price_scale") for r in recs} - {None}
    return s.pop() if len(s) == 1 else "s"


def dist_figure(docs, recs, d, out):
    rs = [r for r in recs if dist_key(r["params"]) == d]
    n = figure_n(rs)
    rs, other = at_n(rs, n)
    types = [t for t in TYPES if any(r["params"]["type"] == t for r in rs)]
    types += sorted({r["params"]["type"] for r in rs} - set(types))
    if not types:
        return lpresults.skip(out, f"no records for {dist_name(d)}")
    read = read_ceiling(docs)
    fig, axes = plt.subplots(1, len(types), figsize=(5.0 * len(types) + 0.6, 4.9), squeeze=False, sharey=True)
    scale = scale_of([r for r in rs if r["params"]["type"] == "decimal128"])
    for i, (ax, t) in enumerate(zip(axes[0], types)):
        here = [r for r in rs if r["params"]["type"] == t]
        for j, v in enumerate(sorted({r["variant"] for r in here}, key=lambda v: (order(v), v))):
            kw = style(v, j, 0)
            kw["label"] = kw["label"].replace("DECIMAL(38,s)", f"DECIMAL(38,{scale})")
            if v in other:
                kw["label"] += f" (n = {lpresults.pow2(other[v])})"
            line(ax, [(r["params"]["m"], r["ns_per_input"]) for r in here if r["variant"] == v], **kw)
        finish_panel(ax, i, here, n, read, TYPE_NAME.get(t, t))
    legend_right(fig, axes[0])
    fig.suptitle(f"Per product sum(price × quantity): time per row against the group count, {dist_name(d)} products, "
                 f"n = {lpresults.pow2(n)} rows\n{machines(docs)}; every point validated", fontsize=10)
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=150, bbox_inches="tight")


def finish_panel(ax, i, rs, n, read, title):
    """Panel i's read ceiling (at the records' bytes per row at n), m axis, lettered title and y label."""
    if read:
        ceiling_line(ax, bytes_per_row([r for r in rs if r["params"]["n"] == n]), read)
    m_axis(ax, [r["params"]["m"] for r in rs])
    ax.set(title=f"({'abcdef'[i]}) {title}", xlabel="groups m (products)")
    if i == 0:
        ax.set_ylabel("time per row (ns)")
    ax.tick_params(labelleft=True)


def fastest(rs, variants, t, n):
    """{m: the fastest ns per row of `variants` in type t} at n, else at the largest n they have; and that n."""
    rs = [r for r in rs if r["variant"] in variants and (t is None or r["params"]["type"] == t)]
    if not rs:
        return {}, None
    if not any(r["params"]["n"] == n for r in rs):
        n = max(r["params"]["n"] for r in rs)
    best = {}
    for r in rs:
        if r["params"]["n"] == n:
            m = r["params"]["m"]
            best[m] = min(best.get(m, math.inf), r["ns_per_input"])
    return best, n


def types_figure(docs, recs, out):
    dists = sorted({dist_key(r["params"]) for r in recs}, key=lambda d: (d[0] != "uniform", d[0], d[1] or 0))
    panels = [(d, [r for r in recs if dist_key(r["params"]) == d]) for d in dists]
    panels = [(d, rs) for d, rs in panels if any(r["variant"] == "auto" for r in rs)]
    if not panels:
        return lpresults.skip(out, "no auto records")
    read = read_ceiling(docs)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 * len(panels) + 0.6, 4.9), squeeze=False, sharey=True)
    for i, (ax, (d, rs)) in enumerate(zip(axes[0], panels)):
        n = max(r["params"]["n"] for r in rs if r["variant"] == "auto")
        at = lambda own: "" if own == n else f" (n = {lpresults.pow2(own)})"  # noqa: E731
        for t in [t for t in TYPES if any(r["params"]["type"] == t for r in rs)]:
            c = TYPE_COLOUR[t]
            auto, own = fastest(rs, ("auto",), t, n)
            if auto:
                line(ax, auto.items(), color=c, marker="o", ls="-", label=f"auto, {t}{at(own)}")
            cpu, own = fastest(rs, CPU, t, n)
            if cpu:
                line(ax, cpu.items(), color=c, marker="x", ls="-.", label=f"fastest CPU variant, {t}{at(own)}")
        duck, own = fastest(rs, DUCKDB, None, n)
        if duck:
            line(ax, duck.items(), color="#7f7f7f", marker="^", ls=":",
                 label=f"DuckDB, DECIMAL(38,{scale_of(rs)}) (the faster of its two plans){at(own)}")
        finish_panel(ax, i, rs, n, read, f"{dist_name(d)} products, n = {lpresults.pow2(n)} rows")
    legend_right(fig, axes[0])
    fig.suptitle(f"What the type costs: auto's time per row in decimal128, decimal64 and double, against the CPU and DuckDB\n"
                 f"{machines(docs)}; every point validated", fontsize=10)
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=150, bbox_inches="tight")


def targets(docs, recs, out):
    big = [r for r in recs if r["params"]["n"] == N_TARGET]
    cell = {}  # (variant, type, distribution) -> {m: record}
    for r in big:
        cell.setdefault((r["variant"], r["params"]["type"], dist_key(r["params"])), {})[r["params"]["m"]] = r
    dists = sorted({dist_key(r["params"]) for r in recs}, key=lambda d: (d[0] != "uniform", d[0], d[1] or 0)) or [("uniform", None)]
    t = lambda r: r["time_ms"]["median"]  # noqa: E731
    rows = []

    def row(what, d, got, goal, ok_if):
        """got: (value, at, how many m) or None; ok_if(value) -> bool."""
        if got is None:
            rows.append([what, dist_name(d), "no records", "-", "-", goal, "-"])
        else:
            v, at, k = got
            rows.append([what, dist_name(d), f"{v:.3g}", at, str(k), goal, "met" if ok_if(v) else "not met"])

    def worst(pairs, pick, count=None):
        """pairs: [(value, where)]; pick = min or max; (value, where, how many m) or None."""
        if not pairs:
            return None
        v, at = pick(pairs, key=lambda p: p[0])
        return v, at, count or len(pairs)

    read = read_ceiling(docs)
    for d in dists:
        auto128 = cell.get(("auto", "decimal128", d), {})
        pairs = [(r["GBps"] / read, f"m = {lpresults.pow2(m)}") for m, r in auto128.items() if m <= 256 and read and r.get("GBps")]
        b = bytes_per_row(list(auto128.values()))
        row(f"decimal128 auto at m <= 256: fraction of the read ceiling (GB/s of the minimal {b:g} B/row / read GB/s)", d,
            worst(pairs, min), ">= 0.85",
            lambda v: v >= 0.85)
    for d in dists:
        auto128, cub = cell.get(("auto", "decimal128", d), {}), cell.get(("cub_sort_reduce_by_key", "decimal128", d), {})
        pairs = [(t(cub[m]) / t(auto128[m]), f"m = {lpresults.pow2(m)}") for m in auto128 if m <= 1 << 16 and m in cub]
        row("decimal128 auto against cub_sort_reduce_by_key at m <= 2^16 (CUB time / auto time)", d, worst(pairs, min), ">= 5",
            lambda v: v >= 5)
    for d in dists:
        a, b = cell.get(("auto", "decimal128", d), {}), cell.get(("auto", "decimal64", d), {})
        pairs = [(t(a[m]) / t(b[m]), f"m = {lpresults.pow2(m)}") for m in a if m in b]
        row("decimal128 auto against decimal64 auto (decimal128 time / decimal64 time)", d, worst(pairs, max), "<= 1.5",
            lambda v: v <= 1.5)
    for anchor in ("cpu_mt",) + DUCKDB:
        for d in dists:
            a, c = cell.get(("auto", "decimal128", d), {}), cell.get((anchor, "decimal128", d), {})
            pairs = [(t(c[m]) / t(a[m]), f"m = {lpresults.pow2(m)}") for m in a if m <= 1 << 16 and m in c]
            row(f"decimal128 auto against {anchor} at m <= 2^16 ({anchor} time / auto time)", d, worst(pairs, min), ">= 50",
                lambda v: v >= 50)
    for ty in TYPES:
        for d in dists:
            a = cell.get(("auto", ty, d), {})
            ms = sorted(a)
            pairs = []
            for lo, hi in zip(ms, ms[1:]):
                x, y = t(a[lo]), t(a[hi])
                pairs.append((max(x, y) / min(x, y), f"m = {lpresults.pow2(lo)} -> {lpresults.pow2(hi)}, {'slower' if y > x else 'faster'}"))
            row(f"{ty} auto: largest time ratio between neighbouring m (the slower over the faster)", d, worst(pairs, max, len(ms)), "<= 3",
                lambda v: v <= 3)
    lines = ["# Decimal study: the targets, measured\n",
             f"{machines(docs)}. Every ratio at n = 2^26 rows, over the m values of the sweep (the figures' records: one "
             "price type per type, decimal64 with on_overflow null, the fastest record of a variant at a point); "
             "'worst at' names the m of the worst ratio, 'm values' how many m it was taken over; 'no records' where a "
             "side has none at n = 2^26.\n",
             lpresults.md_table(["target", "distribution", "measured (worst)", "worst at", "m values", "wanted", ""], rows)]

    # The double query's wrong answers: groups whose float total is not the exact total in cents.
    dbl = [r for r in big if r["params"]["type"] == "double" and "wrong_groups" in (r.get("metrics") or {})]
    lines.append("\n## double: groups whose float total differs from the exact total in cents\n")
    if not dbl:
        lines.append("no records\n")
    else:
        wrong_rows = []
        for d in dists:
            here = [r for r in dbl if dist_key(r["params"]) == d]
            for m in sorted({r["params"]["m"] for r in here}):
                at_m = [r for r in here if r["params"]["m"] == m]

                def frac(r):
                    met = r["metrics"]
                    g = met.get("groups")
                    return met["wrong_groups"], g, met["wrong_groups"] / (g if g else min(m, r["params"]["n"]))

                auto = next((r for r in at_m if r["variant"] == "auto"), None)
                fs = [frac(r)[2] for r in at_m]
                a = frac(auto) if auto else None
                wrong_rows.append([dist_name(d), lpresults.pow2(m),
                                   f"{a[0]} / {a[1] if a[1] else '(m) ' + str(min(m, auto['params']['n']))}" if a else "-",
                                   f"{a[2]:.3g}" if a else "-", f"{min(fs):.3g} - {max(fs):.3g} ({len(fs)} variants)"])
        lines.append("Per m: auto's wrong groups over the groups with at least one row (metrics.groups; m where a record "
                     "does not say), and the range of that fraction over every double variant at the point (their "
                     "summation orders differ).\n")
        lines.append(lpresults.md_table(["distribution", "m", "auto: wrong / groups", "auto: fraction", "every variant: fraction"],
                                        wrong_rows))
    lpresults.write_text(out, "\n".join(lines))


def main():
    cli = lpresults.study_cli("decimal", __doc__)
    if cli is None:
        return
    docs, out = cli
    recs = canonical([r for d in docs for r in lpresults.timed(d)])
    dists = sorted({dist_key(r["params"]) for r in recs}, key=lambda d: (d[0] != "uniform", d[0], d[1] or 0))
    several = Counter(d[0] for d in dists)
    for d in dists:
        name = d[0] if several[d[0]] == 1 else f"{d[0]}_s{d[1]:g}"
        dist_figure(docs, recs, d, os.path.join(out, f"decimal_{name}.png"))
    types_figure(docs, recs, os.path.join(out, "decimal_types.png"))
    targets(docs, recs, os.path.join(out, "decimal_targets.md"))


if __name__ == "__main__":
    main()
