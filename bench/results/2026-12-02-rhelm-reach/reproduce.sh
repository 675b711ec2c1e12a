#!/bin/bash
# The hand-written design variants on the RHELM development personas (official questions and the generated
# validation split of rule-based@11, seed 1). Run from the repository root: bash bench/results/2026-12-02-rhelm-reach/reproduce.sh
set -euo pipefail
R=bench/results/2026-12-02-rhelm-reach
T=$(mktemp -d)
for P in Jonas_Richter Justice_Arvind_Prakash_Mehra; do
  H="rhelm:../shared/data/rhelm#$P"
  npx memsteer generate --history "$H" --out "$T/$P.jsonl" --offline --report
  node -e "const fs=require('fs');const rows=fs.readFileSync('$T/$P.jsonl','utf8').trim().split('\n').filter(l=>JSON.parse(l).split==='val');fs.writeFileSync('$T/val-$P.jsonl',rows.join('\n')+'\n')"
  for D in design-i004 design-i004-clause-fusion design-i004-frame-terms; do
    for Q in official "$T/val-$P.jsonl"; do
      npx memsteer eval --history "$H" --design "$R/$D.ts" --questions "$Q" --jobs 1 --traces "$T/traces-$D-$P.jsonl" --json |
        node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s).summary;console.log('$D $P',('$Q'==='official'?'official':'val'),'R@10',(r.recallAt['10']*100).toFixed(1),'ctx',(r.contextRecall*100).toFixed(1))})"
    done
  done
done
