#!/usr/bin/env python3
"""Figures and the target table of the patched-array study (Vortex PatchedArray,
G-ALP).

usage: plot_patched.py RESULTS.json OUT_DIR

Reads one result file of `bench patched` (the default config's patched.json) and writes into
OUT_DIR; a missing file or a figure without records is skipped with one line on stderr (exit 0).
Only records that ran and validated are drawn (lpresults.timed). The unit is GB/s of the study's
minimal traffic: the compressed array read once (packed words, bases, lane_offsets, indices,
values) plus the decoded column written once, the same byte count for every variant. The figures
draw the GPU variants on a linear axis (their differences are a few tens of percent; the CPU
baselines, two to three orders of magnitude below, are named in the title with their range), the
run's read ceiling (ceilings.read_GBps, the study's target's reference) and 85% of it.

  patched_rate.png       GB/s against the patch rate (0 and 0.01%..10%, symlog axis) per variant;
                         one row of panels per type (at the bit width its sweep used), uniform and
                         clustered patches side by side.
  patched_bit_width.png  u32 at 1% uniform patches: GB/s against the bit width per variant.
  patched_targets.md     the study's targets per type, patch layout and rate: fused, fused_warp_apply
                         and auto as a fraction of the read ceiling, their speed-up over decode + thrust::scatter,
                         and clustered against uniform time.
  patched_alp.png        float columns (ALP-encoded, configs/patched/alp.json): GB/s per generated column
                         and GPU variant, f32 and f64 side by side; under each column its scheme, measured
                         exception rate and bits a value.
  alp_targets.md         the float columns' targets: the best fused plan and auto as a fraction of the read
                         ceiling, fused against decode + thrust::scatter, bits a value.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback

STYLE = {  # variant: (label, colour, marker, line style); solid = ours, dashed = peer, dash-dot = CPU
    "fused": ("fused (G-ALP lane cursors)", "tab:red", "o", "-"),
    "fused_warp_apply": ("fused, warp applies its chunk (ours)", "tab:orange", "D", "-"),
    "auto": ("auto (ours)", "tab:purple", "P", ":"),
    "decode_lane_apply": ("decode + lane-parallel apply (seed)", "tab:blue", "s", "-"),
    "decode_chunk_apply": ("decode + one thread per chunk (naive)", "tab:cyan", "v", "-"),
    "decode_thrust_scatter": ("decode + thrust::scatter", "#7f7f7f", "s", "--"),
    "cpu_apply": ("CPU apply (1 thread)", "black", "*", "-."),
    "cpu_apply_mt": ("CPU apply (all threads)", "#555555", "x", "-."),
}
style = lpresults.variant_style(STYLE)
TYPES = ["u8", "u16", "u32", "u64"]
KINDS = ["uniform", "clustered"]


def read_ceiling(doc):
    return (doc.get("ceilings") or {}).get("read_GBps")


def ceiling_line(ax, doc):
    c = read_ceiling(doc)
    if c:
        ax.axhline(c, color="green", lw=1.2, label=f"read ceiling ({c:.0f} GB/s, same run)")
        ax.axhline(0.85 * c, color="green", lw=1, ls=(0, (4, 2)), label="85% of the read ceiling (target)")


def is_cpu(r):
    return r.get("kind") == "cpu"


def cpu_note(recs):
    """The CPU baselines' range, for a title: they are not drawn on the GPU's linear axis."""
    g = [r["GBps"] for r in recs if is_cpu(r) and r.get("GBps")]
    return f"CPU apply (1 thread, all threads) not drawn: {min(g):.1f} to {max(g):.1f} GB/s" if g else "no CPU records"


def draw(ax, recs, x):
    recs = [r for r in recs if not is_cpu(r)]
    for i, v in enumerate(sorted({r["variant"] for r in recs}, key=lambda v: list(STYLE).index(v) if v in STYLE else 99)):
        pts = sorted((x(r), r["GBps"]) for r in recs if r["variant"] == v and r.get("GBps"))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=4, lw=1.2, **style(v, i, 0))


def header(doc, recs):
    ns = sorted({r["params"]["n"] for r in recs})
    return f"{lpresults.gpu_label(doc)}, n = {', '.join(lpresults.pow2(n) for n in ns)}"


def sweep_width(recs, t):
    """The bit width of type t's rate sweep: the one with the most distinct patch rates."""
    rates = {}
    for r in lpresults.select(recs, type=t):
        rates.setdefault(r["params"]["bit_width"], set()).add(r["params"]["patch_rate"])
    return max(rates, key=lambda w: (len(rates[w]), -w)) if rates else None


def rate_figure(doc, recs, out):
    rows = [(t, sweep_width(recs, t)) for t in TYPES if sweep_width(recs, t) is not None]
    rows = [(t, w) for t, w in rows if len({r["params"]["patch_rate"] for r in lpresults.select(recs, type=t, bit_width=w)}) > 1]
    if not rows:
        return lpresults.skip(out, "no patch-rate sweep")
    fig, axes = plt.subplots(len(rows), 2, figsize=(12, 3.4 * len(rows)), squeeze=False)
    for i, (t, w) in enumerate(rows):
        for j, kind in enumerate(KINDS):
            ax = axes[i][j]
            rs = lpresults.select(recs, type=t, bit_width=w, patches=kind)
            draw(ax, rs, lambda r: r["params"]["patch_rate"])
            ceiling_line(ax, doc)
            ax.set_xscale("symlog", linthresh=1e-4)
            ax.set_xlim(left=0)
            ax.set_ylim(bottom=0)
            ax.set(title=f"{t}, w = {w}, {kind} patches", xlabel="patch rate", ylabel="GB/s (compressed in + decoded out)")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"PatchedArray decode + patch against the patch rate (GPU variants)\n{header(doc, recs)}; {cpu_note(recs)}")
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=110)


def width_figure(doc, recs, out):
    rs = lpresults.select(recs, type="u32", patch_rate=0.01, patches="uniform")
    if len({r["params"]["bit_width"] for r in rs}) < 2:
        return lpresults.skip(out, "no u32 bit-width sweep")
    fig, ax = plt.subplots(figsize=(8, 4.6))
    draw(ax, rs, lambda r: r["params"]["bit_width"])
    ceiling_line(ax, doc)
    ax.set(title=f"u32, 1% uniform patches: GB/s against the bit width (GPU variants)\n{header(doc, rs)}\n{cpu_note(rs)}",
           xlabel="bit width w", ylabel="GB/s (compressed in + decoded out)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=110)


def targets(doc, recs, out):
    ceil = read_ceiling(doc)
    by = {(r["variant"], r["params"]["type"], r["params"]["bit_width"], r["params"]["patch_rate"], r["params"]["patches"]): r for r in recs}
    rows = []
    for t in TYPES:
        w = sweep_width(recs, t)
        for kind in KINDS:
            for rate in sorted({r["params"]["patch_rate"] for r in lpresults.select(recs, type=t, bit_width=w, patches=kind)}):
                def get(v, k=kind):
                    return by.get((v, t, w, rate, k))
                fused, warp, auto, peer, uni = (get("fused"), get("fused_warp_apply"), get("auto"), get("decode_thrust_scatter"),
                                                get("auto", "uniform"))
                if not fused or not auto:
                    continue
                med = lambda r: r["time_ms"]["median"]  # noqa: E731
                frac = lambda r: f"{r['GBps'] / ceil:.2f}" if ceil else "-"  # noqa: E731
                rows.append([t, str(w), kind, f"{rate:g}", frac(fused), frac(warp) if warp else "-", frac(auto), auto["metrics"].get("plan", "-"),
                             f"{med(peer) / med(fused):.2f}x" if peer else "-", f"{med(peer) / med(auto):.2f}x" if peer else "-",
                             f"{med(auto) / med(uni):.2f}" if kind == "clustered" and uni else "-"])
    if not rows:
        return lpresults.skip(out, "no fused/auto records")
    where = f"read ceiling {ceil:.0f} GB/s (same run; traffic counted: compressed bytes in + decoded bytes out)" if ceil else "no read ceiling (no GPU)"
    text = ("# Patched study: the study's targets\n\n"
            f"{header(doc, recs)}; {where}. Targets: fused >= 0.85 of the ceiling at rates <= 1%; >= 2x decode + "
            "thrust::scatter at rates <= 5%; clustered no slower than 2x uniform.\n\n"
            + lpresults.md_table(["type", "w", "patches", "rate", "fused / ceiling", "fused_warp_apply / ceiling", "auto / ceiling", "auto's plan",
                                  "fused vs thrust", "auto vs thrust",
                                  "auto clustered / uniform time"], rows))
    lpresults.write_text(out, text)


FLOATS = ["f32", "f64"]
COLUMNS = ["prices", "coordinates", "percentages", "integers", "random_walk", "uniform", "specials"]


def float_records(recs):
    return [r for r in recs if r["params"]["type"] in FLOATS]


def encoding(recs, t, c):
    """(scheme, exception rate, bits a value) of column c of type t, as its records measured them."""
    rs = lpresults.select(recs, type=t, column=c)
    m = rs[0]["metrics"] if rs else {}
    return m.get("scheme", "?"), m.get("exception_rate", 0.0), m.get("bits_per_value", 0.0)


def alp_figure(doc, recs, out):
    fl = [r for r in float_records(recs) if not is_cpu(r)]
    if not fl:
        return lpresults.skip(out, "no float columns")
    variants = [v for v in STYLE if any(r["variant"] == v for r in fl)]
    fig, axes = plt.subplots(1, 2, figsize=(15, 5.2), sharey=True)
    for ax, t in zip(axes, FLOATS):
        cols = [c for c in COLUMNS if lpresults.select(fl, type=t, column=c)]
        width = 0.8 / max(1, len(variants))
        for i, v in enumerate(variants):
            label, colour, _, ls = STYLE[v]
            ys = [(lpresults.select(fl, type=t, column=c, variant=v) or [{"GBps": 0}])[0]["GBps"] for c in cols]
            ax.bar([k + (i - (len(variants) - 1) / 2) * width for k in range(len(cols))], ys, width, label=label, color=colour,
                   hatch="//" if ls == "--" else None, edgecolor="white" if ls == "--" else None)
        names = []
        for c in cols:
            scheme, rate, bits = encoding(fl, t, c)
            names.append(f"{c}\n{scheme}, {100 * rate:.2g}% exc.\n{bits:.1f} bits/value")
        ax.set_xticks(range(len(cols)))
        ax.set_xticklabels(names, fontsize=7)
        ceiling_line(ax, doc)
        ax.set(title=f"{t} columns, ALP-encoded", ylabel="GB/s (compressed in + decoded out)")
        ax.set_ylim(0, 1.4 * (read_ceiling(doc) or max(r["GBps"] for r in fl)))  # room for the legend above the bars
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper center", ncol=3)
    fig.suptitle(f"Float columns: ALP decode + exception patching per generated column (GPU variants)\n{header(doc, fl)}; "
                 f"{cpu_note(float_records(recs))}")
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=110)


def alp_targets(doc, recs, out):
    ceil = read_ceiling(doc)
    fl = float_records(recs)
    rows = []
    med = lambda r: r["time_ms"]["median"]  # noqa: E731
    for t in FLOATS:
        for c in COLUMNS:
            rs = {r["variant"]: r for r in lpresults.select(fl, type=t, column=c)}
            ours = [rs[v] for v in ("fused", "fused_warp_apply", "decode_lane_apply", "decode_chunk_apply") if v in rs]
            if not ours or "auto" not in rs:
                continue
            best = min(ours, key=med)
            peer = rs.get("decode_thrust_scatter")
            scheme, rate, bits = encoding(fl, t, c)
            frac = lambda r: f"{r['GBps'] / ceil:.2f}" if ceil else "-"  # noqa: E731
            rows.append([t, c, scheme, f"{100 * rate:.3g}%", f"{bits:.1f}", best["variant"], f"{best['GBps']:.0f}", frac(best), frac(rs["auto"]),
                         rs["auto"]["metrics"].get("plan", "-"), f"{med(peer) / med(best):.2f}x" if peer else "-",
                         f"{med(peer) / med(rs['auto']):.2f}x" if peer else "-", f"{med(rs['auto']) / med(best):.2f}"])
    if not rows:
        return lpresults.skip(out, "no float columns")
    where = f"read ceiling {ceil:.0f} GB/s (same run; traffic counted: the encoded column in + the decoded column out)" if ceil else "no read ceiling"
    text = ("# Patched study, float columns (ALP): the targets\n\n"
            f"{header(doc, fl)}; {where}. Targets: decode + patch >= 0.85 of the ceiling with <= 1% exceptions; >= 1.5x decode + "
            "thrust::scatter at 1-5% exceptions; bits a value within 10% of the ALP paper's on comparable data.\n\n"
            + lpresults.md_table(["type", "column", "scheme", "exceptions", "bits/value", "best of ours", "GB/s", "best / ceiling",
                                  "auto / ceiling", "auto's plan", "best vs thrust", "auto vs thrust", "auto / best time"], rows))
    lpresults.write_text(out, text)


def main():
    opened = lpresults.open_study_result(__doc__, "patched")
    if opened is None:
        return
    doc, recs, out = opened
    rate_figure(doc, recs, os.path.join(out, "patched_rate.png"))
    width_figure(doc, recs, os.path.join(out, "patched_bit_width.png"))
    targets(doc, recs, os.path.join(out, "patched_targets.md"))
    alp_figure(doc, recs, os.path.join(out, "patched_alp.png"))
    alp_targets(doc, recs, os.path.join(out, "alp_targets.md"))

if __name__ == "__main__":
    main()
