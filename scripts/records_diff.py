#!/usr/bin/env python3
"""Are two results files the same record set? Used to check that a refactor of a study (its port to
the study framework, a merged kernel) changed nothing a user can see but the timings.

    scripts/records_diff.py BEFORE.json AFTER.json [BEFORE2.json AFTER2.json ...]

A record is keyed by (study, variant, params); for each key the kind, status, validation, note (the
skip reason or the failure) and the metric reference_checksum must agree, and no key may appear on
one side only. Prints one line per file pair and one per difference; exit 1 on any difference.
"""
import json
import sys

COMPARED = ("kind", "status", "validation", "note")


def records(path):
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for r in doc["records"]:
        key = (r["study"], r["variant"], json.dumps(r["params"], sort_keys=True))
        if key in out:
            raise SystemExit(f"{path}: record {key} appears twice")
        seen = {k: r.get(k) for k in COMPARED}
        seen["reference_checksum"] = (r.get("metrics") or {}).get("reference_checksum")
        out[key] = seen
    return out


def diff(before_path, after_path):
    before, after = records(before_path), records(after_path)
    problems = []
    for key in sorted(before.keys() | after.keys()):
        b, a = before.get(key), after.get(key)
        name = f"{key[0]}/{key[1]} {key[2]}"
        if b is None or a is None:
            problems.append(f"  only in {'AFTER' if b is None else 'BEFORE'}: {name}")
            continue
        for field in b:
            if b[field] != a[field]:
                problems.append(f"  {name}: {field} {b[field]!r} -> {a[field]!r}")
    verdict = "same" if not problems else f"{len(problems)} DIFFERENCES"
    print(f"{before_path} vs {after_path}: {len(before)} / {len(after)} records, {verdict}")
    for p in problems[:50]:
        print(p)
    if len(problems) > 50:
        print(f"  ... {len(problems) - 50} more")
    return not problems


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    ok = True
    for i in range(0, len(argv), 2):
        ok &= diff(argv[i], argv[i + 1])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
