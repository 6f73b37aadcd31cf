#!/usr/bin/env python3
"""Every figure and table of every study, from the committed results, with one command.

  scripts/figures.py [--results DIR] [--out DIR] [--check] [--gallery]

Without --out, figures are written where they are committed (results/<machine>/...). Each figure
is saved with <name>.series.json beside it: the data it plots. --check regenerates everything into
a temporary folder and compares the plotted data (not the pixels) and the tables with the
committed ones: it fails if a committed figure no longer comes from the committed results, or if
one is missing. --gallery writes results/README.md, a line per figure, naming the thesis figure
each reproduces. Needs Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (study, plotting script, its input under --results, its output under --results). The script is
# called as `script INPUT OUTPUT`; an output ending in .png is one figure, else a folder. An input
# may be several paths joined by "+" (a GPU's run and its host's CPU run): `script IN1 IN2 OUTPUT`.
JOBS = [
    ("sortedsearch", "plot_sortedsearch.py", "h100/sortedsearch/default.json", "h100/sortedsearch/figures/default.png"),
    ("sortedsearch ratios", "plot_sortedsearch_ratios.py",
     "h100/sortedsearch/ratios_int32.json+h100/sortedsearch/ratios_int64.json+h100/sortedsearch/ratios_a24.json",
     "h100/sortedsearch/figures"),
    ("sortedsearch, CUB's sorted-needle searches (H200, CCCL 3.6)", "plot_sortedsearch_ratios.py",
     "h200/sortedsearch/ratios_cub_sorted_quick.json+h200/sortedsearch/ratios_cub_sorted_families.json",
     "h200/sortedsearch/figures/cub_sorted"),
    ("sortedsearch, CUB's sorted-needle searches (H100, CCCL 3.6; int32 distinct keys)", "plot_sortedsearch_ratios.py",
     "h100/sortedsearch/ratios_cub_sorted_quick.json", "h100/sortedsearch/figures/cub_sorted"),
    ("multireduce", "plot_multireduce.py", "h100/multireduce", "h100/multireduce/figures"),
    ("histogram", "plot_histogram.py", "h100/histogram", "h100/histogram/figures"),
    ("multiscan", "plot_multiscan.py", "h100/multiscan", "h100/multiscan/figures"),
    ("cpu, cachesim (dev VM)", "plot_cpu.py", "dev-vm", "dev-vm/figures"),
    ("cpu, cachesim (H100 host)", "plot_cpu.py", "h100-host", "h100-host/figures"),
    ("cpu, cachesim (H200 host: the timing model, the threaded multireduce)", "plot_cpu.py", "h200-host", "h200-host/figures"),
    ("cpu, cachesim (H200 host, first call: one probe round, threads unpinned)", "plot_cpu.py", "h200-host/unpinned_one_probe_round",
     "h200-host/unpinned_one_probe_round/figures"),
    ("patched", "plot_patched.py", "h100/patched/patched.json", "h100/patched/figures"),
    ("patched, float columns (H200)", "plot_patched.py", "h200/patched/alp.json", "h200/patched/figures/alp"),
    ("scatter", "plot_scatter.py", "h100/scatter", "h100/scatter/figures"),
    ("join (dev VM: CPU joins, DuckDB)", "plot_join.py", "dev-vm/join/join.json", "dev-vm/join/figures"),
    ("join (H100, its host's CPU joins and DuckDB)", "plot_join.py", "h100/join/join.json+h100-host/join/join.json", "h100/join/figures"),
    ("join (H200: its GPU joins, phj among them)", "plot_join.py", "h200/join/default.json", "h200/join/figures"),
    ("primitives", "plot_primitives.py", "h100/primitives/primitives.json", "h100/primitives/figures"),
    ("decimal (H100, its host's CPU query and DuckDB)", "plot_decimal.py",
     "h100/decimal/decimal.json+h100-host/decimal/decimal.json+h100-host/decimal/duckdb.json", "h100/decimal/figures"),
    ("several GPUs (two H200s)", "plot_scaling.py", "h200x2/multi-gpu", "h200x2/multi-gpu/figures"),
    ("several GPUs (four H100s)", "plot_gpus.py", "h100x4/scaleout", "h100x4/scaleout/figures"),
    ("several GPUs: one process against a process per GPU (two H200s)", "plot_ranks.py", "h200x2/multi-gpu", "h200x2/multi-gpu/figures/ranks"),
    ("several GPUs: one process against a process per GPU (four H200s)", "plot_ranks.py", "h200x4/multi-gpu", "h200x4/multi-gpu/figures"),
    ("regret", "plot_regret.py", "h100/regret/judged", "h100/regret/judged/figures"),
    ("regret, fitting draw", "plot_regret.py", "h100/regret/fit", "h100/regret/fit/figures"),
    ("regret, the first rules (partial)", "plot_regret.py", "h100/regret/fit/first_rules", "h100/regret/fit/first_rules/figures"),
    ("regret, the second rules' judging draw (partial)", "plot_regret.py", "h100/regret/fit/second_rules",
     "h100/regret/fit/second_rules/figures"),
    ("regret, the worst points rechecked", "plot_regret.py", "h100/regret/recheck", "h100/regret/recheck/figures"),
]

# Studies whose results may not be committed yet (a study lands before its first GPU run): their
# job takes part (regeneration, --check, the gallery) once its first input (the GPU's run) exists,
# and is left out until then; a later input still missing (the host's run) is the plotting script's
# to skip in one line, and the figures are made without it. Every other job's missing figures still
# fail --check.
OPTIONAL = {"decimal (H100, its host's CPU query and DuckDB)", "sortedsearch ratios"}


def active_jobs(results):
    return [j for j in JOBS if j[0] not in OPTIONAL or os.path.exists(os.path.join(results, j[2].split("+")[0]))]

# The thesis's (or the reference's) figure each of ours reproduces; ours beyond the documents say so.
# Keyed by the output's name without its extension; "study:name" (the study of JOBS) comes first,
# for a name that several studies use.
REFERENCE = {
    "sortedsearch:default": "ModernGPU's sorted-search benchmark (the reference page's throughput figure)",
    "ratios_lower": "beyond ModernGPU: the lower bound against |B| / |A|",
    "ratios_complete": "beyond ModernGPU: the complete search against |B| / |A|",
    "ratios_targets": "beyond ModernGPU: the ratio sweep's targets at every ratio",
    "fig2_1": "thesis Fig 2.1", "fig2_2": "thesis Fig 2.2", "fig2_4": "thesis Fig 2.4", "fig2_5": "thesis Fig 2.5",
    "fig2_7": "thesis Fig 2.7", "fig2_8": "thesis Fig 2.8", "table2_1": "thesis Table 2.1",
    "sim_vs_measured": "beyond the thesis: the cache simulator's predictions against measurement",
    "threads": "beyond the thesis: multireduce on several CPU threads",
    "threads_m": "beyond the thesis: the threaded multireduces against the streaming read at every m",
    "model_curves": "beyond the thesis: the timing model's calibration, latency curves from the probes",
    "model_targets": "beyond the thesis: the timing model's targets (error at every m, sort-bits recommendation)",
    "sim_speed": "beyond the thesis: the cache simulator's speed per hierarchy preset",
    "fig3_6": "thesis Fig 3.6", "fig4_7_4_8": "thesis Figs 4.7 and 4.8", "fig4_9": "thesis Fig 4.9",
    "fig4_10_4_11": "thesis Figs 4.10 and 4.11", "fig4_13": "thesis Fig 4.13", "fig4_15": "thesis Fig 4.15",
    "fig4_16": "thesis Fig 4.16", "fig4_18_4_19": "thesis Figs 4.18 and 4.19", "fig4_21_4_22": "thesis Figs 4.21 and 4.22",
    "fig4_24": "thesis Fig 4.24", "fig4_25": "thesis Fig 4.25", "table4_1": "thesis Table 4.1", "table4_2": "thesis Table 4.2",
    "fig4_4": "thesis Fig 4.4", "fig4_23": "thesis Fig 4.23", "figA_1_A_2": "thesis Figs A.1 and A.2",
    "bins": "beyond the thesis: histograms of up to 2^20 bins", "targets": "beyond the thesis: the study's targets",
    "auto": "beyond the thesis: auto against the best variant at every point of the default sweeps",
    "fig5_4": "thesis Fig 5.4", "fig5_5": "thesis Fig 5.5", "fig5_7": "thesis Fig 5.7", "fig5_8": "thesis Fig 5.8",
    "fig5_9": "thesis Fig 5.9", "figB_1_B_2": "thesis Figs B.1 and B.2",
    "summary": "beyond the thesis: every variant family against the peers and the copy ceiling",
    "patched_rate": "beyond the thesis: Vortex PatchedArray / G-ALP decode + patch against the patch rate",
    "patched_bit_width": "beyond the thesis: Vortex PatchedArray / G-ALP decode + patch against the bit width",
    "join_size": "He et al. 2008's time against relation size, with DuckDB beside",
    "join_table": "He et al. 2008's speed-up table (GPU vs CPU vs DuckDB)",
    "join_skew": "beyond He et al. 2008: join throughput against key skew (Paul et al. 2020's question)",
    "join_targets": "beyond He et al. 2008: the join study's targets as measured ratios",
    "primitives": "He et al. 2008's primitives (3.1) against the copy ceiling and the libraries",
    "table4_3": "thesis Table 4.3", "sort_bits": "thesis 4.5.1 (sortBits)",
    "scatter_ns": "beyond the thesis: every GPU scatter variant against m, with the random-access probe and Table 4.3",
    "gather_ns": "beyond the thesis: every GPU gather variant against m, with the random-access probe",
    "scatter:summary": "beyond the thesis: the best scatter and gather against the random-access probe, thrust, cub_sort and auto",
    "decimal_uniform": "beyond the documents: the decimal article's query, every variant against m per type, uniform products",
    "decimal_zipf": "beyond the documents: the decimal article's query, every variant against m per type, zipf products",
    "decimal_types": "beyond the documents: what decimal128 costs against decimal64 and double (the decimal article's question)",
    "decimal_targets": "beyond the documents: the decimal study's targets as measured ratios",
    "scaling_m": "beyond the documents: multireduce and histogram on two GPUs against one over m, with the model",
    "scaling_n": "beyond the documents: the scaling efficiency of two GPUs against n, with the model",
    "streaming": "beyond the documents: 32 GiB streamed from host memory against the host-to-device probe",
    "scaling_targets": "beyond the documents: the two-GPU targets as measured ratios, and the model's error",
    "gpus_m": "beyond the documents: multireduce and histogram on 2 and 4 GPUs against one over m, with the model",
    "gpus_efficiency": "beyond the documents: scaling efficiency against the GPU count, with the model",
    "sortedsearch_gpus": "beyond ModernGPU: sorted search over several GPUs, merge-path cuts and the gather",
    "streaming_gpus": "beyond the documents: 32 GiB streamed from host memory to 1, 2 and 4 GPUs against the probe",
    "gpus_targets": "beyond the documents: the multi-GPU targets on four GPUs as measured ratios, and the model's error",
    "ranks_modes": "beyond the documents: N GPUs over one, one process driving them all against a process per GPU (--ranks)",
    "ranks_unaccounted": "beyond the documents: the time no phase holds, one process against a process per GPU",
    "ranks_sortedsearch": "beyond ModernGPU: sorted search on two GPUs, indices gathered or left on each GPU, exact or aligned cuts, both modes",
    "ranks_targets": "beyond the documents: the rank mode's targets as measured ratios, the model with its overheads and its 8- and 16-GPU prediction",
    "regret": "ours, beyond the documents: every study's auto against the best variant and the best peer at the regret sweep's "
              "random points (configs/regret/), the targets as measured",
}
# The regret sweep's figures (scripts/plot_regret.py): one per study.
REFERENCE.update({f"regret_{s}": f"ours, beyond the documents: {s}'s {a} against the best other variant at the regret sweep's random points"
                  for s, a in [(s, "auto") for s in ("multireduce", "multiscan", "histogram", "scatter", "patched", "join", "decimal")]
                  + [("sortedsearch", "auto_lower, auto_upper and auto_complete")]})


def regenerate(results, out):
    """Runs every plotting script; returns the failures."""
    failures = []
    for study, script, src, dst in active_jobs(results):
        target = os.path.join(out, dst)
        os.makedirs(target if not target.endswith(".png") else os.path.dirname(target), exist_ok=True)
        cmd = [sys.executable, os.path.join(HERE, script)] + [os.path.join(results, p) for p in src.split("+")] + [target]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            failures.append(f"{study}: {script} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return failures


def outputs(root, dst):
    """The figure PNGs and tables of one job, as paths relative to `root`."""
    path = os.path.join(root, dst)
    if dst.endswith(".png"):
        return [dst] if os.path.exists(path) else []
    if not os.path.isdir(path):
        return []
    return sorted(os.path.join(dst, f) for f in os.listdir(path) if f.endswith((".png", ".md")))


def close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    return a == b


def check(results, fresh):
    problems = []
    for study, _, _, dst in active_jobs(results):
        committed = outputs(results, dst)
        if not committed:
            problems.append(f"{dst}: no committed figures")
        for rel in committed:
            if rel.endswith(".md"):
                mine, new = os.path.join(results, rel), os.path.join(fresh, rel)
                if not os.path.exists(new):
                    problems.append(f"{rel}: the scripts no longer make it")
                elif open(mine).read() != open(new).read():
                    problems.append(f"{rel}: the table differs from what the committed results give")
                continue
            series = rel[:-4] + ".series.json"
            mine, new = os.path.join(results, series), os.path.join(fresh, series)
            if not os.path.exists(mine):
                problems.append(f"{rel}: no {os.path.basename(series)} committed beside it (run scripts/figures.py)")
            elif not os.path.exists(new):
                problems.append(f"{rel}: the scripts no longer make it")
            else:
                a, b = json.load(open(mine)), json.load(open(new))
                if not close(a, b):
                    problems.append(f"{rel}: its plotted data differ from what the committed results give")
    return problems


def title_of(root, rel):
    if rel.endswith(".md"):
        for line in open(os.path.join(root, rel)):
            if line.startswith("#"):
                return line.lstrip("#").strip()
        return ""
    s = json.load(open(os.path.join(root, rel[:-4] + ".series.json")))
    t = s.get("suptitle") or next((a["title"] for a in s["axes"] if a["title"]), "")
    return t.splitlines()[0] if t else ""


def gallery(results):
    lines = ["# Results gallery", "",
             "Every figure and table of the studies, made from the committed results by `scripts/figures.py`",
             "(which writes this page; `scripts/figures.py --check` verifies that each figure still comes from",
             "the committed results). One line each: ours, and the figure of the thesis (or reference) it",
             "reproduces. The notes beside the results (each study folder's `notes.md` and README) read them.", ""]
    for study, _, _, dst in active_jobs(results):
        lines.append(f"## {study}: `{dst}`")
        lines.append("")
        for rel in outputs(results, dst):
            name = os.path.splitext(os.path.basename(rel))[0]
            ref = REFERENCE.get(f"{study}:{name}", REFERENCE.get(name, "beyond the documents"))
            lines.append(f"- [{name}]({rel}): {ref}. {title_of(results, rel)}")
        lines.append("")
    with open(os.path.join(results, "README.md"), "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {os.path.join(results, 'README.md')}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", default=os.path.join(HERE, "..", "results"))
    p.add_argument("--out", default=None, help="where to write (default: beside the committed results)")
    p.add_argument("--check", action="store_true", help="compare the committed figures' data with a fresh run")
    p.add_argument("--gallery", action="store_true", help="write results/README.md")
    a = p.parse_args()
    # Every plotting script needs matplotlib: without it, one line instead of a traceback per figure.
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit(f"figures.py: matplotlib is missing for {sys.executable} "
                 "(install Debian's python3-matplotlib and run with /usr/bin/python3)")
    results = os.path.normpath(a.results)
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            failures = regenerate(results, tmp)
            problems = failures + check(results, tmp)
        for x in problems:
            print(f"FAIL: {x}")
        # Passed: the committed figures and tables no problem names (a problem names its figure first;
        # a failed script or a job without figures names no figure, so it counts as a problem only).
        named = {x.split(":", 1)[0] for x in problems}
        passed = sum(rel not in named for _, _, _, d in active_jobs(results) for rel in outputs(results, d))
        print(f"{passed} passed, {len(problems)} failed")
        sys.exit(1 if problems else 0)
    failures = regenerate(results, a.out or results)
    for x in failures:
        print(f"FAIL: {x}")
    if a.gallery:
        gallery(results)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
