"""Reading result files (the results contract of ARCHITECTURE.md) for the plotting scripts."""
import json
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema_version") != 1:
        sys.exit(f"{path}: unsupported schema_version {doc.get('schema_version')}")
    return doc


def timed(doc):
    """Records that ran and validated (a figure never shows an unchecked number)."""
    return [r for r in doc["records"] if r["status"] == "ok" and r["time_ms"] and r["validation"] == "pass"]


def gpu_label(doc):
    g = doc["meta"]["gpu"]
    return g.get("name", "no GPU") if g.get("present") else "no GPU"


def pow2(x):
    """'2^k' for powers of two, else the number."""
    return f"2^{x.bit_length() - 1}" if x > 0 and x & (x - 1) == 0 else str(x)


def select(recs, **want):
    """Records whose params match: a scalar means equal, a set/list/tuple means one of."""
    def ok(p, k, v):
        return p.get(k) in v if isinstance(v, (set, frozenset, list, tuple)) else p.get(k) == v
    return [r for r in recs if all(ok(r["params"], k, v) for k, v in want.items())]


def copy_fraction(doc, r):
    """Fraction of the copy ceiling (GB/s of minimal traffic / copy GB/s), or None."""
    f = r.get("fraction_of_copy_ceiling")
    ceil = doc.get("ceilings", {}).get("copy_GBps")
    if f is None and r.get("GBps") and ceil:
        f = r["GBps"] / ceil
    return f


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


def save_figure(fig, path, **savefig_args):
    """Saves the PNG and, beside it, <name>.series.json: the plotted data (figure_series)."""
    import json as _json
    fig.savefig(path, **savefig_args)
    base = path[:-4] if path.endswith(".png") else path
    with open(base + ".series.json", "w") as f:
        _json.dump(figure_series(fig), f, indent=0, sort_keys=True)
        f.write("\n")
