#!/usr/bin/env python3
"""The reliability tests of a whole run, through the bench executables as a user runs them.

  order    A config's points run in one process in three orders (as written, reversed, shuffled from
           the config's seed): every record's outcome (status, validation, note) must be the same in
           all three, and no record may fail. Pass implies identical outputs wherever validation is
           exact (integers, sorted-search indices, histograms): the whole output equals the reference.
  oom      A run capped by device_memory_limit: the point whose inputs do not fit becomes skipped
           records that say "out of memory", a variant whose scratch does not fit is skipped alone,
           and every other record still runs and validates.
  restart  Injected faults (LP_INJECT_FAULT): a bad launch fails one record and the run goes on in the
           same process; a trap (a sticky error, the context lost) fails one record and the run goes
           on in a fresh process, which meta.processes records; every other record validates.
  ranks    The rank mode on two GPUs (exit 77 with fewer): the config's sharded variants as two ranks
           (scripts/launch_ranks.sh, one process each) and as one process over two GPUs; every
           record that ran must validate, agree in outcome with the one-process run, say it ran as
           ranks with both ranks' phases, and only rank 0 may write files. Then the failures: rank 1
           killed mid-run (rank 0 must end within 30 s naming it, no results file), rank 1 never
           started (rank 0 names it), rank 0 never started (rank 1 names it).

GPU runs exit 77 (CTest: skipped) where the results say there is no GPU. The last line is
"N passed, M failed".
"""
import argparse
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

checks = {"passed": 0, "failed": 0}


def check(ok, what):
    checks["passed" if ok else "failed"] += 1
    if not ok:
        print(f"FAIL: {what}", flush=True)
    return ok


def finish():
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    sys.exit(0 if checks["failed"] == 0 else 1)


def run_bench(bin_dir, config, out_dir, env=None):
    """Runs one config; returns (exit code, results document or None)."""
    study = config["study"]
    os.makedirs(out_dir, exist_ok=True)
    cfg_path = os.path.join(out_dir, "config.json")
    with open(cfg_path, "w") as f:
        json.dump(config, f, indent=1)
    e = dict(os.environ)
    e.update(env or {})
    # LP_BENCH_WRAPPER: a command the run goes under, e.g. "compute-sanitizer --tool memcheck
    # --error-exitcode 3" (the sanitizer runs); its error exit fails the test.
    wrapper = os.environ.get("LP_BENCH_WRAPPER", "").split()
    proc = subprocess.run(wrapper + [os.path.join(bin_dir, "bench-" + study), "--config", cfg_path, "--out", out_dir, "--force"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    path = os.path.join(out_dir, study + ".json")
    if proc.returncode not in (0, 1) or not os.path.exists(path):
        # A sanitizer's report first (its lines start with "========="), then the run's own tail.
        report = [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("=========")]
        print("\n".join(report[:80]))
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        return proc.returncode, None
    if proc.returncode != 0:
        print(proc.stderr[-3000:])
    with open(path) as f:
        return proc.returncode, json.load(f)


def needs_gpu(doc):
    if doc is not None and not doc["meta"]["gpu"].get("present", False):
        print("no GPU: skipped")
        sys.exit(77)


def gpu_present():
    """Whether a GPU is there, asked before a GPU test starts (without one, the CPU variants of a
    large config would run for minutes before the results said so)."""
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60)
        return out.returncode == 0 and "GPU" in out.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def key(rec):
    return rec["variant"], json.dumps(rec["params"], sort_keys=True)


def outcome(rec):
    # An auto's plan is part of its outcome: a decision must not depend on what ran before it.
    return rec["status"], rec["validation"], rec["note"], (rec.get("metrics") or {}).get("plan")


def size(v):
    """A size as the configs write it: an integer, "2^k" or "2^k+-c" (anything else: 0)."""
    if isinstance(v, int):
        return v
    m = re.fullmatch(r"\s*(\d+)\s*|\s*2\s*\^\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*", str(v))
    if not m:
        return 0
    if m.group(1):
        return int(m.group(1))
    x = 1 << int(m.group(2))
    return x + int(m.group(4)) if m.group(3) == "+" else x - int(m.group(4) or 0)


def max_size_filter(points, limit):
    """Points whose sizes (n, m, a_size, b_size, bins) are at most `limit`."""
    return [p for p in points if all(size(v) <= limit for k, v in p.items() if k in ("n", "m", "a_size", "b_size", "bins"))]


def without_variants(bin_dir, cfg, skip):
    """The config with the named variants left out ("all" resolved through --describe)."""
    if not skip:
        return cfg
    names = cfg.get("variants", "all")
    if names == "all":
        out = subprocess.run([os.path.join(bin_dir, "bench-" + cfg["study"]), "--describe"], stdout=subprocess.PIPE, text=True, check=True)
        names = [line.split("\t")[0] for line in out.stdout.splitlines()[1:]]
    cfg["variants"] = [v for v in names if v not in skip.split(",")]
    return cfg


def cmd_order(a):
    with open(a.config) as f:
        base = without_variants(a.bin, json.load(f), a.skip)
    points = base["points"]
    if a.max_size:
        points = max_size_filter(points, a.max_size)
    shuffled = list(points)
    random.Random(base.get("seed", 1)).shuffle(shuffled)
    orders = {"forward": points, "reversed": list(reversed(points)), "shuffled": shuffled}
    results = {}
    for name, pts in orders.items():
        cfg = copy.deepcopy(base)
        cfg["points"] = pts
        rc, doc = run_bench(a.bin, cfg, os.path.join(a.work, name))
        if a.gpu:
            needs_gpu(doc)
        if not check(doc is not None, f"{name}: the run wrote no results (exit {rc})"):
            continue
        check(rc == 0, f"{name}: exit {rc}")
        recs = {}
        for r in doc["records"]:
            recs[key(r)] = outcome(r)
            check(r["status"] != "failed", f"{name}: {r['variant']} {r['params']} failed: {r['note']}")
        check(len(doc["meta"]["processes"]) == 1, f"{name}: ran in {len(doc['meta']['processes'])} processes")
        results[name] = recs
        print(f"{name}: {len(recs)} records, {sum(1 for o in recs.values() if o[1] == 'pass')} validated", flush=True)
    if "forward" in results:
        for name in ("reversed", "shuffled"):
            if name not in results:
                continue
            check(set(results[name]) == set(results["forward"]), f"{name}: not the same records as forward")
            for k, o in results["forward"].items():
                if k in results[name]:
                    check(results[name][k] == o, f"{name}: {k[0]} {k[1]}: {results[name][k]} but forward gave {o}")
    finish()


def cmd_oom(a):
    with open(a.config) as f:
        cfg = without_variants(a.bin, json.load(f), a.skip)
    rc, doc = run_bench(a.bin, cfg, os.path.join(a.work, "oom"))
    needs_gpu(doc)
    if not check(doc is not None, f"the capped run wrote no results (exit {rc})"):
        finish()
    check(rc == 0, f"exit {rc} (an out-of-memory skip is no failure)")
    too_big = a.too_big
    by_n = {}
    for r in doc["records"]:
        by_n.setdefault(r["params"]["n"], []).append(r)
        check(r["status"] != "failed", f"{r['variant']} n={r['params']['n']} failed: {r['note']}")
    check(too_big in by_n, f"no records at n = {too_big}")
    for r in by_n.get(too_big, []):
        if r["kind"] != "cpu":
            check(r["status"] == "skipped" and "out of memory" in r["note"], f"{r['variant']} at n = {too_big}: {r['status']} ({r['note']})")
    others = [r for n, rs in by_n.items() if n != too_big for r in rs]
    validated = sum(1 for r in others if r["validation"] == "pass")
    oom_skips = sum(1 for r in others if "out of memory" in r["note"])
    check(validated > 0, "no record validated beside the point that does not fit")
    print(f"n = {too_big}: {len(by_n.get(too_big, []))} records skipped for memory; elsewhere {validated} validated, "
          f"{oom_skips} variants skipped for memory alone; limit {doc['meta'].get('device_memory_limit')} bytes")
    check(doc["meta"].get("device_memory_limit") == size(cfg["device_memory_limit"]), "meta.device_memory_limit")
    finish()


def cmd_restart(a):
    with open(a.config) as f:
        cfg = json.load(f)
    out = os.path.join(a.work, "restart")
    rc, doc = run_bench(a.bin, cfg, out, env={"LP_INJECT_FAULT": a.faults})
    needs_gpu(doc)
    if not check(doc is not None, f"the run wrote no results (exit {rc})"):
        finish()
    check(rc == 1, f"exit {rc}, expected 1 (records failed)")
    faults = {}
    for item in a.faults.split(","):
        variant, rest = item.split("@")
        point, kind = rest.split(":")
        faults[(variant, int(point))] = kind
    n_points, variants = len(cfg["points"]), doc["meta"]["variants"]
    check(len(doc["records"]) == n_points * len(variants), f"{len(doc['records'])} records, expected {n_points} x {len(variants)}")
    for i, r in enumerate(doc["records"]):
        point, variant = i // len(variants), r["variant"]
        if (variant, point) in faults:
            check(r["status"] == "failed" and "injected" in r["note"], f"injected {faults[(variant, point)]} at {variant}@{point}: {r['status']} ({r['note']})")
        else:
            check(r["status"] != "failed" and r["validation"] in ("pass", "skipped"), f"{variant}@{point}: {r['status']} {r['validation']} ({r['note']})")
    procs = doc["meta"]["processes"]
    traps = sorted(p for (v, p), k in faults.items() if k == "trap")
    check(len(procs) == len(traps) + 1, f"{len(procs)} processes for {len(traps)} lost contexts")
    for p, t in zip(procs, traps):
        check(p["ended"].startswith("CUDA context lost"), f"process {p['index']} ended '{p['ended']}'")
        check(p["last_point"] == t, f"process {p['index']} stopped at point {p['last_point']}, the trap was at {t}")
    check(procs[-1]["ended"] == "completed", f"the last process ended '{procs[-1]['ended']}'")
    if len(procs) > 1:
        # The lost context's memory came back: the fresh process has about as much free as the first.
        check(procs[1]["device_free_bytes"] >= 0.9 * procs[0]["device_free_bytes"],
              f"free device memory {procs[0]['device_free_bytes']} -> {procs[1]['device_free_bytes']} after the restart")
    check(not any(f.startswith(".") for f in os.listdir(out)), "the saved state was left behind")
    print(f"{len(doc['records'])} records in {len(procs)} processes: " + "; ".join(
        f"#{p['index']} from point {p['first_point']} ({p['ended']})" for p in procs))
    finish()


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60)
        return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.TimeoutExpired):
        return 0


# A point that keeps a rank busy for minutes (many repetitions), for the killed-rank test.
LONG_POINT = {"multireduce": {"n": "2^26", "m": 256}, "histogram": {"n": "2^26", "bins": 256, "sample": "u32"},
              "sortedsearch": {"a_size": "2^24", "b_size": "2^24"}}


def rank_env(rank, world, tag, boot, extra=None):
    e = dict(os.environ)
    e.update({"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank), "LP_RANKS_TAG": tag, "LP_BOOTSTRAP": boot})
    e.update(extra or {})
    return e


def start_ranks(exe, cfg_path, out, ranks, world, tag, boot, work, extra=None):
    """Starts the given ranks of a job directly (no launcher: the harness alone must end them);
    returns {rank: (Popen, stderr path)}."""
    procs = {}
    for r in ranks:
        err = os.path.join(work, f"{tag}.rank{r}.err")
        with open(err, "w") as ef:
            procs[r] = (subprocess.Popen([exe, "--ranks", "--config", cfg_path, "--out", out, "--force"], stdout=subprocess.DEVNULL,
                                         stderr=ef, env=rank_env(r, world, tag, boot, extra)), err)
    return procs


def ended_within(proc, limit):
    """(exit code or None, seconds) of waiting up to `limit` s for proc."""
    t0 = time.monotonic()
    try:
        rc = proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        rc = None
    return rc, time.monotonic() - t0


def cmd_ranks(a):
    if gpu_count() < 2:
        print("fewer than two GPUs (nvidia-smi): skipped")
        sys.exit(77)
    with open(a.config) as f:
        cfg = json.load(f)
    study = cfg["study"]
    exe = os.path.join(a.bin, "bench-" + study)
    os.makedirs(a.work, exist_ok=True)
    cfg_path = os.path.join(a.work, "config.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=1)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    one, ranked = os.path.join(a.work, "one"), os.path.join(a.work, "ranks")

    # The same config as one process over two GPUs, and as two ranks.
    p1 = subprocess.run([exe, "--config", cfg_path, "--out", one, "--gpus", "2", "--force"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    p2 = subprocess.run([os.path.join(root, "scripts", "launch_ranks.sh"), "2", exe, "--ranks", "--config", cfg_path, "--out", ranked, "--force"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(f"two ranks: exit {p2.returncode} in {time.monotonic() - t0:.1f} s")
    if not check(p1.returncode == 0, f"one process over two GPUs: exit {p1.returncode}: {p1.stderr[-2000:]}") or \
            not check(p2.returncode == 0, f"two ranks: exit {p2.returncode}: {p2.stderr[-3000:]}"):
        finish()
    check(sorted(os.listdir(ranked)) == sorted([study + ".json", study + ".csv"]), f"the ranks wrote {sorted(os.listdir(ranked))}")
    with open(os.path.join(one, study + ".json")) as f:
        doc1 = json.load(f)
    with open(os.path.join(ranked, study + ".json")) as f:
        doc2 = json.load(f)
    check(doc2["meta"].get("ranks", {}).get("world") == 2, f"meta.ranks: {doc2['meta'].get('ranks')}")
    by_key = {key(r): r for r in doc1["records"]}
    ran = 0
    for r in doc2["records"]:
        what = f"{r['variant']} {json.dumps(r['params'])}"
        check(r["status"] != "failed", f"{what}: failed ({r['note']})")
        sharded = r["variant"].startswith("sharded_") or r["variant"] == "h2d_stream"
        if not sharded:
            check(r["status"] == "skipped", f"{what}: a one-GPU or CPU variant ran in the rank mode")
            continue
        other = by_key.get(key(r))
        if check(other is not None, f"{what}: not in the one-process run"):
            check((r["status"], r["validation"]) == (other["status"], other["validation"]),
                  f"{what}: ranks {r['status']}/{r['validation']} ({r['note']}), one process {other['status']}/{other['validation']} ({other['note']})")
        if r["status"] == "skipped":
            continue
        ran += 1
        m = r.get("metrics") or {}
        check(r["validation"] == "pass", f"{what}: validation {r['validation']} ({r['note']})")
        check(m.get("mode") == "ranks" and m.get("gpus") == 2, f"{what}: mode {m.get('mode')}, gpus {m.get('gpus')}")
        check(len(str(m.get("local_ms_by_rank", "")).split()) == 2, f"{what}: local_ms_by_rank '{m.get('local_ms_by_rank')}'")
    check(ran > 0, "no sharded record ran")
    print(f"{ran} sharded records validated as two ranks")

    # Rank 1 killed while both are busy: rank 0 ends within 30 s, naming it, and writes nothing.
    long_cfg = {"study": study, "seed": 1, "variants": [next(v for v in cfg["variants"] if v.startswith("sharded_"))],
                "points": [LONG_POINT[study]], "validate": False, "cache": "cold",
                "repetitions": {"warmup": 0, "min": 100000, "max": 100000, "budget_ms": 3600000, "target_rsd": 0}}
    long_path = os.path.join(a.work, "long.json")
    with open(long_path, "w") as f:
        json.dump(long_cfg, f)
    out = os.path.join(a.work, "killed")
    boot = os.path.join(a.work, "killed.id")
    procs = start_ranks(exe, long_path, out, [0, 1], 2, "killed", boot, a.work, {"LP_PROGRESS": "1"})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and procs[0][0].poll() is None and "[0/1" not in open(procs[0][1]).read():
        time.sleep(0.2)
    time.sleep(3)  # well into the repetitions
    procs[1][0].kill()
    rc, took = ended_within(procs[0][0], 60)
    procs[1][0].wait()
    err = open(procs[0][1]).read()
    print(f"rank 1 killed: rank 0 exit {rc} after {took:.1f} s: {err.strip().splitlines()[-1] if err.strip() else ''}")
    check(rc is not None and rc != 0, f"rank 0 after rank 1 was killed: exit {rc}")
    check(took <= 30, f"rank 0 took {took:.1f} s to end")
    check("rank 1" in err, f"rank 0's line does not name rank 1: {err[-500:]}")
    check(not os.path.exists(os.path.join(out, study + ".json")), "a results file after a killed rank")

    # Rank 1 never starts; then rank 0 never starts.
    # (Rank 1 alone is ended by whichever limit strikes first: the presence watch's or the bootstrap
    # file's; both name rank 0.)
    for present, missing, wants in ((0, 1, ("rank 1 never arrived",)), (1, 0, ("rank 0 never arrived", "rank 0 published no NCCL id"))):
        out = os.path.join(a.work, f"missing{missing}")
        procs = start_ranks(exe, cfg_path, out, [present], 2, f"missing{missing}", os.path.join(a.work, f"missing{missing}.id"), a.work,
                            {"LP_RANKS_TIMEOUT_S": "5"})
        rc, took = ended_within(procs[present][0], 60)
        err = open(procs[present][1]).read()
        print(f"rank {missing} never started: rank {present} exit {rc} after {took:.1f} s")
        check(rc is not None and rc != 0 and took <= 30, f"rank {present} alone: exit {rc} after {took:.1f} s")
        check(any(w in err for w in wants), f"rank {present} alone: none of {wants} in: {err[-500:]}")
        check(not os.path.exists(os.path.join(out, study + ".json")), f"a results file with rank {missing} missing")
    finish()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("test", choices=["order", "oom", "restart", "ranks"])
    p.add_argument("--bin", required=True, help="folder of bench and bench-<study>")
    p.add_argument("--config", required=True)
    p.add_argument("--gpu", action="store_true", help="order: the run needs a GPU (exit 77 without one)")
    p.add_argument("--max-size", type=size, default=0,
                   help="order: only points whose sizes are at most this (e.g. 2^17, for the sanitizer runs)")
    p.add_argument("--too-big", type=size, default=1 << 28, help="oom: the n that does not fit")
    p.add_argument("--faults", default="", help="restart: LP_INJECT_FAULT")
    p.add_argument("--skip", default="", help="order, oom: variants left out (a,b), e.g. one that races by design under racecheck")
    p.add_argument("--work", default=None, help="folder for the runs (default: a temporary one)")
    a = p.parse_args()
    if (a.gpu or a.test != "order") and not gpu_present():
        print("no GPU (nvidia-smi lists none): skipped")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        a.work = a.work or tmp
        {"order": cmd_order, "oom": cmd_oom, "restart": cmd_restart, "ranks": cmd_ranks}[a.test](a)


if __name__ == "__main__":
    main()
