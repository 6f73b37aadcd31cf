#!/usr/bin/env python3
"""The regret of every study's auto: at each point of the regret sweep (configs/regret/, drawn by
scripts/regret_configs.py), auto's median time against the fastest other variant of the same run.

  scripts/plot_regret.py RESULTS_DIR OUT_DIR

RESULTS_DIR holds one results file per study, <study>.json or <study>.json.gz (any subset of the studies). Writes to
OUT_DIR:
  regret.md               per study: points, auto / best (median, p95, max), auto / best peer, the
                          targets met or not, the share of points where auto's plan was the best
                          variant; then per study the ten worst points and every point where auto
                          did not validate
  regret_summary.json     the same numbers, machine readable
  regret_<study>.png      auto / best against the input size, coloured by the study's most telling
                          categorical axis (with <name>.series.json, the plotted data)

The best variant: the smallest median among the validated records of kind ours or peer at the
point, auto itself, the probes, the multi-GPU variants (sharded_*) and the variants whose time is a
bound rather than the same work (BOUNDS) left out. The best peer: the same among kind peer.
Sorted search has three autos (auto_lower, auto_upper, auto_complete), each judged against the
variants that answer its search (ANSWERS). Targets, at points whose best takes >= 50 us: p95 of
auto / best <= 1.10, max <= 1.5, auto <= 1.05 x the best peer; at points whose best takes less:
auto <= best + 5 us; and auto validates at every point (a point where it did not is a failure,
listed). Needs matplotlib (Debian's python3-matplotlib, /usr/bin/python3).
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lpresults  # noqa: E402

USAGE = "usage: scripts/plot_regret.py RESULTS_DIR OUT_DIR"

STUDIES = ["multireduce", "multiscan", "histogram", "scatter", "patched", "join", "decimal", "sortedsearch"]

# The autos of a study (default: one, named auto).
AUTOS = {"sortedsearch": ["auto_lower", "auto_upper", "auto_complete"]}
# Sorted search: which variants answer each auto's search. A variant answers the lower bound if its
# name ends in _lower (mergepath_lower, windowed_lower, binary_search_lower) or it is Thrust's
# lower_bound or CUB's search for sorted needles (built with CCCL 3.5 and later); the same for the
# upper bound and the complete search. The _unsorted variants search
# shuffled needles (another input) and the merges write keys (another output): neither answers.
ANSWERS = {
    "auto_lower": lambda v: v.endswith("_lower") or v in ("thrust_lower_bound", "cub_lower_bound_sorted"),
    "auto_upper": lambda v: v.endswith("_upper") or v in ("thrust_upper_bound", "cub_upper_bound_sorted"),
    "auto_complete": lambda v: v.endswith("_complete"),
}
# Variants whose time leaves out part of the work (their input arrives sorted, the sort untimed):
# lower bounds, never the best a user could call (as scripts/lpresults.py's auto_table leaves them out).
BOUNDS = {
    "multireduce": {"thrust_reduce_by_key_sorted", "thrust_scan_by_key_sorted"},
    "multiscan": {"thrust_scan_by_key_sorted"},
    "join": {"smj_presorted"},
}
# The categorical axis the points are coloured by, and the size on the x axis (summed).
COLOUR_AXIS = {"histogram": "input", "patched": "patches", "sortedsearch": "keys", "join": "distribution"}
SIZES = {"join": ("r", "s"), "sortedsearch": ("a_size", "b_size")}
X_LABEL = {
    "multireduce": "n, label-value pairs", "multiscan": "n, label-value pairs", "histogram": "n, samples",
    "scatter": "n, labels (scatter: inputs, gather: results)", "patched": "n, values in the column", "join": "|R| + |S|, tuples",
    "decimal": "n, sales rows", "sortedsearch": "|A| + |B|, keys",
}
MARKERS = {"auto": "o", "auto_lower": "o", "auto_upper": "^", "auto_complete": "s"}

SMALL_MS = 0.050        # points whose best takes less are judged on the absolute slack
SMALL_SLACK_MS = 0.005  # auto <= best + 5 us there
P95_LIMIT, MAX_LIMIT, PEER_LIMIT = 1.10, 1.5, 1.05
WORST = 10


def ok(r):
    return r.get("status") == "ok" and r.get("validation") == "pass" and bool(r.get("time_ms"))


def median(r):
    return r["time_ms"]["median"]


def candidate(study, auto, r):
    """Whether r may be the best variant against `auto`."""
    v = r["variant"]
    if r.get("kind") not in ("ours", "peer") or v == auto or v.startswith("sharded_") or v in BOUNDS.get(study, ()):
        return False
    if study == "sortedsearch":
        return not v.startswith("auto_") and ANSWERS[auto](v)
    return True


def plan_of(r):
    """auto's plan: the shared metric `plan`; `chose` in the join's records and in sorted-search
    results from before its auto took the shared record."""
    m = r.get("metrics") or {}
    p = m.get("plan", m.get("chose"))
    return p if isinstance(p, str) else None


def plan_is(plan, best, auto):
    """auto's plan names the best variant (sorted search's plans name the family: mergepath ->
    mergepath_lower for auto_lower, thrust -> thrust_lower_bound)."""
    if plan == best:
        return True
    if not auto.startswith("auto_"):
        return False
    bound = auto[len("auto_"):]
    return best in (f"{plan}_{bound}", f"{plan}_{bound}_bound")


def quantile(xs, q):
    """Linear interpolation between the closest ranks (numpy's default); None for no values."""
    s = sorted(xs)
    if not s:
        return None
    pos = q * (len(s) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def stats(xs):
    return {"median": quantile(xs, 0.5), "p95": quantile(xs, 0.95), "max": max(xs) if xs else None, "points": len(xs)}


def size_of(study, params):
    return sum(params.get(k, 0) for k in SIZES.get(study, ("n",)))


def category(study, params):
    return str(params.get(COLOUR_AXIS.get(study, "distribution"), "-"))


def analyse(study, doc, auto):
    """The row of one auto: its entries (measured points), failures and the counts."""
    # One record per (point, variant): where parts of a run overlap (a part cut short marks the rest
    # of its points not run, another part measures them), the measured record.
    chosen = {}
    for r in doc["records"]:
        k = (json.dumps(r["params"], sort_keys=True), r["variant"])
        if k not in chosen or (r.get("status") == "ok" and chosen[k].get("status") != "ok"):
            chosen[k] = r
    points = {}
    for (key, _), r in chosen.items():
        points.setdefault(key, []).append(r)
    entries, failures, not_measured, no_best, seen = [], [], 0, 0, 0
    for key in sorted(points):
        rs = points[key]
        a = next((r for r in rs if r["variant"] == auto), None)
        if a is None:
            continue
        seen += 1
        cands = [r for r in rs if candidate(study, auto, r) and ok(r)]
        if not ok(a) and "not run" in (a.get("note") or ""):
            continue  # an interrupted run: neither measured nor failed
        if not ok(a):
            if a.get("status") == "skipped" and not cands:
                not_measured += 1  # nothing ran here (a point no variant takes)
                continue
            failures.append({"params": a["params"], "status": a.get("status"), "validation": a.get("validation"),
                             "note": a.get("note", ""), "x": size_of(study, a["params"]), "category": category(study, a["params"])})
            continue
        if not cands:
            no_best += 1
            continue
        best = min(cands, key=median)
        peers = [r for r in cands if r.get("kind") == "peer"]
        peer = min(peers, key=median) if peers else None
        e = {"params": a["params"], "x": size_of(study, a["params"]), "category": category(study, a["params"]),
             "auto_ms": median(a), "best": best["variant"], "best_ms": median(best), "ratio": median(a) / median(best),
             "best_peer": peer["variant"] if peer else None, "peer_ms": median(peer) if peer else None,
             "peer_ratio": median(a) / median(peer) if peer else None, "plan": plan_of(a)}
        entries.append(e)
    return {"study": study, "auto": auto, "points": seen, "measured": len(entries), "not_measured": not_measured,
            "no_best": no_best, "entries": entries, "failures": failures}


def target(value, limit, points):
    """A target: the value measured (None where no point was in its regime: met) against its limit."""
    return {"value": value, "limit": limit, "points": points, "met": value is None or value <= limit}


def summarise(row):
    es = row["entries"]
    big = [e for e in es if e["best_ms"] >= SMALL_MS]
    small = [e for e in es if e["best_ms"] < SMALL_MS]
    big_peer = [e["peer_ratio"] for e in big if e["peer_ratio"] is not None]
    planned = [e for e in es if e["plan"] is not None]
    matches = sum(1 for e in planned if plan_is(e["plan"], e["best"], row["auto"]))
    slack = [e["auto_ms"] - e["best_ms"] for e in small]
    worst = sorted(es, key=lambda e: -e["ratio"])[:WORST]
    return {
        "study": row["study"], "auto": row["auto"], "points": row["points"], "measured": row["measured"],
        "not_measured": row["not_measured"], "no_best": row["no_best"],
        "ratio": stats([e["ratio"] for e in es]),
        "peer_ratio": stats([e["peer_ratio"] for e in es if e["peer_ratio"] is not None]),
        "targets": {
            "p95_at_large": target(quantile([e["ratio"] for e in big], 0.95), P95_LIMIT, len(big)),
            "max_at_large": target(max((e["ratio"] for e in big), default=None), MAX_LIMIT, len(big)),
            "peer_at_large": target(max(big_peer, default=None), PEER_LIMIT, len(big_peer)),
            "slack_ms_at_small": target(max(slack, default=None), SMALL_SLACK_MS, len(small)),
            "validated": {"value": len(row["failures"]), "limit": 0, "points": row["points"], "met": not row["failures"]},
        },
        "plan": {"points": len(planned), "matches": matches, "share": matches / len(planned) if planned else None},
        "worst": [{k: e[k] for k in ("params", "auto_ms", "best", "best_ms", "ratio", "best_peer", "peer_ms", "plan")} for e in worst],
        "failures": [{k: f[k] for k in ("params", "status", "validation", "note")} for f in row["failures"]],
    }


def plural(k, what):
    return f"{k} {what}" + ("" if k == 1 else "s")


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def cell(t, digits=3):
    if t["points"] == 0:
        return "- (no point)"
    return ("yes" if t["met"] else "**no**") + f" ({fmt(t['value'], digits)})"


def show(v):
    if isinstance(v, bool) or not isinstance(v, int):
        return str(v)
    return lpresults.pow2(v) if v >= 4 else str(v)


def point_text(params, keys):
    return ", ".join(f"{k} = {show(params[k])}" for k in keys if k in params) or "-"


def varying(rows):
    """The params that differ between a study's points (the others are the axes left at their defaults)."""
    ps = [e["params"] for r in rows for e in r["entries"] + r["failures"]]
    first = ["n", "r", "s", "a_size", "b_size", "m", "bins"]
    keys = sorted({k for p in ps for k in p}, key=lambda k: (first.index(k) if k in first else len(first), k))
    return [k for k in keys if len({json.dumps(p.get(k)) for p in ps}) > 1]


def markdown(rows, sums, runs):
    head = ["study", "auto", "points", "measured", "auto/best median", "p95", "max", "auto/peer median", "p95", "max",
            f"p95 <= {P95_LIMIT:.2f} (best >= 50 us)", f"max <= {MAX_LIMIT:.1f} (best >= 50 us)",
            f"<= {PEER_LIMIT:.2f} x best peer (best >= 50 us)", "<= best + 5 us (best < 50 us), slack ms", "validated", "plan = best"]
    table = []
    for s in sums:
        t, r, pr, pl = s["targets"], s["ratio"], s["peer_ratio"], s["plan"]
        table.append([s["study"], s["auto"], str(s["points"]), str(s["measured"]), fmt(r["median"]), fmt(r["p95"]), fmt(r["max"]),
                      fmt(pr["median"]), fmt(pr["p95"]), fmt(pr["max"]), cell(t["p95_at_large"]), cell(t["max_at_large"]),
                      cell(t["peer_at_large"]), cell(t["slack_ms_at_small"], 4),
                      "yes" if t["validated"]["met"] else f"**no** ({plural(t['validated']['value'], 'failure')})",
                      "-" if pl["share"] is None else f"{pl['matches']}/{pl['points']} ({100 * pl['share']:.0f}%)"])
    out = ["# Regret sweep: auto against the best variant at random points", "",
           "Each study's auto at every point of the regret sweep (`configs/regret/`, drawn by `scripts/regret_configs.py`: random "
           "points outside the sweeps its rules were fitted to), its median time against the fastest other variant at the same "
           "point of the same run (ours or a peer, validated; " + "; ".join(f"{s}: not {', '.join(sorted(v))}" for s, v in sorted(BOUNDS.items()))
           + ", whose time leaves out a sort) and against the fastest peer. Sorted search: auto_lower, auto_upper and "
           "auto_complete each against the variants answering the same search. Targets: where the best takes >= 50 us, p95 of "
           f"auto / best <= {P95_LIMIT:.2f}, max <= {MAX_LIMIT:.1f} and auto <= {PEER_LIMIT:.2f} x the best peer; where it takes "
           "less, auto <= best + 5 us; auto validates everywhere. Points: where auto has a record; measured: where it validated "
           "and another variant did. Plan = best: the points where auto's reported plan (metrics `plan` or `chose`) is the best "
           "variant.", "", "Runs: " + "; ".join(runs) + ".", "", lpresults.md_table(head, table)]
    by_study = {}
    for row in rows:
        by_study.setdefault(row["study"], []).append(row)
    for row, s in zip(rows, sums):
        keys = varying(by_study[row["study"]])
        worst = [[point_text(w["params"], keys), f"{w['auto_ms']:.4f}", w["best"], f"{w['best_ms']:.4f}", f"{w['ratio']:.3f}",
                  f"{1000 * (w['auto_ms'] - w['best_ms']):+.1f}", w["plan"] or "-"] for w in s["worst"]]
        out += [f"## {row['study']}, {row['auto']}: the {plural(len(worst), 'worst point')}", ""]
        out.append(lpresults.md_table(["point", "auto ms", "best variant", "its ms", "auto / best", "auto - best (us)", "auto's plan"], worst)
                   if worst
                   else "No measured point.\n")
        if s["failures"]:
            out += [f"### {row['study']}, {row['auto']}: {plural(len(s['failures']), 'point')} where auto did not validate", ""]
            out.append(lpresults.md_table(["point", "status", "validation", "note"],
                                          [[point_text(f["params"], keys), str(f["status"]), str(f["validation"]),
                                            (f["note"] or "-").replace("|", "/").replace("\n", " ")] for f in s["failures"]]))
    return "\n".join(out)


def figure(plt, study, rows, gpu, path):
    fig, ax = plt.subplots(figsize=(11, 5.5))
    cats = sorted({e["category"] for r in rows for e in r["entries"] + r["failures"]})
    colours = {c: plt.cm.tab10(i % 10) for i, c in enumerate(cats)}
    ratios = [e["ratio"] for r in rows for e in r["entries"]]
    top = max([2.0] + [x * 1.3 for x in ratios])
    low = min([0.8] + [x / 1.2 for x in ratios])
    axis = COLOUR_AXIS.get(study, "distribution")
    for r in rows:
        tag = f", {r['auto']}" if len(rows) > 1 else ""
        for c in cats:
            es = [e for e in r["entries"] if e["category"] == c]
            if es:
                ax.scatter([e["x"] for e in es], [e["ratio"] for e in es], s=18, color=colours[c], marker=MARKERS.get(r["auto"], "o"),
                           alpha=0.8, label=f"{axis} {c}{tag}")
        if r["failures"]:
            ax.scatter([f["x"] for f in r["failures"]], [top / 1.1] * len(r["failures"]), s=40, color="red", marker="x",
                       label=f"auto did not validate{tag} (drawn at the top)")
    for y, style, label in ((1.0, dict(color="black", lw=1), "1.0: auto as fast as the best"),
                            (P95_LIMIT, dict(color="tab:orange", ls="--", lw=1), f"{P95_LIMIT:.1f}: p95 target"),
                            (MAX_LIMIT, dict(color="tab:red", ls="--", lw=1), f"{MAX_LIMIT:.1f}: max target")):
        ax.axhline(y, label=label, **style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(low, top)
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)
             if low <= t <= top]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel(f"{X_LABEL.get(study, 'n')} (log scale)")
    ax.set_ylabel("auto's time / the best other variant's time (medians)")
    measured = len({json.dumps(e["params"], sort_keys=True) for r in rows for e in r["entries"]})
    fails = sum(len(r["failures"]) for r in rows)
    autos = ", ".join(r["auto"] for r in rows)
    ax.set_title(f"{study}: {autos} against the best other variant at {measured} regret points"
                 + (f", {plural(fails, 'failure')}" if fails else "") + f"\n{gpu}")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    lpresults.write_figure(fig, path, dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit(USAGE)
    src, out = sys.argv[1], sys.argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_regret.py: matplotlib is missing (install Debian's python3-matplotlib, run with /usr/bin/python3)", file=sys.stderr)
        sys.exit(2)
    if not os.path.isdir(src):
        return lpresults.skip(out, f"{src} not found")
    docs = {}
    for s in STUDIES:
        path = os.path.join(src, f"{s}.json")
        if not os.path.exists(path):
            path += ".gz"
        if os.path.exists(path):
            doc = lpresults.load(path)
            if doc["meta"].get("study") != s:
                sys.exit(f"{path}: not a {s} study result")
            docs[s] = doc
    if not docs:
        return lpresults.skip(out, f"no <study>.json(.gz) of {', '.join(STUDIES)} in {src}")
    os.makedirs(out, exist_ok=True)
    rows, runs, gpus = [], [], {}
    for s, doc in docs.items():
        gpus[s] = lpresults.gpu_label(doc)
        here = [analyse(s, doc, a) for a in AUTOS.get(s, ["auto"])]
        here = [r for r in here if r["points"]]
        meta = doc["meta"]
        runs.append(f"`{s}.json` ({gpus[s]}, {str(meta.get('git_commit', '?'))[:7]}, {str(meta.get('date', '?'))[:10]}"
                    + ("" if here else ", no auto record") + ")")
        rows += here
    sums = [summarise(r) for r in rows]
    lpresults.write_text(os.path.join(out, "regret.md"), markdown(rows, sums, runs))
    summary = {"targets": {"small_ms": SMALL_MS, "small_slack_ms": SMALL_SLACK_MS, "p95": P95_LIMIT, "max": MAX_LIMIT, "peer": PEER_LIMIT},
               "gpu": gpus, "bounds_left_out": {s: sorted(v) for s, v in BOUNDS.items()},
               "rows": {(s["study"] if s["auto"] == "auto" else f"{s['study']}/{s['auto']}"): s for s in sums}}
    with open(os.path.join(out, "regret_summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.join(out, 'regret_summary.json')}")
    for s in docs:
        here = [r for r in rows if r["study"] == s]
        if any(r["entries"] or r["failures"] for r in here):
            figure(plt, s, here, gpus[s], os.path.join(out, f"regret_{s}.png"))
        else:
            lpresults.skip(os.path.join(out, f"regret_{s}.png"), "no measured point")


if __name__ == "__main__":
    main()
