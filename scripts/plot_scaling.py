#!/usr/bin/env python3
"""Figures and the target table of the two-GPU runs: multireduce and histogram on one GPU against two (one
process driving both through NCCL), and the streamed mode against the host-to-device probe.

usage: plot_scaling.py RESULTS_DIR OUT_DIR

Reads the runs of configs/multireduce/scaling_m.json, scaling_m_2e30.json, scaling_n.json,
streaming.json and configs/histogram/scaling.json, streaming.json from RESULTS_DIR (mr_m.json,
mr_m30.json, mr_n.json, mr_st.json, hist.json, hist_st.json); a missing file leaves its figure
out with one line on stderr. Only records that ran and validated are drawn.

The model (docs/multi-gpu.md): T(N) = T_local(n/N) + T_collective(m, N), with
  T_local(n', m)  the same variant's one-GPU time at n' inputs and m buckets, interpolated linearly
                  in n between the one-GPU points of the run (extrapolated past the ends);
  T_collective    alpha + beta * m * bytes per bucket, fitted (least squares in relative error) to
                  the collective phase of the N-GPU records of the study (metrics.collective_ms).
The speedup it predicts is T(1) / T(N); the crossover m is where that falls to 1 (log-linear
between the points of the sweep). Both are checked here against the measured speedups.

  scaling_m.png          speedup of 2 GPUs over 1 against m (bins), per n: measured (sharded_auto
                         over itself on one GPU, and over the one-GPU `auto`), the model's line,
                         the crossover measured and predicted.
  scaling_n.png          scaling efficiency (speedup / 2) against n at m = 256 and 2^16, with the model.
  streaming.png          GB/s of the streamed runs (n = 2^33 samples, 2^32 pairs: 32 GiB) on one and
                         two GPUs against the host-to-device probe of the same chunks in the same run.
  scaling_targets.md     the study's targets as measured ratios; the model's error at every point.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback

VARIANT = "sharded_auto"
BYTES = {"int32": 4, "int64": 8, "float32": 4, "uint32x2": 8}
COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]


def med(r):
    return r["time_ms"]["median"]


def buckets(r):
    return r["params"]["m"] if "m" in r["params"] else r["params"]["bins"]


def bucket_bytes(r):
    return BYTES.get(r["params"].get("type", "int32"), 4)


def key(r, drop=("gpus",)):
    return tuple(sorted((k, v) for k, v in r["params"].items() if k not in drop))


def fit(pts):
    """alpha, beta of y = alpha + beta x: least squares in relative error (weights 1/y^2)."""
    sw = sx = sy = sxx = sxy = 0.0
    for x, y in pts:
        w = 1.0 / (y * y)
        sw, sx, sy, sxx, sxy = sw + w, sx + w * x, sy + w * y, sxx + w * x * x, sxy + w * x * y
    det = sw * sxx - sx * sx
    beta = (sw * sxy - sx * sy) / det if det else 0.0
    alpha = (sy - beta * sx) / sw if sw else 0.0
    return alpha, beta


def load_runs(src, out, names):
    """{name: (doc, validated records)} of the runs src holds, each record tagged with its run
    (r["_run"]); a missing one is one line on stderr. The out folder is made where any exists."""
    docs = {}
    for name in names:
        doc, recs = lpresults.load_file(src, name + ".json")
        if doc is None:
            lpresults.skip(out, f"{name}.json not in {src}")
            continue
        for r in recs:
            r["_run"] = name
        docs[name] = (doc, recs)
    if docs:
        os.makedirs(out, exist_ok=True)
    return docs


def open_runs(usage, names):
    """(out folder, runs, "name commit, ..." of the runs, GPU name) of a `RESULTS_DIR OUT_DIR`
    command line (exit with `usage` on wrong arguments), or None where none of the runs is there."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    src, out = sys.argv[1], sys.argv[2]
    docs = load_runs(src, out, names)
    if not docs:
        return None
    runs = ", ".join(f"{k} {docs[k][0]['meta']['git_commit'][:7]}" for k in docs)
    return out, docs, runs, lpresults.gpu_label(next(iter(docs.values()))[0])


def label_axes(ax, title, xlabel, ylabel, ylim, legend_loc, legend_size=6.5, title_size=None, log2x=True):
    """The scaling figures' axes: log2 x (unless the caller set its own ticks), labels, limits, a
    light grid and the legend."""
    if log2x:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(*ylim)
    ax.set_title(title, **({"fontsize": title_size} if title_size else {}))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=legend_size, loc=legend_loc)


def draw_streaming(path, gpu, streamed, gpus, variants):
    """One bar panel per streamed run: GB/s copied host to device (the copy stream's bytes over the
    run's median time) of each variant and the probe, per GPU count."""
    fig, axes = plt.subplots(1, len(streamed), figsize=(6.5 * len(streamed), 4.4), squeeze=False)
    for ax, (title, recs) in zip(axes[0], streamed):
        labels, vals, colours = [], [], []
        for g in gpus:
            for v, c in [("h2d_stream", "grey")] + variants:
                rs = lpresults.select(recs, variant=v, gpus=g)
                if rs:
                    labels.append(f"{g} GPU{'s' if g > 1 else ''}\n{v.replace('sharded_', '')}")
                    m = rs[0]["metrics"]
                    vals.append(m["transfer_GBps"] * m["transfer_ms"] / med(rs[0]))
                    colours.append(c)
        xs = range(len(vals))
        ax.bar(xs, vals, color=colours)
        for x, v in zip(xs, vals):
            ax.text(x, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("GB/s copied host to device")
        ax.set_title(title + " (32 GiB)")
    fig.suptitle(f"Streamed from pinned host memory on {gpu}s: the reductions against the copy probe (h2d_stream) of the same run")
    fig.tight_layout()
    lpresults.write_figure(fig, path, dpi=110)


def interpolate(pts, n):
    """The time at size n from sorted (size, time) points: linear between neighbours, extended
    past the ends; proportional to n from a single point; None from none."""
    if not pts:
        return None
    if len(pts) == 1:
        return pts[0][1] * n / pts[0][0]
    for (n0, t0), (n1, t1) in zip(pts, pts[1:]):
        if n <= n1 or (n1, t1) == pts[-1]:
            return t0 + (t1 - t0) * (n - n0) / (n1 - n0)
    return None


class Model:
    """T(N) = T_local(n/N) + T_collective(m, N) from one study's records (several files)."""

    def __init__(self, recs, gpus=2):
        self.gpus = gpus
        self.one = [r for r in recs if r["variant"] == VARIANT and r["params"]["gpus"] == 1 and r["params"]["source"] == "device"]
        many = [r for r in recs if r["variant"] == VARIANT and r["params"]["gpus"] == gpus and r["params"]["source"] == "device"]
        pts = [(buckets(r) * bucket_bytes(r), r["metrics"]["collective_ms"]) for r in many if "collective_ms" in r.get("metrics", {})]
        self.alpha, self.beta = fit(pts)
        self.points = len(pts)

    def collective(self, m, b):
        return self.alpha + self.beta * m * b

    def local(self, n, like):
        """One-GPU time at n inputs for the point `like` (its other params), linear in n."""
        k = key(like, drop=("gpus", "n"))
        return interpolate(sorted((r["params"]["n"], med(r)) for r in self.one if key(r, drop=("gpus", "n")) == k), n)

    def predict(self, r1):
        """Model time on `gpus` GPUs of the point of the one-GPU record r1."""
        loc = self.local(r1["params"]["n"] / self.gpus, r1)
        return None if loc is None else loc + self.collective(buckets(r1), bucket_bytes(r1))


def pairs(recs, variant=VARIANT, gpus=2, **want):
    """(one-GPU record, N-GPU record) of `variant` at the same point."""
    one = {key(r): r for r in lpresults.select(recs, variant=variant, gpus=1, **want)}
    out = []
    for r in lpresults.select(recs, variant=variant, gpus=gpus, **want):
        if key(r) in one:
            out.append((one[key(r)], r))
    return out


def newest(files):
    """The records of several runs, one per (variant, point): where two runs measured the same, the
    later run's (by meta.date)."""
    keep = {}
    for doc, recs in sorted(files, key=lambda f: f[0]["meta"]["date"]):
        for r in recs:
            keep[(r["variant"], key(r, drop=()))] = r
    return list(keep.values())


def crossover(ms, speedups):
    """Smallest m where the speedup falls to 1 (log-linear between points); None if it never does
    in the sweep ('beyond'), or m[0] if it is below 1 already."""
    for i, (m, s) in enumerate(zip(ms, speedups)):
        if s <= 1:
            if i == 0:
                return ms[0]
            m0, s0 = ms[i - 1], speedups[i - 1]
            f = (s0 - 1) / (s0 - s)
            return 2 ** (math.log2(m0) + f * (math.log2(m) - math.log2(m0)))
    return None


def fmt_m(m):
    return "-" if m is None else f"2^{math.log2(m):.1f}"


def crossover_cells(rows):
    """(measured, model, verdict) of the crossover m of an m sweep's rows (m_sweeps): the target is
    the model within 2x of the measurement."""
    ms = [r[0] for r in rows]
    xm, xp = crossover(ms, [r[1] for r in rows]), crossover(ms, [r[3] for r in rows])
    if xm is None and xp is None:
        verdict = f"both beyond {lpresults.pow2(ms[-1])}"
    elif xm is None or xp is None:
        verdict = "NOT met (one beyond the sweep)"
    else:
        ratio = max(xm, xp) / min(xm, xp)
        verdict = f"{ratio:.2f}x apart: " + ("met" if ratio <= 2 else "NOT met")
    beyond = f"> {lpresults.pow2(ms[-1])}"
    return fmt_m(xm) if xm else beyond, fmt_m(xp) if xp else beyond, verdict


def model_errors(model, recs, gpus, variant=VARIANT, pick=lambda r: r["params"]["source"] == "device"):
    """Sorted |predicted - measured| / measured over the N-GPU records that have a one-GPU pair."""
    errs = []
    for a, b in pairs(recs, variant=variant, gpus=gpus):
        if pick(b):
            p = model.predict(a)
            if p:
                errs.append(abs(p - med(b)) / med(b))
    return sorted(errs)


def m_sweeps(study, recs, model, ns, gpus=2):
    """Per n: (m list, measured speedup, speedup over one-GPU auto, model speedup) on `gpus` GPUs
    (the model's)."""
    out = {}
    auto = {key(r): r for r in lpresults.select(recs, variant="auto", gpus=1)}
    for n in ns:
        ps = sorted(pairs(recs, gpus=gpus, n=n, source="device", type="int32") + pairs(recs, gpus=gpus, n=n, source="device", sample="u32"),
                    key=lambda p: buckets(p[0]))
        seen, rows = set(), []
        for r1, r2 in ps:
            if buckets(r1) in seen:
                continue
            seen.add(buckets(r1))
            if study == "multireduce" and (r1["params"]["op"] != "add" or r1["params"]["distribution"] != "uniform"):
                continue
            a = auto.get(key(r1))
            pred = model.predict(r1)
            rows.append((buckets(r1), med(r1) / med(r2), med(a) / med(r2) if a else None, med(r1) / pred if pred else None, r1, r2))
        if rows:
            out[n] = rows
    return out


def mark_crossovers(ax, rows, colour, label, measured_size=8):
    """Where an m sweep's rows (m_sweeps) fall to speedup 1, measured and by the model, if inside it."""
    ms = [r[0] for r in rows]
    xm, xp = crossover(ms, [r[1] for r in rows]), crossover(ms, [r[3] for r in rows])
    if xm and xm > ms[0]:
        ax.plot([xm], [1.0], "D", color=colour, markersize=measured_size, label=f"{label}: crossover measured ({fmt_m(xm)})")
    if xp and xp > ms[0]:
        ax.plot([xp], [1.0], "v", color=colour, markersize=9, mfc="none", label=f"{label}: crossover model ({fmt_m(xp)})")


def draw_m(ax, sweeps, title, xlabel):
    for i, (n, rows) in enumerate(sorted(sweeps.items())):
        c = COLOURS[i % len(COLOURS)]
        ms = [r[0] for r in rows]
        ax.plot(ms, [r[1] for r in rows], "o-", color=c, label=f"n = {lpresults.pow2(n)}: measured")
        ax.plot(ms, [r[2] for r in rows], "x", color=c, alpha=0.6, label=f"n = {lpresults.pow2(n)}: over one-GPU auto")
        ax.plot(ms, [r[3] for r in rows], ":", color=c, label=f"n = {lpresults.pow2(n)}: model")
        mark_crossovers(ax, rows, c, f"n = {lpresults.pow2(n)}")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.axhline(2.0, color="grey", lw=0.8, ls="--")
    ax.axhline(1.85, color="tab:red", lw=0.8, ls="-.", label="target 1.85x (n = 2^30, m <= 2^16)")
    label_axes(ax, title, xlabel, "speedup of 2 GPUs over 1", (0.5, 2.1), "lower left")


def draw_n(ax, recs, model, title, ms, extra=None):
    for i, m in enumerate(ms):
        c = COLOURS[i % len(COLOURS)]
        want = {"m": m, "source": "device"} if extra is None else {"bins": m, "source": "device", **extra}
        if extra is None:
            want.update(op="add", type="int32", distribution="uniform")
        ps = sorted(pairs(recs, **want), key=lambda p: p[0]["params"]["n"])
        if not ps:
            continue
        ns = [p[0]["params"]["n"] for p in ps]
        ax.plot(ns, [med(a) / med(b) / 2 for a, b in ps], "o-", color=c, label=f"m = {lpresults.pow2(m)}: measured")
        ax.plot(ns, [med(a) / model.predict(a) / 2 for a, b in ps], ":", color=c, label=f"m = {lpresults.pow2(m)}: model")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.axhline(0.5, color="grey", lw=0.8)
    label_axes(ax, title, "n (inputs)", "scaling efficiency (speedup / 2)", (0.2, 1.05), "lower right", legend_size=7)


def main():
    opened = open_runs(__doc__.split("\n\n")[1], ["mr_m", "mr_m30", "mr_n", "mr_st", "hist", "hist_st"])
    if not opened:
        return
    out, docs, runs, gpu = opened
    # Each figure line comes from one run (one flush regime); the model and the targets take every
    # run, the later one where two measured the same point.
    mr = newest([docs[k] for k in ("mr_m", "mr_m30", "mr_n") if k in docs])
    mr_msweep = newest([docs[k] for k in ("mr_m", "mr_m30") if k in docs])
    mr_nsweep = newest([docs[k] for k in ("mr_n",) if k in docs])
    hist = newest([docs[k] for k in ("hist",) if k in docs])
    link = next((r["metrics"].get("interconnect") for r in mr + hist if r["params"]["gpus"] == 2 and "metrics" in r), "")
    mr_model, hist_model = Model(mr), Model(hist)
    lines = []

    mr_sweeps = m_sweeps("multireduce", mr_msweep, mr_model, [2 ** 26, 2 ** 28, 2 ** 30])
    mr_targets = m_sweeps("multireduce", mr, mr_model, [2 ** 30])
    hist_sweeps = m_sweeps("histogram", hist, hist_model, [2 ** 28, 2 ** 30])
    if mr_sweeps or hist_sweeps:
        fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
        draw_m(axes[0], mr_sweeps, f"multireduce (add int32, uniform): {VARIANT}", "m (buckets)")
        draw_m(axes[1], hist_sweeps, f"histogram (u32 samples, uniform): {VARIANT}", "bins")
        fig.suptitle(f"Two {gpu}s over {link} against one (one process, NCCL): where a second GPU stops paying")
        fig.text(0.5, 0.005, f"runs (binaries' commits): {runs}; before ab62263 only GPU 0's L2 was flushed between repetitions "
                 "(results/h200x2/multi-gpu/README.md)", ha="center", fontsize=7, color="dimgrey")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        lpresults.write_figure(fig, os.path.join(out, "scaling_m.png"), dpi=110)

    if mr or hist:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
        draw_n(axes[0], mr_nsweep, mr_model, f"multireduce (add int32, uniform): {VARIANT}", [256, 2 ** 16])
        draw_n(axes[1], hist, hist_model, f"histogram (u32 samples, uniform): {VARIANT}", [256, 2 ** 16], extra={"sample": "u32"})
        fig.suptitle(f"Scaling efficiency of two {gpu}s against n, with the model T(2) = T_local(n/2) + T_collective(m, 2)")
        fig.tight_layout()
        lpresults.write_figure(fig, os.path.join(out, "scaling_n.png"), dpi=110)

    streamed = [(name, docs[k][1]) for name, k in (("histogram, 2^33 u32 samples", "hist_st"), ("multireduce, 2^32 int32 pairs", "mr_st")) if k in docs]
    if streamed:
        draw_streaming(os.path.join(out, "streaming.png"), gpu, streamed, (1, 2),
                       [("sharded_reduce", "tab:blue"), ("sharded_ordered", "tab:green"), (VARIANT, "tab:purple")])

    # The targets.
    rows = []
    for study, sweeps in (("multireduce", mr_targets), ("histogram", hist_sweeps)):
        for r in sweeps.get(2 ** 30, []):
            if r[0] <= 2 ** 16:
                rows.append([study, lpresults.pow2(r[0]), f"{r[1]:.3f}", f"{r[2]:.3f}" if r[2] else "-", r[5]["_run"], "met" if r[1] >= 1.85 else "NOT met"])
    if rows:
        lines.append("## 2 GPUs >= 1.85x one GPU at n = 2^30, m <= 2^16 (every record validated)\n")
        lines.append(f"Runs and their binaries' commits: {runs}. Before ab62263 only GPU 0's L2 was flushed between repetitions.\n\n")
        lines.append(lpresults.md_table(["study", "m", f"{VARIANT}: 2 GPUs over 1", "over one-GPU auto", "run", "target"], rows))
    rows = []
    for title, recs in streamed:
        for g in (1, 2):
            probe = lpresults.select(recs, variant="h2d_stream", gpus=g)
            for v in ("sharded_reduce", "sharded_ordered", VARIANT):
                rs = lpresults.select(recs, variant=v, gpus=g)
                if probe and rs:
                    frac = med(probe[0]) / med(rs[0])
                    rows.append([title, str(g), v, f"{med(rs[0]):.1f}", f"{med(probe[0]):.1f}", f"{100 * frac:.1f}%", "met" if frac >= 0.8 else "NOT met"])
    if rows:
        lines.append("\n## Streamed n = 32 GiB: >= 80% of the host-to-device ceiling measured in the same run\n")
        lines.append(lpresults.md_table(["input", "GPUs", "variant", "ms", "h2d_stream ms (probe)", "of the probe", "target"], rows))
    rows = []
    for study, sweeps in (("multireduce", mr_sweeps), ("histogram", hist_sweeps)):
        for n, rs in sorted(sweeps.items()):
            rows.append([study, lpresults.pow2(n), *crossover_cells(rs)])
    if rows:
        lines.append("\n## The crossover m predicted by the model within 2x of the measured one\n")
        lines.append(lpresults.md_table(["study", "n", "measured", "model", "target"], rows))
    rows = []
    for study, model, recs in (("multireduce", mr_model, mr), ("histogram", hist_model, hist)):
        errs = model_errors(model, recs, 2)
        if errs:
            rows.append([study, f"{model.alpha * 1000:.1f}", f"{1 / model.beta / 1e6:.0f}" if model.beta > 0 else "-", str(model.points),
                         str(len(errs)), f"{100 * errs[len(errs) // 2]:.1f}%", f"{100 * errs[-1]:.1f}%"])
    if rows:
        lines.append("\n## The model against every 2-GPU point\n")
        lines.append("T(2) = T_local(n/2) + alpha + beta m b: T_local the one-GPU time of the same run, alpha and beta fitted to the collective phase.\n\n")
        lines.append(lpresults.md_table(["study", "alpha (us)", "1/beta (GB/s)", "fitted on", "points", "median |error|", "max |error|"], rows))
    if lines:
        lpresults.write_text(os.path.join(out, "scaling_targets.md"), f"# Two {gpu}s over {link}: targets as measured ratios\n\n" + "".join(lines))


if __name__ == "__main__":
    main()
