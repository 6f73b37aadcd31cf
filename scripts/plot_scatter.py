#!/usr/bin/env python3
"""Figures and tables of the scatter/gather study (thesis 1.2, 3.2.2, 4.5.1, Table 4.3).

usage: plot_scatter.py INPUT OUT_DIR

INPUT is one result file of `bench scatter` (e.g. scatter.json of configs/scatter/default.json) or a
folder, whose *.json files of the scatter study are all read (later files winning on equal records);
writes into OUT_DIR. A missing input or a figure without records is skipped with one line on stderr
(exit 0). Only records that ran and validated are used (lpresults.timed). The unit is ns per input
(the thesis's unit; n inputs for both operations), log axis; x = m on a log2 axis. The figures and
tables use the uniform int32 records at the largest n with every knob at the variant's own choice
(sort_bits = passes = threads = blocks_per_sm = 0); sort_bits.png/md use the sorted variant's sweep.

  table4_3.md    thesis Table 4.3 (naive GPU scatter, n = 2^26 uniform labels) beside the H100's naive
                 scatter at the same m, the ratio thesis / H100, the random-access probe and the best
                 GPU variant (probe and CPU left out) with its name.
  scatter_ns.png ns per input against the bucket count m, one line per GPU variant (ours solid, peers
                 dashed), the random-access probe as a thick grey line, Table 4.3 as black markers.
  gather_ns.png  the same for the gather against the table size m (no thesis numbers).
  sort_bits.png  (only where the input sweeps sort_bits: the sorted variant at more than one
                 effective sortBits at some m) the sorted scatter's ns per input against sortBits,
                 one line per m (thesis 4.5.1).
  sort_bits.md   the same: the best sortBits per m against the variant's own choice and naive.
  summary.md     per op and m: the best GPU variant against the probe, thrust, cub_sort and auto (the
                 study's targets: best within 1.25x of the probe; >= 1.5x thrust at m >= 2^24).
"""
import glob
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback
import plot_multireduce as pm  # noqa: E402

STYLE = {  # variant: (label, colour, marker, line style); solid = ours, dashed = peer, dash-dot = CPU
    "naive": ("naive (Alg 3.3 mirror, Table 4.3; any one wins)", "tab:blue", "o", "-"),
    "naive_strict": ("naive_strict (last one wins, atomicMax)", "tab:cyan", "v", "-"),
    "multipass": ("multipass (He et al., 3.2.2)", "tab:green", "s", "-"),
    "sorted": ("sorted (sort-scatter, 4.5.1)", "tab:purple", "D", "-"),
    "privatized": ("privatized (ours, strict)", "tab:brown", "^", "-"),
    "wide": ("wide (ours)", "tab:orange", "P", "-"),
    "auto": ("auto (ours)", "tab:red", "X", ":"),
    "thrust": ("thrust::scatter / thrust::gather", "#7f7f7f", "s", "--"),
    "cub_sort": ("CUB radix sort, then scatter / gather", "tab:pink", "d", "--"),
    "cpu": ("CPU (Alg 2.1, 1 thread)", "black", "*", "-."),
    "cpu_sorted": ("CPU partial sort (Alg 2.4/2.6, 1 thread)", "black", "x", "-."),
}
GATHER_LABELS = {  # the gather's own names of the same variants
    "naive": "naive (Alg 3.3)",
    "sorted": "sorted (partial sort by label first, Alg 2.6)",
    "thrust": "thrust::gather",
    "cub_sort": "CUB radix sort, then gather",
}
STYLE_GATHER = {v: (GATHER_LABELS.get(v, s[0]),) + s[1:] for v, s in STYLE.items()}
STYLE["thrust"] = ("thrust::scatter",) + STYLE["thrust"][1:]
STYLE["cub_sort"] = ("CUB radix sort, then scatter",) + STYLE["cub_sort"][1:]
by_variant = {"scatter": lpresults.variant_style(STYLE), "gather": lpresults.variant_style(STYLE_GATHER)}
ORDER = {v: i for i, v in enumerate(STYLE)}
pm.ORDER.update({v: i - len(STYLE) for v, i in ORDER.items()})  # pm.lines orders the lines (and the legend) by it
PROBE_LABEL = "random-access probe (limit)"
THESIS_LABEL = "thesis GPU, Table 4.3 (naive)"
# Thesis Table 4.3: naive GPU scatter, ns per input, n = 2^26 uniform labels, by log2 m.
THESIS_4_3 = {8: 0.112742, 10: 0.154659, 12: 0.185251, 14: 0.200674, 16: 0.218198,
              18: 0.590086, 20: 0.917882, 22: 1.007348, 24: 1.029998, 26: 1.063898}
KNOBS = dict(sort_bits=0, passes=0, threads=0, blocks_per_sm=0)
M_AXIS = {"scatter": "buckets m (log2)", "gather": "table entries m (log2)"}


def load_input(src):
    """(first doc, validated records) of a file or of every scatter-study *.json under a folder."""
    paths = sorted(glob.glob(os.path.join(src, "**", "*.json"), recursive=True)) if os.path.isdir(src) else [src]
    # The regret sweep's random points are plot_regret.py's.
    paths = [p for p in paths if lpresults.REGRET_DIR not in os.path.relpath(p, src).split(os.sep)]
    first, recs = None, {}
    for path in paths:
        try:
            doc = lpresults.load(path)
        except (ValueError, SystemExit, KeyError):
            if not os.path.isdir(src):
                raise
            continue
        if doc.get("meta", {}).get("study") != "scatter":
            if not os.path.isdir(src):
                sys.exit(f"{path}: not a scatter study result")
            continue
        doc["_file"] = os.path.basename(path)
        first = first or doc
        for r in lpresults.timed(doc):
            recs[(r["variant"], tuple(sorted((k, str(v)) for k, v in r["params"].items())))] = r
    return first, list(recs.values())


def base(recs):
    """The records of the figures: uniform int32 at the largest n, every knob the variant's own."""
    rs = lpresults.select(recs, distribution="uniform", type="int32", **KNOBS)
    if not rs:
        return []
    n = max(r["params"]["n"] for r in rs)
    return lpresults.select(rs, n=n)


def gpu(r):
    return r["kind"] in ("ours", "peer")


def by_m(rs):
    """{(op, m): {variant: record}}, the fastest record where several share a point."""
    out = {}
    for r in rs:
        k, v = (r["params"]["op"], r["params"]["m"]), r["variant"]
        d = out.setdefault(k, {})
        if v not in d or r["ns_per_input"] < d[v]["ns_per_input"]:
            d[v] = r
    return out


def best_gpu(cell):
    """(variant, ns) of the fastest GPU variant (ours or peer: no probe, no CPU) of one point, or None."""
    c = [(r["ns_per_input"], ORDER.get(v, 99), v) for v, r in cell.items() if gpu(r)]
    return (min(c)[2], min(c)[0]) if c else None


def ns(cell, v):
    return cell[v]["ns_per_input"] if v in cell else None


def f_ns(x):
    return "-" if x is None else f"{x:.4g}"


def f_ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}"


def header(doc, rs):
    types = ", ".join(sorted({r["params"]["type"] for r in rs}))
    return f"{pm.header(doc, rs)}, {types} values, uniform labels"


def ns_figure(doc, rs, op, out):
    rs = lpresults.select(rs, op=op)
    lines = [r for r in rs if gpu(r)]
    if not lines:
        return lpresults.skip(out, f"no validated GPU {op} records")
    fig, ax = plt.subplots(figsize=(8.6, 5.0))
    pm.lines(ax, lines, lambda r: r["variant"], by_variant[op], lambda r: r["params"]["m"], lambda r: r["ns_per_input"])
    probe = sorted((r["params"]["m"], r["ns_per_input"]) for r in rs if r["kind"] == "probe")
    if probe:
        ax.plot(*zip(*probe), color="0.45", lw=5, alpha=0.45, solid_capstyle="round", zorder=1, label=PROBE_LABEL)
    if op == "scatter":
        ax.plot([2.0**k for k in THESIS_4_3], list(THESIS_4_3.values()), ls="none", marker="s", ms=6, mfc="none",
                mec="black", mew=1.5, color="black", label=THESIS_LABEL)
    ax.set(xlabel=M_AXIS[op], ylabel="ns per input")
    cells = by_m(rs)
    slow = [min(r["ns_per_input"] for r in c.values() if r["kind"] == "cpu") / best_gpu(c)[1]
            for c in cells.values() if best_gpu(c) and any(r["kind"] == "cpu" for r in c.values())]
    note = (f"\nCPU variants (1 thread) not drawn: the fastest is {min(slow):.0f}x to {max(slow):.0f}x slower than the "
            "fastest GPU variant" if slow else "")
    what = "Naive scatter (thesis Table 4.3) and every GPU variant" if op == "scatter" else "Gather, every GPU variant"
    ax.set_title(f"{what}: ns per input against m\n{header(doc, rs)}{note}", fontsize=9)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    lpresults.write_figure(fig, out, dpi=150, bbox_inches="tight")


def table4_3(doc, rs, out):
    cells = by_m(lpresults.select(rs, op="scatter"))
    ms = sorted(m for (op, m) in cells)
    if not any("naive" in cells["scatter", m] for m in ms):
        return lpresults.skip(out, "no validated naive scatter records")
    rows = []
    for k in sorted(set(THESIS_4_3) | {int(math.log2(m)) for m in ms}):
        c = cells.get(("scatter", 2**k), {})
        th, h, best = THESIS_4_3.get(k), ns(c, "naive"), best_gpu(c)
        rows.append([str(k), str(th) if th is not None else "-", f_ns(h), f_ratio(th, h), f_ns(ns(c, "probe")),
                     f"{best[0]} {best[1]:.4g}" if best else "-"])
    l2 = doc["meta"]["gpu"].get("l2_bytes")
    text = (f"### Table 4.3: naive GPU scatter, ns per input — thesis beside {header(doc, rs)}\n\n"
            + lpresults.md_table(["log2 m", "thesis naive (ns)", "H100 naive (ns)", "thesis / H100", "H100 probe (ns)",
                                  "H100 best GPU variant (ns)"], rows)
            + "\nThesis: its GPU, n = 2^26 uniform labels (Table 4.3). H100: the naive scatter (any one wins), the random-access "
              "probe (n random 4-byte writes over m words, no labels or values read) and the fastest GPU variant at that m "
              "(ours or peer, probe and CPU left out)"
            + (f"; the int32 buckets (4m bytes) exceed the {l2 / 2**20:.0f} MiB L2 from m = 2^{int(math.log2(l2 / 4)) + 1} on" if l2 else "")
            + ".\n")
    lpresults.write_text(out, text)


def effective_bits(r):
    return (r.get("metrics") or {}).get("sorted_bits", r["params"]["sort_bits"])


def sort_bits(doc, recs, out_png, out_md):
    rs = lpresults.select(recs, variant="sorted", op="scatter", distribution="uniform", type="int32", passes=0, threads=0, blocks_per_sm=0)
    pts = {}  # (n, m): {effective sortBits: record}, explicit sort_bits preferred to the variant's choice
    for r in rs:
        d, b = pts.setdefault((r["params"]["n"], r["params"]["m"]), {}), effective_bits(r)
        if b not in d or (r["params"]["sort_bits"] > 0, -r["ns_per_input"]) > (d[b]["params"]["sort_bits"] > 0, -d[b]["ns_per_input"]):
            d[b] = r
    swept = {k: d for k, d in pts.items() if len(d) > 1}
    if not swept:
        for o in (out_png, out_md):
            lpresults.skip(o, "no sorted scatter records at more than one sortBits at any m")
        return
    n = max(k[0] for k in swept)
    swept = {m: d for (nn, m), d in swept.items() if nn == n}
    drawn = [dict(r, _bits=b) for d in swept.values() for b, r in d.items()]
    fig, ax = plt.subplots(figsize=(8.0, 4.8))
    pm.lines(ax, drawn, lambda r: r["params"]["m"], pm.by_param("m"), lambda r: r["_bits"], lambda r: r["ns_per_input"])
    ax.set_xscale("linear")
    bits = sorted({r["_bits"] for r in drawn})
    ax.set_xticks(bits, [str(b) for b in bits])
    ax.set_xlim(bits[0] - 0.5, bits[-1] + 0.5)
    ax.set(xlabel="sortBits (top label bits sorted by first; 0 = no sort)", ylabel="ns per input (sort included)")
    ax.set_title(f"Thesis 4.5.1: sort-scatter, ns per input against sortBits, one line per m\n{header(doc, drawn)}", fontsize=9)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    lpresults.write_figure(fig, out_png, dpi=150, bbox_inches="tight")
    naive = {r["params"]["m"]: r for r in lpresults.select(recs, variant="naive", op="scatter", distribution="uniform", type="int32", n=n)}
    own = {r["params"]["m"]: r for r in rs if r["params"]["sort_bits"] == 0 and r["params"]["n"] == n}
    rows = []
    for m, d in sorted(swept.items()):
        b, r = min(d.items(), key=lambda e: (e[1]["ns_per_input"], e[0]))
        nv, o = naive.get(m), own.get(m)
        lg = int(math.log2(m))
        rows.append([str(lg), str(b), str(lg - b), f_ns(r["ns_per_input"]), f"{effective_bits(o)} ({o['ns_per_input']:.4g})" if o else "-",
                     f_ns(nv["ns_per_input"]) if nv else "-", f_ratio(nv["ns_per_input"] if nv else None, r["ns_per_input"])])
    text = (f"### Thesis 4.5.1: best sortBits of the sort-scatter per m — {header(doc, drawn)}\n\n"
            + lpresults.md_table(["log2 m", "best sortBits", "log2 m - sortBits", "best (ns)", "own choice: sortBits (ns)", "naive (ns)",
                                  "naive / best"], rows)
            + "\nns per input, the partial sort included; the thesis's rule: log2 m - sortBits <= 8 brings the scatter phase back "
              "to 0.1-0.2 ns on its GPU.\n")
    lpresults.write_text(out_md, text)


def summary(doc, rs, out):
    cells = by_m(rs)
    rows = []
    for op in ("scatter", "gather"):
        for m in sorted(m for (o, m) in cells if o == op):
            c = cells[op, m]
            best = best_gpu(c)
            if not best:
                continue
            peers = [(ns(c, v), v) for v in ("thrust", "cub_sort") if v in c]
            bp = min(peers) if peers else None
            a = ns(c, "auto")
            rows.append([op, str(int(math.log2(m))), best[0], f_ns(best[1]), f_ns(ns(c, "probe")), f_ratio(best[1], ns(c, "probe")),
                         f_ns(ns(c, "thrust")), f_ratio(ns(c, "thrust"), best[1]), f_ns(ns(c, "cub_sort")), f_ns(a),
                         f"{f_ratio(a, bp[0])} ({bp[1]})" if bp and a is not None else "-"])
    if not rows:
        return lpresults.skip(out, "no validated GPU records")
    text = (f"### Scatter and gather: the best GPU variant against the random-access probe and the peers — {header(doc, rs)}\n\n"
            + lpresults.md_table(["op", "log2 m", "best variant", "best (ns)", "probe (ns)", "best / probe", "thrust (ns)", "thrust / best",
                                  "cub_sort (ns)", "auto (ns)", "auto / best peer"], rows)
            + "\nns per input (median time / n). Best: the fastest GPU variant, ours or peer (the probe and the CPU left out; "
              "any-one-wins and last-one-wins variants alike). Ratios of ns per input: best / probe <= 1.25 and thrust / best >= 1.5 "
              "at m >= 2^24 are the study's targets; auto / best peer < 1 means auto is faster than the faster of thrust and "
              "cub_sort (named).\n")
    lpresults.write_text(out, text)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    if not os.path.exists(src):
        lpresults.skip(out, f"{src} not found")
        return
    doc, recs = load_input(src)
    if doc is None:
        lpresults.skip(out, f"no scatter study results in {src}")
        return
    os.makedirs(out, exist_ok=True)
    rs = base(recs)
    table4_3(doc, rs, os.path.join(out, "table4_3.md"))
    ns_figure(doc, rs, "scatter", os.path.join(out, "scatter_ns.png"))
    ns_figure(doc, rs, "gather", os.path.join(out, "gather_ns.png"))
    sort_bits(doc, recs, os.path.join(out, "sort_bits.png"), os.path.join(out, "sort_bits.md"))
    summary(doc, rs, os.path.join(out, "summary.md"))


if __name__ == "__main__":
    main()
