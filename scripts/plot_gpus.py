#!/usr/bin/env python3
"""Figures and the target table of the multi-GPU runs (and of the sorted search over several GPUs): multireduce, histogram
and sorted search on one, two and four GPUs of one machine (one process driving them through
NCCL), and the streamed mode against the host-to-device probe.

usage: plot_gpus.py RESULTS_DIR OUT_DIR

Reads the runs of configs/multireduce/scaling_m.json, scaling_m_2e30.json, streaming.json,
configs/histogram/scaling.json, streaming.json and configs/sortedsearch/scaling.json from
RESULTS_DIR (mr_m.json, mr_m30.json, mr_st.json, hist.json, hist_st.json, ss.json); a missing file
leaves its figure out with one line on stderr. Only records that ran and validated are drawn.

The model (docs/multi-gpu.md), fitted separately for every GPU count N of the run:
  multireduce, histogram  T(N) = T_local(n/N) + alpha_N + beta_N * m * bytes per bucket
  sorted search           T(N) = T_local(|A|/N + |B|/N) + alpha_N + beta_N * gathered bytes,
                          gathered bytes = 4 |A| (N - 1) / N (every part but GPU 0's)
T_local is the same variant's one-GPU time of the run, interpolated in n; alpha_N and beta_N are a
least-squares fit (relative error) to the records' collective phase (metrics.collective_ms).

  gpus_m.png             speedup over the same variant on one GPU against m (bins) on 2 and 4 GPUs,
                         measured and the model's line, with the crossover m measured and predicted.
  gpus_efficiency.png    scaling efficiency (speedup / N) against N at several m, and sorted search's
                         against N at several sizes, with the model.
  sortedsearch_gpus.png  sorted search: speedup against |A| + |B| (merge-path cuts against a
                         replicated haystack), and the phases at 2^30 keys.
  streaming_gpus.png     GB/s of the streamed runs (32 GiB) on 1, 2 and 4 GPUs against the probe.
  gpus_targets.md        the targets as measured ratios, the crossovers, the model's error and fit.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
from plot_scaling import (VARIANT, Model, crossover_cells, draw_streaming, fit, interpolate, key, label_axes,  # noqa: E402
                          m_sweeps, mark_crossovers, med, model_errors, newest, open_runs, pairs)

GPUS = (2, 4)
STYLE = {2: ("tab:blue", "o"), 4: ("tab:red", "s")}
SEARCH = "sharded_lower"


def keys(r):
    return r["params"]["a_size"] + r["params"]["b_size"]


class SearchModel:
    """Sorted search: T(N) = T_local((|A| + |B|) / N) + alpha_N + beta_N * gathered bytes."""

    def __init__(self, recs, gpus, variant=SEARCH):
        self.gpus, self.variant = gpus, variant
        self.one = [r for r in recs if r["variant"] == variant and r["params"]["gpus"] == 1]
        many = [r for r in recs if r["variant"] == variant and r["params"]["gpus"] == gpus]
        pts = [(self.gathered(r), r["metrics"]["collective_ms"]) for r in many if "collective_ms" in r.get("metrics", {})]
        self.alpha, self.beta = fit(pts)
        self.points = len(pts)

    def gathered(self, r):
        return 4.0 * r["params"]["a_size"] * (self.gpus - 1) / self.gpus

    def local(self, n, like):
        """One-GPU time at n keys of the ratio of `like` (a=b points, or the one point of its ratio)."""
        ratio = like["params"]["b_size"] / max(1, like["params"]["a_size"])
        return interpolate(sorted((keys(r), med(r)) for r in self.one if abs(r["params"]["b_size"] / max(1, r["params"]["a_size"]) - ratio) < 1e-9), n)

    def predict(self, r1):
        loc = self.local(keys(r1) / self.gpus, r1)
        return None if loc is None else loc + self.alpha + self.beta * self.gathered(r1)


def device_only(r):
    return r["params"].get("source", "device") == "device"


def draw_speedup_m(ax, sweeps_by_gpus, title, xlabel):
    for g, sweeps in sorted(sweeps_by_gpus.items()):
        for n, rows in sorted(sweeps.items()):
            c, mk = STYLE[g]
            ms = [r[0] for r in rows]
            lab = f"{g} GPUs" + (f", n = {lpresults.pow2(n)}" if len(sweeps) > 1 else "")
            ax.plot(ms, [r[1] for r in rows], mk + "-", color=c, ms=4, label=f"{lab}: measured")
            ax.plot(ms, [r[3] for r in rows], ":", color=c, lw=1.5, label=f"{lab}: model")
            mark_crossovers(ax, rows, c, lab, measured_size=7)
    ax.axhline(1.0, color="grey", lw=0.8)
    for g in GPUS:
        ax.axhline(0.85 * g, color=STYLE[g][0], lw=0.7, ls="-.", alpha=0.6)
    label_axes(ax, title, xlabel, "speedup over the same variant on 1 GPU", (0, 4.3), "lower left", title_size=10)


def efficiency_rows(recs, models, want, variant=VARIANT):
    """[(label, [(N, measured efficiency, model efficiency)])] for each (label, point params)."""
    out = []
    for label, sel in want:
        row = [(1, 1.0, 1.0)]
        for g in GPUS:
            ps = pairs(recs, variant=variant, gpus=g, **sel)
            if ps:
                a, b = ps[0]
                p = models[g].predict(a) if g in models else None
                row.append((g, med(a) / med(b) / g, med(a) / p / g if p else None))
        if len(row) > 1:
            out.append((label, row))
    return out


def draw_efficiency(ax, rows, title):
    for i, (label, pts) in enumerate(rows):
        c = plt.cm.viridis(i / max(1, len(rows) - 1) * 0.85)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=c, label=f"{label}: measured")
        mp = [(p[0], p[2]) for p in pts if p[2] is not None]
        if len(mp) > 1:
            ax.plot([p[0] for p in mp], [p[1] for p in mp], ":", color=c, label=f"{label}: model")
    ax.axhline(0.85, color="tab:red", lw=0.8, ls="-.", label="target 85% (m <= 2^16)")
    ax.set_xticks([1, 2, 4])
    label_axes(ax, title, "GPUs (N)", "scaling efficiency (speedup / N)", (0, 1.1), "lower left", legend_size=6, title_size=10, log2x=False)


def main():
    opened = open_runs(__doc__.split("\n\n")[1], ["mr_m", "mr_m30", "mr_st", "hist", "hist_st", "ss"])
    if not opened:
        return
    out, docs, runs, gpu = opened
    mr = newest([docs[k] for k in ("mr_m", "mr_m30") if k in docs])
    hist = newest([docs[k] for k in ("hist",) if k in docs])
    ss = docs["ss"][1] if "ss" in docs else []
    link = next((r["metrics"].get("interconnect") for r in mr + hist + ss if r["params"]["gpus"] > 1 and "metrics" in r), "")
    mr_models = {g: Model(mr, gpus=g) for g in GPUS}
    hist_models = {g: Model(hist, gpus=g) for g in GPUS}
    ss_models = {g: SearchModel(ss, g) for g in GPUS}
    lines = []

    mr30 = {g: m_sweeps("multireduce", mr, mr_models[g], [2 ** 30], gpus=g) for g in GPUS}
    mr_low = {g: m_sweeps("multireduce", mr, mr_models[g], [2 ** 26, 2 ** 28], gpus=g) for g in GPUS}
    hist30 = {g: m_sweeps("histogram", hist, hist_models[g], [2 ** 30], gpus=g) for g in GPUS}
    if mr or hist:
        fig, axes = plt.subplots(2, 2, figsize=(14, 10))
        draw_speedup_m(axes[0][0], mr30, f"multireduce, n = 2^30 (add int32, uniform): {VARIANT}", "m (buckets)")
        draw_speedup_m(axes[0][1], hist30, f"histogram, n = 2^30 (u32 samples, uniform): {VARIANT}", "bins")
        for ax, n in ((axes[1][0], 2 ** 28), (axes[1][1], 2 ** 26)):
            at_n = {g: {n: mr_low[g][n]} for g in GPUS if n in mr_low[g]}
            draw_speedup_m(ax, at_n, f"multireduce, n = {lpresults.pow2(n)} (add int32, uniform): {VARIANT}", "m (buckets)")
        fig.suptitle(f"2 and 4 {gpu}s over {link} against one (one process, NCCL); dash-dot: 85% efficiency")
        fig.text(0.5, 0.005, f"runs (binaries' commits): {runs}", ha="center", fontsize=7, color="dimgrey")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        lpresults.write_figure(fig, os.path.join(out, "gpus_m.png"), dpi=100)

    eff = []
    if mr:
        want = [(f"m = {lpresults.pow2(m)}", dict(n=2 ** 30, m=m, source="device", op="add", type="int32", distribution="uniform"))
                for m in (16, 2 ** 16, 2 ** 20, 2 ** 24)]
        eff.append(("multireduce, n = 2^30", efficiency_rows(mr, mr_models, want)))
    if hist:
        want = [(f"bins = {lpresults.pow2(b)}", dict(n=2 ** 30, bins=b, source="device", sample="u32")) for b in (256, 2 ** 16, 2 ** 20)]
        eff.append(("histogram, n = 2^30", efficiency_rows(hist, hist_models, want)))
    if ss:
        want = [(f"|A| = |B| = {lpresults.pow2(a)}", dict(a_size=a, b_size=a)) for a in (2 ** 23, 2 ** 27, 2 ** 29)]
        want += [("|A| = 2^26, |B| = 2^30", dict(a_size=2 ** 26, b_size=2 ** 30)), ("|A| = 2^30, |B| = 2^26", dict(a_size=2 ** 30, b_size=2 ** 26))]
        eff.append((f"sorted search ({SEARCH}, int32)", efficiency_rows(ss, ss_models, want, SEARCH)))
    eff = [e for e in eff if e[1]]
    if eff:
        fig, axes = plt.subplots(1, len(eff), figsize=(5.6 * len(eff), 4.6), squeeze=False)
        for ax, (title, rows) in zip(axes[0], eff):
            draw_efficiency(ax, rows, title)
        fig.suptitle(f"Scaling efficiency on {gpu}s against the GPU count, with the model (dotted)")
        fig.tight_layout()
        lpresults.write_figure(fig, os.path.join(out, "gpus_efficiency.png"), dpi=100)

    if ss:
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
        ax = axes[0]
        for g in GPUS:
            c, mk = STYLE[g]
            for v, ls, what in ((SEARCH, "-", "merge-path cuts, gathered"), ("sharded_lower_replicated", "--", "replicated haystack, gathered")):
                ps = sorted([p for p in pairs(ss, variant=v, gpus=g) if p[0]["params"]["a_size"] == p[0]["params"]["b_size"]], key=lambda p: keys(p[0]))
                if not ps:
                    continue
                xs = [keys(a) for a, b in ps]
                ax.plot(xs, [med(a) / med(b) for a, b in ps], mk + ls, color=c, ms=4, label=f"{g} GPUs, {what}")
                if v == SEARCH:
                    # The search alone (the slowest GPU's local phase): what results left on the GPUs would take.
                    ax.plot(xs, [med(a) / b["metrics"]["local_ms"] for a, b in ps], mk + "-.", color=c, ms=4, mfc="none",
                            label=f"{g} GPUs, merge-path cuts: the local search alone")
                    ax.plot(xs, [med(a) / p if (p := ss_models[g].predict(a)) else float("nan") for a, b in ps], ":", color=c,
                            label=f"{g} GPUs, gathered: model")
        ax.axhline(1, color="grey", lw=0.8)
        label_axes(ax, "lower bound of every needle, |B| / |A| = 1: speedup against size", "|A| + |B| (|A| = |B|, int32 keys)",
                   "speedup over the same variant on 1 GPU", (0, 4.3), "upper left", title_size=10)
        ax = axes[1]
        cases = [("1:1", 2 ** 29, 2 ** 29), ("|B|/|A| = 16", 2 ** 26, 2 ** 30), ("|B|/|A| = 1/16", 2 ** 30, 2 ** 26)]
        labels, local, coll = [], [], []
        for name, a, b in cases:
            for g in (1,) + GPUS:
                rs = lpresults.select(ss, variant=SEARCH, gpus=g, a_size=a, b_size=b)
                if rs and "local_ms" in rs[0].get("metrics", {}):
                    labels.append(f"{name}\n{g} GPU{'s' if g > 1 else ''}")
                    local.append(rs[0]["metrics"]["local_ms"])
                    coll.append(rs[0]["metrics"]["collective_ms"])
        xs = range(len(labels))
        ax.bar(xs, local, color="tab:blue", label="local search (slowest GPU)")
        ax.bar(xs, coll, bottom=local, color="tab:orange", label="gather to GPU 0 (ncclSend/Recv)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, fontsize=6.5)
        ax.set_ylabel("ms (medians of the phases)")
        ax.set_title(f"{SEARCH}: phases at about 2^30 keys", fontsize=10)
        ax.legend(fontsize=7)
        big = lpresults.select(ss, variant=SEARCH, gpus=4, a_size=2 ** 31)
        if big:
            m = big[0]["metrics"]
            ax.set_xlabel(f"2^31 + 2^31 keys on 4 GPUs (beyond one GPU): {med(big[0]):.2f} ms, local {m['local_ms']:.2f}, gather {m['collective_ms']:.2f}",
                          fontsize=8)
        fig.suptitle(f"Sorted search over {gpu}s ({link}): needles and haystack cut on the merge path, parts gathered to GPU 0")
        fig.tight_layout()
        lpresults.write_figure(fig, os.path.join(out, "sortedsearch_gpus.png"), dpi=100)

    streamed = [(name, docs[k][1]) for name, k in (("histogram, 2^33 u32 samples", "hist_st"), ("multireduce, 2^32 int32 pairs", "mr_st")) if k in docs]
    if streamed:
        draw_streaming(os.path.join(out, "streaming_gpus.png"), gpu, streamed, (1,) + GPUS, [(VARIANT, "tab:purple")])

    # The targets.
    rows = []
    for study, sweeps in (("multireduce", mr30), ("histogram", hist30)):
        for g in GPUS:
            for r in sweeps[g].get(2 ** 30, []):
                if r[0] <= 2 ** 16:
                    e = r[1] / g
                    rows.append([study, str(g), lpresults.pow2(r[0]), f"{r[1]:.3f}", f"{100 * e:.1f}%", f"{r[2]:.3f}" if r[2] else "-",
                                 "met" if e >= 0.85 else "NOT met"])
    if rows:
        lines.append(f"## Scaling efficiency at n = 2^30, m <= 2^16: target >= 85% ({VARIANT} over itself on one GPU)\n\n")
        lines.append(lpresults.md_table(["study", "GPUs", "m", "speedup", "efficiency", "speedup over one-GPU auto", "target"], rows))
    rows = []
    for g in GPUS:
        for a, b in sorted(pairs(ss, variant=SEARCH, gpus=g), key=lambda p: (keys(p[0]), p[0]["params"]["a_size"])):
            rows.append([f"{lpresults.pow2(a['params']['a_size'])} + {lpresults.pow2(a['params']['b_size'])}", str(g), f"{med(a):.3f}", f"{med(b):.3f}",
                         f"{med(a) / med(b):.3f}", f"{100 * med(a) / med(b) / g:.1f}%", f"{b['metrics'].get('collective_ms', 0):.3f}"])
    for r in lpresults.select(ss, variant=SEARCH, gpus=4, a_size=2 ** 31):
        rows.append(["2^31 + 2^31", "4", "- (beyond one GPU)", f"{med(r):.3f}", "-", "-", f"{r['metrics'].get('collective_ms', 0):.3f}"])
    if rows:
        lines.append(f"\n## Sorted search ({SEARCH}, int32 distinct keys) over GPUs\n\n")
        lines.append(lpresults.md_table(["|A| + |B|", "GPUs", "1 GPU ms", "N GPUs ms", "speedup", "efficiency", "gather ms"], rows))
    rows = []
    for g in GPUS:
        for a, b in sorted(pairs(ss, variant="sharded_lower_replicated", gpus=g), key=lambda p: keys(p[0])):
            cut = lpresults.select(ss, variant=SEARCH, gpus=g, a_size=a["params"]["a_size"], b_size=a["params"]["b_size"])
            if cut:
                rows.append([f"{lpresults.pow2(a['params']['a_size'])} + {lpresults.pow2(a['params']['b_size'])}", str(g), f"{med(b):.3f}",
                             f"{med(cut[0]):.3f}", f"{med(b) / med(cut[0]):.2f}x"])
    if rows:
        lines.append("\n## Merge-path cuts against a replicated haystack (why sharded_lower cuts)\n\n")
        lines.append(lpresults.md_table(["|A| + |B|", "GPUs", "replicated ms", "cuts ms", "replicated / cuts"], rows))
    rows = []
    for title, recs in streamed:
        for g in (1,) + GPUS:
            probe = lpresults.select(recs, variant="h2d_stream", gpus=g)
            rs = lpresults.select(recs, variant=VARIANT, gpus=g)
            if probe and rs:
                frac = med(probe[0]) / med(rs[0])
                m = rs[0]["metrics"]
                rows.append([title, str(g), f"{med(rs[0]):.1f}", f"{med(probe[0]):.1f}", f"{m['transfer_GBps'] * m['transfer_ms'] / med(rs[0]):.0f}",
                             f"{100 * frac:.1f}%", "met" if frac >= 0.8 else "NOT met"])
    if rows:
        lines.append("\n## Streamed n = 32 GiB: >= 80% of the host-to-device ceiling measured in the same run\n\n")
        lines.append(lpresults.md_table(["input", "GPUs", f"{VARIANT} ms", "h2d_stream ms (probe)", "GB/s", "of the probe", "target"], rows))
    rows = []
    for study, by_g in (("multireduce", mr30), ("multireduce", mr_low), ("histogram", hist30)):
        for g in GPUS:
            for n, rs in sorted(by_g[g].items()):
                rows.append([study, lpresults.pow2(n), str(g), *crossover_cells(rs)])
    if rows:
        lines.append("\n## The crossover m (speedup 1): the model's against the measured one (target: within 2x)\n\n")
        lines.append(lpresults.md_table(["study", "n", "GPUs", "measured", "model", "model vs measured"], rows))
    rows = []
    for study, models, recs in (("multireduce", mr_models, mr), ("histogram", hist_models, hist), ("sorted search", ss_models, ss)):
        for g in GPUS:
            model = models[g]
            variant = getattr(model, "variant", VARIANT)
            errs = model_errors(model, recs, g, variant, pick=device_only)
            at30 = model_errors(model, [r for r in recs if r["params"].get("n", keys(r) if "a_size" in r["params"] else 0) >= 2 ** 30], g,
                                variant, pick=device_only)
            # What neither phase holds: the interval on GPU 0 minus the slowest local step and the combine.
            gaps = sorted(med(b) - b["metrics"]["local_ms"] - b["metrics"]["collective_ms"]
                          for b in lpresults.select(recs, variant=variant, gpus=g) if device_only(b) and "local_ms" in b.get("metrics", {}))
            if errs:
                unit = "GB/s per bucket byte" if study != "sorted search" else "GB/s gathered"
                rows.append([study, str(g), f"{model.alpha * 1000:.1f}", f"{1 / model.beta / 1e6:.0f}" if model.beta > 0 else "-", unit,
                             str(len(errs)), f"{100 * errs[len(errs) // 2]:.1f}% / {100 * errs[-1]:.1f}%",
                             f"{100 * at30[len(at30) // 2]:.1f}% / {100 * at30[-1]:.1f}%" if at30 else "-",
                             f"{1000 * gaps[len(gaps) // 2]:.0f} ({1000 * gaps[0]:.0f} to {1000 * gaps[-1]:.0f})"])
    if rows:
        lines.append("\n## The model against every N-GPU point\n\n")
        lines.append("T(N) = T_local(n/N) + alpha_N + beta_N x: T_local the one-GPU time of the same run; alpha_N, beta_N fitted to the "
                     "collective phase of the N-GPU records (x: m times the bucket's bytes, or the bytes gathered to GPU 0). Errors: "
                     "|predicted - measured| / measured, median / max, over every point and over n (|A| + |B|) >= 2^30. The last column "
                     "is what neither phase holds (the time on GPU 0 minus the slowest GPU's local step and the combine, median and range): "
                     "one host thread enqueues the GPUs in turn, and the fork and join wait on events across devices; the model leaves it "
                     "out, which is most of its error at 4 GPUs.\n\n")
        lines.append(lpresults.md_table(["study", "GPUs", "alpha (us)", "1/beta", "of", "points", "error", "error, n >= 2^30",
                                         "unaccounted (us)"], rows))
    if lines:
        lpresults.write_text(os.path.join(out, "gpus_targets.md"),
                             f"# Several GPUs: {gpu}s over {link}: targets as measured ratios\n\nRuns and their binaries' commits: {runs}.\n\n"
                             + "".join(lines))


if __name__ == "__main__":
    main()
