/**
 * The two chrono-node parsers memsteer uses, cut from chrono's English casual configuration:
 * - `explicitDates` reads only dates the text fixes by itself ("8 May 2023", "May 2023", "2023-05-08", "Monday,
 *   May 8th 2023 at 3pm"): it has no parser for relative phrases ("yesterday", "two weeks ago") and no refiner that
 *   folds "the day after 14 March 2022" into one relative result, so the explicit date inside such a phrase is found;
 * - `resolvingDates` reads relative phrases too, against a reference instant.
 * Neither has chrono's slash-date parser: it reads 5/8/2023 by locale (May 8 or 5 August), and a silent guess is
 * worse than no date for answer matching; date-parse.ts keeps its own rule (only unambiguous orders).
 */
import { type Chrono, casual } from 'chrono-node';

/** Parsers whose results depend on the reference instant. */
const RELATIVE_PARSERS = [
  'ENTimeUnitWithinFormatParser',
  'ENTimeUnitAgoFormatParser',
  'ENTimeUnitLaterFormatParser',
  'ENCasualDateParser',
  'ENCasualTimeParser',
  'ENEndOfCurrentMonthParser',
  'ENRelativeDateFormatParser',
  'ENTimeUnitCasualRelativeFormatParser',
];
const RELATIVE_REFINERS = ['ENMergeRelativeAfterDateRefiner', 'ENMergeRelativeFollowByDateRefiner'];
// "2024-06-01 to 2024-06-05" stays two mentions, each with its own offsets (a merged range keeps only its start).
const RANGE_REFINER = 'ENMergeDateRangeRefiner';
const SLASH_PARSER = 'SlashDateFormatParser';

/**
 * A copy of `base` without the named parsers and refiners. Names are chrono's class names (the version is pinned);
 * a name that is not there throws at load, so an upgrade that renames one fails every date test instead of
 * silently parsing relative phrases as explicit dates.
 */
function without(base: Chrono, parsers: readonly string[], refiners: readonly string[]): Chrono {
  const c = base.clone();
  const drop = <T extends object>(list: T[], names: readonly string[], what: string): T[] => {
    const present = new Set(list.map((x) => x.constructor.name));
    const missing = names.filter((n) => !present.has(n));
    if (missing.length) throw new Error(`chrono-node has no ${what} ${missing.join(', ')}: check src/text/chrono-parsers.ts`);
    return list.filter((x) => !names.includes(x.constructor.name));
  };
  c.parsers = drop(c.parsers, parsers, 'parser');
  c.refiners = drop(c.refiners, refiners, 'refiner');
  return c;
}

export const explicitDates: Chrono = without(casual, [...RELATIVE_PARSERS, SLASH_PARSER], [...RELATIVE_REFINERS, RANGE_REFINER]);
export const resolvingDates: Chrono = without(casual, [SLASH_PARSER], [RANGE_REFINER]);
