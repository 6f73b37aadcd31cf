#!/usr/bin/env python3
"""`bench reproduce`: the thesis (or every study's default sweep) on this machine, with its figures
and a report that sets this run beside the thesis's numbers and the committed H100 run.

usage: bench reproduce thesis|all [--out DIR] [--quick] [--budget-min N] [--device N] [--plan] [--report-only]

  thesis  every config of configs/thesis/ (thesis chapters 2-5 and Appendix A/B); without a GPU,
          the CPU chapter (chapter 2) only, and the plan says so
  all     the thesis and every GPU study's default sweep (configs/<study>/default.json)

DIR (default runs/reproduce-<thesis|all>) receives <group>/<config>.json and .csv per config (the
group is the study; the CPU chapter's studies share cpu/), logs/ (each run's output), figures/
(scripts/plot_<study>.py per group), state.json (what ran, how long) and REPORT.md. Running the same
command again resumes: a config whose results are in DIR in the same mode is kept, not run again.
The CPU study's timings run first, alone; the cache simulator's runs (miss counts, no timings) run
beside the GPU configs.

--report-only remakes DIR's figures and REPORT.md from the results there and runs nothing (give it
the options of the run): a GPU machine without matplotlib runs, one with it reports.

--quick cuts every size to 2^20 and the repetitions (a smoke run: seconds per config on a CPU);
--budget-min N picks the largest size limit whose estimated time fits N minutes and stops starting
configs once the budget is spent. The estimate is each config's time in the committed full run on
the H100 (results/h100/reproduce/state.json: set-up and checks included, which dominate several
configs), scaled by the committed records to the sizes asked for; a config that ran before in DIR
takes its own time from DIR's state.json. Another GPU or host: expect it within about 2x.

Exit: 0 every config ran and its records validated; 1 a run failed or a record did not validate;
2 bad command line; 3 interrupted; 4 nothing ran.
"""
import argparse
import functools
import glob
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CPU_CHAPTER = ("cpu", "cachesim")  # the studies that need no GPU; their results share one folder
BESIDE_GPU = ("cachesim",)        # runs whose results are counts, not timings: they run beside the GPU configs
COMMITTED_GPU = "results/h100"     # the committed run the report compares with
COMMITTED_HOST = "results/h100-host"
COMMITTED_REPRODUCE = "results/h100/reproduce/state.json"  # the committed full run: its times per config
THESIS_VALUES = os.path.join(REPO, "docs", "thesis_values.json")
# The plotting script of each group, and whether it takes the group's folder or its files.
PLOTS = {
    "multireduce": ("plot_multireduce.py", "dir"), "histogram": ("plot_histogram.py", "dir"),
    "multiscan": ("plot_multiscan.py", "dir"), "cpu": ("plot_cpu.py", "dir"), "scatter": ("plot_scatter.py", "dir"),
    "sortedsearch": ("plot_sortedsearch.py", "png"), "patched": ("plot_patched.py", "file"),
    "join": ("plot_join.py", "file"), "primitives": ("plot_primitives.py", "file"), "decimal": ("plot_decimal.py", "file"),
}
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_NOTHING = 0, 1, 2, 3, 4
QUICK_LIMIT = 1 << 20


class Usage(Exception):
    pass


def fmt_duration(s):
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def pow2_label(x):
    k = int(round(math.log2(x))) if x > 0 else 0
    return f"2^{k}" if x > 0 and 2 ** k == x else str(x)


def load_json(path):
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


# --- the plan -------------------------------------------------------------------------------------

class Entry:
    """One config of the plan: where its results go and what it is compared with."""

    def __init__(self, config_path, chapter_of):
        self.path = config_path
        self.rel = os.path.relpath(config_path, os.path.join(REPO, "configs"))[:-len(".json")]
        try:
            doc = load_json(config_path)
            self.study = doc["study"]
            # Whether a point reads the histogram study's photographs (scripts/make_images.py).
            self.uses_images = self.study == "histogram" and '"image"' in json.dumps(doc)
        except (OSError, ValueError, KeyError) as e:
            raise Usage(f"{os.path.relpath(config_path, REPO)}: not a readable config ({e})")
        self.stem = os.path.basename(self.rel)
        self.group = "cpu" if self.study in CPU_CHAPTER else self.study
        self.chapter = chapter_of(self)
        self.needs_gpu = self.study not in CPU_CHAPTER
        self.estimate_s = None
        self.skip_reason = None

    def out_json(self, out):
        return os.path.join(out, self.group, self.stem + ".json")

    def committed(self):
        """The committed file this config's records are compared with (None where there is none)."""
        if self.group == "cpu":
            cands = [os.path.join(COMMITTED_HOST, self.stem + ".json")]
        else:
            # Else the default sweep (some folders name it after the study): a thesis figure never
            # run on its own there finds its variants in it.
            cands = [os.path.join(COMMITTED_GPU, self.group, n) for n in (self.stem + ".json", "default.json", self.study + ".json")]
        for c in cands:
            if os.path.exists(os.path.join(REPO, c)):
                return c
        return None


def thesis_chapter(entry):
    """The thesis chapter a config reproduces, from its name (fig4_13 -> 4, figB_1 -> B)."""
    if entry.group == "cpu":
        return "2"
    s = entry.stem
    for prefix in ("fig", "table"):
        if s.startswith(prefix) and len(s) > len(prefix):
            return s[len(prefix)]
    if s.startswith("appendix_"):
        return s.split("_")[1].upper()
    return "-"


def make_plan(target, bin_dir):
    paths = sorted(glob.glob(os.path.join(REPO, "configs", "thesis", "*.json")))
    try:
        figures = load_json(THESIS_VALUES).get("figures", [])
    except (OSError, ValueError):
        figures = []
    # The default sweeps that thesis figures are drawn from (Figs 4.18, 4.25: the multireduce's;
    # Table 4.3: the scatter's), as docs/thesis_values.json names them, with their chapters.
    named = {f.get("config", ""): str(f.get("chapter", "-")) for f in figures}
    for rel in named:
        p = os.path.join(REPO, "configs", rel + ".json")
        if os.path.exists(p) and p not in paths:
            paths.append(p)
    if target == "all":
        # Every GPU study's default sweep; the CPU studies' own defaults are left out: chapter 2's
        # configs above are their runs on this host's hierarchy (cachesim's default simulates the
        # developer VM's), and their results would share the cpu/ folder.
        for exe in sorted(glob.glob(os.path.join(bin_dir, "bench-*"))):
            study = os.path.basename(exe)[len("bench-"):]
            p = os.path.join(REPO, "configs", study, "default.json")
            if study not in CPU_CHAPTER and os.path.exists(p) and p not in paths:
                paths.append(p)
    entries = [Entry(p, lambda e: named.get(e.rel) if e.stem == "default" and e.rel in named else thesis_chapter(e))
               for p in paths]
    order = {"2": 0, "3": 1, "4": 2, "5": 3, "A": 4, "B": 5, "-": 6}
    entries.sort(key=lambda e: (order.get(e.chapter, 6), e.group, e.stem))
    return entries


def make_images():
    """The photographs the histogram figures read, made once where they are missing; None when they
    are there, else the reason they are not (the configs that need them are then not run)."""
    # bench-histogram runs in the source tree (below), so a relative LP_IMAGE_DIR is relative to it.
    folder = os.path.join(REPO, os.environ.get("LP_IMAGE_DIR") or os.path.join("build", "images"))
    if os.path.exists(os.path.join(folder, "camera.grey.u8")):
        return None
    r = subprocess.run([sys.executable, os.path.join(HERE, "make_images.py"), folder],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode == 0 and os.path.exists(os.path.join(folder, "camera.grey.u8")):
        print(f"  made the histogram study's photographs in {os.path.relpath(folder)}/")
        return None
    last = (r.stdout.strip().splitlines() or ["make_images.py failed"])[-1]
    return f"no photographs in {os.path.relpath(folder)}/ ({last.replace('make_images.py: ', '')})"


# --- estimates ------------------------------------------------------------------------------------

def largest_size(params):
    sizes = [v for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool) and v >= 1024 and k != "seed"]
    return max(sizes) if sizes else 1


@functools.lru_cache(maxsize=None)
def measured_walls():
    """Each config's wall time in the committed full run of `bench reproduce thesis` on the H100
    (its state.json), set-up and checks included: what the estimates start from."""
    try:
        runs = load_json(os.path.join(REPO, COMMITTED_REPRODUCE)).get("runs", {})
    except (OSError, ValueError):
        return {}
    return {k: v["wall_s"] for k, v in runs.items() if v.get("wall_s")}


def estimate(entry, size_limit, quick, state):
    """Seconds this config should take: its measured time in this DIR, else its time in the committed
    full run scaled to the sizes asked for, else a guess from the committed records."""
    key = state_key(entry, size_limit, quick)
    if key in state.get("runs", {}) and state["runs"][key].get("wall_s"):
        return state["runs"][key]["wall_s"]
    guess = records_estimate(entry, size_limit, quick)
    full = measured_walls().get(state_key(entry, None, False))
    if full is None:
        return guess
    if size_limit is None and not quick:
        return full
    whole = records_estimate(entry, None, False)
    return full * guess / whole if whole > 0 else guess


def records_estimate(entry, size_limit, quick):
    """A guess from the committed run's records: their timed repetitions and a set-up per point,
    scaled to the sizes asked for. It misses the checks' time (up to 10x the rest where many
    variants share a point: the multiscan figures), so it serves for scaling and as a last resort."""
    com = entry.committed()
    if com is None:
        return 60.0  # a config never run on the committed machine: a minute, said as a guess
    try:
        recs = load_json(os.path.join(REPO, com)).get("records", [])
    except (OSError, ValueError):
        return 60.0
    total, points = 0.0, {}
    for r in recs:
        size = largest_size(r.get("params", {}))
        scale = min(1.0, size_limit / size) if size_limit else 1.0
        points[json.dumps(r.get("params", {}), sort_keys=True)] = size * scale
        t = (r.get("time_ms") or {})
        if not t or t.get("median") is None:
            continue
        count = t.get("count") or 1
        warm = 2
        if quick:
            count, warm = min(count, 5), 1
        total += (count + warm) * t["median"] * scale / 1e3
    # Set-up per point: the inputs, the CPU reference and the check (about 40 ns an element on a
    # CPU core), and the launch of a point.
    total += sum(4e-8 * s + 0.05 for s in points.values())
    return total


def run_mode(size_limit, quick):
    """The mode a config runs in, as state.json and a result file's meta.config record it."""
    return "quick" if quick else (f"limit{size_limit}" if size_limit else "full")


def state_key(entry, size_limit, quick):
    return f"{entry.rel}|{run_mode(size_limit, quick)}"


def overlap_s(seconds):
    """Of these configs' seconds, how many overlap: the cache simulator's runs beside the GPU configs."""
    return min(sum(s for e, s in seconds.items() if e.study in BESIDE_GPU),
               sum(s for e, s in seconds.items() if e.needs_gpu))


# --- running --------------------------------------------------------------------------------------

class Progress:
    """One line, redrawn on a terminal; a line per config otherwise (logs, CI)."""

    def __init__(self, total_s, n):
        self.total_s, self.n, self.tty = max(total_s, 1e-9), n, sys.stdout.isatty()
        self.start = time.time()
        self.done_s = 0.0      # estimated seconds of the configs finished
        self.spent_s = 0.0     # their measured seconds
        self.done = 0

    def remaining(self, current_est, current_elapsed):
        scale = self.spent_s / self.done_s if self.done_s > 0 else 1.0  # learn from what ran
        left_est = self.total_s - self.done_s - current_est
        return max(0.0, left_est * scale + max(0.0, current_est * scale - current_elapsed))

    def draw(self, label, current_est, current_elapsed):
        if not self.tty:
            return
        frac = min(0.999, (self.done_s + min(current_est, current_elapsed)) / self.total_s)
        bar = "#" * int(frac * 24) + "." * (24 - int(frac * 24))
        line = (f"\r[{bar}] {self.done}/{self.n} {label[:34]:<34} {fmt_duration(time.time() - self.start)} elapsed, "
                f"~{fmt_duration(self.remaining(current_est, current_elapsed))} left ")
        sys.stdout.write(line)
        sys.stdout.flush()

    def finish(self, label, est, spent, status, overlapped=False):
        self.done += 1
        if not overlapped:  # a run beside the others: its time is not on the way to the end
            self.done_s += est
            self.spent_s += spent
        msg = (f"[{self.done}/{self.n}] {label}: {status} in {fmt_duration(spent)} "
               f"(~{fmt_duration(self.remaining(0, 0))} left)")
        if self.tty:
            sys.stdout.write("\r" + msg + " " * 20 + "\n")
        else:
            print(msg)
        sys.stdout.flush()


def count_records(path):
    try:
        recs = load_json(path).get("records", [])
    except (OSError, ValueError):
        return None
    c = {"ok": 0, "failed": 0, "skipped": 0}
    for r in recs:
        if r.get("status") == "ok" and r.get("validation") in ("pass", "skipped"):
            c["ok"] += 1
        elif r.get("status") == "skipped":
            c["skipped"] += 1
        else:
            c["failed"] += 1
    return c


def run_one(entry, args, size_limit, progress, stop, draw=True):
    """Runs one config into DIR; returns (status word, seconds, counts)."""
    scratch = os.path.join(args.out, ".runs", f"{entry.group}-{entry.stem}")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    cmd = [os.path.join(args.bin, "bench-" + entry.study), "--config", entry.path, "--out", scratch, "--force"]
    if args.quick:
        cmd.append("--quick")
    elif size_limit:
        cmd += ["--size-limit", str(size_limit)]
    if entry.needs_gpu and args.device is not None:
        cmd += ["--device", str(args.device)]
    log_path = os.path.join(args.out, "logs", f"{entry.group}-{entry.stem}.log")
    t0 = time.time()
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
        while proc.poll() is None:
            if stop["signal"]:
                proc.send_signal(signal.SIGINT)  # the run writes what it measured and exits 3
                proc.wait()
                break
            if draw:
                progress.draw(f"{entry.group}/{entry.stem}", entry.estimate_s, time.time() - t0)
            time.sleep(0.5)
    spent = time.time() - t0
    rc = proc.returncode
    produced = os.path.join(scratch, entry.study + ".json")
    if stop["signal"] or rc == EXIT_INTERRUPTED:
        return "interrupted", spent, None
    if not os.path.exists(produced):
        return f"failed (exit {rc}, nothing written; see logs/{os.path.basename(log_path)})", spent, None
    os.makedirs(os.path.join(args.out, entry.group), exist_ok=True)
    for ext in (".json", ".csv"):
        src = os.path.join(scratch, entry.study + ext)
        if os.path.exists(src):
            os.replace(src, os.path.join(args.out, entry.group, entry.stem + ext))
    shutil.rmtree(scratch, ignore_errors=True)
    counts = count_records(entry.out_json(args.out))
    if rc == EXIT_OK:
        word = "validated"
    elif rc == EXIT_NOTHING:
        word = "nothing ran"
    else:
        word = f"FAILED (exit {rc}; see logs/{os.path.basename(log_path)})"
    return word, spent, counts


def result_mode(path):
    """The mode a result file in DIR was run in (to keep it on resume only if it matches)."""
    try:
        cfg = load_json(path).get("meta", {}).get("config", {})
    except (OSError, ValueError):
        return None
    return run_mode(cfg.get("size_limit"), "quick" in cfg)


# --- figures --------------------------------------------------------------------------------------

def make_figures(args, groups):
    """scripts/plot_<group>.py over each group's results into DIR/figures/<group>/."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"bench reproduce: figures not made: matplotlib is missing for {sys.executable} "
              "(install Debian's python3-matplotlib, or set LP_PYTHON to a Python that has it)")
        return {}
    made = {}
    for group in groups:
        if group not in PLOTS:
            continue
        script, form = PLOTS[group]
        src = os.path.join(args.out, group)
        dst = os.path.join(args.out, "figures", group)
        os.makedirs(dst, exist_ok=True)
        files = sorted(glob.glob(os.path.join(src, "*.json")))
        if not files:
            continue
        if form == "dir":
            call = [src, dst]
        elif form == "png":
            call = [files[0], os.path.join(dst, os.path.basename(files[0])[:-5] + ".png")]
        else:
            call = files + [dst]
        r = subprocess.run([sys.executable, os.path.join(HERE, script)] + call, capture_output=True, text=True)
        with open(os.path.join(args.out, "logs", f"figures-{group}.log"), "w") as f:
            f.write(r.stdout + r.stderr)
        made[group] = sorted(os.path.relpath(p, args.out) for p in glob.glob(os.path.join(dst, "*"))
                             if p.endswith((".png", ".md")))
        if r.returncode != 0:
            print(f"bench reproduce: {script} failed for {group} (logs/figures-{group}.log)")
    return made


# --- the report -----------------------------------------------------------------------------------

def matches(rec, variant, params, loose):
    if rec.get("variant") != variant or rec.get("status") != "ok" or rec.get("validation") == "fail":
        return False
    p = rec.get("params", {})
    for k, v in params.items():
        if k not in p:
            return False
        if loose and isinstance(v, (int, float)) and not isinstance(v, bool) and k in loose:
            continue  # a size cut by --quick / --size-limit: compared at the size this run had
        a, b = p[k], v
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if not math.isclose(a, b, rel_tol=1e-9):
                return False
        elif str(a) != str(b):
            return False
    return True


def point_value(recs, pt, loose=()):
    vals = [r["ns_per_input"] for r in recs if r.get("ns_per_input") is not None and matches(r, pt["variant"], pt["params"], loose)]
    if not vals:
        return None
    agg = pt.get("agg", "min")
    vals.sort()
    return {"min": vals[0], "max": vals[-1], "median": vals[len(vals) // 2]}[agg]


def fmt_ns(x):
    if x is None:
        return "—"
    return f"{x:.3g}"


def fmt_ratio(x):
    if x is None:
        return "—"
    return f"{x:.2f}x" if x < 10 else f"{x:.0f}x"


def figure_verdict(rows, here_name, cpu_chapter):
    """One line: how this run compares with the thesis and the committed H100 run."""
    speed = [r["thesis"] / r["here"] for r in rows if r["here"] and r["thesis"]]
    vs_h100 = [r["here"] / r["h100"] for r in rows if r["here"] and r["h100"]]
    if not any(r["here"] for r in rows):
        return "not measured in this run"
    theirs = "the thesis's CPUs" if cpu_chapter else "the thesis's GTX 690"
    ours = "the committed run on the H100 machine's host" if cpu_chapter else "the committed H100 run"
    parts = []
    if speed:
        lo, hi = min(speed), max(speed)
        if lo >= 1:
            parts.append(f"{fmt_ratio(lo)}–{fmt_ratio(hi)} faster than {theirs}" if hi / lo > 1.05
                         else f"{fmt_ratio(lo)} faster than {theirs}")
        elif hi <= 1:
            parts.append(f"{fmt_ratio(1 / hi)}–{fmt_ratio(1 / lo)} slower than {theirs}")
        else:
            parts.append(f"between {fmt_ratio(1 / lo)} slower and {fmt_ratio(hi)} faster than {theirs}")
    if vs_h100:
        lo, hi = min(vs_h100), max(vs_h100)
        if lo >= 0.9 and hi <= 1.1:
            parts.append(f"within 10% of {ours}")
        else:
            parts.append(f"{lo:.2f}–{hi:.2f}x the time of {ours}")
    return f"{here_name}: " + "; ".join(parts) if parts else "no point comparable"


def write_report(args, plan, state, gpu, size_limit, figures, outcome):
    try:
        values = load_json(THESIS_VALUES)
    except (OSError, ValueError) as e:
        values = {"figures": []}
        print(f"bench reproduce: no thesis values ({e}); the report lists the runs only")
    by_rel = {e.rel: e for e in plan}
    here_docs, h100_docs = {}, {}
    for e in plan:
        p = e.out_json(args.out)
        if os.path.exists(p):
            here_docs[e.rel] = load_json(p)
        c = e.committed()
        if c:
            h100_docs[e.rel] = load_json(os.path.join(REPO, c))
    # The GPU the results in DIR ran on (this machine's where none did: --report-only elsewhere).
    ran_on = next((d["meta"]["gpu"] for d in here_docs.values() if (d.get("meta", {}).get("gpu") or {}).get("present")), None)
    gpu = ran_on or gpu
    machine = gpu.get("name") if gpu.get("present") else "no GPU (" + (gpu.get("reason") or "none found") + ")"
    host = next((d["meta"].get("host", {}).get("cpu") for d in here_docs.values() if d.get("meta", {}).get("host")), None)
    commit = next((d["meta"].get("git_commit") for d in here_docs.values() if d.get("meta", {}).get("git_commit")), "unknown")
    mode = "quick: sizes cut to 2^20, few repetitions" if args.quick else (
        f"sizes cut to {pow2_label(size_limit)} (--budget-min {args.budget_min})" if size_limit else "full sizes")
    L = [f"# Reproducing the thesis on {gpu.get('name') if gpu.get('present') else 'a machine without a GPU'}", "",
         f"`bench reproduce {args.target}` ({mode}), commit `{commit}`, written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
         f"GPU: {machine}. Host CPU: {host or 'unknown'}.", ""]
    if not gpu.get("present"):
        L += ["**No GPU:** only the thesis's CPU chapter (chapter 2: the `cpu` and `cachesim` studies) was "
              "reproduced; the GPU chapters are listed below as not run.", ""]
    if args.quick or size_limit:
        L += ["**Sizes were cut**: ns per input at small sizes is not the thesis's regime (launch and set-up "
              "weigh more); points marked † were compared at this run's size, not the thesis's.", ""]
    L += [f"**Outcome:** {outcome}", "", "## The runs", "",
          "| config | study | records: validated / failed / skipped | time | estimate | compared with |", "|---|---|---|---|---|---|"]
    for e in plan:
        run = state["runs"].get(state_key(e, size_limit, args.quick), {})
        c = count_records(e.out_json(args.out)) if e.rel in here_docs else None
        recs = f"{c['ok']} / {c['failed']} / {c['skipped']}" if c else (e.skip_reason or run.get("status") or "not run")
        est = run.get("estimate_s") or e.estimate_s
        L.append(f"| `configs/{e.rel}.json` | {e.study} | {recs} | {fmt_duration(run['wall_s']) if run.get('wall_s') else '—'} | "
                 f"{fmt_duration(est) if est else '—'} | "
                 f"{('`' + e.committed() + '`') if e.committed() else '—'} |")
    walls = {e: state["runs"].get(state_key(e, size_limit, args.quick), {}).get("wall_s") or 0 for e in plan}
    total = sum(walls.values())
    beside = overlap_s(walls)
    if total:
        L += ["", f"The configs' times add up to {fmt_duration(total)}"
              + (f"; the cache simulator's {fmt_duration(beside)} ran beside the GPU configs, so the run took about "
                 f"{fmt_duration(total - beside)}" if beside else "") + " (resumed runs: the time of each config's last run)."]
    L += ["", "## Figure by figure", "",
          "Each thesis figure or table with the numbers the thesis states (docs/thesis_values.json: one GPU of a "
          "GeForce GTX 690, CUDA 5.0; the CPU chapter on the thesis's hosts), the committed H100 run "
          f"(`{COMMITTED_GPU}/`, its host's CPU in `{COMMITTED_HOST}/`) and this run, in ns per input (lower is "
          "faster). `thesis / here` > 1: this run is faster than the thesis; `here / H100` > 1: slower than our H100.", ""]
    # With sizes cut, a point is still found at this run's input count (n); a cut bucket count or
    # key count is another regime, so such a point stays unmatched.
    cut = {"n"} if (args.quick or size_limit) else set()
    for fig in values.get("figures", []):
        e = by_rel.get(fig.get("config"))
        L.append(f"### {fig['id']} — {fig.get('study', '')} (`configs/{fig.get('config')}.json`)")
        L.append("")
        if fig.get("claim"):
            L += [f"Thesis: {fig['claim']}", ""]
        if e is None:
            L += ["Not in this plan (`bench reproduce all` runs it).", ""]
            continue
        rows = []
        here = here_docs.get(e.rel, {}).get("records", [])
        base = h100_docs.get(e.rel, {}).get("records", [])
        for pt in fig.get("points", []):
            v_here = point_value(here, pt)
            dagger = ""
            if v_here is None and cut:
                v_here = point_value(here, pt, cut)
                dagger = " †" if v_here is not None else ""
            rows.append({"label": pt["label"] + dagger, "thesis": pt.get("thesis"), "bound": pt.get("bound", ""),
                         "h100": point_value(base, pt), "here": v_here})
        if rows:
            L += ["| point | thesis | H100 (committed) | here | thesis / here | here / H100 |", "|---|---|---|---|---|---|"]
            for r in rows:
                th = (r["bound"] + " " if r["bound"] else "") + fmt_ns(r["thesis"])
                L.append(f"| {r['label']} | {th} | {fmt_ns(r['h100'])} | {fmt_ns(r['here'])} | "
                         f"{fmt_ratio(r['thesis'] / r['here']) if r['here'] and r['thesis'] else '—'} | "
                         f"{fmt_ratio(r['here'] / r['h100']) if r['here'] and r['h100'] else '—'} |")
            L += ["", "**Verdict:** " + figure_verdict(rows, "this run", e.group == "cpu"), ""]
        else:
            L += ["The thesis states no number here; see the figure.", ""]
    if figures:
        L += ["## Figures", ""]
        for group, files in sorted(figures.items()):
            L.append(f"- {group}: " + ", ".join(f"[{os.path.basename(f)}]({f})" for f in files))
        L.append("")
    L += ["Each figure's notes (what the thesis saw and why ours differs) are in the committed results' "
          "`notes.md` and READMEs: `results/h100/<study>/` in the repository.", ""]
    tmp = os.path.join(args.out, ".REPORT.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(L))
    os.replace(tmp, os.path.join(args.out, "REPORT.md"))


# --- main -----------------------------------------------------------------------------------------

def gpu_info(bin_dir, device):
    exe = os.path.join(bin_dir, "bench-multireduce")
    if not os.access(exe, os.X_OK):
        return {"present": False, "reason": f"no bench-multireduce in {bin_dir}"}
    cmd = [exe, "--gpu-info"] + (["--device", str(device)] if device is not None else [])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError, OSError) as e:
        return {"present": False, "reason": f"could not ask ({e})"}


def parse(argv):
    class OneLine(argparse.ArgumentParser):
        def error(self, message):  # one line naming the problem, as every bench command does
            print(f"bench reproduce: {message} (see bench reproduce --help)", file=sys.stderr)
            raise SystemExit(EXIT_USAGE)

    ap = OneLine(prog="bench reproduce", add_help=True,
                                 description="Runs the thesis configs (or every study's default) on this machine, "
                                             "then writes figures/ and REPORT.md beside the results.")
    ap.add_argument("target", choices=["thesis", "all"])
    ap.add_argument("--out", help="folder of the results, figures and report (default runs/reproduce-TARGET); "
                                  "the same folder again resumes")
    ap.add_argument("--quick", action="store_true", help="sizes cut to 2^20 and few repetitions: a smoke run")
    ap.add_argument("--budget-min", type=float, help="fit the run into about N minutes (cuts sizes; stops starting configs when spent)")
    ap.add_argument("--device", type=int, help="CUDA device ordinal")
    ap.add_argument("--plan", action="store_true", help="print the plan and its estimate, run nothing")
    ap.add_argument("--report-only", action="store_true",
                    help="remake DIR's figures and REPORT.md from the results there, run nothing "
                         "(a GPU machine without matplotlib: copy DIR to one that has it)")
    ap.add_argument("--bin", default=os.path.join(REPO, "build", "bin"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.budget_min is not None and args.budget_min <= 0:
        raise Usage("--budget-min: expected minutes above 0")
    if args.device is not None and args.device < 0:
        raise Usage(f"--device: a CUDA device ordinal is 0 or more, got {args.device}")
    if args.quick and args.budget_min:
        raise Usage("--quick and --budget-min: choose one (--quick is already the shortest)")
    # Absolute: the runs start in the source tree (configs/ paths), not where bench was called.
    args.out = os.path.abspath(args.out or os.path.join("runs", f"reproduce-{args.target}"))
    return args


def main(argv):
    try:
        args = parse(argv)
        if not os.path.isdir(args.bin):
            raise Usage(f"no binaries in {args.bin} (build first: scripts/build.sh)")
        plan = make_plan(args.target, args.bin)
    except Usage as e:
        print(f"bench reproduce: {e}", file=sys.stderr)
        return EXIT_USAGE
    gpu = gpu_info(args.bin, args.device)
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "state.json")
    try:
        state = load_json(state_path) if os.path.exists(state_path) else {}
    except ValueError:
        state = {}
    state.setdefault("runs", {})
    if not gpu.get("present") and not args.report_only:
        for e in plan:
            if e.needs_gpu:
                e.skip_reason = "not run: no GPU"
    wants_images = [e for e in plan if not e.skip_reason and e.uses_images]
    if wants_images and not args.plan and not args.report_only:
        missing = make_images()
        for e in wants_images:
            e.skip_reason = f"not run: {missing}" if missing else None
    todo = [e for e in plan if not e.skip_reason]

    # The size limit: full sizes, unless --quick or the budget asks for less.
    size_limit = QUICK_LIMIT if args.quick else None
    def total(limit):
        return sum(estimate(e, limit, args.quick, state) for e in todo)
    if args.budget_min and not args.quick:
        for k in [None] + list(range(27, 15, -1)):
            size_limit = None if k is None else 1 << k
            if total(size_limit) <= args.budget_min * 60:
                break
    for e in todo:
        e.estimate_s = estimate(e, size_limit, args.quick, state)

    mode = "quick" if args.quick else (f"sizes cut to {pow2_label(size_limit)}" if size_limit else "full sizes")
    print(f"bench reproduce {args.target}: {len(todo)} configs on "
          f"{gpu.get('name') if gpu.get('present') else 'the CPU only'} ({mode}), into {args.out}/")
    if not gpu.get("present") and not args.report_only:
        print(f"  {gpu.get('reason') or 'no GPU'}: the thesis's CPU chapter only; "
              f"{sum(1 for e in plan if e.needs_gpu)} GPU configs are not run")
    def kept(e):  # its results are in DIR, run in this mode
        return os.path.exists(e.out_json(args.out)) and result_mode(e.out_json(args.out)) == run_mode(size_limit, args.quick)
    done_before = 0
    for e in plan:
        status = e.skip_reason or ""
        if not status and kept(e):
            status = "done (kept)"
            done_before += 1
        est = fmt_duration(e.estimate_s) if e.estimate_s is not None else ""
        print(f"  ch {e.chapter:<2} {e.group + '/' + e.stem:<34} {est:>8}  {status}")
    left = [e for e in todo if not kept(e)]
    est_left = sum(e.estimate_s for e in left)
    est_left -= overlap_s({e: e.estimate_s for e in left})  # the simulator's runs beside the GPU configs (below)
    if args.report_only:
        print(f"  report only: the figures and REPORT.md from the results in {args.out}/, nothing is run")
    else:
        print(f"  estimate: {fmt_duration(est_left)} for {len(left)} configs"
              + (f" ({done_before} kept from an earlier run)" if done_before else "")
              + (f"; budget {args.budget_min:g} min" if args.budget_min else ""))
    if args.plan:
        return EXIT_OK
    if args.report_only:
        left = []

    stop = {"signal": False}
    def on_signal(signum, frame):
        stop["signal"] = True
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    progress = Progress(est_left, len(left))
    tally = {"failed": 0, "interrupted": 0}
    lock = threading.Lock()
    t_start = time.time()

    def run_list(entries, draw):
        for e in entries:
            if stop["signal"]:
                return
            if args.budget_min and time.time() - t_start + 0.5 * e.estimate_s > args.budget_min * 60:
                e.skip_reason = "not run: the budget was spent"
                print(f"  {e.group}/{e.stem}: {e.skip_reason}")
                continue
            word, spent, counts = run_one(e, args, size_limit, progress, stop, draw)
            with lock:
                if word == "interrupted":
                    tally["interrupted"] += 1
                    print(f"\nbench reproduce: interrupted in {e.group}/{e.stem}; run the same command again to resume")
                    return
                if not word.startswith("validated") and word != "nothing ran":
                    tally["failed"] += 1
                state["runs"][state_key(e, size_limit, args.quick)] = {"wall_s": round(spent, 1), "estimate_s": round(e.estimate_s, 1),
                                                                      "status": word, "counts": counts}
                tmp = state_path + ".tmp"
                with open(tmp, "w") as f:
                    json.dump(state, f, indent=1)
                os.replace(tmp, state_path)
                progress.finish(f"{e.group}/{e.stem}", e.estimate_s, spent, word, overlapped=not draw)

    # The cache simulator's runs count misses (no timing a GPU run would disturb, one core each):
    # they run beside the GPU configs rather than before them. The CPU study's timings run first, alone.
    beside = [e for e in left if e.study in BESIDE_GPU] if any(e.needs_gpu for e in left) else []
    run_list([e for e in left if not e.needs_gpu and e not in beside], True)
    helper = threading.Thread(target=run_list, args=(beside, False), daemon=True)
    helper.start()
    run_list([e for e in left if e.needs_gpu], True)
    while helper.is_alive():  # the signal handler runs on this thread: wait in short steps
        helper.join(0.5)
    failed, interrupted = tally["failed"], tally["interrupted"]

    ran = [e for e in plan if os.path.exists(e.out_json(args.out))]
    figures = make_figures(args, sorted({e.group for e in ran}))
    counts = [count_records(e.out_json(args.out)) or {"ok": 0, "failed": 0, "skipped": 0} for e in ran]
    ok = sum(c["ok"] for c in counts)
    bad = sum(c["failed"] for c in counts)
    skipped_cfg = [e for e in plan if e.skip_reason]
    outcome = (f"{len(ran)} of {len(plan)} configs have results: {ok} records validated, {bad} failed"
               + (f"; {len(skipped_cfg)} configs not run ({skipped_cfg[0].skip_reason.replace('not run: ', '')}"
                  + (", ..." if len({e.skip_reason for e in skipped_cfg}) > 1 else "") + ")" if skipped_cfg else ""))
    write_report(args, plan, state, gpu, size_limit, figures, outcome)
    print(f"bench reproduce: {outcome}. Report: {os.path.join(args.out, 'REPORT.md')}")
    if interrupted:
        return EXIT_INTERRUPTED
    if failed or bad:
        return EXIT_FAILED
    return EXIT_OK if ran and ok else EXIT_NOTHING


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
