#!/usr/bin/env bash
# scripts/launch_ranks.sh, the one-host launcher of the rank mode: every rank gets its RANK,
# WORLD_SIZE, LOCAL_RANK, one shared LP_BOOTSTRAP path and LP_RANKS_TAG; a failing rank ends the
# others within the grace period, with its status and one line naming it; bad arguments exit 2.
set -u
L="${SRC:?}/scripts/launch_ranks.sh"
fail=0
bad() { echo "test_launch_ranks: $*" >&2; fail=1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$L" 4 sh -c 'echo "$RANK $WORLD_SIZE $LOCAL_RANK $LP_BOOTSTRAP $LP_RANKS_TAG"' > "$T/out" 2> "$T/err" || bad "4 ranks of echo failed: $(cat "$T/err")"
[ "$(cut -d' ' -f1 "$T/out" | sort -n | tr '\n' ' ')" = "0 1 2 3 " ] || bad "ranks: $(cat "$T/out")"
[ "$(cut -d' ' -f2,3 "$T/out" | awk '$1 != 4 {print}' | wc -l)" -eq 0 ] || bad "world sizes: $(cat "$T/out")"
awk '$1 != $3 {exit 1}' "$T/out" || bad "local ranks: $(cat "$T/out")"
[ "$(cut -d' ' -f4,5 "$T/out" | sort -u | wc -l)" -eq 1 ] || bad "one bootstrap path and tag for all: $(cat "$T/out")"
[ -e "$(cut -d' ' -f4 "$T/out" | head -1 | xargs dirname)" ] && bad "the bootstrap directory outlived the launch"

# Rank 2 fails while the others sleep: they are ended, the status is rank 2's, its line names it.
start=$(date +%s)
"$L" 3 sh -c 'if [ "$RANK" = 2 ]; then sleep 0.2; exit 7; fi; sleep 60' > "$T/out" 2> "$T/err"
rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" -eq 7 ] || bad "status $rc, want 7"
[ "$took" -lt 30 ] || bad "the others were not ended: ${took} s"
grep -q "rank 2 exited with status 7" "$T/err" || bad "stderr: $(cat "$T/err")"

# A rank that ignores TERM is killed after the grace period.
start=$(date +%s)
LP_RANKS_GRACE_S=1 "$L" 2 bash -c 'trap "" TERM; if [ "$RANK" = 1 ]; then sleep 0.5; exit 3; fi; while :; do :; done' > /dev/null 2>&1
rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" -eq 3 ] || bad "status $rc, want 3 (TERM ignored)"
[ "$took" -lt 20 ] || bad "the TERM-ignoring rank was not killed: ${took} s"

# A rank killed by a signal counts as failed.
"$L" 2 sh -c 'if [ "$RANK" = 0 ]; then kill -9 $$; fi; sleep 60' > /dev/null 2>&1
rc=$?
[ "$rc" -eq 137 ] || bad "status $rc, want 137 (killed)"

for args in "" "0 true" "x true" "3"; do
  # shellcheck disable=SC2086
  "$L" $args > /dev/null 2> "$T/err"
  rc=$?
  [ "$rc" -eq 2 ] || bad "'$args': status $rc, want 2"
  grep -q "usage" "$T/err" || bad "'$args': no usage line"
done
[ "$fail" -eq 0 ] && echo "test_launch_ranks: passed"
exit "$fail"
