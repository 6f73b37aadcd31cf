#!/usr/bin/env bash
# Starts N ranks of a command on this host, as a cluster launcher (srun, mpirun) would, for tests and
# for a machine without one. Each rank gets RANK, WORLD_SIZE, LOCAL_RANK (its GPU: one host, so the
# rank itself), LP_RANKS_TAG (one per launch, so a bootstrap file of an earlier launch is never
# taken for this one's) and LP_BOOTSTRAP (a file in a fresh private directory, where rank 0 publishes
# NCCL's unique id and the others wait for it). If a rank exits non-zero or is killed, the others are
# ended (TERM, then KILL after LP_RANKS_GRACE_S seconds, default 10) and the script exits with that
# rank's status, naming it on stderr; else 0.
#
# usage: scripts/launch_ranks.sh N COMMAND [ARGS...]
set -u
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/launch_ranks.sh N COMMAND [ARGS...]   (N: ranks, 1 or more)" >&2
  exit 2
fi
n=$1
shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/lp-ranks.XXXXXX") || { echo "launch_ranks: cannot make a temporary directory" >&2; exit 2; }
trap 'rm -rf "$dir"' EXIT
tag="launch-$(hostname -s 2>/dev/null || echo host)-$$-$(date +%s%N)"
declare -A rank_of=() running=()
for ((r = 0; r < n; r++)); do
  # Its own process group (setsid), so that ending a rank ends what it started too.
  RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r LP_RANKS_TAG=$tag LP_BOOTSTRAP="$dir/nccl-id" setsid "$@" &
  rank_of[$!]=$r
  running[$!]=1
done
status=0
killer=""
# wait -n reaps one job a call and may fold two that end together, so each round asks every
# running rank whether it is gone and collects its status by pid (bash keeps it).
while [ ${#running[@]} -gt 0 ]; do
  wait -n 2>/dev/null
  for pid in "${!running[@]}"; do
    kill -0 "$pid" 2>/dev/null && continue
    wait "$pid" 2>/dev/null
    rc=$?
    unset "running[$pid]"
    if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then
      status=$rc
      echo "launch_ranks: rank ${rank_of[$pid]} exited with status $rc; ending the other ranks" >&2
      for p in "${!running[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
      # (Its output closed: a leftover sleep must not hold the launch's pipes open.)
      (sleep "${LP_RANKS_GRACE_S:-10}"; for p in "${!rank_of[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done) > /dev/null 2>&1 &
      killer=$!
    fi
  done
done
[ -n "$killer" ] && kill "$killer" 2>/dev/null
exit "$status"
