#!/bin/bash
# The supervision ablations (generator checks; 100 / 200 / 400 training items) on held-out LoCoMo at rule-based@25,
# RNG seeds 1, 2 and 3. From the repository root (about 10 minutes):
set -euo pipefail
D=bench/results/2026-12-05-training-size
for r in 1 2 3; do
  T=$(mktemp -d)
  npx memsteer bench --dataset locomo --experiments supervision --exclude-dev --rng-seed "$r" --out "$T"
  mkdir -p "$D/rng$r"
  cp "$T/README.md" "$T/supervision.md" "$T/supervision.json" "$D/rng$r/"
  rm -rf "$D/rng$r/artefacts" && cp -r "$T/artefacts" "$D/rng$r/"
done
