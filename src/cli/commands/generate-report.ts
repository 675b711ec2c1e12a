import Table from 'cli-table3';
import { QUESTION_FORMS, type CalibrationPart, type CalibrationReport, type SeedDifficulty } from '../../supervision/calibration.ts';

const PLAIN = { head: [] as string[], border: [] as string[] };
const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);

const interval = (i: SeedDifficulty['gapInterval']): string => (i ? ` [${(i.lower * 100).toFixed(1)}, ${(i.upper * 100).toFixed(1)}]` : '');

function partRows(name: string, p: CalibrationPart): string[][] {
  const g = p.generated;
  const o = p.official;
  const forms = (s: typeof g) =>
    QUESTION_FORMS.filter((f) => s.forms[f] >= 0.005)
      .sort((a, b) => s.forms[b] - s.forms[a])
      .map((f) => `${f} ${Math.round(s.forms[f] * 100)}`)
      .join(' ');
  const words = (s: typeof g) => `${s.meanContentWords.toFixed(1)} · ${pct(s.evidenceCoverage)} · ${pct(s.datedShare)}`;
  const ev = (s: typeof g) => `${s.meanEvidence.toFixed(2)} (${['1', '2', '3', '4+'].map((b) => s.evidenceCounts[b as '1']).join('/')})`;
  const kinds = (s: typeof g) =>
    [
      Object.entries(s.evidenceKinds)
        .sort(([, a], [, b]) => b - a)
        .map(([k, v]) => `${k} ${Math.round(v * 100)}`)
        .join(' '),
      s.replyAnswerShare == null ? '' : `reply ${pct(s.replyAnswerShare)}`,
    ]
      .filter((part) => part !== '')
      .join(' · ') || '—';
  return [
    [
      name,
      'generated',
      String(g.items),
      forms(g),
      pct(g.noOverlapShare),
      words(g),
      ev(g),
      kinds(g),
      p.seed ? `${pct(p.seed.generatedVal)} (whole set ${pct(p.seed.generatedAll)})` : '—',
    ],
    [
      '',
      'official',
      o ? String(o.items) : '—',
      o ? forms(o) : '—',
      pct(o?.noOverlapShare),
      o ? words(o) : '—',
      o ? ev(o) : '—',
      o ? kinds(o) : '—',
      pct(p.seed?.official),
    ],
    [
      '',
      'difference',
      '',
      p.formDistance === null ? '—' : `TVD ${p.formDistance.toFixed(2)}`,
      p.noOverlapGap === null ? '—' : `${(p.noOverlapGap * 100).toFixed(1)} pts`,
      '',
      '',
      p.kindDistance === null ? '—' : `TVD ${p.kindDistance.toFixed(2)}`,
      p.seed?.gap == null
        ? '—'
        : `${(p.seed.gap * 100).toFixed(1)} pts${interval(p.seed.gapInterval)}` +
          (p.seed.gapAll == null ? '' : ` (whole set ${(p.seed.gapAll * 100).toFixed(1)} pts)`),
    ],
  ];
}

/** The report as a plain table: development histories, held-out ones, all; each generated vs official. */
export function calibrationTable(r: CalibrationReport): string {
  const t = new Table({
    head: [
      'histories',
      'set',
      'items',
      'question forms (%)',
      'no content overlap',
      'content words · in evidence · names a date',
      'evidence mean (1/2/3/4+)',
      'evidence kinds (%)',
      'seed ctx recall: validation (gap, 95% CI)',
    ],
    style: PLAIN,
  });
  if (r.dev) t.push(...partRows(`dev: ${r.dev.histories.join(', ')}`, r.dev));
  if (r.heldout) t.push(...partRows(`held-out (${r.heldout.histories.length})`, r.heldout));
  if (r.dev && r.heldout) t.push(...partRows('all', r.all));
  return `calibration (content words: ${r.contentWords}; seed: ${r.all.seed?.design ?? 'not run'})\n${t.toString()}`;
}
