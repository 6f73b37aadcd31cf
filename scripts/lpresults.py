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
