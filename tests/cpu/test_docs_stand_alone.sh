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
  # Every relative link of the README and docs/ reaches a file of the repository, and an anchor a
  # heading of that file (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens).
  python3 - README.md docs/*.md <<'PY' || fail=1
import os, re, sys
def slugs(path):
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out
bad = 0
for doc in sys.argv[1:]:
    text = re.sub(r"```.*?```", "", open(doc, encoding="utf-8").read(), flags=re.S)  # code blocks hold no links
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            print(f"{doc}: a link out of the repository: {target}"); bad = 1; continue
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(dest):
            print(f"{doc}: the link {target} reaches no file"); bad = 1
        elif anchor and dest.endswith(".md") and anchor not in slugs(dest):
            print(f"{doc}: the link {target} names no heading of {dest}"); bad = 1
sys.exit(bad)
PY
else
  echo "not a git checkout: skipped"
  exit 77
fi
[ $fail -eq 0 ] && echo "the docs stand alone"
exit $fail
