/** The report's fidelity section: how well the generated validation split ranked the run's candidates officially. */
import type {
  FidelityDecisions,
  FidelityReport,
  OfficialCeilingReport,
  SplitHalfReliability,
  TauIntervalReport,
} from '../experiments/fidelity-schema.ts';
import { formatDelta, formatScore } from './format.ts';
import { escapeHtml } from './html-escape.ts';

type Agreement = FidelityReport['contextRecall'];

/** τ or ρ with two decimals; `–` when undefined (fewer than two candidates, or one side constant). */
export function formatCorrelation(x: number | null): string {
  return x === null ? '–' : x.toFixed(2);
}

/** A regret in percentage points of the metric. */
export function formatRegret(a: Agreement): string {
  return a.regret ? `${(a.regret.regret * 100).toFixed(1)} pts` : '–';
}

const NOTE =
  'Every candidate that compiled and got a validation score, evaluated on the official questions after the search ' +
  '(the search never saw these numbers). Kendall τ-b and Spearman ρ compare the ranking by validation fitness with the ' +
  'official one (ties handled); regret = the best official score of any candidate minus that of the candidate with the ' +
  'highest validation fitness (ties to the earliest). Candidates with the same source count once.';

function agreementRow(label: string, a: Agreement): string {
  const r = a.regret;
  const cells = [
    escapeHtml(label),
    String(a.n),
    formatCorrelation(a.kendallTauB),
    formatCorrelation(a.spearman),
    escapeHtml(formatRegret(a)),
    r ? `${escapeHtml(r.chosen)} (${formatScore(r.chosenOfficial)})` : '–',
    r ? `${escapeHtml(r.bestOfficial)} (${formatScore(r.bestOfficialScore)})` : '–',
  ];
  return `<tr>${cells.map((c, i) => `<td${i > 0 && i < 5 ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`;
}

/** One side's split-half reliability as text: mean τ-b [p10, p90] over its questions. */
export function formatSplitHalf(h: SplitHalfReliability | null | undefined): string {
  return h ? `${h.meanTauB.toFixed(2)} [${h.p10.toFixed(2)}, ${h.p90.toFixed(2)}] over ${h.questions} questions` : '–';
}

/** The τ-b interval as text: point [lower, upper] over the items and questions it resampled. */
export function formatTauInterval(t: TauIntervalReport): string {
  return (
    `${t.kendallTauB.toFixed(2)} [${t.lower.toFixed(2)}, ${t.upper.toFixed(2)}] ` +
    `(${t.items} validation items and ${t.questions} official questions resampled, ${t.resamples} times)`
  );
}

/** The official ceiling as text: mean τ-b [p10, p90] over the resamples of its questions. */
export function formatCeiling(c: OfficialCeilingReport | null | undefined): string {
  return c ? `${c.meanTauB.toFixed(2)} [${c.p10.toFixed(2)}, ${c.p90.toFixed(2)}] over ${c.questions} questions` : '–';
}

/** The reliability line, when the report has one (reports written before it existed do not). */
function reliabilityNote(f: FidelityReport): string {
  if (!f.reliability) return '';
  return (
    '<p class="note">Split-half reliability of the context-recall ranking (τ-b between two random halves of the ' +
    `questions, mean [p10, p90]): official ${escapeHtml(formatSplitHalf(f.reliability.official))}; validation ` +
    `${escapeHtml(formatSplitHalf(f.reliability.validation))}. A validation–official τ-b above the official one is not ` +
    'to be expected: beyond it the official differences are noise.' +
    (f.tauInterval
      ? ` Validation–official τ-b by context recall, 95% bootstrap interval: ${escapeHtml(formatTauInterval(f.tauInterval))}.`
      : '') +
    (f.officialCeiling
      ? ' The most any validation set could reach against these official questions (τ-b between their ranking and ' +
        `their bootstrap resamples', mean [p10, p90]): ${escapeHtml(formatCeiling(f.officialCeiling))}.`
      : '') +
    '</p>\n'
  );
}

/** Each validation template's own agreement with the official ranking, when the report has it. */
function templateTable(f: FidelityReport): string {
  if (!f.byTemplate?.length) return '';
  const rows = f.byTemplate.map(
    (g) =>
      `<tr><td>${escapeHtml(g.group)}</td><td class="num">${g.items}</td><td class="num">${formatCorrelation(g.kendallTauB)}</td>` +
      `<td class="num">${formatCorrelation(g.spearman)}</td></tr>`,
  );
  return (
    '<p class="note">Each template of the generated validation items ranks the candidates by their mean context recall ' +
    'on its items; τ-b and ρ compare that ranking with the official context recall (templates with at least 5 items ' +
    'every candidate was scored on). A negative one steers the search away from what the official questions reward.</p>\n' +
    '<table class="data"><thead><tr><th>validation template</th><th>items</th><th>Kendall τ-b</th><th>Spearman ρ</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>\n`
  );
}

/** The decisions' summary line: how many the official questions confirm, contradict, or cannot tell apart. */
export function decisionsSummary(d: FidelityDecisions): string {
  return (
    `The search's ${d.decisions.length} decisions replayed on official context recall (a proposal against its parent; ` +
    `official change beyond 1.96 paired standard errors): ${d.agree} confirmed, ${d.disagree} contradicted, ${d.unclear} unclear`
  );
}

/** Head and rows of the per-move table of the search's decisions. */
export function decisionMoveRows(d: FidelityDecisions): { head: string[]; rows: string[][] } {
  return {
    head: ['move', 'decisions', 'kept', 'confirmed', 'contradicted', 'mean Δ validation', 'mean Δ official', 'official, pooled'],
    rows: d.byMove.map((m) => [
      m.move,
      String(m.decisions),
      String(m.accepted),
      String(m.agree),
      String(m.disagree),
      formatDelta(m.meanValDelta),
      formatDelta(m.meanOfficialDelta),
      `${m.official}${m.against ? ', against validation' : ''} (± ${(m.officialSe * 100).toFixed(2)})`,
    ]),
  };
}

/** How many groups a move's row names; the rest of its change is summed as "others". */
const TOP_GROUPS = 3;

/** Points with their sign, without the unit: "−0.63". */
function signedPoints(x: number): string {
  const pts = x * 100;
  return `${pts >= 0 ? '+' : '−'}${Math.abs(pts).toFixed(2)}`;
}

/** The two splits of a move's change: its validation change by template, its pooled official change by category. */
export const MOVE_SHARES = {
  validation: {
    note:
      "Where each move's validation change came from: its per-item validation differences, averaged over its decisions, " +
      'summed per template of the validation items and divided by all of them, so a move’s shares add up to its mean change',
    head: ['move', 'mean Δ validation', 'from the templates that moved it most (points of the change, items)'],
  },
  official: {
    note:
      "Where each move's official change came from: its per-question official differences, averaged over its decisions, " +
      'summed per category of the official questions and divided by all of them, so a move’s shares add up to its pooled change',
    head: ['move', 'Δ official, pooled', 'from the categories that moved it most (points of the change, questions)'],
  },
} as const;

/**
 * Head and rows of where each move's change came from (see {@link MOVE_SHARES}): the groups whose items moved it most
 * (their share of the change, in points), and the rest together. Moves without the split (older reports, other
 * objectives) are left out.
 */
export function moveShareRows(d: FidelityDecisions, which: keyof typeof MOVE_SHARES): { head: string[]; rows: string[][] } {
  return {
    head: [...MOVE_SHARES[which].head],
    rows: d.byMove.flatMap((m) => {
      const shares = which === 'validation' ? m.valByTemplate : m.officialByCategory;
      if (!shares?.length) return [];
      const sum = (xs: typeof shares) => xs.reduce((total, t) => total + t.share, 0);
      const parts = shares.slice(0, TOP_GROUPS).map((t) => `${t.group} ${signedPoints(t.share)} (${t.items})`);
      if (shares.length > TOP_GROUPS) parts.push(`others ${signedPoints(sum(shares.slice(TOP_GROUPS)))}`);
      return [[m.move, formatDelta(which === 'validation' ? m.meanValDelta : sum(shares)), parts.join(', ')]];
    }),
  };
}

/** Head and rows of the decisions the official questions contradict: where the validation split steered wrong. */
export function contradictedRows(d: FidelityDecisions): { head: string[]; rows: string[][] } {
  return {
    head: ['program', 'move', 'search', 'Δ validation', 'Δ official (± SE)'],
    rows: d.decisions
      .filter((x) => x.agrees === false)
      .map((x) => [
        x.id,
        x.move,
        x.accepted ? 'kept' : 'dropped',
        formatDelta(x.valDelta),
        `${formatDelta(x.officialDelta)} (± ${(x.officialSe * 100).toFixed(2)})`,
      ]),
  };
}

function htmlTable(t: { head: string[]; rows: string[][] }, numericFrom: number): string {
  const cell = (c: string, i: number) => `<td${i >= numericFrom ? ' class="num"' : ''}>${escapeHtml(c)}</td>`;
  return (
    `<table class="data"><thead><tr>${t.head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${t.rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('')}</tbody></table>\n`
  );
}

/** The search's decisions replayed on official scores, when the report has them. */
function decisionsTable(f: FidelityReport): string {
  const d = f.decisions;
  if (!d?.decisions.length) return '';
  const contradicted = contradictedRows(d);
  return (
    `<p class="note">${escapeHtml(decisionsSummary(d))}. A contradicted decision is a step the generated validation took ` +
    'against the official questions: a kept proposal that is officially worse, or a dropped one that is officially better. ' +
    'A move’s pooled official effect averages its decisions per question; "against validation" marks a move whose ' +
    'pooled effect is beyond 1.96 standard errors and opposite to its mean validation change.</p>\n' +
    htmlTable(decisionMoveRows(d), 1) +
    (contradicted.rows.length ? htmlTable(contradicted, 3) : '') +
    (['validation', 'official'] as const)
      .map((which) => {
        const t = moveShareRows(d, which);
        return t.rows.length ? `<p class="note">${escapeHtml(MOVE_SHARES[which].note)}</p>\n${htmlTable(t, 1)}` : '';
      })
      .join('')
  );
}

/** The section's body; a hint on how to compute it when the run has no fidelity.json. */
export function fidelitySection(f: FidelityReport | null): string {
  if (!f)
    return (
      '<p class="empty">Not computed for this run. <code>memsteer report &lt;run&gt; --fidelity</code> evaluates every ' +
      'candidate on the official questions and adds this section.</p>'
    );
  const where =
    `${f.questionCount} ${f.questions === 'official' ? 'official' : escapeHtml(f.questions)} questions` +
    `${f.categories.length ? ` (categories ${escapeHtml(f.categories.join(', '))})` : ''} on ${f.histories.length} ` +
    `${f.histories.length === 1 ? 'history' : 'histories'} (${escapeHtml(f.histories.join(', '))})` +
    `${f.devHistories.length ? `; development histories among them: ${escapeHtml(f.devHistories.join(', '))}` : ''}` +
    `; ${f.distinct} distinct candidates of ${f.candidates.length}; computed ${escapeHtml(f.computedAt)}.`;
  const heads = ['official metric', 'candidates', 'Kendall τ-b', 'Spearman ρ', 'regret', 'validation picks', 'official best'];
  const summary =
    `<table class="data"><thead><tr>${heads.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>` +
    `${agreementRow('context recall', f.contextRecall)}${agreementRow('R@10', f.recallAt10)}</tbody></table>`;
  const marks = (id: string) =>
    [
      id === f.contextRecall.regret?.chosen ? 'validation pick' : '',
      id === f.contextRecall.regret?.bestOfficial ? 'official best' : '',
      id === f.runBest ? 'run best' : '',
    ]
      .filter(Boolean)
      .join(', ');
  const rows = f.candidates.map(
    (c) =>
      `<tr><td><code>${escapeHtml(c.id)}</code></td><td class="num">${c.iteration}</td><td>${escapeHtml(c.status)}</td>` +
      `<td class="num">${formatScore(c.valFitness)}</td><td class="num">${formatScore(c.official?.contextRecall)}</td>` +
      `<td class="num">${formatScore(c.official?.recallAt10)}</td>` +
      `<td>${escapeHtml(c.sameAs ? `same source as ${c.sameAs}` : (c.error ?? marks(c.id)))}</td></tr>`,
  );
  const candHeads = ['program', 'iteration', 'status', 'validation fitness', 'official context recall', 'official R@10', ''];
  const candidates =
    `<table class="data"><thead><tr>${candHeads.map((h) => `<th>${h}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`;
  const head = `<p class="note">${escapeHtml(NOTE)}</p>\n<p class="note">${where}</p>\n${summary}\n`;
  return `${head}${reliabilityNote(f)}${templateTable(f)}${decisionsTable(f)}${candidates}`;
}
