#!/usr/bin/env bash
# The clone stands alone: no tracked file points outside the repository (../shared), and every
# script the README and docs/ name (scripts/<name>.py or .sh) is in it and, where it is a command
# (it starts with #!; a module such as lpresults.py does not), committed executable.
set -u
cd "${SRC:?SRC is the source tree}"
fail=0
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  outside=$(git grep -l -e '\.\./shared' -- . ':!tests/cpu/test_docs_stand_alone.sh' || true)
  if [ -n "$outside" ]; then
    echo "files that point outside the repository (../shared): $outside"
    fail=1
  fi
  for s in $(grep -ohE 'scripts/[A-Za-z0-9_]+\.(py|sh)' README.md docs/*.md | sort -u); do
    mode=$(git ls-files -s "$s" | cut -d' ' -f1)
    if [ -z "$mode" ]; then
      echo "$s: named in the docs but not in the repository"
      fail=1
    elif [ "$mode" != 100755 ] && head -c 2 "$s" | grep -q '#!'; then
      echo "$s: named in the docs but committed without its execute bit (git update-index --chmod=+x $s)"
      fail=1
    fi
  done
else
  echo "not a git checkout: skipped"
  exit 77
fi
[ $fail -eq 0 ] && echo "the docs stand alone"
exit $fail
