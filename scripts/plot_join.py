#!/usr/bin/env python3
"""Figures and tables of the join study (issue 13; He et al. 2008's comparisons redone).

usage: plot_join.py RESULTS.json OUT_DIR

Reads one result file of `bench join` (records of the suite's joins and, merged in with
scripts/merge_results.py, DuckDB's from scripts/duckdb/duckdb_join.mjs) and writes into OUT_DIR; a
missing file or a figure without records is skipped with one line on stderr (exit 0). Only records
that ran and validated are drawn (lpresults.timed).

  join_size.png  median time against |R| = |S| (unique int32 keys, every S tuple matching), one
                 line per variant: GPU joins solid, CPU joins dash-dot, DuckDB dashed; log axes.
  join_table.md  per point (size, distribution): every variant's median time, and how many times
                 faster the fastest GPU join is than the fastest CPU join and than DuckDB, and the
                 fastest CPU join than DuckDB (the issue's speed-up table).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402

STYLE = {  # variant: (label, colour, marker, line style); solid = GPU, dash-dot = CPU, dashed = DuckDB
    "nlj": ("nlj (NINLJ, He et al. 4.1)", "tab:brown", "v", "-"),
    "smj": ("smj (SMJ on our sorted search, 4.3)", "tab:blue", "o", "-"),
    "global_hash": ("global_hash (ours)", "tab:red", "D", "-"),
    "cpu_nlj": ("CPU NINLJ (1 thread)", "#8c564b", "1", "-."),
    "cpu_smj": ("CPU SMJ (1 thread)", "#1f77b4", "x", "-."),
    "cpu_smj_mt": ("CPU SMJ (all threads)", "#aec7e8", "+", "-."),
    "cpu_hj": ("CPU radix HJ (1 thread)", "black", "*", "-."),
    "cpu_hj_mt": ("CPU radix HJ (all threads)", "#555555", "s", "-."),
    "duckdb": ("DuckDB, pairs materialised", "#7f7f7f", "^", "--"),
    "duckdb_agg": ("DuckDB, pairs aggregated", "#bbbbbb", "<", "--"),
}
style = lpresults.variant_style(STYLE)
GPU = {"nlj", "smj", "global_hash"}
DUCKDB = {"duckdb", "duckdb_agg"}


def host_of(doc):
    h = doc["meta"].get("host") or {}
    return f"{h.get('cpu', 'unknown CPU')}, {h.get('cores', '?')} cores"


def order(v):
    return list(STYLE).index(v) if v in STYLE else 99


def size_figure(doc, recs, out):
    rs = [r for r in lpresults.select(recs, distribution="unique", key="int32", match=1.0, band=0) if r["params"]["r"] == r["params"]["s"]]
    if len({r["params"]["r"] for r in rs}) < 2:
        return lpresults.skip(out, "no size sweep")
    fig, ax = plt.subplots(figsize=(8.5, 5))
    for i, v in enumerate(sorted({r["variant"] for r in rs}, key=order)):
        pts = sorted((r["params"]["r"], r["time_ms"]["median"]) for r in rs if r["variant"] == v)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=5, lw=1.3, **style(v, i, 0))
    ax.set_xscale("log", base=2)
    sizes = sorted({r["params"]["r"] for r in rs})
    ax.set_xticks(sizes, [lpresults.pow2(n) for n in sizes])
    ax.set_yscale("log")
    ax.set(xlabel="|R| = |S| (tuples each)", ylabel="median time (ms)",
           title=f"Equi-join time against relation size (unique int32 keys, all of S matching)\n"
                 f"GPU: {lpresults.gpu_label(doc)}; CPU: {host_of(doc)}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=110)


def table(doc, recs, out):
    points = {}
    for r in recs:
        p = r["params"]
        key = (p["distribution"], p.get("zipf_s"), p["key"], p["match"], p["band"], p["r"], p["s"])
        points.setdefault(key, {})[r["variant"]] = r["time_ms"]["median"]
    if not points:
        return lpresults.skip(out, "no records")
    variants = sorted({v for cell in points.values() for v in cell}, key=order)
    rows = []
    for key in sorted(points, key=lambda k: (k[0], k[1] or 0, k[2], -k[3], k[4], k[5], k[6])):
        cell = points[key]
        dist, zs, kt, match, band, nr, ns = key
        best = lambda names: min(((cell[v], v) for v in names if v in cell), default=None)  # noqa: E731
        g = best(GPU)
        c = best([v for v in cell if v.startswith("cpu_")])
        d = best(DUCKDB)
        ratio = lambda a, b: f"{b[0] / a[0]:.1f}x ({a[1]} vs {b[1]})" if a and b else "-"  # noqa: E731
        what = dist + (f" s={zs:g}" if dist == "zipf" else "")
        rows.append([what, kt, f"{match:g}", str(band), lpresults.pow2(nr), lpresults.pow2(ns)]
                    + [f"{cell[v]:.3g}" if v in cell else "-" for v in variants] + [ratio(g, c), ratio(g, d), ratio(c, d)])
    text = (f"# Join study: median ms per variant, and the speed-ups\n\nGPU: {lpresults.gpu_label(doc)}; CPU: {host_of(doc)}. "
            "Each speed-up is how many times faster the first side's fastest variant is than the second side's (time over "
            "time; below 1 it is slower), the two variants named; '-' where a side has no record at the point.\n\n"
            + lpresults.md_table(["keys", "type", "match", "band", "R tuples", "S tuples"] + variants
                                 + ["best GPU vs best CPU", "best GPU vs DuckDB", "best CPU vs DuckDB"], rows))
    lpresults.write_text(out, text)


def main():
    opened = lpresults.open_study_result(__doc__, "join")
    if opened is None:
        return
    doc, recs, out = opened
    size_figure(doc, recs, os.path.join(out, "join_size.png"))
    table(doc, recs, os.path.join(out, "join_table.md"))

if __name__ == "__main__":
    main()
