#!/bin/bash
# Evaluation shards: the quick start with a history's questions split across the pool's processes, against the same
# code before the split (BASE), run in alternation so machine load hits both alike. From the repository root:
#   bash bench/results/2026-12-07-eval-shards/reproduce.sh [BASE] [PAIRS]   (about 6 minutes per pair)
# Prints one line per run (wall, user and system seconds); both trees must print identical official tables.
set -euo pipefail
ROOT=$PWD
BASE=${1:-d19bf7b}
PAIRS=${2:-2}
T=$(mktemp -d)
git worktree add -q --detach "$T/base" "$BASE"
ln -s "$ROOT/node_modules" "$T/base/node_modules"
trap 'git worktree remove --force "$T/base"' EXIT
run() { # tree label n
  local out="$T/$2-$3"
  local TIMEFORMAT='%R %U %S'
  { time node "$1/bin/memsteer.js" start --out "$out" > "$out.log" 2>&1; } 2> "$out.time"
  sed 's/\x1b\[[0-9;]*m//g' "$out.log" | grep -E '^[│├└┌]' > "$out.tables"
  read -r wall user sys < "$out.time"
  echo "$(date -u +%H:%M) $2 run $3: wall ${wall} s, user ${user} s, system ${sys} s"
}
for n in $(seq 1 "$PAIRS"); do
  if (( n % 2 )); then run "$T/base" base "$n"; run "$ROOT" shards "$n"; else run "$ROOT" shards "$n"; run "$T/base" base "$n"; fi
done
for f in "$T"/*.tables; do cmp -s "$f" "$T/base-1.tables" || echo "tables differ: $f"; done
cat "$T/shards-1.tables"
