#!/usr/bin/env python3
"""Figure of the sorted-search study (ModernGPU's sorted-search benchmark, on today's GPU).

usage: plot_sortedsearch.py RESULTS.json OUT.png

(a) throughput in G inputs/s (|A| + |B| per second) against |A| + |B| for |A| = |B|, int32, distinct
    keys: merge-path and windowed sorted search, vectorized binary search with sorted and with
    shuffled needles, Thrust, CUB merge; dashed: the copy ceiling measured in the same run, turned
    into inputs/s for the lower-bound traffic (4 B read per input, 4 B written per needle) and for
    the complete search's (4 B read, 4 B written per input).
(b) |A| != |B| around 2^26 (int32): the same variants against |A| / |B|.
(c) fraction of the copy ceiling at 2^26 + 2^26 for each key type and key distribution.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback

STYLE = {  # variant: (label, colour, marker, line style)
    "windowed_lower": ("windowed sorted search, lower (ours)", "tab:red", "o", "-"),
    "mergepath_lower": ("merge-path sorted search, lower (ModernGPU)", "tab:blue", "s", "-"),
    "mergepath_complete": ("merge-path complete search + match flags", "tab:cyan", "^", "-"),
    "binary_search_lower": ("binary search, sorted needles (ours)", "tab:green", "v", "-"),
    "binary_search_lower_unsorted": ("binary search, shuffled needles (ours)", "tab:green", "x", ":"),
    "thrust_lower_bound": ("thrust::lower_bound, sorted needles", "tab:purple", "D", "-"),
    "thrust_lower_bound_unsorted": ("thrust::lower_bound, shuffled needles", "tab:purple", "+", ":"),
    "cub_merge": ("cub::DeviceMerge (same traversal, writes keys)", "tab:gray", ".", "--"),
    "cpu_sorted_search": ("CPUSortedSearch (1 CPU core)", "black", "*", "-."),
}


def plot_variants(ax, recs, x_of, xlabel, title):
    """One line per variant of STYLE: x_of(record) against G inputs/s, on log-log axes."""
    for v, (label, colour, marker, ls) in STYLE.items():
        pts = sorted((x_of(r), 1.0 / r["ns_per_input"]) for r in recs if r["variant"] == v)
        if pts:
            ax.plot(*zip(*pts), marker=marker, color=colour, ls=ls, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("G inputs/s  (|A| + |B| per ns)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    doc = lpresults.load(sys.argv[1])
    recs = lpresults.timed(doc)
    ceil = doc["ceilings"]["copy_GBps"]
    fig, axes = plt.subplots(1, 3, figsize=(19, 6.2), gridspec_kw={"width_ratios": [1.25, 1, 1.1]})

    # (a) |A| = |B|
    ax = axes[0]
    base = [r for r in recs if r["params"]["type"] == "int32" and r["params"]["keys"] == "distinct"
            and r["params"]["a_size"] == r["params"]["b_size"]]
    sizes = sorted({r["params"]["a_size"] + r["params"]["b_size"] for r in base})
    plot_variants(ax, base, lambda r: r["params"]["a_size"] + r["params"]["b_size"],
                  "|A| + |B| (|A| = |B|), int32 keys, distinct", "(a) throughput against size")
    # Ceiling in inputs/s: bytes per input at |A| = |B| is 4 + 4/2 (lower) and 4 + 4 (complete).
    ax.axhline(ceil / 6.0, color="k", ls="--", lw=1)
    ax.text(sizes[0], ceil / 6.0 * 1.04, f"copy ceiling, lower-bound traffic (6 B/input): {ceil / 6:.0f}", fontsize=8)
    ax.set_ylim(top=ceil / 6.0 * 2.5)  # room for the ceiling labels
    ax.axhline(ceil / 8.0, color="k", ls=":", lw=1)
    ax.text(sizes[0], ceil / 8.0 * 0.88, f"copy ceiling, complete-search traffic (8 B/input): {ceil / 8:.0f}", fontsize=8)
    ax.legend(fontsize=7.5, loc="lower right", bbox_to_anchor=(1.0, 0.11))

    # (b) |A| != |B|
    ax = axes[1]
    skew = [r for r in recs if r["params"]["type"] == "int32" and r["params"]["keys"] == "distinct"
            and max(r["params"]["a_size"], r["params"]["b_size"]) == 2 ** 26]
    plot_variants(ax, skew, lambda r: r["params"]["a_size"] / r["params"]["b_size"],
                  "|A| / |B|  (the larger array is 2^26; A = needles, B = haystack)", "(b) unequal sizes")

    # (c) types and key distributions at 2^26 + 2^26
    ax = axes[2]
    cases = [("int32", "distinct"), ("int32", "dups"), ("int64", "distinct"), ("float", "distinct"), ("double", "distinct")]
    shown = ["windowed_lower", "mergepath_lower", "mergepath_complete", "binary_search_lower", "thrust_lower_bound", "cub_merge"]
    width = 0.8 / len(shown)
    for i, v in enumerate(shown):
        vals = []
        for t, k in cases:
            m = [r for r in recs if r["variant"] == v and r["params"]["type"] == t and r["params"]["keys"] == k
                 and r["params"]["a_size"] == r["params"]["b_size"] == 2 ** 26]
            vals.append(100 * m[0]["fraction_of_copy_ceiling"] if m else 0)
        ax.bar([c + (i - len(shown) / 2 + 0.5) * width for c in range(len(cases))], vals, width,
               color=STYLE[v][1], hatch="//" if v == "cub_merge" else None, label=STYLE[v][0])
    ax.axhline(100, color="k", ls="--", lw=1)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([f"{t}\n{k}" for t, k in cases])
    ax.set_ylabel("% of the copy ceiling (minimal traffic / time)")
    ax.set_title("(c) key types and duplicates, |A| = |B| = 2^26")
    ax.set_ylim(0, 135)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", ncol=2)

    meta = doc["meta"]
    fig.suptitle(f"Vectorized sorted search on {lpresults.gpu_label(doc)} — copy ceiling {ceil:.0f} GB/s measured in the run "
                 f"(commit {meta['git_commit']}, {meta['date'][:10]}); every point validated against the CPU reference", fontsize=10)
    fig.tight_layout()
    lpresults.write_figure(fig, sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
