#!/usr/bin/env bash
# The regret sweep's scripts: scripts/regret_configs.py draws the same bytes from the same seed, at
# least 300 points per study, every value within the axes' choices and the loader's rules; and
# scripts/plot_regret.py on a synthetic results folder (two studies, auto winning at some points and
# losing at others, a bound and a CPU baseline faster than everything, a failed validation) gives
# the numbers worked out by hand. Skipped (77) where no Python has matplotlib.
set -u
cd "${SRC:-$(dirname "$0")/../..}"
source tests/cpu/cli_lib.sh
need_matplotlib

# 1. The same seed, the same bytes (twice, into two folders); another seed, other points.
"$PY" scripts/regret_configs.py --seed 123 --out "$T/a" > "$T/a.out" 2>&1 || bad "regret_configs.py failed: $(tail -1 "$T/a.out")"
"$PY" scripts/regret_configs.py --seed 123 --out "$T/b" > /dev/null 2>&1
"$PY" scripts/regret_configs.py --seed 124 --out "$T/c" --studies join > /dev/null 2>&1
if diff -r "$T/a" "$T/b" > /dev/null; then ok; else bad "two draws with seed 123 differ"; fi
if cmp -s "$T/a/join.json" "$T/c/join.json"; then bad "seeds 123 and 124 drew the same join points"; else ok; fi
"$PY" scripts/regret_configs.py --fit --seed 123 --out "$T/a" --studies patched > /dev/null 2>&1
[ -f "$T/a/fit/patched.json" ] && ok || bad "--fit did not write fit/patched.json"

# 2. Every drawn point within the axes (the choices as the studies declare them) and the loader's rules.
"$PY" - "$T/a" > "$T/axes.out" 2>&1 <<'PY' && ok || { bad "drawn points outside the axes:"; head -20 "$T/axes.out"; }
import json, os, sys
d = sys.argv[1]
PAIRS = ["uniform", "degenerate", "sorted", "zipf", "runs", "equal_runs", "permutation"]
DIST = {"multireduce": PAIRS, "multiscan": PAIRS, "scatter": PAIRS,
        "decimal": ["uniform", "zipf", "degenerate", "sorted", "runs", "equal_runs"],
        "histogram": ["uniform", "degenerate", "sorted", "zipf", "runs", "equal_runs"], "join": ["unique", "uniform", "zipf"]}
OPS = {"add": {"int32", "int64", "float32"}, "min": {"int32"}, "max": {"int32"}, "last": {"int32"}, "affine": {"uint32x2"}}
CHOICES = {
    "multireduce": {"op": set(OPS), "type": {"int32", "int64", "float32", "uint32x2"}, "values": {"random", "ones"}},
    "multiscan": {"op": {"add", "min", "max", "affine"}, "type": {"int32", "int64", "float32", "uint32x2"},
                  "mode": {"exclusive", "inclusive", "multitag"}, "values": {"random", "mostly_identity"}},
    "histogram": {"sample": {"u8", "u32"}},
    "scatter": {"op": {"scatter", "gather"}, "type": {"int32", "int64", "float32"}},
    "patched": {"type": {"u8", "u16", "u32", "u64"}, "patches": {"uniform", "clustered"}},
    "join": {"key": {"int32", "int64"}},
    "decimal": {"type": {"decimal128", "decimal64", "double"}},
    "sortedsearch": {"type": {"int32", "int64", "float", "double"}, "keys": {"distinct", "dups"}},
}
SIZES = {"n": 2 ** 27, "m": 2 ** 26, "r": 2 ** 27, "s": 2 ** 27, "a_size": 2 ** 27, "b_size": 2 ** 27}
AXES = {"multireduce": {"n", "m", "distribution", "zipf_s", "run_length", "op", "type", "values"},
        "multiscan": {"n", "m", "distribution", "zipf_s", "run_length", "op", "type", "mode", "values"},
        "histogram": {"n", "bins", "sample", "input", "zipf_s", "run_length"},
        "scatter": {"n", "m", "distribution", "zipf_s", "run_length", "op", "type"},
        "patched": {"n", "type", "bit_width", "patch_rate", "patches"},
        "join": {"r", "s", "key", "distribution", "zipf_s", "match"},
        "decimal": {"n", "m", "distribution", "zipf_s", "run_length", "type"},
        "sortedsearch": {"a_size", "b_size", "type", "keys"}}
problems = []
def bad(s, i, why):
    problems.append(f"{s} point {i}: {why}")
for s in CHOICES:
    cfg = json.load(open(os.path.join(d, s + ".json")))
    pts = cfg["points"]
    if len(pts) < 300:
        problems.append(f"{s}: {len(pts)} points (< 300)")
    if cfg["study"] != s or cfg["seed"] != 123 or cfg["cache"] != "cold" or cfg["validate"] is not True:
        problems.append(f"{s}: study, seed, cache or validate wrong")
    if cfg["repetitions"] != {"warmup": 1, "min": 3, "max": 7, "budget_ms": 40, "target_rsd": 0.05}:
        problems.append(f"{s}: repetitions {cfg['repetitions']}")
    if any(v.startswith("sharded_") or v.startswith("cpu") or v == "h2d_stream" for v in cfg["variants"]):
        problems.append(f"{s}: a CPU or multi-GPU variant in {cfg['variants']}")
    if not any(v.startswith("auto") for v in cfg["variants"]):
        problems.append(f"{s}: no auto")
    if len({json.dumps(p, sort_keys=True) for p in pts}) != len(pts):
        problems.append(f"{s}: repeated points")
    for i, p in enumerate(pts):
        for k, v in p.items():
            if k not in AXES[s]:
                bad(s, i, f"axis {k}")
            elif k in SIZES and not (isinstance(v, int) and 1 <= v <= (2 ** 27 if k == "m" and p.get("distribution") == "permutation" else SIZES[k])):
                bad(s, i, f"{k} = {v}")
            elif k in CHOICES[s] and v not in CHOICES[s][k]:
                bad(s, i, f"{k} = {v}")
        dk = "input" if s == "histogram" else "distribution"
        dist = p.get(dk)
        if s in DIST and dist not in DIST[s]:
            bad(s, i, f"{dk} = {dist}")
        if ("run_length" in p) != (dist in ("runs", "equal_runs")) or p.get("run_length", 2.0) not in (2.0, 4.0, 16.0, 64.0, 256.0, 4096.0):
            bad(s, i, "run_length")
        if ("zipf_s" in p) != (dist == "zipf") or not 0.5 <= p.get("zipf_s", 1.0) <= 3.0:
            bad(s, i, "zipf_s")
        if dist == "permutation" and p["m"] != p["n"]:
            bad(s, i, "permutation with m != n")
        if s in ("multireduce", "multiscan") and p["type"] not in OPS[p["op"]]:
            bad(s, i, f"op {p['op']} on {p['type']}")
        if s == "multireduce" and p["values"] == "ones" and p["op"] != "add":
            bad(s, i, "values ones without add")
        if s == "multiscan" and p["mode"] == "multitag" and (p["op"] != "add" or p["type"] == "float32" or p["values"] != "random"):
            bad(s, i, "multitag")
        if s == "histogram" and not 1 <= p["bins"] <= (256 if p["sample"] == "u8" else 2 ** 24):
            bad(s, i, f"bins = {p['bins']} for {p['sample']}")
        if s == "patched" and not (1 <= p["bit_width"] <= {"u8": 8, "u16": 16, "u32": 32, "u64": 64}[p["type"]] and 0 <= p["patch_rate"] <= 1):
            bad(s, i, "bit_width or patch_rate")
        if s == "join" and not 0 <= p["match"] <= 1:
            bad(s, i, "match")
        if s == "join" and p["match"] * p["s"] > 2 ** 28:
            bad(s, i, "join output over 2^28 pairs")
    if s == "patched":
        rates = [p["patch_rate"] for p in pts]
        if not (rates.count(0.0) > 0 and rates.count(1.0) > 0 and any(0 < r < 1e-3 for r in rates)):
            problems.append("patched: rates 0, 1 and small ones not all drawn")
    if s in DIST:
        dk = "input" if s == "histogram" else "distribution"
        missing = set(DIST[s]) - {p[dk] for p in pts}
        if missing:
            problems.append(f"{s}: never drew {sorted(missing)}")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY

# 3. plot_regret.py on synthetic results with known answers.
mkdir -p "$T/res"
"$PY" - "$T/res" <<'PY'
import json, os, sys
out = sys.argv[1]
def rec(study, variant, kind, params, ms, status="ok", validation="pass", note="", plan=None):
    r = {"study": study, "variant": variant, "kind": kind, "params": params, "status": status, "validation": validation, "note": note,
         "time_ms": {"median": ms, "min": ms, "max": ms, "stddev": 0.0, "samples": [ms]} if ms is not None else None, "metrics": {}}
    if plan:
        r["metrics"]["plan"] = plan
    return r
def doc(study, records):
    return {"schema_version": 1, "meta": {"study": study, "git_commit": "abcdef0123", "date": "2026-01-01T00:00:00Z",
            "gpu": {"present": True, "name": "Test GPU"}}, "ceilings": {}, "records": records}
P = lambda n, d="uniform": {"n": n, "m": 64, "distribution": d, "op": "add", "type": "int32"}
mr = []
# P1: auto wins (0.100 against shared_privatized 0.120; the pre-sorted bound and the CPU are faster but do not count)
mr += [rec("multireduce", "auto", "ours", P(1000), 0.100, plan="shared_privatized"), rec("multireduce", "shared_privatized", "ours", P(1000), 0.120),
       rec("multireduce", "global_atomics", "peer", P(1000), 0.200), rec("multireduce", "thrust_reduce_by_key_sorted", "peer", P(1000), 0.010),
       rec("multireduce", "cpu_sequential", "cpu", P(1000), 0.001)]
# P2: auto loses 1.5x to partitioned, 1.2x to the peer
mr += [rec("multireduce", "auto", "ours", P(2000, "zipf"), 0.300, plan="shared_privatized"), rec("multireduce", "partitioned", "ours", P(2000, "zipf"), 0.200),
       rec("multireduce", "cub_sort_reduce_by_key", "peer", P(2000, "zipf"), 0.250)]
# P3: a small point, auto 10 us over the best (2x)
mr += [rec("multireduce", "auto", "ours", P(4000), 0.020, plan="shared_privatized"), rec("multireduce", "shared_privatized", "ours", P(4000), 0.010)]
# P4: auto fails validation
mr += [rec("multireduce", "auto", "ours", P(8000), 0.050, status="failed", validation="fail", note="bucket 3: expected 1, got 2"),
       rec("multireduce", "shared_privatized", "ours", P(8000), 0.060)]
# P5: a tie; a faster variant that failed validation does not count
mr += [rec("multireduce", "auto", "ours", P(16000, "runs"), 0.500, plan="warp_ordered"), rec("multireduce", "shared_privatized", "ours", P(16000, "runs"), 0.500),
       rec("multireduce", "partitioned", "ours", P(16000, "runs"), 0.100, status="failed", validation="fail", note="wrong")]
Q = lambda a, b: {"a_size": a, "b_size": b, "type": "int32", "keys": "distinct", "gpus": 1}
ss = [rec("sortedsearch", "auto_lower", "ours", Q(100, 1000), 0.060, plan="mergepath"), rec("sortedsearch", "mergepath_lower", "ours", Q(100, 1000), 0.080),
      rec("sortedsearch", "thrust_lower_bound", "peer", Q(100, 1000), 0.090), rec("sortedsearch", "binary_search_lower_unsorted", "ours", Q(100, 1000), 0.010),
      rec("sortedsearch", "auto_upper", "ours", Q(100, 1000), 0.070, plan="mergepath"), rec("sortedsearch", "mergepath_upper", "ours", Q(100, 1000), 0.060),
      rec("sortedsearch", "thrust_upper_bound", "peer", Q(100, 1000), 0.100),
      rec("sortedsearch", "auto_lower", "ours", Q(5000, 7), 0.100, plan="binary_search"), rec("sortedsearch", "windowed_lower", "ours", Q(5000, 7), 0.090),
      rec("sortedsearch", "thrust_lower_bound", "peer", Q(5000, 7), 0.095), rec("sortedsearch", "auto_upper", "ours", Q(5000, 7), 0.050, plan="mergepath"),
      rec("sortedsearch", "mergepath_upper", "ours", Q(5000, 7), 0.050),
      # the peer as auto's plan: "thrust" names thrust_lower_bound
      rec("sortedsearch", "auto_lower", "ours", Q(9000, 300000), 0.150, plan="thrust"), rec("sortedsearch", "thrust_lower_bound", "peer", Q(9000, 300000), 0.145),
      rec("sortedsearch", "binary_search_lower", "ours", Q(9000, 300000), 0.160)]
json.dump(doc("multireduce", mr), open(os.path.join(out, "multireduce.json"), "w"))
json.dump(doc("sortedsearch", ss), open(os.path.join(out, "sortedsearch.json"), "w"))
PY
"$PY" scripts/plot_regret.py "$T/res" "$T/fig" > "$T/plot.out" 2>&1 || bad "plot_regret.py failed: $(tail -2 "$T/plot.out")"
"$PY" - "$T/fig" > "$T/check.out" 2>&1 <<'PY' && ok || { bad "plot_regret.py's numbers:"; cat "$T/check.out"; }
import json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "regret_summary.json")))
problems = []
def want(what, got, exp):
    if not (got == exp or (isinstance(exp, float) and isinstance(got, float) and abs(got - exp) < 1e-9)):
        problems.append(f"{what}: {got!r}, expected {exp!r}")
mr, lo, up = s["rows"].get("multireduce"), s["rows"].get("sortedsearch/auto_lower"), s["rows"].get("sortedsearch/auto_upper")
if not (mr and lo and up):
    sys.exit(f"rows: {sorted(s['rows'])}")
want("multireduce points", mr["points"], 5)
want("multireduce measured", mr["measured"], 4)
want("multireduce max", mr["ratio"]["max"], 2.0)
want("multireduce median", mr["ratio"]["median"], 1.25)
want("multireduce failures", [f["note"] for f in mr["failures"]], ["bucket 3: expected 1, got 2"])
want("multireduce failure point", mr["failures"][0]["params"]["n"], 8000)
t = mr["targets"]
want("max at large", (round(t["max_at_large"]["value"], 9), t["max_at_large"]["met"]), (1.5, True))
want("p95 at large", (round(t["p95_at_large"]["value"], 9), t["p95_at_large"]["met"]), (1.45, False))
want("peer at large", (t["peer_at_large"]["value"], t["peer_at_large"]["met"]), (1.2, False))
want("slack at small", (round(t["slack_ms_at_small"]["value"], 9), t["slack_ms_at_small"]["met"]), (0.01, False))
want("validated", t["validated"]["met"], False)
want("plan share", (mr["plan"]["matches"], mr["plan"]["points"]), (2, 4))
want("worst point", (mr["worst"][0]["params"]["n"], mr["worst"][0]["best"]), (4000, "shared_privatized"))
want("auto_lower max", round(lo["ratio"]["max"], 9), round(0.100 / 0.090, 9))
want("auto_lower best at each point", sorted(w["best"] for w in lo["worst"]), ["mergepath_lower", "thrust_lower_bound", "windowed_lower"])
want("auto_lower peer max", round(lo["peer_ratio"]["max"], 9), round(0.100 / 0.095, 9))
want("auto_upper max", round(up["ratio"]["max"], 9), round(0.070 / 0.060, 9))
want("auto_lower plan share", (lo["plan"]["matches"], lo["plan"]["points"]), (2, 3))
want("sortedsearch validated", lo["targets"]["validated"]["met"], True)
for f in ("regret.md", "regret_multireduce.png", "regret_multireduce.series.json", "regret_sortedsearch.png", "regret_sortedsearch.series.json"):
    if not os.path.exists(os.path.join(d, f)):
        problems.append(f"{f} not written")
md = open(os.path.join(d, "regret.md")).read()
if "did not validate" not in md or "bucket 3: expected 1, got 2" not in md:
    problems.append("regret.md does not list the failure")
series = json.load(open(os.path.join(d, "regret_multireduce.series.json")))
ys = sorted(p[1] for a in series["axes"] for pts in a["points"] if not pts["label"].startswith("auto did not") for p in pts["xy"])
want("plotted ratios", [round(y, 6) for y in ys], [round(0.1 / 0.12, 6), 1.0, 1.5, 2.0])
if "Test GPU" not in series["axes"][0]["title"]:
    problems.append("the title does not name the GPU")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY

# 4. regret_recheck.py: the points where auto took over 1.3x the best and the best 20 us or more,
# each as the config wrote it (P2 only: P3's best takes 10 us, P4 failed), the run's variants; exit
# 1 where none qualifies, 2 for results without their config.
"$PY" - "$T/res/multireduce.json" "$T/rc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pts = [dict(r["params"]) for r in d["records"] if r["variant"] == "auto"]
pts[1]["run_length"] = 16.0  # a key the config writes and the records leave out at its default
d["meta"]["config"] = {"study": "multireduce", "seed": 7, "variants": ["auto", "partitioned"], "points": pts,
                       "repetitions": {"warmup": 1, "min": 3, "max": 7, "budget_ms": 40, "target_rsd": 0.05}}
json.dump(d, open(sys.argv[2], "w"))
PY
"$PY" scripts/regret_recheck.py "$T/rc.json" "$T/rc_out.json" > "$T/rc.out" 2>&1 || bad "regret_recheck.py failed: $(cat "$T/rc.out")"
"$PY" - "$T/rc_out.json" <<'PY' && ok || bad "regret_recheck.py's config: $(cat "$T/rc_out.json" 2>/dev/null | head -c 400)"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["study"] == "multireduce" and c["seed"] == 7 and c["variants"] == ["auto", "partitioned"], c
assert c["points"] == [{"n": 2000, "m": 64, "distribution": "zipf", "op": "add", "type": "int32", "run_length": 16.0}], c["points"]
assert c["repetitions"]["max"] == 7
PY
"$PY" scripts/regret_recheck.py "$T/rc.json" "$T/rc_none.json" --ratio 3 > "$T/rc2.out" 2>&1; rc=$?
[ $rc -eq 1 ] && [ ! -e "$T/rc_none.json" ] && ok || bad "regret_recheck.py with no qualifying point: exit $rc"
"$PY" scripts/regret_recheck.py "$T/res/multireduce.json" "$T/rc_bad.json" > "$T/rc3.out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/rc3.out")" -eq 1 ] && ok || bad "regret_recheck.py without a config: exit $rc, $(cat "$T/rc3.out")"

# 5. Without matplotlib: one line, exit 2.
mkdir -p "$T/nompl/matplotlib"
echo 'raise ImportError("no matplotlib here")' > "$T/nompl/matplotlib/__init__.py"
PYTHONPATH="$T/nompl" "$PY" scripts/plot_regret.py "$T/res" "$T/fig2" > "$T/nompl.out" 2>&1; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$T/nompl.out")" -eq 1 ] && ! grep -q Traceback "$T/nompl.out"; then ok; else bad "without matplotlib: exit $rc, $(cat "$T/nompl.out")"; fi

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
