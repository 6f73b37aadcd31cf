#!/usr/bin/env python3
"""Draws the regret sweep of every study: random points, from a seed, outside the sweeps that the
`auto` variants' rules were fitted to, on which auto is judged against every other variant and the
library peers (scripts/plot_regret.py reads the runs).

  scripts/regret_configs.py [--seed S] [--points N] [--out DIR] [--fit [--judge-seed S]] [--studies a,b]
                            [--bench PATH] [--images]

  (no option)   configs/regret/<study>.json, the judging draw (each study's seed in JUDGE_SEED)
  --fit         configs/regret/fit/<study>.json, a separate draw (seed 9001) to fit rules on; rules
                fitted there are judged on the other draw, whose points it leaves out
                (--judge-seed, default 7002: the judging draw it was drawn beside)
  --seed S      the draw's seed (every study's): study k's points come from random.Random(S + OFFSET[k]), and S is the
                config's "seed" (the suite's input generator seed) too
  --points N    points per study (default 320)
  --out DIR     where to write (default configs/regret; --fit writes DIR/fit)
  --studies     a comma-separated subset of the studies
  --bench PATH  the variants from `PATH list` (a bench executable; or a file holding that output)
                instead of the lists below, warning where they differ from them
  --images      histogram: also draw `input image` points (their check needs build/images, made by
                scripts/make_images.py; left out by default so that every config loads anywhere)

The same seed gives the same files, byte for byte. Every point is one the config loader accepts
(each study's check_params) and whose inputs and outputs stay well under the GPU's memory
(MEMORY_LIMIT, estimated per study below). Run it with the committed defaults to regenerate the
committed configs:

  scripts/regret_configs.py && scripts/regret_configs.py --fit
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))

# The judging draw (configs/regret/). 7001's judged the first rules, which were then adjusted on what
# it showed (its results are fitting data now, results/h100/regret/fit/): the judging draw moved on.
DEFAULT_SEED = 7002
# ... per study: a study whose rules change on what its judging draw showed is judged on a new draw
# (7003: the multireduce's and decimal's hot-label aggregation, multiscan's CUB plan, scatter's and
# join's size rules; their 7002 results are fitting data now, results/h100/regret/fit/second_rules/).
# (7004: multiscan's CUB plan for sorted labels and its small-input plans, decimal's global atomics
# below the look, scatter's wide stores for inputs under a quarter of the buckets, the multireduce's
# hot labels under compare-and-swap updates; their 7003 results are fitting data now,
# results/h100/regret/fit/third_rules/.)
# (7005: the multireduce's aggregated atomics for mostly ascending labels beyond shared memory; its
# 7004 results are fitting data now, results/h100/regret/fit/fourth_rules/; and join's int64 rules
# for a large S over a small R and a tiny S: its 7003 results are fitting data now,
# results/h100/regret/fit/fourth_rules/join.json.gz.)
# (7006: the sorted search's look kept from columns of at most 2^16 keys; its 7002 results, on the
# H100 (55 points) and the H200 (the other 265), are fitting data now, results/h200/regret/fit/.)
# (multireduce 7006, multiscan 7005, join 7006, decimal 7005: the rules refitted on the H200's first
# judging round, whose draws (7005, 7004, 7005, 7004) are fitting data now,
# results/h200/regret/fit/fifth_rules/.)
JUDGE_SEED = {"multireduce": 7006, "multiscan": 7005, "histogram": 7002, "scatter": 7004, "patched": 7002, "join": 7006,
              "decimal": 7005, "sortedsearch": 7006}
DEFAULT_FIT_SEED = 9001  # the fitting draw (configs/regret/fit/)
DEFAULT_POINTS = 320

STUDIES = ["multireduce", "multiscan", "histogram", "scatter", "patched", "join", "decimal", "sortedsearch"]
# random.Random(seed + OFFSET[study]): each study its own stream (seeds stay below 10^6 apart).
OFFSET = {s: 1_000_000 * (i + 1) for i, s in enumerate(STUDIES)}

# The GPU variants of each study, in the order `bench list` prints them: every variant except the
# CPU baselines (kind cpu) and the multi-GPU ones (sharded_*, and the probe h2d_stream that only
# source 'host' runs). From the variant tables of the committed source: apps/multireduce/
# {modern,peer,perbank,sequential,sort}_variants.cu; apps/multiscan/{modern,partition,sheffler,
# sort,peer}_variants.cu; apps/histogram/{modern,thesis}_variants.cu; apps/scatter/{thesis,modern,
# peer}_variants.cu; apps/patched/{fused,two_pass}_variants.cu; apps/join/{paper,modern}_variants.cu;
# apps/decimal/{gpu,peer}_variants.cu; apps/sortedsearch/sortedsearch_study.cu (the sharded ones
# come from apps/harness/sharded_*.cuh). --bench checks them against a build.
VARIANTS = {
    "multireduce": ["auto", "shared_privatized", "cluster_privatized", "partitioned", "global_atomics_aggregated", "warp_ordered",
                    "last_position", "global_comm", "perbank", "perbank_multipass", "perbank_sort_extension", "vector_reduce",
                    "minimal", "global_noncomm", "global_noncomm_sorted", "shared_perthread_noncomm", "shared_perthread_comm",
                    "sort_global", "sort_shared", "sort_shared_transposed", "global_atomics", "cub_sort_reduce_by_key",
                    "thrust_sort_reduce_by_key", "thrust_reduce_by_key_sorted", "thrust_scan_by_key_sorted", "cub_histogram_even"],
    "multiscan": ["auto", "partitioned", "perthread_scan", "register_scan", "relabel", "single_pass", "vector_scan", "seq_global", "seq_shared",
                  "sheffler_global", "sheffler_global_corrected", "sheffler_shared", "sheffler_shared_corrected", "sort_global",
                  "sort_global_pairs", "sort_shared", "cub_sort_scan_by_key", "thrust_scan_by_key_sorted"],
    "histogram": ["block_privatized", "cluster_privatized", "multireduce_shared", "auto", "cub_histogram_even", "podlozhnyuk64",
                  "podlozhnyuk256", "podlozhnyuk256_atomic", "nugteren", "trish", "banktrish", "perbank_histogram"],
    "scatter": ["naive", "naive_strict", "multipass", "sorted", "wide", "privatized", "auto", "probe", "thrust", "cub_sort"],
    "patched": ["fused", "fused_warp_apply", "auto", "decode_thrust_scatter", "decode_lane_apply", "decode_chunk_apply"],
    "join": ["nlj", "inlj_css", "inlj_bs", "smj", "hj", "global_hash", "smj_presorted", "auto"],
    "decimal": ["auto", "shared_privatized", "shared_words", "shared_narrow", "cluster_privatized", "global_atomics", "sort_reduce",
                "cub_sort_reduce_by_key"],
    # No variant named auto: auto_lower, auto_upper and auto_complete (plot_regret.py compares each
    # with the variants answering the same search).
    "sortedsearch": ["mergepath_lower", "mergepath_upper", "mergepath_complete", "mergepath_match", "mergepath_equality_count",
                     "windowed_lower", "windowed_complete", "auto_lower", "auto_upper", "auto_complete", "binary_search_lower",
                     "binary_search_lower_unsorted", "thrust_lower_bound", "thrust_lower_bound_unsorted", "thrust_upper_bound",
                     "thrust_merge", "cub_merge"],
}

# The axis values drawn (each study's axes: apps/<study>/*_study.cu, apps/multireduce/labeled_pairs.hpp,
# apps/harness/label_axes.hpp). Axes not named keep their defaults (the launch knobs, gpus 1,
# source device, the decimal price type, join band 0).
#   label distributions of harness::labels: runs and equal_runs take run_length (label_axes.hpp;
#   written only with them), zipf takes zipf_s, permutation needs m = n
PAIR_DISTRIBUTIONS = ["uniform", "degenerate", "sorted", "zipf", "runs", "equal_runs", "permutation"]  # pair_axes()
DISTRIBUTIONS = {
    "multireduce": PAIR_DISTRIBUTIONS,
    "multiscan": PAIR_DISTRIBUTIONS,
    "scatter": PAIR_DISTRIBUTIONS,
    "decimal": ["uniform", "zipf", "degenerate", "sorted", "runs", "equal_runs"],
    "histogram": ["uniform", "degenerate", "sorted", "zipf", "runs", "equal_runs"],  # axis `input` (image: --images)
    "join": ["unique", "uniform", "zipf"],  # relations.hpp: zipf skews the probe side S
}
RUN_LENGTHS = [2.0, 4.0, 16.0, 64.0, 256.0, 4096.0]  # mean run lengths, log-spread (16 is the axis default)
ZIPF_S = (0.5, 3.0)
# (op, type) pairs the studies accept (labeled_pairs.hpp check_op_type); `last` is multireduce's only.
OP_TYPES = {"add": ["int32", "int64", "float32"], "min": ["int32"], "max": ["int32"], "last": ["int32"], "affine": ["uint32x2"]}
MULTIREDUCE_OPS = ["add", "min", "max", "last", "affine"]
MULTISCAN_OPS = ["add", "min", "max", "affine"]
MULTISCAN_MODES = ["exclusive", "inclusive", "multitag"]  # multitag: add on int32/int64, values random
MULTIREDUCE_VALUES = ["random", "ones"]                  # ones: op add only (a count); drawn on integers
MULTISCAN_VALUES = ["random", "mostly_identity"]
HISTOGRAM_SAMPLES = ["u8", "u32"]                          # u8: bins <= 256
HISTOGRAM_IMAGES = ["camera.grey", "astronaut.grey", "astronaut.r", "astronaut.g", "astronaut.b", "coffee.grey", "coffee.r",
                    "coffee.g", "coffee.b", "hubble_deep_field.grey", "hubble_deep_field.r", "hubble_deep_field.g",
                    "hubble_deep_field.b"]
SCATTER_OPS = ["scatter", "gather"]
SCATTER_TYPES = ["int32", "int64", "float32"]
PATCHED_TYPES = {"u8": 8, "u16": 16, "u32": 32, "u64": 64}  # bit_width 1..width
PATCHED_KINDS = ["uniform", "clustered"]
JOIN_KEYS = ["int32", "int64"]
DECIMAL_TYPES = ["decimal128", "decimal64", "double"]
SORTEDSEARCH_TYPES = ["int32", "int64", "float", "double"]
SORTEDSEARCH_KEYS = ["distinct", "dups"]

MAX_N = 2 ** 27       # sizes: log-uniform in [1, MAX_N] (n; join's r and s; sortedsearch's a_size and b_size)
MAX_M = 2 ** 26       # buckets, groups, table entries: log-uniform in [1, MAX_M]
MAX_BINS = {"u8": 256, "u32": 2 ** 24}  # histogram bins (the axis' limit for u32 is 2^24)
# Each axis' own maximum (the sizes drawn are clamped to it; none is below MAX_N or MAX_M today).
AXIS_MAX = {("multireduce", "n"): 2 ** 33, ("multireduce", "m"): 2 ** 28, ("multiscan", "n"): 2 ** 30, ("multiscan", "m"): 2 ** 28,
            ("scatter", "n"): 2 ** 30, ("scatter", "m"): 2 ** 28, ("histogram", "n"): 2 ** 33, ("histogram", "bins"): 2 ** 24,
            ("patched", "n"): 2 ** 31, ("join", "r"): 2 ** 30, ("join", "s"): 2 ** 30, ("decimal", "n"): 2 ** 30,
            ("decimal", "m"): 2 ** 30, ("sortedsearch", "a_size"): 2 ** 30 + 2 ** 29, ("sortedsearch", "b_size"): 2 ** 30 + 2 ** 29}

# Memory: a point is redrawn when the estimate below (its inputs, outputs and the largest scratch
# of its variants on the device: sorted copies, per-input results) passes MEMORY_LIMIT, far under
# the H100's 80 GB so that the CUDA context, L2 flush buffer and library pools fit beside it; a
# join is redrawn when its expected output passes JOIN_MAX_PAIRS.
MEMORY_LIMIT = 16 * 2 ** 30
JOIN_MAX_PAIRS = 2 ** 28

REPETITIONS = {"warmup": 1, "min": 3, "max": 7, "budget_ms": 40, "target_rsd": 0.05}


def log_uniform_int(rng, lo, hi):
    """An integer log-uniform in [lo, hi] (odd sizes come naturally)."""
    x = int(round(2.0 ** rng.uniform(math.log2(lo), math.log2(hi))))
    return min(max(x, lo), hi)


def size(rng, study, axis, hi):
    return log_uniform_int(rng, 1, min(hi, AXIS_MAX.get((study, axis), hi)))


def labels(rng, p, dists, n_key="n", m_key="m", dist_key="distribution", d=None):
    """The label distribution (d, or one of dists) and its parameters, into p (which already holds n
    and m)."""
    d = d or rng.choice(dists)
    p[dist_key] = d
    if d == "zipf":
        p["zipf_s"] = round(rng.uniform(*ZIPF_S), 3)
    elif d in ("runs", "equal_runs"):
        p["run_length"] = rng.choice(RUN_LENGTHS)
    elif d == "permutation":
        p[m_key] = p[n_key]  # a permutation of [0, n)
    return p


def op_type_pairs(ops):
    return [(op, t) for op in ops for t in OP_TYPES[op]]


def draw_multireduce(rng, _):
    p = {"n": size(rng, "multireduce", "n", MAX_N), "m": size(rng, "multireduce", "m", MAX_M)}
    labels(rng, p, DISTRIBUTIONS["multireduce"])
    p["op"], p["type"] = rng.choice(op_type_pairs(MULTIREDUCE_OPS))  # each valid (op, type) pair alike
    # ones (a count, where CUB's histogram joins): add only (check_params), on integers (a float
    # count stops at 2^24 where one bucket takes more inputs), a third of those points
    p["values"] = "ones" if p["op"] == "add" and p["type"] != "float32" and rng.random() < 1 / 3 else "random"
    return p


def draw_multiscan(rng, _):
    p = {"n": size(rng, "multiscan", "n", MAX_N), "m": size(rng, "multiscan", "m", MAX_M)}
    labels(rng, p, DISTRIBUTIONS["multiscan"])
    mode = rng.choice(MULTISCAN_MODES)
    if mode == "multitag":
        p["op"], p["type"], values = "add", rng.choice(["int32", "int64"]), "random"
    else:
        (p["op"], p["type"]), values = rng.choice(op_type_pairs(MULTISCAN_OPS)), rng.choice(MULTISCAN_VALUES)
    p["mode"], p["values"] = mode, values
    return p


def draw_histogram(rng, opts):
    sample = rng.choice(HISTOGRAM_SAMPLES)
    p = {"n": size(rng, "histogram", "n", MAX_N)}
    inputs = DISTRIBUTIONS["histogram"] + (["image"] if opts.images else [])
    d = rng.choice(inputs)
    if d == "image":  # u8 samples, 256 bins (check_params)
        p.update(bins=256, sample="u8", input="image", image=rng.choice(HISTOGRAM_IMAGES))
        return p
    p["bins"] = size(rng, "histogram", "bins", MAX_BINS[sample])
    p["sample"] = sample
    labels(rng, p, inputs, m_key="bins", dist_key="input", d=d)
    return p


def draw_scatter(rng, _):
    p = {"n": size(rng, "scatter", "n", MAX_N), "m": size(rng, "scatter", "m", MAX_M)}
    labels(rng, p, DISTRIBUTIONS["scatter"])
    p["op"], p["type"] = rng.choice(SCATTER_OPS), rng.choice(SCATTER_TYPES)
    return p


def draw_patched(rng, _):
    t = rng.choice(sorted(PATCHED_TYPES))
    p = {"n": size(rng, "patched", "n", MAX_N), "type": t, "bit_width": rng.randint(1, PATCHED_TYPES[t])}
    u = rng.random()
    # a tenth none, a tenth all, the rest log-uniform in [1e-5, 1]
    p["patch_rate"] = 0.0 if u < 0.1 else 1.0 if u < 0.2 else float(f"{10.0 ** rng.uniform(-5, 0):.4g}")
    p["patches"] = rng.choice(PATCHED_KINDS)
    return p


def draw_join(rng, _):
    p = {"r": size(rng, "join", "r", MAX_N), "s": size(rng, "join", "s", MAX_N), "key": rng.choice(JOIN_KEYS)}
    d = rng.choice(DISTRIBUTIONS["join"])
    p["distribution"] = d
    if d == "zipf":
        p["zipf_s"] = round(rng.uniform(*ZIPF_S), 3)
    u = rng.random()
    p["match"] = 0.0 if u < 0.1 else 1.0 if u < 0.2 else round(rng.random(), 4)
    return p


def draw_decimal(rng, _):
    p = {"n": size(rng, "decimal", "n", MAX_N), "m": size(rng, "decimal", "m", MAX_M)}
    labels(rng, p, DISTRIBUTIONS["decimal"])
    p["type"] = rng.choice(DECIMAL_TYPES)
    return p


def draw_sortedsearch(rng, _):
    return {"a_size": size(rng, "sortedsearch", "a_size", MAX_N), "b_size": size(rng, "sortedsearch", "b_size", MAX_N),
            "type": rng.choice(SORTEDSEARCH_TYPES), "keys": rng.choice(SORTEDSEARCH_KEYS)}


DRAW = {"multireduce": draw_multireduce, "multiscan": draw_multiscan, "histogram": draw_histogram, "scatter": draw_scatter,
        "patched": draw_patched, "join": draw_join, "decimal": draw_decimal, "sortedsearch": draw_sortedsearch}

VALUE_BYTES = {"int32": 4, "int64": 8, "float32": 4, "uint32x2": 8, "float": 4, "double": 8}


def join_expected_pairs(p):
    """relations.hpp: unique and zipf give each matching S tuple exactly one R tuple; uniform spreads
    R's |R| keys over [0, |R|), one R tuple per key on average, so a matching S tuple meets one on
    average too. Band joins (band > 0) are not drawn."""
    per_match = {"unique": 1.0, "zipf": 1.0, "uniform": 1.0}[p["distribution"]]
    return p["match"] * p["s"] * per_match


def footprint(study, p):
    """Bytes a point keeps on the device at most (inputs, outputs, the largest variant's scratch),
    a generous estimate."""
    if study in ("multireduce", "multiscan"):
        n, m, t = p["n"], p["m"], VALUE_BYTES[p["type"]]
        # pairs, their stable-sorted copy (pre-sorted peers), per-input results (scan of sorted),
        # buckets and keys, and a radix sort's double buffers of the pairs
        return 2 * (4 + t) * n + t * n + (t + 4) * m + 2 * (4 + t + 4) * n
    if study == "histogram":
        n, b = p["n"], p["bins"]
        return n * (1 if p["sample"] == "u8" else 4) + 4 * n + 4 * b  # samples, perbank_histogram's ones, the bins
    if study == "scatter":
        n, m, t = p["n"], p["m"], VALUE_BYTES[p["type"]]
        return 4 * n + t * max(n, m) * 2 + 2 * (4 + t + 4) * n  # labels, values and results, cub_sort's buffers
    if study == "patched":
        n, w = p["n"], PATCHED_TYPES[p["type"]] // 8
        k = p["patch_rate"] * n
        return 2 * w * n + k * (2 + w + 4 + w)  # packed (<= the column), decoded column, both patch layouts
    if study == "join":
        kb = 8 if p["key"] == "int64" else 4
        tuples = p["r"] + p["s"]
        return 3 * (kb + 4) * tuples + 8 * join_expected_pairs(p) + 16 * 2 * p["r"]  # relations, sorted copies, pairs, hash table
    if study == "decimal":
        n, m = p["n"], p["m"]
        return 16 * n + 3 * 16 * n + 32 * m  # rows, a sort's product column and buffers, the carry buckets
    if study == "sortedsearch":
        kb = 8 if p["type"] in ("int64", "double") else 4
        keys = p["a_size"] + p["b_size"]
        return kb * keys + 2 * kb * keys + 8 * keys  # A and B, a merge's output, indices both ways
    raise ValueError(study)


def redraw_reason(study, p):
    """Why a drawn point is redrawn, or None: the config loader's checks (each study's check_params)
    hold by construction; this is memory."""
    if study == "join" and join_expected_pairs(p) > JOIN_MAX_PAIRS:
        return "join output"
    if footprint(study, p) > MEMORY_LIMIT:
        return "memory"
    return None


def draw_points(study, seed, count, opts, exclude=frozenset()):
    """count distinct points, none of them in `exclude` (the judging draw's, for the fitting draw)."""
    rng = random.Random(seed + OFFSET[study])
    points, seen, redrawn = [], set(), 0
    while len(points) < count:
        p = DRAW[study](rng, opts)
        key = json.dumps(p, sort_keys=True)
        if key in seen or key in exclude or redraw_reason(study, p):
            redrawn += 1
            if redrawn > 100 * count:
                sys.exit(f"{study}: cannot draw {count} distinct points within the limits")
            continue
        seen.add(key)
        points.append(p)
    return points, redrawn


def bench_variants(path):
    """{study: [GPU variant names]} from `PATH list` (PATH a bench executable, or a file holding its
    output): lines "study  —  description", then "  name   kind   description"."""
    if os.path.isfile(path) and os.access(path, os.X_OK):
        text = subprocess.run([path, "list"], check=True, stdout=subprocess.PIPE, text=True).stdout
    else:
        with open(path) as f:
            text = f.read()
    out, study = {}, None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            study = line.split("—")[0].split(" - ")[0].strip()
            out[study] = []
            continue
        parts = line.split()
        if study is None or len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "cpu" or name.startswith("sharded_") or name == "h2d_stream":
            continue
        out[study].append(name)
    return out


def check_variants(listed, studies):
    """The lists to use: the bench's, with a warning where they differ from VARIANTS."""
    chosen = {}
    for s in studies:
        mine = VARIANTS[s]
        got = listed.get(s)
        if got is None:
            print(f"warning: --bench lists no study '{s}'; using the hard-coded variants", file=sys.stderr)
            chosen[s] = mine
            continue
        extra, missing = [v for v in got if v not in mine], [v for v in mine if v not in got]
        if extra or missing:
            print(f"warning: {s}: the bench's GPU variants differ from scripts/regret_configs.py's list"
                  + (f"; only in the bench: {', '.join(extra)}" if extra else "")
                  + (f"; only in the script: {', '.join(missing)}" if missing else ""), file=sys.stderr)
        chosen[s] = got
    return chosen


def render(cfg):
    """The config as JSON, one point per line (stable: the same draw gives the same bytes)."""
    lines = ["{"]
    for k in ("study", "description", "seed"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(cfg[k])},")
    lines.append(f"  \"variants\": {json.dumps(cfg['variants'])},")
    lines.append("  \"points\": [")
    for i, p in enumerate(cfg["points"]):
        lines.append("    " + json.dumps(p) + ("," if i + 1 < len(cfg["points"]) else ""))
    lines.append("  ],")
    for k in ("repetitions", "validate"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(cfg[k])},")
    lines.append(f"  \"cache\": {json.dumps(cfg['cache'])}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None, help=f"default: each study's JUDGE_SEED ({DEFAULT_FIT_SEED} with --fit)")
    ap.add_argument("--points", type=int, default=DEFAULT_POINTS)
    ap.add_argument("--out", default=os.path.join(ROOT, "configs", "regret"))
    ap.add_argument("--fit", action="store_true", help="the fitting draw, into OUT/fit")
    ap.add_argument("--judge-seed", type=int, default=DEFAULT_SEED,
                    help=f"--fit: the judging draw's seed, whose points the fitting draw leaves out (default {DEFAULT_SEED})")
    ap.add_argument("--studies", default=",".join(STUDIES))
    ap.add_argument("--bench", default=None, help="a bench executable (or its `list` output) to take the variants from")
    ap.add_argument("--images", action="store_true", help="histogram: also draw photographs (needs build/images)")
    a = ap.parse_args()
    if a.seed is not None and not 0 <= a.seed < 1_000_000:
        ap.error("--seed: 0 <= seed < 10^6 (the studies' streams are seed + 10^6 k)")
    if a.points < 1:
        ap.error("--points: at least 1")
    studies = [s for s in a.studies.split(",") if s]
    for s in studies:
        if s not in STUDIES:
            ap.error(f"--studies: no study '{s}' (one of {', '.join(STUDIES)})")
    variants = check_variants(bench_variants(a.bench), studies) if a.bench else VARIANTS
    out = os.path.join(a.out, "fit") if a.fit else a.out
    os.makedirs(out, exist_ok=True)
    for s in studies:
        seed = a.seed if a.seed is not None else DEFAULT_FIT_SEED if a.fit else JUDGE_SEED[s]
        cmd = "scripts/regret_configs.py" + (" --fit" if a.fit else "") + f" --seed {seed}" + \
              (f" --judge-seed {a.judge_seed}" if a.fit and a.judge_seed != DEFAULT_SEED else "") + \
              (f" --points {a.points}" if a.points != DEFAULT_POINTS else "") + (" --images" if a.images else "")
        # The fitting draw leaves out the judging draw's points (tiny sizes repeat across seeds).
        exclude = {json.dumps(p, sort_keys=True) for p in draw_points(s, a.judge_seed, a.points, a)[0]} if a.fit else frozenset()
        points, redrawn = draw_points(s, seed, a.points, a, exclude)
        what = ("Fit draw (rules are fitted on it and judged on the regret sweep of configs/regret/, another seed)" if a.fit
                else "Regret sweep (auto judged against every variant and peer; rules are fitted on configs/regret/fit/, another seed)")
        cfg = {"study": s,
               "description": f"{what}: {len(points)} points drawn by {cmd} (Python's random.Random({seed} + {OFFSET[s]})): "
                              "sizes log-uniform up to 2^27, every label distribution, operator and type the study offers; "
                              "GPU variants on one GPU (no CPU baselines, no sharded_*).",
               "seed": seed, "variants": variants[s], "points": points, "repetitions": REPETITIONS, "validate": True,
               "cache": "cold"}
        path = os.path.join(out, f"{s}.json")
        with open(path, "w") as f:
            f.write(render(cfg))
        big = max(footprint(s, p) for p in points)
        print(f"wrote {os.path.relpath(path)}: {len(points)} points ({redrawn} redrawn), "
              f"largest estimated footprint {big / 2 ** 30:.2f} GiB")


if __name__ == "__main__":
    main()
