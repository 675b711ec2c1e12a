#!/bin/bash
# rule-based@40: no event read from a statement whose object is cut short (a second object, a clause or an adjective
# after it, a relative clause on the noun before "I"), and -ing forms from en-inflectors. Runs like the quick start's
# on the RHELM development personas together at RNG seeds 1-5 (seeds/base-bm25.ts, 20 iterations, offline case-driven
# proposer), their fidelity reports, the quick start and its fidelity, and the held-out calibration of RHELM (seed 1)
# and LoCoMo. @36's runs at the same seeds are ../2026-12-07-document-questions/fidelity-rhelm-dev-s{1,2,3}.json and
# ../2026-12-07-first-after/tried/fidelity-rhelm-dev-s{4,5}-at36.json.
# From the repository root, on a commit whose generator is rule-based@40:
#   bash bench/results/2026-12-07-clause-objects/reproduce.sh   (about 50 minutes on a quiet machine)
set -euo pipefail
bash bench/generator-check.sh "$PWD/bench/results/2026-12-07-clause-objects"
