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
               predictions for m 2^4..2^26, and the error of each (the model's 20% band shaded).
  model_curves.png (cachesim.json) the calibration: the pointer chase and the update probe
               measured at every working set (2 MiB and 4 KiB pages), the latency curve the model
               derived for each level, and the page walk's price and overlap curves.
  model_targets.md (cachesim.json, cachesim_sort_bits.json) the timing model's targets: the overlap model's
               error at every m, and the recommended sort bits against the measured best.
  sim_speed.png (sim_speed.json) the simulator's speed: simulated accesses per second on one core
               for each hierarchy preset against m (the 100 M/s and 40 M/s targets marked).
  threads_m.png (cpu_threads.json) the multithreaded multireduce on all hardware
               threads (private buckets / radix partitioning, and owned bucket ranges) as a fraction
               of the streaming read measured at the same point, against m (the threads' targets).
  table2_1.md  (cpu.json, cachesim.json) data-TLB load miss rate of the simple multireduce per m:
               hardware counters where the machine exposes them, else the simulator's (marked so).
  threads.png  (cpu.json) the multithreaded multireduce as a fraction of the streaming-read bandwidth
               measured in the same run, against threads, one line per m (the 75% target shaded).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lpresults  # noqa: E402
plt = lpresults.pyplot()  # one line naming the missing matplotlib, not a traceback

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
    if not xs:  # the records are another config's (the threads sweep alone, say)
        plt.close(fig)
        return lpresults.skip(name, "no records of its variants in cpu.json")
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
    x, y = series(recs, variant="multireduce_seq", pages="4k", **PLAIN)
    if not x:
        return lpresults.skip("fig2_2.png", "no multireduce_seq records in cpu.json")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.5))
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


def model_by_bits(recs, model):
    """A model's prediction by sort bits from the recommendation's sweep: {bits: [(m, ns)]}."""
    out = {}
    for r in lpresults.select(recs, variant="recommend_sort_bits"):
        for k, v in r["metrics"].items():
            if k.startswith(model + "_ns.bits_"):
                out.setdefault(int(k.rsplit("_", 1)[1]), []).append((r["params"]["m"], v))
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
    if len(meas) > 4:  # every sort_bits 0..6 swept: draw the even ones (the table has them all)
        meas = {b: v for b, v in meas.items() if b % 2 == 0}
    for i, (b, pts) in enumerate(meas.items()):
        c = colours[i % len(colours)]
        ax.plot([m for m, _ in pts], [v for _, v in pts], "o-", color=c, label=f"measured, sort bits {b}")
        xs += [m for m, _ in pts]
        for key, style, what in (("sequential", ":", "sequential model"), ("overlap", "--", "overlap model")):
            sim = by_bits(recs, "simulate", "predicted_ns." + key).get(b, []) or model_by_bits(recs, key).get(b, [])
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
    b.axhspan(-20, 20, color="tab:green", alpha=0.12, label="target: within 20%")
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
    ax.axhspan(0.75, 1.0, color="tab:green", alpha=0.1, label="target >= 75% (m <= 2^16)")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="threads", ylabel="fraction of the streaming-read bandwidth",
           title=f"Multithreaded multireduce (8 B per input) vs streaming read ({best:.0f} GB/s best)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "threads.png", doc)


def model_curves(res, out):
    doc, recs = load(res, "cachesim.json")
    cal = [r for r in lpresults.select(recs, variant="simulate") if any(k.startswith("probe.chase_ns") for k in r["metrics"])]
    if not cal:
        return lpresults.skip("model_curves.png", "no simulate record with probes in cachesim.json")
    mx = cal[0]["metrics"]
    kib = lambda k: int(k.rsplit(".", 1)[1][:-3]) * 1024  # noqa: E731

    def points(prefix):
        pts = sorted((kib(k), v) for k, v in mx.items() if k.startswith(prefix + ".") and k.endswith("KiB"))
        return [p for p, _ in pts], [v for _, v in pts]
    fig, ax = plt.subplots(figsize=(8, 5))
    for prefix, style, label in (("probe.chase_ns", "o-", "pointer chase, 2 MiB pages"), ("probe.chase_ns_4k", "o--", "pointer chase, 4 KiB pages"),
                                 ("probe.update_ns", "s-", "update probe (ns per input), 2 MiB pages"),
                                 ("probe.update_ns_4k", "s--", "update probe, 4 KiB pages")):
        x, y = points(prefix)
        if x:
            ax.plot(x, y, style, color="black" if "chase" in prefix else "tab:grey", ms=4, label=label)
    levels = sorted({k.split(".")[1] for k in mx if k.startswith("latency_curve.")}, key=lambda n: (n == "memory", n))
    for lv in levels:
        x, y = points("latency_curve." + lv)
        ax.plot(x, y, "-", lw=6, alpha=0.35, label=f"model: latency of {lv} (per access it serves)")
    for tlb in sorted({k.split(".")[1] for k in mx if k.startswith("walk_curve.")}):
        x, y = points("walk_curve." + tlb)
        if x and max(y) > 0:
            ax.plot(x, y, ":", color="tab:brown", lw=3, label=f"model: page walk ({tlb} miss, 4 KiB pages)")
    x, y = points("walk_mlp_curve")
    if x:
        ax.plot(x, y, "-.", color="tab:olive", lw=1.5, label="model: walks in flight (a count, not ns; from the 4 KiB-page updates)")
    log2_axis(ax, [x for x in points("probe.chase_ns")[0]])
    ax.set_yscale("log")
    f = lambda k: mx.get(k, float("nan"))  # noqa: E731
    ax.set(xlabel="working set (bytes)", ylabel="ns per step / per input",
           title=f"Model calibration: residual rms chase {100 * f('fit.chase_rms'):.0f}%, walk {100 * f('fit.walk_rms'):.0f}%, update {100 * f('fit.update_rms'):.0f}%")
    ax.legend(fontsize=7)
    save(fig, out, "model_curves.png", doc)


def model_targets(res, out):
    doc, recs = load(res, "cachesim.json")
    sims = sorted([r for r in lpresults.select(recs, variant="simulate", sort_bits=0) if "measured_ns" in r["metrics"]],
                  key=lambda r: (r["params"]["n"], r["params"]["m"]))
    doc2, sb = load(res, "cachesim_sort_bits.json")
    if not sims and not sb:
        return lpresults.skip("model_targets.md", "no cachesim.json or cachesim_sort_bits.json records")
    lines = ["# The timing model's targets on " + (machine(doc or doc2) or "?"), "",
             "## The overlap model against the measured Alg 2.2 (target: within 20% at every m)", "",
             "| n | m | measured ns | predicted ns | error | sequential model error |", "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in sims:
        mt = r["metrics"]
        lines.append(f"| {lpresults.pow2(r['params']['n'])} | {lpresults.pow2(r['params']['m'])} | {mt['measured_ns']:.3f} | "
                     f"{mt['predicted_ns.overlap']:.3f} | {100 * mt['error.overlap']:+.0f}% | {100 * mt['error.sequential']:+.0f}% |")
    if sims:
        within = sum(abs(r["metrics"]["error.overlap"]) <= 0.2 for r in sims)
        lines += ["", f"Within 20%: {within} of {len(sims)} points; worst |error| {100 * max(abs(r['metrics']['error.overlap']) for r in sims):.0f}%."]
    host = [r for r in sb if r["params"].get("hierarchy") not in ("core2-t7300", "opteron-6274")]
    rec = {(r["params"]["n"], r["params"]["m"]): r["metrics"] for r in lpresults.select(host, variant="recommend_sort_bits")}
    meas = {}
    for r in lpresults.select(host, variant="measured_multireduce"):
        meas.setdefault((r["params"]["n"], r["params"]["m"]), {})[r["params"]["sort_bits"]] = r["ns_per_input"]
    if rec:
        lines += ["", "## Sort bits: recommended against measured best (target: equal, or within 5% of the best time)", "",
                  "| n | m | measured ns by sort bits | best | recommended (overlap) | its time / best |", "| ---: | ---: | --- | ---: | ---: | ---: |"]
        ok = 0
        for key in sorted(rec):
            mb = meas.get(key, {})
            if not mb:
                continue
            best = min(mb, key=mb.get)
            want = int(rec[key]["recommended_sort_bits.overlap"])
            ratio = mb[want] / mb[best] if want in mb else float("nan")
            ok += ratio <= 1.05
            cells = " ".join(f"{b}:{v:.2f}" for b, v in sorted(mb.items()))
            lines.append(f"| {lpresults.pow2(key[0])} | {lpresults.pow2(key[1])} | {cells} | {best} | {want} | {ratio:.2f} |")
        lines += ["", f"Met at {ok} of {len(rec)} m."]
    lpresults.write_text(os.path.join(out, "model_targets.md"), "\n".join(lines) + "\n")


def sim_speed(res, out):
    path = os.path.join(res, "sim_speed.json")
    if not os.path.exists(path):
        return lpresults.skip("sim_speed.png", "no sim_speed.json")
    doc = lpresults.load(path)
    recs = lpresults.select(lpresults.timed(doc), variant="replay")
    fig, ax = plt.subplots(figsize=(8, 5))
    xs = []
    for h in sorted({r["params"]["hierarchy"] for r in recs}):
        rs = sorted(lpresults.select(recs, hierarchy=h), key=lambda r: r["params"]["m"])
        ax.plot([r["params"]["m"] for r in rs], [r["metrics"]["simulated_accesses_per_s"] / 1e6 for r in rs], "o-", label=h)
        xs += [r["params"]["m"] for r in rs]
    for y, what in ((100, "target: 100 M/s while the buckets fit in L1 (gpu-host)"), (40, "target: 40 M/s beyond")):
        ax.axhline(y, color="grey", ls=":", lw=1)
        ax.text(min(xs), y * 1.04, what, fontsize=7, color="grey")
    log2_axis(ax, xs)
    ax.set_yscale("log")
    ax.set(xlabel="m (buckets), Alg 2.2's stream, n = " + lpresults.pow2(recs[0]["params"]["n"]), ylabel="simulated accesses per second (millions), one core",
           title="Cache simulator speed by hierarchy preset")
    ax.legend(fontsize=8)
    save(fig, out, "sim_speed.png", doc)


def threads_m(res, out):
    path = os.path.join(res, "cpu_threads.json")  # one run: its stream_read is the same run's
    if not os.path.exists(path):
        return lpresults.skip("threads_m.png", "no cpu_threads.json")
    doc = lpresults.load(path)
    recs = lpresults.timed(doc)
    pick = lambda v: {r["params"]["m"]: r["GBps"] for r in lpresults.select(recs, variant=v, pages="2m", threads=0, sort_bits=0)}  # noqa: E731
    sr, mt, ow = pick("stream_read"), pick("multireduce_mt"), pick("multireduce_owned")
    pr, pa = pick("multireduce_private"), pick("multireduce_partition")
    if not sr or not (mt or ow):
        return lpresults.skip("threads_m.png", "no all-thread multireduce_mt/owned and stream_read records")
    fig, ax = plt.subplots(figsize=(8, 5))
    for d, style, label in ((mt, "o-", "multireduce_mt (auto)"), (pr, "v:", "private buckets at every m"),
                            (pa, "^:", "radix partitioning at every m"), (ow, "s--", "multireduce_owned (threads own bucket ranges)")):
        ms = sorted(m for m in d if m in sr)
        if ms:
            ax.plot(ms, [d[m] / sr[m] for m in ms], style, label=label)
    ms = sorted(sr)
    ax.plot([m for m in ms if m <= 2 ** 16], [0.75 for m in ms if m <= 2 ** 16], "g:", lw=2, label="target >= 75% (m <= 2^16)")
    ax.plot([2 ** 20], [0.4], "g*", ms=12, label="target >= 40% at m = 2^20")
    log2_axis(ax, ms)
    ax.set(xlabel="m (buckets)", ylabel="fraction of the streaming read (same point)",
           title=f"Multithreaded multireduce, all hardware threads, n = 2^26, 2 MiB pages\n(streaming read {min(sr.values()):.0f}-{max(sr.values()):.0f} GB/s in the same run)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "threads_m.png", doc)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    res, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for f in (fig2_1, fig2_2, fig2_4, fig2_5, sim_vs_measured, table2_1, threads, model_curves, model_targets, sim_speed, threads_m):
        f(res, out)
    sim_figure(res, out, "fig2_7.png", "measured_multireduce", "Fig 2.7: sorting multireduce, actual vs simulated")
    sim_figure(res, out, "fig2_8.png", "measured_enforced", "Fig 2.8: the same with enforced sequential fetching")


if __name__ == "__main__":
    main()
