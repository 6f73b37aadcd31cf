#!/usr/bin/env python3
"""Figures and tables of the CPU study and the cache simulator (thesis chapter 2, Eilers 2014, on
today's CPUs).

usage: plot_cpu.py RESULTS_DIR OUT_DIR

Reads whichever of cpu.json, cpu_sort_bits.json, cachesim.json and cachesim_sort_bits.json
RESULTS_DIR holds (one machine's results) and writes into OUT_DIR; a figure whose file or records are
missing is skipped with one line on stderr. Only records that ran and validated are drawn. The unit is
ns per input (the thesis's), x = m (buckets) on a log2 axis, int32 add, n = 2^26 unless a title says
otherwise.

  fig2_1.png   (cpu.json) sequential multireduce, multiscan, scatter and gather against m, 4 KiB pages.
  fig2_2.png   (cpu.json) multireduce against m beside the pointer-chase latency of a working set of
               m x 4 bytes (where each level of the hierarchy ends).
  fig2_4.png   (cpu.json) multireduce on 4 KiB and 2 MiB pages; the legend says how much of the 2 MiB
               regions the kernel backed with huge pages.
  fig2_5.png   (cpu.json) multireduce with random and sequential labels.
  fig2_7.png   (cachesim_sort_bits.json) Alg 2.4 by sort bits: measured on this host (solid) against
               the simulator's two timing models (thesis's sequential: dotted; overlapping misses:
               dashed), n = 2^24.
  fig2_8.png   (cachesim_sort_bits.json) the same with enforced sequential fetching measured: what the
               thesis's sequential model describes.
  sim_vs_measured.png (cachesim.json) the naive multireduce (Alg 2.2) measured against both models'
               predictions for m 2^4..2^26, and the error of each (the issue's 25% band shaded).
  table2_1.md  (cpu.json, cachesim.json) data-TLB load miss rate of the simple multireduce per m:
               hardware counters where the machine exposes them, else the simulator's (marked so).
  threads.png  (cpu.json) the multithreaded multireduce as a fraction of the streaming-read bandwidth
               measured in the same run, against threads, one line per m (the 70% target shaded).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402

STYLE = {
    "multireduce_seq": ("multireduce (Alg 2.2)", "tab:red", "o"),
    "multiscan_seq": ("multiscan (Alg 2.3)", "tab:blue", "s"),
    "scatter_seq": ("scatter (Alg 2.1)", "tab:green", "^"),
    "gather_seq": ("gather (1.2)", "tab:purple", "v"),
}


def load(res, name):
    """NAME and its parts: cpu.json also takes cpu_*.json (a run split over several configs or
    device calls); the first file's meta labels the figure."""
    stem = name[:-len(".json")]
    paths = sorted(os.path.join(res, f) for f in os.listdir(res)
                   if f == name or (f.startswith(stem + "_") and f.endswith(".json") and not (stem == "cachesim" and f == "cachesim_sort_bits.json")))
    if not paths:
        return None, []
    docs = [lpresults.load(p) for p in paths]
    return docs[0], [r for d in docs for r in lpresults.timed(d)]


def log2_axis(ax, xs):
    ax.set_xscale("log", base=2)
    if xs:
        ticks = sorted({x for x in xs})
        ax.set_xticks(ticks[:: max(1, len(ticks) // 12)])
        ax.set_xticklabels([f"$2^{{{x.bit_length() - 1}}}$" if x & (x - 1) == 0 else str(x) for x in ticks[:: max(1, len(ticks) // 12)]])
    ax.grid(True, which="both", alpha=0.3)


def series(recs, key="ns_per_input", **want):
    """(m, value) of the records that match, one per m: where parts of a run measured the same m at
    several n (a latency probe at a smaller n), the largest n."""
    best = {}
    for r in lpresults.select(recs, **want):
        m = r["params"]["m"]
        if m not in best or r["params"]["n"] > best[m]["params"]["n"]:
            best[m] = r
    rs = [best[m] for m in sorted(best)]
    return [r["params"]["m"] for r in rs], [r[key] if key in r else r["metrics"][key] for r in rs]


def machine(doc):
    h = doc["meta"].get("host", {})
    return h.get("cpu", h.get("name", "")) if isinstance(h, dict) else str(h)


def save(fig, out, name, doc):
    fig.text(0.99, 0.005, f"{machine(doc)} · commit {doc['meta'].get('git_commit', '?')} · {doc['meta'].get('date', '')[:10]}",
             ha="right", va="bottom", fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    lpresults.write_figure(fig, os.path.join(out, name), dpi=130)


def m_figure(res, out, name, title, lines):
    """One panel of ns per input against m from cpu.json: lines = [(label, style, record filter)];
    a label may be a function of the line's records (e.g. to say how much huge pages backed)."""
    doc, recs = load(res, "cpu.json")
    if not recs:
        return lpresults.skip(name, "no cpu.json records")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = []
    for label, style, want in lines:
        rs = lpresults.select(recs, **want)
        x, y = series(rs)
        if x:
            ax.plot(x, y, **style, label=label(rs) if callable(label) else label)
            xs += x
    log2_axis(ax, xs)
    ax.set_yscale("log")
    ax.set(xlabel="m (buckets)", ylabel="ns per input", title=title)
    ax.legend()
    save(fig, out, name, doc)


PLAIN = dict(labels="random", sort_bits=0, threads=0)


def fig2_1(res, out):
    m_figure(res, out, "fig2_1.png", "Fig 2.1: sequential algorithms against m (random labels, 4 KiB pages)",
             [(label, dict(marker=marker, color=colour), dict(variant=v, pages="4k", **PLAIN)) for v, (label, colour, marker) in STYLE.items()])


def huge_page_label(rs):
    backed = sum(r["metrics"]["huge_page_bytes"] for r in rs if isinstance(r["metrics"].get("huge_page_bytes"), int))
    total = sum(r["metrics"].get("region_bytes", 0) for r in rs)
    return f"2 MiB pages (THP; {100 * backed / total:.0f}% of the bytes backed)" if total else "2 MiB pages"


def fig2_4(res, out):
    m_figure(res, out, "fig2_4.png", "Fig 2.4: multireduce with and without huge pages",
             [("4 KiB pages", dict(marker="o"), dict(variant="multireduce_seq", pages="4k", **PLAIN)),
              (huge_page_label, dict(marker="s", linestyle="--"), dict(variant="multireduce_seq", pages="2m", **PLAIN))])


def fig2_5(res, out):
    m_figure(res, out, "fig2_5.png", "Fig 2.5: multireduce, random vs sequential labels (4 KiB pages)",
             [(f"{k} labels", dict(marker=mk, linestyle=ls), dict(variant="multireduce_seq", pages="4k", labels=k, sort_bits=0, threads=0))
              for k, mk, ls in (("random", "o", "-"), ("sequential", "s", "--"))])


def fig2_2(res, out):
    doc, recs = load(res, "cpu.json")
    if not recs:
        return lpresults.skip("fig2_2.png", "no cpu.json records")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.5))
    x, y = series(recs, variant="multireduce_seq", pages="4k", **PLAIN)
    a.plot(x, y, "o-", color="tab:red", label="multireduce (Alg 2.2)")
    log2_axis(a, x)
    a.set_yscale("log")
    a.set(xlabel="m (buckets)", ylabel="ns per input", title="(a) Fig 2.2: multireduce against m")
    a.legend()
    for pages, style in (("4k", "o-"), ("2m", "s--")):
        xc, yc = series(recs, variant="pointer_chase", pages=pages, **PLAIN)
        if xc:
            b.plot([4 * m for m in xc], yc, style, label=f"pointer chase, {pages} pages")
    b.set_xscale("log", base=2)
    b.set_yscale("log")
    b.grid(True, which="both", alpha=0.3)
    b.set(xlabel="working set (bytes = 4 m)", ylabel="ns per dependent load", title="(b) latency probe (section 2.3)")
    b.legend()
    save(fig, out, "fig2_2.png", doc)


def by_bits(recs, variant, key="ns_per_input"):
    out = {}
    for r in lpresults.select(recs, variant=variant):
        b = r["params"]["sort_bits"]
        v = r.get(key) if key == "ns_per_input" else r["metrics"].get(key)
        if isinstance(v, (int, float)):
            out.setdefault(b, []).append((r["params"]["m"], v))
    return {b: sorted(v) for b, v in sorted(out.items())}


def sim_figure(res, out, name, measured_variant, title):
    doc, recs = load(res, "cachesim_sort_bits.json")
    doc2, more = load(res, "cachesim.json")
    doc = doc or doc2
    recs = [r for r in recs + more if r["params"].get("hierarchy") not in ("core2-t7300", "opteron-6274")]
    # The n at which sort bits were swept (the m sweep at sort_bits 0 may use another n).
    ns = {r["params"]["n"] for r in recs if r["params"]["sort_bits"] > 0}
    recs = [r for r in recs if ns and r["params"]["n"] == max(ns)]
    if not recs:
        return lpresults.skip(name, "no records of this host with sort_bits > 0")
    fig, ax = plt.subplots(figsize=(8, 5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    xs = []
    meas = by_bits(recs, measured_variant)
    for i, (b, pts) in enumerate(meas.items()):
        c = colours[i % len(colours)]
        ax.plot([m for m, _ in pts], [v for _, v in pts], "o-", color=c, label=f"measured, sort bits {b}")
        xs += [m for m, _ in pts]
        for key, style, what in (("predicted_ns.sequential", ":", "sequential model"), ("predicted_ns.overlap", "--", "overlap model")):
            sim = by_bits(recs, "simulate", key).get(b, [])
            if sim:
                ax.plot([m for m, _ in sim], [v for _, v in sim], style, marker=".", color=c, label=f"{what}, sort bits {b}")
    log2_axis(ax, xs)
    ax.set_yscale("log")
    n = recs[0]["params"]["n"]
    ax.set(xlabel="m (buckets)", ylabel="ns per input", title=f"{title} (n = {lpresults.pow2(n)})")
    ax.legend(fontsize=7, ncol=2)
    save(fig, out, name, doc)


def sim_vs_measured(res, out):
    doc, recs = load(res, "cachesim.json")
    sims = sorted(lpresults.select(recs, variant="simulate", sort_bits=0), key=lambda r: r["params"]["m"])
    sims = [r for r in sims if "measured_ns" in r["metrics"]]
    if sims:  # the m sweep's n (a sort-bits group may add points at another n)
        ns = [r["params"]["n"] for r in sims]
        sims = [r for r in sims if r["params"]["n"] == max(set(ns), key=ns.count)]
    if not sims:
        return lpresults.skip("sim_vs_measured.png", "no simulate records with a measured time in cachesim.json")
    m = [r["params"]["m"] for r in sims]
    g = lambda k: [r["metrics"][k] for r in sims]  # noqa: E731
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    a.plot(m, g("measured_ns"), "o-", color="black", label="measured (Alg 2.2)")
    a.plot(m, g("predicted_ns.overlap"), "s--", color="tab:red", label="overlap model")
    a.plot(m, g("predicted_ns.sequential"), "^:", color="tab:blue", label="sequential model (thesis)")
    if all("measured_enforced_ns" in r["metrics"] for r in sims):
        a.plot(m, g("measured_enforced_ns"), "v-", color="grey", alpha=0.6, label="measured, enforced sequential")
    log2_axis(a, m)
    a.set_yscale("log")
    a.set(xlabel="m (buckets)", ylabel="ns per input", title="(a) simple multireduce: measured vs predicted")
    a.legend(fontsize=8)
    b.axhspan(-25, 25, color="tab:green", alpha=0.12, label="target: within 25%")
    b.plot(m, [100 * e for e in g("error.overlap")], "s--", color="tab:red", label="overlap model")
    b.plot(m, [100 * e for e in g("error.sequential")], "^:", color="tab:blue", label="sequential model (thesis)")
    b.set_yscale("symlog", linthresh=100)
    log2_axis(b, m)
    worst = max(abs(e) for e in g("error.overlap"))
    b.set(xlabel="m (buckets)", ylabel="prediction error (%)", title=f"(b) error; overlap model worst |error| {100 * worst:.0f}%")
    b.legend(fontsize=8)
    save(fig, out, "sim_vs_measured.png", doc)


def table2_1(res, out):
    doc, recs = load(res, "cpu.json")
    _, sims = load(res, "cachesim.json")
    rows = []
    for r in sorted(lpresults.select(recs, variant="multireduce_seq", pages="4k", labels="random", sort_bits=0, threads=0),
                    key=lambda r: r["params"]["m"]):
        v = r["metrics"].get("dtlb_misses_per_input")
        rows.append((r["params"]["m"], f"{100 * v / 3:.1f}%" if isinstance(v, (int, float)) else None))
    sim = {}
    for r in lpresults.select(sims, variant="simulate", sort_bits=0, pages="4k"):
        walks = [v for k, v in r["metrics"].items() if k.startswith("tlb_misses_per_input.")]
        if walks:
            sim[r["params"]["m"]] = f"{100 * walks[-1] / 3:.1f}%"
    if not rows and not sim:
        return lpresults.skip("table2_1.md", "no multireduce_seq records")
    ms = sorted({m for m, _ in rows} | set(sim))
    counters = dict(rows)
    lines = ["# Table 2.1: data-TLB load miss rate of the simple multireduce (3 loads per input)", "",
             f"Machine: {machine(doc) if doc else '?'}. Hardware: the dTLB load-miss counter over loads (perf_event_open);",
             "simulated: misses of the last TLB level in `bench cachesim`'s hierarchy (4 KiB pages).", "",
             "| m | hardware counters | simulated |", "| ---: | ---: | ---: |"]
    for m in ms:
        lines.append(f"| {lpresults.pow2(m)} | {counters.get(m) or 'unavailable'} | {sim.get(m, '—')} |")
    lpresults.write_text(os.path.join(out, "table2_1.md"), "\n".join(lines) + "\n")


def threads(res, out):
    doc, recs = load(res, "cpu.json")
    mt = lpresults.select(recs, variant="multireduce_mt", pages="2m", labels="random", sort_bits=0)
    mt = [r for r in mt if r["params"]["threads"] > 0]
    if not mt:
        return lpresults.skip("threads.png", "no multireduce_mt thread sweep")
    # Bandwidth: the streaming read at the same thread count (bytes per ns = GB/s).
    bw = {}
    for r in lpresults.select(recs, variant="stream_read", pages="2m"):  # it ignores m: the best of its repeats
        if r["params"]["threads"] > 0:
            bw[r["params"]["threads"]] = max(bw.get(r["params"]["threads"], 0), r["GBps"])
    if not bw:
        return lpresults.skip("threads.png", "no stream_read thread sweep")
    best = max(bw.values())
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for m in sorted({r["params"]["m"] for r in mt}):
        rs = sorted([r for r in mt if r["params"]["m"] == m], key=lambda r: r["params"]["threads"])
        ax.plot([r["params"]["threads"] for r in rs], [r["GBps"] / best for r in rs], "o-", label=f"m = {lpresults.pow2(m)}")
    ax.axhspan(0.7, 1.0, color="tab:green", alpha=0.1, label="target >= 70% (m <= 2^16)")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="threads", ylabel="fraction of the streaming-read bandwidth",
           title=f"Multithreaded multireduce (8 B per input) vs streaming read ({best:.0f} GB/s best)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "threads.png", doc)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    res, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for f in (fig2_1, fig2_2, fig2_4, fig2_5, sim_vs_measured, table2_1, threads):
        f(res, out)
    sim_figure(res, out, "fig2_7.png", "measured_multireduce", "Fig 2.7: sorting multireduce, actual vs simulated")
    sim_figure(res, out, "fig2_8.png", "measured_enforced", "Fig 2.8: the same with enforced sequential fetching")


if __name__ == "__main__":
    main()
