#!/bin/bash
# Every RHELM development run's neighbour-packing decisions in the committed fidelity reports (bench/results/*), with
# the share of the validation change that cue-reply items gave it. From the repository root:
#   bash bench/results/2026-12-08-adjective-heads-and-gerunds/neighbour-packing.sh
set -euo pipefail
echo "report | decisions | kept | contradicted | mean Δ validation | mean Δ official | cue-reply's part of the validation Δ"
for f in bench/results/*/fidelity-rhelm-dev*.txt bench/results/*/tried/fidelity-rhelm-dev*.txt; do
  row=$(grep -m1 'case-driven:neighbour-packing │ [0-9]' "$f" || true)
  [ -n "$row" ] || continue
  cue=$(grep 'case-driven:neighbour-packing │ [+−-]' "$f" | head -1 | grep -o 'cue-reply [+−-][0-9.]*' || true)
  echo "${f#bench/results/} |$(echo "$row" | awk -F'│' '{print $3 "|" $4 "|" $6 "|" $7 "|" $8}')| ${cue:-–}" | tr -s ' '
done
