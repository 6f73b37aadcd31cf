#!/usr/bin/env python3
"""Figures and tables of the join study (He et al. 2008's comparisons redone).

usage: plot_join.py RESULTS.json [MORE.json ...] OUT_DIR

Reads result files of `bench join` (records of the suite's joins and, merged in with
scripts/merge_results.py, DuckDB's from scripts/duckdb/duckdb_join.mjs): the GPU's run and its
host's CPU and DuckDB run are separate files (results/h100/join/, results/h100-host/join/), drawn
together. Writes into OUT_DIR; a missing file or a figure without records is skipped with one line
on stderr (exit 0). Only records that ran and validated are drawn (lpresults.timed).

  join_size.png  median time against |R| = |S| (unique int32 keys, every S tuple matching), one
                 line per variant: GPU joins solid, CPU joins dash-dot, DuckDB dashed; log axes.
  join_table.md  per point (size, distribution): every variant's median time, and how many times
                 faster the fastest GPU join is than the fastest CPU join and than DuckDB, and the
                 fastest CPU join than DuckDB (the study's speed-up table).
  join_skew.png  throughput (input tuples per second) of every variant at |R| = |S| = 2^24 for
                 unique, uniform and zipf foreign keys (s = 0.5, 1, 1.5).
  join_targets.md  the join study's targets as measured ratios: the best GPU join against the multi-
                 threaded CPU hash join and DuckDB at 2^26 (and with the PCIe transfers), SMJ's
                 merge step against the copy ceiling, zipf 1.5 against uniform per variant.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback

STYLE = {  # variant: (label, colour, marker, line style); solid = GPU, dash-dot = CPU, dashed = DuckDB
    "nlj": ("nlj (NINLJ, He et al. 4.1)", "tab:brown", "v", "-"),
    "inlj_css": ("inlj_css (INLJ on a CSS-tree, 4.2)", "tab:purple", "^", "-"),
    "inlj_bs": ("inlj_bs (INLJ, binary search)", "tab:pink", "<", "-"),
    "smj": ("smj (SMJ on our sorted search, 4.3)", "tab:blue", "o", "-"),
    "hj": ("hj (radix hash join, 4.4)", "tab:green", "s", "-"),
    "global_hash": ("global_hash (ours)", "tab:red", "D", "-"),
    "phj": ("phj (ours: partitioned hash join)", "tab:olive", "P", "-"),
    "smj_presorted": ("smj_presorted (merge step only)", "tab:cyan", "o", ":"),
    "auto": ("auto", "tab:orange", "*", "-"),
    "cpu_nlj": ("CPU NINLJ (1 thread)", "#8c564b", "1", "-."),
    "cpu_smj": ("CPU SMJ (1 thread)", "#1f77b4", "x", "-."),
    "cpu_smj_mt": ("CPU SMJ (all threads)", "#aec7e8", "+", "-."),
    "cpu_hj": ("CPU radix HJ (1 thread)", "black", "*", "-."),
    "cpu_hj_mt": ("CPU radix HJ (all threads)", "#555555", "s", "-."),
    "duckdb": ("DuckDB, pairs materialised", "#7f7f7f", "^", "--"),
    "duckdb_agg": ("DuckDB, pairs aggregated", "#bbbbbb", "<", "--"),
}
style = lpresults.variant_style(STYLE)
GPU = {"nlj", "inlj_css", "inlj_bs", "smj", "hj", "global_hash", "phj", "auto"}  # smj_presorted skips the sort: not a whole join
DUCKDB = {"duckdb", "duckdb_agg"}


def host_of(doc):
    h = doc["meta"].get("host") or {}
    return f"{h.get('cpu', 'unknown CPU')}, {h.get('cores', '?')} cores"


def gpu_of(docs):
    return next((lpresults.gpu_label(d) for d in docs if d["meta"]["gpu"].get("present")), "no GPU")


def cpu_of(docs, recs):
    """The host of the CPU records (the file that holds them), else the first file's."""
    for d in docs:
        if any(r["kind"] == "cpu" for r in d["records"]):
            return host_of(d)
    return host_of(docs[0])


def order(v):
    return list(STYLE).index(v) if v in STYLE else 99


def size_figure(docs, recs, out):
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
                 f"GPU: {gpu_of(docs)}; CPU: {cpu_of(docs, recs)}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=110)


def table(docs, recs, out):
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
    text = (f"# Join study: median ms per variant, and the speed-ups\n\nGPU: {gpu_of(docs)}; CPU: {cpu_of(docs, recs)}. "
            "Each speed-up is how many times faster the first side's fastest variant is than the second side's (time over "
            "time; below 1 it is slower), the two variants named; '-' where a side has no record at the point.\n\n"
            + lpresults.md_table(["keys", "type", "match", "band", "R tuples", "S tuples"] + variants
                                 + ["best GPU vs best CPU", "best GPU vs DuckDB", "best CPU vs DuckDB"], rows))
    lpresults.write_text(out, text)


SKEW = [("unique", None), ("uniform", None), ("zipf", 0.5), ("zipf", 1.0), ("zipf", 1.5)]


def skew_figure(docs, recs, out):
    n = 1 << 24
    rs = [r for r in lpresults.select(recs, key="int32", match=1.0, band=0) if r["params"]["r"] == n and r["params"]["s"] == n]
    cell = {}
    for r in rs:
        p = r["params"]
        what = (p["distribution"], p["zipf_s"] if p["distribution"] == "zipf" else None)
        if what in SKEW:
            cell.setdefault(r["variant"], {})[what] = 2 * n / (r["time_ms"]["median"] * 1e-3) / 1e9
    if len({w for c in cell.values() for w in c}) < 2:
        return lpresults.skip(out, "no skew sweep")
    fig, ax = plt.subplots(figsize=(8.5, 5))
    xs = range(len(SKEW))
    for i, v in enumerate(sorted(cell, key=order)):
        pts = [(x, cell[v][w]) for x, w in zip(xs, SKEW) if w in cell[v]]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=5, lw=1.3, **style(v, i, 0))
    ax.set_xticks(list(xs), ["unique\n(PK-FK)", "uniform\n(duplicates)", "zipf 0.5", "zipf 1", "zipf 1.5"])
    ax.set_yscale("log")
    ax.set(xlabel="key distribution of S (R unique except for uniform)", ylabel="throughput (10^9 input tuples / s)",
           title=f"Join throughput against skew, |R| = |S| = 2^24 int32 keys\nGPU: {gpu_of(docs)}; CPU: {cpu_of(docs, recs)}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=110)


def targets(docs, recs, out):
    def at(n, dist="unique", zs=None):
        got = {}
        for r in lpresults.select(recs, key="int32", match=1.0, band=0, distribution=dist):
            p = r["params"]
            if p["r"] == n and p["s"] == n and (zs is None or p["zipf_s"] == zs):
                got[r["variant"]] = r
        return got

    n = 1 << 26
    big = at(n)
    gpu = [v for v in big if v in GPU and v != "auto"]
    if not gpu:
        return lpresults.skip(out, "no GPU records at 2^26")
    best = min(gpu, key=lambda v: big[v]["time_ms"]["median"])
    t = big[best]["time_ms"]["median"]
    m = big[best].get("metrics", {})
    t_pcie = t + m.get("h2d_ms", 0) + m.get("d2h_ms", 0)
    lines = [f"# Join study: the targets, measured\n\nGPU: {gpu_of(docs)}; CPU: {cpu_of(docs, recs)}.\n",
             f"## |R| = |S| = 2^26 unique int32 keys, pairs materialised\n",
             f"Best GPU join: `{best}`, {t:.2f} ms on the GPU; {t_pcie:.1f} ms with R and S uploaded and the pairs downloaded "
             f"over PCIe from pageable host memory ({m.get('h2d_ms', 0):.1f} ms up, {m.get('d2h_ms', 0):.1f} ms down).\n"]
    rows = []
    for v, goal in (("cpu_hj_mt", 20), ("duckdb", 10), ("duckdb_agg", 10)):
        if v in big:
            c = big[v]["time_ms"]["median"]
            rows.append([v, f"{c:.1f}", f"{c / t:.1f}x", f"{c / t_pcie:.1f}x", f">= {goal}x", "met" if c / t >= goal else "not met"])
    lines.append(lpresults.md_table(["against", "its ms", "GPU speed-up", "with PCIe", "target", ""], rows))
    if "smj_presorted" in big:
        r = big["smj_presorted"]
        gdoc = next(d for d in docs if d["meta"]["gpu"].get("present"))
        f = lpresults.copy_fraction(gdoc, r)
        t_ms = r["time_ms"]["median"]
        # The bytes the merge step as written moves (kernels/join/sort_merge.cuh, expand.cuh): the two
        # sorted searches read both key columns (the upper one the lower bounds too) and write the
        # bounds and counts; the scan reads the counts and writes the offsets; the expansion reads
        # bounds, counts, offsets and S's rids, and per pair R's rid and the pair written.
        nr, ns, k = r["params"]["r"], r["params"]["s"], 4 if r["params"]["key"] == "int32" else 8
        pairs = r["metrics"]["pairs"]
        moved = 2 * (nr + ns) * k + 36 * ns + 12 * pairs
        g = moved / (t_ms * 1e-3) / 1e9 / gdoc["ceilings"]["copy_GBps"]
        lines.append(f"\n## SMJ's merge step (`smj_presorted`: two sorted searches, the scan, the expansion)\n\n"
                     f"{t_ms:.2f} ms. Counted on the bytes it reads and writes ({moved / 2**30:.2f} GiB: 2 (|R| + |S|) key bytes + "
                     f"36 |S| + 12 per pair): {g:.2f} of the copy ceiling; target >= 0.70: {'met' if g >= 0.7 else 'not met'}. "
                     f"Counted on the bytes any merge must move (both sorted relations' keys and rids, the pairs): {f:.2f}.\n")
    uni, z = at(1 << 24), at(1 << 24, "zipf", 1.5)
    rows = []
    for v in sorted(set(uni) & set(z), key=order):
        ratio = uni[v]["time_ms"]["median"] / z[v]["time_ms"]["median"]
        rows.append([v, f"{uni[v]['time_ms']['median']:.3g}", f"{z[v]['time_ms']['median']:.3g}", f"{ratio:.2f}", "met" if ratio >= 1 / 3 else "not met"])
    if rows:
        lines.append("\n## zipf 1.5 against unique keys at |R| = |S| = 2^24 (throughput ratio; target >= 1/3)\n")
        lines.append(lpresults.md_table(["variant", "unique ms", "zipf 1.5 ms", "zipf / unique throughput", ""], rows))
    lpresults.write_text(out, "\n".join(lines))


def main():
    cli = lpresults.study_cli("join", __doc__)
    if cli is None:
        return
    docs, out = cli
    recs = [r for d in docs for r in lpresults.timed(d)]
    size_figure(docs, recs, os.path.join(out, "join_size.png"))
    table(docs, recs, os.path.join(out, "join_table.md"))
    skew_figure(docs, recs, os.path.join(out, "join_skew.png"))
    targets(docs, recs, os.path.join(out, "join_targets.md"))


if __name__ == "__main__":
    main()
