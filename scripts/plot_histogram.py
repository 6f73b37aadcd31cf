#!/usr/bin/env python3
"""Figures and the target table of the histogram study (thesis 4.3.1, 4.5.2, Appendix A).

usage: plot_histogram.py RESULTS_DIR OUT_DIR

Reads every result file of the histogram study below RESULTS_DIR (any *.json whose meta.study is
"histogram", e.g. default.json of the default config and those of configs/thesis/fig4_4.json,
fig4_23.json, appendix_a.json) and writes into OUT_DIR; a figure without records is skipped with one
line on stderr. Only records that ran and validated are shown (lpresults.timed); where several
records land on one point (e.g. TRISH, which ignores the factor axis), the fastest is drawn. The
unit is ns per input (one sample), log axis. Line helpers are plot_multireduce.py's.

  fig4_4.png       Podlozhnyuk (256 bins: software tagging, shared atomics), Nugteren (Alg 4.2) and
                   TRISH (Alg 4.3) against n; (a) random (uniform) bytes, (b) degenerate.
  fig4_23.png      TRISH and BankTRISH x1..x8 (factor x 64 threads per block) for each input: random,
                   degenerate and each photograph, bars at the largest n.
  figA_1_A_2.png   every 256-bin histogram of bytes against n (thesis A.1 random, A.2 degenerate),
                   with ours and CUB beside them.
  bins.png         u32 samples: ns per input against the bin count (256 .. 2^18), the best of ours
                   (its name at each point) and CUB HistogramEven; one panel per input kind.
  targets.md       the study's targets at the largest n: best of ours vs CUB per input and bin
                   count (speed-up, fraction of the copy ceiling), BankTRISH x8 vs TRISH.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
import plot_multireduce as pm  # noqa: E402

STYLE = {  # variant: (label, colour, marker, line style); solid = ours, dashed = peer, dash-dot = CPU
    "podlozhnyuk64": ("Podlozhnyuk 64-bin (4.3.1)", "#c49c94", "x", "-"),
    "podlozhnyuk256": ("Podlozhnyuk 256-bin, software tagging (4.3.1)", "tab:brown", "v", "-"),
    "podlozhnyuk256_atomic": ("Podlozhnyuk 256-bin, shared atomics", "tab:brown", "^", ":"),
    "nugteren": ("Nugteren (Alg 4.2)", "tab:purple", "s", "-"),
    "trish": ("TRISH (Alg 4.3)", "tab:green", "D", "-"),
    "banktrish": ("BankTRISH (4.5.2)", "tab:orange", "o", "-"),
    "perbank_histogram": ("perbank, values = 1 (Alg 4.10)", "tab:blue", "*", "-"),
    "block_privatized": ("block_privatized (ours)", "tab:red", "o", "-"),
    "cluster_privatized": ("cluster_privatized (ours, DSMEM)", "tab:pink", "D", "-"),
    "auto": ("auto (ours)", "tab:red", "P", ":"),
    "cub_histogram_even": ("cub::DeviceHistogram::HistogramEven", "#7f7f7f", "s", "--"),
    "cpu_sequential": ("CPU sequential (1 core)", "black", "*", "-."),
    "best ours": ("best of ours", "tab:red", "o", "-"),
}
pm.STYLE.update(STYLE)
pm.ORDER.update({v: i for i, v in enumerate(STYLE)})
THESIS_256 = ["podlozhnyuk256", "podlozhnyuk256_atomic", "nugteren", "trish", "banktrish"]
N = ("n (samples)", lambda r: r["params"]["n"])
BINS = ("bins", lambda r: r["params"]["bins"])


# Where several runs hold one point, the later file in this order wins: the default sweep first, the
# thesis's own runs after it (each thesis figure draws its own run), then the tuning probes oldest
# first, a reverted experiment's before the kept code's (so the kept code's numbers are drawn).
# Files not named here come after, by name.
RUN_ORDER = ["default.json", "appendix_a.json", "fig4_23.json", "fig4_4.json", "probes/large_bins.json", "probes/u8.json",
             "probes/16bit_counters.json", "probes/16bit_batched_atomics_reverted.json", "probes/16bit_next_loads.json",
             "probes/auto_look.json"]


def run_order(results, path):
    rel = os.path.relpath(path, results).replace(os.sep, "/")
    return (RUN_ORDER.index(rel), rel) if rel in RUN_ORDER else (len(RUN_ORDER), rel)


def load_all(results):
    """(doc of the first file, validated records of all files), later files winning on equal keys."""
    first, recs = None, {}
    for path in sorted(glob.glob(os.path.join(results, "**", "*.json"), recursive=True), key=lambda p: run_order(results, p)):
        if lpresults.REGRET_DIR in os.path.relpath(path, results).split(os.sep):
            continue  # the regret sweep's random points are plot_regret.py's
        if os.path.relpath(path, results) == "ceiling_rows.json":
            continue  # a later run at a few of the default sweep's points, read in the README, not drawn over it
        try:
            doc = lpresults.load(path)
        except (ValueError, SystemExit, KeyError):
            continue
        if doc.get("meta", {}).get("study") != "histogram":
            continue
        doc["_file"] = os.path.relpath(path, results)
        first = first or doc
        for r in lpresults.timed(doc):
            recs[(r["variant"], tuple(sorted((k, str(v)) for k, v in r["params"].items())))] = r
    return first, list(recs.values())


def label(r):
    p = r["params"]
    return p["image"] if p["input"] == "image" else p["input"]


def u8_256(recs):
    return lpresults.select(recs, sample="u8", bins=256)


def input_panels(recs, kinds=("uniform", "degenerate", "zipf")):
    return [(f"({'abc'[i]}) {k}", [r for r in recs if r["params"]["input"] == k])
            for i, k in enumerate(k for k in kinds if any(r["params"]["input"] == k for r in recs))]


def fig4_4(doc, recs):
    rs = [r for r in u8_256(recs) if r["variant"] in THESIS_256[:4]]
    pm.figure("fig4_4.png", "Fig 4.4: Podlozhnyuk vs Nugteren vs TRISH (256 bins, byte samples)", doc,
              input_panels(rs, ("uniform", "degenerate")), lambda r: r["variant"], pm.by_variant, x=N)


def fig4_23(doc, recs):
    rs = [r for r in u8_256(recs) if r["variant"] in ("trish", "banktrish")]
    if not rs:
        return lpresults.skip("fig4_23.png", "no validated TRISH/BankTRISH records")
    n = max(r["params"]["n"] for r in rs)
    rs = [r for r in rs if r["params"]["n"] == n]
    inputs = sorted({label(r) for r in rs}, key=lambda s: (s not in ("uniform", "degenerate", "zipf"), s))
    series = ["trish"] + [f"banktrish x{f}" for f in sorted({r["params"]["factor"] or 8 for r in rs if r["variant"] == "banktrish"})]
    best = {}
    for r in rs:
        s = "trish" if r["variant"] == "trish" else f"banktrish x{r['params']['factor'] or 8}"
        k = (label(r), s)
        best[k] = min(best.get(k, float("inf")), r["ns_per_input"])
    # Inputs measured with only the default factor (the main run's images) add no comparison.
    inputs = [i for i in inputs if sum((i, s) in best for s in series) > 2] or inputs
    fig, ax = plt.subplots(figsize=(min(14, max(6, 1.1 * len(inputs) * len(series) / 3)), 4.6))
    w = 0.8 / len(series)
    for j, s in enumerate(series):
        xs = [i + (j - (len(series) - 1) / 2) * w for i in range(len(inputs))]
        ys = [best.get((inp, s), float("nan")) for inp in inputs]
        colour = "tab:green" if s == "trish" else plt.cm.viridis(0.9 * (j - 1) / max(1, len(series) - 2))
        ax.bar(xs, ys, w, label=s, color=colour)
    ax.set_xticks(range(len(inputs)), inputs, rotation=20, ha="right", fontsize=8)
    ax.set(ylabel="ns per input", title=f"Fig 4.23: TRISH vs BankTRISH (factor x 64 threads), 256 bins\n{pm.header(doc, rs)}")
    ax.legend(fontsize=7, ncol=3)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    lpresults.write_figure(fig, os.path.join(pm.OUT, "fig4_23.png"), dpi=150, bbox_inches="tight")


def fig_a(doc, recs):
    rs = [r for r in u8_256(recs) if r["variant"] != "cpu_sequential" and r["params"]["factor"] in (0, 8)]
    pm.figure("figA_1_A_2.png", "Figs A.1 (random), A.2 (degenerate): histograms of bytes, 256 bins", doc,
              input_panels(rs, ("uniform", "degenerate")), lambda r: r["variant"], pm.by_variant, x=N)


def best_ours(rs):
    """Per (input, bins): the fastest 'ours' record, renamed 'best ours' with its winner kept."""
    best = {}
    for r in rs:
        if r["kind"] != "ours":
            continue
        k = (label(r), r["params"]["bins"], r["params"]["n"])
        if k not in best or r["ns_per_input"] < best[k]["ns_per_input"]:
            best[k] = dict(r, winner=r["variant"], variant="best ours")
    return list(best.values())


def bins_fig(doc, recs):
    rs = [r for r in lpresults.select(recs, sample="u32") if r["params"]["cluster"] == 0 and r["params"]["threads"] == 0]
    if rs:
        n = max(r["params"]["n"] for r in rs)
        rs = [r for r in rs if r["params"]["n"] == n]
    pts = best_ours(rs) + [r for r in rs if r["variant"] == "cub_histogram_even"]

    def names(ax, ps):
        for p in ps:
            if p["variant"] == "best ours":
                ax.annotate(p["winner"], (p["params"]["bins"], p["ns_per_input"]), xytext=(3, 4), textcoords="offset points",
                            fontsize=6.5, rotation=30, color="tab:red")

    pm.figure("bins.png", "u32 samples: ns per input against the bin count, best of ours vs CUB HistogramEven", doc,
              input_panels(pts), lambda r: r["variant"], pm.by_variant, x=BINS, extra=names)


def targets(doc, recs):
    rows = []
    for sample, bins_list in (("u8", [256]), ("u32", [256, 4096, 65536])):
        for bins in bins_list:
            rs = lpresults.select(recs, sample=sample, bins=bins)
            if not rs:
                continue
            n = max(r["params"]["n"] for r in rs)
            rs = [r for r in rs if r["params"]["n"] == n and r["params"]["cluster"] == 0 and r["params"]["threads"] == 0]
            for inp in sorted({label(r) for r in rs}, key=lambda s: (s not in ("uniform", "degenerate", "zipf"), s)):
                mine = [r for r in rs if label(r) == inp]
                ours = min((r for r in mine if r["kind"] == "ours"), key=lambda r: r["ns_per_input"], default=None)
                cub = next((r for r in mine if r["variant"] == "cub_histogram_even"), None)
                trish = min((r["ns_per_input"] for r in mine if r["variant"] == "trish"), default=None)
                bt8 = next((r["ns_per_input"] for r in mine if r["variant"] == "banktrish" and r["params"]["factor"] in (0, 8)), None)
                target = 1.3 if bins == 256 else 3.0
                speed = cub["ns_per_input"] / ours["ns_per_input"] if ours and cub else None
                frac = lpresults.copy_fraction(doc, ours) if ours else None
                rows.append([sample, str(bins), inp, lpresults.pow2(n), ours["variant"] if ours else "-",
                             f"{ours['ns_per_input']:.4f}" if ours else "-", f"{cub['ns_per_input']:.4f}" if cub else "-",
                             (f"{speed:.2f}x" + (" (met)" if speed >= target else f" (target {target}x)")) if speed else "-",
                             f"{100 * frac:.0f}%" if frac else "-",
                             f"{trish / bt8:.2f}x" if trish and bt8 else "-"])
    if not rows:
        return lpresults.skip("targets.md", "no validated records")
    head = ["sample", "bins", "input", "n", "best of ours", "ns/input", "CUB ns/input", "speed-up vs CUB", "% copy ceiling",
            "TRISH / BankTRISH x8"]
    lpresults.write_text(os.path.join(pm.OUT, "targets.md"),
                         f"# Histogram targets\n\n{pm.header(doc, recs)}\n\n"
                         "Targets: 256 bins >= 1.3x CUB (u8 also >= 90% of the copy ceiling); 4096 and 65536 bins >= 3x CUB.\n\n"
                         + lpresults.md_table(head, rows))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    results, pm.OUT = sys.argv[1:]
    os.makedirs(pm.OUT, exist_ok=True)
    doc, recs = load_all(results)
    if doc is None:
        sys.exit(f"plot_histogram.py: no histogram results below {results}")
    fig4_4(doc, recs)
    fig4_23(doc, recs)
    fig_a(doc, recs)
    bins_fig(doc, recs)
    targets(doc, recs)
    # auto within 5% of the best variant at every point of the default sweeps.
    lpresults.auto_table(results, ["default.json", "probes/auto_look.json"], "histogram", os.path.join(pm.OUT, "auto.md"))


if __name__ == "__main__":
    main()
