import type { ExportManifest, ExportScores } from './design-manifest.ts';

const pct = (x: number | undefined): string => (x === undefined ? '–' : `${(x * 100).toFixed(1)}`);

function scoreRow(name: string, s: ExportScores | null): string {
  if (!s) return `| ${name} | – | – | – | – | – | – |`;
  const m = s.metrics;
  return `| ${name} | ${s.n} | ${pct(s.value)} | ${pct(m['recall@10'])} | ${pct(m.contextRecall)} | ${pct(m.accuracy)} | ${pct(m.f1)} |`;
}

/** The README written beside an exported design: where it came from, how it scored, how to use it. */
export function renderExportReadme(m: ExportManifest): string {
  const lineage = m.lineage
    .map((p) => {
      const score = p.score === null ? '' : `, val ${pct(p.score)}`;
      const rationale = p.rationale ? `: ${p.rationale}` : '';
      return `${p.kind === 'seed' ? '- seed' : '-'} \`${p.id}\` (${p.proposer ?? p.kind}, ${p.status}${score})${rationale}`;
    })
    .join('\n');
  const commit = m.run.gitCommit ? `, memsteer commit ${m.run.gitCommit.slice(0, 12)}` : '';
  const best = m.program.best ? ", the run's best" : '';
  return `# Memory design ${m.program.id}

A memory design evolved by memsteer: \`design.ts\` is a self-contained TypeScript module (store → retrieve →
context) that imports only types from \`memsteer/contract\`. \`design.json\` holds the same facts as this page, validated.

## Where it came from

- run: **${m.run.name}** (\`${m.run.dir}\`), created ${m.run.createdAt}${commit}, memsteer ${m.memsteer.run}
- program: \`${m.program.id}\` (${m.program.kind}, iteration ${m.program.iteration}, ${m.program.status}${best})
- history: \`${m.history.source}\`
- supervision: ${m.history.supervision ? `\`${m.history.supervision}\`` : '–'}
- models: ${
    Object.entries(m.run.models)
      .map(([role, model]) => `${role} ${model}`)
      .join(', ') || '–'
  }
- objective: ${m.objective}; context budget ${m.budget.tokens} tokens
- sha256 of design.ts: \`${m.source.sha256}\` (archived source \`${m.source.archivedSha256}\`)

Lineage (seed first):

${lineage}

## Scores

| questions | n | fitness (${m.objective}) | R@10 | context recall | accuracy | F1 |
| --- | --- | --- | --- | --- | --- | --- |
${scoreRow('validation (generated supervision)', m.scores.val)}
${scoreRow('official test QA', m.scores.test)}

Percentages. Accuracy and F1 come from the run's answerer (${m.run.models.answerer ?? 'unknown'}); R@10 and
context recall are evidence recall of the records the design retrieved / delivered.
${m.scores.test ? '' : '\nThe run recorded no official-test scores for this program; measure them with `memsteer eval` (below).\n'}
## Use it in an app

memsteer ships TypeScript sources, so run the app with tsx (\`node --import tsx app.ts\`).

\`\`\`ts
import { createMemory } from 'memsteer';

// Runs the design in an isolated-vm sandbox with the same host tools and limits as evaluation.
// The budget defaults to design.json's (${m.budget.tokens} tokens).
const memory = await createMemory({ design: new URL('./design.ts', import.meta.url).pathname });

await memory.add([
  { id: 'm1', kind: 'turn', text: 'I moved to Lisbon in May.', time: '2024-05-02T10:00:00', speaker: 'user' },
  'Plain strings become note records.',
]);

const { context, evidence } = await memory.search('Where do I live?');
// context: the text to put in your model's prompt; evidence: [{ record, text, time? }] it was built from.

// A dated question sees only records dated on or before that day, as in evaluation.
await memory.search({ text: 'Where did I live then?', date: '2024-04-30' });

await memory.close();
\`\`\`

Options: \`sandbox: false\` runs the design in this process (trusted code only: no memory or time limits),
\`budget\` overrides the context budget, \`llm\` (an \`LlmClient\`, role \`design\`) and \`embedder\` supply
\`tools.llm\` and \`tools.embed\` (offline without them, as in the run unless it had a model).
\`add\` re-runs the design's \`store\` over every record added so far, so add records in batches.

## Check it

\`\`\`sh
memsteer eval --history '${m.history.source}' --design design.ts --budget ${m.budget.tokens} --traces traces.jsonl
\`\`\`

gives the same contexts and evidence as \`createMemory\` on the same records and questions.
`;
}
