#!/usr/bin/env python3
"""Figures of the sorted-search ratio sweep: every variant against |B| / |A|.

usage: plot_sortedsearch_ratios.py RESULTS.json [RESULTS.json ...] OUT_DIR

RESULTS: the sweep's parts (configs/sortedsearch/ratios_int32.json, ratios_int64.json: |A| + |B| =
2^27; ratios_a24.json: |A| = 2^24; ratios_cub_sorted*.json add CUB's sorted-needle search where the
build has it). Writes to OUT_DIR:
- ratios_lower.png: lower bound, time (top) and fraction of the copy ceiling (bottom) against
  |B| / |A|, one column per key type and key distribution and one for |A| = 2^24; one line per
  variant; the vertical line is auto's switch ratio (the metric switch_ratio of its records).
- ratios_complete.png: the complete searches and cub::DeviceMerge (a pass over both inputs) the
  same way.
- ratios_targets.md: the ratio sweep's targets at every ratio, measured.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
import matplotlib.ticker as ticker  # noqa: E402

LOWER = {
    "auto_lower": ("auto (ours)", "black", "o", "-"),
    "windowed_lower": ("windowed, never switching (ours)", "tab:red", "s", "-"),
    "binary_search_lower": ("binary search per needle (ours)", "tab:green", "v", "-"),
    "mergepath_lower": ("merge path (ModernGPU, faithful)", "tab:blue", "^", "-"),
    "thrust_lower_bound": ("thrust::lower_bound, sorted needles", "tab:purple", "D", "--"),
    "cub_lower_bound_sorted": ("cub::DeviceFind::LowerBoundSortedValues (CCCL 3.5+)", "tab:olive", "P", "--"),
}
COMPLETE = {
    "auto_complete": ("auto complete (ours)", "black", "o", "-"),
    "windowed_complete": ("windowed complete (ours)", "tab:red", "s", "-"),
    "mergepath_complete": ("merge-path complete (ModernGPU)", "tab:blue", "^", "-"),
    "cub_merge": ("cub::DeviceMerge (reads both, writes keys)", "tab:gray", ".", "--"),
}


def ratio(r):
    return r["params"]["b_size"] / r["params"]["a_size"]


def panels(recs):
    """(title, records) per column: |A| + |B| = 2^27 per key type and keys, then |A| = 2^24."""
    cols = []
    for t in ("int32", "int64"):
        for k in ("distinct", "dups"):
            sel = [r for r in lpresults.select(recs, type=t, keys=k) if r["params"]["a_size"] + r["params"]["b_size"] == 2 ** 27]
            if sel:
                cols.append((f"{t}, {k}: |A| + |B| = 2^27", sel))
    fixed = [r for r in lpresults.select(recs, type="int32", keys="distinct", a_size=2 ** 24) if r["params"]["b_size"] + 2 ** 24 != 2 ** 27]
    if fixed:
        cols.append(("int32, distinct: |A| = 2^24", fixed))
    return cols


def switch_ratio(recs):
    for r in recs:
        s = (r.get("metrics") or {}).get("switch_ratio")
        if r["variant"] == "auto_lower" and s:
            return float(s)
    return None


def draw(docs, recs, styles, path, title):
    # Only the columns that hold some of these variants (|A| = 2^24 runs the lower bounds only).
    cols = [(name, sel) for name, sel in panels(recs) if any(r["variant"] in styles for r in sel)]
    if not cols:
        return
    # One column (a quick sweep) is widened so that the title and the legend fit.
    fig, axes = plt.subplots(2, len(cols), figsize=(max(4.6 * len(cols), 7.5), 8.4), squeeze=False, sharex=True)
    for c, (name, sel) in enumerate(cols):
        top, bottom = axes[0][c], axes[1][c]
        for v, (label, colour, marker, ls) in styles.items():
            pts = sorted((ratio(r), r["time_ms"]["median"], lpresults.copy_fraction(docs[id(r)], r)) for r in sel if r["variant"] == v)
            if not pts:
                continue
            xs = [p[0] for p in pts]
            top.plot(xs, [p[1] for p in pts], marker=marker, color=colour, ls=ls, label=label, ms=4)
            bottom.plot(xs, [p[2] for p in pts], marker=marker, color=colour, ls=ls, label=label, ms=4)
        sw = switch_ratio(sel)
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.grid(True, which="both", alpha=0.3)
            if sw and styles is LOWER:
                ax.axvline(sw, color="black", lw=0.8, ls=":")
        if sw and styles is LOWER:
            top.text(sw, 0.98, f" auto's switch: {sw:g}", transform=top.get_xaxis_transform(), va="top", fontsize=8)
        top.set_yscale("log")
        # Labels at 1, 2 and 5 of every decade: a log axis over one decade otherwise shows one label.
        top.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        top.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: f"{y:g}"))
        top.yaxis.set_minor_formatter(ticker.NullFormatter())
        top.set_title(name, fontsize=10)
        bottom.axhline(1.0, color="gray", lw=0.8, ls="--")
        bottom.set_xlabel("|B| / |A|  (haystack per needle)")
        if c == 0:
            top.set_ylabel("time, ms (median)")
            bottom.set_ylabel("fraction of the copy ceiling\n(minimal bytes / copy GB/s, same run)")
    axes[0][0].legend(fontsize=8, loc="center left")
    fig.suptitle(f"{title} — {lpresults.gpu_label(docs[id(recs[0])])}")
    fig.tight_layout()
    lpresults.write_figure(fig, path, dpi=110)


def auto_plan(r):
    """The plan auto ran: the shared metric `plan`, `chose` in results from before it took the shared record."""
    m = r.get("metrics") or {}
    return m.get("plan", m.get("chose", ""))


def targets(docs, recs, path):
    """The ratio sweep's targets at every ratio of every panel."""
    rows = []
    for name, sel in panels(recs):
        by = {}
        for r in sel:
            by.setdefault(ratio(r), {})[r["variant"]] = r
        for x in sorted(by):
            v = by[x]
            a = v.get("auto_lower")
            if not a:
                continue
            t = a["time_ms"]["median"]
            mp = v.get("mergepath_lower")
            th = v.get("thrust_lower_bound")
            vs_mp = mp["time_ms"]["median"] / t if mp else math.nan
            vs_th = th["time_ms"]["median"] / t if th else math.nan
            within = 1 / 16 <= x <= 16
            met = vs_mp >= 1.3 and (vs_th >= 4 if within else vs_th >= 1.0)
            comp = v.get("auto_complete")
            cf = lpresults.copy_fraction(docs[id(comp)], comp) if comp else None
            rows.append([name, f"{x:.4g}", auto_plan(a), f"{t:.3f}", f"{lpresults.copy_fraction(docs[id(a)], a):.2f}",
                         f"{vs_mp:.2f}", f"{vs_th:.2f}", "met" if met else "not met", f"{cf:.2f}" if cf is not None else ""])
    head = ["inputs", "|B|/|A|", "auto runs", "auto ms", "auto / copy ceiling", "mergepath / auto (>= 1.3)",
            "thrust / auto (>= 4 in 1/16..16, else >= 1)", "both", "auto_complete / copy ceiling"]
    lpresults.write_text(path, "# Sorted search against |B| / |A| (the ratio sweep's targets, measured)\n\n"
                         "Targets: auto lower bound >= 1.3x mergepath_lower at every ratio; >= 4x thrust::lower_bound "
                         "(sorted needles) within 1/16..16 and never slower elsewhere; >= 0.85 of the copy ceiling within "
                         "1/4..4; complete search >= 0.80 at |A| = |B|.\n\n" + lpresults.md_table(head, rows))


def main():
    cli = lpresults.study_cli("sortedsearch", __doc__)
    if cli is None:
        return
    docs, out = cli
    recs, doc_of = [], {}
    for d in docs:
        for r in lpresults.timed(d):
            recs.append(r)
            doc_of[id(r)] = d
    draw(doc_of, recs, LOWER, os.path.join(out, "ratios_lower.png"), "Sorted search, lower bound, against |B| / |A|")
    draw(doc_of, recs, COMPLETE, os.path.join(out, "ratios_complete.png"), "Complete search (bounds both ways, match flags, counts) against |B| / |A|")
    targets(doc_of, recs, os.path.join(out, "ratios_targets.md"))


if __name__ == "__main__":
    main()
