/**
 * A probe on a design written before the record slot existed: inserts the record-fusion block (FUSE_RECORDS, as the
 * move writes it) with the given weight, called before the learned ranking ('pre', where the move's slot is) or after it
 * ('post').
 *   npx tsx bench/results/2026-12-04-record-fusion/fuse-probe.mts <design.ts> <out.ts> <weight> pre|post
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { FUSE_RECORDS, RECORD_FUSION_CONSTANTS } from '../../../src/optimize/proposers/passage-blocks.ts';

const [design, out, weight, where] = process.argv.slice(2);
if (!design || !out || !weight || (where !== 'pre' && where !== 'post')) {
  throw new Error('usage: fuse-probe.mts <design.ts> <out.ts> <weight> pre|post');
}
let s = readFileSync(design, 'utf8');
const anchor = where === 'pre' ? '    hits = rescoreHits(q, hits, memory, tools);\n' : '    hits = learnedRank(q, hits, memory, tools);\n';
if (!s.includes(anchor) || !s.includes('const design = {')) throw new Error(`${design}: not a case-pipeline design`);
s = s.replace(anchor, `${anchor}    hits = fuseRecords(q, hits, memory, tools);\n`);
const constants = RECORD_FUSION_CONSTANTS.replace(/^const RECORD_WEIGHT = .*;$/m, `const RECORD_WEIGHT = ${weight};`);
s = s.replace('const design = {', `${FUSE_RECORDS}\n\n${constants}\n\nconst design = {`);
writeFileSync(out, s);
