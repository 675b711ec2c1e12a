/** The histories and supervision settings the ablations (supervision, feedback) share on each dataset. */
import type { History } from '../../history/record.ts';
import type { BenchContext } from '../context.ts';
import type { BenchDataset } from '../schemas.ts';
import type { GeneratedSpec } from '../supervision-sets.ts';

export interface AblationSetup {
  dataset: BenchDataset;
  histories: History[];
  spec: Partial<GeneratedSpec>;
  /** One sentence for the notes: what the ablation runs on. */
  describe: string;
}

/**
 * LoCoMo: every conversation with the main supervision settings (so the "with checks" and "stratified" arms are
 * the main table's run). RHELM: the first personas in name order with more items per persona (the largest
 * budget needs that many training items) and a smaller validation share (validation is paid every iteration).
 */
export async function ablationSetup(ctx: BenchContext, dataset: BenchDataset): Promise<AblationSetup> {
  const all = await ctx.histories(dataset);
  const c = ctx.config;
  if (dataset === 'locomo') {
    return {
      dataset,
      histories: all,
      spec: {},
      describe: `LoCoMo: all ${all.length} conversations, ${c.perHistory} generated items each (validation share ${c.valShare}).`,
    };
  }
  const histories = all.slice(0, Math.min(c.ablationPersonas, all.length));
  return {
    dataset,
    histories,
    spec: { perHistory: c.ablationPerHistory, valShare: c.ablationValShare },
    describe:
      `RHELM: ${histories.length} of ${all.length} personas (${histories.map((h) => h.id).join(', ')}` +
      `${histories.length < all.length ? '; the first in name order, to fit the time budget' : ''}), ` +
      `${c.ablationPerHistory} generated items each (validation share ${c.ablationValShare}); test = those personas' official QA.`,
  };
}
