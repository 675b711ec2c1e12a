import { renderDiff } from './diff-html.ts';
import { formatDelta, formatDollars, formatInt, formatScore, formatSeconds } from './format.ts';
import { escapeHtml, inlineScript, jsonForScript } from './html-escape.ts';
import { renderLineage } from './lineage-html.ts';
import { OFFICIAL_TRACES_DIR } from './report-data.ts';
import type { Metrics, ReportData, SplitScoresEntry } from './report-schema.ts';
import { fidelitySection } from './fidelity-html.ts';

/** What the page needs besides the data: the inlined charting library, the page's own script and stylesheet. */
export interface PageAssets {
  chartLibrary: { name: string; version: string; code: string };
  script: string;
  css: string;
}

const METRIC_LABELS: Record<keyof Omit<Metrics, 'n'>, string> = {
  recallAt10: 'R@10',
  contextRecall: 'context recall',
  accuracy: 'accuracy',
  f1: 'F1',
  locomoF1: 'LoCoMo F1',
  marginalUtility: 'marginal utility',
};

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

const NAV = [
  ['fitness', 'fitness'],
  ['lineage', 'lineage'],
  ['failures', 'failure categories'],
  ['revisions', 'revisions'],
  ['scores', 'scores by category'],
  ['cost', 'cost'],
  ['fidelity', 'fidelity'],
]
  .map(([id, text]) => `<a href="#${id}">${text}</a>`)
  .join(' · ');

const LINEAGE_NOTE =
  'Every program under the parent it was derived from. Accepted programs are highlighted and link to their diff; ' +
  'hover a node for its rationale and decision.';

const FAILURES_NOTE =
  'Training-set diagnosis of the program the search stood on after each iteration (the most recently accepted one): ' +
  'where each failed question lost its evidence — storage (not in memory), retrieval (stored, not delivered), ' +
  'answering (delivered, answered wrongly).';

/**
 * The report page. Text, tables, the lineage tree and the diffs are rendered here (escaped), so they read without
 * JavaScript; the charts are drawn in the browser by the inlined library from the JSON data block. The CSP forbids
 * every network fetch: the file must work from a disk with no connection.
 */
export function renderHtml(data: ReportData, assets: PageAssets): string {
  const title = `memsteer report — ${data.run.name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${escapeHtml(title)}</title>
<style>${assets.css}</style>
</head>
<body>
<header>
<h1>memsteer run <code>${escapeHtml(data.run.name)}</code></h1>
<p class="meta">${header(data)}</p>
<nav>${NAV}</nav>
</header>
<main>
${summary(data)}
<section id="fitness">
<h2>Fitness over iterations</h2>
<p class="note">${fitnessNote(data)}</p>
<div class="chart-box"><canvas id="chart-fitness" aria-label="fitness over iterations" role="img"></canvas></div>
</section>
<section id="lineage">
<h2>Lineage</h2>
<p class="note">${LINEAGE_NOTE}</p>
${data.programs.length ? renderLineage(data.programs) : '<p class="empty">No programs in this run yet.</p>'}
</section>
<section id="failures">
<h2>Failure categories per iteration</h2>
<p class="note">${FAILURES_NOTE}</p>
<div class="chart-box"><canvas id="chart-failures" aria-label="failure categories per iteration" role="img"></canvas></div>
${failureTable(data)}
</section>
<section id="revisions">
<h2>Accepted revisions</h2>
${revisions(data)}
</section>
<section id="scores">
<h2>Final scores per question category</h2>
${scores(data)}
</section>
<section id="cost">
<h2>Cost by role</h2>
${cost(data)}
</section>
<section id="fidelity">
<h2>Supervision fidelity</h2>
${fidelitySection(data.fidelity)}
</section>
</main>
<footer>
${warnings(data)}
<p>${footer(data, assets)}</p>
</footer>
<script>${inlineScript(assets.chartLibrary.code)}</script>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${inlineScript(assets.script)}</script>
</body>
</html>
`;
}

function fitnessNote(data: ReportData): string {
  return (
    `Validation fitness (${escapeHtml(objectiveLabel(data.run.objective))}) of every evaluated candidate, accepted and rejected, ` +
    'with the best accepted score so far. Invalid proposals (edits that did not apply or compile) and failed evaluations ' +
    'have no score and appear only in the lineage.'
  );
}

function revisions(data: ReportData): string {
  if (data.revisions.length === 0) return '<p class="empty">No proposal was accepted: the seed stayed the current design.</p>';
  return data.revisions.map(revision).join('\n');
}

function warnings(data: ReportData): string {
  if (data.warnings.length === 0) return '';
  const items = data.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('');
  return `<div class="warnings"><strong>Archive warnings</strong><ul>${items}</ul></div>`;
}

function footer(data: ReportData, assets: PageAssets): string {
  const lib = assets.chartLibrary;
  return (
    `Generated ${escapeHtml(data.generatedAt)} by memsteer ${escapeHtml(data.run.memsteer)} ` +
    `from <code>${escapeHtml(data.run.dir)}</code>. ` +
    `Charts: ${escapeHtml(lib.name)} ${escapeHtml(lib.version)} (MIT), inlined.`
  );
}

function objectiveLabel(objective: string): string {
  if (objective === 'evidence') return 'context recall of gold evidence';
  if (objective === 'ranking') return 'recall@10 of gold evidence among the ranked records';
  return objective === 'marginal' ? 'marginal utility' : objective;
}

function header(data: ReportData): string {
  const r = data.run;
  const models = Object.entries(r.models)
    .map(([role, m]) => `${role} ${m}`)
    .join(', ');
  const parts = [
    r.dir,
    `created ${r.createdAt}`,
    `objective ${objectiveLabel(r.objective)}`,
    models ? `models: ${models}` : '',
    `RNG seed ${r.rngSeed}`,
    r.gitCommit ? `commit ${r.gitCommit.slice(0, 12)}` : '',
    r.stopped ? `stopped: ${r.stopped.reason}` : 'not stopped (running or interrupted)',
  ].filter(Boolean);
  return parts.map(escapeHtml).join(' · ');
}

function card(label: string, value: string, sub = ''): string {
  const subDiv = sub ? `<div class="sub">${sub}</div>` : '';
  return `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value">${value}</div>${subDiv}</div>`;
}

function summary(data: ReportData): string {
  const s = data.summary;
  const seed = s.seed;
  const best = s.best;
  const gain =
    seed?.score !== null && seed?.score !== undefined && best?.score !== null && best?.score !== undefined
      ? formatDelta(best.score - seed.score)
      : '';
  const tokens = data.cost.total.promptTokens + data.cost.total.completionTokens;
  return `<section id="summary" class="cards">
${card('seed', formatScore(seed?.score), seed ? `<code>${escapeHtml(seed.id)}</code>` : '')}
${card('best', formatScore(best?.score), best ? `<code>${escapeHtml(best.id)}</code>${gain ? ` · ${escapeHtml(gain)}` : ''}` : '')}
${card('proposals', String(s.proposals), `${s.accepted} accepted · ${s.rejected} rejected · ${s.invalid} invalid · ${s.failed} failed`)}
${card('iterations', String(Math.max(0, s.lastIteration)), `${s.programs} programs`)}
${card('LLM tokens', formatInt(tokens), escapeHtml(formatDollars(data.cost.total.dollars)))}
</section>`;
}

function failureTable(data: ReportData): string {
  const cats = data.failures.categories;
  const rows = data.failures.bars.map((b) => {
    const cells = cats.map((c) => `<td class="num">${b.counts ? String(b.counts[c] ?? 0) : '–'}</td>`).join('');
    return `<tr><td class="num">${b.iteration}</td><td><code>${escapeHtml(b.program ?? '–')}</code></td>${cells}</tr>`;
  });
  const heads = cats.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  return (
    `<details><summary>Counts</summary><table class="data"><thead><tr><th>iteration</th><th>program</th>${heads}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></details>`
  );
}

function revision(r: ReportData['revisions'][number]): string {
  const id = escapeHtml(r.id);
  const score =
    r.scoreBefore !== null && r.scoreAfter !== null
      ? `${formatScore(r.scoreBefore)} → ${formatScore(r.scoreAfter)} (${formatDelta(r.scoreAfter - r.scoreBefore)})`
      : formatScore(r.scoreAfter);
  const meta = [
    `iteration ${r.iteration}`,
    `parent ${r.parent}`,
    r.proposer ? `by ${r.proposer}` : '',
    r.targets ? `targets ${r.targets} failures` : '',
  ].filter(Boolean);
  const edits = r.applied.map((a) => `<li><span class="op">${escapeHtml(a.op)}</span> ${escapeHtml(a.summary)}</li>`);
  const applied = r.applied.length ? `<ul class="edits">${edits.join('')}</ul>` : '';
  const diff =
    r.diff === null
      ? '<p class="empty">A source is missing from the archive: no diff.</p>'
      : r.diff === ''
        ? '<p class="empty">Same source as the parent.</p>'
        : renderDiff(r.diff);
  return `<article class="revision" id="rev-${id}">
<h3><code>${id}</code> <span class="score">${escapeHtml(score)}</span></h3>
<p class="meta">${meta.map(escapeHtml).join(' · ')}</p>
${r.rationale ? `<p class="rationale">${escapeHtml(r.rationale)}</p>` : ''}
${r.decision ? `<p class="decision">Decision: ${escapeHtml(r.decision)}</p>` : ''}
${applied}
<details open><summary>Diff against <code>${escapeHtml(r.parent)}</code></summary>${diff}</details>
</article>`;
}

function scores(data: ReportData): string {
  const blocks: string[] = [];
  const label = { val: 'Validation split (generated supervision)', test: 'Official test questions' } as const;
  for (const split of ['val', 'test'] as const) {
    const entries = data.scores.entries.filter((e) => e.split === split);
    if (entries.length === 0) {
      if (split === 'test')
        blocks.push(
          '<p class="empty">This run recorded no official-test scores (no test questions, or a run from before they were recorded).</p>',
        );
      else blocks.push('<p class="empty">No validation traces for the seed or the best program.</p>');
      continue;
    }
    const summaryOnly = entries.every((e) => e.source === 'summary');
    const what = summaryOnly
      ? `${METRIC_LABELS[data.scores.metric]}, seed vs best. The run recorded official-test aggregates only; ` +
        `per-category scores need the programs' official traces (${OFFICIAL_TRACES_DIR}/<program>.jsonl).`
      : `${METRIC_LABELS[data.scores.metric]} per question category, seed vs best.`;
    const chartLabel = `${escapeHtml(label[split])} per category`;
    blocks.push(`<h3>${escapeHtml(label[split])}</h3>
<p class="note">${escapeHtml(what)}</p>
<div class="chart-box short"><canvas id="chart-scores-${split}" aria-label="${chartLabel}" role="img"></canvas></div>
${scoreTable(entries)}`);
  }
  return blocks.join('\n');
}

function scoreTable(entries: SplitScoresEntry[]): string {
  const seed = entries.find((e) => e.role === 'seed');
  const best = entries.find((e) => e.role === 'best');
  const cols = entries.length > 1 && seed && best && seed.program !== best.program ? [seed, best] : [best ?? seed!];
  const metricKeys = (Object.keys(METRIC_LABELS) as Array<keyof typeof METRIC_LABELS>).filter((k) =>
    cols.some((c) => c.overall[k] !== null),
  );
  const categories = [...new Set(cols.flatMap((c) => Object.keys(c.perCategory)))].sort();
  const cell = (m: Metrics | undefined, k: keyof typeof METRIC_LABELS) => `<td class="num">${m ? formatScore(m[k]) : '–'}</td>`;
  const row = (name: string, pick: (e: SplitScoresEntry) => Metrics | undefined, cls = '') => {
    const n = pick(cols[cols.length - 1]!)?.n ?? pick(cols[0]!)?.n ?? 0;
    const cells = metricKeys.map((k) => cols.map((c) => cell(pick(c), k)).join('')).join('');
    return `<tr${cls ? ` class="${cls}"` : ''}><td>${escapeHtml(name)}</td><td class="num">${n}</td>${cells}</tr>`;
  };
  const metricHeads = metricKeys.map((k) => `<th colspan="${cols.length}">${escapeHtml(METRIC_LABELS[k])}</th>`).join('');
  const head1 = `<tr><th rowspan="2">category</th><th rowspan="2">n</th>${metricHeads}</tr>`;
  const sameProgram = seed !== undefined && best !== undefined && seed.program === best.program;
  const roleLabel = (c: SplitScoresEntry) => (sameProgram ? 'seed = best' : c.role);
  const roleHeads = cols.map((c) => `<th title="${escapeHtml(c.program)}">${roleLabel(c)}</th>`).join('');
  const head2 = `<tr>${metricKeys.map(() => roleHeads).join('')}</tr>`;
  const body = [...categories.map((c) => row(c, (e) => e.perCategory[c])), row('all', (e) => e.overall, 'total')];
  return `<table class="data"><thead>${head1}${head2}</thead><tbody>${body.join('')}</tbody></table>`;
}

function cost(data: ReportData): string {
  const rows = [...data.cost.roles, data.cost.total].map(
    (r) =>
      `<tr${r.role === 'total' ? ' class="total"' : ''}><td>${escapeHtml(r.role)}</td><td>${escapeHtml(r.model)}</td>` +
      `<td class="num">${formatInt(r.promptTokens)}</td><td class="num">${formatInt(r.completionTokens)}</td>` +
      `<td class="num">${escapeHtml(formatDollars(r.dollars))}</td><td class="num">${formatSeconds(r.ms)}</td></tr>`,
  );
  const heads = '<th>role</th><th>model</th><th>prompt tokens</th><th>completion tokens</th><th>dollars</th><th>wall time</th>';
  return `<table class="data"><thead><tr>${heads}</tr></thead><tbody>${rows.join('')}</tbody></table>
<div class="chart-box short"><canvas id="chart-cost" aria-label="wall time and tokens per iteration" role="img"></canvas></div>
${data.cost.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('\n')}`;
}
