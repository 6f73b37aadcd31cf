#!/usr/bin/env python3
"""A recheck config from a regret run: the points where auto took over RATIO times the best variant
(and the best took at least MIN_US), with the run's variants, to rerun after a change made on what
those points showed. A recheck is not a judgement (the change was made on its points): the next
judging draw is (docs/auto.md).

  scripts/regret_recheck.py RESULTS.json[.gz] OUT.json [--ratio 1.3] [--min-us 20] [--note TEXT]

The points and the seed come from RESULTS (its meta.config), each written as that config wrote it;
the best as scripts/plot_regret.py defines it. Exit 1 where no point qualifies (nothing written), 2
on a bad argument or results without their config, with one line naming it.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lpresults  # noqa: E402
import plot_regret  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("out")
    ap.add_argument("--ratio", type=float, default=1.3)
    ap.add_argument("--min-us", type=float, default=20.0)
    ap.add_argument("--note", default="")
    a = ap.parse_args()
    try:
        doc = lpresults.load(a.results)
        cfg = doc["meta"]["config"]
        study = cfg["study"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"regret_recheck: {a.results}: not a results file with its config ({e})", file=sys.stderr)
        return 2
    # Each point as the config wrote it: a record's params leave out some keys at their defaults and
    # add the harness's knobs, so the config point that agrees with it on every key both hold.
    def config_point(params):
        for q in cfg.get("points", []):
            if all(params.get(k, v) == v for k, v in q.items()):
                return q
        return params
    points = []
    for auto in plot_regret.AUTOS.get(study, ["auto"]):
        for e in plot_regret.analyse(study, doc, auto)["entries"]:
            q = config_point(e["params"])
            if e["ratio"] > a.ratio and e["best_ms"] * 1000 >= a.min_us and q not in points:
                points.append(q)
    if not points:
        print(f"regret_recheck: {a.results}: no point where auto took over {a.ratio}x the best (best >= {a.min_us} us)", file=sys.stderr)
        return 1
    out = {"study": study,
           "description": f"The points of {os.path.basename(a.results)} (seed {cfg.get('seed')}) where auto took over {a.ratio}x the best "
                          f"variant and the best took {a.min_us:g} us or more, rerun on the changed rules. Not a judgement: the next judging draw is."
                          + (f" {a.note}" if a.note else ""),
           "seed": cfg.get("seed"), "variants": cfg.get("variants", "all"), "points": points}
    for k in ("repetitions", "validate", "cache"):
        if k in cfg:
            out[k] = cfg[k]
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.out)
    print(f"regret_recheck: {len(points)} points into {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
