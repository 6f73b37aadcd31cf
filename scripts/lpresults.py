"""Reading result files (the results contract, docs/results-format.md) for the plotting scripts,
and the helpers those scripts share for drawing and writing what they make (one copy, so that every
study's figures and tables come out alike)."""
import gzip
import json
import os
import sys


# The folder of a machine's results that holds the regret sweeps (scripts/plot_regret.py): the study
# scripts that read every file below a machine's folder leave it out.
REGRET_DIR = "regret"


def pyplot():
    """matplotlib.pyplot on the Agg backend; where matplotlib is missing, one line naming what to
    install, and exit 2 (not a traceback)."""
    try:
        import matplotlib
    except ImportError:
        print(f"{os.path.basename(sys.argv[0])}: matplotlib is missing for {sys.executable} "
              "(install Debian's python3-matplotlib and run with /usr/bin/python3)", file=sys.stderr)
        raise SystemExit(2)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def load(path):
    """A results file, JSON or gzip-compressed JSON (.json.gz: the regret sweeps' many records)."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        doc = json.load(f)
    if doc.get("schema_version") != 1:
        sys.exit(f"{path}: unsupported schema_version {doc.get('schema_version')}")
    return doc


def open_study_result(usage, study):
    """The (doc, validated records, output folder) of a plotting script's `RESULTS.json OUT_DIR`
    arguments, the folder created; None (one line on stderr) when the file is missing, so the other
    figures still come; exit with `usage` on wrong arguments, or when the file is another study's."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    src, out = sys.argv[1], sys.argv[2]
    if not os.path.exists(src):
        skip(out, f"{src} not found")
        return None
    doc = load(src)
    if doc["meta"].get("study") != study:
        sys.exit(f"{src}: not a {study} study result")
    os.makedirs(out, exist_ok=True)
    return doc, timed(doc), out


def timed(doc):
    """Records that ran and validated (a figure never shows an unchecked number)."""
    return [r for r in doc["records"] if r["status"] == "ok" and r["time_ms"] and r["validation"] == "pass"]


def gpu_label(doc):
    g = doc["meta"]["gpu"]
    return g.get("name", "no GPU") if g.get("present") else "no GPU"


def pow2(x):
    """'2^k' for powers of two, else the number."""
    return f"2^{x.bit_length() - 1}" if x > 0 and x & (x - 1) == 0 else str(x)


def load_file(folder, name):
    """(doc, validated records) of folder/name, or (None, []) where there is no such file (a study's
    script draws what the folder holds). doc["_file"] keeps the name for the script's messages."""
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None, []
    doc = load(path)
    doc["_file"] = name
    return doc, timed(doc)


def select(recs, **want):
    """Records whose params match: a scalar means equal, a set/list/tuple means one of. The key
    `variant` is matched against the record's variant name (no benchmark has a param of that name),
    so that one call filters on both."""
    def ok(r, k, v):
        got = r["variant"] if k == "variant" else r["params"].get(k)
        return got in v if isinstance(v, (set, frozenset, list, tuple)) else got == v
    return [r for r in recs if all(ok(r, k, v) for k, v in want.items())]


def copy_fraction(doc, r):
    """Fraction of the copy ceiling (GB/s of minimal traffic / copy GB/s), or None."""
    f = r.get("fraction_of_copy_ceiling")
    ceil = doc.get("ceilings", {}).get("copy_GBps")
    if f is None and r.get("GBps") and ceil:
        f = r["GBps"] / ceil
    return f


def best_fractions(doc, recs, kinds, leave_out=()):
    """The points of a summary figure: per series, distribution and m, the record that reaches the
    largest fraction of the copy ceiling (the first one on a tie), as a copy of it with
    variant = the series, winner = its own variant and frac = the fraction. kinds maps a record's
    kind ("ours", "peer", "cpu") to its series; other kinds, the variants in leave_out and records
    without a fraction are not drawn."""
    best = {}
    for r in recs:
        f, series = copy_fraction(doc, r), kinds.get(r["kind"])
        if f is None or series is None or r["variant"] in leave_out:
            continue
        k = (series, r["params"]["distribution"], r["params"]["m"])
        if k not in best or f > best[k]["frac"]:
            best[k] = dict(r, variant=series, winner=r["variant"], frac=f)
    return list(best.values())


def name_winners(ax, pts, series, **annotate_args):
    """Names the winning variant beside the points of one series of best_fractions, along m, only
    where the winner changes: a name at every point would cover the lines."""
    last = None
    for p in sorted((p for p in pts if p["variant"] == series), key=lambda p: p["params"]["m"]):
        if p["winner"] != last:
            ax.annotate(p["winner"], (p["params"]["m"], p["frac"]), textcoords="offset points", **annotate_args)
        last = p["winner"]


def variant_style(table):
    """The style function of lines keyed by variant (see plot_multireduce.lines) from a table
    {variant: (label, colour, marker, line style)}; a variant missing from it is drawn grey under its
    own name. The table is read at each call, so entries added to it later count."""
    def style(k, i, count):
        label, colour, marker, ls = table.get(k, (k, "tab:gray", ".", "-"))
        return dict(label=label, color=colour, marker=marker, ls=ls)
    return style


def skip(out, why):
    """The one line on stderr for a figure or table not written: a run that lacks its records is no
    error, the other figures still come."""
    print(f"{out}: skipped ({why})", file=sys.stderr)


def md_table(head, rows):
    """A Markdown table: the header cells, the rule, one line per row of cell strings."""
    return ("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
            + "".join("| " + " | ".join(row) + " |\n" for row in rows))


def write_text(path, text):
    """Writes a table (or any text output) and says so on stdout, as for the figures."""
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}")


def figure_series(fig):
    """What a figure shows, as data: per axes its title and labels, each line's and scatter's
    points, each bar's height, and the figure's own texts. `figures.py --check` compares this, not
    pixels, with what the committed results give now."""
    axes = []
    for ax in fig.get_axes():
        a = {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(), "lines": [], "points": [], "bars": []}
        for ln in ax.get_lines():
            xs, ys = ln.get_xdata(), ln.get_ydata()
            a["lines"].append({"label": str(ln.get_label()), "x": [_num(v) for v in xs], "y": [_num(v) for v in ys]})
        for c in ax.collections:
            offsets = c.get_offsets()
            if len(offsets):
                a["points"].append({"label": str(c.get_label()), "xy": [[_num(p[0]), _num(p[1])] for p in offsets]})
        for p in ax.patches:
            if hasattr(p, "get_height") and hasattr(p, "get_x"):
                a["bars"].append([_num(p.get_x()), _num(p.get_height())])
        axes.append(a)
    texts = [t.get_text() for t in fig.texts]
    sup = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    return {"suptitle": sup, "texts": texts, "axes": axes}


def _num(v):
    try:
        f = float(v)
        return f if f == f else None  # NaN (a gap in a line) as null
    except (TypeError, ValueError):
        return str(v)


def label_short_log_axes(fig):
    """A log y axis spanning little more than a decade shows one labelled tick or none: label its
    2x and 5x ticks too, so that a reader can read the values off it (axes given their own ticks
    are left as they are)."""
    from matplotlib import ticker
    for ax in fig.get_axes():
        if ax.get_yscale() != "log":
            continue
        lo, hi = ax.get_ylim()
        if lo > 0 and hi > lo and sum(lo <= t <= hi for t in ax.get_yticks()) < 2:
            ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=(2.0, 5.0)))
            ax.yaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.tick_params(axis="y", which="minor", labelsize="small")


def save_figure(fig, path, **savefig_args):
    """Saves the PNG and, beside it, <name>.series.json: the plotted data (figure_series)."""
    label_short_log_axes(fig)
    fig.savefig(path, **savefig_args)
    base = path[:-4] if path.endswith(".png") else path
    with open(base + ".series.json", "w") as f:
        json.dump(figure_series(fig), f, indent=0, sort_keys=True)
        f.write("\n")


def write_figure(fig, path, **savefig_args):
    """save_figure, then frees the figure (a script draws many; pyplot keeps each open until closed)
    and says where it went."""
    import matplotlib.pyplot as plt  # here: reading results must not need matplotlib
    save_figure(fig, path, **savefig_args)
    plt.close(fig)
    print(f"wrote {path}")


def study_cli(study, usage):
    """A plotting script's command line `RESULTS.json [RESULTS.json ...] OUT_DIR`: (docs, out) with
    OUT_DIR created, or None when no input exists (each skipped with one line); the usage text
    when the arguments are too few."""
    if len(sys.argv) < 3:
        sys.exit(usage)
    srcs, out = sys.argv[1:-1], sys.argv[-1]
    docs = load_study_inputs(srcs, out, study)
    if not docs:
        return None
    os.makedirs(out, exist_ok=True)
    return docs, out


def load_study_inputs(srcs, out, study):
    """The results documents of `study` among the files `srcs` (a plotting script's inputs): a
    missing file is skipped with one line (skip), another study's file exits naming it."""
    docs = []
    for src in srcs:
        if not os.path.exists(src):
            skip(out, f"{src} not found")
            continue
        doc = load(src)
        if doc["meta"].get("study") != study:
            sys.exit(f"{src}: not a {study} study result")
        docs.append(doc)
    return docs



def _point_order(varying):
    """A sort key for points by the params that vary across a run: numbers before names, each in order."""
    def key(rs):
        vals = (_num(rs[0]["params"].get(k)) for k in varying)
        return [(0, v, "") if isinstance(v, float) else (1, 0.0, str(v)) for v in vals]
    return key


def auto_table(results, files, study, out_path, leave_out=(), limit=1.05):
    """auto.md: at every point where `auto` ran, its median time against the fastest other GPU
    variant measured at the same point in the same run (ours or a peer: a user would call either),
    in each of the runs `files` (paths below the folder `results`: the study's default sweeps and
    probes; a missing one is passed over). Points beyond `limit` x the best are marked. Points are
    compared only within a run, never across runs (other commits, other clocks). leave_out:
    variants whose time is a bound, not the same work (a pre-sorted input's scan). Skipped (one
    line) where no run has auto."""
    median = lambda r: r["time_ms"]["median"]  # noqa: E731
    rows, runs = [], []
    for path in (os.path.join(results, f) for f in files):
        if not os.path.exists(path):
            continue
        doc = load(path)
        if doc.get("meta", {}).get("study") != study:
            sys.exit(f"{path}: not a {study} study result")
        recs = [r for r in timed(doc) if r.get("kind") != "cpu" and r["variant"] not in leave_out]
        points = {}
        for r in recs:
            points.setdefault(tuple(sorted((k, str(v)) for k, v in r["params"].items())), []).append(r)
        autos = [rs for rs in points.values() if any(r["variant"] == "auto" for r in rs) and len(rs) > 1]
        if not autos:
            continue
        keys = sorted({k for rs in autos for r in rs for k in r["params"]})
        varying = [k for k in keys if len({str(rs[0]["params"].get(k)) for rs in autos}) > 1]
        name = os.path.relpath(path, results)
        runs.append(f"`{name}` ({doc['meta'].get('git_commit', '?')[:7]}, {doc['meta'].get('date', '?')[:10]})")
        for rs in sorted(autos, key=_point_order(varying)):
            auto = next(r for r in rs if r["variant"] == "auto")
            best = min((r for r in rs if r["variant"] != "auto"), key=median)
            ratio = median(auto) / median(best)
            point = ", ".join(f"{k} = {pow2(v) if isinstance(v, int) else v}" for k in varying for v in [auto["params"].get(k)])
            rows.append([name, point or "-", f"{median(auto):.4f}", best["variant"], f"{median(best):.4f}",
                         f"{ratio:.3f}" + ("" if ratio <= limit else f" (over {limit:.2f})")])
    if not rows:
        return skip(out_path, f"no {study} run with auto")
    over = sum(1 for r in rows if "over" in r[-1])
    write_text(out_path, f"# {study}: auto against the best variant at every point\n\n"
                         f"Each run's points where auto ran, its median against the fastest other GPU variant of the same run "
                         f"(ours or a peer{'; not ' + ', '.join(leave_out) + ', whose time is a bound' if leave_out else ''}). {len(rows)} points, {over} over {limit:.2f}x. Runs: {'; '.join(runs)}.\n\n"
                         + md_table(["run", "point", "auto ms", "best other", "its ms", "auto / best"], rows))
