#!/usr/bin/env bash
# Packs node and the DuckDB package (scripts/duckdb/node_modules, from scripts/install_deps.sh) for
# the GPU machine, which has neither: .device/carry/node.tar.xz (ignored by git; about 38 MB, so
# carry it beside a small pack of bench and the study's bench-join or bench-decimal, not the whole
# of scripts/pack_bin.sh's).
# There: tar xJf .device/carry/node.tar.xz -C /tmp/nd && ln -sfn /tmp/nd/node_modules scripts/duckdb/node_modules
#        PATH=/tmp/nd/node/bin:$PATH node scripts/duckdb/duckdb_anchor.mjs DUMP OUT.json
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d scripts/duckdb/node_modules/@duckdb/node-api ] || { echo "pack_node: scripts/duckdb/node_modules missing (scripts/install_deps.sh)" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/node/bin" .device/carry
cp "$(command -v node)" "$stage/node/bin/node"
strip "$stage/node/bin/node" || true
tar cf - -C "$stage" node -C scripts/duckdb node_modules | xz -9e -T0 > .device/carry/node.tar.xz
ls -l .device/carry/node.tar.xz
