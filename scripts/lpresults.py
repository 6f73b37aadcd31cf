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
