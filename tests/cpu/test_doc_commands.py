#!/usr/bin/env python3
"""The README's and docs/' commands run as written (the doc test).

usage: test_doc_commands.py SRC BIN

Every line of a ```sh block in README.md and docs/*.md is one of:
  - a command: run as written from a scratch folder that holds the source tree's configs/ (a
    copy), scripts/, results/, docs/ and build/bin (links), so that what it writes stays there. It
    must exit 0, or 4 ("nothing ran", documented) where this machine has no GPU;
  - a synopsis (`[--option]`, `...` or an UPPER-CASE placeholder such as BASE.json): not run; each
    --option it names must be one that `bench <study|command> --help` lists;
  - a command this test cannot run here, matched by NOT_HERE below, which says why. A command that
    matches nothing there is run, so a new command in the docs is tested without a change here.
A loop (for ... done) or a line continued by a backslash runs as one command.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (pattern, why it does not run here). Keep each reason true: the command runs elsewhere.
NOT_HERE = [
    (r"^scripts/test\.sh\b", "CI's own command (.ci/run runs it; this test is part of it)"),
    (r"^scripts/quickstart\.sh\b", "install_deps + build (done by scripts/test.sh) and then `bench sortedsearch`, "
                                   "whose README line this test runs"),
    (r"--gpus\b", "needs two GPUs (docs/multi-gpu.md)"),
    (r"^scripts/regret_run\.sh\b", "the regret sweep on a GPU (hours)"),
    (r"runs/regret/", "reads the GPU regret sweep's output"),
    (r"^scripts/plot_regret\.py runs/", "plots the GPU regret sweep's output"),
    (r"--threshold 10% \|\| exit 1", "the CI gate's GPU step: compares a GPU run with the committed H100 run"),
    (r"--out new --force$", "the CI gate's GPU step (its run feeds the compare line beside it)"),
    (r"^build/bin/bench reproduce (thesis|all)(?!.*--quick)(?!.*--plan)", "a full reproduction (hours on a GPU); "
                                                                         "its --plan forms run here"),
    (r"^build/bin/bench reproduce thesis --quick", "tests/cpu/test_reproduce.sh runs this command (the CPU chapter "
                                                  "without a GPU) and checks its report"),
]
SYNOPSIS = re.compile(r"\[--|\s\.\.\.|\b(?:[A-Z][A-Z0-9_]{1,}(?:\.json|\.png)?)\b(?!=)")


def statements(path):
    """The commands of a doc's ```sh blocks: a line each, a loop or a continued line as one."""
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"```(sh|bash)\n(.*?)```", text, re.S):
        buf, depth = [], 0
        for line in m.group(2).splitlines():
            line = strip_comment(line)
            if not line.strip():
                continue
            buf.append(line)
            depth += len(re.findall(r"\b(for|while|until|if)\b", line)) - len(re.findall(r"\b(done|fi)\b", line))
            if depth <= 0 and not line.endswith("\\"):
                yield "\n".join(buf)
                buf, depth = [], 0
        if buf:
            yield "\n".join(buf)


def strip_comment(line):
    # A trailing "# ..." explains the command; a '#' inside quotes is not one (none in our docs).
    return "" if line.lstrip().startswith("#") else re.sub(r"\s+#\s.*$", "", line).rstrip()


def help_text(bin_dir, words):
    exe = os.path.join(bin_dir, "bench")
    r = subprocess.run([exe] + words + ["--help"], capture_output=True, text=True, timeout=60)
    return r.stdout + r.stderr


def check_synopsis(cmd, bin_dir):
    """Every --option of a `build/bin/bench ...` synopsis is in that command's --help."""
    m = re.match(r"build/bin/bench\s+([a-z_-]+)", cmd)
    if not m:
        return []
    sub = m.group(1)
    text = help_text(bin_dir, [sub])
    missing = [o for o in re.findall(r"--[a-z][a-z0-9-]*", cmd) if o not in text]
    return [f"{cmd}\n    options not in `bench {sub} --help`: {', '.join(sorted(set(missing)))}"] if missing else []


def main():
    src, bin_dir = sys.argv[1], sys.argv[2]
    gpu = subprocess.run([os.path.join(bin_dir, "bench-multireduce"), "--gpu-info"], capture_output=True, text=True)
    has_gpu = '"present":true' in gpu.stdout.replace(" ", "")
    scratch = tempfile.mkdtemp(prefix="doc-commands-")
    try:
        shutil.copytree(os.path.join(src, "configs"), os.path.join(scratch, "configs"))
        shutil.copytree(os.path.join(src, "results"), os.path.join(scratch, "results"))  # figures get rewritten
        for d in ("scripts", "docs", "tests"):
            os.symlink(os.path.join(src, d), os.path.join(scratch, d))
        # `python3` is this test's Python (Debian's, with matplotlib), as the docs ask for the figures.
        os.makedirs(os.path.join(scratch, ".pybin"))
        os.symlink(sys.executable, os.path.join(scratch, ".pybin", "python3"))
        env = dict(os.environ, LP_PYTHON=sys.executable, PATH=os.path.join(scratch, ".pybin") + os.pathsep + os.environ["PATH"])
        os.makedirs(os.path.join(scratch, "build"))
        os.symlink(os.path.abspath(bin_dir), os.path.join(scratch, "build", "bin"))
        failures, ran, skipped, synopses = [], 0, 0, 0
        for doc in ["README.md"] + sorted(glob.glob(os.path.join(src, "docs", "*.md"))):
            path = doc if os.path.isabs(doc) else os.path.join(src, doc)
            for cmd in statements(path):
                why = next((w for p, w in NOT_HERE if re.search(p, cmd, re.M)), None)
                if why:
                    skipped += 1
                    print(f"not here: {cmd.splitlines()[0]}  ({why})")
                    continue
                if "\n" not in cmd and SYNOPSIS.search(cmd):
                    synopses += 1
                    failures += check_synopsis(cmd, bin_dir)
                    continue
                ran += 1
                try:
                    r = subprocess.run(["bash", "-eo", "pipefail", "-c", cmd], cwd=scratch, capture_output=True, text=True,
                                       timeout=600, env=env)
                    ok = r.returncode == 0 or (r.returncode == 4 and not has_gpu)
                    tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
                except subprocess.TimeoutExpired:
                    ok, tail = False, ["timed out after 600 s"]
                    r = None
                print(f"{'ok  ' if ok else 'FAIL'} {os.path.relpath(path, src)}: {cmd.splitlines()[0]}")
                if not ok:
                    failures.append(f"{os.path.relpath(path, src)}: {cmd}\n    exit {r.returncode if r else 'timeout'}: "
                                    + "\n    ".join(tail))
        print(f"test_doc_commands: {ran} commands run, {synopses} synopses checked, {skipped} not runnable here")
        if failures:
            print("FAILED:\n  " + "\n  ".join(failures))
            return 1
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
