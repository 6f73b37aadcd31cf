#!/usr/bin/env python3
"""He et al. 2008's primitives (section 3.1) on today's GPU: map, scatter, gather, prefix scan,
split and sort, ours beside the library a user would call, against the copy ceiling measured in
the same run.

usage: plot_primitives.py RESULTS.json OUT_DIR

  primitives.png  left: every GPU variant's throughput at n = 2^26 tuples as a fraction of the copy
                  ceiling (bytes each primitive must read and write, over time), per primitive (the
                  split at fanouts 16, 256 and 2048); right: the GPU variants' throughput against n.
Only records that ran and validated are drawn (lpresults.timed); a missing file is skipped with one
line on stderr (exit 0).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback

OPS = ["map", "scatter", "gather", "scan", "split", "sort"]
STYLE = {  # variant: (label, colour, marker, line style); ours solid, the libraries dashed
    "map": ("ours: map (He 3.1.1)", "tab:red", "o", "-"),
    "multipass": ("ours: multi-pass scatter/gather (He 3.1.2)", "tab:orange", "s", "-"),
    "split": ("ours: split (He Algorithm 1)", "tab:brown", "D", "-"),
    "thrust_transform": ("thrust::transform", "#1f77b4", "x", "--"),
    "thrust_scatter": ("thrust::scatter", "#1f77b4", "x", "--"),
    "thrust_gather": ("thrust::gather", "#1f77b4", "x", "--"),
    "thrust_scan": ("thrust::exclusive_scan", "#1f77b4", "x", "--"),
    "thrust_sort": ("thrust::sort_by_key", "#1f77b4", "x", "--"),
    "cub_scan": ("cub::DeviceScan::ExclusiveSum", "tab:green", "+", "--"),
    "cub_radix_split": ("CUB radix sort on the partition bits", "tab:green", "+", "--"),
    "cub_sort": ("cub::DeviceRadixSort::SortPairs", "tab:green", "+", "--"),
}


def column(p):
    return f"split\nfanout {p['fanout']}" if p["op"] == "split" else p["op"]


def main():
    opened = lpresults.open_study_result(__doc__, "primitives")
    if opened is None:
        return
    doc, recs, out = opened
    gpu = [r for r in recs if r["kind"] != "cpu"]
    n = max((r["params"]["n"] for r in gpu), default=0)
    big = [r for r in gpu if r["params"]["n"] == n]
    if not big:
        return lpresults.skip(os.path.join(out, "primitives.png"), "no GPU records")
    cols = sorted({column(r["params"]) for r in big}, key=lambda c: (OPS.index(c.split("\n")[0]), len(c), c))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [1.3, 1]})
    for x, c in enumerate(cols):
        here = sorted((r for r in big if column(r["params"]) == c), key=lambda r: (r["kind"] != "ours", r["variant"]))
        w = 0.8 / max(1, len(here))
        for i, r in enumerate(here):
            lab, col, _, ls = STYLE.get(r["variant"], (r["variant"], "grey", "o", "-"))
            f = lpresults.copy_fraction(doc, r) or 0
            ax.bar(x - 0.4 + w * (i + 0.5), f, w * 0.9, color=col, hatch="" if ls == "-" else "//", edgecolor="white")
            ax.text(x - 0.4 + w * (i + 0.5), f + 0.01, r["variant"].replace("thrust_", "thrust ").replace("cub_", "cub "), rotation=90,
                    ha="center", va="bottom", fontsize=6.5)
    ax.axhline(1.0, color="black", lw=1)
    ax.text(len(cols) - 0.5, 1.01, f"copy ceiling {doc['ceilings']['copy_GBps']:.0f} GB/s", ha="right", va="bottom", fontsize=8)
    ax.set_xticks(range(len(cols)), cols, fontsize=8)
    ax.set_ylim(0, 1.25)
    ax.set(ylabel="fraction of the copy ceiling (minimal bytes / time)", title=f"n = {lpresults.pow2(n)} tuples (8-byte key, rid)")
    ax.grid(axis="y", alpha=0.3)
    # Right: colour by primitive, line by implementation (ours solid, CUB dash-dot, Thrust dashed).
    op_colour = dict(zip(OPS, ["tab:red", "tab:orange", "tab:olive", "tab:green", "tab:brown", "tab:purple"]))
    for v in sorted({r["variant"] for r in gpu}):
        for op in OPS:
            pts = sorted((r["params"]["n"], r["GBps"]) for r in gpu if r["variant"] == v and r["params"]["op"] == op
                         and r["params"]["fanout"] == 256)
            if len(pts) > 1:
                ls, mk = ("--", "x") if v.startswith("thrust") else ("-.", "+") if v.startswith("cub") else ("-", "o")
                bx.plot([p[0] for p in pts], [p[1] for p in pts], ls=ls, marker=mk, color=op_colour[op], ms=4, lw=1.1,
                        label=f"{op}: {STYLE.get(v, (v,))[0]}")
    bx.axhline(doc["ceilings"]["copy_GBps"], color="black", lw=1, label="copy ceiling")
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    sizes = sorted({r["params"]["n"] for r in gpu})
    bx.set_xticks(sizes, [lpresults.pow2(s) for s in sizes])
    bx.set(xlabel="n (tuples)", ylabel="GB/s (minimal bytes / time)",
           title="against n (split at fanout 256); ours solid, CUB dash-dot, Thrust dashed")
    bx.grid(alpha=0.3, which="both")
    bx.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"He et al. 2008's primitives on {lpresults.gpu_label(doc)}: ours (solid) against the libraries (hatched)")
    fig.tight_layout()
    lpresults.write_figure(fig, os.path.join(out, "primitives.png"), dpi=110)


if __name__ == "__main__":
    main()
