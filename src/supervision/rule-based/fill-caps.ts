/**
 * How much of a set each rule-based template may take.
 *
 * generateSupervision caps question types so a set mixes them; when the open types stop yielding (a small history,
 * a large target) it lifts those caps and the types that still yield fill the rest. Offline, what still yields is
 * the templates that fire on every mention of a topic ("When did Caroline talk about the cowboy?", "How many days
 * passed between when …", "Who brought up the partner?") and yes/no forms: on LoCoMo conv-26 at 400 items the
 * mention templates were a third of the set. These caps bound the fill; the set stops short of its target instead.
 *
 * The grouped templates are capped from the first item, not only in the fill: within the type caps the temporal type
 * alone took 45% of the development conversations' items, most of them "When did X talk about Y?" and yes/no forms,
 * once the "What N did X mention?" questions read from a verb or an adverb ("What softens…?") were dropped.
 * Calibrated on the development histories (LoCoMo conv-26 and conv-30), where the people's own questions are
 * about what happened, not about what was talked about, and under 2% are yes/no. A group's share is of the set that
 * is kept: a set that stops short of its target is brought back to it afterwards (../set-shares.ts).
 */

/** One group of templates that share a cap, and the share of the set they may take in all. */
export interface FillCap {
  group: string;
  share: number;
  /** Whether the cap holds from the first item (a named group) or only once the type caps have lifted. */
  always: boolean;
}

/** A template outside the groups below: at most this share of the target once the type caps have lifted. */
export const FILL_TEMPLATE_SHARE = 0.15;

const GROUPS: ReadonlyArray<{ group: string; share: number; templates: readonly string[] }> = [
  // Questions about what was talked about (a topic's mention), not about what happened.
  { group: 'mention', share: 0.1, templates: ['when', 'days-between', 'who-said', 'mention-count'] },
  // Which of two named things figured in more conversations of a period: its own group, as the counts above fill theirs.
  { group: 'mention-compare', share: 0.08, templates: ['mention-compare'] },
  { group: 'yes-no', share: 0.1, templates: ['yes-no', 'before', 'yes-no-false-premise', 'companion-false-premise'] },
  // A false premise asked as a request for what happened ("Can you remind me what Rohan and I talked about when we
  // …?"): the RHELM development personas build 37 of their 229 questions on a false detail.
  { group: 'premise-what', share: 0.1, templates: ['companion-premise-what'] },
  // Any two dated events of one speaker make a duration question: a history yields them long after the rest.
  { group: 'duration', share: 0.06, templates: ['days-after'] },
];

const BY_TEMPLATE = new Map(GROUPS.flatMap((g) => g.templates.map((t) => [t, { group: g.group, share: g.share, always: true }] as const)));

/** The cap `template`'s items count against: from the first item for a named group, else once the type caps lift. */
export function fillCap(template: string): FillCap {
  return BY_TEMPLATE.get(template) ?? { group: template, share: FILL_TEMPLATE_SHARE, always: false };
}
