#!/usr/bin/env bash
# The performance gate a pull request runs: re-runs BASE.json's study with BASE's own config (the
# config as run, in meta.config) and gates the new run against BASE with `bench compare`.
#
#   scripts/perf_gate.sh BASE.json [--threshold 10%] [--include-cpu] [--gpu-only] [--bin build/bin] [--out DIR]
#   scripts/perf_gate.sh BASE.json --exact PREFIX,...   # a determinism gate: no times
#
# On a GPU runner, with BASE a committed result of that runner (docs/perf_gate.md): exit 0 when
# nothing is slower beyond the threshold (or, with --exact, when nothing changed), 1 on a
# slow-down, a change or a record that no longer validates, 2 on an error. CI here, which has no
# GPU, runs the determinism form over configs/gate/ against results/baseline/gate/. --gpu-only
# leaves BASE's CPU baselines out of the new run (they are not gated without --include-cpu, and on a
# default sweep they take most of the time); their records are then reported missing.
set -uo pipefail
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
base=$1; shift
bin=build/bin; out=""; compare_args=(); gpu_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --threshold|--exact) compare_args+=("$1" "$2"); shift 2 ;;
    --include-cpu) compare_args+=("$1"); shift ;;
    --gpu-only) gpu_only=1; shift ;;
    -h|--help) usage ;;
    *) echo "perf_gate: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -f "$base" ] || { echo "perf_gate: $base: no such file" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The study, the config and the flags (--quick, --size-limit N) as BASE ran them.
if ! python3 - "$base" "$tmp/config.json" "$tmp/study" "$gpu_only" "$tmp/flags" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
meta = doc["meta"]
cfg = dict(meta["config"])
flags = []
if cfg.pop("quick", None) is not None:  # a flag, not a config key
    flags.append("--quick")
if "size_limit" in cfg:  # likewise
    flags += ["--size-limit", str(cfg.pop("size_limit"))]
if sys.argv[4] == "1":
    cpu = {r["variant"] for r in doc["records"] if r.get("kind") == "cpu"}
    cfg["variants"] = [v for v in meta["variants"] if v not in cpu]
    if not cfg["variants"]:
        sys.exit("perf_gate: --gpu-only: BASE has no GPU variant")
json.dump(cfg, open(sys.argv[2], "w"), indent=1)
open(sys.argv[3], "w").write(meta["study"])
open(sys.argv[5], "w").write("".join(f + "\n" for f in flags))
PY
then echo "perf_gate: $base: not a results file with meta.config" >&2; exit 2; fi
study=$(cat "$tmp/study")
out=${out:-$tmp/new}
mapfile -t base_flags < "$tmp/flags"
flags=(--config "$tmp/config.json" --out "$out" --force "${base_flags[@]}")
"$bin/bench" "$study" "${flags[@]}" > "$tmp/run.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ ! -f "$out/$study.json" ]; then
  echo "perf_gate: the new run of $study failed (exit $rc):" >&2; tail -5 "$tmp/run.log" >&2; exit 2
fi
"$bin/bench" compare "$base" "$out/$study.json" "${compare_args[@]}"
