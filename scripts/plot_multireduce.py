#!/usr/bin/env python3
"""Figures and tables of the multireduce study (thesis chapters 3-4, Eilers 2014, on today's GPU).

usage: plot_multireduce.py RESULTS_DIR OUT_DIR

Reads whichever result files RESULTS_DIR holds and writes into OUT_DIR; a figure whose file or records
are missing is skipped with one line on stderr. Only records that ran and validated are shown
(lpresults.timed). The unit is ns per input (the thesis's unit) on a log axis; x = m (buckets, labels
0..m-1) on a log2 axis; int32 add unless stated. Where several configurations land on the same point
of a line (e.g. 64 threads x 2 blocks/SM and 128 x 1 in Fig 4.7), the fastest is drawn.

  fig3_6.png      (fig3_6.json) thrust reduce-by-key and scan-by-key on sorted pairs
                  against the mean segment length n/m: the lower bound of sort-based multireduce.
  fig4_7_4_8.png  (fig4_7_to_4_9.json) global_noncomm, one bucket set per thread in global
                  memory: ns/input against total threads (threads x blocks/SM x SMs), one line per m;
                  (a) uniform labels = Fig 4.7, (b) degenerate = Fig 4.8.
  fig4_9.png      (same file) global_noncomm_sorted (sorted by label first), same axes, per distribution.
  fig4_10_4_11.png (table4_1.json) global_comm, commutative: ns/input against m, one line
                  per nSets; (a) degenerate = Fig 4.10, (b) uniform = Fig 4.11.
  table4_1.md     (same file) ns/input, uniform: rows log2 nSets, columns m; bold where the nSets x m
                  int32 buckets exceed the L2 (the thesis shaded its cache-overflow cells).
  table4_2.md     (table4_2.json) per m the (nSets, sortBits) of global_comm with the best
                  worst case of uniform and degenerate; rest complexity = log2 tBuckets - sortBits.
  fig4_13.png     (fig4_13.json) shared_perthread_noncomm: ns/input against m, one line
                  per nItems.
  fig4_15.png     (fig4_15.json) per-bank vs per-thread bucket sets in shared memory,
                  against m; one panel per distribution.
  fig4_16.png     (fig4_16.json) perbank, its multi-pass and its sort extension beyond 256
                  buckets, against m.
  fig4_18_4_19.png (default.json) sort_global (radix sort + reduce-by-key) beside
                  cub_sort_reduce_by_key against m; (a) uniform = Fig 4.18, (b) degenerate = Fig 4.19.
  fig4_21_4_22.png (fig4_21_4_22.json) sort_shared (solid, Fig 4.21) and
                  sort_shared_transposed (dashed, Fig 4.22), one colour per threads/block, against m;
                  one panel per distribution.
  fig4_24.png     (fig4_24.json) non-commutative comparison (op affine, uniform): every
                  variant that supports it, the CPU included, against m.
  fig4_25.png     (default.json) commutative comparison (add, uniform): every variant against m,
                  the CPU included; peers dashed, CPU dash-dotted.
  summary.png     (targets.json, add int32, random values) for every m the fraction of the
                  copy ceiling (GB/s of minimal traffic / copy GB/s measured in the run) reached by the
                  best "ours" variant (its name beside each point) and by the best peer library
                  (cub_histogram_even left out: it counts labels, it is no multireduce); one panel per
                  distribution (uniform, degenerate, zipf); faint: the targets (95% for m <= 2^8, 70% for
                  2^10..2^16).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
from matplotlib.ticker import LogFormatterMathtext, NullLocator  # noqa: E402

STYLE = {  # variant: (label, colour, marker, line style); solid = ours, dashed = peer, dash-dot = CPU
    "auto": ("auto (ours: picks by op, type, m)", "tab:red", "o", "-"),
    "shared_privatized": ("shared_privatized (ours)", "tab:orange", "s", "-"),
    "cluster_privatized": ("cluster_privatized (ours, DSMEM)", "tab:brown", "D", "-"),
    "global_atomics_aggregated": ("global_atomics_aggregated (ours)", "tab:pink", "v", "-"),
    "warp_ordered": ("warp_ordered (ours, any op)", "tab:olive", "^", "-"),
    "vector_reduce": ("vector_reduce (4.1, m-vectors)", "#aec7e8", "x", "-"),
    "minimal": ("minimal (Alg 4.4)", "#c49c94", "+", "-"),
    "global_noncomm": ("global_noncomm (Alg 4.7/4.8)", "tab:cyan", "<", "-"),
    "global_noncomm_sorted": ("global_noncomm_sorted (Fig 4.9)", "tab:cyan", ">", ":"),
    "global_comm": ("global_comm (Alg 4.9, nSets=8)", "tab:green", "p", "-"),
    "shared_perthread_noncomm": ("shared_perthread_noncomm (Fig 4.13)", "tab:purple", "h", "-"),
    "shared_perthread_comm": ("shared_perthread_comm (4.3.6)", "tab:purple", "H", ":"),
    "perbank": ("perbank (Alg 4.10)", "tab:blue", "*", "-"),
    "perbank_multipass": ("perbank_multipass (Fig 4.16)", "tab:blue", "v", ":"),
    "perbank_sort_extension": ("perbank_sort_extension (Alg 4.11)", "#9467bd", "^", "-"),
    "sort_global": ("sort_global (Alg 4.12)", "tab:gray", "d", "-"),
    "sort_shared": ("sort_shared (Alg 4.13)", "#98df8a", "P", "-"),
    "sort_shared_transposed": ("sort_shared_transposed (Fig 4.22)", "#2ca02c", "X", ":"),
    "global_atomics": ("global_atomics (naive)", "#ff9896", "o", "--"),
    "cub_sort_reduce_by_key": ("CUB radix sort + reduce_by_key", "tab:blue", "s", "--"),
    "thrust_sort_reduce_by_key": ("Thrust sort_by_key + reduce_by_key", "tab:purple", "D", "--"),
    "thrust_reduce_by_key_sorted": ("thrust::reduce_by_key, pre-sorted", "tab:purple", "o", "--"),
    "thrust_scan_by_key_sorted": ("thrust::inclusive_scan_by_key, pre-sorted", "tab:orange", "s", "--"),
    "cub_histogram_even": ("cub::DeviceHistogram (count only)", "#7f7f7f", "v", "--"),
    "cpu_sequential": ("CPU sequential (Alg 2.2, 1 core)", "black", "*", "-."),
    "cpu_sorted": ("CPU partial sort + sequential (Alg 2.4)", "black", "x", "-."),
    "best ours": ("best of ours", "tab:red", "o", "-"),
    "best peer": ("best peer library", "tab:blue", "s", "--"),
}
ORDER = {v: i for i, v in enumerate(STYLE)}
DISTS = ("uniform", "degenerate", "zipf", "sorted")
MARKERS = "os^vD<>ph*"
BASE = dict(op="add", type="int32", values="random")
NS = ("ns per input", lambda r: r["ns_per_input"])
M = ("m (buckets)", lambda r: r["params"]["m"])


by_variant = lpresults.variant_style(STYLE)  # plot_histogram.py adds its variants to STYLE


def by_param(name):
    """Style for lines keyed by a number: viridis from the smallest to the largest."""
    return lambda k, i, count: dict(label=f"{name} = {lpresults.pow2(k)}", color=plt.cm.viridis(0.9 * i / max(1, count - 1)),
                                    marker=MARKERS[i % len(MARKERS)], ls="-")


def lines(ax, recs, series, style, x, y, ylog=True):
    """The one plotting helper: one line per distinct series(r), x(r) against y(r), fastest point kept."""
    groups = {}
    for r in recs:
        pts = groups.setdefault(series(r), {})
        xv, yv = x(r), y(r)
        if yv is not None and (xv not in pts or yv < pts[xv]):
            pts[xv] = yv
    rank = lambda e: (ORDER.get(e, len(ORDER)), e) if isinstance(e, str) else (e, "")  # noqa: E731
    keys = sorted(groups, key=lambda k: tuple(rank(e) for e in (k if isinstance(k, tuple) else (k,))))
    for i, k in enumerate(keys):
        xs, ys = zip(*sorted(groups[k].items()))
        ax.plot(xs, ys, ms=4, lw=1.3, **style(k, i, len(keys)))
    ax.set_xscale("log", base=2)
    xs = sorted({xv for pts in groups.values() for xv in pts if xv > 0})
    ax.xaxis.set_minor_locator(NullLocator())
    if xs and any(math.log2(xv) % 1 for xv in xs) and len(xs) <= 14:  # not powers of two: tick the values
        ax.set_xticks(xs, [f"{xv:g}" for xv in xs])
    elif xs:  # a tick at every power of two, at even exponents past 8 of them
        lo, hi = math.floor(math.log2(xs[0])), math.ceil(math.log2(xs[-1]))
        step = 1 if hi - lo <= 8 else 2 * math.ceil((hi - lo) / 28)
        ax.set_xticks([2.0**k for k in range(lo + lo % step, hi + 1, step)])
        ax.xaxis.set_major_formatter(LogFormatterMathtext(base=2))
    if ylog:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)


def header(doc, recs):
    ns = sorted({r["params"]["n"] for r in recs})
    meta = doc["meta"]
    return (f"{lpresults.gpu_label(doc)}, n = {', '.join(lpresults.pow2(n) for n in ns)} "
            f"(commit {meta.get('git_commit', '?')}, {meta.get('date', '?')[:10]}; every point validated)")


def figure(out, what, doc, panels, series, style, x=M, y=NS, ylog=True, extra=None):
    """Panels [(subtitle, records)] side by side sharing one legend on the right; empty panels dropped."""
    panels = [(t, rs) for t, rs in panels if rs]
    if not panels:
        return lpresults.skip(out, f"no validated records for it in the {doc['_file']}")
    fig, axes = plt.subplots(1, len(panels), figsize=(5.4 * len(panels) + 3.2, 4.9), squeeze=False)
    for ax, (t, rs) in zip(axes[0], panels):
        lines(ax, rs, series, style, x[1], y[1], ylog)
        ax.set(title=t, xlabel=x[0], ylabel=y[0])
        if extra:
            extra(ax, rs)
    handles = {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)
    fig.suptitle(f"{what}\n{header(doc, [r for _, rs in panels for r in rs])}", fontsize=10)
    fig.tight_layout()
    lpresults.write_figure(fig, os.path.join(OUT, out), dpi=150, bbox_inches="tight")


def dist_panels(recs, names=None, dists=DISTS):
    names = names or {}
    return [(f"({'abcd'[i]}) {d} labels{names.get(d, '')}", [r for r in recs if r["params"]["distribution"] == d])
            for i, d in enumerate(x for x in dists if any(r["params"]["distribution"] == x for r in recs))]


def need(outs, name):
    doc, recs = lpresults.load_file(RESULTS, name)
    if doc is None:
        for o in outs:
            lpresults.skip(o, f"{name} not found")
    return doc, recs


def fig3_6():
    doc, recs = need(["fig3_6.png"], "fig3_6.json")
    if doc:
        recs = lpresults.select(recs, variant=("thrust_reduce_by_key_sorted", "thrust_scan_by_key_sorted"), distribution="sorted")
        figure("fig3_6.png", "Fig 3.6: Thrust reduce-by-key and scan-by-key on pre-sorted pairs", doc,
               [("sorted labels", recs)], lambda r: r["variant"], by_variant,
               x=("mean segment length n/m (inputs per label)", lambda r: r["params"]["n"] / r["params"]["m"]))


def fig4_7_to_4_9():
    doc, recs = need(["fig4_7_4_8.png", "fig4_9.png"], "fig4_7_to_4_9.json")
    if not doc:
        return
    sms = doc["meta"]["gpu"].get("sms") or 132
    tt = (f"total threads (threads/block x blocks/SM x {sms} SMs)",
          lambda r: r["params"]["threads"] * r["params"]["blocks_per_sm"] * sms)
    plain = lpresults.select(recs, variant="global_noncomm")
    figure("fig4_7_4_8.png", "Figs 4.7, 4.8: global_noncomm (a bucket set per thread in global memory), non-commutative add",
           doc, dist_panels(plain, {"uniform": " (Fig 4.7)", "degenerate": " (Fig 4.8)"}),
           lambda r: r["params"]["m"], by_param("m"), x=tt)
    figure("fig4_9.png", "Fig 4.9: global_noncomm_sorted (radix sort by label, then global_noncomm; sort included)",
           doc, dist_panels(lpresults.select(recs, variant="global_noncomm_sorted")), lambda r: r["params"]["m"], by_param("m"), x=tt)


def table_md(out, title, head, rows, notes):
    lpresults.write_text(os.path.join(OUT, out), f"### {title}\n\n{lpresults.md_table(head, rows)}\n{notes}\n")


def fig4_10_table4_1():
    doc, recs = need(["fig4_10_4_11.png", "table4_1.md"], "table4_1.json")
    if not doc:
        return
    recs = lpresults.select(recs, variant="global_comm", sort_bits=0)
    figure("fig4_10_4_11.png", "Figs 4.10, 4.11: global_comm (nSets atomic bucket sets in global memory, set = thread mod nSets)",
           doc, dist_panels(recs, {"degenerate": " (Fig 4.10)", "uniform": " (Fig 4.11)"}, ("degenerate", "uniform")),
           lambda r: r["params"]["n_sets"], by_param("nSets"))
    uni = {(r["params"]["n_sets"], r["params"]["m"]): r["ns_per_input"] for r in lpresults.select(recs, distribution="uniform")}
    if not uni:
        return lpresults.skip("table4_1.md", "no validated uniform global_comm records in table4_1.json")
    sets, ms = sorted({s for s, _ in uni}), sorted({m for _, m in uni})
    l2 = doc["meta"]["gpu"].get("l2_bytes") or float("inf")
    cell = lambda s, m: "" if (s, m) not in uni else (f"**{uni[s, m]:.4g}**" if 4 * s * m > l2 else f"{uni[s, m]:.4g}")  # noqa: E731
    table_md("table4_1.md", f"Table 4.1: global_comm, commutative add, uniform labels, ns per input — {header(doc, recs)}",
             ["log2 nSets \\ m"] + [lpresults.pow2(m) for m in ms],
             [[str(int(math.log2(s)))] + [cell(s, m) for m in ms] for s in sets],
             f"Bold: nSets x m int32 buckets exceed the L2 ({l2 / 2**20:.0f} MiB); the thesis shaded the cells past its cache.")


def table4_2():
    doc, recs = need(["table4_2.md"], "table4_2.json")
    if not doc:
        return
    cfg = {}
    for r in lpresults.select(recs, variant="global_comm"):
        p = r["params"]
        cfg.setdefault((p["m"], p["n_sets"], p["sort_bits"]), {})[p["distribution"]] = r["ns_per_input"]
    best = {}
    for (m, s, b), t in cfg.items():
        if {"uniform", "degenerate"} <= t.keys() and (m not in best or max(t.values()) < max(best[m][2].values())):
            best[m] = (s, b, t)
    if not best:
        return lpresults.skip("table4_2.md", "no global_comm configuration with both uniform and degenerate records")
    rows = [[str(int(math.log2(m))), str(int(math.log2(s))), str(int(math.log2(s * m))), str(b),
             str(int(math.log2(s * m)) - b), f"{t['uniform']:.4g}", f"{t['degenerate']:.4g}"] for m, (s, b, t) in sorted(best.items())]
    table_md("table4_2.md", f"Table 4.2: best case of global_comm with previous sorting — {header(doc, recs)}",
             ["log2 m", "log2 nSets", "log2 tBuckets", "sortBits", "Rest comp.", "Uniform (ns)", "Degenerate (ns)"], rows,
             "Best case: the (nSets, sortBits) whose slower of uniform and degenerate is fastest; tBuckets = m x nSets; "
             "rest complexity = log2 tBuckets - sortBits; ns per input.")


def simple(out, name, what, names, series=lambda r: r["variant"], style=by_variant, **want):
    """A figure against m from one file: the given variants, one panel per distribution present."""
    doc, recs = need([out], name)
    if doc:
        if names:  # none: every variant
            want["variant"] = names
        figure(out, what, doc, dist_panels(lpresults.select(recs, **want)), series, style)


def summary():
    doc, recs = need(["summary.png"], "targets.json")
    if not doc:
        return
    pts = lpresults.best_fractions(doc, lpresults.select(recs, **BASE), {"ours": "best ours", "peer": "best peer"},
                                   leave_out=("cub_histogram_even",))

    def targets(ax, rs):
        for lo, hi, t in ((1, 2**8, 0.95), (2**10, 2**16, 0.70)):
            ax.plot([lo, hi], [t, t], color="green", lw=6, alpha=0.15, solid_capstyle="butt")
            ax.text(lo, t + 0.02, f"target {t:.0%}", fontsize=7, color="green", alpha=0.7)
        for kind, dy, colour in (("best ours", 8, "tab:red"), ("best peer", -8, "tab:blue")):
            lpresults.name_winners(ax, rs, kind, xytext=(2, dy), rotation=35 if dy > 0 else -35, ha="left",
                                   va="bottom" if dy > 0 else "top", fontsize=6.5, color=colour)
        ax.set_ylim(0, max(1.1, *(p["frac"] * 1.05 for p in rs)))

    figure("summary.png", "Fraction of the copy ceiling reached, best of ours vs best peer library (int32 add, random values)",
           doc, dist_panels(pts, dists=("uniform", "degenerate", "zipf")), lambda p: p["variant"], by_variant,
           y=(f"fraction of the copy ceiling ({doc['ceilings'].get('copy_GBps', 0):.0f} GB/s)", lambda p: p["frac"]),
           ylog=False, extra=targets)


def main():
    global RESULTS, OUT
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    RESULTS, OUT = sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    fig3_6()
    fig4_7_to_4_9()
    fig4_10_table4_1()
    table4_2()
    simple("fig4_13.png", "fig4_13.json",
           "Fig 4.13: shared_perthread_noncomm (per-thread bucket sets in shared memory), non-commutative", ["shared_perthread_noncomm"],
           lambda r: r["params"]["n_items"], by_param("nItems"))
    simple("fig4_15.png", "fig4_15.json", "Fig 4.15: per-bank vs per-thread bucket sets in shared memory",
           ["perbank", "shared_perthread_comm", "shared_perthread_noncomm"])
    simple("fig4_16.png", "fig4_16.json", "Fig 4.16: perbank beyond 256 buckets, multi-pass vs sort extension",
           ["perbank", "perbank_multipass", "perbank_sort_extension"])
    simple("fig4_18_4_19.png", "default.json", "Figs 4.18 (uniform), 4.19 (degenerate): global radix sort + segmented reduce",
           ["sort_global", "cub_sort_reduce_by_key"], **BASE)
    simple("fig4_21_4_22.png", "fig4_21_4_22.json",
           "Figs 4.21, 4.22: sort + segmented reduce in shared memory, plain (solid) and transposed input (dashed)",
           ["sort_shared", "sort_shared_transposed"], lambda r: (r["variant"], r["params"]["threads"]),
           lambda k, i, count: dict(label=f"{k[0]}, {k[1]} threads/block", marker=MARKERS[i % 3],
                                    color=plt.cm.viridis(0.42 * (math.log2(k[1]) - 7) % 1), ls="-" if k[0] == "sort_shared" else "--"))
    simple("fig4_24.png", "fig4_24.json", "Fig 4.24: non-commutative comparison (op affine on uint32x2, uniform labels)",
           [], op="affine", distribution="uniform")
    simple("fig4_25.png", "default.json", "Fig 4.25: commutative comparison (int32 add, uniform labels)", [],
           distribution="uniform", **BASE)
    summary()
    # auto within 5% of the best variant at every point of the default sweeps.
    lpresults.auto_table(RESULTS, ["default.json", "targets.json", "auto_large_m.json"], "multireduce",
                         os.path.join(OUT, "auto.md"), leave_out=("thrust_reduce_by_key_sorted", "thrust_scan_by_key_sorted"))


if __name__ == "__main__":
    main()
