#!/usr/bin/env python3
"""Figures and the target table of the two multi-GPU modes side by side: one process driving every
GPU (--gpus N) against a process per GPU (--ranks, under a launcher), for multireduce, histogram
and the sorted search.

usage: plot_ranks.py RESULTS_DIR OUT_DIR

Reads, from RESULTS_DIR, the runs of configs/multireduce/ranks_m.json, configs/histogram/ranks.json
and configs/sortedsearch/ranks.json made twice each: as one process (mr_gpus.json, hist_gpus.json,
ss_gpus.json: gpus 1 and 2) and as two ranks (mr_ranks.json, hist_ranks.json, ss_ranks.json); a
missing file leaves its part out with one line on stderr. Only records that ran and validated are used.

What neither phase holds ("unaccounted"): the record's time minus its slowest GPU's local step and
the combine (metrics.local_ms, collective_ms). In one process that is the host thread enqueueing
the GPUs in turn and the fork and join across devices; in the rank mode, the barrier's skew between
the ranks' GPUs and each rank's own enqueue.

The model (docs/multi-gpu.md) with the rank mode's overheads:
  T(N) = T_local(n/N) + alpha + beta * m * bytes per bucket + U
T_local the one-GPU time of the same run at n/N (measured at 2^26 and 2^27 for N = 16 and 8 at
n = 2^30), alpha and beta fitted to the rank mode's collective phase on two GPUs, U the median
unaccounted time of the rank mode at n = 2^30, m <= 2^16. The 8- and 16-GPU prediction takes alpha
as measured (NCCL's reduce hardly grew from 2 to 4 GPUs over NVLink in the one-process runs) and, as
a bound, alpha growing with the N - 1 steps of a ring.

  ranks_modes.png        speedup of two GPUs over one against m, n = 2^28 and 2^30, both modes.
  ranks_unaccounted.png  the unaccounted time against m, both modes.
  ranks_sortedsearch.png the sorted search on two GPUs over one against |A| + |B|: indices gathered
                         to GPU 0 or left on each GPU, merge-path cuts or a replicated haystack, both modes.
  ranks_targets.md       the targets as measured ratios, the model's fit and its 8- and 16-GPU prediction,
                         and the sorted search's phases by rank (exact and aligned cuts: ss*_ and ssa_ runs).

The four-GPU runs (configs/multireduce/ranks_m_4.json as mr4_gpus.json and mr4_ranks.json, the sorted
search as four ranks, ss4_ranks.json) are read from their own folder: run the script on each.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
from plot_scaling import bucket_bytes, buckets, fit, interpolate, key, label_axes, load_runs, med  # noqa: E402

VARIANT = "sharded_auto"
MODES = (("one process", "_gpus", "tab:blue", "o"), ("ranks", "_ranks", "tab:red", "s"))
STUDIES = (("multireduce", "mr", "m", 2), ("histogram", "hist", "bins", 2), ("multireduce", "mr4", "m", 4))
NAMES = [p + s for p in ("mr", "hist", "mr4", "ss", "ssa") for s in ("_gpus", "_ranks")] + ["ss4_ranks"]
TARGET_SPEEDUP = 1.93
TARGET_UNACCOUNTED_US = 5.0
TARGET_EFFICIENCY = 0.85


def unaccounted_ms(r):
    m = r.get("metrics") or {}
    return med(r) - m["local_ms"] - m["collective_ms"] if "local_ms" in m and "collective_ms" in m else None


def size_of(r):
    p = r["params"]
    return p["n"] if "n" in p else p["a_size"] + p["b_size"]


class Study:
    """One study's records of both modes: the one-GPU baseline from the one-process run, the
    two-GPU records of each mode."""

    def __init__(self, docs, prefix, gpus):
        self.gpus = gpus
        self.one_process = docs.get(prefix + "_gpus", (None, []))[1]
        self.ranks = docs.get(prefix + "_ranks", (None, []))[1]
        self.base = {key(r): r for r in lpresults.select(self.one_process, variant=VARIANT, gpus=1)}

    def two(self, mode, variant=VARIANT):
        """The N-GPU records of a mode (N: two, or four for the four-GPU runs)."""
        return lpresults.select(self.one_process if mode == "_gpus" else self.ranks, variant=variant, gpus=self.gpus)

    def speedups(self, mode, n):
        """(m, speedup over sharded_auto on one GPU, record) at n, in m order."""
        out = []
        for r in self.two(mode):
            if r["params"]["n"] == n and key(r) in self.base:
                out.append((buckets(r), med(self.base[key(r)]) / med(r), r))
        return sorted(out, key=lambda x: x[0])

    def local(self, n, like):
        """The local step alone of the one-GPU record at n (its metrics.local_ms: the N-GPU run's
        overheads are U's, not counted twice), linear in n between the run's one-GPU points."""
        k = key(like, drop=("gpus", "n"))
        return interpolate(sorted((r["params"]["n"], (r.get("metrics") or {}).get("local_ms", med(r))) for r in self.base.values()
                                  if key(r, drop=("gpus", "n")) == k), n)


class RankModel:
    """T(N) = T_local(n/N) + alpha + beta m b + U, fitted on one mode's two-GPU records."""

    def __init__(self, study, mode):
        self.study = study
        recs = [r for r in study.two(mode) if "collective_ms" in (r.get("metrics") or {})]
        self.alpha, self.beta = fit([(buckets(r) * bucket_bytes(r), r["metrics"]["collective_ms"]) for r in recs])
        gaps = [unaccounted_ms(r) for r in recs if r["params"]["n"] == 2 ** 30 and buckets(r) <= 2 ** 16]
        self.u = statistics.median(gaps) if gaps else 0.0
        self.points = len(recs)
        self.recs = recs

    def predict(self, like, gpus, ring=False):
        loc = self.study.local(like["params"]["n"] / gpus, like)
        if loc is None:
            return None
        alpha = self.alpha * (gpus - 1) if ring else self.alpha
        return loc + alpha + self.beta * buckets(like) * bucket_bytes(like) + self.u

    def errors(self):
        out = []
        for r in self.recs:
            p = self.predict(r, self.study.gpus)
            if p is not None:
                out.append(abs(p - med(r)) / med(r))
        return sorted(out)


def draw_modes(path, studies, gpu):
    fig, axes = plt.subplots(len(studies), 2, figsize=(10, 3.6 * len(studies)), squeeze=False)
    for row, (title, st, axis) in enumerate(studies):
        for col, n in enumerate((2 ** 28, 2 ** 30)):
            ax = axes[row][col]
            low = 0.75 * st.gpus
            for label, mode, colour, marker in MODES:
                pts = st.speedups(mode, n)
                if pts:
                    low = min(low, 0.95 * min(p[1] for p in pts))
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=colour, label=f"{label} ({VARIANT})")
            g = st.gpus
            ax.axhline(g, color="grey", lw=0.8, ls=":", label=f"{g}x (ideal)")
            if g == 2:
                ax.axhline(TARGET_SPEEDUP, color="green", lw=0.8, ls="--", label=f"target {TARGET_SPEEDUP}x (m <= 2^16)")
            ax.axvline(2 ** 16, color="green", lw=0.6, ls=":")
            label_axes(ax, f"{title} on {g} GPUs, n = {lpresults.pow2(n)}", axis + " (log2)", f"speedup of {g} GPUs over 1", (low, 1.03 * g), "lower left")
    fig.suptitle(f"N GPUs over one: one process driving them all, against a process per GPU ({gpu})", fontsize=10)
    fig.text(0.5, 0.005, "The one-GPU time is sharded_auto on one GPU in the one-process run; every record validated against the CPU reference.",
             ha="center", fontsize=7)
    fig.tight_layout(rect=(0, 0.02, 1, 0.96))
    lpresults.write_figure(fig, path)


def draw_unaccounted(path, studies, gpu):
    fig, axes = plt.subplots(1, len(studies), figsize=(5 * len(studies), 3.8), squeeze=False)
    for ax, (title, st, axis) in zip(axes[0], studies):
        for label, mode, colour, marker in MODES:
            for n, fill in ((2 ** 28, "none"), (2 ** 30, colour)):
                pts = sorted((buckets(r), 1000 * unaccounted_ms(r)) for r in st.two(mode) if r["params"]["n"] == n and unaccounted_ms(r) is not None)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=colour, mfc=fill, lw=0.9,
                            label=f"{label}, n = {lpresults.pow2(n)}")
        ax.axhline(TARGET_UNACCOUNTED_US, color="green", lw=0.8, ls="--", label=f"target {TARGET_UNACCOUNTED_US:g} us")
        label_axes(ax, f"{title}: time no phase holds, {st.gpus} GPUs", axis + " (log2)", "unaccounted (us)", (None, None), "upper left")
    fig.suptitle(f"The record's time minus the slowest local step and the combine ({gpu})", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    lpresults.write_figure(fig, path)


def draw_search(path, docs, gpu):
    one = docs.get("ss_gpus", (None, []))[1]
    ranks = docs.get("ss_ranks", (None, []))[1]
    base = {key(r): r for r in lpresults.select(one, variant="sharded_lower", gpus=1)}
    fig, ax = plt.subplots(figsize=(8, 4.8))
    styles = {"sharded_lower": "-", "sharded_lower_local": "--", "sharded_lower_replicated": ":"}
    runs = (("one process", one, "tab:blue", "o"), ("ranks", ranks, "tab:red", "s"),
            ("one process, aligned cuts", docs.get("ssa_gpus", (None, []))[1], "tab:cyan", "^"),
            ("ranks, aligned cuts", docs.get("ssa_ranks", (None, []))[1], "tab:orange", "v"))
    for label, recs, colour, marker in runs:
        for v, ls in styles.items():
            pts = sorted((size_of(r), med(base[key(r)]) / med(r)) for r in lpresults.select(recs, variant=v, gpus=2) if key(r) in base)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, ls=ls, color=colour, label=f"{label}: {v}")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    label_axes(ax, "Sorted search (int32, distinct, |A| = |B|) on 2 GPUs over sharded_lower on 1", "|A| + |B| keys (log2)",
               "speedup over one GPU", (0, 2.2), "upper left", legend_size=6)
    fig.text(0.5, 0.005, "sharded_lower_local leaves the indices on each GPU (no gather); the others gather them to GPU 0. "
             "Aligned cuts: the merge path cut at multiples of 32 needles.", ha="center", fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    lpresults.write_figure(fig, path)


def mode_name(mode):
    return "one process" if mode == "_gpus" else "ranks"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_ranks.py RESULTS_DIR OUT_DIR")
    src, out = sys.argv[1], sys.argv[2]
    docs = load_runs(src, out, NAMES)
    if not docs:
        sys.exit("plot_ranks: none of the runs is in " + src)
    gpu = lpresults.gpu_label(next(iter(docs.values()))[0])
    studies = [(title, Study(docs, prefix, gpus), axis) for title, prefix, axis, gpus in STUDIES
               if prefix + "_gpus" in docs and prefix + "_ranks" in docs]
    if studies:
        draw_modes(os.path.join(out, "ranks_modes.png"), studies, gpu)
        draw_unaccounted(os.path.join(out, "ranks_unaccounted.png"), studies, gpu)
    if "ss_gpus" in docs:
        draw_search(os.path.join(out, "ranks_sortedsearch.png"), docs, gpu)

    runs = ", ".join(f"{k} {docs[k][0]['meta']['git_commit'][:7]}" for k in docs)
    lines = [f"# One process against a process per GPU: {gpu}\n\nRuns and their binaries' commits: {runs}.\n\n"]
    rows = []
    for title, st, axis in studies:
        for _, mode, _, _ in MODES:
            pts = [p for p in st.speedups(mode, 2 ** 30) if p[0] <= 2 ** 16]
            if pts:
                lo, hi = min(p[1] for p in pts), max(p[1] for p in pts)
                gaps = sorted(1000 * unaccounted_ms(p[2]) for p in pts)
                two = st.gpus == 2
                rows.append([title, str(st.gpus), mode_name(mode), f"{lo:.3f}-{hi:.3f}", f"{100 * lo / st.gpus:.1f}-{100 * hi / st.gpus:.1f}%",
                             ("met" if lo >= TARGET_SPEEDUP else "NOT met") if two else "-",
                             f"{statistics.median(gaps):.1f} ({gaps[0]:.1f} to {gaps[-1]:.1f})",
                             ("met" if statistics.median(gaps) <= TARGET_UNACCOUNTED_US else "NOT met") if two else "-"])
    if rows:
        lines.append(f"## n = 2^30, m <= 2^16: on two GPUs, speedup >= {TARGET_SPEEDUP}x and unaccounted <= {TARGET_UNACCOUNTED_US:g} us "
                     "(median)\n\nSpeedup: sharded_auto on N GPUs over itself on one GPU of the one-process run. Unaccounted: the record's "
                     "time minus its slowest GPU's local step and the combine.\n\n")
        lines.append(lpresults.md_table(["study", "GPUs", "mode", "speedup over one GPU", "efficiency", "target (2 GPUs)",
                                         "unaccounted us, median (range)", "target (2 GPUs)"], rows))
    rows = []
    for title, st, axis in studies:
        for _, mode, _, _ in MODES:
            for n in (2 ** 28, 2 ** 30):
                for m, s, r in st.speedups(mode, n):
                    u = unaccounted_ms(r)
                    rows.append([title, str(st.gpus), mode_name(mode), lpresults.pow2(n), lpresults.pow2(m), f"{med(r):.4f}", f"{s:.3f}",
                                 f"{r['metrics']['local_ms']:.4f}", f"{r['metrics']['collective_ms']:.4f}",
                                 f"{1000 * u:.1f}" if u is not None else "-", r["metrics"].get("local_ms_by_rank", "")])
    if rows:
        lines.append("\n## Every N-GPU point\n\n")
        lines.append(lpresults.md_table(["study", "GPUs", "mode", "n", "m", "ms", "speedup", "local ms", "combine ms", "unaccounted us",
                                         "local ms by rank"], rows))
    rows = []
    for title, st, axis in studies:
        for label, mode, _, _ in MODES:
            model = RankModel(st, mode)
            if not model.points:
                continue
            errs = model.errors()
            preds, worst8 = [], None
            for gpus in (8, 16):
                effs, ring = [], []
                for m, s, r in st.speedups(mode, 2 ** 30):
                    if m > 2 ** 16:
                        continue
                    t1 = med(st.base[key(r)])
                    for ring_bound, acc in ((False, effs), (True, ring)):
                        p = model.predict(st.base[key(r)], gpus, ring_bound)
                        if p is not None:
                            acc.append(t1 / p / gpus)
                if effs and gpus == 8:
                    worst8 = min(effs)
                preds.append(f"{100 * min(effs):.1f}-{100 * max(effs):.1f}% (ring bound {100 * min(ring):.1f}%)" if effs else "-")
            rows.append([title, f"{st.gpus}", label, f"{1000 * model.alpha:.1f}", f"{1 / model.beta / 1e6:.0f}" if model.beta > 0 else "-",
                         f"{1000 * model.u:.1f}", str(model.points), f"{100 * errs[len(errs) // 2]:.1f}% / {100 * errs[-1]:.1f}%" if errs else "-",
                         *preds, "-" if worst8 is None else ("met" if worst8 >= TARGET_EFFICIENCY else "NOT met")])
    if rows:
        lines.append("\n## The model with each mode's overheads, and its 8- and 16-GPU efficiency at n = 2^30, m <= 2^16 "
                     f"(target >= {100 * TARGET_EFFICIENCY:.0f}% on 8)\n\n")
        lines.append("T(N) = T_local(n/N) + alpha + beta m b + U: alpha and 1/beta (GB/s of bucket bytes) fitted to the fitted run's "
                     "records' combine phase (its GPU count: the 'fitted on' column), U the median unaccounted time of that run at "
                     "n = 2^30, m <= 2^16, T_local the local step of the one-GPU record at n/N (its metrics.local_ms: the one-GPU "
                     "run's own fork and join are U's, not counted twice). The efficiency is the one-GPU time over N times T(N). "
                     "The error is the model's against every point of the fitted run (median / max). The ring bound lets alpha grow "
                     "with the N - 1 steps of a ring.\n\n")
        lines.append(lpresults.md_table(["study", "fitted on GPUs", "mode", "alpha (us)", "1/beta (GB/s)", "U (us)", "points", "error",
                                         "8 GPUs", "16 GPUs", "target (8)"], rows))
    rows = []
    one = docs.get("ss_gpus", (None, []))[1]
    base = {key(r): r for r in lpresults.select(one, variant="sharded_lower", gpus=1)}
    for label, name in (("one process", "ss_gpus"), ("ranks", "ss_ranks"), ("ranks", "ss4_ranks"), ("one process, aligned cuts", "ssa_gpus"),
                        ("ranks, aligned cuts", "ssa_ranks")):
        recs = docs.get(name, (None, []))[1]
        for v in ("sharded_lower", "sharded_lower_local", "sharded_lower_replicated"):
            for r in sorted([r for r in recs if r["variant"] == v and r["params"]["gpus"] > 1], key=size_of):
                u = unaccounted_ms(r)
                b = base.get(key(r))
                m = r["metrics"]
                rows.append([label, str(r["params"]["gpus"]), v, f"{lpresults.pow2(r['params']['a_size'])} + {lpresults.pow2(r['params']['b_size'])}",
                             f"{med(r):.4f}", f"{med(b) / med(r):.3f}" if b else "-", f"{m['local_ms']:.4f}", f"{m['collective_ms']:.4f}",
                             f"{1000 * u:.1f}" if u is not None else "-", m.get("collective_ms_by_rank", "")])
    if rows:
        lines.append("\n## Sorted search over several GPUs (speedup over sharded_lower on one GPU of the one-process run, where it ran)\n\n"
                     "ss_gpus, ss_ranks and ss4_ranks cut the merge path exactly; ssa_gpus and ssa_ranks (ranks_aligned.json) at multiples "
                     "of 32 needles, so that every part lands 128-byte aligned in GPU 0's output. Gather by rank: each rank's own median "
                     "(rank 0 receives).\n\n")
        lines.append(lpresults.md_table(["mode", "GPUs", "variant", "|A| + |B|", "ms", "speedup", "local ms", "gather ms", "unaccounted us",
                                         "gather ms by rank"], rows))
    lpresults.write_text(os.path.join(out, "ranks_targets.md"), "".join(lines))


if __name__ == "__main__":
    main()
