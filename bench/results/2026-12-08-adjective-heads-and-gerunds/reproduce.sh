#!/bin/bash
# rule-based@42: no event read from an object whose head WordNet knows only as an adjective ("these quieter, unhurried
# meals"), from a bare gerund with an object or particle of its own ("relying on guesswork", "expressing myself"),
# after "become", or with a verb wink left uninflected ("we reframed"); ../../generator-check.sh's runs and calibration.
# @41's figures are ../2026-12-07-have-to-and-who-after/.
# From the repository root, on a commit whose generator is rule-based@42:
#   bash bench/results/2026-12-08-adjective-heads-and-gerunds/reproduce.sh   (about 50 minutes on a quiet machine)
set -euo pipefail
bash bench/generator-check.sh "$PWD/bench/results/2026-12-08-adjective-heads-and-gerunds"
