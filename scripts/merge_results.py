#!/usr/bin/env python3
"""Merge result files of one study, run in parts (e.g. one device call each), into one file.

usage: merge_results.py OUT.json[.gz] IN.json[.gz] ...

The records are concatenated in order; meta and ceilings come from the first file, and every
part's meta is kept under "parts" so nothing about a run is lost. A matching OUT.csv is not
written: the JSON is the results contract (docs/results-format.md); `bench` writes CSV per run. An OUT
ending in .gz is written gzip-compressed (the regret sweeps' files, a tenth of the size), which the
scripts read as they read JSON. Records of parts that overlap are all kept; readers prefer a
measured record over one marked not run.
Refuses files of different studies or schema versions, in one line, exit 2.
"""
import gzip
import json
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    out, ins = sys.argv[1], sys.argv[2:]
    docs = []
    for p in ins:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            docs.append(json.load(f))
    first = docs[0]
    for p, d in zip(ins, docs):
        if d.get("schema_version") != first.get("schema_version") or d["meta"].get("study") != first["meta"].get("study"):
            print(f"merge_results: {p}: study or schema_version differs from {ins[0]}", file=sys.stderr)
            sys.exit(2)
    merged = dict(first)
    merged["records"] = [r for d in docs for r in d["records"]]
    merged["parts"] = [{"file": os.path.basename(p), "meta": d["meta"], "ceilings": d.get("ceilings")} for p, d in zip(ins, docs)]
    tmp = out + ".tmp"
    with (gzip.open(tmp, "wt") if out.endswith(".gz") else open(tmp, "w")) as f:
        json.dump(merged, f, indent=None if out.endswith(".gz") else 1)
    os.replace(tmp, out)
    print(f"wrote {out}: {len(merged['records'])} records from {len(ins)} parts")


if __name__ == "__main__":
    main()
