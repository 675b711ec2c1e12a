#!/bin/bash
# The situation's record cited as evidence: tried on rule-based@24 (commit 9fb1a47) and not kept. From the repository
# root (about 5 minutes): applies situation-evidence.patch in a worktree and writes the RHELM seed-1 calibration table.
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-05-situation-evidence
T=$(mktemp -d)
git worktree add -q --detach "$T/w" 9fb1a47
ln -s "$ROOT/node_modules" "$T/w/node_modules"
cd "$T/w"
git apply "$D/situation-evidence.patch"
npx memsteer generate --history "rhelm:$ROOT/../shared/data/rhelm" --out "$T/S1.jsonl" --offline --seed 1 --report | tee "$T/generate.out"
cp "$T/S1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
cd "$ROOT" && git worktree remove --force "$T/w"
