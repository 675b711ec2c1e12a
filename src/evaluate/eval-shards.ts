/**
 * Splitting one history's questions across several pool tasks, so a single history (the quick start's persona) does
 * not leave every other pool process idle while its one pass runs.
 *
 * Each shard is a stretch of the history's time: consecutive questions in time order, cut so that the shards' work
 * is about even. A shard replays the history from its start (`store`, then `add` up to each date, as
 * eval-timeline.ts does) but answers only its own questions, so the memory every question sees is built exactly as in
 * one pass, and a design whose `retrieve` and `context` leave memory as they found it (caches included) answers every
 * question exactly as in one pass. What one question's `retrieve` changes in memory reaches only the later questions
 * of its own shard: questions are probes, not history. Groups after a shard's last question are not replayed at all.
 *
 * Stretches rather than dealing questions out in turn: a design that recomputes what it derives from memory at the
 * first question after each `add` (an index, document frequencies) pays that once per asked date, in the shard that
 * asks there; dealt-out questions made every shard pay it at every date. On the quick start that left the search as
 * slow as unsharded for 32% more CPU time.
 *
 * By default evaluateProgram splits only a history whose questions fall on more than one day. A single date group
 * split in two builds the same memory (and a design's lazy caches) twice to share only its questions: on a LoCoMo
 * conversation (152 questions, one group) that was slower, 6.9 s and 7.4–7.7 s against 5.9 s and 6.0–7.0 s in one
 * process, for Base-BM25 and for the quick start's best design.
 */

/** A shard is only worth its extra memory build with at least this many questions (a build costs ~20 questions). */
export const SHARD_MIN_QUESTIONS = 32;

/**
 * How many shards each of `units` work units (a history's one pass, or a history's single date group) gets: with
 * fewer units than processes, each gets an equal share of the processes, but at most one shard per
 * {@link SHARD_MIN_QUESTIONS} questions. `forced` (the `shards` option) fixes the count instead, still never above
 * the unit's question count.
 */
export function shardCounts(questionsPerUnit: readonly number[], processes: number, forced?: number): number[] {
  if (forced !== undefined) return questionsPerUnit.map((n) => Math.max(1, Math.min(forced, n)));
  const share = questionsPerUnit.length ? Math.floor(processes / questionsPerUnit.length) : 1;
  return questionsPerUnit.map((n) => Math.max(1, Math.min(share, Math.floor(n / SHARD_MIN_QUESTIONS))));
}

/**
 * {@link shardCounts} with the default rule of evaluateProgram: only a one-pass replay (`onePass`, a history asked on
 * more than one day) is split, unless a count is forced.
 */
export function unitShards(units: ReadonlyArray<{ questions: number; onePass: boolean }>, processes: number, forced?: number): number[] {
  const counts = shardCounts(
    units.map((u) => u.questions),
    processes,
    forced,
  );
  return counts.map((k, i) => (forced !== undefined || units[i]!.onePass ? k : 1));
}

/**
 * Splits a unit's groups (in time order) into `k` shards of consecutive questions. A question weighs what its group
 * weighs (`weight`, e.g. the records its memory holds: bigger memories cost more per question), and the cuts fall
 * where the running weight crosses each k-th of the total. Each shard keeps every group up to its own last question,
 * with that group's questions narrowed to the shard's: the groups before its first question keep none and only
 * carry records forward for `add`.
 */
export function shardGroups<I, G extends { readonly items: readonly I[] }>(
  groups: readonly G[],
  k: number,
  weight: (group: G) => number,
  narrow: (group: G, items: I[]) => G,
): G[][] {
  if (k <= 1) return [[...groups]];
  const total = groups.reduce((n, g) => n + g.items.length * weight(g), 0);
  const shardOf = new Map<I, number>();
  let before = 0;
  for (const g of groups) {
    const w = weight(g);
    for (const item of g.items) {
      // Each question goes where its middle falls, so equal weights split as evenly as counts can.
      shardOf.set(item, total > 0 ? Math.min(k - 1, Math.floor(((before + w / 2) * k) / total)) : 0);
      before += w;
    }
  }
  return Array.from({ length: k }, (_, s) => {
    const own = groups.map((g) =>
      narrow(
        g,
        g.items.filter((item) => shardOf.get(item) === s),
      ),
    );
    let last = own.length - 1;
    while (last >= 0 && own[last]!.items.length === 0) last--;
    return own.slice(0, last + 1);
  }).filter((shard) => shard.length > 0);
}
