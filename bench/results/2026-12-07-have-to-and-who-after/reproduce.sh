#!/bin/bash
# rule-based@41: no event read from an obligation ("I have to paint the fence"), from an object a possessive or a
# demonstrative follows ("showed Anna my garden", "noticed that annotating these passages ..."), or from a relative
# clause after a copula ("it's a principle I've always considered foundational"); "I had to rely on gestures" is read
# as done; and the multi-hop "after" question asks "who" of a person. Runs like the quick start's on the RHELM
# development personas together at RNG seeds 1-5 (seeds/base-bm25.ts, 20 iterations, offline case-driven proposer),
# their fidelity reports, the quick start and its fidelity, and the held-out calibration of RHELM (seed 1) and LoCoMo.
# @40's runs at the same seeds are ../2026-12-07-clause-objects/fidelity-rhelm-dev-s{1..5}.json.
# From the repository root, on a commit whose generator is rule-based@41:
#   bash bench/results/2026-12-07-have-to-and-who-after/reproduce.sh   (about 50 minutes on a quiet machine)
set -euo pipefail
bash bench/generator-check.sh "$PWD/bench/results/2026-12-07-have-to-and-who-after"
