#!/usr/bin/env python3
"""Figures of the multiscan study (thesis chapter 5 and Appendix B, Eilers 2014, on today's GPU).

usage: plot_multiscan.py RESULTS_DIR OUT_DIR

Reads whichever result files RESULTS_DIR holds and writes into OUT_DIR; a figure whose file is missing
falls back to default.json (the default run, which has every variant) and is skipped with one line
on stderr where no validated records fit. Only records that ran and validated are shown; the unit is
ns per input on a log axis, x = m (log2) unless stated, int32 add, exclusive, random values unless
stated. The drawing helpers are the multireduce script's (one plotting helper for every study).

  fig5_4_5_5.png  (fig5_4_5_5.json) Sheffler: (a) spinerecs in global memory at m = 256
                  against threads per block (side; segment = side^2) = Fig 5.4; (b) spinerecs in shared
                  memory against m = Fig 5.5; published solid, corrected dashed; cpu_sequential for scale.
  fig5_7.png      (fig5_7.json) Alg 5.3 sort_global (and sort_global_pairs, inclusive) with the
                  CUB peer and Thrust on pre-sorted keys (sort excluded), one panel per distribution.
  fig5_8.png      (fig5_8.json) Alg 5.4 sort_shared and Thrust on pre-sorted keys.
  fig5_9.png      (fig5_9.json) every variant's worst case over the distributions measured.
  figB_1_B_2.png  (figB_1_B_2.json) seq_global (B.1) and seq_shared (B.2) per distribution.
  summary.png     (targets.json, else default.json) per m and distribution: the best
                  "ours" variant (named at each change), the best peer (thrust_scan_by_key_sorted
                  left out: its time excludes the sort) and the CPU, as a fraction of the copy
                  ceiling measured in the same run (grey line: the ceiling; dotted: the study's
                  60% target for m <= 256).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
import plot_multireduce as pm  # noqa: E402

STYLE = {  # solid = ours, dashed = peer, dash-dot = CPU
    "auto": ("auto (ours: picks by m)", "tab:red", "o", "-"),
    "single_pass": ("single_pass (ours: look-back over m-vectors)", "tab:orange", "s", "-"),
    "register_scan": ("register_scan (ours: bucket sums in registers, m <= 16)", "#ffbb78", "v", "-"),
    "perthread_scan": ("perthread_scan (ours: a bucket column a thread in shared memory, m <= 64)", "#ff9896", "*", "-"),
    "relabel": ("relabel (ours: dense labels, then single_pass)", "#98df8a", ">", "-"),
    "partitioned": ("partitioned (ours: one partition pass, single_pass per partition)", "#c5b0d5", "P", "-"),
    "vector_scan": ("vector_scan (5.1, m-vectors)", "#aec7e8", "x", "-"),
    "seq_global": ("seq_global (5.3, Fig B.1)", "tab:cyan", "<", "-"),
    "seq_shared": ("seq_shared (5.3, Fig B.2)", "tab:purple", "h", "-"),
    "sheffler_global": ("sheffler_global (5.4.2, published)", "tab:green", "p", "-"),
    "sheffler_global_corrected": ("sheffler_global, corrected", "tab:green", "p", "--"),
    "sheffler_shared": ("sheffler_shared (5.4.3, published)", "tab:olive", "^", "-"),
    "sheffler_shared_corrected": ("sheffler_shared, corrected", "tab:olive", "^", "--"),
    "sort_global": ("sort_global (Alg 5.3)", "tab:gray", "d", "-"),
    "sort_global_pairs": ("sort_global_pairs (5.5, inclusive)", "tab:gray", "d", ":"),
    "sort_shared": ("sort_shared (Alg 5.4)", "tab:brown", "X", "-"),
    "cub_sort_scan_by_key": ("CUB radix sort + scan-by-key + scatter", "tab:blue", "s", "--"),
    "thrust_scan_by_key_sorted": ("thrust scan_by_key, pre-sorted (no sort)", "tab:pink", "D", "--"),
    "cpu_sequential": ("CPU sequential (Alg 2.3, 1 core)", "black", "*", "-."),
    "cpu_sorted": ("CPU partial sort + sequential (Alg 2.5)", "black", "x", "-."),
    "best ours": ("best of ours", "tab:red", "o", "-"),
    "best peer": ("best peer library", "tab:blue", "s", "--"),
    "best cpu": ("CPU (Alg 2.3 / 2.5)", "black", "*", "-."),
}
BASE = dict(op="add", type="int32", values="random")


by_variant = lpresults.variant_style(STYLE)


def load(name, outs):
    """The figure's own results file, else the default run's; None where neither exists."""
    for f in (name, "default.json"):
        doc, recs = lpresults.load_file(RESULTS, f)
        if doc:
            return doc, recs
    for o in outs:
        lpresults.skip(o, f"neither {name} nor default.json in {RESULTS}")
    return None, []


def simple(out, name, what, names, series=lambda r: r["variant"], **want):
    doc, recs = load(name, [out])
    if doc:
        if names:  # none: every variant
            want["variant"] = names
        pm.figure(out, what, doc, pm.dist_panels(lpresults.select(recs, **want)), series, by_variant)


def fig5_4_5_5():
    doc, recs = load("fig5_4_5_5.json", ["fig5_4_5_5.png"])
    if not doc:
        return
    recs = lpresults.select(recs, **BASE, distribution="uniform")
    glob = [r for r in recs if r["params"]["m"] == 256 and r["variant"] in ("sheffler_global", "sheffler_global_corrected", "cpu_sequential")]
    shar = [r for r in recs if r["params"].get("side") == 32 and r["variant"] in ("sheffler_shared", "sheffler_shared_corrected", "cpu_sequential")]
    if not any(r["variant"].startswith("sheffler") for r in glob):
        glob = []  # the CPU line alone says nothing of Fig 5.4
    side = ("threads per block (side; segment = side^2 inputs)", lambda r: r["params"].get("side") or 16)
    pm.figure("fig5_4.png", "Fig 5.4: Sheffler, spinerecs in global memory, m = 256, uniform labels", doc, [("global memory", glob)],
              lambda r: r["variant"], by_variant, x=side)
    pm.figure("fig5_5.png", "Fig 5.5: Sheffler, spinerecs in shared memory (side 32), uniform labels", doc, [("shared memory", shar)],
              lambda r: r["variant"], by_variant)


def fig5_9():
    doc, recs = load("fig5_9.json", ["fig5_9.png"])
    if not doc:
        return
    worst = {}
    for r in lpresults.select(recs, **BASE, mode="exclusive"):
        k = (r["variant"], r["params"]["m"])
        if k not in worst or r["ns_per_input"] > worst[k]["ns_per_input"]:
            worst[k] = r
    pm.figure("fig5_9.png", "Fig 5.9: every multiscan variant, worst case over the label distributions measured", doc,
              [("worst case", list(worst.values()))], lambda r: r["variant"], by_variant)


def summary():
    # The targets run (every m to 2^20, three distributions, the peers and auto in one run), else the default run.
    doc, recs = load("targets.json", ["summary.png"])
    if not doc:
        return
    if not (doc.get("ceilings") or {}).get("copy_GBps"):
        return lpresults.skip("summary.png", f"no copy ceiling in {doc['_file']} (a run without a GPU)")
    # thrust_scan_by_key_sorted left out: its time leaves out the sort, a bound, not a multiscan.
    pts = lpresults.best_fractions(doc, lpresults.select(recs, **BASE, mode="exclusive"),
                                   {"ours": "best ours", "peer": "best peer", "cpu": "best cpu"},
                                   leave_out=("thrust_scan_by_key_sorted",))

    def names(ax, rs):
        ax.axhline(1.0, color="gray", lw=0.8)  # the copy ceiling itself
        ax.axhline(0.6, color="gray", lw=0.8, ls=":")  # the study's target for m <= 256
        lpresults.name_winners(ax, rs, "best ours", xytext=(2, 6), rotation=35, fontsize=6.5, color="tab:red")

    ceiling = doc["ceilings"]["copy_GBps"]
    pm.figure("summary.png", "Best of ours vs best peer vs the CPU, as a fraction of the copy ceiling (int32 add, exclusive)", doc,
              pm.dist_panels(pts), lambda p: p["variant"], by_variant,
              y=(f"fraction of the copy ceiling ({ceiling:.0f} GB/s)", lambda p: p["frac"]), ylog=True, extra=names)


def main():
    global RESULTS
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    RESULTS, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    pm.OUT = out  # the shared drawing helpers write there
    fig5_4_5_5()
    simple("fig5_7.png", "fig5_7.json", "Fig 5.7: sort-based multiscan without partitioning (Alg 5.3) and the sort-based peers",
           ["sort_global", "sort_global_pairs", "cub_sort_scan_by_key", "thrust_scan_by_key_sorted"], lambda r: (r["variant"]), **BASE)
    simple("fig5_8.png", "fig5_8.json", "Fig 5.8: sort-based multiscan in shared memory (Alg 5.4)",
           ["sort_shared", "thrust_scan_by_key_sorted"], **BASE, mode="exclusive")
    fig5_9()
    simple("figB_1_B_2.png", "figB_1_B_2.json",
           "Figs B.1, B.2: the sequential multiscan per thread inside Alg 5.2, bucket sets in global / shared memory",
           ["seq_global", "seq_shared", "cpu_sequential"], **BASE, mode="exclusive")
    summary()
    # auto within 5% of the best variant at every point of the default sweeps.
    lpresults.auto_table(RESULTS, ["default.json", "targets.json", "probes/auto_medium_m.json"], "multiscan",
                         os.path.join(out, "auto.md"), leave_out=("thrust_scan_by_key_sorted",))


if __name__ == "__main__":
    main()
